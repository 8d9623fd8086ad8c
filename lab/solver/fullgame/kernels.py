"""Numba traversal of the full hand game on its compact layout (:mod:`lab.solver.fullgame.tree`).

One call of :func:`traverse` walks the card tree depth first for one player
``u`` and returns the counterfactual value of each of his root hands (points,
already weighted by the deal probability, as in :mod:`lab.solver.kernels`).
At a card node every entering betting history is expanded through its
betting template into T nodes (the player to play: a card or a raise) and Q
nodes (a raise answered: accept, run, re-raise); all of them share the node's
private-state lists, so reach and values are small matrices
``[template node, private state]`` held in per-depth buffers.

Modes: ``CFR`` (both strategies from regret matching; ``u``'s regrets get the
Discounted CFR update and the opponent's strategy sums grow by his reach times his
strategy), ``BEST`` (the opponent plays his average strategy, ``u`` takes the best
action: an exact best response; ``u``'s own strategy is not computed, so his reach in the
working buffers means nothing after it) and ``AVERAGE`` (both play their average strategies;
values only).

Why the opponent's sums: ``u``'s counterfactual values need only the opponent's reach,
and the opponent's sums need only his reach and strategy, so a ``CFR`` walk never
computes ``u``'s own reach, and a betting node the opponent reaches with probability zero
for every pair he may hold (a dead node: on vira 4 with the ladder 1-3-6, 40 % of the
(node, hand) pairs after 10 iterations, 49 % after 20 and 53 % after 30, since regret
matching gives many raises and answers exactly zero) needs no work per hand at all:
``u``'s values there are zero, his regrets are only discounted and the opponent's sums
only discounted (one scale per node in 16 bits); a lazy walk (``Step.lazy``) does not even
discount them then: the regrets catch up when the node is next updated
(:func:`~lab.solver.fullgame.updates.catch_up`), the sums after the iteration
(:func:`~lab.solver.fullgame.updates.discount_untouched_sums`), and a card subtree no
entering history of which is live is not walked. Each seat's average therefore sums the
strategies the other seat's walks played against: the mão's those after his own update of
the iteration (:class:`lab.solver.cfr.CFRSolver` with ``sums_in_opponent_walk`` runs the
same iterates).

``win`` and ``lose`` are arrays over the ladder's values: ``u`` gets ``+win[k] * ladder[k]``
when he wins a hand worth ``ladder[k]`` and ``-lose[k] * ladder[k]`` when he loses it.
All ones is points; other choices count outcomes or pay match-win probabilities.

The walk's parts, one module each:

- :mod:`~lab.solver.fullgame.records`: the four records every kernel takes (the game's
  shape, the storage, the working buffers, the walk's settings), and the constants;
- :mod:`~lab.solver.fullgame.betting`: a card node's betting nodes, in three passes
  (enumerated with their strategies and the opponent's reach, then after the children
  walked back with the updates), and the per-node pieces they are made of;
- :mod:`~lab.solver.fullgame.showdowns`: the terminal values (showdowns, runs, the end of
  a hand) through the deal weights;
- :mod:`~lab.solver.fullgame.updates`: the Discounted CFR updates of the stored regrets and
  strategy sums, and the lazy discounts;
- :mod:`~lab.solver.fullgame.last_node`: a round-3 showdown node worked one entering
  history at a time (the stored solves' walks);
- this module: the depth-first walk over the card tree, the card moves into a child and
  its values back, and the root's subtrees shared among threads.

The functions the walk calls allocate nothing and are compiled without numba's reference
counting (``_nrt=False``, an option of the pinned numba): otherwise every call counts a
reference to each of the records' arrays, which took a quarter of an iteration. A call to a
compiled function also passes every array of the records field by field (a ``Store`` is 78
machine words, seven an array), so the pieces called at every betting node are inlined
(``inline="always"``; the storage's writes among them, about 5 % of an iteration); those
called once a card node are not, as inlining them made the walk several times slower to
compile.
All are compiled without numba's negative-index wraparound (:mod:`lab.solver.indexing`; each
of the modules above opts in): no index here is ever negative, and the wraparound took a
third of an iteration.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..indexing import without_wraparound
from .records import CFR, END, LAST, ONE, ROOT, Work
from .showdowns import end_values, showdown_node
from .betting import finish_node, prepare_node
from .last_node import last_node_by_history

without_wraparound(__name__)   # computed indices, never negative (see indexing)


@njit(cache=True, inline="always")
def enter_child(c, ch, d, K, TT, T, W, ENT):
    """ENT[d + 1]: the reach of card child ``ch`` of node ``c`` at depth ``d`` (whose
    reach and strategies are ``W``'s) for each of its T nodes: the mover's through his
    card edge, the other's copied."""
    actor, nn, pair_start, pair_parent, pair_edge = (T.actor, T.nn, T.pair_start,
                                                     T.pair_parent, T.pair_edge)
    RI, SIG, KI, TK = W.RI, W.SIG, W.KI, W.TK
    a = actor[c]
    n0, n1 = nn[c, 0], nn[c, 1]
    c0, c1 = nn[ch, 0], nn[ch, 1]
    q0 = pair_start[ch]
    r1 = K * n0
    f1 = TT * c0
    for t in range(TT):
        k = TK[d, t]
        so = KI[d, k, 4]
        for i in range(c0):
            r = RI[d, k * n0 + pair_parent[q0 + i]]
            if a == 0:
                r *= SIG[d, so + pair_edge[q0 + i]]
            ENT[d + 1, t * c0 + i] = r
        for i in range(c1):
            r = RI[d, r1 + k * n1 + pair_parent[q0 + c0 + i]]
            if a == 1:
                r *= SIG[d, so + pair_edge[q0 + c0 + i]]
            ENT[d + 1, f1 + t * c1 + i] = r
    return 0


@njit(cache=True, inline="always")
def enter_child_cfr(c, ch, d, K, TT, T, W, Wc, o, prune):
    """:func:`enter_child` for a ``CFR`` walk: only the opponent ``o``'s reach (the walker's
    own is never needed), and Wc.ED[d + 1]: which of the child's entering histories are dead
    (their T node is, or, with ``prune``, ``o``'s card moves give every one of his pairs
    reach zero). Returns the number of live ones."""
    actor, nn, pair_start, pair_parent, pair_edge = (T.actor, T.nn, T.pair_start,
                                                     T.pair_parent, T.pair_edge)
    RI, SIG, KI, TK, DK = W.RI, W.SIG, W.KI, W.TK, W.DK
    ENT, ED = Wc.ENT, Wc.ED
    moves = actor[c] == o
    no_ = nn[c, o]
    co = nn[ch, o]
    q0 = pair_start[ch] + (nn[ch, 0] if o == 1 else 0)
    rb = 0 if o == 0 else K * nn[c, 0]
    f = 0 if o == 0 else TT * nn[ch, 0]
    live = 0
    for t in range(TT):
        k = TK[d, t]
        if DK[d, k] != 0:
            ED[d + 1, t] = 1
            continue
        so = KI[d, k, 4]
        alive = False
        for i in range(co):
            r = RI[d, rb + k * no_ + pair_parent[q0 + i]]
            if moves:
                r *= SIG[d, so + pair_edge[q0 + i]]
            ENT[d + 1, f + t * co + i] = r
            if r != 0.0:
                alive = True
        ED[d + 1, t] = 0 if alive or not prune else 1
        live += 1 - ED[d + 1, t]
    return live


# not inline="always": numba 0.68 then wrote one Work record's rows into the other
@njit(cache=True, _nrt=False)
def no_values(ch, d, TT, T, P, Wc):
    """Wc.OUT[d + 1]: zero values of ``u`` at card child ``ch`` for each of its ``TT``
    entering histories (a child a lazy walk leaves out)."""
    for i in range(TT * T.nn[ch, P.u]):
        Wc.OUT[d + 1, i] = 0.0
    return 0


@njit(cache=True, inline="always")
def enter_child_any(c, ch, d, K, TT, T, W, Wc, P):
    """The reach into card child ``ch`` for the walk ``P``: :func:`enter_child_cfr` in a
    ``CFR`` walk, else :func:`enter_child`. Returns False where a lazy walk leaves the child
    out: none of its entering histories is live, so ``u``'s values there are zero
    (written into ``Wc.OUT[d + 1]``) and its updates are discounts only."""
    if P.mode == CFR:
        live = enter_child_cfr(c, ch, d, K, TT, T, W, Wc, 1 - P.u, P.prune)
        if live == 0 and P.lazy:
            no_values(ch, d, TT, T, P, Wc)
            return False
        return True
    enter_child(c, ch, d, K, TT, T, W, Wc.ENT)
    return True


@njit(cache=True, inline="always")
def mask_child(ch, d, T, W, u):
    """W.MK[d + 1]: which of ``u``'s pairs at card child ``ch`` descend from a pair marked in
    W.MK[d]; True if any does (else a masked walk leaves the child out)."""
    cu = T.nn[ch, u]
    qu = T.pair_start[ch] + (T.nn[ch, 0] if u == 1 else 0)
    marked = False
    for i in range(cu):
        m = W.MK[d, T.pair_parent[qu + i]]
        W.MK[d + 1, i] = m
        if m != 0:
            marked = True
    return marked


@njit(cache=True, inline="always")
def take_child_values(c, ch, d, TT, T, P, W, vals):
    """Add card child ``ch``'s values ``vals`` (``[T node of depth d, u's pair]``) to
    the node above: into ``u``'s card edges when he moves, summed into his values
    otherwise (in the order of the children, so every path adds alike)."""
    nn, pair_start, pair_parent, pair_edge = T.nn, T.pair_start, T.pair_parent, T.pair_edge
    EV, VI, KI, TK = W.EV, W.VI, W.KI, W.TK
    u = P.u
    a = T.actor[c]
    nu = nn[c, u]
    cu = nn[ch, u]
    qu = pair_start[ch] + (nn[ch, 0] if u == 1 else 0)
    skip_dead = P.mode == CFR
    for t in range(TT):
        k = TK[d, t]
        if skip_dead and W.DK[d, k] != 0:   # a dead T node's values are zero and never read
            continue
        so = KI[d, k, 4]
        for i in range(cu):
            val = vals[t * cu + i]
            if u == a:
                EV[d, so + pair_edge[qu + i]] = val
            else:
                VI[d, k * nu + pair_parent[qu + i]] += val
    return 0


@njit(cache=True)
def traverse(T, S, W, P):
    """Values of player ``P.u``'s root hands (see the module docstring); updates in
    ``CFR`` mode."""
    nn = T.nn
    for i in range(nn[0, 0] + nn[0, 1]):
        W.ENT[0, i] = 1.0
    W.ES[0, 0] = 0  # state_id(value 0, no raiser)
    W.ED[0, 0] = 0
    _visit(ROOT, ROOT, ONE, T, S, W, P)
    return W.OUT[0, :nn[0, P.u]].copy()


@njit(cache=True)
def _visit(c0, d0, H0, T, S, W, P):
    """Card node ``c0`` at depth ``d0``, entered by ``H0`` histories with the reach in
    ``W.ENT[d0]``: ``W.OUT[d0]`` gets ``u``'s values per history (updates in ``CFR`` mode).
    Allocates the walk's stack and runs :func:`depth_first`."""
    return depth_first(c0, d0, H0, T, S, W, P, walk_stack(W))


@njit(cache=True)
def walk_stack(W):
    """The stack of a depth-first walk over ``W``'s depths (:func:`depth_first`): rows for the
    card node, its entering histories, its betting and T node counts, and the next child."""
    return np.empty((5, W.KI.shape[0]), np.int64)


@njit(cache=True, _nrt=False)
def depth_first(c0, d0, H0, T, S, W, P, stack):
    """:func:`_visit`'s walk: depth first over the card tree with an explicit stack (a
    self-recursive function could not be cached by numba, so every process compiled it
    again, 10-15 s): per depth (the rows of ``stack``) the card node, its entering
    histories, its betting and T node counts, and the next child. Compiled without
    reference counting, as the functions it calls (see the module docstring)."""
    node, hist, nk, nt, nxt = stack[0], stack[1], stack[2], stack[3], stack[4]
    kind, child_start, child_count = T.kind, T.child_start, T.child_count
    d = d0
    node[d] = c0
    hist[d] = H0
    entering = True
    by_history = P.one_pass and P.apart and P.lazy and P.mode == CFR and S.wide
    while True:
        c = node[d]
        if (entering and by_history and kind[c] == LAST
                and T.n_edges[c] == T.nn[c, T.actor[c]]):
            last_node_by_history(c, d, hist[d], T, S, W, P)
            nk[d] = -1   # worked whole: no backward pass left
            nxt[d] = -1
            entering = False
        if entering:   # this node's betting nodes; a showdown ends it at once
            K, TT, NF = prepare_node(c, d, hist[d], T, S, W, P, P.apart)
            nk[d] = K
            nt[d] = TT
            if kind[c] == LAST:
                showdown_node(c, d, hist[d], T, W, P, K, TT, NF)
                nxt[d] = -1
            else:
                enter_turns(c, d, TT, T, W, W)
                nxt[d] = child_start[c]
            entering = False
        ch = nxt[d]
        if ch >= 0 and ch < child_start[c] + child_count[c]:
            if P.masked and not mask_child(ch, d, T, W, P.u):
                nxt[d] = ch + 1   # none of the marked pairs goes on into this child
                continue
            if not enter_child_any(c, ch, d, nk[d], nt[d], T, W, W, P):
                take_child_values(c, ch, d, nt[d], T, P, W, W.OUT[d + 1])
                nxt[d] = ch + 1
            elif kind[ch] == END:
                end_values(ch, d, nt[d], T, P, W, W)
                take_child_values(c, ch, d, nt[d], T, P, W, W.OUT[d + 1])
                nxt[d] = ch + 1
            else:   # down into the child
                d += 1
                node[d] = ch
                hist[d] = nt[d - 1]
                entering = True
            continue
        if nk[d] >= 0:
            finish_node(c, d, T, S, W, P, nk[d])
        if d == d0:
            return 0
        d -= 1   # back up: the child's values go to its parent
        take_child_values(node[d], c, d, nt[d], T, P, W, W.OUT[d + 1])
        nxt[d] = c + 1


# not inline="always": numba 0.68 then wrote one Work record's rows into the other
@njit(cache=True, _nrt=False)
def enter_turns(c, d, TT, T, W, Wc):
    """Wc.ES[d + 1]: the betting state each T node of card node ``c`` hands its children."""
    for t in range(TT):
        Wc.ES[d + 1, t] = T.t_exit[W.KI[d, W.TK[d, t], 0]]
    return 0


@njit(cache=True, parallel=True)
def traverse_parallel(nthreads, owner, T, S, W, P, Wt, live):
    """:func:`traverse` with the subtrees of the root's card moves split among
    ``nthreads`` threads (``owner[j]``: the thread of the root's ``j``-th child), each with
    its own working buffers ``Wt[..][thread]`` (the regret entries of different subtrees
    are disjoint). The children's values are added
    in their order afterwards, so the values and updates are bit-identical to
    :func:`traverse`'s, whatever the split. ``live[j]``: the live (node, hand) pairs a
    ``CFR`` walk met under the ``j``-th child (``W.DC``), by which the next walk of the
    same seat can share them."""
    nn, child_start = T.nn, T.child_start
    c, d = ROOT, ROOT
    for i in range(nn[0, 0] + nn[0, 1]):
        W.ENT[0, i] = 1.0
    W.ES[0, 0] = 0
    W.ED[0, 0] = 0
    K, TT, _ = prepare_node(c, d, ONE, T, S, W, P, False)
    nch = T.child_count[c]
    width = 0
    for j in range(nch):
        width = max(width, TT * nn[child_start[c] + j, P.u])
    values = np.zeros((nch, width))
    for th in prange(nthreads):
        Wc = Work(Wt.ENT[th], Wt.OUT[th], Wt.ES[th], Wt.RI[th], Wt.VI[th], Wt.SIG[th],
                  Wt.EV[th], Wt.KI[th], Wt.TMP[th], Wt.WC[th], Wt.TK[th], Wt.MK[th],
                  Wt.DK[th], Wt.ED[th], Wt.DC[th], Wt.FH[th])
        enter_turns(c, d, TT, T, W, Wc)
        for j in range(nch):
            if owner[j] != th:
                continue
            ch = child_start[c] + j
            before = Wc.DC[1] - Wc.DC[0]
            if not enter_child_any(c, ch, d, K, TT, T, W, Wc, P):
                pass   # Wc.OUT[1] holds its values, zero
            elif T.kind[ch] == END:
                end_values(ch, d, TT, T, P, W, Wc)
            else:
                _visit(ch, ONE, TT, T, S, Wc, P)
            live[j] = Wc.DC[1] - Wc.DC[0] - before
            n = TT * nn[ch, P.u]
            values[j, :n] = Wc.OUT[1, :n]
    for j in range(nch):
        take_child_values(c, child_start[c] + j, d, TT, T, P, W, values[j])
    finish_node(c, d, T, S, W, P, K)
    return W.OUT[0, :nn[0, P.u]].copy()
