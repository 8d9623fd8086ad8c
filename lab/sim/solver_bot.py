"""The solver bot: a :class:`~lab.sim.bots.SolverBot` that plays the solved equilibria.

What it plays, hand by hand (card play only; the truco ladder is not solved yet):

- **Normal hands and 11 x 11**: the exact card-play equilibrium of the hand's vira
  (:func:`lab.solver.cardplay.solve_cardplay`, win-probability payoffs). Under the match's
  card-play model every hand is worth a fixed stake and match payoffs are affine in the
  hand's winner, so this is also the equilibrium of the hand with match-win payoffs.
  It **never raises and never surrenders**.
- **Mão de onze**: the game of :func:`lab.solver.eleven.solve_eleven` for this vira and
  score, with the match payoffs of the ``match_equity`` table
  (:func:`lab.match.eleven_payoffs` on its ``p_mao`` values). As the 11-holder it accepts
  with the solved probability of its hand class (``ElevenSolution.accept``); then both
  seats play that game's card-play strategy (public histories after ``"accept"``), so the
  non-holder plays against the range that accepted.
- **Answer to a raise: a HEURISTIC, NOT SOLVED.** Only a person or another bot raises.
  The bot accepts when the card-play equity of its hand class as dealt, for its seat
  (win probability under the card-play equilibrium, ``CardplaySolution.equity``), is at
  least 0.5, and runs otherwise; it never re-raises. After an accepted raise it goes on
  playing the card-play equilibrium as if nothing had been bet. Once it has covered a
  card its view no longer shows the dealt class; the covered card then counts as the
  weakest level (0). Nothing about these answers is optimal; the figures the lab reports
  never rest on them.

Round 3 needs no lookup: one card is left and the solver's game plays it face up
(covering the last card is weakly dominated and pruned).

Solves are lazy and cached per process: one card-play solve per vira, one mão de onze
solve per (vira, score). Only the average strategy and the equities are kept (about 3 MB
per solve; the solver's work arrays, about 40 MB, are dropped), and every process (a
dask worker, say) solves for itself. A solve takes a few seconds with one thread.

Units: strategies are probabilities; ``equity`` is win probability; mão de onze
payoffs are match-win probabilities.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np

from ..cards import level
from ..classes import hand_classes, vira_rank_of
from ..rules import ACCEPT, COVER, ELEVEN, PLAY, RUN, Action
from .bots import SolverBot
from .view import View

ACCEPT_A, RUN_A = Action(ACCEPT), Action(RUN)

RAISE_ACCEPT_EQUITY = 0.5
"""The heuristic (not solved) answer to a raise: accept when the card-play equity of the
hand class as dealt, for the bot's seat, is at least this win probability; else run."""

CARDPLAY_TARGET = 1e-4
"""Default target exploitability of the card-play solves (win probability), as the tables."""
ELEVEN_TARGET = 1e-5
"""Default target exploitability of the mão de onze solves (match-win probability), as the
``match_equity`` table."""

DESCRIPTION = ("solver bot plays the exact card-play equilibrium of each vira and the solved "
               "mão de onze; it never raises; its answer to a raise is a heuristic, NOT "
               "solved (accept when its hand's card-play equity is at least 0.5, else run)")
"""The bot in one line (``lab play`` prints it after "The ")."""


# ---------------------------------------------------------------- a solved strategy, fast

MEMO_SIZE = 200_000
"""Lookups a policy remembers (then it starts afresh): bounds memory in long simulations."""


class CardplayPolicy:
    """The average strategy of a solved card-play game, with fast, memoised lookups.

    :meth:`strategy` answers what ``CardplaySolution.strategy_at`` answers (tests check it
    move by move) without rebuilding the game or renormalising the whole average strategy
    on each call. ``prefix`` is the public history before the card play: ``("accept",)``
    for the card play of a mão de onze solve.

    ``equity[seat, class]`` and ``value`` are copied from the solution (win probability, or
    match-win probability for a mão de onze solve); ``exploitability`` is the solve's.
    """

    def __init__(self, solution, prefix: tuple = ()):
        from ..solver.cardplay_game import CardplayGame

        solver = solution.solver
        self.vira = solution.vira
        self.equity = np.asarray(solution.equity, dtype=np.float64)
        self.value = float(solution.value)
        self.exploitability = float(solution.exploitability)
        self.iterations = int(solution.iterations)
        self.tree = solver.tree
        self.average = solver.average_strategy()
        self.prefix = tuple(prefix)
        game = CardplayGame(solution.vira)
        self.state_held = game.state_held
        self.state_id = {(int(c), h): s for s, (c, h)
                         in enumerate(zip(game.state_class, game.state_held))}
        self._nodes = {(): self.tree.node_of(self.prefix)}
        self._memo: dict = {}

    def node(self, history: tuple) -> int:
        """Tree node after the card-play ``history`` (levels 0..12 or COVER = 13)."""
        node = self._nodes.get(history)
        if node is None:
            parent = self.node(history[:-1])
            node = self.tree.child_by_action(parent, history[-1])
            if node is None:
                raise ValueError(f"no public action {history[-1]!r} after {history[:-1]!r}")
            self._nodes[history] = node
        return node

    def strategy(self, history: tuple, seat: int, class_index: int, held: tuple) -> dict:
        """``{("play", level): p, ("cover", level): p}`` of ``seat`` holding the levels
        ``held`` (strongest first) of class ``class_index`` after the card-play ``history``
        (rounds 1 and 2; round 3 is folded, see the module docstring)."""
        key = (history, seat, class_index, held)
        out = self._memo.get(key)
        if out is not None:
            return out
        from ..solver.cardplay_game import COVER as COVERED

        t = self.tree
        node = self.node(history)
        if t.node_actor[node] != seat:
            raise ValueError(f"seat {seat} is not to act after {history}")
        private = self.state_id.get((int(class_index), held), -1)
        pairs = t.pairs_of(node, seat)
        found = np.nonzero(t.pair_private[pairs.start:pairs.stop] == private)[0]
        if not len(found):
            raise ValueError(f"class {class_index} holding {held} cannot be here: {history}")
        pair = pairs.start + int(found[0])
        out = {}
        for child in t.children(node):  # the moves of this pair: its child pairs
            cp = t.pairs_of(child, seat)
            action = t.actions[t.node_action[child]]
            for k in np.nonzero(t.pair_parent[cp.start:cp.stop] == pair)[0]:
                i = cp.start + int(k)
                edge = int(t.pair_edge[i])
                p = 1.0 if edge < 0 else float(self.average[edge])
                if action == COVERED:
                    rest = list(held)
                    for lv in self.state_held[int(t.pair_private[i])]:
                        rest.remove(lv)
                    move = ("cover", rest[0])
                else:
                    move = ("play", int(action))
                out[move] = out.get(move, 0.0) + p
        if len(self._memo) >= MEMO_SIZE:
            self._memo.clear()
        self._memo[key] = out
        return out


# ---------------------------------------------------------------- solves, cached per process


_CARDPLAY: dict = {}
_ELEVEN: dict = {}
"""Solved policies of this process, keyed by (vira rank, [score,] target, max_iterations)."""

CHECK_EVERY = 8
"""The bot's card-play solves check their exploitability every 8 iterations from the 8th,
so a loose target stops early (1e-3 is reached in about 16 iterations)."""


def cardplay_policy(vira, target: float = CARDPLAY_TARGET, max_iterations: int = 2000,
                    progress: bool = False) -> CardplayPolicy:
    """The card-play equilibrium of ``vira`` (solved once per process and settings)."""
    from ..solver.cardplay import solve_cardplay

    key = (vira_rank_of(vira), float(target), int(max_iterations))
    if key not in _CARDPLAY:
        _CARDPLAY[key] = CardplayPolicy(solve_cardplay(
            key[0], target_exploitability=target, max_iterations=max_iterations,
            progress=progress, first_check=CHECK_EVERY, check_every=CHECK_EVERY))
    return _CARDPLAY[key]


@lru_cache(maxsize=1)
def match_equity_array() -> np.ndarray:
    """(12, 12) ``p_mao`` of the ``match_equity`` table, indexed [mão's points, pé's points]."""
    from ..tables import load_table

    from ..match import equity_array

    return equity_array(load_table("match_equity"))


@dataclass(frozen=True)
class ElevenPolicy:
    """A solved mão de onze of one vira and score: ``accept[class]`` (the holder's
    probability of accepting), the card-play ``policy`` after ``"accept"``, and the
    mão's match-win probability ``value_mao``."""

    holder: int
    accept: np.ndarray
    policy: CardplayPolicy
    value_mao: float
    exploitability: float


def eleven_policy(vira, score: tuple, target: float = ELEVEN_TARGET,
                  max_iterations: int = 2000, progress: bool = False) -> ElevenPolicy:
    """The mão de onze of ``vira`` at ``score`` (mão's, pé's points; exactly one is 11),
    with the match payoffs of the ``match_equity`` table (solved once per process)."""
    from tqdm import tqdm

    from ..match import eleven_payoffs
    from ..solver.eleven import solve_eleven

    rank = vira_rank_of(vira)
    score = (int(score[0]), int(score[1]))
    key = (rank, score, float(target), int(max_iterations))
    if key in _ELEVEN:
        return _ELEVEN[key]
    pay = eleven_payoffs(match_equity_array(), score)
    with tqdm(total=1, desc=f"mão de onze {score[0]},{score[1]} vira {hand_classes(rank).vira}",
              file=sys.stderr, disable=not progress, leave=False) as bar:
        sol = solve_eleven(rank, pay.holder, pay.mao_wins, pay.pe_wins, pay.holder_runs,
                           target_exploitability=target, max_iterations=max_iterations,
                           keep_solution=True)
        bar.update()
    _ELEVEN[key] = ElevenPolicy(pay.holder, sol.accept, CardplayPolicy(sol.cardplay, ("accept",)),
                                sol.value_mao, sol.exploitability)
    return _ELEVEN[key]


# ---------------------------------------------------------------- from a view to the solver


def cardplay_history(view: View) -> tuple:
    """The card-play public history of a view: each card as its level, a covered card as
    COVER (13); raises and their answers (and the mão de onze accept) are left out."""
    from ..solver.cardplay_game import COVER as COVERED

    out = []
    for _, action in view.history:
        if action.kind == PLAY:
            out.append(level(action.card, view.vira))
        elif action.kind == COVER:
            out.append(COVERED)
    return tuple(out)


def dealt_levels(view: View) -> tuple[tuple, bool]:
    """(levels of the seat's cards as dealt, strongest first; whether that is exact).

    The cards in hand and the seat's own open cards; a card it covered is not in its view
    and counts as level 0 (then the second item is False)."""
    levels = [view.level(c) for c in view.hand]
    exact = True
    for seat, action in view.history:
        if seat == view.seat and action.kind == PLAY:
            levels.append(view.level(action.card))
        elif seat == view.seat and action.kind == COVER:
            levels.append(0)
            exact = False
    return tuple(sorted(levels, reverse=True)), exact


def class_of(view: View) -> int:
    """Hand class of the seat's dealt cards (exact unless it has covered a card)."""
    return hand_classes(view.vira.rank).index_of(dealt_levels(view)[0])


class SolverStrategy:
    """``strategy(view) -> {Action: probability}`` for :class:`~lab.sim.bots.SolverBot`
    (see the module docstring for what it plays).

    ``cardplay_target`` / ``eleven_target``: target exploitability of the solves (win
    probability / match-win probability); tests use looser targets to keep solves cheap.
    ``progress``: solver progress bars on stderr (None: only when stderr is a terminal).
    The object holds only settings (it pickles small); solutions live in the process.
    """

    def __init__(self, cardplay_target: float = CARDPLAY_TARGET,
                 eleven_target: float = ELEVEN_TARGET, max_iterations: int = 2000,
                 progress: Optional[bool] = None):
        self.cardplay_target = float(cardplay_target)
        self.eleven_target = float(eleven_target)
        self.max_iterations = int(max_iterations)
        self.progress = progress

    def _progress(self) -> bool:
        if self.progress is not None:
            return bool(self.progress)
        return sys.stderr.isatty()

    def cardplay(self, view: View) -> CardplayPolicy:
        return cardplay_policy(view.vira.rank, self.cardplay_target, self.max_iterations,
                               self._progress())

    def eleven(self, view: View) -> ElevenPolicy:
        return eleven_policy(view.vira.rank, tuple(view.score), self.eleven_target,
                             self.max_iterations, self._progress())

    def __call__(self, view: View) -> dict:
        if view.deciding_eleven:
            p = float(np.clip(self.eleven(view).accept[class_of(view)], 0.0, 1.0))
            return {ACCEPT_A: p, RUN_A: 1.0 - p}
        if view.pending is not None:
            return {answer_raise(self.cardplay(view), view): 1.0}
        if len(view.hand) == 1:  # round 3: the last card, face up
            return {Action(PLAY, view.hand[0]): 1.0}
        levels, exact = dealt_levels(view)
        if not exact:
            raise ValueError("a covered card leaves one card; rounds 1 and 2 cannot follow")
        policy = self.eleven(view).policy if view.kind == ELEVEN else self.cardplay(view)
        held = tuple(sorted((view.level(c) for c in view.hand), reverse=True))
        moves = policy.strategy(cardplay_history(view), view.seat,
                                hand_classes(view.vira.rank).index_of(levels), held)
        return to_actions(moves, view)

    def __repr__(self) -> str:
        return (f"SolverStrategy(cardplay_target={self.cardplay_target:g}, "
                f"eleven_target={self.eleven_target:g})")


def answer_raise(policy: CardplayPolicy, view: View) -> Action:
    """HEURISTIC, NOT SOLVED: accept a pending raise when the card-play equity of the hand
    class as dealt (a covered card counted as level 0) for this seat is at least
    RAISE_ACCEPT_EQUITY; else run. Never re-raises."""
    equity = policy.equity[view.seat, class_of(view)]
    return ACCEPT_A if equity >= RAISE_ACCEPT_EQUITY else RUN_A


def to_actions(moves: dict, view: View) -> dict:
    """Solver moves ``("play"|"cover", level)`` as rules actions on cards in hand (of two
    cards of one level, the first in hand stands for both: they are equivalent)."""
    card_of = {}
    for card in view.hand:
        card_of.setdefault(view.level(card), card)
    out: dict = {}
    for (kind, lv), p in moves.items():
        if p <= 0.0:
            continue
        action = Action(PLAY if kind == "play" else COVER, card_of[lv])
        out[action] = out.get(action, 0.0) + p
    total = sum(out.values())
    return {a: p / total for a, p in out.items()}


def solver_bot(cardplay_target: float = CARDPLAY_TARGET, eleven_target: float = ELEVEN_TARGET,
               max_iterations: int = 2000, progress: Optional[bool] = None) -> SolverBot:
    """A :class:`SolverBot` playing :class:`SolverStrategy` (no fallback is ever needed:
    the strategy answers every view)."""
    return SolverBot(SolverStrategy(cardplay_target, eleven_target, max_iterations, progress))
