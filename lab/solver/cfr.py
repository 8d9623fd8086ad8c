"""Discounted CFR on a public tree, with exact best responses.

A :class:`CFRSolver` goes through three explicit states:

``built``
    it holds a :class:`~lab.solver.tree.PublicTree`, the deal weights and the
    payoffs (player 0's utility of each outcome; player 1 gets ``total`` minus it);
``allocated``
    :meth:`allocate` made the regret, strategy, reach and value arrays;
``solved``
    :meth:`solve` ran Discounted CFR until the exploitability target or the
    iteration cap; only now are the average strategy and values meaningful.

Asking for something out of order raises :class:`SolverStateError` naming the
missing step. Utilities, values and exploitability are in the payoffs' own
unit (win probability, points, match-win probability).

Discounted CFR (Brown & Sandholm 2019) with alternating updates: at iteration
``t`` (from 1) each player in turn has his accumulated positive regrets
multiplied by ``(t-1)^alpha / ((t-1)^alpha + 1)``, his negative ones by
``(t-1)^beta / ((t-1)^beta + 1)`` and his average-strategy sums by
``((t-1)/t)^gamma``, before the new regrets and reach-weighted strategy are added.
The :data:`SCHEDULES` name the weights offered; ``dcfr`` (alpha 1.5, beta 0,
gamma 2) is the default. The ``+`` schedules keep regrets non-negative after each
update (CFR+'s floor: ``max(discounted regret + gain, 0)``); the predictive ones
(``pcfr+``, Farina, Kroer & Sandholm 2021; ``pdcfr+``, Xu et al. 2024) play regret
matching on the regret predicted for the next iteration, the accumulated one
(discounted once more) plus this iteration's gain again.

Strategy sums: by default each player's are added when his own regrets are updated
(weighted by his reach, at the strategy he played in that iteration). With
``sums_in_opponent_walk`` they are added after the *other* player's walk, at the
strategy he holds then: player 1's at the same strategy as before, player 0's at the
one his update of the same iteration gave him. The compact full-game solver adds them
so (its walks then need only the opponent's reach); this option runs its iterates.
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from dataclasses import dataclass

import numba
import numpy as np

from . import kernels as K
from .lifecycle import ALLOCATED, BUILT, SOLVED, Lifecycle, SolverStateError
from .tree import PublicTree
from ..errors import InputError


@dataclass(frozen=True)
class Schedule:
    """The weights of Discounted CFR (see the module docstring); ``alpha = inf`` never
    discounts positive regrets, ``beta = -inf`` sets negative regrets to zero at every
    iteration (as CFR+ does); ``plus`` floors regrets at zero after each update and
    ``predictive`` plays the predicted regret (both as in the module docstring)."""

    name: str
    alpha: float
    beta: float
    gamma: float
    plus: bool = False
    predictive: bool = False

    def factors(self, it: int) -> tuple[float, float, float]:
        """(positive regrets, negative regrets, strategy sums) multipliers at iteration ``it``."""
        if self.alpha == math.inf:
            pos = 1.0
        else:
            k = (it - 1) ** self.alpha
            pos = k / (k + 1.0)
        if self.beta == -math.inf:
            neg = 0.0
        else:
            kb = (it - 1) ** self.beta
            neg = kb / (kb + 1.0)
        avg = ((it - 1) / it) ** self.gamma
        return pos, neg, avg

    def update(self, it: int) -> tuple[float, float, float, bool, bool, float]:
        """What the kernels take for iteration ``it``: its three factors, ``plus``,
        ``predictive`` and the next iteration's positive-regret factor."""
        return (*self.factors(it), self.plus, self.predictive, self.factors(it + 1)[0])


SCHEDULES = {s.name: s for s in (
    Schedule("dcfr", 1.5, 0.0, 2.0),          # Brown & Sandholm's recommended weights
    Schedule("dcfr-floor", 1.5, -math.inf, 2.0),   # negative regrets dropped (CFR+-like)
    Schedule("dcfr-g3", 1.5, 0.0, 3.0),       # the average forgets the early iterates faster
    Schedule("lcfr", 1.0, 1.0, 1.0),          # Linear CFR: iteration t weighs t
    Schedule("dcfr+", 1.5, -math.inf, 4.0, plus=True),   # Xu et al.'s DCFR+
    Schedule("pcfr+", math.inf, -math.inf, 2.0, plus=True, predictive=True),
    Schedule("pdcfr+", 2.3, -math.inf, 5.0, plus=True, predictive=True),
)}
"""The Discounted CFR weights offered, by name."""


def schedule_of(name) -> Schedule:
    """The schedule called ``name`` (or ``name`` itself when it is a :class:`Schedule`)."""
    if isinstance(name, Schedule):
        return name
    try:
        return SCHEDULES[name]
    except KeyError:
        raise InputError(f"{name!r}: the schedules are {', '.join(SCHEDULES)}") from None


def schedules_of(text: str) -> list[Schedule]:
    """The schedules named in ``text``, comma-separated, each once (an option's value)."""
    schedules = [schedule_of(name.strip()) for name in text.split(",") if name.strip()]
    if not schedules or len({s.name for s in schedules}) != len(schedules):
        raise InputError(f"{text!r}: name each schedule once ({', '.join(SCHEDULES)})")
    return schedules


class CFRSolver(Lifecycle):
    """Discounted CFR for one public tree, deal-weight matrix and payoff vector."""

    def __init__(self, tree: PublicTree, deal_weights, payoff, total: float = 0.0,
                 threads: int | None = 1, schedule="dcfr", sums_in_opponent_walk=False):
        weights = np.asarray(deal_weights, dtype=np.float64)
        if weights.shape != tuple(tree.n_hands):
            raise ValueError(f"deal weights of shape {weights.shape}, the tree has hands {tree.n_hands}")
        payoff = np.asarray(payoff, dtype=np.float64)
        if payoff.shape != (len(tree.outcome_names),):
            raise ValueError(f"{len(payoff)} payoffs for outcomes {tree.outcome_names}")
        self.tree = tree
        self.weights = (np.ascontiguousarray(weights), np.ascontiguousarray(weights.T))
        self.payoff = payoff
        self.total = float(total)
        self.threads = threads
        self.schedule = schedule_of(schedule)
        self.sums_in_opponent_walk = bool(sums_in_opponent_walk)
        self.state = BUILT
        self.iterations = 0
        self.seconds = 0.0
        self.exploitability_history: list[tuple[int, float]] = []

    # ------------------------------------------------------------ allocation
    def allocate(self) -> "CFRSolver":
        """Make the working arrays (regrets, strategies, reach, values)."""
        self._need_built("allocate()")
        t = self.tree
        n_pairs, n_edges = t.n_pairs, t.n_edges
        infoset_player = t.pair_player[t.infoset_pair]
        self.infosets = tuple(np.nonzero(infoset_player == p)[0].astype(np.int32) for p in (0, 1))
        depth_counts = np.bincount(t.node_depth)
        self.depth_node_start = np.concatenate([[0], np.cumsum(depth_counts)]).astype(np.int64)
        if np.any(np.diff(t.node_depth) < 0):
            raise ValueError("the tree's nodes are not in breadth-first order")
        self.depth_pair_start = t.node_pair_start[np.minimum(self.depth_node_start, t.n_nodes - 1)]
        self.depth_pair_start[-1] = n_pairs
        self.pair_infoset = np.full(n_pairs, -1, dtype=np.int32)
        self.pair_infoset[t.infoset_pair] = np.arange(t.n_infosets)
        self.regret = np.zeros(n_edges, dtype=np.float32)
        self.cum = np.zeros(n_edges, dtype=np.float32)
        self.sigma = np.ones(n_edges, dtype=np.float32)
        self.average = np.ones(n_edges, dtype=np.float32)
        for p in (0, 1):
            K.regret_matching(self.infosets[p], t.infoset_edge_start, t.infoset_edge_count,
                              self.regret, self.sigma)
        self.reach = np.zeros(n_pairs, dtype=np.float64)
        self.cfv = np.zeros(n_pairs, dtype=np.float64)
        self.state = ALLOCATED
        return self

    # ------------------------------------------------------------ traversals
    @contextmanager
    def _threads(self):
        """Run the kernels on ``self.threads`` numba threads (None: numba's default)."""
        if self.threads is None:
            yield
            return
        before = numba.get_num_threads()
        numba.set_num_threads(max(1, min(int(self.threads), numba.config.NUMBA_NUM_THREADS)))
        try:
            yield
        finally:
            numba.set_num_threads(before)

    def _values(self, player: int, sigma: np.ndarray, best_response: bool) -> np.ndarray:
        """cfv of ``player``'s pairs with both players at ``sigma`` (a max for his own if BR)."""
        t = self.tree
        K.forward_reach(self.depth_pair_start, t.pair_parent, t.pair_edge, sigma, self.reach)
        K.terminal_values(player, t.terminals, t.node_pair_start, t.node_pair_count,
                          t.node_outcomes, t.pair_hand, t.pair_strength, self.reach,
                          self.weights[player], self.payoff, self.cfv)
        K.backward_values(player, self.depth_node_start, self.depth_pair_start, t.node_actor,
                          t.node_child_start, t.node_child_count, t.node_pair_start,
                          t.node_pair_count, t.pair_parent, t.pair_edge, self.pair_infoset,
                          sigma, self.cfv, best_response)
        return self.cfv

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` Discounted CFR iterations (alternating: player 0, then player 1)."""
        self._need(ALLOCATED, "iterate()")
        start = time.perf_counter()
        with self._threads():
            self._iterate(n)
        self.seconds += time.perf_counter() - start
        if self.state == SOLVED:
            self.state = ALLOCATED

    def _iterate(self, n: int) -> None:
        t = self.tree
        for _ in range(n):
            self.iterations += 1
            it = self.iterations
            update = self.schedule.update(it)
            for p in (0, 1):
                self._values(p, self.sigma, False)
                if self.sums_in_opponent_walk:   # the other player's sums, at his strategy now
                    K.add_to_average(self.infosets[1 - p], t.infoset_pair, t.infoset_edge_start,
                                     t.infoset_edge_count, self.reach, self.sigma, self.cum,
                                     update[2])
                K.update_regrets(self.infosets[p], t.infoset_pair, t.infoset_edge_start,
                                 t.infoset_edge_count, t.edge_pair, self.cfv, self.reach,
                                 self.sigma, self.regret, self.cum, *update,
                                 not self.sums_in_opponent_walk)

    def _average(self) -> np.ndarray:
        """The average strategy (cached until the next iteration)."""
        if getattr(self, "_average_of", None) != self.iterations:
            t = self.tree
            for p in (0, 1):
                K.normalise_average(self.infosets[p], t.infoset_edge_start, t.infoset_edge_count,
                                    self.cum, self.average)
            self._average_of = self.iterations
        return self.average

    def _root_sum(self, player: int) -> float:
        return float(self.cfv[self.tree.pairs_of(0, player).start:
                              self.tree.pairs_of(0, player).stop].sum())

    def best_response_values(self) -> tuple[float, float]:
        """(player 0's best-response utility vs player 1's average strategy, and the
        same for player 1), each in its own utility (player 1's is ``total`` minus player 0's)."""
        self._need(ALLOCATED, "best_response_values()")
        if self.iterations == 0:
            raise SolverStateError("best_response_values() needs at least one iteration")
        avg = self._average()
        with self._threads():
            self._values(0, avg, True)
            v0 = self._root_sum(0)
            self._values(1, avg, True)
            v1 = self._root_sum(1)
        return v0, self.total + v1

    def exploitability(self) -> float:
        """Mean of both players' best-response gains against the average strategy."""
        v0, v1 = self.best_response_values()
        return 0.5 * (v0 + v1 - self.total)

    def solve(self, target_exploitability: float = 1e-4, max_iterations: int = 10_000,
              check_every: int = 16, progress=False, first_check: int | None = None
              ) -> "CFRSolver":
        """Iterate until the exploitability is at most the target or ``max_iterations``
        is reached; then ``solved``.

        The exploitability (two best-response traversals, about one iteration's work)
        is checked after ``first_check`` iterations (default ``check_every``), then
        at most ``check_every`` iterations later: sooner when the power law through
        the last two checks predicts the target earlier; and at the last iteration.
        """
        if self.state == BUILT:
            self.allocate()
        bar = None
        if progress:
            from tqdm import tqdm
            bar = tqdm(total=max_iterations, desc=f"solve {self.tree.game_name}", unit="it",
                       leave=False)
        start = time.perf_counter()
        expl = float("inf")
        try:
            next_check = self.iterations + (first_check or check_every)
            while self.iterations < max_iterations:
                n = min(next_check, max_iterations) - self.iterations
                self.iterate(n)
                expl = self.exploitability()
                self.exploitability_history.append((self.iterations, expl))
                if bar is not None:
                    bar.update(n)
                    bar.set_postfix(exploitability=f"{expl:.2e}")
                if expl <= target_exploitability:
                    break
                next_check = self.iterations + self._predicted_gap(target_exploitability,
                                                                   check_every)
        finally:
            if bar is not None:
                bar.close()
        self.final_exploitability = expl
        self.solve_seconds = time.perf_counter() - start
        self.state = SOLVED
        return self

    def _predicted_gap(self, target: float, check_every: int) -> int:
        """Iterations until the target by the power law through the last two checks,
        within [2, check_every] (:func:`predicted_gap`)."""
        return predicted_gap(self.exploitability_history, target, check_every)

    # ------------------------------------------------------------ results
    def hand_values(self) -> np.ndarray:
        """(2, n) expected utility of each hand for its holder under the average strategies,
        conditional on holding it (player 0's utility for row 0, ``total`` minus it for row 1)."""
        self._need(SOLVED, "hand_values()")
        avg = self._average()
        rows = []
        for p in (0, 1):
            with self._threads():
                self._values(p, avg, False)
            pairs = self.tree.pairs_of(0, p)
            hands = self.tree.pair_hand[pairs.start:pairs.stop]
            marginal = self.weights[p].sum(axis=1)[hands]
            v = np.zeros(self.tree.n_hands[p])
            with np.errstate(invalid="ignore", divide="ignore"):
                v[hands] = np.where(marginal > 0, self.cfv[pairs.start:pairs.stop] / marginal, np.nan)
            rows.append(v if p == 0 else self.total + v)
        n = max(self.tree.n_hands)
        out = np.full((2, n), np.nan)
        out[0, : self.tree.n_hands[0]] = rows[0]
        out[1, : self.tree.n_hands[1]] = rows[1]
        return out

    def value(self) -> float:
        """Player 0's expected utility under the average strategies."""
        self._need(SOLVED, "value()")
        avg = self._average()
        with self._threads():
            self._values(0, avg, False)
        return self._root_sum(0)

    def outcome_probabilities(self) -> np.ndarray:
        """Probability of each outcome (in ``tree.outcome_names`` order) under the average
        strategies, over all deals."""
        payoff = self.payoff
        try:
            out = []
            for k in range(len(payoff)):
                self.payoff = np.eye(len(payoff))[k]
                out.append(self.value())
        finally:
            self.payoff = payoff
        return np.array(out)

    def average_strategy(self) -> np.ndarray:
        """(E,) average strategy probability of each edge."""
        self._need(SOLVED, "average_strategy()")
        return self._average().copy()

    def edges_at(self, node: int, player: int, private: int):
        """[(public action, next private state, edge index or -1)] of a private state's moves."""
        t = self.tree
        pairs = t.pairs_of(node, player)
        found = np.nonzero(t.pair_private[pairs.start:pairs.stop] == private)[0]
        if not len(found):
            raise KeyError(f"private state {private} is not possible for player {player} here")
        pair = pairs.start + int(found[0])
        out = []
        for c in t.children(node):
            if t.node_actor[node] != player:
                break
            cp = t.pairs_of(c, player)
            kids = np.nonzero(t.pair_parent[cp.start:cp.stop] == pair)[0]
            for k in kids:
                i = cp.start + int(k)
                out.append((t.actions[t.node_action[c]], int(t.pair_private[i]), int(t.pair_edge[i])))
        return out

    def strategy_of(self, node: int, player: int, private: int) -> list:
        """[(public action, next private state, probability)] of the average strategy."""
        self._need(SOLVED, "strategy_of()")
        if self.tree.node_actor[node] != player:
            raise ValueError(f"player {player} is not to act at this node")
        avg = self._average()
        moves = self.edges_at(node, player, private)
        return [(a, nxt, 1.0 if e < 0 else float(avg[e])) for a, nxt, e in moves]

    def work(self) -> dict:
        """Sizes of the tree and the work of one iteration (both players' traversals).

        ``bytes_per_iteration`` counts every array element the kernels read or write
        once per touch (the deal-weight matrix, which stays in cache, once): a lower
        bound on memory traffic, so ``bytes / seconds per iteration`` is the bandwidth
        the solve reaches. ``terminal_multiply_adds`` counts the terminal sums.
        """
        t = self.tree
        idx = t.pair_parent.itemsize
        P, E, I = t.n_pairs, t.n_edges, t.n_infosets
        counts = t.node_pair_count[t.terminals].astype(np.int64)
        showdown = t.node_outcomes[t.terminals, 0] != t.node_outcomes[t.terminals, 2]
        terminal_pairs = int(counts.sum())
        showdown_pairs = int(counts[showdown].sum())
        per_traversal = (
            P * (2 * idx + 8 + 8) + E * 4                      # forward: parent, edge, reach
            + terminal_pairs * (4 + 8 + 8) + showdown_pairs * 4  # terminal: hand, reach, cfv
            + P // 2 * (2 * idx + 8 + 8 + 8) + E // 2 * 4        # backward: u's pairs
            + I // 2 * (3 * idx + 16)                            # update: u's information sets
            + E // 2 * (3 * (4 + 4) + idx + 8)                   # regret, cum, sigma, child cfv
        )
        weights = sum(w.nbytes for w in self.weights) // 2
        return {
            **t.sizes(),
            "terminal_pairs": terminal_pairs,
            "terminal_multiply_adds": int(self._terminal_work()),
            "bytes_per_iteration": int(2 * (per_traversal + weights)),
        }

    def _terminal_work(self) -> int:
        """Multiply-adds of the terminal sums of both players' traversals."""
        t = self.tree
        total = 0
        hands = t.pair_hand
        for n in t.terminals:
            c0, c1 = (int(x) for x in t.node_pair_count[n])
            if t.node_outcomes[n, 0] != t.node_outcomes[n, 2]:
                total += 2 * c0 * c1
            else:
                a = int(t.node_pair_start[n])
                d0 = 1 + int(np.count_nonzero(np.diff(hands[a:a + c0]))) if c0 else 0
                d1 = 1 + int(np.count_nonzero(np.diff(hands[a + c0:a + c0 + c1]))) if c1 else 0
                total += 2 * d0 * d1
        return total


def predicted_gap(checks, target: float, check_every: int, rate: float | None = None) -> int:
    """Iterations from the last of ``checks`` (``(iterations, exploitability, ...)``, in
    order) until the exploitability reaches ``target`` by the power law
    ``exploitability ~ iterations ** -rate`` through the last two checks, within
    ``[2, check_every]``. With one check, ``rate`` is assumed (None: ``check_every``); so
    is it where the last two checks did not fall."""
    if check_every <= 2 or not checks or not target > 0:
        return check_every
    t2, e2 = checks[-1][0], checks[-1][1]
    if len(checks) >= 2 and checks[-2][1] > e2 > 0:
        t1, e1 = checks[-2][0], checks[-2][1]
        rate = np.log(e1 / e2) / np.log(t2 / t1)
    if rate is None or not rate > 0 or not e2 > 0 or not t2 > 0:
        return check_every
    reach_at = t2 * (e2 / target) ** (1.0 / rate)
    return int(min(check_every, max(2, np.ceil(reach_at) - t2)))
