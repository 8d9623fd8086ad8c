"""A compact, complete policy of the full hand game: the solver's average strategy,
pruned and quantised, in the solver's own slot layout.

What is stored
    One unsigned byte per regret slot of :mod:`lab.solver.full` (one slot per public
    node, private state of its actor, and action). The slots of one (public node,
    private state) pair hold that state's strategy as integers summing to
    :data:`QUANT` (probability = value / QUANT). A pair whose bytes are all zero is
    *not stored*: its own seat never gets there (its own reach is zero under the stored
    policy), so its strategy cannot change any result.

How it is made (:func:`compact_policy`)
    1. the average strategy of each pair, normalised (a pair the solver never reached
       plays uniformly, as the kernels read it);
    2. probabilities below ``threshold`` set to zero and the rest renormalised (the most
       likely action always stays);
    3. quantised to multiples of ``1 / QUANT`` (largest remainders, so each pair sums
       exactly to ``QUANT``);
    4. pruned: each seat's own reach is computed under this quantised strategy, and every
       pair with own reach zero is zeroed. An action of the seat's own that leads only to
       pruned pairs therefore has probability zero: the policy never walks into a state it
       does not hold.

The strategy so stored is a complete strategy of the full game for both seats, so its
exploitability is measured exactly by the solver's best-response traversal
(:func:`policy_solver`), in points per hand.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import full_kernels as K

QUANT = 255
"""Probabilities are stored in steps of 1/255 (one byte per action)."""

T_NODE, Q_NODE = 0, 1
END, LAST = 2, 1


# ------------------------------------------------------------------ entering histories

@njit(cache=True)
def _fill_entering(n_enter, enter_start, flat, kind, actor, child_start, child_count,
                   t_start, t_size, t_kind, t_exit):
    """``flat[enter_start[c]:...]``: the betting states entering card node ``c``, in the
    order the kernels number its histories (the T nodes of the parent, in order)."""
    flat[0] = 0  # the root: value index 0, no raiser
    out = np.empty(flat.shape[0] + 1, dtype=np.int64)
    for c in range(kind.shape[0]):
        if kind[c] == END or kind[c] == LAST:
            continue
        a = actor[c]
        m = 0
        for h in range(n_enter[c]):
            s = flat[enter_start[c] + h]
            st = t_start[a, s]
            for g in range(t_size[a, s]):
                if t_kind[st + g] == T_NODE:
                    out[m] = t_exit[st + g]
                    m += 1
        for ch in range(child_start[c], child_start[c] + child_count[c]):
            if n_enter[ch] != m:
                return ch  # the layout disagrees: report the card node
            for x in range(m):
                flat[enter_start[ch] + x] = out[x]
    return -1


def entering_states(tree, layout, templates) -> tuple[np.ndarray, np.ndarray]:
    """``(enter_start, states)``: card node ``c``'s entering betting states are
    ``states[enter_start[c]:enter_start[c + 1]]`` (kernel order)."""
    n_enter = np.ascontiguousarray(layout.n_enter, dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(n_enter)]).astype(np.int64)
    flat = np.zeros(int(start[-1]), dtype=np.int64)
    bad = _fill_entering(n_enter, start, flat, tree.kind, tree.actor, tree.child_start,
                         tree.child_count, templates.start, templates.size, templates.kind,
                         templates.exit_state)
    if bad >= 0:
        raise RuntimeError(f"card node {bad}: entering histories disagree with the layout")
    return start, flat


# ------------------------------------------------------------------ normalise, prune, quantise

@njit(cache=True, inline="always")
def _quantise_group(x, m, threshold, quant, out):
    """``out[:m]``: the probabilities ``x[:m]`` (unnormalised, >= 0) thresholded and
    quantised to integers summing to ``quant``."""
    tot = 0.0
    best = 0
    for q in range(m):
        tot += x[q]
        if x[q] > x[best]:
            best = q
    if tot <= 0.0:
        for q in range(m):
            x[q] = 1.0
        tot = float(m)
    kept = 0.0
    for q in range(m):
        p = x[q] / tot
        if p < threshold and q != best:
            x[q] = 0.0
        else:
            x[q] = p
            kept += p
    given = 0
    for q in range(m):
        x[q] = x[q] / kept * quant
        out[q] = int(np.floor(x[q]))
        given += out[q]
        x[q] -= out[q]
    while given < quant:  # largest remainders first
        j = 0
        for q in range(m):
            if x[q] > x[j]:
                j = q
        out[j] += 1
        x[j] = -1.0
        given += 1
    return 0


@njit(cache=True)
def _quantise(cum, threshold, quant, q_out, kind, actor, nn, n_edges, pair_start,
              pair_edge_start, pair_edge_count, slot_base, enter_start, enter_flat,
              t_start, t_size, t_kind, t_child_a, t_child_b, t_answerer):
    """Quantise the average strategy ``cum`` (any numeric slot array) into ``q_out``."""
    x = np.empty(64)
    o = np.empty(64, dtype=np.int64)
    for c in range(kind.shape[0]):
        if kind[c] == END:
            continue
        a = actor[c]
        na = nn[c, a]
        pa = pair_start[c] + (nn[c, 0] if a == 1 else 0)
        E = n_edges[c]
        choice = E > na
        slot = slot_base[c]
        for h in range(enter_start[c], enter_start[c + 1]):
            s = enter_flat[h]
            st = t_start[a, s]
            for g in range(t_size[a, s]):
                gid = st + g
                if t_kind[gid] == T_NODE:
                    can_raise = t_child_a[gid] >= 0
                    if not (can_raise or choice):
                        continue
                    for i in range(na):
                        es = pair_edge_start[pa + i]
                        ec = pair_edge_count[pa + i]
                        m = ec + (1 if can_raise else 0)
                        for j in range(ec):
                            x[j] = cum[slot + es + j]
                        if can_raise:
                            x[ec] = cum[slot + E + i]
                        _quantise_group(x, m, threshold, quant, o)
                        for j in range(ec):
                            q_out[slot + es + j] = o[j]
                        if can_raise:
                            q_out[slot + E + i] = o[ec]
                    slot += E + na if can_raise else E
                else:
                    nb = nn[c, t_answerer[gid]]
                    n_ans = 3 if t_child_b[gid] >= 0 else 2
                    for i in range(nb):
                        for j in range(n_ans):
                            x[j] = cum[slot + i * n_ans + j]
                        _quantise_group(x, n_ans, threshold, quant, o)
                        for j in range(n_ans):
                            q_out[slot + i * n_ans + j] = o[j]
                    slot += n_ans * nb
    return 0


@njit(cache=True)
def _prune(reached, q, kind, actor, nn, n_edges, pair_start, pair_edge_start,
           pair_edge_count, slot_base, enter_start, enter_flat, t_start, t_size, t_kind,
           t_child_a, t_child_b, t_answerer):
    """Zero every pair of ``q`` none of whose slots is ``reached`` (own reach zero).
    Returns the number of pairs kept."""
    kept = 0
    for c in range(kind.shape[0]):
        if kind[c] == END:
            continue
        a = actor[c]
        na = nn[c, a]
        pa = pair_start[c] + (nn[c, 0] if a == 1 else 0)
        E = n_edges[c]
        choice = E > na
        slot = slot_base[c]
        for h in range(enter_start[c], enter_start[c + 1]):
            s = enter_flat[h]
            st = t_start[a, s]
            for g in range(t_size[a, s]):
                gid = st + g
                if t_kind[gid] == T_NODE:
                    can_raise = t_child_a[gid] >= 0
                    if not (can_raise or choice):
                        continue
                    for i in range(na):
                        es = pair_edge_start[pa + i]
                        ec = pair_edge_count[pa + i]
                        hit = can_raise and reached[slot + E + i] > 0.0
                        for j in range(ec):
                            if reached[slot + es + j] > 0.0:
                                hit = True
                        if hit:
                            kept += 1
                        else:
                            for j in range(ec):
                                q[slot + es + j] = 0
                            if can_raise:
                                q[slot + E + i] = 0
                    slot += E + na if can_raise else E
                else:
                    nb = nn[c, t_answerer[gid]]
                    n_ans = 3 if t_child_b[gid] >= 0 else 2
                    for i in range(nb):
                        hit = False
                        for j in range(n_ans):
                            if reached[slot + i * n_ans + j] > 0.0:
                                hit = True
                        if hit:
                            kept += 1
                        else:
                            for j in range(n_ans):
                                q[slot + i * n_ans + j] = 0
                    slot += n_ans * nb
    return kept


# ------------------------------------------------------------------ from a solver to a policy

def quantised_average(solver, threshold: float) -> np.ndarray:
    """The solver's average strategy, thresholded and quantised (no pruning yet): one
    byte per slot, each pair summing to :data:`QUANT`."""
    t, L, tm = solver.tree, solver.layout, solver.templates
    start, flat = entering_states(t, L, tm)
    cum = solver.cum32 if solver.config.storage == "float32" else solver.cum16
    q = np.zeros(L.n_slots, dtype=np.uint8)
    _quantise(cum, float(threshold), QUANT, q, t.kind, t.actor, t.n, t.n_edges, t.pair_start,
              t.pair_edge_start, t.pair_edge_count, L.slot_base, start, flat, tm.start,
              tm.size, tm.kind, tm.child_a, tm.child_b, tm.answerer)
    return q


def prune_unreached(config, q: np.ndarray, threads: int = 1) -> int:
    """Zero, in place, every pair of ``q`` whose own seat never reaches it under ``q``
    itself; returns the number of pairs kept.

    Own reach comes from the kernels: one Discounted CFR traversal per seat whose regrets
    are ``q`` (regret matching then plays ``q``) and whose strategy sums start at zero with
    no discount, so that each slot's new sum is its seat's own reach times its
    probability (float32: a reach of 1/255 to the twelfth power is far above its smallest
    number)."""
    from .full import FullSolver

    wide = FullSolver(_wide(config), threads=threads).allocate()
    t, L, tm = wide.tree, wide.layout, wide.templates
    for u in (0, 1):
        wide.reg32[:] = q
        wide.traverse(u, K.CFR, 1.0, 1.0, 0.0)
    start, flat = entering_states(t, L, tm)
    return int(_prune(wide.cum32, q, t.kind, t.actor, t.n, t.n_edges, t.pair_start,
                      t.pair_edge_start, t.pair_edge_count, L.slot_base, start, flat,
                      tm.start, tm.size, tm.kind, tm.child_a, tm.child_b, tm.answerer))


def _wide(config):
    from dataclasses import replace

    return replace(config, storage="float32")


def compact_policy(solver, threshold: float = 0.01, threads: int = 1) -> tuple[np.ndarray, int]:
    """``(q, pairs kept)``: the stored form of ``solver``'s average strategy (see the
    module docstring): thresholded at ``threshold`` (probability), quantised, pruned."""
    q = quantised_average(solver, threshold)
    kept = prune_unreached(solver.config, q, threads)
    return q, kept


def encode(q: np.ndarray) -> bytes:
    """The bytes of a stored policy, compressed (zstd)."""
    import pyarrow as pa

    return pa.compress(np.ascontiguousarray(q, dtype=np.uint8).tobytes(), codec="zstd",
                       asbytes=True, memory_pool=None)


def decode(blob: bytes, n_slots: int) -> np.ndarray:
    """Inverse of :func:`encode` (``n_slots`` bytes)."""
    import pyarrow as pa

    raw = pa.decompress(blob, decompressed_size=int(n_slots), codec="zstd", asbytes=False)
    return np.frombuffer(raw, dtype=np.uint8)
