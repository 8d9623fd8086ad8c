"""The full game's solved strategy as a :class:`~lab.policy.base.Policy`.

:class:`FullPolicy` is the full hand game with the truco ladder, on the compact
stored form of :mod:`lab.solver.fullgame.compact`. Its public states are :class:`Spot`\\ s and
its public actions

- ``("card", level)``: play a card of that strength level face up;
- ``("cover", level)``: play a card of that level face down (the table sees only
  ``"cover"``; the level is the actor's own knowledge);
- ``"raise"`` (truco, 6, 9, 12), ``"accept"``, ``"run"``.

A hand is a private state of the actor at the card node: its class (the three cards as
dealt) and the levels it still holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .base import Decision, Policy, PolicyError
from .values import action_order, action_values

RAISE, ACCEPT, RUN = "raise", "accept", "run"


@dataclass(frozen=True)
class Spot:
    """A public decision state of the full game: card node ``card``, the ``history``-th
    betting history entering it, and ``node`` its betting template node (global id)."""

    card: int
    history: int
    node: int


@dataclass(frozen=True)
class Terminal:
    """The hand is over: ``winner`` scores ``points`` (``how``: ``cards`` or ``run``)."""

    winner: Optional[int]
    points: int
    how: str
    showdown: bool = False  # decided by the round-3 follower's last card


def _card_end(winner: int, value: int, showdown: bool = False) -> Terminal:
    """The hand decided by the cards: the winner scores ``value`` points; a hand that
    scores nothing (``tree.NO_WINNER``) has no winner and no points."""
    if winner == NO_WINNER:
        return Terminal(None, 0, "cards", showdown=showdown)
    return Terminal(winner, value, "cards", showdown=showdown)


@dataclass
class FullPolicy(Policy):
    """A stored full-game policy with fast lookups (see the module docstring).

    ``q`` is one byte per solver slot (:mod:`lab.solver.fullgame.compact`); ``solver`` a
    :class:`~lab.solver.fullgame.solver.FullSolver` of the same configuration whose strategy is
    ``q`` (built lazily: values and best responses need it). ``payoffs``: the (mão, pé)
    payoffs per ladder value the policy was solved for (a score-aware re-solve's, on its
    solver's scale), None for points; its solver's values are in those payoffs."""

    config: object
    q: np.ndarray
    keys: object = None
    exploitability: float = float("nan")
    rules: str = ""
    meta: dict = field(default_factory=dict)
    game: str = "full"
    unit: str = "points per hand"
    payoffs: tuple | None = None

    def __post_init__(self):
        from ..solver.fullgame.solver import card_game, card_tree, game_layout
        from ..solver.fullgame.tree import build_templates
        from ..solver.games.cardplay import state_index

        self.vira = self.config.vira
        self.cards = card_game(self.config)
        self.tree = card_tree(self.config)
        self.templates = build_templates(self.config.ladder)
        self.layout = game_layout(self.config, self.tree, self.templates)
        if self.keys is None:
            self.keys = _keys(self.tree, self.layout, self.templates, True)
        if self.q.shape != (self.keys.n_slots,):
            raise ValueError(f"a policy of {self.q.shape[0]:,} slots for {self.keys.n_slots:,} "
                             "key slots")
        self.enter_start, self.enter_states = self.keys.enter_start, self.keys.enter_states
        self.ladder = tuple(self.config.ladder)
        self._state_id = state_index(self.cards.class_levels)
        self._solver = None

    @classmethod
    def from_solver(cls, solver, threshold: float = 0.01, merge: bool = True,
                    threads: int = 1, measure: bool = True) -> "FullPolicy":
        """The stored form of a :class:`~lab.solver.fullgame.solver.FullSolver`'s average strategy
        (:func:`~lab.solver.fullgame.compact.compact_policy`), with its exploitability measured
        by an exact best response when ``measure`` (points per hand)."""
        from ..solver.fullgame.compact import compact_policy

        q, keys, kept = compact_policy(solver, threshold, merge, threads)
        policy = cls(solver.config, q, keys=keys,
                     meta={"iterations": solver.iterations, "threshold": threshold,
                           "merge": merge, "pairs": kept,
                           "solver_exploitability": solver.final_exploitability})
        if measure:
            policy.exploitability = policy.solver(threads).exploitability()
        return policy

    @classmethod
    def average_of(cls, solver) -> "FullPolicy":
        """A solver's own average strategy, exactly: its strategy sums read in place, one
        key per public node (nothing merged, thresholded or pruned), for summaries of a
        solve. Pairs the solver never reached are not stored."""
        from ..solver.fullgame.compact import build_keys

        keys = build_keys(solver.tree, solver.layout, solver.templates, merge=False)
        sums = solver.cum32 if solver.config.storage == "float32" else solver.cum16
        return cls(solver.config, sums, keys=keys,
                   exploitability=float(solver.final_exploitability),
                   meta={"iterations": int(solver.iterations)})

    def seat_value(self, seat: int, value):
        """A value of this policy's walks for ``seat`` (0 mão, 1 pé) in the policy's
        :attr:`unit`: points per hand as they are; for a score-aware policy (solved on its
        solver's scale, ``meta``'s ``centre`` and ``half_swing``) the seat's match-win
        probability. A number or an array."""
        if self.payoffs is None:
            return value
        own = self.meta["centre"] if seat == 0 else 1.0 - self.meta["centre"]
        return own + value * self.meta["half_swing"]

    def solver_weights(self, seat: int) -> np.ndarray:
        """Deal weights ``W[own class, other class]`` of ``seat`` (joint probability)."""
        w = np.asarray(self.cards.deal_weights(), dtype=np.float64)
        return w if seat == 0 else w.T

    # ---------------------------------------------------------------- positions
    def root(self) -> Spot:
        a = int(self.tree.actor[0])
        return Spot(0, 0, int(self.templates.start[a, 0]))

    def entering(self, c: int) -> np.ndarray:
        return self.enter_states[self.enter_start[c]:self.enter_start[c + 1]]

    def actor(self, spot: Spot) -> int:
        tm = self.templates
        if tm.kind[spot.node] == 0:
            return int(self.tree.actor[spot.card])
        return int(tm.answerer[spot.node])

    def is_answer(self, spot: Spot) -> bool:
        """Whether a raise is waiting for the actor's answer."""
        return int(self.templates.kind[spot.node]) == 1

    def value_index(self, spot: Spot) -> int:
        """Ladder index of the accepted value at ``spot``."""
        return int(self.templates.value[spot.node])

    def _history_bases(self, spot: Spot) -> tuple[int, int, int]:
        """(slot offset, T nodes, template nodes) of the histories before ``spot.history``."""
        t, tm = self.tree, self.templates
        c = spot.card
        a = int(t.actor[c])
        na, no = int(t.n[c, a]), int(t.n[c, 1 - a])
        E = int(t.n_edges[c])
        choice = E > na
        slot = int(self.layout.slot_base[c])
        tcount = 0
        kcount = 0
        for s in self.entering(c)[:spot.history]:
            nt, ntr = int(tm.count_t[a, s]), int(tm.count_t_raise[a, s])
            slot += (ntr * (E + na) + (nt - ntr) * (E if choice else 0)
                     + int(tm.q_actions_actor[a, s]) * na + int(tm.q_actions_other[a, s]) * no)
            tcount += nt
            kcount += int(tm.size[a, s])
        return slot, tcount, kcount

    def _locate(self, spot: Spot) -> tuple[int, int, int]:
        """(first slot of ``spot``'s node, its T index or -1, its index among the card
        node's template nodes)."""
        t, tm = self.tree, self.templates
        c = spot.card
        a = int(t.actor[c])
        na = int(t.n[c, a])
        E = int(t.n_edges[c])
        choice = E > na
        slot, tcount, kcount = self._history_bases(spot)
        s = int(self.entering(c)[spot.history])
        first = int(tm.start[a, s])
        for gid in range(first, spot.node):
            if tm.kind[gid] == 0:
                slot += (E + na) if tm.child_a[gid] >= 0 else (E if choice else 0)
                tcount += 1
            else:
                slot += (3 if tm.child_b[gid] >= 0 else 2) * int(t.n[c, tm.answerer[gid]])
        t_index = tcount if tm.kind[spot.node] == 0 else -1
        return slot, t_index, kcount + spot.node - first

    def key_slot(self, spot: Spot) -> int:
        """First stored slot of ``spot``'s key (:mod:`lab.solver.fullgame.compact`)."""
        tm = self.templates
        g = spot.node
        if not self.keys.merge:
            code = self._locate(spot)[2]
        elif tm.kind[g] == 0:
            code = 4 * int(tm.value[g]) + int(tm.exit_state[g]) % 3
        else:
            code = 32 + 4 * int(tm.value[g]) + int(tm.raiser[g])
        return int(self.keys.slot[self.keys.find(spot.card, code)])

    # ---------------------------------------------------------------- hands
    def state_of(self, hand_class: int, held) -> int:
        key = (int(hand_class), tuple(sorted((int(x) for x in held), reverse=True)))
        s = self._state_id.get(key)
        if s is None:
            raise PolicyError(f"class {hand_class} cannot hold the levels {key[1]}")
        return s

    def pair_of(self, c: int, seat: int, state: int) -> int:
        """Position of private state ``state`` in card node ``c``'s list of ``seat``."""
        sl = self.tree.pairs(c, seat)
        found = np.flatnonzero(self.tree.pair_state[sl] == state)
        if not len(found):
            raise PolicyError("that hand cannot be here: the cards on the table rule it out")
        return int(found[0])

    def edge_actions(self, c: int) -> tuple:
        """The action of each card edge of card node ``c`` (``("card", lv)`` or
        ``("cover", lv)``; at a round-3 follower's node, his last card)."""
        return _edge_actions(self, c)

    # ---------------------------------------------------------------- strategies
    def decision(self, spot: Spot) -> Decision:
        """Every hand's strategy at ``spot`` as one ``[action][hand]`` array."""
        t, tm = self.tree, self.templates
        c = spot.card
        seat = self.actor(spot)
        sl = t.pairs(c, seat)
        n = sl.stop - sl.start
        hands = t.pair_hand[sl].astype(np.int64)
        held = tuple(self.cards.state_held[int(x)] for x in t.pair_state[sl])
        slot = self.key_slot(spot)
        if tm.kind[spot.node] == 1:
            n_ans = 3 if tm.child_b[spot.node] >= 0 else 2
            actions = (ACCEPT, RUN, RAISE)[:n_ans]
            block = self.q[slot:slot + n_ans * n].reshape(n, n_ans).T.astype(np.float64)
            stored = block.sum(axis=0) > 0
            with np.errstate(invalid="ignore", divide="ignore"):
                strategy = block / block.sum(axis=0)
            strategy[:, ~stored] = np.nan
            return Decision(seat, actions, hands, held, strategy, stored)
        E = int(t.n_edges[c])
        can_raise = tm.child_a[spot.node] >= 0
        choice = E > n
        edges = self.edge_actions(c)
        actions = tuple(sorted(set(edges), key=action_order)) + ((RAISE,) if can_raise else ())
        index = {a: k for k, a in enumerate(actions)}
        strategy = np.zeros((len(actions), n))
        es = t.pair_edge_start[sl]
        ec = t.pair_edge_count[sl]
        if not (can_raise or choice):  # one card each, no raise: forced
            for i in range(n):
                strategy[index[edges[es[i]]], i] = 1.0
            return Decision(seat, actions, hands, held, strategy, np.ones(n, dtype=bool))
        for i in range(n):
            for e in range(es[i], es[i] + ec[i]):
                strategy[index[edges[e]], i] += self.q[slot + e]
            if can_raise:
                strategy[index[RAISE], i] = self.q[slot + E + i]
        total = strategy.sum(axis=0)
        stored = total > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            strategy /= total
        strategy[:, ~stored] = np.nan
        return Decision(seat, actions, hands, held, strategy, stored)

    def betting_probability(self, spot: Spot, action) -> np.ndarray:
        """The probability of the betting ``action`` (accept, run or raise; a legal one
        at ``spot``) for every private state of the actor, zero for states the policy
        does not hold (what :meth:`sigma` gives for it)."""
        t, tm = self.tree, self.templates
        c, g = spot.card, spot.node
        n = int(t.n[c, self.actor(spot)])
        slot = self.key_slot(spot)
        if tm.kind[g] == 1:
            n_ans = 3 if tm.child_b[g] >= 0 else 2
            block = self.q[slot:slot + n_ans * n].reshape(n, n_ans).astype(np.float64)
            part = block[:, (ACCEPT, RUN, RAISE).index(action)]
        else:
            E = int(t.n_edges[c])
            sl = t.pairs(c, self.actor(spot))
            block = self.q[slot:slot + E].astype(np.float64)
            part = self.q[slot + E:slot + E + n].astype(np.float64)
            edge_sums = np.add.reduceat(block, t.pair_edge_start[sl].astype(np.int64)) \
                if E else np.zeros(n)
            block = np.stack([edge_sums, part], axis=1)
        total = block.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, part / total, 0.0)

    def strategy(self, spot: Spot, state: int) -> dict:
        """``{action: probability}`` of the actor holding private state ``state`` at
        ``spot`` (PolicyError when the policy does not hold it: its own earlier actions
        never lead there)."""
        t, tm = self.tree, self.templates
        c = spot.card
        seat = self.actor(spot)
        i = self.pair_of(c, seat, state)
        slot = self.key_slot(spot)
        if tm.kind[spot.node] == 1:
            n_ans = 3 if tm.child_b[spot.node] >= 0 else 2
            x = self.q[slot + i * n_ans: slot + (i + 1) * n_ans]
            if not x.any():
                raise PolicyError("not stored: the policy never reaches this state with this hand")
            total = float(x.sum())
            return dict(zip((ACCEPT, RUN, RAISE)[:n_ans], (float(v) / total for v in x)))
        p = t.pairs(c, seat).start + i
        es, ec = int(t.pair_edge_start[p]), int(t.pair_edge_count[p])
        E = int(t.n_edges[c])
        na = int(t.n[c, seat])
        can_raise = tm.child_a[spot.node] >= 0
        edges = self.edge_actions(c)
        if not (can_raise or E > na):
            return {edges[es]: 1.0}
        out = {}
        for e in range(es, es + ec):
            out[edges[e]] = out.get(edges[e], 0.0) + float(self.q[slot + e])
        if can_raise:
            out[RAISE] = float(self.q[slot + E + i])
        total = sum(out.values())
        if total <= 0:
            raise PolicyError("not stored: the policy never reaches this state with this hand")
        return {a: x / total for a, x in out.items()}

    # ---------------------------------------------------------------- moving on
    def child(self, spot: Spot, action):
        """The spot after a public action, or a :class:`Terminal`. Card actions are
        ``("card", level)`` or ``"cover"`` (the table's view of a covered card)."""
        t, tm = self.tree, self.templates
        c, g = spot.card, spot.node
        if tm.kind[g] == 1:  # a raise waits for its answer
            if action == ACCEPT:
                return Spot(c, spot.history, self._template_child(spot, int(tm.child_a[g])))
            if action == RUN:
                raiser = 1 - int(tm.answerer[g])
                return Terminal(raiser, self.ladder[int(tm.value[g])], "run")
            if action == RAISE and tm.child_b[g] >= 0:
                return Spot(c, spot.history, self._template_child(spot, int(tm.child_b[g])))
            raise PolicyError(f"{_name(action)} is not an answer here (accept, run"
                              + (", raise)" if tm.child_b[g] >= 0 else ")"))
        if action == RAISE:
            if tm.child_a[g] < 0:
                raise PolicyError("no raise here: the player to act made the last raise, "
                                  "or the hand is worth 12")
            return Spot(c, spot.history, self._template_child(spot, int(tm.child_a[g])))
        if action in (ACCEPT, RUN):
            raise PolicyError(f"{action}: no raise is waiting for an answer")
        kind = action[0] if isinstance(action, tuple) else action
        if kind == "cover":
            lv = 13  # the public cover action
        elif kind == "card":
            lv = int(action[1])
        else:
            raise PolicyError(f"{action!r}: not an action of the full game")
        value = self.ladder[int(tm.value[g])]
        if t.kind[c] == LAST_KIND:  # the round-3 follower's last card: showdown
            if kind != "card":
                raise PolicyError("the last card is played face up")
            if ("card", lv) not in self.edge_actions(c):
                raise PolicyError(f"{_name(action)} cannot be played here")
            w = _showdown(t.showdown, c, lv, int(t.lead[c]))
            return _card_end(int(w), value, showdown=True)
        _, t_index, _ = self._locate(spot)
        for ch in t.children(c):
            if int(t.action[ch]) == lv:
                if t.kind[ch] == END_KIND:
                    return _card_end(int(t.winner[ch]), value)
                a = int(t.actor[ch])
                s = int(self.entering(ch)[t_index])
                return Spot(int(ch), t_index, int(tm.start[a, s]))
        raise PolicyError(f"{_name(action)} cannot be played here")

    def _template_child(self, spot: Spot, local: int) -> int:
        a = int(self.tree.actor[spot.card])
        s = int(self.entering(spot.card)[spot.history])
        return int(self.templates.start[a, s]) + local

    # ---------------------------------------------------------------- walking a hand
    def start(self) -> "Line":
        """The hand before its first action: both seats' reach is one for every hand."""
        n = self.tree.n[0]
        return Line(self, self.root(), [np.ones(int(n[0])), np.ones(int(n[1]))],
                    [np.ones(int(n[0])), np.ones(int(n[1]))], ())

    def sigma(self, spot: Spot, seat: int) -> tuple[tuple, np.ndarray]:
        """``(actions, probability [action][pair])`` of ``seat`` (the actor) at ``spot``,
        zero for pairs the policy does not hold (their own reach is zero)."""
        d = self.decision(spot)
        return d.actions, np.nan_to_num(d.strategy, nan=0.0)

    # ---------------------------------------------------------------- the solver view
    def solver(self, threads: Optional[int] = None):
        """A :class:`~lab.solver.fullgame.solver.FullSolver` playing this policy (values, best
        responses, the outcome distribution; points per hand), walking the whole game on
        ``threads`` threads (default: numba's, one per core). The first call's is kept."""
        if self._solver is None:
            if threads is None:
                import numba
                threads = numba.config.NUMBA_NUM_THREADS
            from dataclasses import replace

            from ..solver.fullgame.solver import FullSolver

            solver = FullSolver(replace(self.config, storage="float32"),
                                threads=threads).use_policy(expanded(self))
            if self.payoffs is not None:
                solver.set_payoffs(*self.payoffs)
            _held_solver(self)
            self._solver = solver
        return self._solver


_HOLDING: list = []
"""The one policy whose solver is held: a solver's working buffers take hundreds of MB,
so a process that values positions of many policies keeps only the last one's."""


def _held_solver(policy: FullPolicy) -> None:
    for other in _HOLDING:
        if other is not policy:
            other._solver = None
    _HOLDING[:] = [policy]


def expanded(policy: FullPolicy) -> np.ndarray:
    """``policy`` in the solver's slot layout, 16 bits a slot (what
    :meth:`~lab.solver.fullgame.solver.FullSolver.use_policy` holds). A stored policy's
    (one whose ``meta`` names its file's hash) is kept in the disk cache and mapped from
    there (:func:`lab.solver.cache.disk_cached`): a walk reads only the pages of the
    subtree it visits, and processes share them. Expanded again in memory for any other."""
    from ..solver.fullgame.compact import expand

    def build():
        return expand(policy.keys, policy.tree, policy.layout, policy.templates,
                      policy.q, dtype=np.uint16)

    sha = policy.meta.get("sha256")
    if not sha or policy.keys.n_slots < 1_000_000:
        return build()
    from ..solver.fullgame.solver import disk_cached

    base = policy.meta.get("base_sha256") if policy.meta.get("difference") else None
    name = f"expanded-{sha}" + (f"-on-{base}" if base else "")
    return disk_cached(name, build, ("solver/fullgame/compact.py",), keep=EXPANDED_KEPT)


EXPANDED_KEPT = 4
"""Expanded policies kept in the disk cache, the most recently used (1.4 GB each for the
real game); an older one is expanded again when asked (about 5 s)."""


LAST_KIND, END_KIND = 1, 2
NO_WINNER = 2   # tree.NO_WINNER: a hand that scores nothing


def _showdown(showdown, c, level, lead_level):
    if level > lead_level:
        return showdown[c, 0]
    return showdown[c, 1] if level == lead_level else showdown[c, 2]


def _name(action) -> str:
    if isinstance(action, tuple):
        return f"{action[0]} {action[1]}" if len(action) > 1 else action[0]
    return str(action)


_KEYS: dict = {}


def _keys(tree, layout, templates, merge: bool):
    from ..solver.fullgame.solver import disk_cached
    from ..solver.fullgame.compact import build_keys

    key = (id(tree), templates.ladder, merge)
    if key not in _KEYS:
        if tree.n_nodes > 100_000:
            name = f"keys-{'-'.join(map(str, templates.ladder))}-{int(merge)}"
            _KEYS[key] = disk_cached(name, lambda: build_keys(tree, layout, templates, merge),
                                     ("solver/fullgame/compact.py",))
        else:
            _KEYS[key] = build_keys(tree, layout, templates, merge)
    return _KEYS[key]


_EDGES: dict = {}


def _edge_actions(policy: FullPolicy, c: int) -> tuple:
    key = (id(policy.tree), c)
    out = _EDGES.get(key)
    if out is not None:
        return out
    from ..solver.games.cardplay_game import COVER

    t = policy.tree
    a = int(t.actor[c])
    E = int(t.n_edges[c])
    sl = t.pairs(c, a)
    held = policy.cards.state_held
    if t.kind[c] == LAST_KIND:
        out = tuple(("card", int(t.pair_level[sl.start + i])) for i in range(E))
    else:
        acts = [None] * E
        for ch in t.children(c):
            csl = t.pairs(ch, a)
            act = int(t.action[ch])
            for p in range(csl.start, csl.stop):
                e = int(t.pair_edge[p])
                if act == COVER:
                    before = list(held[t.pair_state[sl.start + t.pair_parent[p]]])
                    for lv in held[t.pair_state[p]]:
                        before.remove(lv)
                    acts[e] = ("cover", int(before[0]))
                else:
                    acts[e] = ("card", act)
        out = tuple(acts)
    if len(_EDGES) > 50_000:
        _EDGES.clear()
    _EDGES[key] = out
    return out


@dataclass(frozen=True)
class Line:
    """A hand walked from the start: the current spot (or the :class:`Terminal`), each
    seat's own reach over its private states at the current card node (the product of
    its own action probabilities under the policy), the same at the moment the card node
    was entered (what the kernels start from), and the public actions so far."""

    policy: FullPolicy
    spot: object
    reach: list
    entry: list
    actions: tuple

    @property
    def over(self) -> bool:
        return isinstance(self.spot, Terminal)

    def then(self, action) -> "Line":
        """The line after one public action (``("card", level)``, ``"cover"``, ``"raise"``,
        ``"accept"``, ``"run"``); the mover's reach follows the policy."""
        if self.over:
            raise PolicyError("the hand is over")
        pol, spot = self.policy, self.spot
        t = pol.tree
        seat = pol.actor(spot)
        nxt = pol.child(spot, action)
        reach = [r.copy() for r in self.reach]
        if action in (ACCEPT, RUN, RAISE):
            reach[seat] = reach[seat] * pol.betting_probability(spot, action)
            entry = self.entry
            return Line(pol, nxt, reach, entry, self.actions + (action,))
        if isinstance(nxt, Terminal):  # the round-3 follower's last card
            lv = action[1]
            held_last = t.pair_level[t.pairs(spot.card, seat)]
            reach[seat] = reach[seat] * (held_last == lv)
            return Line(pol, nxt, reach, self.entry, self.actions + (action,))
        c = spot.card
        ch = _card_child(t, c, action)
        slot = pol.key_slot(spot)
        E = int(t.n_edges[c])
        na = int(t.n[c, seat])
        forced = not (pol.templates.child_a[spot.node] >= 0 or E > na)
        sl = t.pairs(ch, seat)
        par = t.pair_parent[sl].astype(np.int64)
        edge = t.pair_edge[sl].astype(np.int64)
        if forced:
            p_edge = np.ones(len(edge))
        else:
            asl = t.pairs(c, seat)
            es = t.pair_edge_start[asl].astype(np.int64)
            total = np.add.reduceat(pol.q[slot:slot + E].astype(np.float64), es)
            if pol.templates.child_a[spot.node] >= 0:
                total += pol.q[slot + E:slot + E + na]
            with np.errstate(invalid="ignore", divide="ignore"):
                p_edge = np.where(total[par] > 0, pol.q[slot + edge] / total[par], 0.0)
        new = [None, None]
        new[seat] = self.reach[seat][par] * p_edge
        osl = t.pairs(ch, 1 - seat)
        new[1 - seat] = self.reach[1 - seat][t.pair_parent[osl].astype(np.int64)]
        if isinstance(nxt, Terminal):
            return Line(pol, nxt, new, new, self.actions + (action,))
        return Line(pol, nxt, new, [x.copy() for x in new], self.actions + (action,))

    def action_values(self, seat: int, pair: Optional[int] = None) -> tuple[tuple, np.ndarray]:
        """``(actions, values [action][pair])``: for each private state of ``seat`` (the
        actor here) the expected points of each action when ``seat`` plays a best
        response afterwards and the other seat plays the policy, given the public history
        (the other seat's hands weighted by the deal and his reach). Points per hand for
        that hand (in the policy's :attr:`FullPolicy.payoffs` where it has them); NaN where
        an action is not the hand's own or the hand cannot be here.
        Exact: one best-response traversal of the subtree by the solver's kernels, kept
        for the deal and the first card (:mod:`lab.policy.values`). With
        ``pair`` (an index into ``seat``'s private states here) only that state's column
        is given, the other columns NaN (below the first card only that state's cards
        are walked)."""
        pol, spot = self.policy, self.spot
        if self.over or pol.actor(spot) != seat:
            raise PolicyError("values are given to the seat that acts")
        return action_values(self, seat, pair)


def _card_child(t, c: int, action) -> int:
    lv = 13 if action == "cover" or (isinstance(action, tuple) and action[0] == "cover") \
        else int(action[1])
    for ch in t.children(c):
        if int(t.action[ch]) == lv:
            return int(ch)
    raise PolicyError(f"{_name(action)} cannot be played here")
