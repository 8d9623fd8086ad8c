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

The tree walk and the layout are :mod:`lab.solver.fullgame.kernels`' (its
``_prepare`` enumerates the betting nodes, strategies and reach); only the
values are new: ``VB[d, node * n_u + i, b]`` (betting nodes), ``EB[d, slot, b]``
(the card edges of ``u``'s own T nodes; his raises read ``VB``) and ``OB[d, history * n_u + i, b]``
(the entering histories), the batch index last so that its loops are contiguous.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import (AVERAGE, BEST, END, LAST, T_NODE, _enter_child, _gather, _prepare,
                           _showdown_winner)


@njit(cache=True)
def _pay(WIN, LOSE, kv, v, won, PAY):
    """PAY[b]: what ``u`` gets per unit of reach for an outcome worth ``ladder[kv] = v``
    that he wins (``won``) or loses, for each payoff column ``b``."""
    for b in range(WIN.shape[0]):
        PAY[b] = v * WIN[b, kv] if won else -v * LOSE[b, kv]
    return 0


@njit(cache=True)
def _end_values(c, d, H, u, WIN, LOSE, winner, pair_start, nn, pair_hand, ladder, tv, Wu,
                ENT, WC, OB, PAY):
    """OB[d] for an END card node: the winner scores the accepted value of each history."""
    n0 = nn[c, 0]
    nu, no = nn[c, u], nn[c, 1 - u]
    pu = pair_start[c] + (n0 if u == 1 else 0)
    po = pair_start[c] + (n0 if u == 0 else 0)
    eo = n0 * H if u == 0 else 0
    B = WIN.shape[0]
    _gather(Wu, pair_hand, pu, nu, po, no, WC, d)
    for h in range(H):
        _pay(WIN, LOSE, tv[h], ladder[tv[h]], winner[c] == u, PAY)
        for i in range(nu):
            acc = 0.0
            for j in range(no):
                acc += WC[d, i * no + j] * ENT[d, eo + h * no + j]
            x = h * nu + i
            for b in range(B):
                OB[d, x, b] = PAY[b] * acc
    return 0


@njit(cache=True)
def _showdown(c, d, u, WIN, LOSE, actor, showdown, lead, pair_start, nn, pair_level,
              t_value, ladder, KI, RI, SIG, TMP, WC, TK, K, TT, VB, EB, PAY):
    """The round-3 follower's forced last card: showdown values of every T node."""
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
                    acc += WC[d, i * nopp + j] * RI[d, ro + j]
                y = pair_level[pa + i]
                w = _showdown_winner(showdown, c, y, lead_lv)
                _pay(WIN, LOSE, kv, v, w == u, PAY)
                for b in range(B):
                    EB[d, so + i, b] = PAY[b] * acc
        else:        # the opponent's last card: split his reach by who wins
            ra = (0 if a == 0 else r1) + k * na
            for j in range(na):
                y = pair_level[pa + j]
                w = _showdown_winner(showdown, c, y, lead_lv)
                r = RI[d, ra + j] * SIG[d, so + j]
                TMP[2, j] = r if w == u else 0.0
                TMP[3, j] = 0.0 if w == u else r
            for i in range(nu):
                won = 0.0
                lost = 0.0
                for j in range(nopp):
                    won += WC[d, i * nopp + j] * TMP[2, j]
                    lost += WC[d, i * nopp + j] * TMP[3, j]
                x = k * nu + i
                for b in range(B):
                    VB[d, x, b] += v * (WIN[b, kv] * won - LOSE[b, kv] * lost)
    return 0


@njit(cache=True)
def _finish(c, d, H, u, mode, WIN, LOSE, actor, pair_start, nn, n_edges, pair_edge_start,
            pair_edge_count, t_size, t_kind, t_child_a, t_child_b, t_value, t_answerer, ladder,
            ES, RI, SIG, KI, TMP, WC, K, VB, EB, OB, PAY):
    """Betting backward (values only) and the values of the entering histories."""
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
            _pay(WIN, LOSE, kv, ladder[kv], answerer != u, PAY)   # the run: the raiser scores
            if u == answerer:
                ro = (0 if u == 1 else r1) + k * nopp
                for i in range(nu):
                    acc = 0.0
                    for j in range(nopp):
                        acc += WC[d, i * nopp + j] * RI[d, ro + j]
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
                        acc += WC[d, i * nopp + j] * TMP[5, j]
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


# self-recursive: compiled in each process (numba's cache cannot reload it)
@njit(cache=False)
def _visit(c, d, H, u, mode, WIN, LOSE, one, wide,
           kind, actor, winner, showdown, lead, child_start, child_count, pair_start, nn,
           n_edges, pair_hand, pair_level, pair_parent, pair_edge, pair_edge_start,
           pair_edge_count, slot_base, node_base,
           t_start, t_size, t_kind, t_parent, t_child_a, t_child_b, t_value, t_exit,
           t_answerer, ladder, Wu,
           reg32, reg16, rscale, cum32, cum16, cscale,
           ENT, OUT, ES, RI, VI, SIG, EV, KI, TMP, WC, TK, VB, EB, OB, PAY):
    a = actor[c]
    n0, n1 = nn[c, 0], nn[c, 1]
    nu = nn[c, u]
    B = WIN.shape[0]
    K, TT = _prepare(c, d, H, u, mode, 0.0, 0.0, 0.0, wide, one, one,
                     kind, actor, winner, showdown, lead, child_start, child_count, pair_start,
                     nn, n_edges, pair_hand, pair_level, pair_parent, pair_edge,
                     pair_edge_start, pair_edge_count, slot_base, node_base,
                     t_start, t_size, t_kind, t_parent, t_child_a, t_child_b, t_value, t_exit,
                     t_answerer, ladder, Wu,
                     reg32, reg16, rscale, cum32, cum16, cscale,
                     ENT, OUT, ES, RI, VI, SIG, EV, KI, TMP, WC, TK)
    for x in range(K * nu):
        for b in range(B):
            VB[d, x, b] = 0.0
    if kind[c] == LAST:
        _showdown(c, d, u, WIN, LOSE, actor, showdown, lead, pair_start, nn, pair_level,
                  t_value, ladder, KI, RI, SIG, TMP, WC, TK, K, TT, VB, EB, PAY)
    else:
        d1 = d + 1
        for t in range(TT):
            ES[d1, t] = t_exit[KI[d, TK[d, t], 0]]
        for ch in range(child_start[c], child_start[c] + child_count[c]):
            c0 = nn[ch, 0]
            q0 = pair_start[ch]
            _enter_child(ch, d, a, K, TT, n0, n1, nn, pair_start, pair_parent, pair_edge,
                         KI, RI, SIG, TK, ENT)
            if kind[ch] == END:
                tv = np.empty(TT, dtype=np.int64)
                for t in range(TT):
                    tv[t] = t_value[KI[d, TK[d, t], 0]]
                _end_values(ch, d1, TT, u, WIN, LOSE, winner, pair_start, nn, pair_hand, ladder,
                            tv, Wu, ENT, WC, OB, PAY)
            else:
                _visit(ch, d1, TT, u, mode, WIN, LOSE, one, wide,
                       kind, actor, winner, showdown, lead, child_start, child_count,
                       pair_start, nn, n_edges, pair_hand, pair_level, pair_parent, pair_edge,
                       pair_edge_start, pair_edge_count, slot_base, node_base,
                       t_start, t_size, t_kind, t_parent, t_child_a, t_child_b, t_value,
                       t_exit, t_answerer, ladder, Wu,
                       reg32, reg16, rscale, cum32, cum16, cscale,
                       ENT, OUT, ES, RI, VI, SIG, EV, KI, TMP, WC, TK, VB, EB, OB, PAY)
            # gather the child's values back to this node's T nodes
            cu = nn[ch, u]
            qu = q0 + (c0 if u == 1 else 0)
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
    _finish(c, d, H, u, mode, WIN, LOSE, actor, pair_start, nn, n_edges, pair_edge_start,
            pair_edge_count, t_size, t_kind, t_child_a, t_child_b, t_value, t_answerer, ladder,
            ES, RI, SIG, KI, TMP, WC, K, VB, EB, OB, PAY)
    return 0


@njit(cache=False)
def traverse_batch(u, mode, WIN, LOSE, wide,
                   kind, actor, winner, showdown, lead, child_start, child_count, pair_start, nn,
                   n_edges, pair_hand, pair_level, pair_parent, pair_edge, pair_edge_start,
                   pair_edge_count, slot_base, node_base,
                   t_start, t_size, t_kind, t_parent, t_child_a, t_child_b, t_value, t_exit,
                   t_answerer, ladder, Wu,
                   reg32, reg16, rscale, cum32, cum16, cscale,
                   ENT, OUT, ES, RI, VI, SIG, EV, KI, TMP, WC, TK, VB, EB, OB):
    """``[root hand, b]``: the values of ``u``'s root hands (payoff times deal
    probability) with the payoffs ``WIN[b]``, ``LOSE[b]`` (arrays over the ladder, as
    ``win`` and ``lose`` of :func:`kernels.traverse`), in ``BEST`` or ``AVERAGE`` mode."""
    assert mode == BEST or mode == AVERAGE
    one = np.ones(ladder.shape[0])
    PAY = np.empty(WIN.shape[0])
    for i in range(nn[0, 0] + nn[0, 1]):
        ENT[0, i] = 1.0
    ES[0, 0] = 0
    _visit(0, 0, 1, u, mode, WIN, LOSE, one, wide,
           kind, actor, winner, showdown, lead, child_start, child_count, pair_start, nn,
           n_edges, pair_hand, pair_level, pair_parent, pair_edge, pair_edge_start,
           pair_edge_count, slot_base, node_base,
           t_start, t_size, t_kind, t_parent, t_child_a, t_child_b, t_value, t_exit,
           t_answerer, ladder, Wu,
           reg32, reg16, rscale, cum32, cum16, cscale,
           ENT, OUT, ES, RI, VI, SIG, EV, KI, TMP, WC, TK, VB, EB, OB, PAY)
    return OB[0, :nn[0, u], :].copy()
