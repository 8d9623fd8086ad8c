"""The ``"model"`` packing of a stored policy: its pairs coded by an adaptive binary range
coder whose probabilities are learnt, as it goes, in contexts taken from the pair's shape
and its neighbours.

A stored policy is one byte per key slot, and the slots of one (key, private state) pair
hold that state's strategy in steps of 1/255 (:mod:`lab.solver.fullgame.compact`). Many
pairs repeat a reference policy (``base``: the points policy a score-aware policy was
snapped to, or no strategy at all for a points policy), many others are pure or were
rounded to a few steps (:func:`~lab.solver.fullgame.compact.coarsen`), and whether a pair
repeats the reference depends on what its neighbours did. Each pair is therefore written
as a few binary decisions, in key order:

1. *same*: does it play the reference's bytes? (contexts: whether the reference holds the
   pair and plays it pure, the last two pairs' answers, the same private state's answer
   at the previous key of its card node, the decision's kind and width);
2. *held*: where the reference holds the pair, does this policy hold it at all?
3. *copy*: where the last pair with bytes of its own (held, not the reference's) is as
   wide, does it play that pair's bytes?
4. its *step*, the coarsest divisor of 255 all its bytes are multiples of (in the context
   of that last pair's step), and then either its one move (a pure strategy, in the
   context of the reference's most played move and the last pair's move) or its bytes but
   the last, in that step (each in the context of the last pair's byte there; the last is
   what is left of 255).

Each decision costs about its information under the learnt probability (LZMA's range
coder: 12-bit probabilities, moved 1/32 of the way at each bit). One compiled pass both
writes (``pack``) and reads, so the two cannot disagree. Units: bytes throughout.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MAGIC = b"TPM1"
"""The first bytes of a ``"model"`` file; then the number of pairs and of coded bytes (8
bytes each, little endian) and the coded bytes."""

STEPS = np.array([255, 85, 51, 17, 15, 5, 3, 1], dtype=np.int64)
"""The divisors of 255, coarsest first: a pair's step is the first its bytes are all
multiples of (255: a pure strategy)."""
BITS = np.array([0, 2, 3, 4, 5, 6, 7, 8], dtype=np.int64)
"""Bits of one byte of a pair at each step (255 // step fits in them)."""

_PROB, _MOVE = 12, 5
_TOP = 1 << 24
_M = 8                     # widths of a pair, 1..7 (a pair has at most 7 slots)
_SAME = 0                  # 4 last-two x 3 previous-key x 2 held x 2 pure x 2 kind x 2 raise
_HELD = _SAME + 4 * 3 * 2 * 2 * 2 * 2 * _M
_COPY = _HELD + 2 * _M
_STEP = _COPY + 2 * 2 * _M
_PURE = _STEP + 8 * (9 * 2 * 2 * 2 * _M)
_VALUE = _PURE + 8 * (9 * 9 * 2 * _M)
_N_PROBS = _VALUE + 256 * (8 * 8 * 2 * 9)


@njit(cache=True, inline="always")
def _shift_low(st, buf):
    """Move the coder's top byte out (st: low, range, cache, cache size, position,
    overflow)."""
    low = st[0]
    if low < 0xFF000000 or low >= (1 << 32):
        carry = low >> 32
        temp = st[2]
        while True:
            if st[4] < buf.shape[0]:
                buf[st[4]] = (temp + carry) & 0xFF
            else:
                st[5] = 1
            st[4] += 1
            temp = 0xFF
            st[3] -= 1
            if st[3] == 0:
                break
        st[2] = (low >> 24) & 0xFF
    st[3] += 1
    st[0] = (low & 0x00FFFFFF) << 8


@njit(cache=True, inline="always")
def _bit(pack, st, buf, probs, i, bit):
    """Write ``bit`` (pack) or read one, with probability ``probs[i]`` of a 0; returns
    the bit."""
    p = probs[i]
    bound = (st[1] >> _PROB) * p
    if pack:
        if bit == 0:
            st[1] = bound
        else:
            st[0] += bound
            st[1] -= bound
    else:
        if st[0] < bound:
            st[1] = bound
            bit = 0
        else:
            st[0] -= bound
            st[1] -= bound
            bit = 1
    if bit == 0:
        probs[i] = p + (((1 << _PROB) - p) >> _MOVE)
    else:
        probs[i] = p - (p >> _MOVE)
    while st[1] < _TOP:
        st[1] <<= 8
        if pack:
            _shift_low(st, buf)
        else:
            byte = 0
            if st[4] < buf.shape[0]:
                byte = buf[st[4]]
            else:
                st[5] = 1
            st[4] += 1
            st[0] = (st[0] << 8) | byte
    return bit


@njit(cache=True, inline="always")
def _tree(pack, st, buf, probs, at, bits, value):
    """Write ``value`` (pack) or read one, ``bits`` bits high first, each in the context of
    those before it (a bit tree at ``probs[at:]``); returns the value."""
    node = 1
    out = 0
    for b in range(bits - 1, -1, -1):
        bit = _bit(pack, st, buf, probs, at + node, (value >> b) & 1)
        node = 2 * node + bit
        out = 2 * out + bit
    return out


@njit(cache=True)
def _model_pass(pack, q, base, mask, buf, st, start, gid, slot, actor, nn, n_edges,
                pair_start, pair_edge_start, pair_edge_count, is_t_node, t_child_a,
                t_child_b, t_answerer):
    """Every stored (key, private state) pair in key order: written from ``q`` (pack) or
    read into it. Returns the pairs, or -1 where a pair is partly stored, -2 where its
    bytes sum to neither 0 nor 255, -3 where the coded bytes ended too soon."""
    probs = np.full(_N_PROBS, 1 << (_PROB - 1), dtype=np.int64)
    idx = np.empty(8, dtype=np.int64)
    b = np.empty(8, dtype=np.int64)
    v = np.empty(8, dtype=np.int64)
    last = np.zeros(8, dtype=np.int64)
    last_m = 0
    last_copy = 0
    last_s = 0
    last_move = 0
    n_hands = nn.max() + 1
    stamp = np.full((2, n_hands), -1, dtype=np.int64)
    seen = np.zeros((2, n_hands), dtype=np.int64)
    prev = 0
    n = 0
    if not pack:
        for _ in range(5):
            byte = buf[st[4]] if st[4] < buf.shape[0] else 0
            st[4] += 1
            st[0] = (st[0] << 8) | byte
    # the walk over keys and pairs is written out as in compact._pairs_pass: shared numba
    # helpers made that pass 60-65 % slower (vira 4's points policy decoded in 0.87 s
    # against 0.53 with helpers returning tuples; 0.91 s against 0.56 with only the slot
    # list of a pair shared, a helper returning its length)
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
            is_t = is_t_node[g]
            can_raise = t_child_a[g] >= 0
            n_ans = 3 if t_child_b[g] >= 0 else 2
            if is_t:
                if not can_raise and E <= na:
                    continue   # no choice, no slots
                n_pairs = na
            else:
                n_pairs = nn[c, t_answerer[g]]
            kind = (1 if is_t else 0) * 2 + (1 if can_raise else 0)
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
                held_b = 0
                top_b = 0
                arg_b = 8
                for j in range(m):
                    b[j] = base[idx[j]]
                    held_b += b[j]
                    if not mask[idx[j]]:
                        return -1
                    if b[j] > top_b:
                        top_b = b[j]
                        arg_b = j
                bh = 1 if held_b > 0 else 0
                bp = 1 if top_b == 255 else 0
                t = 1 if is_t else 0
                pk = seen[t, i] if stamp[t, i] == c else 2
                mm = min(m, _M - 1)
                same = 1
                held = 0
                if pack:
                    for j in range(m):
                        v[j] = q[idx[j]]
                        held += v[j]
                        if v[j] != b[j]:
                            same = 0
                    if held != 0 and held != 255:
                        return -2
                ctx = ((((prev * 3 + pk) * 2 + bh) * 2 + bp) * 4 + kind) * _M + mm
                same = 1 - _bit(pack, st, buf, probs, _SAME + ctx, 1 - same)
                if same:
                    for j in range(m):
                        v[j] = b[j]
                else:
                    if bh:
                        held = 1 if _bit(pack, st, buf, probs, _HELD + t * _M + mm,
                                         1 if held > 0 else 0) else 0
                    else:
                        held = 1
                    if not held:
                        for j in range(m):
                            v[j] = 0
                    else:
                        copy = 0
                        if last_m == m:
                            if pack:
                                copy = 1
                                for j in range(m):
                                    if v[j] != last[j]:
                                        copy = 0
                            copy = _bit(pack, st, buf, probs,
                                        _COPY + (last_copy * 2 + t) * _M + mm, copy)
                            last_copy = copy
                        if copy:
                            for j in range(m):
                                v[j] = last[j]
                        else:
                            s = 0
                            if pack:
                                while s < 7:
                                    k = STEPS[s]
                                    ok = True
                                    for j in range(m):
                                        if v[j] % k != 0:
                                            ok = False
                                    if ok:
                                        break
                                    s += 1
                            ls = last_s if last_m == m else 8
                            s = _tree(pack, st, buf, probs, _STEP + 8 * (
                                (((ls * 2 + bh) * 2 + bp) * 2 + t) * _M + mm), 3, s)
                            last_s = s
                            k = STEPS[s]
                            if s == 0:   # pure: its one move
                                move = 0
                                if pack:
                                    for j in range(m):
                                        if v[j] == 255:
                                            move = j
                                lm = last_move if last_m == m else 8
                                move = _tree(pack, st, buf, probs, _PURE + 8 * (
                                    ((lm * 9 + arg_b) * 2 + t) * _M + mm), 3, move)
                                last_move = move
                                if move >= m:
                                    return -3
                                for j in range(m):
                                    v[j] = 255 if j == move else 0
                            else:
                                left = 255 // k
                                for j in range(m - 1):
                                    lv = last[j] >> 5 if last_m == m else 8
                                    x = _tree(pack, st, buf, probs, _VALUE + 256 * (
                                        ((lv * 8 + s) * 8 + min(j, 7)) * 2 + t),
                                        BITS[s], v[j] // k if pack else 0)
                                    if x > left:
                                        return -3
                                    v[j] = x * k
                                    left -= x
                                v[m - 1] = left * k
                    if held:
                        last_m = m
                        for j in range(m):
                            last[j] = v[j]
                if not pack:
                    for j in range(m):
                        q[idx[j]] = v[j]
                out = 1 - same
                prev = (prev * 2 + out) & 3
                stamp[t, i] = c
                seen[t, i] = out
                n += 1
    if pack:
        for _ in range(5):
            _shift_low(st, buf)
    return n


def _call(pack, q, base, mask, keys, tree, is_t_node, t_child_a, t_child_b, t_answerer, buf):
    st = np.zeros(6, dtype=np.int64)
    st[1] = 0xFFFFFFFF
    st[3] = 1
    t = tree
    n = _model_pass(pack, q, base, mask, buf, st, keys.start, keys.gid, keys.slot, t.actor,
                    t.n, t.n_edges, t.pair_start, t.pair_edge_start, t.pair_edge_count,
                    is_t_node, t_child_a, t_child_b, t_answerer)
    return n, st


def model_encode(q: np.ndarray, base: np.ndarray, mask: np.ndarray, keys, tree,
                 is_t_node: np.ndarray, t_child_a, t_child_b, t_answerer) -> bytes:
    """The ``"model"`` bytes of the policy ``q`` (one byte per key slot) against the
    reference ``base`` (same keys; zeros for none), over the stored slots ``mask``.
    Raises ValueError for bytes that are not a stored policy's."""
    q = np.ascontiguousarray(q, dtype=np.uint8)
    base = np.ascontiguousarray(base, dtype=np.uint8)
    size = int(mask.sum()) // 8 + (1 << 20)   # one bit a stored slot: room for a real policy
    while True:
        buf = np.zeros(size, dtype=np.uint8)
        n, st = _call(True, q, base, mask, keys, tree, is_t_node, t_child_a, t_child_b,
                      t_answerer, buf)
        if n in (-1, -2):
            what = "is partly stored" if n == -1 else "does not sum to 0 or 255"
            raise ValueError(f"a pair of the policy {what}")
        if not st[5] and n >= 0:
            break
        size = int(st[4]) + 1024   # the coder ran past the buffer: again, large enough
    return MAGIC + np.array([n, st[4]], dtype="<u8").tobytes() + buf[:st[4]].tobytes()


def model_decode(blob: bytes, base: np.ndarray, mask: np.ndarray, n_slots: int, keys, tree,
                 is_t_node: np.ndarray, t_child_a, t_child_b, t_answerer) -> np.ndarray:
    """Inverse of :func:`model_encode` (given the same ``base``): one byte per key slot.
    Raises ValueError where the bytes do not fit the keys."""
    at = len(MAGIC)
    pairs, size = (int(x) for x in np.frombuffer(blob[at:at + 16], dtype="<u8"))
    buf = np.array(np.frombuffer(blob[at + 16:], dtype=np.uint8))   # writable: one pass
    if buf.size != size:
        raise ValueError("the policy's coded bytes are cut short")
    q = np.zeros(n_slots, dtype=np.uint8)
    n, st = _call(False, q, np.ascontiguousarray(base, dtype=np.uint8), mask, keys, tree,
                  is_t_node, t_child_a, t_child_b, t_answerer, buf)
    if n != pairs or st[4] > size:
        raise ValueError("the policy's bytes do not fit its keys")
    return q
