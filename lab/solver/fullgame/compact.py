"""A compact, complete policy of the full hand game: the solver's average strategy, merged
over betting histories, thresholded, quantised and pruned.

Keys
    The solver keeps a strategy per *public node*: a card node (the cards played so far)
    and one betting history entering it, times a node of that turn's betting template.
    The stored policy keeps one per **key**: with ``merge=True`` (the default) a key is a
    card node and a *betting state* -- a T node's accepted value and last raiser, a Q
    node's accepted value and raiser -- so every betting history that reaches the same
    cards and the same state shares one strategy (about 11 times fewer entries in the
    real game); with ``merge=False`` a key is a public node (no merging, for tests and
    comparisons). A key has the slot layout of its public nodes (one slot per private
    state of the actor and action). Merged keys also share, in round 3, one strategy
    among the deciding seat's private states that hold the same last card (they differ
    only in the cards they played, which are public, or covered: what tells them apart
    is card removal), and a file stores each such strategy once.

What is stored
    One unsigned byte per key slot. The slots of one (key, private state) pair hold that
    state's strategy as integers summing to :data:`QUANT` (probability = value / QUANT).
    A pair whose bytes are all zero is *not stored*: its own seat never gets there (its
    own reach is zero under the stored policy in every history of the key), so its
    strategy cannot change any result.

How it is made (:func:`compact_policy`)
    1. the average strategy sums of all public nodes of a key added up (each sum already
       carries its own seat's reach, so this is the own-reach-weighted average), and
       normalised per pair (a pair the solver never reached plays uniformly, as the
       kernels read it);
    2. probabilities below ``threshold`` set to zero and the rest renormalised (the most
       likely action always stays);
    3. quantised to multiples of ``1 / QUANT`` (largest remainders: each pair sums
       exactly to ``QUANT``);
    4. pruned: each seat's own reach is computed under this quantised strategy (one
       kernel traversal per seat), and every pair with own reach zero in all the key's
       histories is zeroed. An action of the seat's own that leads only to pruned pairs
       therefore has probability zero: the policy never walks into a state it does not
       hold.

:func:`expand` writes a stored policy back into the solver's slot layout; the solver's
best-response traversal on it measures the stored policy's exploitability exactly
(:meth:`lab.solver.fullgame.solver.FullSolver.use_policy`), in points per hand.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
from numba import njit

from .records import CFR, END, T_NODE
from .pair_coder import MAGIC as MODEL_MAGIC, model_decode, model_encode
from .tree import entering_states
from ...errors import InputError

QUANT = 255
"""Probabilities are stored in steps of 1/255 (one byte per action)."""

MERGED_CODES = 64
"""Key codes of merged keys: T nodes ``4 * value + last raiser + 1``, Q nodes ``32 + 4 *
value + raiser``."""


# ------------------------------------------------------------------ keys

@njit(cache=True, inline="always")
def _code(merge, gid, k, t_kind, t_value, t_exit, t_raiser):
    """The key code of template node ``gid`` (the ``k``-th public node of its card node)."""
    if not merge:
        return k
    if t_kind[gid] == T_NODE:
        return 4 * t_value[gid] + t_exit[gid] % 3
    return 32 + 4 * t_value[gid] + t_raiser[gid]


@njit(cache=True, inline="always")
def _slots(gid, a, na, nb0, nb1, E, t_kind, t_child_a, t_child_b, t_answerer):
    """Slots of template node ``gid`` at a card node (actor ``a``, ``na`` of his states,
    ``nb0``/``nb1`` states of the mão/pé, ``E`` card edges)."""
    if t_kind[gid] == T_NODE:
        if t_child_a[gid] >= 0:
            return E + na
        return E if E > na else 0
    nb = nb0 if t_answerer[gid] == 0 else nb1
    return (3 if t_child_b[gid] >= 0 else 2) * nb


@njit(cache=True)
def _count_keys(merge, kind, actor, nn, enter_start, enter_flat, t_start, t_size, t_kind,
                t_value, t_exit, t_raiser, n_keys):
    """``n_keys[c]``: the keys of card node ``c``."""
    seen = np.full(MERGED_CODES, -1, dtype=np.int64)
    for c in range(kind.shape[0]):
        if kind[c] == END:
            continue
        a = actor[c]
        k = 0
        m = 0
        for h in range(enter_start[c], enter_start[c + 1]):
            s = enter_flat[h]
            for g in range(t_size[a, s]):
                code = _code(merge, t_start[a, s] + g, k, t_kind, t_value, t_exit, t_raiser)
                k += 1
                if not merge:
                    m += 1
                elif seen[code] != c:
                    seen[code] = c
                    m += 1
        n_keys[c] = m
    return 0


@njit(cache=True)
def _fill_keys(merge, kind, actor, nn, n_edges, enter_start, enter_flat, t_start, t_size,
               t_kind, t_value, t_exit, t_raiser, t_child_a, t_child_b, t_answerer,
               key_start, key_code, key_gid, key_slot):
    """Each card node's keys (merged: in code order) with a template node of theirs and
    their first slot in the stored array. Returns the number of stored slots."""
    gid_of = np.full(MERGED_CODES, -1, dtype=np.int64)
    seen = np.full(MERGED_CODES, -1, dtype=np.int64)
    slot = 0
    for c in range(kind.shape[0]):
        if kind[c] == END:
            continue
        a = actor[c]
        na = nn[c, a]
        E = n_edges[c]
        x = key_start[c]
        k = 0
        for h in range(enter_start[c], enter_start[c + 1]):
            s = enter_flat[h]
            for g in range(t_size[a, s]):
                gid = t_start[a, s] + g
                code = _code(merge, gid, k, t_kind, t_value, t_exit, t_raiser)
                k += 1
                if not merge:
                    key_code[x] = code
                    key_gid[x] = gid
                    x += 1
                elif seen[code] != c:
                    seen[code] = c
                    gid_of[code] = gid
        if merge:
            for code in range(MERGED_CODES):
                if seen[code] == c:
                    key_code[x] = code
                    key_gid[x] = gid_of[code]
                    x += 1
        for y in range(key_start[c], key_start[c + 1]):
            key_slot[y] = slot
            slot += _slots(key_gid[y], a, na, nn[c, 0], nn[c, 1], E, t_kind, t_child_a,
                           t_child_b, t_answerer)
    return slot


@dataclass(frozen=True, eq=False)
class Keys:
    """The keys of a stored policy: card node ``c``'s are ``start[c]:start[c + 1]``, each
    with its ``code``, a template node ``gid`` of its kind and its first ``slot``;
    ``n_slots`` stored slots in all; ``merge`` says which keys (module docstring), and
    card nodes from ``group_depth`` on share one strategy per held level."""

    merge: bool
    group_depth: int
    start: np.ndarray
    code: np.ndarray
    gid: np.ndarray
    slot: np.ndarray
    n_slots: int
    enter_start: np.ndarray
    enter_states: np.ndarray

    def find(self, c: int, code: int) -> int:
        """Index of card node ``c``'s key with ``code``."""
        lo, hi = int(self.start[c]), int(self.start[c + 1])
        if self.merge:
            j = lo + int(np.searchsorted(self.code[lo:hi], code))
        else:
            j = lo + int(code)
        if j >= hi or self.code[j] != code:
            raise KeyError((c, code))
        return j


def build_keys(tree, layout, templates, merge: bool = True) -> Keys:
    """The keys of the stored policies of a game (vira-independent)."""
    tm = templates
    enter_start, enter_states = entering_states(tree, layout, templates)
    n_keys = np.zeros(tree.n_nodes, dtype=np.int64)
    _count_keys(merge, tree.kind, tree.actor, tree.n, enter_start, enter_states, tm.start,
                tm.size, tm.kind, tm.value, tm.exit_state, tm.raiser.astype(np.int64), n_keys)
    start = np.concatenate([[0], np.cumsum(n_keys)]).astype(np.int64)
    total = int(start[-1])
    code = np.zeros(total, dtype=np.int64)
    gid = np.zeros(total, dtype=np.int64)
    slot = np.zeros(total, dtype=np.int64)
    n_slots = _fill_keys(merge, tree.kind, tree.actor, tree.n, tree.n_edges, enter_start,
                         enter_states, tm.start, tm.size, tm.kind, tm.value, tm.exit_state,
                         tm.raiser.astype(np.int64), tm.child_a, tm.child_b, tm.answerer,
                         start, code, gid, slot)
    return Keys(bool(merge), ROUND3_DEPTH if merge else NO_GROUPS, start, code, gid, slot,
                int(n_slots), enter_start, enter_states)


# ------------------------------------------------------------------ walking every public node

@njit(cache=True)
def _public_walk(job, merge, src, src_scale, dst, quant, threshold, kind, actor, nn, n_edges,
                 pair_start, pair_edge_start, pair_edge_count, slot_base, node_base,
                 enter_start, enter_flat, t_start, t_size, t_kind, t_value, t_exit, t_raiser,
                 t_child_a, t_child_b, t_answerer, key_start, key_code, key_slot, only):
    """One pass over every public node (of the card nodes marked in ``only``, when it is
    not empty), with its key's first stored slot ``ks``:

    ``job`` 0 (aggregate): ``dst[ks + j] += src[slot + j] * src_scale[node]`` (float sums);
    ``job`` 1 (expand): ``dst[slot + j] = src[ks + j]`` (stored bytes to the solver layout);
    ``job`` 2 (mark): ``dst[ks + pair slots] = 1`` for each actor pair with a slot
    ``src[slot + j] > 0`` (own reach above zero somewhere).
    """
    where = np.full(MERGED_CODES, -1, dtype=np.int64)
    for c in range(kind.shape[0]):
        if kind[c] == END or (only.shape[0] > 0 and not only[c]):
            continue
        a = actor[c]
        na = nn[c, a]
        pa = pair_start[c] + (nn[c, 0] if a == 1 else 0)
        E = n_edges[c]
        if merge:
            for y in range(key_start[c], key_start[c + 1]):
                where[key_code[y]] = key_slot[y]
        slot = slot_base[c]
        node = node_base[c]
        k = 0
        for h in range(enter_start[c], enter_start[c + 1]):
            s = enter_flat[h]
            for g in range(t_size[a, s]):
                gid = t_start[a, s] + g
                if merge:
                    ks = where[_code(merge, gid, k, t_kind, t_value, t_exit, t_raiser)]
                else:
                    ks = key_slot[key_start[c] + k]
                m = _slots(gid, a, na, nn[c, 0], nn[c, 1], E, t_kind, t_child_a, t_child_b,
                           t_answerer)
                if job == 0:
                    sc = src_scale[node] if src_scale.shape[0] > 1 else 1.0
                    for j in range(m):
                        dst[ks + j] += src[slot + j] * sc
                elif job == 1:
                    for j in range(m):
                        dst[slot + j] = src[ks + j]
                elif m > 0:
                    if t_kind[gid] == T_NODE:
                        can_raise = t_child_a[gid] >= 0
                        for i in range(na):
                            es = pair_edge_start[pa + i]
                            ec = pair_edge_count[pa + i]
                            hit = can_raise and src[slot + E + i] > 0.0
                            for j in range(ec):
                                if src[slot + es + j] > 0.0:
                                    hit = True
                            if hit:
                                for j in range(ec):
                                    dst[ks + es + j] = 1
                                if can_raise:
                                    dst[ks + E + i] = 1
                    else:
                        nb = nn[c, t_answerer[gid]]
                        n_ans = 3 if t_child_b[gid] >= 0 else 2
                        for i in range(nb):
                            hit = False
                            for j in range(n_ans):
                                if src[slot + i * n_ans + j] > 0.0:
                                    hit = True
                            if hit:
                                for j in range(n_ans):
                                    dst[ks + i * n_ans + j] = 1
                slot += m
                node += 1
                k += 1
    return 0


# ------------------------------------------------------------------ round 3: hands by their last card

ROUND3_DEPTH = 4
"""Card nodes at this depth and below are round 3 (four cards played)."""
NO_GROUPS = 1 << 30


@njit(cache=True)
def _round3_groups(job, arr, group_depth, depth, kind, actor, nn, n_edges, pair_start,
                   pair_level, pair_edge_start, t_kind, t_child_a, t_child_b, t_answerer,
                   key_start, key_gid, key_slot):
    """In round 3 the deciding seat's private states are grouped by the level of the card
    they hold (-1: none left); the group's first state represents it. For every key of a
    card node at ``group_depth`` or deeper, on the slots of each non-representative state:

    job 0: ``arr`` float sums: the representative gets the group's total, the others a copy;
    job 1: ``arr`` a mask: a group with one marked state is marked throughout;
    job 2: ``arr`` a mask: the other states' slots are cleared (what a file stores);
    job 3: ``arr`` bytes: the other states get the representative's bytes.
    """
    first = np.empty(14, dtype=np.int64)
    rep = np.empty(4096, dtype=np.int64)
    for c in range(kind.shape[0]):
        if kind[c] == END or depth[c] < group_depth:
            continue
        a = actor[c]
        na = nn[c, a]
        E = n_edges[c]
        for y in range(key_start[c], key_start[c + 1]):
            gid = key_gid[y]
            ks = key_slot[y]
            if t_kind[gid] == T_NODE:
                if not (t_child_a[gid] >= 0 or E > na):
                    continue
                b = a
                width = 0  # T: a state's slots are its card edge and its raise
            else:
                b = t_answerer[gid]
                width = 3 if t_child_b[gid] >= 0 else 2
            nb = nn[c, b]
            pb = pair_start[c] + (nn[c, 0] if b == 1 else 0)
            for x in range(14):
                first[x] = -1
            for i in range(nb):
                lv = pair_level[pb + i] + 1
                if first[lv] < 0:
                    first[lv] = i
                rep[i] = first[lv]
            for sweep in range(2):
                for i in range(nb):
                    r = rep[i]
                    if r == i:
                        continue
                    for j in range(2 if width == 0 else width):
                        if width == 0:
                            if j == 1 and t_child_a[gid] < 0:
                                continue
                            si = ks + (pair_edge_start[pb + i] if j == 0 else E + i)
                            sr = ks + (pair_edge_start[pb + r] if j == 0 else E + r)
                        else:
                            si = ks + i * width + j
                            sr = ks + r * width + j
                        if job == 0:
                            if sweep == 0:
                                arr[sr] += arr[si]
                            else:
                                arr[si] = arr[sr]
                        elif job == 1:
                            if sweep == 0:
                                if arr[si] > 0:
                                    arr[sr] = 1
                            else:
                                arr[si] = arr[sr]
                        elif job == 2:
                            arr[si] = 0
                        elif sweep == 1:
                            arr[si] = arr[sr]
    return 0


def _groups(job, keys: Keys, tree, templates, arr) -> None:
    if keys.group_depth >= NO_GROUPS:
        return
    t, tm = tree, templates
    _round3_groups(job, arr, keys.group_depth, t.depth.astype(np.int64), t.kind, t.actor,
                   t.n, t.n_edges, t.pair_start, t.pair_level, t.pair_edge_start, tm.kind,
                   tm.child_a, tm.child_b, tm.answerer, keys.start, keys.gid, keys.slot)


_STORED = weakref.WeakKeyDictionary()
"""keys -> their stored-slot mask, one bit a slot (every vira of a layout shares it)."""


def stored_slots(keys: Keys, tree, templates) -> np.ndarray:
    """Which key slots a file holds: all but those of round-3 states represented by
    another (the same strategy). Computed once per ``keys`` (the tree and templates they
    were built on), then unpacked from a copy kept at one bit a slot."""
    packed = _STORED.get(keys)
    if packed is not None:
        return np.unpackbits(packed, count=keys.n_slots).view(bool)
    mask = np.ones(keys.n_slots, dtype=np.uint8)
    _groups(2, keys, tree, templates, mask)
    _STORED[keys] = np.packbits(mask)
    return mask.view(bool)


# ------------------------------------------------------------------ normalise, threshold, quantise

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
    for q in range(m):
        x[q] = x[q] / kept * quant
    _largest_remainders(x, m, quant, out)
    return 0


@njit(cache=True, inline="always")
def _largest_remainders(x, m, total, out):
    """``out[:m]``: integers summing to ``total`` next to ``x[:m]`` (which sum to it): the
    floors, then one more each to the largest remainders (``x`` is overwritten)."""
    given = 0
    for q in range(m):
        out[q] = int(np.floor(x[q]))
        given += out[q]
        x[q] -= out[q]
    while given < total:
        j = 0
        for q in range(m):
            if x[q] > x[j]:
                j = q
        out[j] += 1
        x[j] = -1.0
        given += 1


QUANTISE, MASK, NEAR, COARSE, REBASE = 0, 1, 2, 3, 4
"""Jobs of :func:`_pair_pass`."""

STEPS = np.array([255, 85, 51, 17, 15, 5, 3], dtype=np.int64)
"""The divisors of :data:`QUANT` above 1, coarsest first: the steps a pair's strategy may
be rounded to by :func:`coarsen` (255: a pure strategy)."""


@njit(cache=True, inline="always")
def _coarse_pair(ix, m, sums, floor, quant, q_out, other, x, o):
    """Job COARSE on one held pair that is not ``other``'s: round its bytes to multiples
    of the coarsest of :data:`STEPS` whose move (half the L1 distance, in probability)
    times the pair's own reach (``sums``, one per slot) is at most ``floor``; returns 1
    when it was rounded. Rounding by largest remainders never gives a move a pair does
    not play, so no pair its own play did not reach becomes reached."""
    held = 0
    reach = 0.0
    same = True
    for j in range(m):
        held += q_out[ix[j]]
        reach += sums[ix[j]]
        if q_out[ix[j]] != other[ix[j]]:
            same = False
    if held == 0 or same:
        return 0
    for s in range(STEPS.shape[0]):
        k = STEPS[s]
        for j in range(m):
            x[j] = q_out[ix[j]] / k
        _largest_remainders(x, m, quant // k, o)
        moved = 0
        for j in range(m):
            o[j] *= k
            moved += abs(o[j] - np.int64(q_out[ix[j]]))
        if moved == 0:
            return 0
        if reach * moved <= 2.0 * quant * floor:
            for j in range(m):
                q_out[ix[j]] = o[j]
            return 1
    return 0


@njit(cache=True, inline="always")
def _pair_job(job, ix, m, sums, threshold, floor, quant, q_out, other, x, o):
    """One (key, private state) pair whose slots are ``ix[:m]``; returns 1 when the pair
    stays stored (job QUANTISE, MASK) or differs from ``other`` (job NEAR)."""
    if job == QUANTISE:
        for j in range(m):
            x[j] = sums[ix[j]]
        _quantise_group(x, m, threshold, quant, o)
        for j in range(m):
            q_out[ix[j]] = o[j]
        return 1
    if job == MASK:   # other: the own-reach mark, set on all of a reached pair's slots
        reached = False
        for j in range(m):
            if other[ix[j]] > 0:
                reached = True
        if not reached:
            for j in range(m):
                q_out[ix[j]] = 0
        return 1 if reached else 0
    if job == COARSE:
        return _coarse_pair(ix, m, sums, floor, quant, q_out, other, x, o)
    if job == REBASE:   # other: the old base; sums: the new one, bytes
        for j in range(m):
            if q_out[ix[j]] != other[ix[j]]:
                return 0
        for j in range(m):
            q_out[ix[j]] = sums[ix[j]]
        return 1
    # NEAR: other is a policy of the same keys; take its bytes where q_out holds nothing
    # (pruned) or differs by at most ``threshold`` (half the L1 distance, in steps), or,
    # with own reaches in ``sums`` (one per slot), where the pair's own reach times that
    # distance (in probability) is at most ``floor``; never where ``other`` holds nothing
    # and q_out holds the pair (its own play reaches it, however seldom)
    held = 0
    held_other = 0
    moved = 0
    reach = 0.0
    for j in range(m):
        held += q_out[ix[j]]
        held_other += other[ix[j]]
        moved += abs(np.int64(q_out[ix[j]]) - np.int64(other[ix[j]]))
        if sums.shape[0] > 1:
            reach += sums[ix[j]]
    if held > 0 and (held_other == 0 or moved > 2 * threshold and (
            sums.shape[0] == 1 or reach * moved > 2.0 * quant * floor)):
        return 1
    for j in range(m):
        q_out[ix[j]] = other[ix[j]]
    return 0


@njit(cache=True)
def _pair_pass(job, sums, threshold, floor, quant, q_out, other, kind, actor, nn, n_edges,
               pair_start, pair_edge_start, pair_edge_count, t_kind, t_child_a, t_child_b,
               t_answerer, key_start, key_gid, key_slot):
    """Every (key, private state) pair of a policy's keys, given to :func:`_pair_job`:
    QUANTISE ``q_out`` from ``sums``; MASK: zero the pairs ``other`` (a mask) does not
    reach; NEAR: take ``other``'s bytes where ``q_out``'s are near them; COARSE: round
    the pairs that are not ``other``'s by own reach; REBASE: give the pairs that are
    ``other``'s the bytes of ``sums``. Returns the pairs :func:`_pair_job` counts."""
    x = np.empty(64)
    o = np.empty(64, dtype=np.int64)
    ix = np.empty(64, dtype=np.int64)
    counted = 0
    for c in range(kind.shape[0]):
        if kind[c] == END:
            continue
        a = actor[c]
        na = nn[c, a]
        pa = pair_start[c] + (nn[c, 0] if a == 1 else 0)
        E = n_edges[c]
        choice = E > na
        for y in range(key_start[c], key_start[c + 1]):
            gid = key_gid[y]
            ks = key_slot[y]
            if t_kind[gid] == T_NODE:
                can_raise = t_child_a[gid] >= 0
                if not (can_raise or choice):
                    continue
                for i in range(na):
                    es = pair_edge_start[pa + i]
                    ec = pair_edge_count[pa + i]
                    for j in range(ec):
                        ix[j] = ks + es + j
                    m = ec
                    if can_raise:
                        ix[m] = ks + E + i
                        m += 1
                    counted += _pair_job(job, ix, m, sums, threshold, floor, quant, q_out,
                                         other, x, o)
            else:
                nb = nn[c, t_answerer[gid]]
                n_ans = 3 if t_child_b[gid] >= 0 else 2
                for i in range(nb):
                    for j in range(n_ans):
                        ix[j] = ks + i * n_ans + j
                    counted += _pair_job(job, ix, n_ans, sums, threshold, floor, quant, q_out,
                                         other, x, o)
    return counted


# ------------------------------------------------------------------ from a solver to a policy

NO_MASK = np.zeros(0, dtype=np.bool_)


def _walk(job, keys: Keys, tree, layout, templates, src, scale, dst, only=NO_MASK):
    t, L, tm = tree, layout, templates
    _public_walk(job, keys.merge, src, scale, dst, QUANT, 0.0, t.kind, t.actor,
                 t.n, t.n_edges, t.pair_start, t.pair_edge_start, t.pair_edge_count,
                 L.slot_base, L.node_base, keys.enter_start, keys.enter_states, tm.start,
                 tm.size, tm.kind, tm.value, tm.exit_state, tm.raiser.astype(np.int64),
                 tm.child_a, tm.child_b, tm.answerer, keys.start, keys.code, keys.slot, only)


def _by_key(job, threshold, quant, keys: Keys, tree, templates, sums, q, other,
            floor: float = 0.0) -> int:
    t, tm = tree, templates
    return int(_pair_pass(job, sums, float(threshold), float(floor), int(quant), q, other,
                          t.kind, t.actor, t.n, t.n_edges, t.pair_start,
                          t.pair_edge_start, t.pair_edge_count, tm.kind, tm.child_a,
                          tm.child_b, tm.answerer, keys.start, keys.gid, keys.slot))


def key_sums(solver, keys: Keys) -> np.ndarray:
    """The solver's average strategy sums added up over each key's public nodes (float)."""
    cum = solver.cum32 if solver.config.storage == "float32" else solver.cum16
    scale = solver.cscale.astype(np.float64)
    sums = np.zeros(keys.n_slots)
    _walk(0, keys, solver.tree, solver.layout, solver.templates, cum, scale, sums)
    _groups(0, keys, solver.tree, solver.templates, sums)
    return sums


def quantise(sums: np.ndarray, keys: Keys, tree, templates, threshold: float,
             quant: int = QUANT) -> np.ndarray:
    """Key sums thresholded and quantised: one byte per key slot, each pair summing to
    ``quant`` (at most 255)."""
    if not 1 <= quant <= 255:
        raise InputError(f"quant {quant}: between 1 and 255 steps")
    q = np.zeros(keys.n_slots, dtype=np.uint8)
    _by_key(QUANTISE, threshold, quant, keys, tree, templates, sums, q,
            np.zeros(1, dtype=np.uint8))
    return q


def quantised_average(solver, keys: Keys, threshold: float, quant: int = QUANT) -> np.ndarray:
    """The solver's average strategy summed over each key's public nodes, thresholded and
    quantised (no pruning yet): one byte per key slot, each pair summing to ``quant``."""
    return quantise(key_sums(solver, keys), keys, solver.tree, solver.templates, threshold,
                    quant)


def expand(keys: Keys, tree, layout, templates, q: np.ndarray, below=None,
           dtype=np.uint8) -> np.ndarray:
    """A stored policy in the solver's slot layout (every public node gets its key's
    bytes), as ``dtype``. With ``below`` (a card node) only the public nodes of its
    subtree are written: the other slots stay zero, and as the array is zeroed by the
    system page by page, their pages take no memory."""
    out = np.zeros(layout.n_slots, dtype=dtype)
    only = NO_MASK if below is None else subtree_mask(tree, below)
    _walk(1, keys, tree, layout, templates, np.ascontiguousarray(q, dtype=np.uint8),
          np.ones(1), out, only)
    return out


def subtree_mask(tree, c: int) -> np.ndarray:
    """Per card node: whether it is ``c`` or below it."""
    mask = np.zeros(tree.n_nodes, dtype=np.bool_)
    level = np.array([c], dtype=np.int64)
    while len(level):
        mask[level] = True
        starts, counts = tree.child_start[level], tree.child_count[level]
        counts = np.where(tree.kind[level] == END, 0, counts)
        first = np.repeat(starts.astype(np.int64) - np.cumsum(counts) + counts, counts)
        level = first + np.arange(int(counts.sum()), dtype=np.int64)
    return mask


def _reach_solver(config, keys: Keys, q: np.ndarray, threads: int):
    """A float32 solver whose strategy sums hold each seat's own reach under ``q`` times
    its probability, slot by slot: one Discounted CFR traversal per seat whose regrets are
    the expanded ``q`` (regret matching then plays ``q``) and whose sums start at zero
    with no discount (float32: a reach of 1/255 to the twelfth power is far above its
    smallest number)."""
    from .solver import FullSolver

    wide = FullSolver(_wide(config), threads=threads).allocate()
    full = expand(keys, wide.tree, wide.layout, wide.templates, q)
    for u in (0, 1):
        wide.reg32[:] = full
        wide.traverse(u, CFR, 1.0, 1.0, 0.0)
    return wide


def prune_unreached(config, keys: Keys, q: np.ndarray, threads: int = 1) -> int:
    """Zero, in place, every pair of ``q`` whose own seat reaches it in none of its key's
    histories under ``q`` itself (own reach from the kernels, :func:`_reach_solver`);
    returns the number of pairs kept."""
    wide = _reach_solver(config, keys, q, threads)
    t, L, tm = wide.tree, wide.layout, wide.templates
    mask = np.zeros(keys.n_slots, dtype=np.uint8)
    _walk(2, keys, t, L, tm, wide.cum32, np.ones(1), mask)
    _groups(1, keys, t, tm, mask)
    return _by_key(MASK, 0.0, QUANT, keys, t, tm, np.zeros(1), q, mask)


def own_reach(config, keys: Keys, q: np.ndarray, threads: int = 1) -> np.ndarray:
    """Per key slot: its seat's own reach under ``q`` times the slot's probability, summed
    over the key's betting histories (float). A pair's slots therefore add up to its own
    reach summed over those histories (zero exactly where :func:`prune_unreached` drops
    it); the states of a round-3 group each get the group's total."""
    wide = _reach_solver(config, keys, q, threads)
    reach = np.zeros(keys.n_slots)
    _walk(0, keys, wide.tree, wide.layout, wide.templates, wide.cum32, np.ones(1), reach)
    _groups(0, keys, wide.tree, wide.templates, reach)
    return reach


def _wide(config):
    from dataclasses import replace

    return replace(config, storage="float32")


def compact_policy(solver, threshold: float = 0.01, merge: bool = True,
                   threads: int = 1, quant: int = QUANT) -> tuple[np.ndarray, "Keys", int]:
    """``(q, keys, pairs stored)``: the stored form of ``solver``'s average strategy (see
    the module docstring): merged over betting histories (``merge``), thresholded at
    ``threshold`` (probability), quantised to ``quant`` steps and pruned."""
    keys = build_keys(solver.tree, solver.layout, solver.templates, merge)
    q = quantised_average(solver, keys, threshold, quant)
    kept = prune_unreached(solver.config, keys, q, threads)
    return q, keys, kept


LEVEL = 19
"""zstd level of the stored policies: 12 % smaller than level 9 on vira 4's points policy
(7.9 against 9.0 MB), about 30 s to write one; reading is as fast."""


PACKING = "smallest"
"""How :func:`encode` lays a policy's bytes out: ``"model"`` (:mod:`.pair_coder`, a
context-modelled range coder: 37-40 % smaller than ``"pairs"`` on vira 4's score-aware
policies, 1.51 against 2.45 MB at 9-9, but 19 % larger on its points policy, 3.86 against
3.24 MB), ``"pairs"`` (:func:`pack_pairs` then zstd: 36 % smaller than ``"slots"`` on vira
4's points policy, 5.0 against 7.9 MB), ``"slots"`` (every stored slot's byte, then zstd:
the first layout), or ``"smallest"``, the smaller of ``"model"`` and ``"pairs"``.
:func:`decode` reads them all by their first bytes (:func:`packing_of`)."""

PAIRS_MAGIC = b"TPP1"
"""The first bytes of a ``"pairs"`` file; then the number of pairs and the length of the
packed bytes (:func:`pack_pairs`; 8 bytes each, little endian) and their zstd frame."""


HEADER_MAGIC = b"TPH1"
"""The first bytes of a stored policy file that says what it holds: then the length of its
header (4 bytes, little endian), the header (UTF-8 JSON: the vira, rules version and slot
count it was stored for, and a score-aware policy's score; :func:`with_header`) and the
policy's bytes in any packing. Files written before the header existed start with another
packing's first bytes, and are read as before."""

HEADER_LIMIT = 4096
"""Bytes a header may take at most: a longer length field is a damaged file."""


def with_header(blob: bytes, fields: dict) -> bytes:
    """``blob`` (the bytes of :func:`encode`) behind a header holding ``fields`` (a dict
    of JSON values)."""
    import json

    if blob[:len(HEADER_MAGIC)] == HEADER_MAGIC:
        raise ValueError("the policy's bytes already have a header")
    head = json.dumps(fields, sort_keys=True, allow_nan=False).encode()
    if len(head) > HEADER_LIMIT:
        raise ValueError(f"a policy header of {len(head)} bytes: at most {HEADER_LIMIT}")
    return HEADER_MAGIC + np.array([len(head)], dtype="<u4").tobytes() + head + blob


def split_header(blob: bytes) -> tuple[dict | None, bytes]:
    """``(header fields, the policy's bytes)`` of a stored file; ``(None, blob)`` for a
    file written without a header. ValueError for a damaged header."""
    import json

    if blob[:len(HEADER_MAGIC)] != HEADER_MAGIC:
        return None, blob
    at = len(HEADER_MAGIC)
    if len(blob) < at + 4:
        raise ValueError("the policy header is cut short")
    size = int(np.frombuffer(blob[at:at + 4], dtype="<u4")[0])
    if size > HEADER_LIMIT or len(blob) < at + 4 + size:
        raise ValueError("the policy header is cut short or damaged")
    try:
        fields = json.loads(blob[at + 4:at + 4 + size].decode())
    except (UnicodeDecodeError, ValueError):
        raise ValueError("the policy header is damaged") from None
    if not isinstance(fields, dict):
        raise ValueError("the policy header is damaged")
    return fields, blob[at + 4 + size:]


def encode(q: np.ndarray, keys: Keys, tree, templates, level: int | None = None,
           base: np.ndarray | None = None, packing: str | None = None) -> bytes:
    """The bytes of a stored policy, laid out by ``packing`` (default :data:`PACKING`):
    ``"model"``, coded pair by pair (:mod:`.pair_coder`); ``"slots"``, its stored slots'
    bytes (:func:`stored_slots`), or ``"pairs"``, :func:`pack_pairs`, both compressed by
    zstd at ``level`` (by default :data:`LEVEL`); ``"smallest"``, the smaller of
    ``"model"`` and ``"pairs"``. With ``base`` (another policy of the same keys), relative
    to it: where the two agree it costs almost nothing."""
    import pyarrow as pa

    packing = PACKING if packing is None else packing
    if packing == "smallest":
        return min((encode(q, keys, tree, templates, level, base, p) for p in
                    ("model", "pairs")), key=len)
    codec = pa.Codec("zstd", compression_level=LEVEL if level is None else level)
    if packing == "model":
        return model_encode(q, np.zeros_like(q) if base is None else base,
                            stored_slots(keys, tree, templates), keys, tree,
                            *_model_templates(templates))
    if packing == "pairs":
        flags, rest = pack_pairs(q, keys, tree, templates, base)
        raw = np.concatenate([flags, rest])
        return (PAIRS_MAGIC + np.array([flags.size, raw.size], dtype="<u8").tobytes()
                + codec.compress(raw, asbytes=True))
    if packing != "slots":
        raise ValueError(f"packing {packing!r}: 'smallest', 'model', 'pairs' or 'slots'")
    mask = stored_slots(keys, tree, templates)
    held = np.ascontiguousarray(q, dtype=np.uint8)[mask]
    if base is not None:
        held = held - np.asarray(base, dtype=np.uint8)[mask]   # uint8: modulo 256
    return codec.compress(held, asbytes=True)


def decode(blob: bytes, keys: Keys, tree, templates,
           base: np.ndarray | None = None) -> np.ndarray:
    """Inverse of :func:`encode` (given the same ``base``), any packing, behind a header
    (:func:`with_header`) or not: one byte per key slot, writable."""
    import pyarrow as pa

    _, blob = split_header(blob)
    if blob[:len(MODEL_MAGIC)] == MODEL_MAGIC:
        q = model_decode(blob, np.zeros(keys.n_slots, np.uint8) if base is None else base,
                         stored_slots(keys, tree, templates), keys.n_slots, keys, tree,
                         *_model_templates(templates))
    elif blob[:len(PAIRS_MAGIC)] == PAIRS_MAGIC:
        at = len(PAIRS_MAGIC)
        pairs, size = (int(x) for x in np.frombuffer(blob[at:at + 16], dtype="<u8"))
        raw = np.frombuffer(pa.Codec("zstd").decompress(blob[at + 16:], decompressed_size=size,
                                                        asbytes=True), dtype=np.uint8)
        q = unpack_pairs(raw[:pairs], raw[pairs:], keys, tree, templates, base)
    else:
        mask = stored_slots(keys, tree, templates)
        raw = pa.Codec("zstd").decompress(blob, decompressed_size=int(mask.sum()),
                                          asbytes=True)
        q = np.zeros(keys.n_slots, dtype=np.uint8)
        q[mask] = np.frombuffer(raw, dtype=np.uint8)
        if base is not None:
            q[mask] += np.asarray(base, dtype=np.uint8)[mask]
    _groups(3, keys, tree, templates, q)
    return q


def packing_of(blob: bytes) -> str:
    """The packing a stored policy's bytes were laid out by (:data:`PACKING`), behind a
    header or not."""
    _, blob = split_header(blob)
    for name, magic in (("model", MODEL_MAGIC), ("pairs", PAIRS_MAGIC)):
        if blob[:len(magic)] == magic:
            return name
    return "slots"


def _model_templates(templates):
    """The template arrays :mod:`~lab.solver.fullgame.pair_coder` walks the pairs by."""
    tm = templates
    return tm.kind == T_NODE, tm.child_a, tm.child_b, tm.answerer


# ------------------------------------------------------------------ the "pairs" packing

@njit(cache=True)
def _pairs_pass(pack, q, base, has_base, mask, flags, rest, quant, start, gid, slot, actor,
                nn, n_edges, pair_start, pair_edge_start, pair_edge_count, t_kind, t_child_a,
                t_child_b, t_answerer):
    """One pass over the stored (key, private state) pairs in key order (:func:`pack_pairs`).
    ``pack``: ``flags`` and ``rest`` from ``q``; else ``q`` from them. Returns (pairs,
    rest bytes), or (-1, pair) where a pair's slots are partly stored, (-2, pair) where
    its bytes sum to neither 0 nor ``quant`` and (-3, pair) where ``flags`` or ``rest``
    end too soon."""
    idx = np.empty(8, dtype=np.int64)
    n = 0
    r = 0
    # written out as in pair_coder._model_pass, which says why the two share no helper
    for c in range(start.shape[0] - 1):
        if start[c] == start[c + 1]:
            continue
        a = actor[c]
        na = nn[c, a]
        E = n_edges[c]
        pa = pair_start[c] + (nn[c, 0] if a == 1 else 0)
        for y in range(start[c], start[c + 1]):
            g = gid[y]
            s0 = slot[y]
            is_t = t_kind[g] == T_NODE
            can_raise = t_child_a[g] >= 0
            n_ans = 3 if t_child_b[g] >= 0 else 2
            if is_t:
                if not can_raise and E <= na:
                    continue   # no choice, no slots
                n_pairs = na
            else:
                n_pairs = nn[c, t_answerer[g]]
            for i in range(n_pairs):
                m = 0
                if is_t:
                    es = pair_edge_start[pa + i]
                    for e in range(es, es + pair_edge_count[pa + i]):
                        idx[m] = s0 + e
                        m += 1
                    if can_raise:
                        idx[m] = s0 + E + i
                        m += 1
                else:
                    for x in range(n_ans):
                        idx[m] = s0 + i * n_ans + x
                        m += 1
                if not mask[idx[0]]:
                    continue
                for j in range(1, m):
                    if not mask[idx[j]]:
                        return -1, n
                held_base = 0
                if has_base:
                    for j in range(m):
                        held_base += base[idx[j]]
                fb = 1 if held_base > 0 else 0
                if not pack and n >= flags.shape[0]:
                    return -3, n
                if pack:
                    tot = 0
                    for j in range(m):
                        tot += q[idx[j]]
                    if tot != 0 and tot != quant:
                        return -2, n
                    f = 1 if tot > 0 else 0
                    flags[n] = f ^ fb
                    if f:
                        for j in range(m - 1):
                            d = np.int64(q[idx[j]]) - (np.int64(base[idx[j]]) if has_base else 0)
                            rest[r] = d & 255
                            r += 1
                else:
                    if flags[n] ^ fb:
                        tot = 0
                        if r + m - 1 > rest.shape[0]:
                            return -3, n
                        for j in range(m - 1):
                            v = np.int64(rest[r]) + (np.int64(base[idx[j]]) if has_base else 0)
                            v = v & 255
                            q[idx[j]] = v
                            tot += v
                            r += 1
                        q[idx[m - 1]] = quant - tot
                n += 1
    return n, r


def _pairs_call(pack, q, base, keys: Keys, tree, templates, flags, rest):
    mask = stored_slots(keys, tree, templates)
    has_base = base is not None
    b = np.ascontiguousarray(base, dtype=np.uint8) if has_base else np.zeros(1, np.uint8)
    t, tm = tree, templates
    return _pairs_pass(pack, q, b, has_base, mask, flags, rest, QUANT, keys.start, keys.gid,
                       keys.slot, t.actor, t.n, t.n_edges, t.pair_start, t.pair_edge_start,
                       t.pair_edge_count, tm.kind, tm.child_a, tm.child_b, tm.answerer)


def pack_pairs(q: np.ndarray, keys: Keys, tree, templates,
               base: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ``"pairs"`` layout of a policy's bytes, ``(flags, rest)``: one flag per stored
    (key, private state) pair in key order (1 held, 0 pruned: all its bytes zero), and for
    each held pair its bytes but the last (the last is :data:`QUANT` minus their sum). With
    ``base``: each flag XOR base's own and each byte minus base's (modulo 256), so both are
    zero where the two agree. Raises ValueError for bytes that are not a stored policy's
    (a pair summing to neither 0 nor :data:`QUANT`)."""
    q = np.ascontiguousarray(q, dtype=np.uint8)
    mask = stored_slots(keys, tree, templates)
    flags = np.zeros(keys.n_slots, dtype=np.uint8)       # at most one pair per slot
    rest = np.zeros(int(mask.sum()), dtype=np.uint8)
    n, r = _pairs_call(True, q, base, keys, tree, templates, flags, rest)
    if n < 0:
        what = "is partly stored" if n == -1 else f"does not sum to 0 or {QUANT}"
        raise ValueError(f"pair {r} of the policy {what}")
    return flags[:n].copy(), rest[:r].copy()


def unpack_pairs(flags: np.ndarray, rest: np.ndarray, keys: Keys, tree, templates,
                 base: np.ndarray | None = None) -> np.ndarray:
    """Inverse of :func:`pack_pairs`: one byte per key slot (round-3 copies not filled).
    Raises ValueError where the bytes do not fit the keys."""
    q = np.zeros(keys.n_slots, dtype=np.uint8)
    flags = np.array(flags, dtype=np.uint8)   # writable: one compiled pass packs and unpacks
    rest = np.array(rest, dtype=np.uint8)
    n, r = _pairs_call(False, q, base, keys, tree, templates, flags, rest)
    if n != flags.size or r != rest.size:
        raise ValueError("the policy's bytes do not fit its keys")
    return q


def snap_to(q: np.ndarray, base: np.ndarray, keys: Keys, tree, templates,
            tolerance: float, reach: np.ndarray | None = None,
            reach_tolerance: float = 0.0) -> int:
    """Give, in place, every pair of ``q`` that ``q`` does not hold (pruned) or that plays
    within ``tolerance`` of ``base`` (another policy of the same keys; total variation,
    probability) ``base``'s bytes; returns the pairs that keep their own. With ``reach``
    (:func:`own_reach` of ``q``), a pair also takes ``base``'s bytes where its own reach
    times its total variation is at most ``reach_tolerance``: a pair its seat seldom gets
    to moves the policy's values little. A pair ``q`` holds and ``base`` does not always
    keeps its own, so the result holds every pair its own play reaches. ``q`` then
    differs from ``base`` only where it moved by more than that, so its difference from
    ``base`` (:func:`encode`) is mostly zeros."""
    if not 0.0 <= tolerance <= 1.0:
        raise InputError(f"tolerance {tolerance}: a probability between 0 and 1")
    if not reach_tolerance >= 0.0:
        raise InputError(f"reach tolerance {reach_tolerance}: a number of 0 or more")
    if reach is None:
        reach = np.zeros(1)
    elif reach.shape != (keys.n_slots,):
        raise ValueError(f"reach: one number per key slot ({keys.n_slots}), not {reach.shape}")
    return _by_key(NEAR, tolerance * QUANT, QUANT, keys, tree, templates,
                   np.ascontiguousarray(reach, dtype=np.float64), q,
                   np.ascontiguousarray(base, dtype=np.uint8), reach_tolerance)


def coarsen(q: np.ndarray, base: np.ndarray, keys: Keys, tree, templates,
            reach: np.ndarray, reach_tolerance: float) -> int:
    """Round, in place, every pair ``q`` holds with bytes of its own (not ``base``'s: after
    :func:`snap_to`) to the coarsest multiple of one of :data:`STEPS` whose total variation
    from its strategy, times its own reach (``reach``: :func:`own_reach`, one number per
    key slot), is at most ``reach_tolerance``; returns the pairs rounded. A pair its seat
    seldom gets to keeps only the shape of its strategy (a pure one, at the coarsest), in
    bytes of a few values that compress to little. Pairs stay held and sum to
    :data:`QUANT`; a move a pair never plays stays unplayed."""
    if not reach_tolerance >= 0.0:
        raise InputError(f"reach tolerance {reach_tolerance}: a number of 0 or more")
    if reach.shape != (keys.n_slots,):
        raise ValueError(f"reach: one number per key slot ({keys.n_slots}), not {reach.shape}")
    return _by_key(COARSE, 0.0, QUANT, keys, tree, templates,
                   np.ascontiguousarray(reach, dtype=np.float64), q,
                   np.ascontiguousarray(base, dtype=np.uint8), reach_tolerance)


def rebase(q: np.ndarray, old: np.ndarray, new: np.ndarray, keys: Keys, tree,
           templates) -> int:
    """Give, in place, every pair of ``q`` that plays ``old``'s bytes (a policy of the same
    keys: the points policy a score-aware one was snapped to) ``new``'s bytes instead (that
    points policy stored again), keeping the pairs that play their own; returns the pairs
    given ``new``'s."""
    return _by_key(REBASE, 0.0, QUANT, keys, tree, templates,
                   np.ascontiguousarray(new, dtype=np.uint8), q,
                   np.ascontiguousarray(old, dtype=np.uint8))
