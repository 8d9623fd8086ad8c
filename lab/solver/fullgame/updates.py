"""The Discounted CFR updates of the full game's stored regrets and strategy sums
(:mod:`lab.solver.fullgame.kernels`), and the lazy discounts of the nodes a walk leaves out.

Storage: one regret and one strategy-sum entry per (public node, private state
of its actor, action), in float32 (``wide``) or in 16 bits with one float32
scale per public node (regrets int16 in ``[-32767, 32767] * scale``, strategy
sums uint16 in ``[0, 65535] * scale``). Wide strategy sums have a scale per node too
(one until a lazy iteration discounts a node it did not update; the node's next update
folds it in). Regret matching and averaging only need ratios within a node, so they
read the raw entries.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..indexing import without_wraparound
from .records import I16, U16

without_wraparound(__name__)   # computed indices, never negative (see indexing)


@njit(cache=True, inline="always")
def pending(f, s, t):
    """The product of the factors ``f`` of iterations ``s + 1`` to ``t - 1``: the discounts a
    node last updated at iteration ``s`` has missed when it is next updated at ``t``."""
    x = 1.0
    for j in range(s + 1, t):
        x *= f[j]
    return x


@njit(cache=True, inline="always")
def catch_up(pub, S, P):
    """(lagging, positive factor, negative factor): the discounts public node ``pub``'s
    regrets have missed while a lazy walk left them alone (:data:`Step`); marks them as
    holding iteration ``P.it`` (the caller updates them now). Regrets keep their sign under
    discounting, so one factor per sign brings each up to date: the same numbers as
    discounting at every iteration, but for rounding (in 16 bits, the requantisation
    of the skipped iterations)."""
    s = S.rstamp[pub]
    S.rstamp[pub] = P.it
    if s == P.it - 1:
        return False, 1.0, 1.0
    return True, pending(P.fpos, s, P.it), pending(P.fneg, s, P.it)


@njit(cache=True, inline="always")
def caught_up(r, lag, gp, gn):
    """Regret ``r`` with the discounts it missed (:func:`catch_up`)."""
    if lag:
        return r * (gp if r > 0.0 else gn)
    return r


@njit(cache=True, _nrt=False)
def discount_untouched_sums(cstamp, cscale, it, avg):
    """After a lazy iteration ``it``: the strategy sums of every public node it did not
    update are discounted by ``avg`` through the node's scale, as an eager walk would
    have (their reach was zero), so that the sums always hold whole iterations."""
    for p in range(cstamp.shape[0]):
        if cstamp[p] != it:
            cscale[p] = cscale[p] * avg
            cstamp[p] = it
    return 0


@njit(cache=True, inline="always")
def new_regret(r, ev, vi, pos, neg, plus, predictive, nxt, TMP, q):
    """TMP[3, q]: the Discounted CFR update of regret ``r`` by the gain ``ev - vi`` (floored
    at zero with ``plus``); with ``predictive``, TMP[6, q]: the regret predicted for the
    next iteration (the new one discounted by ``nxt``, plus the gain again, floored)."""
    if plus:
        r = max(r * pos + (ev - vi), 0.0)
    else:
        r *= pos if r > 0.0 else neg
        r = r + ev - vi
    TMP[3, q] = r
    if predictive:
        TMP[6, q] = max(r * nxt + (ev - vi), 0.0)


@njit(cache=True, inline="always")
def write16(TMP, row, m, out, ks, scales, pub, top):
    """out[ks + q] = TMP[row, q] in 16 bits for q < m, with a new scale for public node
    ``pub``: the largest magnitude maps to ``top`` (I16 for regrets, U16 for sums)."""
    mx = 0.0
    for q in range(m):
        if abs(TMP[row, q]) > mx:
            mx = abs(TMP[row, q])
    sc = mx / top if mx > 0.0 else 1.0
    scales[pub] = sc
    for q in range(m):
        out[ks + q] = np.rint(TMP[row, q] / sc)
    return 0


@njit(cache=True, inline="always")
def store_regrets(ks, m, pub, S, TMP, predictive):
    """Write one public node's ``m`` new regrets (TMP row 3) and, for a predictive schedule,
    predicted regrets (row 6) from slot ``ks`` on; in 16 bits each with a new scale for the
    node."""
    if S.wide:
        for q in range(m):
            S.reg32[ks + q] = TMP[3, q]
            if predictive:
                S.pred32[ks + q] = TMP[6, q]
        return 0
    write16(TMP, 3, m, S.reg16, ks, S.rscale, pub, I16)
    if predictive:
        write16(TMP, 6, m, S.pred16, ks, S.pscale, pub, I16)
    return 0


@njit(cache=True, inline="always")
def store_sums(ks, m, pub, S, TMP, it):
    """Write one public node's ``m`` new strategy sums (TMP row 4) from slot ``ks`` on; in
    16 bits with a new scale for the node (float32: with the scale 1); they now hold
    iteration ``it``."""
    S.cstamp[pub] = it
    if S.wide:
        for q in range(m):
            S.cum32[ks + q] = TMP[4, q]
        S.cscale[pub] = 1.0
        return 0
    write16(TMP, 4, m, S.cum16, ks, S.cscale, pub, U16)
    return 0


@njit(cache=True, _nrt=False)
def discount_dead(ks, m, pub, owner, S, P, TMP):
    """A dead node's update (the opponent does not reach it): the walker's ``m`` regrets
    from slot ``ks`` on are only discounted (their gain is zero), or the opponent's strategy
    sums only discounted (his reach is zero): in 16 bits by the node's scale alone."""
    if owner == P.u:
        lag, gp, gn = catch_up(pub, S, P)
        for q in range(m):
            r = S.reg32[ks + q] if S.wide else S.reg16[ks + q] * np.float64(S.rscale[pub])
            new_regret(caught_up(r, lag, gp, gn), 0.0, 0.0, P.pos, P.neg, P.plus, P.predictive,
                       P.nxt, TMP, q)
        store_regrets(ks, m, pub, S, TMP, P.predictive)
        return 0
    S.cstamp[pub] = P.it
    if S.wide:
        for q in range(m):
            S.cum32[ks + q] = S.cum32[ks + q] * P.avg
    else:
        S.cscale[pub] = S.cscale[pub] * P.avg
    return 0
