"""A round-3 showdown node worked one entering history at a time
(:mod:`lab.solver.fullgame.kernels`).

A lazy ``CFR`` walk on float32 storage (the stored solves' settings) works a round-3
showdown node (``LAST``) one entering history at a time (:func:`last_node_by_history`,
``Step.one_pass``): a history's betting nodes are enumerated, walked forward, shown down
and walked back before the next history's, in the first rows of the depth's buffers, with
the numbers of the three passes over the whole node
(:func:`~lab.solver.fullgame.betting.prepare_node`,
:func:`~lab.solver.fullgame.showdowns.showdown_node`,
:func:`~lab.solver.fullgame.betting.finish_node`) that the other walks keep: a best
response for a policy's action values reads every betting node's values after the walk.
Both forms share the per-node pieces of :mod:`~lab.solver.fullgame.betting`. A dead
history (the opponent reaches it with probability zero) is passed over without a look:
its values are zero, and a live one's storage offsets come from per-history tables
(:func:`history_offsets`) instead of from stepping over the histories before it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..indexing import without_wraparound
from .records import LAST, T_NODE
from .updates import catch_up, store_regrets, store_sums
from .showdowns import (follower_results, forced_turn_values, node_deal_block, node_lists,
                        run_payoff, showdown_stakes, showdown_values)
from .betting import (answer_strategy, answers_of_opponent, answers_of_walker,
                      card_or_raise_strategy, card_raise_regrets, card_raise_sums,
                      card_raise_values, forced_alone, prefetch_update, reach_through,
                      stored_entries, strategy_width, template_entries)

without_wraparound(__name__)   # computed indices, never negative (see indexing)


@njit(cache=True, _nrt=False)
def last_node_by_history(c, d, H, T, S, W, P):
    """A ``LAST`` card node ``c`` at depth ``d`` in a lazy ``CFR`` walk on float32 storage, the
    follower holding one card a state, worked one entering history after the other: the
    numbers of :func:`prepare_node`, :func:`showdown_node` and :func:`finish_node` (the
    histories set apart as there), but each history's betting nodes are enumerated, walked
    forward, shown down and walked back at once, in the first rows of ``W``'s depth ``d`` (a
    history's betting nodes depend on no other's). Writes ``W.OUT[d]`` and the updates, and counts
    the pairs in ``W.DC``; ``W`` keeps no betting node's values after it."""
    nn, slot_base, node_base, t_start, t_size, t_kind, t_parent, t_child_a, t_child_b = (
        T.nn, T.slot_base, T.node_base, T.t_start, T.t_size, T.t_kind, T.t_parent,
        T.t_child_a, T.t_child_b)
    ENT, OUT, ES, RI, VI, SIG, KI, TMP, DK, ED = (W.ENT, W.OUT, W.ES, W.RI, W.VI, W.SIG, W.KI,
                                                  W.TMP, W.DK, W.ED)
    u = P.u
    o = 1 - u
    a, n0, n1, na, nu, no_, pa = node_lists(T, c, u)
    E = na   # one card a state
    node_deal_block(T, c, u, P.Wu, W.WC, d)
    u_moves = u == a
    won = TMP[0]
    follower_results(c, a, na, pa, T, P, won)
    eo = 0 if o == 0 else H * n0   # the opponent's entering reach, one row per history
    hs = T.history_start[c]
    n_dead = 0   # dead betting nodes of live histories
    n_live = 0   # betting nodes of live histories
    for x in range(H * nu):   # a dead history's values: zero
        OUT[d, x] = 0.0
    for h in range(H):
        if ED[d, h] != 0:   # dead: nothing of its is read or written
            continue
        s = ES[d, h]
        st = t_start[a, s]
        G = t_size[a, s]
        n_live += G
        if forced_alone(T, a, s):   # set apart: no betting node
            gain, loss = showdown_stakes(P, T.t_value[st])
            forced_turn_values(W, d, h, u_moves, eo, na, nu, no_, gain, loss, won, False)
            continue
        slot = slot_base[c] + T.history_slot[hs + h]
        node = node_base[c] + T.history_node[hs + h]
        # its betting nodes: template node st + g is row g (KI columns as in prepare_node)
        sig = 0
        for g in range(G):
            gid = st + g
            KI[d, g, 0] = gid
            KI[d, g, 2] = slot
            KI[d, g, 3] = node
            KI[d, g, 4] = sig
            node += 1
            slot += stored_entries(T, c, gid, E, na)
            sig += strategy_width(T, c, gid, E, na)
        # forward: the opponent's reach; the strategies of the nodes he reaches
        for g in range(G):
            gid = KI[d, g, 0]
            par = t_parent[gid]
            if par < 0:
                dead = False
                for i in range(no_):
                    RI[d, g * no_ + i] = ENT[d, eo + h * no_ + i]
            else:
                dead = DK[d, par] != 0 or reach_through(T, W, d, g, par, gid, a, o, E, 0, no_,
                                                        True)
            DK[d, g] = 1 if dead else 0
            if dead:
                n_dead += 1
                continue
            ks = KI[d, g, 2]
            so = KI[d, g, 4]
            prefetch_update(T, S, c, gid, o, ks, KI[d, g, 3], stored_entries(T, c, gid, E, na))
            if t_kind[gid] != T_NODE:
                answer_strategy(S, False, ks, nn[c, T.t_answerer[gid]],
                                3 if t_child_b[gid] >= 0 else 2, SIG, d, so, TMP)
            elif t_child_a[gid] >= 0:
                card_or_raise_strategy(S, False, ks, E, na, SIG, d, so)
            else:   # the forced card alone
                for e in range(E):
                    SIG[d, so + e] = 1.0
        for x in range(G * nu):
            VI[d, x] = 0.0
        for g in range(G):   # the follower's forced card: the showdowns
            gid = KI[d, g, 0]
            if t_kind[gid] == T_NODE and DK[d, g] == 0:
                gain, loss = showdown_stakes(P, T.t_value[gid])
                showdown_values(W, d, u_moves, g * no_, g * nu, KI[d, g, 4], na, nu, no_,
                                gain, loss, won)
        for g in range(G - 1, -1, -1):   # backward: values and updates
            if DK[d, g] != 0:   # dead: values zero, the discounts wait (lazy)
                continue
            gid = KI[d, g, 0]
            ks = KI[d, g, 2]
            pub = KI[d, g, 3]
            so = KI[d, g, 4]
            cs = np.float64(S.cscale[pub])
            if t_kind[gid] == T_NODE:
                kq = t_child_a[gid]
                if kq < 0:   # the forced card alone: nothing stored
                    if u_moves:
                        card_raise_values(W, d, g, kq, nu, so, E, na, False)
                    continue
                if not u_moves:
                    for i in range(nu):
                        VI[d, g * nu + i] += VI[d, kq * nu + i]
                    card_raise_sums(S, W, P, d, g * na, ks, so, E, na, cs)
                    store_sums(ks, E + na, pub, S, TMP, P.it)
                    continue
                card_raise_values(W, d, g, kq, nu, so, E, na, False)
                lag, gp, gn = catch_up(pub, S, P)
                card_raise_regrets(S, W, P, d, g, ks, so, E, na, nu, 1.0, lag, gp, gn)
                store_regrets(ks, E + na, pub, S, TMP, P.predictive)
                continue
            b = T.t_answerer[gid]
            sgn = run_payoff(P, T.t_value[gid], b)
            n_ans = 3 if t_child_b[gid] >= 0 else 2
            if b == u:
                answers_of_walker(S, W, P, d, g, t_child_a[gid], t_child_b[gid], ks, so, pub,
                                  g * no_, nu, no_, n_ans, sgn, 1.0, True)
            else:
                answers_of_opponent(S, W, P, d, g, t_child_a[gid], t_child_b[gid], ks, so, pub,
                                    g * no_, no_, nu, no_, n_ans, sgn, cs, True)
        for i in range(nu):
            OUT[d, h * nu + i] = VI[d, i]
    # the dead histories' betting nodes count as dead, as prepare_node counts them
    W.DC[0] += (n_dead + T.node_count[c] - n_live) * (n0 + n1)
    W.DC[1] += T.node_count[c] * (n0 + n1)
    return 0


@njit(cache=True)
def history_offsets(T, states):
    """T.history_slot and T.history_node of every ``LAST`` card node's entering histories
    (their betting states ``states``, :func:`~lab.solver.fullgame.tree.entering_states`):
    the storage offsets :func:`last_node_by_history` starts each live history at, without
    stepping over the histories before it."""
    for c in range(T.kind.shape[0]):
        if T.kind[c] != LAST:
            continue
        a = T.actor[c]
        na = T.nn[c, a]
        slot = 0
        node = 0
        for h in range(T.history_start[c], T.history_start[c + 1]):
            st = T.t_start[a, states[h]]
            G = T.t_size[a, states[h]]
            T.history_slot[h] = slot
            T.history_node[h] = node
            slot += template_entries(T, c, st, G, T.n_edges[c], na)
            node += G
    return 0
