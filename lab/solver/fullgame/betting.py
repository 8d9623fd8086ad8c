"""A card node's betting nodes in the full game's walk (:mod:`lab.solver.fullgame.kernels`).

Every history entering a card node is expanded through its betting template into T nodes
(the player to play: a card or a raise) and Q nodes (a raise answered: accept, run,
re-raise). :func:`prepare_node` enumerates them and computes, forward, their strategies
(regret matching, or the average strategy) and the opponent's reach; after the card
children are walked, :func:`finish_node` goes back over them: ``u``'s values, his regrets
and the opponent's strategy sums. The per-node pieces both of those and
:mod:`~lab.solver.fullgame.last_node` are made of (the opponent's reach through a move,
the strategies of T and Q nodes, the updates of T and Q nodes) are functions of their own,
so every form of the walk computes the same numbers.

Where each state holds one card move, edge ``i`` of state ``i`` (the round-3 cards,
forced: nine tenths of the walk's (node, hand) pairs), a T node's strategy and updates take
a short path without the per-state edge ranges (:func:`card_or_raise`), with the same
numbers; and a history entering there whose turn is that card alone (three in four) gets
no betting node at all: :func:`~lab.solver.fullgame.showdowns.showdown_node` writes its
values from its entering reach (:func:`forced_alone`, ``Step.apart``). In a lazy ``CFR``
walk so does a dead history entering there (the opponent reaches it with probability
zero): its values are zero.

The forward pass at a card node asks for the cache lines its backward pass will read
first (the opponent's strategy sums and the nodes' stamps, :mod:`lab.solver.prefetch`):
they were last touched an iteration ago; a best response asks for the opponent's average
strategy as it enumerates the betting nodes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..indexing import without_wraparound
from ..prefetch import prefetch, prefetch_range
from .records import AVERAGE, BEST, CFR, LAST, T_NODE
from .updates import catch_up, caught_up, discount_dead, new_regret, store_regrets, store_sums
from .showdowns import deal_sums, node_deal_block, node_lists, run_payoff

without_wraparound(__name__)   # computed indices, never negative (see indexing)


@njit(cache=True, inline="always")
def card_or_raise(src, clamp, ks, E, na, SIG, d, so):
    """The strategy of a T node where each state holds one card move, edge ``i`` of state
    ``i`` (``E == na``: the round-3 cards, forced), and may raise: per state two slots, the
    card at ``ks + i`` and the raise at ``ks + E + i``, matched from ``src`` (regrets, floored
    at zero with ``clamp``, or strategy sums) into SIG[d, so + i] and SIG[d, so + E + i].
    The numbers of the general loop in :func:`prepare_node`, without its edge lookups."""
    for i in range(na):
        x0 = np.float64(src[ks + i])
        x1 = np.float64(src[ks + E + i])
        if clamp:
            if x0 < 0.0:
                x0 = 0.0
            if x1 < 0.0:
                x1 = 0.0
        tot = 0.0 + x0
        tot += x1
        SIG[d, so + i] = x0 / tot if tot > 0.0 else 0.5
        SIG[d, so + E + i] = x1 / tot if tot > 0.0 else 0.5
    return 0


@njit(cache=True, inline="always")
def forced_alone(T, a, s):
    """True where the turn of ``a`` entered in betting state ``s`` at a ``LAST`` node is its
    forced card alone: one T node that may not raise (he raised last, or nothing is left to
    raise to), so no choice, no storage and no betting nodes after it. Three in four of the
    ``LAST`` nodes' entering histories are so."""
    return T.t_size[a, s] == 1 and T.t_child_a[T.t_start[a, s]] < 0


@njit(cache=True, inline="always")
def owner_of(T, c, gid):
    """The seat whose strategy betting node ``gid`` (a template node) at card node ``c``
    holds: the mover of a T node, the answerer of a Q node."""
    return T.actor[c] if T.t_kind[gid] == T_NODE else T.t_answerer[gid]


@njit(cache=True, inline="always")
def stored_entries(T, c, gid, E, na):
    """How many regret (and strategy-sum) entries betting node ``gid`` (a template node) has
    at card node ``c`` (``E`` card edges, ``na`` states of its actor): a T node one per card
    edge where some state has a choice, plus one raise per state where it may raise; a Q
    node two answers (accept, run) or three (and re-raise) per state of the answerer."""
    if T.t_kind[gid] == T_NODE:
        if T.t_child_a[gid] >= 0:
            return E + na
        return E if E > na else 0
    return (3 if T.t_child_b[gid] >= 0 else 2) * T.nn[c, T.t_answerer[gid]]


@njit(cache=True, inline="always")
def template_entries(T, c, st, G, E, na):
    """The regret entries of the ``G`` betting nodes of a template from node ``st`` on at card
    node ``c`` (:func:`stored_entries` summed): what the storage offsets step over for a
    history set apart."""
    m = 0
    for g in range(G):
        m += stored_entries(T, c, st + g, E, na)
    return m


@njit(cache=True, inline="always")
def strategy_width(T, c, gid, E, na):
    """How many strategy (and action value) entries betting node ``gid`` takes in W.SIG and
    W.EV at card node ``c``: a T node its card edges and one raise per state, a Q node three
    answers per state of the answerer."""
    return E + na if T.t_kind[gid] == T_NODE else 3 * T.nn[c, T.t_answerer[gid]]


@njit(cache=True, inline="always")
def prefetch_sums(S, start, count):
    """Hint the strategy sums ``start:start + count`` (float32 or 16 bits) into the cache."""
    if S.wide:
        prefetch_range(S.cum32, start, count)
    else:
        prefetch_range(S.cum16, start, count)


@njit(cache=True, inline="always")
def reach_through(T, W, d, k, par, gid, a, o, E, ro, no_, prune):
    """RI[d, ro + k * no_ + i]: the opponent ``o``'s reach at betting node ``k`` (template node
    ``gid``) from its parent ``par`` (rows of W.KI), times his strategy where the move from
    ``par`` to ``k`` is his: the raise of his T node or his answer to a raise. Returns True
    where that leaves him reaching ``k`` with probability zero for every pair (with
    ``prune``; a move of the walker's never makes a node dead)."""
    RI, SIG = W.RI, W.SIG
    for i in range(no_):
        RI[d, ro + k * no_ + i] = RI[d, ro + par * no_ + i]
    pg = W.KI[d, par, 0]
    ps = W.KI[d, par, 4]
    # o's strategy at par for the move to k: the raise of his T node (SIG[ps + E + i]) or
    # his answer to a raise (SIG[ps + 3 i + col])
    first, step = -1, 0
    if T.t_kind[pg] == T_NODE:
        if a == o:
            first, step = ps + E, 1
    elif T.t_answerer[pg] == o:
        first, step = ps + (0 if T.t_kind[gid] == T_NODE else 2), 3
    if first < 0:
        return False
    dead = prune
    for i in range(no_):
        r = RI[d, ro + k * no_ + i] * SIG[d, first + step * i]
        RI[d, ro + k * no_ + i] = r
        if r != 0.0:
            dead = False
    return dead


@njit(cache=True, inline="always")
def card_or_raise_strategy(S, use_cum, ks, E, na, SIG, d, so):
    """:func:`card_or_raise` from the regrets regret matching reads (``S.pred*``, floored at
    zero) or, with ``use_cum``, from the strategy sums."""
    if use_cum:
        if S.wide:
            card_or_raise(S.cum32, False, ks, E, na, SIG, d, so)
        else:
            card_or_raise(S.cum16, False, ks, E, na, SIG, d, so)
    elif S.wide:
        card_or_raise(S.pred32, True, ks, E, na, SIG, d, so)
    else:
        card_or_raise(S.pred16, True, ks, E, na, SIG, d, so)
    return 0


@njit(cache=True, inline="always")
def answer_strategy(S, use_cum, ks, nb, n_ans, SIG, d, so, TMP):
    """The strategy of a Q node (``nb`` states of the answerer, ``n_ans`` answers a state,
    their slots from ``ks`` on) into SIG[d, so + 3 i + answer]: matched from the regrets
    regret matching reads (``S.pred*``, floored at zero) or, with ``use_cum``, from the
    strategy sums; uniform where they are all zero."""
    wide = S.wide
    for i in range(nb):
        tot = 0.0
        for q in range(n_ans):
            sl = ks + i * n_ans + q
            if use_cum:
                xv = S.cum32[sl] if wide else np.float64(S.cum16[sl])
            else:
                xv = S.pred32[sl] if wide else np.float64(S.pred16[sl])
                if xv < 0.0:
                    xv = 0.0
            TMP[1, q] = xv
            tot += xv
        for x in range(3):
            SIG[d, so + 3 * i + x] = ((TMP[1, x] / tot if tot > 0.0 else 1.0 / n_ans)
                                      if x < n_ans else 0.0)
    return 0


@njit(cache=True, inline="always")
def prefetch_update(T, S, c, gid, o, ks, pub, m):
    """What a ``CFR`` walk's backward pass will read at betting node ``gid`` (``m`` entries
    from slot ``ks``, public node ``pub``), asked for in its forward pass: the opponent
    ``o``'s strategy sums, their scale and stamp at his nodes, the walker's regret stamp
    at his own."""
    if owner_of(T, c, gid) == o:
        prefetch_sums(S, ks, m)
        prefetch(S.cscale, pub)
        prefetch(S.cstamp, pub)
    else:
        prefetch(S.rstamp, pub)
    return 0


@njit(cache=True, _nrt=False)
def prepare_node(c, d, H, T, S, W, P, apart):
    """Enumerate the betting nodes of card node ``c``, their strategies and reach; zero
    the values; gather the deal weights of the two lists. Returns (K nodes, TT T nodes,
    NF histories set apart): with ``apart``, the histories entering a ``LAST`` node whose
    turn is the forced card alone (:func:`forced_alone`) get no betting node, nor, in a lazy
    ``CFR`` walk, those the opponent reaches with probability zero (dead: their betting
    nodes are dead too, so nothing of theirs is read or written; on vira 4 late in a solve
    16 million of an iteration's histories entering ``LAST`` nodes are dead, 6.7 million
    live); they are listed in ``W.FH[d, :NF]`` and :func:`showdown_node` writes their values.
    In a ``CFR`` walk only the opponent's reach, and only at live nodes: ``W.DK[d, k]`` is 1
    where he reaches node ``k`` with probability zero for each of his pairs (then no
    strategy is needed there either)."""
    (kind, nn, n_edges, pair_edge_start, pair_edge_count, slot_base, node_base, t_start,
     t_size, t_kind, t_parent, t_child_a, t_child_b, t_answerer) = (
        T.kind, T.nn, T.n_edges, T.pair_edge_start, T.pair_edge_count, T.slot_base,
        T.node_base, T.t_start, T.t_size, T.t_kind, T.t_parent, T.t_child_a, T.t_child_b,
        T.t_answerer)
    # regret matching reads the predicted regrets (the regrets themselves unless predictive)
    wide, reg32, reg16, cum32, cum16 = S.wide, S.pred32, S.pred16, S.cum32, S.cum16
    ENT, ES, RI, VI, SIG, KI, TMP, WC, TK = W.ENT, W.ES, W.RI, W.VI, W.SIG, W.KI, W.TMP, W.WC, W.TK
    u, mode, Wu = P.u, P.mode, P.Wu
    a, n0, n1, na, nu, _, pa = node_lists(T, c, u)
    E = n_edges[c]
    choice = E > na
    is_last = kind[c] == LAST
    # ---------------------------------------------------------- intra nodes
    # KI columns: 0 template id, 1 parent intra, 2 slot, 3 public node, 4 sig offset,
    #             5 T index (T nodes), 6 entering history, 7 root intra of its history
    K = 0
    slot = slot_base[c]
    node = node_base[c]
    sig = 0
    tcount = 0
    NF = 0
    # set apart: the forced turns alone (one T node, nothing stored) and, in a lazy CFR
    # walk, the dead histories (values zero, betting nodes untouched); the storage offsets
    # step over their templates
    dead_apart = apart and is_last and mode == CFR and P.prune and P.lazy
    n_dead_apart = 0   # dead histories' betting nodes but one each (the FH count adds that)
    for h in range(H):
        s = ES[d, h]
        st = t_start[a, s]
        forced = apart and is_last and forced_alone(T, a, s)
        if forced or (dead_apart and W.ED[d, h] != 0):
            W.FH[d, NF] = h
            NF += 1
            node += t_size[a, s]
            if not forced:   # (a forced turn alone stores nothing)
                slot += template_entries(T, c, st, t_size[a, s], E, na)
                n_dead_apart += t_size[a, s] - 1
            continue
        base = K
        for g in range(t_size[a, s]):
            gid = st + g
            k = base + g
            KI[d, k, 0] = gid
            KI[d, k, 1] = base + t_parent[gid] if t_parent[gid] >= 0 else -1
            KI[d, k, 2] = slot
            KI[d, k, 3] = node
            KI[d, k, 4] = sig
            KI[d, k, 6] = h
            KI[d, k, 7] = base
            node += 1
            m = stored_entries(T, c, gid, E, na)
            if mode == BEST and owner_of(T, c, gid) != u:   # his average strategy, next
                prefetch_sums(S, slot, m)
            slot += m
            sig += strategy_width(T, c, gid, E, na)
            if t_kind[gid] == T_NODE:
                KI[d, k, 5] = tcount
                tcount += 1
            else:
                KI[d, k, 5] = -1
        K += t_size[a, s]
    TT = tcount
    # RI layout at depth d: [k, mão pairs] block (K * n0), then [k, pé pairs] block
    r0 = 0
    r1 = K * n0
    e0 = 0
    e1 = H * n0
    # ---------------------------------------------------------- forward: strategies and reach
    cfr = mode == CFR
    prune = P.prune
    o = 1 - u
    no_ = nn[c, o]
    ro = r0 if o == 0 else r1
    eo = e0 if o == 0 else e1
    DK, ED = W.DK, W.ED
    n_dead = 0   # counted here, added to W.DC once
    for k in range(K):
        gid = KI[d, k, 0]
        par = KI[d, k, 1]
        h = KI[d, k, 6]
        if cfr:   # the opponent's reach only; a dead node needs no strategy either
            dead = ED[d, h] != 0 if par < 0 else DK[d, par] != 0
            if not dead:
                if par < 0:
                    for i in range(no_):
                        RI[d, ro + k * no_ + i] = ENT[d, eo + h * no_ + i]
                else:
                    dead = reach_through(T, W, d, k, par, gid, a, o, E, ro, no_, prune)
            DK[d, k] = 1 if dead else 0
            if dead:
                n_dead += 1
                continue
        elif par < 0:
            for i in range(n0):
                RI[d, r0 + k * n0 + i] = ENT[d, e0 + h * n0 + i]
            for i in range(n1):
                RI[d, r1 + k * n1 + i] = ENT[d, e1 + h * n1 + i]
        else:
            for i in range(n0):
                RI[d, r0 + k * n0 + i] = RI[d, r0 + par * n0 + i]
            for i in range(n1):
                RI[d, r1 + k * n1 + i] = RI[d, r1 + par * n1 + i]
            pg = KI[d, par, 0]
            ps = KI[d, par, 4]
            if t_kind[pg] == T_NODE:  # k is the raise of T node par (mover a)
                rb = r0 if a == 0 else r1
                for i in range(na):
                    RI[d, rb + k * na + i] *= SIG[d, ps + E + i]
            else:  # k is the accept (col 0) or re-raise (col 2) of Q node par
                b = t_answerer[pg]
                nb = nn[c, b]
                col = 0 if t_kind[gid] == T_NODE else 2
                rb = r0 if b == 0 else r1
                for i in range(nb):
                    RI[d, rb + k * nb + i] *= SIG[d, ps + 3 * i + col]
        # this node's strategy
        if mode == BEST and owner_of(T, c, gid) == u:
            continue   # a best response never reads u's own strategy
        ks = KI[d, k, 2]
        so = KI[d, k, 4]
        if cfr:   # what the backward pass will read: the opponent's sums, u's stamp
            prefetch_update(T, S, c, gid, o, ks, KI[d, k, 3], stored_entries(T, c, gid, E, na))
        if t_kind[gid] == T_NODE:
            can_raise = t_child_a[gid] >= 0
            has_slots = can_raise or choice
            use_cum_a = mode == AVERAGE or (mode == BEST and a != u)
            if not has_slots:   # no choice: every state holds one card move, forced
                for e in range(E):
                    SIG[d, so + e] = 1.0
                continue
            if not choice:   # one card move a state, or the raise
                card_or_raise_strategy(S, use_cum_a, ks, E, na, SIG, d, so)
                continue
            for i in range(na):
                es = pair_edge_start[pa + i]
                ec = pair_edge_count[pa + i]
                # strategy over the state's slots
                nsl = ec + (1 if can_raise else 0)
                tot = 0.0
                for q in range(nsl):
                    sl = ks + es + q if q < ec else ks + E + i
                    if use_cum_a:
                        xv = cum32[sl] if wide else np.float64(cum16[sl])
                    else:
                        xv = reg32[sl] if wide else np.float64(reg16[sl])
                        if xv < 0.0:
                            xv = 0.0
                    TMP[1, q] = xv
                    tot += xv
                m = 0
                for e in range(es, es + ec):
                    SIG[d, so + e] = TMP[1, m] / tot if tot > 0.0 else 1.0 / nsl
                    m += 1
                if can_raise:
                    SIG[d, so + E + i] = TMP[1, m] / tot if tot > 0.0 else 1.0 / nsl
        else:
            b = t_answerer[gid]
            use_cum_b = mode == AVERAGE or (mode == BEST and b != u)
            answer_strategy(S, use_cum_b, ks, nn[c, b], 3 if t_child_b[gid] >= 0 else 2, SIG,
                            d, so, TMP)
    if cfr:
        for f in range(NF):
            if ED[d, W.FH[d, f]] != 0:
                n_dead += 1
        n_dead += n_dead_apart
        W.DC[0] += n_dead * (n0 + n1)
        W.DC[1] += T.node_count[c] * (n0 + n1)   # every betting node, set apart or not
    # ---------------------------------------------------------- values: start at zero
    for x in range(K * nu):
        VI[d, x] = 0.0
    # T nodes in order (their index is the entering history of the children)
    for k in range(K):
        if KI[d, k, 5] >= 0:
            TK[d, KI[d, k, 5]] = k
    # ---------------------------------------------------------- card moves
    # the deal weights between u's list and the opponent's, dense (showdowns and runs)
    if is_last or K > TT:  # only showdowns and runs (Q nodes) use it
        node_deal_block(T, c, u, Wu, WC, d)
    return K, TT, NF


@njit(cache=True, inline="always")
def add_raise(d, kq, nu, so, E, i, val, best, W):
    """(value, best) of state ``i`` at a T node with its raise taken into account: the raise's
    value (the Q node ``kq`` after it) is stored as the raise's action value and added to
    ``val`` by its probability; ``best`` is the best action value."""
    ev = W.VI[d, kq * nu + i]
    W.EV[d, so + E + i] = ev
    val += W.SIG[d, so + E + i] * ev
    return val, (ev if ev > best else best)


@njit(cache=True, inline="always")
def card_raise_sums(S, W, P, d, ro, ks, so, E, na, cs):
    """TMP row 4: the opponent's new strategy sums at a T node where each of his ``na``
    states holds one card move (edge ``i`` of state ``i``) and may raise: his old sums (scale
    ``cs``) discounted by the schedule, plus his reach (RI[d, ro + i]) times his strategy."""
    wide, cum32, cum16, TMP, RI, SIG = S.wide, S.cum32, S.cum16, W.TMP, W.RI, W.SIG
    avg = P.avg
    for i in range(na):
        ri = RI[d, ro + i]
        TMP[4, i] = ((cum32[ks + i] if wide else cum16[ks + i]) * cs * avg
                     + ri * SIG[d, so + i])
        e = E + i
        TMP[4, e] = ((cum32[ks + e] if wide else cum16[ks + e]) * cs * avg
                     + ri * SIG[d, so + e])
    return 0


@njit(cache=True, inline="always")
def card_raise_values(W, d, k, kq, nu, so, E, na, best_mode):
    """``u``'s values VI[d, k * nu + i] at his T node ``k`` where each state holds one card
    move (its value EV[d, so + i]) and, where ``kq`` >= 0, may raise (the Q node ``kq``
    after it): the strategy's mix, or with ``best_mode`` the best of them."""
    for i in range(na):
        ev = W.EV[d, so + i]
        val = 0.0 + W.SIG[d, so + i] * ev
        best = ev if ev > -np.inf else -np.inf
        if kq >= 0:
            val, best = add_raise(d, kq, nu, so, E, i, val, best, W)
        W.VI[d, k * nu + i] = best if best_mode else val
    return 0


@njit(cache=True, inline="always")
def card_raise_regrets(S, W, P, d, k, ks, so, E, na, nu, rs, lag, gp, gn):
    """TMP row 3 (and 6): ``u``'s new regrets at that T node (:func:`card_raise_values`
    first), the card's at ``ks + i`` and the raise's at ``ks + E + i`` (16 bits: scale
    ``rs``; ``lag``, ``gp``, ``gn``: :func:`catch_up`)."""
    wide, reg32, reg16, TMP, VI, EV = S.wide, S.reg32, S.reg16, W.TMP, W.VI, W.EV
    for i in range(na):
        vi = VI[d, k * nu + i]
        r = caught_up(reg32[ks + i] if wide else reg16[ks + i] * rs, lag, gp, gn)
        new_regret(r, EV[d, so + i], vi, P.pos, P.neg, P.plus, P.predictive, P.nxt, TMP, i)
        e = E + i
        r = caught_up(reg32[ks + e] if wide else reg16[ks + e] * rs, lag, gp, gn)
        new_regret(r, EV[d, so + e], vi, P.pos, P.neg, P.plus, P.predictive, P.nxt, TMP, e)
    return 0


@njit(cache=True, inline="always")
def answers_of_walker(S, W, P, d, k, kacc, krr, ks, so, pub, ro, nb, nopp, n_ans, sgn, rs,
                      cfr):
    """``u`` answers the raise of Q node ``k``: his values VI[d, k * nu + i] (accept: the
    node ``kacc``, run: the raiser scores the accepted value, ``sgn`` to ``u`` a unit of
    the opponent's reach RI[d, ro + j] through the deal weights, re-raise: the node ``krr``),
    and in a ``CFR`` walk his regrets, written."""
    wide, reg32, reg16, TMP, VI, SIG = S.wide, S.reg32, S.reg16, W.TMP, W.VI, W.SIG
    nu = nb
    lag, gp, gn = False, 1.0, 1.0
    if cfr:
        lag, gp, gn = catch_up(pub, S, P)
    deal_sums(W.WC[d], nu, nopp, W.RI[d, ro:ro + nopp], TMP[5])
    for i in range(nu):
        TMP[5, i] = sgn * TMP[5, i]
    for i in range(nb):
        ev_acc = VI[d, kacc * nu + i]
        ev_run = TMP[5, i]
        ev_rr = VI[d, krr * nu + i] if krr >= 0 else 0.0
        s_acc = SIG[d, so + 3 * i]
        s_run = SIG[d, so + 3 * i + 1]
        s_rr = SIG[d, so + 3 * i + 2]
        val = s_acc * ev_acc + s_run * ev_run + s_rr * ev_rr
        best = max(ev_acc, ev_run)
        if krr >= 0 and ev_rr > best:
            best = ev_rr
        vi = best if P.mode == BEST else val
        VI[d, k * nu + i] = vi
        if cfr:
            for x in range(n_ans):
                ev = ev_acc if x == 0 else (ev_run if x == 1 else ev_rr)
                sl = ks + i * n_ans + x
                r = caught_up(reg32[sl] if wide else reg16[sl] * rs, lag, gp, gn)
                new_regret(r, ev, vi, P.pos, P.neg, P.plus, P.predictive, P.nxt, TMP,
                           i * n_ans + x)
    if cfr:
        store_regrets(ks, nb * n_ans, pub, S, TMP, P.predictive)
    return 0


@njit(cache=True, inline="always")
def answers_of_opponent(S, W, P, d, k, kacc, krr, ks, so, pub, rb, nb, nu, nopp, n_ans, sgn,
                        cs, cfr):
    """The opponent answers the raise of Q node ``k`` (his reach RI[d, rb + j]): ``u``'s
    values VI[d, k * nu + i] (accept and re-raise: the nodes ``kacc`` and ``krr``; run: the
    raiser scores the accepted value, ``sgn`` to ``u``), and in a ``CFR`` walk the
    opponent's strategy sums (scale ``cs``), written."""
    cum32, cum16, wide, TMP, RI, VI, SIG = S.cum32, S.cum16, S.wide, W.TMP, W.RI, W.VI, W.SIG
    for j in range(nb):
        TMP[5, j] = RI[d, rb + j] * SIG[d, so + 3 * j + 1]
    for i in range(nu):
        val = VI[d, kacc * nu + i]
        if krr >= 0:
            val += VI[d, krr * nu + i]
        VI[d, k * nu + i] = val
    deal_sums(W.WC[d], nu, nopp, TMP[5], TMP[2])
    for i in range(nu):
        VI[d, k * nu + i] += sgn * TMP[2, i]
    if cfr:   # the opponent's strategy sums: his reach x strategy
        for j in range(nb):
            rj = RI[d, rb + j]
            for x in range(n_ans):
                sl = ks + j * n_ans + x
                TMP[4, j * n_ans + x] = ((cum32[sl] if wide else cum16[sl]) * cs
                                         * P.avg + rj * SIG[d, so + 3 * j + x])
        store_sums(ks, nb * n_ans, pub, S, TMP, P.it)
    return 0


@njit(cache=True, _nrt=False)
def finish_node(c, d, T, S, W, P, K):
    """Betting backward (values, regret and strategy-sum updates) and the values of the
    entering histories."""
    (nn, n_edges, pair_edge_start, pair_edge_count, t_kind, t_child_a, t_child_b, t_value,
     t_answerer) = (
        T.nn, T.n_edges, T.pair_edge_start, T.pair_edge_count, T.t_kind, T.t_child_a,
        T.t_child_b, T.t_value, T.t_answerer)
    wide, reg32, reg16, rscale, cum32, cum16, cscale = (S.wide, S.reg32, S.reg16, S.rscale,
                                                        S.cum32, S.cum16, S.cscale)
    OUT, RI, VI, SIG, EV, KI, TMP = W.OUT, W.RI, W.VI, W.SIG, W.EV, W.KI, W.TMP
    (u, mode, pos, neg, avg, plus, predictive, nxt) = (
        P.u, P.mode, P.pos, P.neg, P.avg, P.plus, P.predictive, P.nxt)
    a, n0, _, na, nu, nopp, pa = node_lists(T, c, u)
    E = n_edges[c]
    choice = E > na
    r0 = 0
    r1 = K * n0
    # ---------------------------------------------------------- betting: backward
    cfr = mode == CFR
    o = 1 - u
    ro = (r0 if o == 0 else r1)
    for k in range(K - 1, -1, -1):
        gid = KI[d, k, 0]
        h0 = KI[d, k, 7]
        ks = KI[d, k, 2]
        so = KI[d, k, 4]
        pub = KI[d, k, 3]
        dead = cfr and W.DK[d, k] != 0   # the opponent does not reach it
        # a held policy has one scale only, and its walks are never CFR
        rs = np.float64(rscale[pub]) if cfr and not wide and not dead else 1.0
        cs = np.float64(cscale[pub]) if cfr and not dead else 1.0
        if t_kind[gid] == T_NODE:
            kq = h0 + t_child_a[gid] if t_child_a[gid] >= 0 else -1
            can_raise = kq >= 0
            has_slots = can_raise or choice
            m = E + (na if can_raise else 0)
            if dead:   # values stay zero, updates are discounts
                if has_slots and not P.lazy:
                    discount_dead(ks, m, pub, a, S, P, TMP)
                continue
            if u != a:
                if kq >= 0:
                    for i in range(nu):
                        VI[d, k * nu + i] += VI[d, kq * nu + i]
                if cfr and has_slots:   # the opponent's strategy sums: his reach x strategy
                    if not choice:   # one card move a state: edge i, then the raise
                        card_raise_sums(S, W, P, d, ro + k * na, ks, so, E, na, cs)
                    else:
                        for i in range(na):
                            es = pair_edge_start[pa + i]
                            ec = pair_edge_count[pa + i]
                            ri = RI[d, ro + k * na + i]
                            for e in range(es, es + ec):
                                TMP[4, e] = ((cum32[ks + e] if wide else cum16[ks + e]) * cs
                                             * avg + ri * SIG[d, so + e])
                            if can_raise:
                                e = E + i
                                TMP[4, e] = ((cum32[ks + e] if wide else cum16[ks + e]) * cs
                                             * avg + ri * SIG[d, so + e])
                    store_sums(ks, m, pub, S, TMP, P.it)
                continue
            # one card move a state (edge i of state i), or the raise: written out, as the
            # general loops with that edge range were 2-3 % slower an iteration
            if not choice:
                card_raise_values(W, d, k, kq, nu, so, E, na, mode == BEST)
            else:
                for i in range(na):
                    es = pair_edge_start[pa + i]
                    ec = pair_edge_count[pa + i]
                    best = -np.inf
                    val = 0.0
                    for e in range(es, es + ec):
                        ev = EV[d, so + e]
                        val += SIG[d, so + e] * ev
                        if ev > best:
                            best = ev
                    if can_raise:
                        val, best = add_raise(d, kq, nu, so, E, i, val, best, W)
                    VI[d, k * nu + i] = best if mode == BEST else val
            if cfr and has_slots:   # u's regrets
                lag, gp, gn = catch_up(pub, S, P)
                if not choice:
                    card_raise_regrets(S, W, P, d, k, ks, so, E, na, nu, rs, lag, gp, gn)
                else:
                    for i in range(na):
                        es = pair_edge_start[pa + i]
                        ec = pair_edge_count[pa + i]
                        vi = VI[d, k * nu + i]
                        for e in range(es, es + ec):
                            r = caught_up(reg32[ks + e] if wide else reg16[ks + e] * rs, lag, gp,
                                          gn)
                            new_regret(r, EV[d, so + e], vi, pos, neg, plus, predictive, nxt,
                                       TMP, e)
                        if can_raise:
                            e = E + i
                            r = caught_up(reg32[ks + e] if wide else reg16[ks + e] * rs, lag, gp,
                                          gn)
                            new_regret(r, EV[d, so + e], vi, pos, neg, plus, predictive, nxt,
                                       TMP, e)
                store_regrets(ks, m, pub, S, TMP, predictive)
        else:
            b = t_answerer[gid]
            nb = nn[c, b]
            n_ans = 3 if t_child_b[gid] >= 0 else 2
            m = nb * n_ans
            if dead:   # values stay zero, updates are discounts
                if not P.lazy:
                    discount_dead(ks, m, pub, b, S, P, TMP)
                continue
            kacc = h0 + t_child_a[gid]
            krr = h0 + t_child_b[gid] if t_child_b[gid] >= 0 else -1
            sgn = run_payoff(P, t_value[gid], b)   # the run: the raiser scores the accepted value
            if u == b:
                answers_of_walker(S, W, P, d, k, kacc, krr, ks, so, pub, ro + k * nopp, nb,
                                  nopp, n_ans, sgn, rs, cfr)
            else:
                answers_of_opponent(S, W, P, d, k, kacc, krr, ks, so, pub, ro + k * nb, nb, nu,
                                    nopp, n_ans, sgn, cs, cfr)
    # ---------------------------------------------------------- out: each history's root node
    # (those set apart by prepare_node have theirs from showdown_node)
    for k in range(K):
        if KI[d, k, 1] < 0:
            h = KI[d, k, 6]
            for i in range(nu):
                OUT[d, h * nu + i] = VI[d, k * nu + i]
    return 0
