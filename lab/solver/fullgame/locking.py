"""Node locking: one seat's strategy held fixed at chosen decisions while Discounted CFR
re-solves everything else.

A lock is a choice of a stored policy's slots (:class:`~lab.solver.fullgame.compact.Keys`:
the same decision at every public node of a key) and the strategy held there, in the
stored policy's bytes (each pair's slots summing to :data:`~lab.solver.fullgame.compact.QUANT`;
an all-zero pair plays uniformly). :class:`LockedSolver` writes those bytes into its
regrets (and predicted regrets) and its strategy sums after every CFR walk. Regret
matching and the average strategy read only the ratios within a pair, so a locked pair
plays, and averages to, exactly the locked strategy, whatever a walk did to its entries
in between; the other seat learns to answer it and the locking seat's free decisions
adapt too. Locking nothing solves exactly as :class:`~lab.solver.fullgame.solver.FullSolver`.

Which slots to lock is said per key slot (:func:`slot_table` describes each: its seat, the
kind of decision, the pair and its dealt hand class, the answer it stands for).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import numpy as np
from numba import njit

from ..lifecycle import BUILT
from .compact import QUANT, expand
from .records import CFR
from .solver import FullSolver
from .tree import T_NODE

CARD, RAISE, ANSWER = 0, 1, 2
"""Kinds of stored slot: a card edge and the raise of a card-or-raise (T) node, an answer
of a pending raise (Q node)."""

ACCEPT, RUN, RERAISE = 0, 1, 2
"""The answers of a Q node's pair, in slot order."""


@dataclass(frozen=True)
class SlotTable:
    """Per stored slot of a policy: ``seat`` (0 mão, 1 pé: who decides), ``kind``
    (:data:`CARD`, :data:`RAISE`, :data:`ANSWER`), ``pair`` (the card tree's pair, so
    ``tree.pair_hand[pair]`` is the decider's dealt hand class), ``answer`` (for an answer
    slot: :data:`ACCEPT`, :data:`RUN` or :data:`RERAISE`; else -1), ``value`` (the hand's
    accepted value index on the ladder at the decision) and ``first`` (the first slot of
    the decision of its pair at its key: the same for all the slots of that decision; an
    answering pair's slots are ``first`` on, in answer order)."""

    seat: np.ndarray
    kind: np.ndarray
    pair: np.ndarray
    answer: np.ndarray
    value: np.ndarray
    first: np.ndarray


@njit(cache=True)
def _describe(kind, actor, nn, n_edges, pair_start, pair_edge_start, pair_edge_count,
              key_start, key_gid, key_slot, n_slots, t_kind, t_child_a, t_child_b,
              t_answerer, t_value, seat, skind, spair, sanswer, svalue, sfirst):
    """Fill the columns of a :class:`SlotTable`, key by key (a T key: each pair's card
    edges, then each pair's raise; a Q key: each pair's answers in turn)."""
    for c in range(kind.shape[0]):
        if key_start[c] == key_start[c + 1]:
            continue
        a = actor[c]
        na = nn[c, a]
        E = n_edges[c]
        for y in range(key_start[c], key_start[c + 1]):
            g = key_gid[y]
            ks = key_slot[y]
            end = key_slot[y + 1] if y + 1 < key_slot.shape[0] else n_slots
            if end == ks:
                continue
            v = t_value[g]
            if t_kind[g] == T_NODE:
                pa = pair_start[c] + (nn[c, 0] if a == 1 else 0)
                for i in range(na):
                    es = pair_edge_start[pa + i]
                    for j in range(pair_edge_count[pa + i]):
                        sl = ks + es + j
                        seat[sl], skind[sl], spair[sl] = a, 0, pa + i
                        sanswer[sl], svalue[sl], sfirst[sl] = -1, v, ks + es
                    if t_child_a[g] >= 0:
                        sl = ks + E + i
                        seat[sl], skind[sl], spair[sl] = a, 1, pa + i
                        sanswer[sl], svalue[sl] = -1, v
                        sfirst[sl] = ks + es if pair_edge_count[pa + i] > 0 else sl
            else:
                b = t_answerer[g]
                nb = nn[c, b]
                pb = pair_start[c] + (nn[c, 0] if b == 1 else 0)
                n_ans = 3 if t_child_b[g] >= 0 else 2
                for i in range(nb):
                    for j in range(n_ans):
                        sl = ks + i * n_ans + j
                        seat[sl], skind[sl], spair[sl] = b, 2, pb + i
                        sanswer[sl], svalue[sl], sfirst[sl] = j, v, ks + i * n_ans
    return 0


def slot_table(keys, tree, templates) -> SlotTable:
    """What each stored slot of a policy with ``keys`` (on ``tree`` and ``templates``)
    decides (:class:`SlotTable`)."""
    n = int(keys.n_slots)
    out = SlotTable(np.full(n, -1, dtype=np.int8), np.full(n, -1, dtype=np.int8),
                    np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int8),
                    np.zeros(n, dtype=np.int8), np.arange(n, dtype=np.int64))
    t, tm = tree, templates
    _describe(t.kind, t.actor, t.n, t.n_edges, t.pair_start, t.pair_edge_start,
              t.pair_edge_count, keys.start, keys.gid, keys.slot, n, tm.kind, tm.child_a,
              tm.child_b, tm.answerer, tm.value.astype(np.int64), out.seat, out.kind,
              out.pair, out.answer, out.value, out.first)
    return out


def choose(table: SlotTable, tree, seat: int, kinds=(CARD, RAISE, ANSWER),
           classes=None) -> np.ndarray:
    """The slots (a bool per stored slot) of ``seat``'s decisions of the ``kinds`` given,
    for the dealt hand ``classes`` given (None: every class). A pair's slots are chosen
    together whenever one of them is, so that a decision is locked whole: a T node's card
    edges and raise together."""
    wanted = np.zeros(3, dtype=bool)
    wanted[list(kinds)] = True
    chosen = (table.seat == seat) & wanted[np.maximum(table.kind, 0)] & (table.kind >= 0)
    if classes is not None:
        held = np.zeros(int(tree.pair_hand.max()) + 1, dtype=bool)
        held[list(classes)] = True
        chosen &= (table.pair >= 0) & held[tree.pair_hand[np.maximum(table.pair, 0)]]
    whole = np.zeros(len(chosen), dtype=bool)
    whole[table.first[chosen]] = True
    return chosen | whole[table.first]


def shift(q: np.ndarray, table: SlotTable, chosen: np.ndarray, target: np.ndarray,
          by: float) -> np.ndarray:
    """``q`` with ``by`` (a probability, -1 to 1) of each chosen decision's play moved onto
    its ``target`` slots (bool per stored slot: for instance its raise, or its answer
    "run") from its other slots, each side in proportion to what it holds (evenly where
    it holds nothing); a negative ``by`` moves play away from the target. Never more than
    the giving side holds. In stored bytes: each decision still sums to :data:`QUANT`, an
    all-zero (uniform) decision first made explicit. Other slots are left as they are.
    ``chosen`` holds whole decisions, as :func:`choose` gives them (and keeps them under
    any filter that is the same for every slot of a decision)."""
    return reshape(q, table, chosen, [target], [by])


def reshape(q: np.ndarray, table: SlotTable, chosen: np.ndarray, targets, by,
            to=None) -> np.ndarray:
    """``q`` with each chosen decision's play of move ``k`` (its ``targets[k]`` slots:
    bools per stored slot, the moves disjoint) moved by ``by[k]`` (a probability, -1 to
    1), clipped to [0, 1], or set to ``to[k]`` where ``to`` gives one (a probability; None
    in ``to``, or no ``to``: moved); the decision's slots of no named move give or take the rest,
    in proportion to what they hold, and where they cannot (none there, or the named moves
    past one) the named moves are scaled to sum to one. Within a move its slots share in
    proportion to what they hold (evenly where it holds nothing). A move a decision lacks
    is not played there; a decision with none of the moves is left as it is. One move
    named is :func:`shift`. In stored bytes, as :func:`shift` (``chosen`` holds whole
    decisions)."""
    out = np.array(q, dtype=np.uint8)
    slots = np.flatnonzero(chosen)
    move = np.full(len(slots), -1, dtype=np.int64)   # each slot's named move, -1: none
    for k, target in enumerate(targets):
        move[target[slots] & (move < 0)] = k
    reshape_into(out, table, slots, move, by, to)
    return out


def reshape_into(q: np.ndarray, table: SlotTable, slots: np.ndarray, move: np.ndarray, by,
                 to=None) -> None:
    """:func:`reshape` in place, on the stored ``slots`` (ascending, whole decisions),
    ``move`` naming each one's move (an index in ``by``; -1: none)."""
    to = [None] * len(by) if to is None else list(to)
    if not len(slots) or not any(by) and all(t is None for t in to):
        return
    _reshape(q, table.first, slots, move, np.asarray(by, dtype=np.float64),
             np.array([np.nan if t is None else t for t in to], dtype=np.float64))


@njit(cache=True)
def _reshape(q, first, slots, move, by, to):
    """The work of :func:`reshape_into`: ``move`` per slot of ``slots`` (-1: none named),
    ``by`` and ``to`` (NaN: moved, not set) per move."""
    m, K = len(slots), len(by)
    number = np.empty(m, dtype=np.int64)             # numbers the decisions, in order
    g = np.empty(m, dtype=np.int64)                  # each slot's decision
    n = 0
    for i in range(m):
        f = first[slots[i]]
        if f == slots[i]:
            number[i] = n
            n += 1
            g[i] = number[i]
        else:                                        # its first slot, before it
            step, hi = 1, i
            while hi - step >= 0 and slots[hi - step] > f:
                hi -= step
                step *= 2
            g[i] = number[np.searchsorted(slots[max(hi - step, 0):hi], f) + max(hi - step, 0)]
    width = np.zeros(n, dtype=np.int64)
    total = np.zeros(n)
    for i in range(m):
        width[g[i]] += 1
        total[g[i]] += q[slots[i]]
    start = np.zeros(n + 1, dtype=np.int64)          # each decision's slots, in order
    for d in range(n):
        start[d + 1] = start[d] + width[d]
    at = start[:-1].copy()
    members = np.empty(m, dtype=np.int64)
    for i in range(m):
        members[at[g[i]]] = i
        at[g[i]] += 1
    p = np.empty(m)
    rem = np.empty(m)                                # each slot's remainder in bytes
    n_hit = np.zeros(K + 1)                          # the last: the slots of no named move
    held = np.zeros(K + 1)
    new = np.zeros(K)                                # each move's new probability
    for d in range(n):
        n_hit[:] = 0.0
        held[:] = 0.0
        for r in range(start[d], start[d + 1]):
            i = members[r]
            p[i] = q[slots[i]] / total[d] if total[d] > 0 else 1.0 / max(width[d], 1)
            k = move[i] if move[i] >= 0 else K
            n_hit[k] += 1.0
            held[k] += p[i]
        held_named, named = 0.0, 0.0
        for k in range(K):
            held_named += held[k]
            new[k] = 0.0
            if n_hit[k] > 0:
                new[k] = min(max(held[k] + by[k], 0.0), 1.0) if np.isnan(to[k]) else to[k]
            named += new[k]
        held[K] = 1.0 - held_named                   # the rest holds what the named do not
        n_rest = n_hit[K]
        if n_rest < width[d] and (named > 0 or n_rest > 0):     # else unchanged
            fits = n_rest > 0 and named <= 1.0       # the rest takes up the difference
            for r in range(start[d], start[d + 1]):
                i = members[r]
                k = move[i] if move[i] >= 0 else K
                share = p[i] / held[k] if held[k] > 0 else 1.0 / max(n_hit[k], 1.0)
                if k == K:
                    p[i] = share * (1.0 - named if fits else 0.0)
                else:
                    p[i] = share * new[k] * (1.0 if fits or named <= 0 else 1.0 / named)
        _write_bytes(q, slots, members[start[d]:start[d + 1]], p, rem)
    return 0


@njit(cache=True, inline="always")
def _write_bytes(q, slots, members, p, rem):
    """Probabilities ``p`` of one decision's ``members`` (indices in ``slots``, in order;
    summing to one) as stored bytes summing to :data:`QUANT`: floored, then one more to
    each of the largest remainders (the earlier slot first among equal ones); ``rem``
    holds the remainders."""
    short = QUANT
    for i in members:
        b = np.floor(p[i] * QUANT)
        rem[i] = p[i] * QUANT - b
        q[slots[i]] = min(max(b, 0.0), QUANT)
        short -= int(b)
    for _ in range(short):
        best = -1
        for i in members:
            if rem[i] >= 0 and (best < 0 or rem[i] > rem[best]):
                best = i
        if best < 0:
            break
        rem[best] = -1.0                             # given its one more
        q[slots[best]] = min(q[slots[best]] + 1, QUANT)
    return 0


class LockedSolver(FullSolver):
    """A :class:`~lab.solver.fullgame.solver.FullSolver` whose locked slots hold a fixed
    strategy (the module docstring): :meth:`lock` says which.

    It keeps its regrets and sums in float32 whatever ``config.storage`` says: in 16 bits
    the free seat's answer to a locked opponent stalls (on the reduced deck (3, 3, 1),
    against a uniform pé, 0.026 points per hand short of the best response after 300 to
    1,000 iterations, against 0.001 in float32)."""

    def __init__(self, config, threads: int = 1, schedule="dcfr"):
        super().__init__(replace(config, storage="float32"), threads, schedule)
        self.locked = np.zeros(0, dtype=np.int64)       # solver slots
        self.locked_bytes = np.zeros(0, dtype=np.uint8)  # their strategy, stored bytes

    def lock(self, keys, chosen: np.ndarray, q: np.ndarray) -> "LockedSolver":
        """Hold the strategy ``q`` (a stored policy's bytes on ``keys``) at the stored
        slots ``chosen`` (bool per stored slot) of every public node."""
        if q.shape != (keys.n_slots,) or chosen.shape != (keys.n_slots,):
            raise ValueError(f"a lock needs one byte and one choice per stored slot "
                             f"({keys.n_slots:,})")
        mask = expand(keys, self.tree, self.layout, self.templates, chosen.astype(np.uint8))
        full = expand(keys, self.tree, self.layout, self.templates, q)
        self.locked = np.flatnonzero(mask).astype(np.int64)
        self.locked_bytes = full[self.locked]
        del mask, full
        if self.state != BUILT:
            self.hold()
        return self

    def start_from(self, keys, q: np.ndarray, weight: float = 1.0,
                   at: int = 20) -> "LockedSolver":
        """Start at the stored strategy ``q`` (on ``keys``), held with ``weight``: regrets
        and strategy sums its probabilities times ``weight`` times the mean size of one
        walk's regrets and of one walk's sums here, each in its own units (one CFR
        iteration is run first to measure them, then forgotten), as if ``at`` iterations
        had been run, so that the next ones are discounted as late iterations and the start
        is not wiped out by the first. The re-solve moves away from ``q`` only where the
        locks make it pay, the less the larger ``weight`` (``benchmarks/exploit.md``). Not
        from a solve's regrets: a stored strategy has none."""
        if self.state == BUILT:
            raise ValueError("start_from() needs an allocated solver")
        if self.schedule.predictive:
            raise ValueError("start_from() needs a schedule that is not predictive")
        self.iterate(1)
        full = expand(keys, self.tree, self.layout, self.templates, q)
        for held in (self.reg32, self.cum32):
            moved = held[held != 0]
            scale = float(np.abs(moved).mean()) if len(moved) else 1.0
            held[:] = full
            held *= np.float32(weight * scale / QUANT)
        # the sums now hold the start whole: no discount left over from the measuring
        # iteration (it set the scale of every node it left out to zero)
        self.cscale[:] = 1.0
        self.iterations = int(at)
        self.rstamp[:] = int(at)
        self.cstamp[:] = int(at)
        self.hold()
        return self

    def allocate(self, limit_bytes: Optional[int] = None, out=None) -> "LockedSolver":
        super().allocate(limit_bytes, out)
        self.hold()
        return self

    def hold(self) -> None:
        """Write the locked strategy into the regrets, predicted regrets and sums."""
        if not len(self.locked):
            return
        idx, b = self.locked, self.locked_bytes
        for arr in [self.reg32, self.cum32] + ([self.pred32]
                                               if self.pred32 is not self.reg32 else []):
            arr[idx] = b

    def traverse(self, u: int, mode: int, *args, **kwargs) -> np.ndarray:
        values = super().traverse(u, mode, *args, **kwargs)
        if mode == CFR:
            self.hold()
        return values
