"""Terminal values of the full game's walk (:mod:`lab.solver.fullgame.kernels`), through
the deal weights ``W[hand_u, hand_o]`` of the two seats' lists at a card node: a run pays
the raiser the accepted value, an ``END`` card node pays its winner the accepted value, a
round-3 showdown (a ``LAST`` node: the follower's forced last card) pays according to the
follower's last card against the public lead.
"""

from __future__ import annotations

from numba import njit

from ..indexing import without_wraparound
from .records import BEST, CFR

without_wraparound(__name__)   # computed indices, never negative (see indexing)


@njit(cache=True, inline="always")
def showdown_payoff(won, gain, loss):
    """``u``'s payoff of a showdown he wins (``won`` > 0: ``gain``), loses (< 0: ``loss``) or
    that scores nothing (0)."""
    return gain if won > 0.0 else (loss if won < 0.0 else 0.0)


@njit(cache=True, inline="always")
def deal_block(Wu, hand, pu, nu, po, no, WC, wd):
    """WC[wd, j * nu + i] = W[hand[pu+i], hand[po+j]]: the deal weights of two lists, dense,
    one row per hand ``j`` of the second list (so that :func:`deal_sums` runs along rows)."""
    for j in range(no):
        hj = hand[po + j]
        for i in range(nu):
            WC[wd, j * nu + i] = Wu[hand[pu + i], hj]


@njit(cache=True, inline="always")
def node_lists(T, c, u):
    """The pair lists of card node ``c`` for walker ``u``: (its actor ``a``, the mão's and
    the pé's list lengths ``n0`` and ``n1``, the actor's ``na``, ``u``'s ``nu``, his
    opponent's ``no``, and where the actor's list starts, ``pa``)."""
    a = T.actor[c]
    n0, n1 = T.nn[c, 0], T.nn[c, 1]
    return (a, n0, n1, T.nn[c, a], T.nn[c, u], T.nn[c, 1 - u],
            T.pair_start[c] + (n0 if a == 1 else 0))


@njit(cache=True, inline="always")
def node_deal_block(T, c, u, Wu, WC, wd):
    """WC[wd]: :func:`deal_block` of card node ``c``'s two lists, ``u``'s pairs against his
    opponent's (``Wu``: ``u``'s deal weights)."""
    n0 = T.nn[c, 0]
    p0 = T.pair_start[c]
    deal_block(Wu, T.pair_hand, p0 + (n0 if u == 1 else 0), T.nn[c, u],
               p0 + (n0 if u == 0 else 0), T.nn[c, 1 - u], WC, wd)


@njit(cache=True, inline="always")
def deal_sums(WCd, nu, no, x, out):
    """out[i] = sum_j W[i, j] * x[j] for the dense deal weights ``WCd`` (a row of
    :func:`deal_block`'s), summed in the order of ``j``: the loop over ``i`` is innermost
    and contiguous, so it vectorises and every sum is added in the same order as a dot
    product over ``j`` would. A zero ``x[j]`` (a pair the opponent never reaches) is left
    out: adding its zero products would leave every sum as it is, to the bit. The other
    rows are taken two at a time, each sum still adding the first before the second: the
    same numbers with half the passes over ``out`` (most lists here are short). A list of
    one (``nu == 1``) is one plain dot product in the order of ``j``, the zeros added: a
    zero product leaves a finite sum as it is, so the same bits without the branches."""
    if nu == 1:   # u's one pair (most round-3 leads): a plain dot product
        acc = 0.0
        for j in range(no):
            acc += WCd[j] * x[j]
        out[0] = acc
        return
    for i in range(nu):
        out[i] = 0.0
    j = 0
    while j < no:
        while j < no and x[j] == 0.0:
            j += 1
        if j == no:
            break
        j1 = j
        j += 1
        while j < no and x[j] == 0.0:
            j += 1
        x1 = x[j1]
        if j == no:   # an odd one last
            for i in range(nu):
                out[i] += WCd[j1 * nu + i] * x1
            break
        j2 = j
        x2 = x[j2]
        j += 1
        for i in range(nu):
            out[i] = (out[i] + WCd[j1 * nu + i] * x1) + WCd[j2 * nu + i] * x2


@njit(cache=True, inline="always")
def showdown_winner(showdown, c, level, lead_level):
    """The seat that wins the showdown of LAST card node ``c`` when the follower's last
    card has ``level`` against the lead's ``lead_level`` (or ``tree.NO_WINNER``)."""
    if level > lead_level:
        return showdown[c, 0]
    return showdown[c, 1] if level == lead_level else showdown[c, 2]


@njit(cache=True, inline="always")
def showdown_stakes(P, kv):
    """(gain, loss): ``u``'s payoff of a showdown he wins and of one he loses, played for
    the ladder's ``kv``-th value."""
    v = P.ladder[kv]
    return v * P.win[kv], -v * P.lose[kv]


@njit(cache=True, inline="always")
def run_payoff(P, kv, answerer):
    """``u``'s payoff when the ``answerer`` of a raise runs from it: the raiser, the other
    seat, scores the accepted value, the ladder's ``kv``-th (the stakes of
    :func:`showdown_stakes`)."""
    gain, loss = showdown_stakes(P, kv)
    return loss if answerer == P.u else gain


@njit(cache=True, inline="always")
def follower_results(c, a, na, pa, T, P, won):
    """won[i]: 1 if ``u`` wins the showdown of ``LAST`` node ``c`` when its follower ``a``
    holds his ``i``-th pair (his last card against the public lead), -1 if he loses it, 0 if
    it scores nothing (the same at every T node)."""
    for i in range(na):
        w = showdown_winner(T.showdown, c, T.pair_level[pa + i], T.lead[c])
        won[i] = 1.0 if w == P.u else (-1.0 if w == 1 - P.u else 0.0)
    return 0


@njit(cache=True, inline="always")
def showdown_values(W, d, u_moves, ro, vo, so, na, nu, nopp, gain, loss, won):
    """The follower's forced last card at one T node of a ``LAST`` node: when ``u`` is the
    follower (``u_moves``) his card values EV[d, so + i], else his values VI[d, vo + i]
    summed over the follower's pairs (his reach and strategy); ``ro``: where the opponent's
    reach at the node starts in RI[d]; ``won``: :func:`follower_results`."""
    acc = W.TMP[5]
    if u_moves:
        deal_sums(W.WC[d], nu, nopp, W.RI[d, ro:ro + nopp], acc)
        for i in range(na):
            W.EV[d, so + i] = acc[i] * showdown_payoff(won[i], gain, loss)
        return 0
    for j in range(na):
        W.TMP[2, j] = W.RI[d, ro + j] * W.SIG[d, so + j] * showdown_payoff(won[j], gain, loss)
    deal_sums(W.WC[d], nu, nopp, W.TMP[2], acc)
    for i in range(nu):
        W.VI[d, vo + i] += acc[i]
    return 0


@njit(cache=True, inline="always")
def forced_turn_values(W, d, h, u_moves, eo, na, nu, nopp, gain, loss, won, best):
    """``u``'s values W.OUT[d, h * nu + i] of a live history ``h`` entering a ``LAST`` node
    whose turn is the forced card alone: the numbers its one T node would give, from the
    opponent's entering reach (ENT[d] from ``eo`` on, one row per history); ``best``: a
    best response's walk."""
    acc = W.TMP[5]
    if u_moves:   # the opponent's reach as entered; the card's value, played for sure
        deal_sums(W.WC[d], nu, nopp, W.ENT[d, eo + h * nopp:eo + (h + 1) * nopp], acc)
        for i in range(na):
            ev = acc[i] * showdown_payoff(won[i], gain, loss)
            W.OUT[d, h * nu + i] = ev if best else 0.0 + 1.0 * ev
        return 0
    for j in range(na):
        W.TMP[2, j] = W.ENT[d, eo + h * na + j] * 1.0 * showdown_payoff(won[j], gain, loss)
    deal_sums(W.WC[d], nu, nopp, W.TMP[2], acc)
    for i in range(nu):
        W.OUT[d, h * nu + i] = 0.0 + acc[i]
    return 0


@njit(cache=True, _nrt=False)
def showdown_node(c, d, H, T, W, P, K, TT, NF):
    """The round-3 follower's forced last card: showdown values of every T node, and the
    values ``W.OUT[d]`` of the ``NF`` of the ``H`` entering histories set apart (``W.FH``):
    zero for a dead one, else (the turn is that card alone) from their entering reach, the
    numbers the T node of each would give."""
    KI, TK, OUT = W.KI, W.TK, W.OUT
    u = P.u
    a, n0, _, na, nu, nopp, pa = node_lists(T, c, u)
    u_moves = u == a
    won = W.TMP[0]
    follower_results(c, a, na, pa, T, P, won)
    cfr = P.mode == CFR
    ro = 0 if u == 1 else K * n0   # the opponent's reach in RI[d], one row per node
    for t in range(TT):
        k = TK[d, t]
        if cfr and W.DK[d, k] != 0:   # dead: u's values there stay zero
            continue
        gain, loss = showdown_stakes(P, T.t_value[KI[d, k, 0]])
        showdown_values(W, d, u_moves, ro + k * nopp, k * nu, KI[d, k, 4], na, nu, nopp, gain,
                        loss, won)
    eo = 0 if u == 1 else H * n0   # the opponent's entering reach, one row per history
    for f in range(NF):
        h = W.FH[d, f]
        if cfr and W.ED[d, h] != 0:   # dead: u's values there are zero
            for i in range(nu):
                OUT[d, h * nu + i] = 0.0
            continue
        gain, loss = showdown_stakes(P, T.t_value[T.t_start[a, W.ES[d, h]]])
        forced_turn_values(W, d, h, u_moves, eo, na, nu, nopp, gain, loss, won,
                           P.mode == BEST)
    return 0


# not inline="always": numba 0.68 then wrote one Work record's rows into the other
@njit(cache=True, _nrt=False)
def end_values(c, d, TT, T, P, W, Wc):
    """Wc.OUT[d + 1] for END card node ``c`` (a child of the node at depth ``d``, whose
    ``TT`` T nodes are its entering histories): the winner scores the accepted value."""
    nn, winner, t_value = T.nn, T.winner, T.t_value
    u, win, lose, ladder, Wu = P.u, P.win, P.lose, P.ladder, P.Wu
    KI, TK = W.KI, W.TK
    ENT, OUT, WC = Wc.ENT, Wc.OUT, Wc.WC
    e = d + 1
    n0 = nn[c, 0]
    nu, no = nn[c, u], nn[c, 1 - u]
    eo = n0 * TT if u == 0 else 0
    node_deal_block(T, c, u, Wu, WC, e)
    acc = Wc.TMP[5]
    for h in range(TT):
        if P.mode == CFR and Wc.ED[e, h] != 0:   # a dead history: the opponent is not there
            for i in range(nu):
                OUT[e, h * nu + i] = 0.0
            continue
        kv = t_value[KI[d, TK[d, h], 0]]
        v = ladder[kv]
        w = winner[c]
        sign = win[kv] if w == u else (-lose[kv] if w == 1 - u else 0.0)
        deal_sums(WC[e], nu, no, ENT[e, eo + h * no:eo + (h + 1) * no], acc)
        for i in range(nu):
            OUT[e, h * nu + i] = sign * v * acc[i]
    return 0
