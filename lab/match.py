"""Match equity by backward induction over the score.

``ME(a, b)`` is the match-win probability of the *next hand's mão* when the mão
has ``a`` points and the pé ``b`` (both 0..11). Under the default rules every hand
scores at least one point, so each hand strictly increases ``a + b`` and the score
graph has no cycles: states are solved from ``a + b = 22`` down to ``0``. The mão
alternates, so after a hand the old pé is the new mão::

    P(old mão wins) = 1 - ME(b', a')      (a', b' the points after the hand)

or 1 / 0 when a player reached 12.

Hands that score nothing. Under rules where three tied rounds score nothing (see
:class:`lab.rules.RuleSet`), such a hand leaves the score as it was and the seats swap,
so ``ME(a, b)`` and ``ME(b, a)`` depend on each other (and ``ME(a, a)`` on itself)::

    ME(a, b) = X(a, b) + p0(a, b) (1 - ME(b, a))

with ``p0`` the probability that the hand scores nothing and ``X`` the rest of its value.
For a hand whose play does not depend on that payoff (the card-play and full-game
models' fixed outcome distributions, the blind 11 x 11) this 2 x 2 system (1 x 1 at
``a = b``) is solved exactly; a hand solved as a game with that payoff (the mão de onze,
the 11 x 11 with its cards seen) is re-solved at the system's solution until the payoffs
it was solved with agree with it to within its exploitability, and the disagreement left
is added to the row's exploitability.

What happens inside one hand comes from a :class:`HandModel`:

* normal scores (both below 11): the hand solved with payoffs in match-win
  probability, given as a function ``payoff(winner seat, points)``;
* mão de onze (exactly one player at 11): a solved game whose payoffs are
  match-win probabilities (the 11-holder accepts or runs, then card play at 3);
* 11 x 11: card play worth 3, whoever wins the hand wins the match.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np
import pandas as pd

from .errors import InputError
from .rules import DEFAULT_RULES, MAO, NOBODY, PE, TARGET, RuleSet, hand_kind
from .solver.games.payoffs import ELEVEN, ElevenPayoffs, after_hand, eleven_payoffs



def equity_array(table: pd.DataFrame) -> np.ndarray:
    """(12, 12) ``p_mao`` of a ``match_equity`` table (the next hand's mão's match-win
    probability), indexed [mão's points, pé's points]; NaN where the table has no row."""
    me = np.full((TARGET, TARGET), np.nan)
    me[table["score_mao"].to_numpy(), table["score_pe"].to_numpy()] = table["p_mao"].to_numpy()
    return me


@dataclass(frozen=True)
class HandResult:
    """A solved hand at one score: the mão's match-win probability and its exploitability
    (match-win probability), with the name of the model that produced it, and the
    probability that the hand scores nothing (0 unless the rules allow it)."""

    p_mao: float
    exploitability: float
    model: str
    p_nobody: float = 0.0


class HandModel(Protocol):
    """What the match needs to know about one hand."""

    name: str
    rules: RuleSet

    def normal(self, score: tuple[int, int], payoff) -> HandResult:
        """Solve a hand at ``score`` (both below 11) where ``payoff(winner, points)`` is the
        mão's match-win probability after that outcome (``winner`` None: nobody scored)."""

    def eleven(self, score: tuple[int, int], payoffs: ElevenPayoffs) -> HandResult:
        """Solve the mão de onze at ``score`` with these match payoffs."""

    def eleven_eleven(self, nobody: float = float("nan")) -> HandResult:
        """Solve the 11 x 11 hand: the mão's probability of winning it (= the match), plus
        ``nobody`` times the probability that it scores nothing."""


def scores_backward():
    """Every score (a, b) with a, b in 0..11, in an order where each state comes after
    every state a hand can lead to."""
    for total in range(2 * ELEVEN, -1, -1):
        for a in range(min(ELEVEN, total), max(0, total - ELEVEN) - 1, -1):
            yield a, total - a


def solve_hand(model: HandModel, me: np.ndarray, score: tuple[int, int],
               nobody: float = float("nan")) -> HandResult:
    """The hand at ``score`` with payoffs from ``me`` (every score a hand can lead to is
    solved) and ``nobody`` the mão's match-win probability when it scores nothing."""
    a, b = score
    if a == b == ELEVEN:
        return model.eleven_eleven(nobody)
    if ELEVEN in score:
        return model.eleven(score, eleven_payoffs(me, score, nobody))

    def payoff(winner, points):
        return nobody if winner is None else after_hand(me, score, winner, points)
    return model.normal(score, payoff)


MAX_ROUNDS = 8
"""Most re-solves of a pair of scores whose hands may score nothing (see module doc)."""


def solve_scoreless_pair(model: HandModel, me: np.ndarray, scores) -> dict:
    """Solve the hands at ``scores`` ((a, b) and (b, a), or (a, a) alone) where a hand may
    score nothing, exactly as the module doc says; returns {score: HandResult}."""
    scores = tuple(scores)
    nobody = {s: 0.5 for s in scores}
    for _ in range(MAX_ROUNDS):
        res = {s: solve_hand(model, me, s, nobody[s]) for s in scores}
        rest = {s: res[s].p_mao - res[s].p_nobody * nobody[s] for s in scores}
        p0 = {s: res[s].p_nobody for s in scores}
        if len(scores) == 1:
            (s,) = scores
            value = {s: (rest[s] + p0[s]) / (1 + p0[s])}
        else:
            s, t = scores
            vs = (rest[s] + p0[s] * (1 - rest[t] - p0[t])) / (1 - p0[s] * p0[t])
            value = {s: vs, t: rest[t] + p0[t] * (1 - vs)}
        solved_with = {s: 1 - value[s[::-1]] for s in scores}
        gap = {s: p0[s] * abs(solved_with[s] - nobody[s]) for s in scores}
        if all(gap[s] <= max(_measured(res[s].exploitability), 1e-12) for s in scores):
            break
        nobody = solved_with
    return {s: replace(res[s], p_mao=value[s], exploitability=res[s].exploitability + gap[s])
            for s in scores}


def _measured(exploitability: float) -> float:
    """An exploitability, or 0 where the model reports none (NaN): its values are exact."""
    return 0.0 if np.isnan(exploitability) else exploitability


def match_equity(model: HandModel, progress=None) -> pd.DataFrame:
    """The match-equity table: one row per score (score_mao, score_pe) with the next
    hand's mão's match-win probability ``p_mao``, the hand ``model`` that produced it and
    its ``exploitability`` (match-win probability), under ``model.rules``."""
    rules = getattr(model, "rules", DEFAULT_RULES)
    me = np.full((TARGET, TARGET), np.nan)
    results: dict = {}
    for score in scores_backward():
        if score in results:
            continue
        if rules.three_ties_winner(*hand_kind(score)) == NOBODY:
            solved = solve_scoreless_pair(model, me, sorted({score, score[::-1]}))
        else:
            solved = {score: solve_hand(model, me, score)}
        for s, res in solved.items():
            me[s] = res.p_mao
            results[s] = res
            if progress is not None:
                progress.update(1)
    rows = [{"score_mao": a, "score_pe": b, "p_mao": res.p_mao, "p_pe": 1 - res.p_mao,
             "model": res.model, "exploitability": res.exploitability}
            for (a, b), res in results.items()]
    return pd.DataFrame(rows).sort_values(["score_mao", "score_pe"], ignore_index=True)


# ---------------------------------------------------------------- the card-play model

CARDPLAY_MODEL = "cardplay-1pt"
"""Normal hands under the card-play model: no truco, every hand worth 1 point, both
seats playing the exact card-play equilibrium (a stand-in until the full game with the
truco ladder is solved)."""
FULL_MODEL = "full-game-points"
"""Normal hands under the full game: both seats play the points equilibrium of the hand
with the truco ladder (``full_summary``), so each hand ends with the mão or the pé
scoring 1, 3, 6, 9 or 12 with the solved probabilities. The row's exploitability is not
measured here: the points strategy's leak in match-win probability is what ``lab solve
score`` measures, score by score."""
SCORE_AWARE_MODEL = "full-game-score-aware"
"""Normal hands under the full game where every vira's hand at the score was re-solved with
match-win payoffs (``score_play``): the row's exploitability is theirs (match-win
probability), widened by the payoffs' drift since (see :class:`MixedModel`)."""
MIXED_MODEL = "full-game-mixed"
"""Normal hands under the full game where some viras' hands at the score were re-solved
with match-win payoffs and the rest are played for points."""
ELEVEN_MODEL = "mao-de-onze-exact"
"""The mão de onze solved exactly (accept/run, then card play at 3) with match payoffs."""
ELEVEN_ELEVEN_MODEL = "eleven-eleven-exact"
"""11 x 11 solved exactly: card play worth 3, whoever wins the hand wins the match."""
BLIND_MODEL = "eleven-eleven-blind"
"""The blind 11 x 11 (nobody sees his own cards): counted exactly over all deals and orders
of play; nobody has a choice, so nothing can be exploited."""

MODEL_LABELS = {
    CARDPLAY_MODEL: "card play, every hand worth 1",
    FULL_MODEL: "full game with truco, played for points",
    SCORE_AWARE_MODEL: "full game with truco, played for the match at this score",
    MIXED_MODEL: "full game with truco, played for the match on some viras",
    ELEVEN_MODEL: "mão de onze, solved for the match",
    ELEVEN_ELEVEN_MODEL: "11 x 11: the card play decides the match",
    BLIND_MODEL: "11 x 11 played blind: counted",
}
"""Each model in a few words, for pages that players read."""

MODEL_DESCRIPTIONS = {
    CARDPLAY_MODEL: "card-play model: no truco, every hand worth 1 point, exact card-play "
                    "equilibrium",
    FULL_MODEL: "full game with the truco ladder, both seats playing its points "
                "equilibrium (outcome distribution per vira); the leak in match-win "
                "probability is measured by `lab solve score`",
    SCORE_AWARE_MODEL: "full game with the truco ladder re-solved with match-win payoffs at "
                       "this score for every vira (`lab solve match-play`)",
    MIXED_MODEL: "full game with the truco ladder: re-solved with match-win payoffs on the "
                 "viras `lab solve match-play` has reached, points play on the others",
    ELEVEN_MODEL: "mão de onze solved exactly with match-win payoffs (accept or run, then "
                  "card play worth 3)",
    ELEVEN_ELEVEN_MODEL: "11 x 11 solved exactly (card play worth 3; the hand's winner wins "
                         "the match)",
    BLIND_MODEL: "11 x 11 played blind, counted exactly over every deal and order of play",
}


def _solve_eleven_task(task):
    from .solver.games.eleven import solve_eleven

    vira, holder, pay, target, three_ties = task
    return solve_eleven(vira, holder, pay.mao_wins, pay.pe_wins, pay.holder_runs,
                        target_exploitability=target, three_ties=three_ties,
                        nobody=pay.nobody)


def _solve_eleven_eleven_task(task):
    """The 11 x 11 of one vira with its cards seen, where three tied rounds score nothing
    and that is worth ``nobody``: (value, exploitability, p_nobody), match-win probability."""
    from .solver.games.cardplay import solve_cardplay

    vira, nobody, target = task
    sol = solve_cardplay(vira, target_exploitability=target, payoff=(1.0, 0.0, nobody),
                         three_ties=NOBODY)
    return sol.value, sol.exploitability, float(sol.solver.outcome_probabilities()[2])


class CardplayModel:
    """Hands of the match under the card-play model, with the exact end games.

    ``summary`` is the ``cardplay_summary`` table: per vira the mão's card-play win
    probability ``value_mao`` (a hand that scores nothing counts half) and its
    ``exploitability`` (win probability), and, for rules where three tied rounds score
    nothing, ``p_nobody``: how often that happens. Each vira rank comes up with
    probability 1/10. Mão de onze solves run in ``pool`` (an executor with ``map``) when
    given; every solution is kept in ``eleven_solutions`` keyed by score. ``rules``: the
    rules the hands are played under (the summary must have been solved under them).
    """

    name = CARDPLAY_MODEL

    def __init__(self, summary: pd.DataFrame, pool=None, eleven_target: float = 1e-5,
                 rules: RuleSet = DEFAULT_RULES):
        if len(summary) != 10 or summary["vira"].nunique() != 10:
            raise InputError("the card-play model needs the summary of all 10 viras")
        self.viras = list(summary["vira"])
        self.value = summary["value_mao"].to_numpy(dtype=float)
        self.exploitability = summary["exploitability"].to_numpy(dtype=float)
        self.rules = rules
        self.p_nobody = summary["p_nobody"].to_numpy(dtype=float) if "p_nobody" in summary \
            else np.zeros(len(summary))
        self.pool = pool
        self.eleven_target = eleven_target
        self.eleven_solutions: dict = {}

    def _map(self, task, tasks):
        return list((map if self.pool is None else self.pool.map)(task, tasks))

    def normal(self, score, payoff) -> HandResult:
        win, lose = payoff(MAO, 1), payoff(PE, 1)
        if self.rules.three_ties_winner(*hand_kind(score)) != NOBODY:
            p = float(np.mean(self.value * win + (1 - self.value) * lose))
            # match payoffs are affine in the hand's winner, so the card-play equilibrium
            # stays optimal and every best-response gain scales by the swing win - lose
            expl = float(np.mean(self.exploitability)) * abs(win - lose)
            return HandResult(p, expl, CARDPLAY_MODEL)
        p_win = self.value - 0.5 * self.p_nobody  # value counts a scoreless hand half
        p_lose = 1 - p_win - self.p_nobody
        p = float(np.mean(p_win * win + p_lose * lose + self.p_nobody * payoff(None, 0)))
        # a scoreless hand is not worth half a win in the match, so the equilibrium solved
        # for win probability is not one of the match game: its leak is not measured here
        return HandResult(p, float("nan"), CARDPLAY_MODEL, float(np.mean(self.p_nobody)))

    def eleven(self, score, payoffs: ElevenPayoffs) -> HandResult:
        ties = self.rules.three_ties_winner(*hand_kind(score))
        tasks = [(v, payoffs.holder, payoffs, self.eleven_target, ties) for v in self.viras]
        solutions = self._map(_solve_eleven_task, tasks)
        self.eleven_solutions[tuple(score)] = solutions
        return HandResult(float(np.mean([s.value_mao for s in solutions])),
                          float(np.mean([s.exploitability for s in solutions])), ELEVEN_MODEL,
                          float(np.mean([s.p_nobody for s in solutions])))

    def eleven_eleven(self, nobody: float = float("nan")) -> HandResult:
        from .solver.games.eleven import blind_eleven_eleven

        ties = self.rules.three_ties_winner(*hand_kind((ELEVEN, ELEVEN)))
        if self.rules.eleven_eleven == "blind":
            counts = np.array([blind_eleven_eleven(v, ties) for v in self.viras])
            win, p0 = counts.mean(axis=0)
            return HandResult(float(win + (p0 * nobody if p0 else 0.0)), 0.0, BLIND_MODEL,
                              float(p0))
        if ties != NOBODY:
            return HandResult(float(np.mean(self.value)), float(np.mean(self.exploitability)),
                              ELEVEN_ELEVEN_MODEL)
        solved = self._map(_solve_eleven_eleven_task,
                           [(v, nobody, self.eleven_target) for v in self.viras])
        value, expl, p0 = np.array(solved).mean(axis=0)
        return HandResult(float(value), float(expl), ELEVEN_ELEVEN_MODEL, float(p0))


def plays_normal_hands_alike(rules: RuleSet) -> bool:
    """True when ``rules`` play a normal hand (both below 11) as the default rules do: only
    the end games differ (the 11 x 11, the mão de onze tied three times)."""
    return rules.three_ties == DEFAULT_RULES.three_ties and \
        rules.surrender == DEFAULT_RULES.surrender


class FullGameModel(CardplayModel):
    """Normal hands from the full game's points solution; the end games as in
    :class:`CardplayModel` (they have no truco).

    ``full_summary`` holds, per vira, the probabilities ``p_mao_<v>`` / ``p_pe_<v>`` that a
    hand ends with that seat scoring ``v`` points (``v`` on the ladder 1, 3, 6, 9, 12),
    solved with three tied rounds going to ``three_ties`` (``"mao"``: the lab's rules;
    ``"nobody"``: the rest, ``1 -`` the sum, is the probability that a hand scores nothing).
    """

    name = FULL_MODEL

    def __init__(self, summary: pd.DataFrame, full_summary: pd.DataFrame, pool=None,
                 eleven_target: float = 1e-5, rules: RuleSet = DEFAULT_RULES,
                 three_ties: str = DEFAULT_RULES.three_ties):
        if rules.three_ties != three_ties:
            raise InputError(f"the full game was solved with three tied rounds going to "
                             f"{three_ties!r}; under {rules.version} they go to "
                             f"{rules.three_ties!r}, so normal hands are played differently")
        super().__init__(summary, pool, eleven_target, rules)
        if sorted(full_summary["vira"]) != sorted(self.viras):
            raise InputError("the full-game model needs the full game solved for all 10 viras")
        full = full_summary.set_index("vira").loc[self.viras]
        self.ladder = [int(c[len("p_mao_"):]) for c in full.columns if c.startswith("p_mao_")]
        self.p_mao = full[[f"p_mao_{v}" for v in self.ladder]].to_numpy(dtype=float)
        self.p_pe = full[[f"p_pe_{v}" for v in self.ladder]].to_numpy(dtype=float)
        self.p_scoreless = np.maximum(0.0, 1.0 - self.p_mao.sum(axis=1) - self.p_pe.sum(axis=1))

    def normal(self, score, payoff) -> HandResult:
        mao = np.array([payoff(MAO, v) for v in self.ladder])
        pe = np.array([payoff(PE, v) for v in self.ladder])
        p = float(np.mean(self.p_mao @ mao + self.p_pe @ pe))
        if self.rules.three_ties_winner(*hand_kind(score)) == NOBODY:
            p_nobody = float(np.mean(self.p_scoreless))
            return HandResult(p + p_nobody * payoff(None, 0), float("nan"), FULL_MODEL, p_nobody)
        return HandResult(p, float("nan"), FULL_MODEL)


@dataclass(frozen=True)
class ScoreAwareHand:
    """A hand of one vira re-solved at one score with match-win payoffs: the probabilities
    that it ends with the mão (``p_mao``) or the pé (``p_pe``) scoring each ladder value
    under the re-solved strategies, its ``exploitability`` (match-win probability) and the
    payoffs it was solved with (the mão's match-win probability after each of those
    outcomes: ``pay_mao``, ``pay_pe``)."""

    p_mao: np.ndarray
    p_pe: np.ndarray
    exploitability: float
    pay_mao: np.ndarray
    pay_pe: np.ndarray


def payoff_drift(then: tuple, now: tuple) -> float:
    """The largest change of any outcome's payoff (match-win probability) between the
    payoffs a strategy was measured with and today's. Every strategy's value moves by at
    most this much, so a best-response gain measured then moves by at most twice it."""
    return float(max(np.max(np.abs(np.asarray(a) - np.asarray(b))) for a, b in zip(then, now)))


class MixedModel:
    """Normal hands of the full game per vira: the score-aware re-solve where
    ``score_aware`` holds one for (vira, score), else the points solution
    (``full_summary``'s outcome distribution); the end games as the points-play
    ``match_equity`` table holds them (they never lead to a normal score, so they are the
    same under any play of the normal hands).

    A hand's value is its outcome distribution priced at today's payoffs, so the backward
    induction holds exactly. Its exploitability (match-win probability, the mean over the
    viras) is the one measured, plus twice the payoffs' drift since the measurement
    (:func:`payoff_drift`): a re-solve's own, or for points play its leak from
    ``points_leak`` ({(vira, score): leak}, measured with the points-play table's payoffs);
    NaN where a vira's points-play leak is unknown. Default rules only (every normal hand
    scores).
    """

    name = MIXED_MODEL
    rules = DEFAULT_RULES

    def __init__(self, full_summary: pd.DataFrame, points_table: pd.DataFrame,
                 score_aware: dict, points_leak: dict | None = None):
        full = full_summary.set_index("vira")
        self.viras = list(full.index)
        if len(self.viras) != 10:
            raise InputError("the mixed model needs the full game solved for all 10 viras")
        self.ladder = [int(c[len("p_mao_"):]) for c in full.columns if c.startswith("p_mao_")]
        self.p_mao = full[[f"p_mao_{v}" for v in self.ladder]].to_numpy(dtype=float)
        self.p_pe = full[[f"p_pe_{v}" for v in self.ladder]].to_numpy(dtype=float)
        self.points_me = equity_array(points_table)
        self.stored = {(a, b): HandResult(p, e, m) for a, b, p, e, m in zip(
            points_table["score_mao"], points_table["score_pe"], points_table["p_mao"],
            points_table["exploitability"], points_table["model"])}
        self.score_aware = score_aware
        self.points_leak = points_leak or {}

    def normal(self, score, payoff) -> HandResult:
        now = (np.array([payoff(MAO, v) for v in self.ladder]),
               np.array([payoff(PE, v) for v in self.ladder]))
        then = (np.array([after_hand(self.points_me, score, MAO, v) for v in self.ladder]),
                np.array([after_hand(self.points_me, score, PE, v) for v in self.ladder]))
        values, expls, aware = [], [], 0
        for i, vira in enumerate(self.viras):
            hand = self.score_aware.get((vira, tuple(score)))
            if hand is not None:
                aware += 1
                values.append(hand.p_mao @ now[0] + hand.p_pe @ now[1])
                expls.append(hand.exploitability
                             + 2 * payoff_drift((hand.pay_mao, hand.pay_pe), now))
            else:
                values.append(self.p_mao[i] @ now[0] + self.p_pe[i] @ now[1])
                leak = self.points_leak.get((vira, tuple(score)), float("nan"))
                expls.append(leak + 2 * payoff_drift(then, now))
        model = FULL_MODEL if aware == 0 else SCORE_AWARE_MODEL if aware == len(self.viras) \
            else MIXED_MODEL
        return HandResult(float(np.mean(values)), float(np.mean(expls)), model)

    def eleven(self, score, payoffs: ElevenPayoffs) -> HandResult:
        return self.stored[tuple(score)]

    def eleven_eleven(self, nobody: float = float("nan")) -> HandResult:
        return self.stored[(ELEVEN, ELEVEN)]
