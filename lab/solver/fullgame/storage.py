"""Moving a full-game solve between its two storages (:mod:`lab.solver.fullgame.kernels`).

A float32 solve keeps one regret and one strategy-sum entry per slot (the sums times a
scale per public node); a 16-bit solve keeps int16 regrets and uint16 sums with one
float32 scale per public node for each, the node's largest magnitude mapped to the top of
the range, as the walks write them (:func:`~lab.solver.fullgame.updates.write16`).
Converting needs the slots of each public node: :func:`public_slots` enumerates the
public nodes as the walks do (:func:`~lab.solver.fullgame.betting.prepare_node`), card
node by card node, each card node entered by its parent's T nodes in order.

Used where a 16-bit solve is enough but its start is a float32 one: a score-aware re-solve
(match-win payoffs, target 0.002) started from a float32 points solve at 0.001 points per
hand takes 2.2 GB of memory instead of 4.3.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .records import END, I16, LAST, T_NODE, U16


@njit(cache=True)
def public_slots(T, n_public, n_slots):
    """``first[p]``: the first regret slot of public node ``p`` in the layout of the card
    tree and templates ``T`` (:data:`~lab.solver.fullgame.records.Tree`); ``first[n_public]``
    is ``n_slots``. Node ``p`` holds the slots ``first[p]`` to ``first[p + 1] - 1`` (none at a
    forced card move), all sharing its scales."""
    N = T.kind.shape[0]
    first = np.empty(n_public + 1, np.int64)
    first[n_public] = n_slots
    # the betting state of each entering history: the root's one, then each decision
    # node's T nodes in order, the entering histories of every one of its children
    states = np.empty(n_public + 1, np.int64)
    states[0] = 0   # state_id(value 0, no raiser)
    used = 1
    enter_start = np.zeros(N, np.int64)
    enter_count = np.zeros(N, np.int64)
    enter_count[0] = 1
    for c in range(N):   # breadth first: every parent before its children
        if T.kind[c] == END:
            continue
        a = T.actor[c]
        na = T.nn[c, a]
        E = T.n_edges[c]
        choice = E > na
        slot = T.slot_base[c]
        node = T.node_base[c]
        exits = used
        for h in range(enter_count[c]):
            s = states[enter_start[c] + h]
            st = T.t_start[a, s]
            for g in range(T.t_size[a, s]):
                gid = st + g
                first[node] = slot
                node += 1
                if T.t_kind[gid] == T_NODE:
                    if T.kind[c] != LAST:
                        states[used] = T.t_exit[gid]
                        used += 1
                    if T.t_child_a[gid] >= 0:
                        slot += E + na
                    elif choice:
                        slot += E
                else:
                    nb = T.nn[c, T.t_answerer[gid]]
                    slot += (3 if T.t_child_b[gid] >= 0 else 2) * nb
        for ch in range(T.child_start[c], T.child_start[c] + T.child_count[c]):
            enter_start[ch] = exits
            enter_count[ch] = used - exits
    return first


@njit(cache=True)
def to_16bit(first, wide, node_scale, top, narrow, scale):
    """``narrow[slot] * scale[p] = wide[slot] * node_scale[p]`` for every slot of every
    public node ``p`` (``first``: :func:`public_slots`), rounded to the nearest step of a
    scale that maps the node's largest magnitude to ``top`` (as the walks write them);
    ``node_scale`` of length 1 is no scale (regrets)."""
    for p in range(first.shape[0] - 1):
        f = np.float64(node_scale[p]) if node_scale.shape[0] > 1 else 1.0
        mx = 0.0
        for sl in range(first[p], first[p + 1]):
            mx = max(mx, abs(wide[sl] * f))
        sc = mx / top if mx > 0.0 else 1.0
        scale[p] = sc
        for sl in range(first[p], first[p + 1]):
            narrow[sl] = np.rint(wide[sl] * f / sc)
    return 0


@njit(cache=True)
def to_float32(first, narrow, scale, wide):
    """``wide[slot] = narrow[slot] * scale[p]`` for every slot of every public node ``p``."""
    for p in range(first.shape[0] - 1):
        sc = np.float64(scale[p])
        for sl in range(first[p], first[p + 1]):
            wide[sl] = narrow[sl] * sc
    return 0


def copy_storage(source, target) -> None:
    """Fill the allocated solver ``target`` with the regrets and strategy sums of
    ``source`` (the same game, either storage), with the stamps saying which iteration
    each public node holds; the iteration count, history and start are the caller's."""
    first = public_slots(source.shape, source.layout.n_public, source.layout.n_slots)
    wide_from = source.config.storage == "float32"
    wide_to = target.config.storage == "float32"
    pairs = [("reg", "rscale", I16), ("cum", "cscale", U16)]
    if source.schedule.predictive:
        pairs.append(("pred", "pscale", I16))
    for name, scale, top in pairs:
        src16, src32 = getattr(source, name + "16"), getattr(source, name + "32")
        dst16, dst32 = getattr(target, name + "16"), getattr(target, name + "32")
        src_scale, dst_scale = getattr(source, scale), getattr(target, scale)
        if wide_from == wide_to:
            (dst32 if wide_to else dst16)[...] = src32 if wide_from else src16
            if dst_scale.shape == src_scale.shape:
                dst_scale[...] = src_scale
        elif wide_from:   # float32 regrets have no scale; float32 sums have one per node
            to_16bit(first, src32, src_scale if name == "cum" else np.ones(1, np.float32),
                     top, dst16, dst_scale)
        else:
            to_float32(first, src16, src_scale, dst32)
            if name == "cum":
                dst_scale[...] = 1.0
    target.rstamp[...] = source.rstamp
    target.cstamp[...] = source.cstamp
