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
(:func:`catch_up`), the sums after the iteration (:func:`discount_untouched_sums`), and a
card subtree no entering history of which is live is not walked. Each seat's average
therefore sums the strategies the other seat's walks played against: the mão's those
after his own update of the iteration (:class:`lab.solver.cfr.CFRSolver` with
``sums_in_opponent_walk`` runs the same iterates).

Storage: one regret and one strategy-sum entry per (public node, private state
of its actor, action), in float32 (``wide``) or in 16 bits with one float32
scale per public node (regrets int16 in ``[-32767, 32767] * scale``, strategy
sums uint16 in ``[0, 65535] * scale``). Wide strategy sums have a scale per node too
(one until a lazy iteration discounts a node it did not update; the node's next update
folds it in). Regret matching and averaging only need ratios within a node, so they
read the raw entries.

``win`` and ``lose`` are arrays over the ladder's values: ``u`` gets ``+win[k] * ladder[k]``
when he wins a hand worth ``ladder[k]`` and ``-lose[k] * ladder[k]`` when he loses it.
All ones is points; other choices count outcomes or pay match-win probabilities.

Where each state holds one card move, edge ``i`` of state ``i`` (the round-3 cards,
forced: nine tenths of the walk's (node, hand) pairs), a T node's strategy and updates take
a short path without the per-state edge ranges (:func:`card_or_raise`), with the same
numbers; and a history entering there whose turn is that card alone (three in four) gets
no betting node at all: :func:`_showdown` writes its values from its entering reach
(:func:`forced_alone`, ``Step.apart``). In a lazy ``CFR`` walk so does a dead history
entering there (the opponent reaches it with probability zero): its values are zero.

A lazy ``CFR`` walk on float32 storage (the stored solves' settings) works a round-3
showdown node (``LAST``) one entering history at a time (:func:`last_node_by_history`,
``Step.one_pass``): a history's betting nodes are enumerated, walked forward, shown down
and walked back before the next history's, in the first rows of the depth's buffers, with
the numbers of the three passes over the whole node (:func:`prepare_node`,
:func:`_showdown`, :func:`_finish`) that the other walks keep: a best response for a
policy's action values reads every betting node's values after the walk. Both forms share
the per-node pieces (:func:`reach_through`, :func:`answer_strategy`,
:func:`showdown_values`, :func:`card_raise_regrets`, ...).

Terminal values use the deal weights ``W[hand_u, hand_o]`` of the two lists:
a run pays the raiser the accepted value, an END card node pays its winner the
accepted value, a round-3 showdown pays according to the follower's last card
against the public lead.

Calling convention: every kernel takes four records (namedtuples of arrays, built by
:class:`~lab.solver.fullgame.solver.FullSolver`) besides the node it works on:

- ``T`` (:data:`Tree`): the game's shape: the card tree, its storage offsets and the
  betting templates, fixed for a solver;
- ``S`` (:data:`Store`): the regrets and strategy sums (or a stored policy);
- ``W`` (:data:`Work`): the working buffers of one walk, one row per depth;
- ``P`` (:data:`Step`): what this walk does: the seat ``u``, the mode, the Discounted
  CFR factors, the payoffs and ``u``'s deal weights.

The forward pass at a card node asks for the cache lines its backward pass will read
first (the opponent's strategy sums and the nodes' stamps, :mod:`lab.solver.prefetch`):
they were last touched an iteration ago; a best response asks for the opponent's average
strategy as it enumerates the betting nodes.

The functions the walk calls allocate nothing and are compiled without numba's reference
counting (``_nrt=False``, an option of the pinned numba): otherwise every call counts a
reference to each of the records' arrays, which took a quarter of an iteration. They are
also compiled without numba's negative-index wraparound (:mod:`lab.solver.indexing`): no
index here is ever negative, and the wraparound took a third of an iteration.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from ..indexing import without_wraparound
from ..prefetch import prefetch, prefetch_range

without_wraparound(__name__)   # computed indices, never negative (see indexing)

CFR, BEST, AVERAGE = 0, 1, 2
ROOT, ONE = np.int64(0), np.int64(1)
"""The root's card node and depth, and its one entering history, as int64: a kernel called
with a literal 0 or 1 is compiled again for it (numba types a literal argument as its own
type), so every walk passes these and one compiled walk serves them all."""
T_NODE, Q_NODE = 0, 1
DECISION, LAST, END = 0, 1, 2
I16 = 32767.0
U16 = 65535.0

Tree = namedtuple("Tree", [
    # card tree: per card node, then per (card node, private state) pair
    "kind", "actor", "winner", "showdown", "lead", "child_start", "child_count",
    "pair_start", "nn", "n_edges", "pair_hand", "pair_level", "pair_parent", "pair_edge",
    "pair_edge_start", "pair_edge_count",
    # storage offsets of each card node's first regret entry and first public node
    "slot_base", "node_base",
    # betting templates
    "t_start", "t_size", "t_kind", "t_parent", "t_child_a", "t_child_b", "t_value",
    "t_exit", "t_answerer",
    # per card node: its public nodes, and where its entering histories start in the two
    # arrays after it: per (LAST card node, entering history) the offsets of the history's
    # first regret entry and first public node from the card node's (int32; zero elsewhere)
    "node_count", "history_start", "history_slot", "history_node"])
"""The shape of the full game the kernels walk (:mod:`lab.solver.fullgame.tree`)."""

Store = namedtuple("Store", ["wide", "reg32", "reg16", "rscale", "cum32", "cum16", "cscale",
                             "pred32", "pred16", "pscale", "rstamp", "cstamp"])
"""Regrets and strategy sums: float32 (``wide``) or 16 bits with a scale per public node;
the sums' scales also for float32 (:func:`store_sums`);
``pred*``: the regrets regret matching reads (the same arrays as ``reg*``, or for a
predictive schedule the regrets predicted for the next iteration); per public node the last
iteration whose update its regrets (``rstamp``) and its strategy sums (``cstamp``) hold
(see :func:`catch_up`)."""

Work = namedtuple("Work", ["ENT", "OUT", "ES", "RI", "VI", "SIG", "EV", "KI", "TMP", "WC", "TK",
                           "MK", "DK", "ED", "DC", "FH"])
"""Working buffers, one row per depth: entering reach and values (``ENT``, ``OUT``) and
states (``ES``), reach and values per betting node (``RI``, ``VI``), strategies and
action values (``SIG``, ``EV``), node index (``KI``), T nodes (``TK``), dense deal
weights (``WC``), scratch (``TMP``), the walker's pairs a masked walk follows (``MK``);
in a ``CFR`` walk, which betting nodes (``DK``) and entering histories (``ED``) the
opponent reaches with probability zero for every one of his pairs (dead: see
:func:`prepare_node`), and a count of (node, hand) pairs (``DC``: dead, all) the ``CFR``
walks met; the entering histories of a ``LAST`` node set apart (``FH``: those whose whole
turn is the forced card, :func:`forced_alone`, and in a lazy ``CFR`` walk the dead ones)."""

Step = namedtuple("Step", ["u", "mode", "pos", "neg", "avg", "win", "lose", "ladder", "Wu",
                           "plus", "predictive", "nxt", "masked", "prune", "lazy", "it",
                           "fpos", "fneg", "apart", "one_pass"])
"""One walk: seat ``u``, mode, Discounted CFR factors (positive and negative regrets,
strategy sums), payoffs ``win`` / ``lose`` over the ``ladder``, ``u``'s deal weights;
the schedule's ``plus`` floor and ``predictive`` matching with ``nxt``, the next
iteration's positive-regret factor (:class:`lab.solver.cfr.Schedule`); ``masked``: walk
only the card subtrees that hold one of ``u``'s pairs marked (1) in ``W.MK`` at the
starting depth (:func:`_visit` only; values of ``BEST`` or ``AVERAGE`` mode, which are then
exact for the marked pairs and not computed for the others); ``prune``: a ``CFR`` walk
leaves out the dead betting nodes (else it computes them too: the same numbers, for
measuring what leaving them out buys); ``lazy`` (with ``prune``): it does not even discount
their regrets, nor walk a card subtree no entering history of which is live (the discounts
wait for the node's next live update, :func:`catch_up`; the strategy sums of the nodes an
iteration did not update are discounted after it, :func:`discount_untouched_sums`);
``it``: the iteration; ``fpos``, ``fneg``: the positive- and negative-regret factors of
every iteration up to it (index = iteration); ``apart``: the histories entering a ``LAST``
node whose turn is the forced card alone, and in a lazy ``CFR`` walk the dead ones, get no
betting node (:func:`prepare_node`; the same numbers; without it, every betting node's
values are in ``W`` after the walk); ``one_pass`` (with ``apart``, in a lazy ``CFR`` walk on
float32 storage): a ``LAST`` node is worked one entering history at a time
(:func:`last_node_by_history`; the same numbers)."""


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


# not inline="always": numba 0.68 then wrote one Work record's rows into the other
@njit(cache=True, _nrt=False)
def end_values(c, d, TT, T, P, W, Wc):
    """Wc.OUT[d + 1] for END card node ``c`` (a child of the node at depth ``d``, whose
    ``TT`` T nodes are its entering histories): the winner scores the accepted value."""
    nn, pair_start, pair_hand, winner, t_value = (T.nn, T.pair_start, T.pair_hand, T.winner,
                                                  T.t_value)
    u, win, lose, ladder, Wu = P.u, P.win, P.lose, P.ladder, P.Wu
    KI, TK = W.KI, W.TK
    ENT, OUT, WC = Wc.ENT, Wc.OUT, Wc.WC
    e = d + 1
    n0 = nn[c, 0]
    nu, no = nn[c, u], nn[c, 1 - u]
    pu = pair_start[c] + (n0 if u == 1 else 0)
    po = pair_start[c] + (n0 if u == 0 else 0)
    eo = n0 * TT if u == 0 else 0
    deal_block(Wu, pair_hand, pu, nu, po, no, WC, e)
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
    live); they are listed in ``W.FH[d, :NF]`` and :func:`_showdown` writes their values.
    In a ``CFR`` walk only the opponent's reach, and only at live nodes: ``W.DK[d, k]`` is 1
    where he reaches node ``k`` with probability zero for each of his pairs (then no
    strategy is needed there either)."""
    (kind, actor, pair_start, nn, n_edges, pair_hand, pair_edge_start, pair_edge_count,
     slot_base, node_base, t_start, t_size, t_kind, t_parent, t_child_a, t_child_b,
     t_answerer) = (
        T.kind, T.actor, T.pair_start, T.nn, T.n_edges, T.pair_hand, T.pair_edge_start,
        T.pair_edge_count, T.slot_base, T.node_base, T.t_start, T.t_size, T.t_kind,
        T.t_parent, T.t_child_a, T.t_child_b, T.t_answerer)
    # regret matching reads the predicted regrets (the regrets themselves unless predictive)
    wide, reg32, reg16, cum32, cum16 = S.wide, S.pred32, S.pred16, S.cum32, S.cum16
    ENT, ES, RI, VI, SIG, KI, TMP, WC, TK = W.ENT, W.ES, W.RI, W.VI, W.SIG, W.KI, W.TMP, W.WC, W.TK
    u, mode, Wu = P.u, P.mode, P.Wu
    a = actor[c]
    n0, n1 = nn[c, 0], nn[c, 1]
    na = nn[c, a]
    nu = nn[c, u]
    p0 = pair_start[c]
    pa = p0 + (n0 if a == 1 else 0)
    pu = p0 + (n0 if u == 1 else 0)
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
        W.DC[1] += (K + NF + n_dead_apart) * (n0 + n1)
    # ---------------------------------------------------------- values: start at zero
    for x in range(K * nu):
        VI[d, x] = 0.0
    # T nodes in order (their index is the entering history of the children)
    for k in range(K):
        if KI[d, k, 5] >= 0:
            TK[d, KI[d, k, 5]] = k
    # ---------------------------------------------------------- card moves
    # the deal weights between u's list and the opponent's, dense (showdowns and runs)
    po = p0 + (n0 if u == 0 else 0)  # the opponent's pairs
    nopp = nn[c, 1 - u]
    if is_last or K > TT:  # only showdowns and runs (Q nodes) use it
        deal_block(Wu, pair_hand, pu, nu, po, nopp, WC, d)
    return K, TT, NF


@njit(cache=True, inline="always")
def showdown_stakes(P, kv):
    """(gain, loss): ``u``'s payoff of a showdown he wins and of one he loses, played for
    the ladder's ``kv``-th value."""
    v = P.ladder[kv]
    return v * P.win[kv], -v * P.lose[kv]


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
def _showdown(c, d, H, T, W, P, K, TT, NF):
    """The round-3 follower's forced last card: showdown values of every T node, and the
    values ``W.OUT[d]`` of the ``NF`` of the ``H`` entering histories set apart (``W.FH``):
    zero for a dead one, else (the turn is that card alone) from their entering reach, the
    numbers the T node of each would give."""
    nn, KI, TK, OUT = T.nn, W.KI, W.TK, W.OUT
    u = P.u
    a = T.actor[c]
    n0 = nn[c, 0]
    na, nu, nopp = nn[c, a], nn[c, u], nn[c, 1 - u]
    pa = T.pair_start[c] + (n0 if a == 1 else 0)
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


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
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
def _finish(c, d, T, S, W, P, K):
    """Betting backward (values, regret and strategy-sum updates) and the values of the
    entering histories."""
    (actor, pair_start, nn, n_edges, pair_edge_start, pair_edge_count, t_kind,
     t_child_a, t_child_b, t_value, t_answerer) = (
        T.actor, T.pair_start, T.nn, T.n_edges, T.pair_edge_start, T.pair_edge_count,
        T.t_kind, T.t_child_a, T.t_child_b, T.t_value, T.t_answerer)
    wide, reg32, reg16, rscale, cum32, cum16, cscale = (S.wide, S.reg32, S.reg16, S.rscale,
                                                        S.cum32, S.cum16, S.cscale)
    OUT, RI, VI, SIG, EV, KI, TMP = W.OUT, W.RI, W.VI, W.SIG, W.EV, W.KI, W.TMP
    (u, mode, pos, neg, avg, win, lose, ladder, plus, predictive, nxt) = (
        P.u, P.mode, P.pos, P.neg, P.avg, P.win, P.lose, P.ladder, P.plus, P.predictive, P.nxt)
    a = actor[c]
    n0 = nn[c, 0]
    na = nn[c, a]
    nu = nn[c, u]
    p0 = pair_start[c]
    pa = p0 + (n0 if a == 1 else 0)
    E = n_edges[c]
    choice = E > na
    nopp = nn[c, 1 - u]
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
            raiser = 1 - b
            kv = t_value[gid]
            v = ladder[kv]
            nb = nn[c, b]
            n_ans = 3 if t_child_b[gid] >= 0 else 2
            m = nb * n_ans
            if dead:   # values stay zero, updates are discounts
                if not P.lazy:
                    discount_dead(ks, m, pub, b, S, P, TMP)
                continue
            kacc = h0 + t_child_a[gid]
            krr = h0 + t_child_b[gid] if t_child_b[gid] >= 0 else -1
            sgn = v * win[kv] if raiser == u else -v * lose[kv]
            # the run: the raiser scores the accepted value
            if u == b:
                answers_of_walker(S, W, P, d, k, kacc, krr, ks, so, pub, ro + k * nopp, nb,
                                  nopp, n_ans, sgn, rs, cfr)
            else:
                answers_of_opponent(S, W, P, d, k, kacc, krr, ks, so, pub, ro + k * nb, nb, nu,
                                    nopp, n_ans, sgn, cs, cfr)
    # ---------------------------------------------------------- out: each history's root node
    # (those set apart by prepare_node have theirs from _showdown)
    for k in range(K):
        if KI[d, k, 1] < 0:
            h = KI[d, k, 6]
            for i in range(nu):
                OUT[d, h * nu + i] = VI[d, k * nu + i]
    return 0


@njit(cache=True, _nrt=False)
def last_node_by_history(c, d, H, T, S, W, P):
    """A ``LAST`` card node ``c`` at depth ``d`` in a lazy ``CFR`` walk on float32 storage, the
    follower holding one card a state, worked one entering history after the other: the
    numbers of :func:`prepare_node`, :func:`_showdown` and :func:`_finish` (the histories
    set apart as there), but each history's betting nodes are enumerated, walked forward,
    shown down and walked back at once, in the first rows of ``W``'s depth ``d`` (a history's
    betting nodes depend on no other's). Writes ``W.OUT[d]`` and the updates, and counts
    the pairs in ``W.DC``; ``W`` keeps no betting node's values after it."""
    nn, slot_base, node_base, t_start, t_size, t_kind, t_parent, t_child_a, t_child_b = (
        T.nn, T.slot_base, T.node_base, T.t_start, T.t_size, T.t_kind, T.t_parent,
        T.t_child_a, T.t_child_b)
    ENT, OUT, ES, RI, VI, SIG, KI, TMP, DK, ED = (W.ENT, W.OUT, W.ES, W.RI, W.VI, W.SIG, W.KI,
                                                  W.TMP, W.DK, W.ED)
    u = P.u
    o = 1 - u
    a = T.actor[c]
    n0, n1 = nn[c, 0], nn[c, 1]
    na, nu, no_ = nn[c, a], nn[c, u], nn[c, o]
    E = na   # one card a state
    p0 = T.pair_start[c]
    pa = p0 + (n0 if a == 1 else 0)
    deal_block(P.Wu, T.pair_hand, p0 + (n0 if u == 1 else 0), nu, p0 + (n0 if u == 0 else 0),
               no_, W.WC, d)
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
            kv = T.t_value[gid]
            v = P.ladder[kv]
            sgn = v * P.win[kv] if b != u else -v * P.lose[kv]   # the raiser is 1 - b
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
                _showdown(c, d, hist[d], T, W, P, K, TT, NF)
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
            _finish(c, d, T, S, W, P, nk[d])
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
    _finish(c, d, T, S, W, P, K)
    return W.OUT[0, :nn[0, P.u]].copy()
