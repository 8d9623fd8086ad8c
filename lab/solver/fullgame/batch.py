"""Many payoff vectors in one traversal of the full game: values and exact best responses.

A measurement at one score of the match (:mod:`lab.tables.score`) prices the same fixed
strategies (a points solution's average) with that score's payoffs. What a
traversal spends most of its time on does not depend on the payoffs: the
strategies, the opponent's reach and its products with the deal weights
(``sum_j W[i, j] * reach[j]`` at every run, showdown and end of a hand). This
module computes those once and carries a vector of ``B`` values per (node,
hand) instead of one number: column ``b`` is what :func:`kernels.traverse`
returns with ``win = WIN[b]`` and ``lose = LOSE[b]``, in ``BEST`` mode (``u``
takes the best action for each column separately: an exact best response per
payoff vector) or ``AVERAGE`` mode (both play their average strategies).

The tree walk and the layout are :mod:`lab.solver.fullgame.kernels`'
(:func:`~lab.solver.fullgame.betting.prepare_node` enumerates the betting nodes, strategies
and reach); only the values are new: ``VB[d, node * n_u + i, b]`` (betting nodes), ``EB[d, slot, b]``
(the card edges of ``u``'s own T nodes; his raises read ``VB``) and ``OB[d, history * n_u + i, b]``
(the entering histories), the batch index last so that its loops are contiguous.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from collections import namedtuple

from ..indexing import without_wraparound
from .betting import prepare_node
from .kernels import enter_child, enter_turns, walk_stack
from .records import AVERAGE, BEST, END, LAST, ONE, ROOT, T_NODE
from .showdowns import node_deal_block, showdown_winner

Batch = namedtuple("Batch", ["WIN", "LOSE", "VB", "EB", "OB", "PAY"])
"""The payoff columns (``WIN``, ``LOSE``: ``[b, ladder index]``), the batched values
(``VB``, ``EB``, ``OB``, see the module docstring) and one column of payoffs (``PAY``)."""

without_wraparound(__name__)   # computed indices, never negative (see indexing)


@njit(cache=True, _nrt=False)
def _pay(WIN, LOSE, kv, v, w, u, PAY):
    """PAY[b]: what ``u`` gets per unit of reach for an outcome worth ``ladder[kv] = v``
    that seat ``w`` wins (nothing if ``w`` is neither seat: a hand that scores nothing),
    for each payoff column ``b``."""
    for b in range(WIN.shape[0]):
        PAY[b] = v * WIN[b, kv] if w == u else (-v * LOSE[b, kv] if w == 1 - u else 0.0)
    return 0


@njit(cache=True, _nrt=False)
def _end_values(c, d, TT, T, P, W, X):
    """OB[d + 1] for END card node ``c``, a child of the node at depth ``d`` whose ``TT``
    T nodes are its entering histories: the winner scores the accepted value."""
    nn, winner, t_value = T.nn, T.winner, T.t_value
    u, ladder, Wu = P.u, P.ladder, P.Wu
    ENT, WC, KI, TK = W.ENT, W.WC, W.KI, W.TK
    WIN, LOSE, OB, PAY = X.WIN, X.LOSE, X.OB, X.PAY
    H = TT
    e = d + 1
    n0 = nn[c, 0]
    nu, no = nn[c, u], nn[c, 1 - u]
    eo = n0 * H if u == 0 else 0
    B = WIN.shape[0]
    node_deal_block(T, c, u, Wu, WC, e)
    for h in range(H):
        kv = t_value[KI[d, TK[d, h], 0]]
        _pay(WIN, LOSE, kv, ladder[kv], winner[c], u, PAY)
        for i in range(nu):
            acc = 0.0
            for j in range(no):
                acc += WC[e, j * nu + i] * ENT[e, eo + h * no + j]
            x = h * nu + i
            for b in range(B):
                OB[e, x, b] = PAY[b] * acc
    return 0


@njit(cache=True, _nrt=False)
def _showdown(c, d, T, W, P, K, TT, X):
    """The round-3 follower's forced last card: showdown values of every T node."""
    actor, showdown, lead, pair_start, nn, pair_level, t_value = (
        T.actor, T.showdown, T.lead, T.pair_start, T.nn, T.pair_level, T.t_value)
    KI, RI, SIG, TMP, WC, TK = W.KI, W.RI, W.SIG, W.TMP, W.WC, W.TK
    u, ladder = P.u, P.ladder
    WIN, LOSE, VB, EB, PAY = X.WIN, X.LOSE, X.VB, X.EB, X.PAY
    a = actor[c]
    o = 1 - a
    n0 = nn[c, 0]
    na, no_ = nn[c, a], nn[c, o]
    nu = nn[c, u]
    pa = pair_start[c] + (n0 if a == 1 else 0)
    nopp = nn[c, 1 - u]
    r1 = K * n0
    lead_lv = lead[c]
    B = WIN.shape[0]
    for t in range(TT):
        k = TK[d, t]
        gid = KI[d, k, 0]
        so = KI[d, k, 4]
        kv = t_value[gid]
        v = ladder[kv]
        if u == a:   # u's own last card: its value is the showdown against o's reach
            ro = (0 if o == 0 else r1) + k * no_
            for i in range(nu):
                acc = 0.0
                for j in range(nopp):
                    acc += WC[d, j * nu + i] * RI[d, ro + j]
                y = pair_level[pa + i]
                w = showdown_winner(showdown, c, y, lead_lv)
                _pay(WIN, LOSE, kv, v, w, u, PAY)
                for b in range(B):
                    EB[d, so + i, b] = PAY[b] * acc
        else:        # the opponent's last card: split his reach by who wins
            ra = (0 if a == 0 else r1) + k * na
            for j in range(na):
                y = pair_level[pa + j]
                w = showdown_winner(showdown, c, y, lead_lv)
                r = RI[d, ra + j] * SIG[d, so + j]
                TMP[2, j] = r if w == u else 0.0
                TMP[3, j] = r if w == 1 - u else 0.0
            for i in range(nu):
                won = 0.0
                lost = 0.0
                for j in range(nopp):
                    won += WC[d, j * nu + i] * TMP[2, j]
                    lost += WC[d, j * nu + i] * TMP[3, j]
                x = k * nu + i
                for b in range(B):
                    VB[d, x, b] += v * (WIN[b, kv] * won - LOSE[b, kv] * lost)
    return 0


@njit(cache=True, _nrt=False)
def _finish(c, d, H, T, W, P, K, X):
    """Betting backward (values only) and the values of the entering histories."""
    (actor, pair_start, nn, n_edges, pair_edge_start, pair_edge_count, t_size, t_kind,
     t_child_a, t_child_b, t_value, t_answerer) = (
        T.actor, T.pair_start, T.nn, T.n_edges, T.pair_edge_start, T.pair_edge_count,
        T.t_size, T.t_kind, T.t_child_a, T.t_child_b, T.t_value, T.t_answerer)
    ES, RI, SIG, KI, TMP, WC = W.ES, W.RI, W.SIG, W.KI, W.TMP, W.WC
    u, mode, ladder = P.u, P.mode, P.ladder
    WIN, LOSE, VB, EB, OB, PAY = X.WIN, X.LOSE, X.VB, X.EB, X.OB, X.PAY
    a = actor[c]
    n0 = nn[c, 0]
    na = nn[c, a]
    nu = nn[c, u]
    pa = pair_start[c] + (n0 if a == 1 else 0)
    E = n_edges[c]
    nopp = nn[c, 1 - u]
    r1 = K * n0
    B = WIN.shape[0]
    best = mode == BEST
    for k in range(K - 1, -1, -1):
        gid = KI[d, k, 0]
        h0 = KI[d, k, 7]
        so = KI[d, k, 4]
        if t_kind[gid] == T_NODE:
            kq = h0 + t_child_a[gid] if t_child_a[gid] >= 0 else -1
            if u != a:   # the opponent's cards were summed in; add his raise
                if kq >= 0:
                    for i in range(nu):
                        for b in range(B):
                            VB[d, k * nu + i, b] += VB[d, kq * nu + i, b]
                continue
            for i in range(na):
                es = pair_edge_start[pa + i]
                ec = pair_edge_count[pa + i]
                x = k * nu + i
                for b in range(B):
                    VB[d, x, b] = -np.inf if best else 0.0
                for e in range(es, es + ec):
                    s = SIG[d, so + e]
                    for b in range(B):
                        ev = EB[d, so + e, b]
                        VB[d, x, b] = max(VB[d, x, b], ev) if best else VB[d, x, b] + s * ev
                if kq >= 0:
                    s = SIG[d, so + E + i]
                    for b in range(B):
                        ev = VB[d, kq * nu + i, b]
                        VB[d, x, b] = max(VB[d, x, b], ev) if best else VB[d, x, b] + s * ev
        else:
            answerer = t_answerer[gid]
            kv = t_value[gid]
            nb = nn[c, answerer]
            kacc = h0 + t_child_a[gid]
            krr = h0 + t_child_b[gid] if t_child_b[gid] >= 0 else -1
            _pay(WIN, LOSE, kv, ladder[kv], 1 - answerer, u, PAY)   # the run: the raiser scores
            if u == answerer:
                ro = (0 if u == 1 else r1) + k * nopp
                for i in range(nu):
                    acc = 0.0
                    for j in range(nopp):
                        acc += WC[d, j * nu + i] * RI[d, ro + j]
                    x = k * nu + i
                    s_acc = SIG[d, so + 3 * i]
                    s_run = SIG[d, so + 3 * i + 1]
                    s_rr = SIG[d, so + 3 * i + 2]
                    for b in range(B):
                        ev_acc = VB[d, kacc * nu + i, b]
                        ev_run = PAY[b] * acc
                        ev_rr = VB[d, krr * nu + i, b] if krr >= 0 else 0.0
                        if best:
                            top = max(ev_acc, ev_run)
                            VB[d, x, b] = max(top, ev_rr) if krr >= 0 else top
                        else:
                            VB[d, x, b] = s_acc * ev_acc + s_run * ev_run + s_rr * ev_rr
            else:
                rb = (0 if answerer == 0 else r1) + k * nb
                for j in range(nb):
                    TMP[5, j] = RI[d, rb + j] * SIG[d, so + 3 * j + 1]
                for i in range(nu):
                    acc = 0.0
                    for j in range(nopp):
                        acc += WC[d, j * nu + i] * TMP[5, j]
                    x = k * nu + i
                    for b in range(B):
                        val = VB[d, kacc * nu + i, b] + PAY[b] * acc
                        if krr >= 0:
                            val += VB[d, krr * nu + i, b]
                        VB[d, x, b] = val
    k = 0
    for h in range(H):
        for i in range(nu):
            for b in range(B):
                OB[d, h * nu + i, b] = VB[d, k * nu + i, b]
        k += t_size[a, ES[d, h]]
    return 0


@njit(cache=True, _nrt=False)
def _take_child(c, ch, d, TT, T, W, P, X):
    """Gather card child ``ch``'s batched values (``OB[d + 1]``) back to the T nodes of
    node ``c`` at depth ``d``: into ``u``'s card edges when he moves, summed otherwise."""
    nn, pair_start, pair_parent, pair_edge = T.nn, T.pair_start, T.pair_parent, T.pair_edge
    KI, TK = W.KI, W.TK
    EB, VB, OB = X.EB, X.VB, X.OB
    u = P.u
    a = T.actor[c]
    nu = nn[c, u]
    B = X.WIN.shape[0]
    d1 = d + 1
    cu = nn[ch, u]
    qu = pair_start[ch] + (nn[ch, 0] if u == 1 else 0)
    for t in range(TT):
        k = TK[d, t]
        so = KI[d, k, 4]
        for i in range(cu):
            if u == a:
                x = so + pair_edge[qu + i]
                for b in range(B):
                    EB[d, x, b] = OB[d1, t * cu + i, b]
            else:
                x = k * nu + pair_parent[qu + i]
                for b in range(B):
                    VB[d, x, b] += OB[d1, t * cu + i, b]
    return 0


@njit(cache=True, _nrt=False)
def _visit(c0, d0, H0, T, S, W, P, X, stack):
    """:func:`kernels.depth_first` with a vector of values per (node, hand): the same
    depth-first walk with an explicit stack (so that numba caches it), compiled without
    reference counting as that one is."""
    node, hist, nk, nt, nxt = stack[0], stack[1], stack[2], stack[3], stack[4]
    kind, child_start, child_count, nn = T.kind, T.child_start, T.child_count, T.nn
    VB = X.VB
    B = X.WIN.shape[0]
    d = d0
    node[d] = c0
    hist[d] = H0
    entering = True
    while True:
        c = node[d]
        if entering:
            K, TT, _ = prepare_node(c, d, hist[d], T, S, W, P, False)
            nk[d] = K
            nt[d] = TT
            for x in range(K * nn[c, P.u]):
                for b in range(B):
                    VB[d, x, b] = 0.0
            if kind[c] == LAST:
                _showdown(c, d, T, W, P, K, TT, X)
                nxt[d] = -1
            else:
                enter_turns(c, d, TT, T, W, W)
                nxt[d] = child_start[c]
            entering = False
        ch = nxt[d]
        if ch >= 0 and ch < child_start[c] + child_count[c]:
            enter_child(c, ch, d, nk[d], nt[d], T, W, W.ENT)
            if kind[ch] == END:
                _end_values(ch, d, nt[d], T, P, W, X)
                _take_child(c, ch, d, nt[d], T, W, P, X)
                nxt[d] = ch + 1
            else:
                d += 1
                node[d] = ch
                hist[d] = nt[d - 1]
                entering = True
            continue
        _finish(c, d, hist[d], T, W, P, nk[d], X)
        if d == d0:
            return 0
        d -= 1
        _take_child(node[d], c, d, nt[d], T, W, P, X)
        nxt[d] = c + 1


@njit(cache=True, nogil=True)
def traverse_batch(T, S, W, P, WIN, LOSE, VB, EB, OB):
    """``[root hand, b]``: the values of ``P.u``'s root hands (payoff times deal
    probability) with the payoffs ``WIN[b]``, ``LOSE[b]`` (arrays over the ladder, as
    ``win`` and ``lose`` of :func:`kernels.traverse`; ``P.ladder`` all ones), in
    ``BEST`` or ``AVERAGE`` mode. It releases the GIL: walks on separate working buffers
    ``W`` and ``VB``, ``EB``, ``OB`` can run at once."""
    assert P.mode == BEST or P.mode == AVERAGE
    nn = T.nn
    for i in range(nn[0, 0] + nn[0, 1]):
        W.ENT[0, i] = 1.0
    W.ES[0, 0] = 0
    X = Batch(WIN, LOSE, VB, EB, OB, np.empty(WIN.shape[0]))
    _visit(ROOT, ROOT, ONE, T, S, W, P, X, walk_stack(W))
    return OB[0, :nn[0, P.u], :].copy()
