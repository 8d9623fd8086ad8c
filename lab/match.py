"""Match equity by backward induction over the score.

``ME(a, b)`` is the match-win probability of the *next hand's mão* when the mão
has ``a`` points and the pé ``b`` (both 0..11). Every hand scores at least one
point, so each hand strictly increases ``a + b`` and the score graph has no
cycles: states are solved from ``a + b = 22`` down to ``0``. The mão
alternates, so after a hand the old pé is the new mão::

    P(old mão wins) = 1 - ME(b', a')      (a', b' the points after the hand)

or 1 / 0 when a player reached 12.

What happens inside one hand comes from a :class:`HandModel`:

* normal scores (both below 11): the hand solved with payoffs in match-win
  probability, given as a function ``payoff(winner seat, points)``;
* mão de onze (exactly one player at 11): a solved game whose payoffs are
  match-win probabilities (the 11-holder accepts or runs, then card play at 3);
* 11 x 11: card play worth 3, whoever wins the hand wins the match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd

from .rules import MAO, PE, TARGET
from .solver.games.payoffs import ELEVEN, ElevenPayoffs, after_hand, eleven_payoffs
from .errors import InputError



def equity_array(table: pd.DataFrame) -> np.ndarray:
    """(12, 12) ``p_mao`` of a ``match_equity`` table (the next hand's mão's match-win
    probability), indexed [mão's points, pé's points]; NaN where the table has no row."""
    me = np.full((TARGET, TARGET), np.nan)
    me[table["score_mao"].to_numpy(), table["score_pe"].to_numpy()] = table["p_mao"].to_numpy()
    return me


@dataclass(frozen=True)
class HandResult:
    """A solved hand at one score: the mão's match-win probability and its exploitability
    (match-win probability), with the name of the model that produced it."""

    p_mao: float
    exploitability: float
    model: str


class HandModel(Protocol):
    """What the match needs to know about one hand."""

    name: str

    def normal(self, score: tuple[int, int], payoff) -> HandResult:
        """Solve a hand at ``score`` (both below 11) where ``payoff(winner, points)`` is the
        mão's match-win probability after that outcome."""

    def eleven(self, score: tuple[int, int], payoffs: ElevenPayoffs) -> HandResult:
        """Solve the mão de onze at ``score`` with these match payoffs."""

    def eleven_eleven(self) -> HandResult:
        """Solve the 11 x 11 hand: the mão's probability of winning it (= the match)."""


def scores_backward():
    """Every score (a, b) with a, b in 0..11, in an order where each state comes after
    every state a hand can lead to."""
    for total in range(2 * ELEVEN, -1, -1):
        for a in range(min(ELEVEN, total), max(0, total - ELEVEN) - 1, -1):
            yield a, total - a


def match_equity(model: HandModel, progress=None) -> pd.DataFrame:
    """The match-equity table: one row per score (score_mao, score_pe) with the next
    hand's mão's match-win probability ``p_mao``, the hand ``model`` that produced it and
    its ``exploitability`` (match-win probability)."""
    me = np.full((TARGET, TARGET), np.nan)
    rows = []
    for score in scores_backward():
        a, b = score
        if a == b == ELEVEN:
            res = model.eleven_eleven()
        elif ELEVEN in score:
            res = model.eleven(score, eleven_payoffs(me, score))
        else:
            res = model.normal(score, lambda winner, points, s=score: after_hand(me, s, winner, points))
        me[a, b] = res.p_mao
        rows.append({"score_mao": a, "score_pe": b, "p_mao": res.p_mao, "p_pe": 1 - res.p_mao,
                     "model": res.model, "exploitability": res.exploitability})
        if progress is not None:
            progress.update(1)
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
ELEVEN_MODEL = "mao-de-onze-exact"
"""The mão de onze solved exactly (accept/run, then card play at 3) with match payoffs."""
ELEVEN_ELEVEN_MODEL = "eleven-eleven-exact"
"""11 x 11 solved exactly: card play worth 3, whoever wins the hand wins the match."""

MODEL_LABELS = {
    CARDPLAY_MODEL: "card play, every hand worth 1",
    FULL_MODEL: "full game with truco, played for points",
    ELEVEN_MODEL: "mão de onze, solved for the match",
    ELEVEN_ELEVEN_MODEL: "11 x 11: the card play decides the match",
}
"""Each model in a few words, for pages that players read."""

MODEL_DESCRIPTIONS = {
    CARDPLAY_MODEL: "card-play model: no truco, every hand worth 1 point, exact card-play "
                    "equilibrium",
    FULL_MODEL: "full game with the truco ladder, both seats playing its points "
                "equilibrium (outcome distribution per vira); the leak in match-win "
                "probability is measured by `lab solve score`",
    ELEVEN_MODEL: "mão de onze solved exactly with match-win payoffs (accept or run, then "
                  "card play worth 3)",
    ELEVEN_ELEVEN_MODEL: "11 x 11 solved exactly (card play worth 3; the hand's winner wins "
                         "the match)",
}


def _solve_eleven_task(task):
    from .solver.games.eleven import solve_eleven

    vira, holder, pay, target = task
    return solve_eleven(vira, holder, pay.mao_wins, pay.pe_wins, pay.holder_runs,
                        target_exploitability=target)


class CardplayModel:
    """Hands of the match under the card-play model, with the exact end games.

    ``summary`` is the ``cardplay_summary`` table: per vira the mão's card-play win
    probability ``value_mao`` and its ``exploitability`` (win probability). Each vira
    rank comes up with probability 1/10. Mão de onze solves run in ``pool`` (an
    executor with ``map``) when given; every solution is kept in ``eleven_solutions``
    keyed by score.
    """

    name = CARDPLAY_MODEL

    def __init__(self, summary: pd.DataFrame, pool=None, eleven_target: float = 1e-5):
        if len(summary) != 10 or summary["vira"].nunique() != 10:
            raise InputError("the card-play model needs the summary of all 10 viras")
        self.viras = list(summary["vira"])
        self.value = summary["value_mao"].to_numpy(dtype=float)
        self.exploitability = summary["exploitability"].to_numpy(dtype=float)
        self.pool = pool
        self.eleven_target = eleven_target
        self.eleven_solutions: dict = {}

    def normal(self, score, payoff) -> HandResult:
        win, lose = payoff(MAO, 1), payoff(PE, 1)
        p = float(np.mean(self.value * win + (1 - self.value) * lose))
        # match payoffs are affine in the hand's winner, so the card-play equilibrium stays
        # optimal and every best-response gain scales by the swing win - lose
        expl = float(np.mean(self.exploitability)) * abs(win - lose)
        return HandResult(p, expl, CARDPLAY_MODEL)

    def eleven(self, score, payoffs: ElevenPayoffs) -> HandResult:
        tasks = [(v, payoffs.holder, payoffs, self.eleven_target) for v in self.viras]
        mapper = map if self.pool is None else self.pool.map
        solutions = list(mapper(_solve_eleven_task, tasks))
        self.eleven_solutions[tuple(score)] = solutions
        return HandResult(float(np.mean([s.value_mao for s in solutions])),
                          float(np.mean([s.exploitability for s in solutions])), ELEVEN_MODEL)

    def eleven_eleven(self) -> HandResult:
        return HandResult(float(np.mean(self.value)), float(np.mean(self.exploitability)),
                          ELEVEN_ELEVEN_MODEL)


class FullGameModel(CardplayModel):
    """Normal hands from the full game's points solution; the end games as in
    :class:`CardplayModel` (they have no truco).

    ``full_summary`` holds, per vira, the probabilities ``p_mao_<v>`` / ``p_pe_<v>`` that a
    hand ends with that seat scoring ``v`` points (``v`` on the ladder 1, 3, 6, 9, 12).
    """

    name = FULL_MODEL

    def __init__(self, summary: pd.DataFrame, full_summary: pd.DataFrame, pool=None,
                 eleven_target: float = 1e-5):
        super().__init__(summary, pool, eleven_target)
        if sorted(full_summary["vira"]) != sorted(self.viras):
            raise InputError("the full-game model needs the full game solved for all 10 viras")
        full = full_summary.set_index("vira").loc[self.viras]
        self.ladder = [int(c[len("p_mao_"):]) for c in full.columns if c.startswith("p_mao_")]
        self.p_mao = full[[f"p_mao_{v}" for v in self.ladder]].to_numpy(dtype=float)
        self.p_pe = full[[f"p_pe_{v}" for v in self.ladder]].to_numpy(dtype=float)

    def normal(self, score, payoff) -> HandResult:
        mao = np.array([payoff(MAO, v) for v in self.ladder])
        pe = np.array([payoff(PE, v) for v in self.ladder])
        p = float(np.mean(self.p_mao @ mao + self.p_pe @ pe))
        return HandResult(p, float("nan"), FULL_MODEL)
