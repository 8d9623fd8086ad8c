"""Hand equity: the card-play game of a vira solved by Discounted CFR.

:func:`solve_cardplay` solves the game of :mod:`lab.solver.games.cardplay_game` for
one vira and returns a :class:`CardplaySolution`: the win probability of every
hand class for each seat against the equilibrium (with exact card removal),
the game value, the exploitability in win probability, and the equilibrium
strategy for the simulator's solver bot.

The public tree does not depend on the vira (pruning uses 4 copies per plain
level), so it is built once per process (:func:`cardplay_tree`); each vira only
brings its exact deal weights.

Payoffs. ``payoff=(if the mão wins, if the pé wins)`` gives the mão's utility;
the pé gets ``total`` minus it. The default ``(1, 0)``, total 1, is win
probability; ``(3, -3)``, total 0, is points at a stake of 3; match-win
probabilities fit the same way. ``decision=(seat, run_payoff)`` adds the mão
de onze choice before the cards: that seat accepts (the hand is played) or
runs (the mão's utility is ``run_payoff``).

Three tied rounds. ``three_ties`` (``MAO`` by default, ``PE``, or ``NOBODY``: see
:meth:`lab.rules.RuleSet.three_ties_winner`) says who takes such a hand. With ``NOBODY``
the payoffs take a third entry, the mão's utility when nobody scores; without it, the
midpoint of the first two (the hand scores nothing: half a win in win probability).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ...cards import N_LEVELS, RANKS, level_copies
from ...classes import hand_classes, vira_rank_of
from ...rules import MAO, NOBODY
from .cardplay_game import COVER, CardplayGame, decided
from ..cache import disk_cached
from ..cfr import CFRSolver, SolverStateError
from ..game import RootDecision
from ..tree import PublicTree, build_tree

__all__ = ["solve_cardplay", "CardplaySolution", "cardplay_tree", "cardplay_solver",
           "cardplay_work", "public_paths", "SolverStateError", "COVER"]


TREE_SOURCES = ("cards.py", "classes.py", "rules.py", "solver/game.py", "solver/tree.py",
                "solver/games/cardplay_game.py", "solver/games/cardplay.py")
"""The code the card-play tree depends on (its hash names the cached file)."""


@lru_cache(maxsize=4)
def cardplay_tree(decision_seat=None, fold_round3: bool = True,
                  cover_in_round3: bool = False, three_ties=MAO) -> PublicTree:
    """The public tree of the card-play game (shared by all viras; kept in memory and on
    disk: 2-3 s to build, a tenth of that to load)."""
    def build():
        return build_tree(_game("4", decision_seat, fold_round3, cover_in_round3, three_ties))

    name = f"cardplay_tree-{decision_seat}-{int(fold_round3)}-{int(cover_in_round3)}-{three_ties}"
    return disk_cached(name, build, TREE_SOURCES)


@lru_cache(maxsize=64)
def _game(vira, decision_seat=None, fold_round3=True, cover_in_round3=False, three_ties=MAO):
    game = CardplayGame(vira, fold_round3=fold_round3, cover_in_round3=cover_in_round3,
                        three_ties=three_ties)
    return game if decision_seat is None else RootDecision(game, decision_seat)


def cardplay_solver(vira, payoff=(1.0, 0.0), total: float = 1.0, decision=None,
                    fold_round3: bool = True, cover_in_round3: bool = False,
                    threads: int | None = 1, three_ties=MAO, schedule="dcfr") -> CFRSolver:
    """A built (not yet allocated) :class:`CFRSolver` for the card-play game of ``vira``
    (``schedule``: one of :data:`lab.solver.cfr.SCHEDULES`)."""
    seat = None if decision is None else int(decision[0])
    tree = cardplay_tree(seat, fold_round3, cover_in_round3, three_ties)
    game = _game(vira, seat, fold_round3, cover_in_round3, three_ties)
    pay = [float(payoff[0]), float(payoff[1])]
    if three_ties == NOBODY:
        pay.append(float(payoff[2]) if len(payoff) > 2 else 0.5 * (pay[0] + pay[1]))
    elif len(payoff) > 2:
        raise ValueError("a payoff for a hand that scores nothing, but three tied rounds "
                         "go to a seat")
    if decision is not None:
        pay.append(float(decision[1]))
    return CFRSolver(tree, game.deal_weights(), pay, total=total, threads=threads,
                     schedule=schedule)


def cardplay_work(decision_seat=None) -> dict:
    """Node, pair, information-set and edge counts of the card-play tree, and the work
    of one iteration (``bytes_per_iteration``, ``terminal_multiply_adds``); see
    :meth:`CFRSolver.work`. The same for every vira."""
    return cardplay_solver("4", decision=None if decision_seat is None else (decision_seat, 0.0)
                           ).work()


@dataclass
class CardplaySolution:
    """The solved card-play game of one vira.

    Units: with the default payoffs every number is a win probability.
    ``equity[seat, class]`` is the holder's expected payoff with that class
    (seat 0 = mão, 1 = pé), averaged over the opponent's classes with the exact
    deal weights; ``value`` the mão's expected payoff; ``exploitability`` the
    mean of both seats' best-response gains against the solved strategy.
    """

    vira: str
    equity: np.ndarray
    value: float
    exploitability: float
    iterations: int
    seconds: float
    sizes: dict
    solver: CFRSolver = field(repr=False)
    labels: tuple = field(repr=False, default=())
    decision: tuple | None = None
    three_ties: object = MAO
    """Who takes a hand of three tied rounds: ``MAO``, ``PE`` or ``NOBODY``."""

    def strategy_at(self, history, seat: int, class_index: int, held=None) -> dict:
        """The equilibrium move probabilities of ``seat`` holding ``class_index`` after
        the public ``history``.

        ``history`` lists the public card plays so far: an open card's level (0..12)
        or ``COVER`` (also accepted: ``"cover"``). ``held`` are the levels the player
        still holds; it is needed only after he covered a card of another level than
        the one he kept. Returns ``{("play", level): p, ("cover", level): p}`` where a
        cover's level is the card put face down. With a root decision (mão de onze)
        the history begins with the decision: ``strategy_at([], holder, c)`` gives
        ``{"accept": p, "run": 1 - p}``, and card play follows ``["accept", ...]``.
        """
        game = _game(self.vira, three_ties=self.three_ties)
        history = list(history)
        prefix = ()
        if self.decision is not None:
            holder = int(self.decision[0])
            if not history:
                if seat != holder:
                    raise ValueError(f"the {'mão' if holder == MAO else 'pé'} decides first")
                root = int(game.root_state[class_index])
                return {a: p for a, _, p in self.solver.strategy_of(0, holder, root)}
            if history[0] != RootDecision.ACCEPT:
                raise ValueError("after a root decision the history starts with 'accept'")
            prefix, history = (RootDecision.ACCEPT,), history[1:]
        hist = tuple(COVER if str(a).lower() in ("cover", "covered") else int(a) for a in history)
        public = game.root()
        for a in hist:
            if game.actor(public) is None:
                break
            public = game.child(public, a)
        held = self._held(hist, seat, class_index, held)
        if game.actor(public) is None and decided(public[0], self.three_ties) is None:
            # round 3 is folded into a showdown: each player shows his last card
            shown = len(hist) - _round3_start(hist, game)
            to_act = public[1] if shown == 0 else 1 - public[1]
            if shown >= 2 or seat != to_act or len(held) != 1:
                raise ValueError(f"the {'mão' if seat == MAO else 'pé'} is not to act after {hist}")
            return {("play", held[0]): 1.0}
        if game.actor(public) != seat:
            raise ValueError(f"the {'mão' if seat == MAO else 'pé'} is not to act after {hist}")
        node = self.solver.tree.node_of(prefix + hist)
        private = game_state_id(game, class_index, held)
        try:
            moves = self.solver.strategy_of(node, seat, private)
        except KeyError:
            raise ValueError(f"class {class_index} with cards {held} cannot be held here") from None
        out: dict = {}
        for action, nxt, prob in moves:
            if action == COVER:
                kept = list(game.state_held[nxt])
                rest = list(held)
                for lv in kept:
                    rest.remove(lv)
                key = ("cover", rest[0])
            else:
                key = ("play", int(action))
            out[key] = out.get(key, 0.0) + prob
        return out

    def _held(self, hist, seat, class_index, held):
        levels = [int(x) for x in hand_classes(RANKS.index(self.vira)).levels[class_index]]
        game = _game(self.vira, three_ties=self.three_ties)
        public = game.root()
        covered = False
        for a in hist:
            if game.actor(public) is None:
                break
            if game.actor(public) == seat:
                if a == COVER:
                    covered = True
                else:
                    levels.remove(a)
            public = game.child(public, a)
        if held is not None:
            return tuple(sorted((int(x) for x in held), reverse=True))
        if covered:
            if len(set(levels)) > 1:
                raise ValueError("after a cover, give held= (the levels still held)")
            levels = levels[:-1]
        return tuple(sorted(levels, reverse=True))


def _round3_start(hist, game) -> int:
    public = game.root()
    for k, a in enumerate(hist):
        if len(public[0]) == 2:
            return k
        public = game.child(public, a)
    return len(hist)


def game_state_id(game: CardplayGame, class_index: int, held) -> int:
    index = state_index(game.class_levels)
    return index[(int(class_index), tuple(held))]


@lru_cache(maxsize=16)
def state_index(class_levels) -> dict:
    """``{(hand class, levels held): private state}`` of the card game of these classes
    (one per vira, shared by every policy and model of it)."""
    from .cardplay_game import private_table
    state_class, state_held, _, _ = private_table(class_levels)
    return {(int(c), h): s for s, (c, h) in enumerate(zip(state_class, state_held))}


def solve_cardplay(vira, target_exploitability: float = 1e-4, max_iterations: int = 2000,
                   progress: bool = False, payoff=(1.0, 0.0), total: float = 1.0,
                   decision=None, check_every: int = 8, first_check: int = 24,
                   threads: int | None = 1, three_ties=MAO,
                   schedule="dcfr") -> CardplaySolution:
    """Solve the card-play game of ``vira`` (a rank character, rank index or Card).

    Iterates Discounted CFR until the exploitability (win probability with the
    default payoffs) is at most ``target_exploitability`` or ``max_iterations``,
    checking it after ``first_check`` iterations and every ``check_every`` after.
    ``threads``: numba threads for the kernels (None: all); one is the fastest
    when solves run side by side in processes or the machine is busy. ``schedule``:
    the Discounted CFR variant (:data:`lab.solver.cfr.SCHEDULES`; the stored tables
    are ``dcfr`` solves).
    """
    rank = vira_rank_of(vira)
    start = time.perf_counter()
    solver = cardplay_solver(rank, payoff=payoff, total=total, decision=decision,
                             threads=threads, three_ties=three_ties, schedule=schedule)
    solver.allocate()
    solver.solve(target_exploitability, max_iterations, check_every=check_every,
                 progress=progress, first_check=first_check)
    equity = solver.hand_values()
    return CardplaySolution(
        vira=RANKS[rank],
        equity=equity,
        value=solver.value(),
        exploitability=solver.final_exploitability,
        iterations=solver.iterations,
        seconds=time.perf_counter() - start,
        sizes=solver.tree.sizes(),
        solver=solver,
        labels=hand_classes(rank).labels,
        decision=None if decision is None else (int(decision[0]), float(decision[1])),
        three_ties=three_ties,
    )


def public_paths(vira, per_showdown=None, seed: int = 0):
    """Every public path of the card-play game of ``vira``, with its winner.

    Yields ``(plays, winner)``: ``plays`` is a tuple of ``(seat, action)`` in
    order (action = open level 0..12 or ``COVER``) up to the end of the hand,
    round 3 included (its two shown levels: one path per combination of last
    cards that the deck allows); ``winner`` is ``MAO`` or ``PE``. Paths this
    vira's deck cannot deal (the vira's rank has 3 copies) are left out. With
    ``per_showdown=k`` only k random round-3 combinations of each round-3 node
    are given (seeded by ``seed``).
    """
    rank = vira_rank_of(vira)
    cap = [level_copies(lv, rank) for lv in range(N_LEVELS)]
    game = CardplayGame(rank)
    tree = cardplay_tree()
    strength = tree.pair_strength
    rng = np.random.default_rng(seed)
    for t in tree.terminals:
        t = int(t)
        hist = tree.history(t)
        plays, public = [], game.root()
        shown = [0] * N_LEVELS
        for a in hist:
            plays.append((game.actor(public), int(a)))
            public = game.child(public, a)
            if a < COVER:
                shown[a] += 1
        if any(s > c for s, c in zip(shown, cap)):
            continue
        plays = tuple(plays)
        if decided(public[0]) is not None:
            yield plays, int(tree.node_outcomes[t, 0])
            continue
        leader = public[1]
        lasts = []
        for p in (0, 1):
            r = tree.pairs_of(t, p)
            lasts.append(sorted(set(strength[r.start:r.stop].tolist())))
        combos = [(a, b) for a in lasts[leader] for b in lasts[1 - leader]
                  if shown[a] + 1 + (a == b) <= cap[a] and shown[b] + 1 <= cap[b]]
        if per_showdown is not None and len(combos) > per_showdown:
            combos = [combos[k] for k in rng.choice(len(combos), per_showdown, replace=False)]
        for a, b in combos:
            m, p = (a, b) if leader == MAO else (b, a)
            outcome = tree.node_outcomes[t, 0 if m > p else 1 if m == p else 2]
            yield plays + ((leader, a), (1 - leader, b)), int(outcome)
