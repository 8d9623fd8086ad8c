"""Solved card-play strategies as policies: the card play of a vira (win probability) and
the mão de onze of a vira and score (match-win probability), each solved once per machine.

:class:`CardplayPolicy` reads a solve's average strategy with fast, memoised lookups (the
strategy of one private state after a public card-play history). :func:`cardplay_policy`
and :func:`eleven_policy` solve the game the first time it is met (a few seconds with one
thread) and keep it in the disk cache (:mod:`lab.solver.cache`, named by the settings
and payoffs): only the average strategy and the equities (about 3 MB a solve; the tree is
shared, the solver's work arrays dropped), and every process maps the same file. The
solver bot plays them and the advice service values them, so both read one solve.

Units: strategies are probabilities; ``equity`` is win probability for the card play,
match-win probability for a mão de onze; the mão de onze payoffs are match-win
probabilities.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..classes import hand_classes, vira_rank_of
from ..errors import InputError
from ..rules import RULES_VERSION
from ..solver.games.cardplay_game import COVER as COVERED
from .base import Policy

CARDPLAY_TARGET = 1e-4
"""Default target exploitability of the card-play solves (win probability), as the tables."""
ELEVEN_TARGET = 1e-5
"""Default target exploitability of the mão de onze solves (match-win probability), as the
``match_equity`` table."""

# ---------------------------------------------------------------- a solved strategy, fast

MEMO_SIZE = 200_000
"""Lookups a policy remembers (then it starts afresh): bounds memory in long simulations."""


class CardplayPolicy(Policy):
    """The average strategy of a solved card-play game, with fast, memoised lookups.

    :meth:`strategy` answers what ``CardplaySolution.strategy_at`` answers (tests check it
    move by move) without rebuilding the game or renormalising the whole average strategy
    on each call. ``prefix`` is the public history before the card play: ``("accept",)``
    for the card play of a mão de onze solve.

    ``equity[seat, class]`` and ``value`` are copied from the solution (win probability, or
    match-win probability for a mão de onze solve); ``exploitability`` is the solve's.
    """

    game = "cardplay"

    def __init__(self, solution, prefix: tuple = (), tree=None):
        from ..solver.games.cardplay_game import CardplayGame

        self.rules = RULES_VERSION
        self.unit = "match-win probability" if prefix else "win probability"
        self.vira = solution.vira
        self.equity = np.asarray(solution.equity, dtype=np.float64)
        self.value = float(solution.value)
        self.exploitability = float(solution.exploitability)
        self.iterations = int(solution.iterations)
        if isinstance(solution, SolvedCardplay):
            self.tree, self.average = tree, solution.average
        else:
            self.tree, self.average = solution.solver.tree, solution.solver.average_strategy()
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
"""Solved policies of this process, keyed by (vira rank, [score,] target, max_iterations
[, the match equity's bytes])."""

@dataclass(frozen=True)
class SolvedCardplay:
    """What the bot keeps of a card-play solve (the tree is shared, not kept): its
    ``average`` strategy per edge and the solution's figures."""

    vira: object
    average: np.ndarray
    equity: np.ndarray
    value: float
    exploitability: float
    iterations: int

    @classmethod
    def of(cls, solution) -> "SolvedCardplay":
        return cls(solution.vira, solution.solver.average_strategy().copy(),
                   np.asarray(solution.equity, dtype=np.float64), float(solution.value),
                   float(solution.exploitability), int(solution.iterations))


SOLVES_KEPT = 256
"""Card-play solves kept in the disk cache (about 3 MB each), the most recently used: every
mão de onze score (22 a vira) and the card play of all ten viras fit."""


def kept_solve(name: str, solve):
    """``solve()`` once per machine: kept in the disk cache under ``name`` (its settings)."""
    from ..solver.cache import disk_cached, short_name
    from ..solver.games.cardplay import TREE_SOURCES

    return disk_cached(short_name("bot_solve", name), solve,
                       TREE_SOURCES + ("solver/cfr.py", "solver/games/eleven.py",
                                       "policy/cardplay.py"), keep=SOLVES_KEPT)


def cardplay_policy(vira, target: float = CARDPLAY_TARGET, max_iterations: int = 2000,
                    progress: bool = False) -> CardplayPolicy:
    """The card-play equilibrium of ``vira`` (solved once per machine and settings, with
    the checks of :func:`lab.solver.games.cardplay.solve_cardplay`'s defaults: the solve
    of the ``cardplay`` table and of the adviser's 11 x 11 model)."""
    from ..solver.games.cardplay import cardplay_tree, solve_cardplay

    key = (vira_rank_of(vira), float(target), int(max_iterations))
    if key not in _CARDPLAY:
        solved = kept_solve(f"cardplay-{key!r}", lambda: SolvedCardplay.of(solve_cardplay(
            key[0], target_exploitability=target, max_iterations=max_iterations,
            progress=progress)))
        _CARDPLAY[key] = CardplayPolicy(solved, tree=cardplay_tree())
    return _CARDPLAY[key]


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
                  max_iterations: int = 2000, progress: bool = False,
                  equity: Optional[np.ndarray] = None) -> ElevenPolicy:
    """The mão de onze of ``vira`` at ``score`` (mão's, pé's points; exactly one is 11),
    with the match payoffs of ``equity`` ((12, 12) ``p_mao``: the next hand's mão's
    match-win probability at every score); solved once per process."""
    from tqdm import tqdm

    from ..solver.games.cardplay import cardplay_tree
    from ..solver.games.payoffs import eleven_payoffs
    from ..solver.games.eleven import solve_eleven

    rank = vira_rank_of(vira)
    score = (int(score[0]), int(score[1]))
    if equity is None:
        raise InputError("the mão de onze is solved with match payoffs: give the match "
                         "equity ((12, 12) p_mao, lab.ranking.match_equity())")
    me = np.asarray(equity, dtype=np.float64)
    key = (rank, score, float(target), int(max_iterations), me.tobytes())
    if key in _ELEVEN:
        return _ELEVEN[key]
    pay = eleven_payoffs(me, score)

    def solve():
        with tqdm(total=1, desc=f"mão de onze {score[0]},{score[1]} vira "
                  f"{hand_classes(rank).vira}", file=sys.stderr, disable=not progress,
                  leave=False) as bar:
            sol = solve_eleven(rank, pay.holder, pay.mao_wins, pay.pe_wins, pay.holder_runs,
                               target_exploitability=target, max_iterations=max_iterations,
                               keep_solution=True)
            bar.update()
        return (np.asarray(sol.accept), SolvedCardplay.of(sol.cardplay), float(sol.value_mao),
                float(sol.exploitability))

    accept, solved, value_mao, exploitability = kept_solve(
        f"eleven-{rank}-{score}-{target!r}-{max_iterations}-{pay!r}", solve)
    policy = CardplayPolicy(solved, ("accept",), tree=cardplay_tree(pay.holder))
    _ELEVEN[key] = ElevenPolicy(pay.holder, accept, policy, value_mao, exploitability)
    return _ELEVEN[key]
