"""Numba kernels of public-tree CFR over the flat arrays of :mod:`lab.solver.tree`.

Storage. Per edge (a move at an information set), float32 between iterations:
``regret[e]`` (cumulative regret), ``cum[e]`` (cumulative reach-weighted
strategy) and ``sigma[e]`` (the current or the average strategy). An
information set's edges are contiguous, so regret matching and the updates
are segment loops. Per (node, hand) pair, float64 working buffers:
``reach[i]``, the probability that pair ``i``'s player plays to it (his own
moves only -- chance and the opponent enter through the deal weights at the
terminals), and ``cfv[i]``, the pair's counterfactual value for its player.
Every sum a kernel forms is accumulated in float64.

One traversal for player ``u``:

1. :func:`forward_reach` -- all pairs, top down: ``reach[i] = reach[parent] *
   sigma[edge(i)]`` (times 1 for a pair reached without a choice).
2. :func:`terminal_values` -- u's pairs at the terminals:
   ``cfv[i] = sum_o W[hand_i, hand_o] * reach[o] * utility``, over the
   opponent's pairs ``o`` at the same terminal, ``W`` the exact deal
   probabilities (card removal: ``W = 0`` for hands that share a card).
   The sum is dense per terminal. Pairs of one hand are contiguous at every
   node, so at a terminal whose outcome is public the opponent's pairs of one
   hand are summed first and each of u's hands is valued once. Measured on
   the card-play tree: 1.0e7 multiply-adds per traversal (1.5e7 without the
   per-hand sums) for 6.5e5 terminal pairs per player, i.e. 16 per pair,
   because a terminal holds few pairs (44 on average). An O(n)
   inclusion-exclusion over the levels a hand holds costs about 20 operations
   per pair plus its tables, so it would not be faster here.
3. :func:`backward_values` -- u's pairs, bottom up: a pair's value is the
   sigma-weighted sum of its children at u's own choices (or their max for a
   best response) and the plain sum elsewhere.
4. :func:`update_regrets` -- Discounted CFR on u's information sets, then
   regret matching for his next strategy.

Utilities are player 0's; player 1 gets minus them.

Threads: a depth's pairs (forward), a depth's nodes (backward), chunks of
terminals and the information sets are independent, so the kernels run large
ones in parallel with ``prange`` (small ones on one thread: each parallel
region costs a barrier). Results do not depend on the number of threads. On a
machine shared with other work, one thread per solve (and several solves in
processes) is faster: a preempted thread holds every barrier up.

Indexing: the kernels never index with a negative number and are compiled without numba's
negative-index wraparound (:mod:`lab.solver.indexing`). A ``prange`` loop's body is compiled
apart, under a name of its own, and would keep it, so each parallel loop only calls a
function of this module that does the work (:func:`_reach_one`, :func:`_terminal_chunk`,
:func:`_pull_children`, :func:`_update_one`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .indexing import without_wraparound

without_wraparound(__name__)   # computed indices, never negative (see indexing)

NEG_INF = -np.inf
CHUNKS = 256
"""Terminals are split into this many chunks, handed to the threads one at a time."""
PARALLEL_MIN = 65536
"""Loops shorter than this run on one thread (a parallel region costs a barrier)."""


@njit(cache=True)
def regret_matching(infosets, edge_start, edge_count, regret, sigma):
    """sigma = positive part of the regret, normalised per information set (uniform if none)."""
    for k in range(len(infosets)):
        _match(infosets[k], edge_start, edge_count, regret, sigma)


@njit(cache=True, inline="always")
def _match(s, edge_start, edge_count, regret, sigma):
    a, n = edge_start[s], edge_count[s]
    total = 0.0
    for e in range(a, a + n):
        r = regret[e]
        if r > 0.0:
            total += r
    if total > 0.0:
        for e in range(a, a + n):
            r = regret[e]
            sigma[e] = r / total if r > 0.0 else 0.0
    else:
        for e in range(a, a + n):
            sigma[e] = 1.0 / n


@njit(cache=True)
def normalise_average(infosets, edge_start, edge_count, cum, sigma):
    """sigma = cumulative strategy normalised per information set (uniform if never reached)."""
    for k in range(len(infosets)):
        s = infosets[k]
        a, n = edge_start[s], edge_count[s]
        total = 0.0
        for e in range(a, a + n):
            total += cum[e]
        for e in range(a, a + n):
            sigma[e] = cum[e] / total if total > 0.0 else 1.0 / n


@njit(cache=True)
def _reach_one(i, pair_parent, pair_edge, sigma, reach):
    p = pair_parent[i]
    e = pair_edge[i]
    reach[i] = reach[p] * sigma[e] if e >= 0 else reach[p]


@njit(cache=True, parallel=True)
def forward_reach(depth_pair_start, pair_parent, pair_edge, sigma, reach):
    """reach[i] = reach[parent] * sigma(edge of i), one depth at a time; 1 at the root.

    Pairs are in breadth-first order, so ``depth_pair_start[d]`` begins depth ``d``;
    the pairs of a large depth are done in parallel.
    """
    for i in range(depth_pair_start[1]):
        reach[i] = 1.0
    for d in range(1, len(depth_pair_start) - 1):
        a, b = depth_pair_start[d], depth_pair_start[d + 1]
        if b - a >= PARALLEL_MIN:
            for i in prange(a, b):
                _reach_one(i, pair_parent, pair_edge, sigma, reach)
        else:
            for i in range(a, b):
                _reach_one(i, pair_parent, pair_edge, sigma, reach)


@njit(cache=True, parallel=True)
def terminal_values(player, terminals, node_pair_start, node_pair_count, node_outcomes,
                    pair_hand, pair_strength, reach, weights_u, payoff, cfv):
    """cfv of ``player``'s pairs at every terminal (see the module docstring).

    ``weights_u[h, o]`` is the deal probability with ``player`` holding hand ``h``
    and the opponent ``o``; ``payoff[k]`` player 0's utility of outcome ``k``.
    At a showdown the outcome depends on the two pairs' strengths.
    """
    sign = 1.0 if player == 0 else -1.0
    n_terminals = len(terminals)
    width = 1
    for k in range(n_terminals):
        width = max(width, node_pair_count[terminals[k], 1 - player])
    for c in prange(CHUNKS):
        _terminal_chunk(c, player, terminals, node_pair_start, node_pair_count, node_outcomes,
                        pair_hand, pair_strength, reach, weights_u, payoff, cfv, sign, width)


@njit(cache=True)
def _terminal_chunk(c, player, terminals, node_pair_start, node_pair_count, node_outcomes,
                    pair_hand, pair_strength, reach, weights_u, payoff, cfv, sign, width):
    """:func:`terminal_values` on the ``c``-th of its :data:`CHUNKS` of terminals (a function
    of its own: see the module docstring on parallel loops)."""
    n_terminals = len(terminals)
    hands = np.empty(width, np.int64)
    mass = np.empty(width, np.float64)
    level = np.empty(width, np.int64)
    for k in range(c * n_terminals // CHUNKS, (c + 1) * n_terminals // CHUNKS):
        t = terminals[k]
        start = node_pair_start[t]
        n0, n1 = node_pair_count[t, 0], node_pair_count[t, 1]
        if player == 0:
            mine, theirs, n_mine, n_theirs = start, start + n0, n0, n1
        else:
            mine, theirs, n_mine, n_theirs = start + n0, start, n1, n0
        end_mine, end_theirs = mine + n_mine, theirs + n_theirs
        o_hi, o_eq, o_lo = node_outcomes[t, 0], node_outcomes[t, 1], node_outcomes[t, 2]
        if o_hi == o_eq and o_eq == o_lo:
            # public outcome: opponent reach summed per hand, one value per own hand
            u = sign * payoff[o_hi]
            m = 0
            for j in range(theirs, end_theirs):
                h = pair_hand[j]
                if m > 0 and hands[m - 1] == h:
                    mass[m - 1] += reach[j]
                else:
                    if m > 0 and mass[m - 1] == 0.0:
                        m -= 1   # a hand he never reaches adds nothing: drop it
                    hands[m] = h
                    mass[m] = reach[j]
                    m += 1
            if m > 0 and mass[m - 1] == 0.0:
                m -= 1
            i = mine
            while i < end_mine:
                h = pair_hand[i]
                row = weights_u[h]
                s = 0.0
                for q in range(m):
                    s += row[hands[q]] * mass[q]
                v = u * s
                cfv[i] = v
                i += 1
                while i < end_mine and pair_hand[i] == h:
                    cfv[i] = v
                    i += 1
        else:
            # showdown: player 0 stronger / equal / weaker, seen from ``player``
            if player == 0:
                u_win, u_tie, u_lose = payoff[o_hi], payoff[o_eq], payoff[o_lo]
            else:
                u_win, u_tie, u_lose = -payoff[o_lo], -payoff[o_eq], -payoff[o_hi]
            # the opponent's pairs he reaches, packed (regret matching gives many zeros)
            m = 0
            for j in range(theirs, end_theirs):
                if reach[j] != 0.0:
                    hands[m] = pair_hand[j]
                    mass[m] = reach[j]
                    level[m] = pair_strength[j]
                    m += 1
            for i in range(mine, end_mine):
                row = weights_u[pair_hand[i]]
                mine_s = pair_strength[i]
                s_win = 0.0
                s_tie = 0.0
                s_lose = 0.0
                for q in range(m):   # adding zeros: the same sums as with branches
                    x = row[hands[q]] * mass[q]
                    s_win += x if mine_s > level[q] else 0.0
                    s_tie += x if mine_s == level[q] else 0.0
                    s_lose += x if mine_s < level[q] else 0.0
                cfv[i] = u_win * s_win + u_tie * s_tie + u_lose * s_lose


@njit(cache=True)
def _pull_children(n, player, node_actor, node_child_start, node_child_count, node_pair_start,
                   node_pair_count, pair_parent, pair_edge, pair_infoset, sigma, cfv,
                   best_response):
    """Set the values of node ``n``'s pairs of ``player`` from its children's."""
    skip0 = 1 if player == 1 else 0
    a = node_pair_start[n] + skip0 * node_pair_count[n, 0]
    for i in range(a, a + node_pair_count[n, player]):
        cfv[i] = NEG_INF if (best_response and pair_infoset[i] >= 0) else 0.0
    c0 = node_child_start[n]
    for c in range(c0, c0 + node_child_count[n]):
        b = node_pair_start[c] + skip0 * node_pair_count[c, 0]
        for i in range(b, b + node_pair_count[c, player]):
            p = pair_parent[i]
            e = pair_edge[i]
            if e < 0:
                cfv[p] += cfv[i]
            elif best_response:
                if cfv[i] > cfv[p]:
                    cfv[p] = cfv[i]
            else:
                cfv[p] += sigma[e] * cfv[i]


@njit(cache=True, parallel=True)
def backward_values(player, depth_node_start, depth_pair_start, node_actor, node_child_start,
                    node_child_count, node_pair_start, node_pair_count, pair_parent, pair_edge,
                    pair_infoset, sigma, cfv, best_response):
    """Values of ``player``'s pairs from the terminals up (terminal pairs already hold theirs).

    At the player's own choices a pair's value is the sigma-weighted sum of its edges,
    or their max when ``best_response``; elsewhere the plain sum of its children.
    Depths are done deepest first; the nodes of a depth whose children hold many
    pairs are done in parallel (each node writes only its own pairs).
    """
    for d in range(len(depth_node_start) - 2, -1, -1):
        a, b = depth_node_start[d], depth_node_start[d + 1]
        below = depth_pair_start[d + 2] - depth_pair_start[d + 1] if d + 2 < len(depth_pair_start) else 0
        if below >= PARALLEL_MIN:
            for n in prange(a, b):
                if node_actor[n] >= 0:
                    _pull_children(n, player, node_actor, node_child_start, node_child_count,
                                   node_pair_start, node_pair_count, pair_parent, pair_edge,
                                   pair_infoset, sigma, cfv, best_response)
        else:
            for n in range(a, b):
                if node_actor[n] >= 0:
                    _pull_children(n, player, node_actor, node_child_start, node_child_count,
                                   node_pair_start, node_pair_count, pair_parent, pair_edge,
                                   pair_infoset, sigma, cfv, best_response)


@njit(cache=True)
def _update_one(s, infoset_pair, edge_start, edge_count, edge_pair, cfv, reach, sigma, regret,
                cum, pos_discount, neg_discount, avg_discount, plus, predictive, next_discount,
                sums):
    pair = infoset_pair[s]
    ev = cfv[pair]
    own = reach[pair]
    a, n = edge_start[s], edge_count[s]
    for e in range(a, a + n):
        r = regret[e]
        gain = cfv[edge_pair[e]] - ev
        if sums:
            cum[e] = cum[e] * avg_discount + own * sigma[e]
        if plus:
            r = max(r * pos_discount + gain, 0.0)
        else:
            r = r * (pos_discount if r > 0.0 else neg_discount) + gain
        regret[e] = r
        if predictive:
            # the predicted regret of the next iteration: this one's gain again
            sigma[e] = max(r * next_discount + gain, 0.0)
    if predictive:
        total = 0.0
        for e in range(a, a + n):
            total += sigma[e]
        for e in range(a, a + n):
            sigma[e] = sigma[e] / total if total > 0.0 else 1.0 / n
    else:
        _match(s, edge_start, edge_count, regret, sigma)


@njit(cache=True, parallel=True)
def update_regrets(infosets, infoset_pair, edge_start, edge_count, edge_pair, cfv, reach,
                   sigma, regret, cum, pos_discount, neg_discount, avg_discount,
                   plus=False, predictive=False, next_discount=1.0, sums=True):
    """One Discounted CFR step on one player's information sets, then his next strategy.

    regret <- regret * (pos_discount if > 0 else neg_discount) + cfv(edge) - cfv(info set)
    (with ``plus``: the positive part of regret * pos_discount + the gain, as CFR+ does);
    unless ``sums`` is False (see :func:`add_to_average`), cum <- cum * avg_discount +
    reach(info set) * sigma; then sigma <- regret matching, or with ``predictive``
    matching on the predicted regret ``regret * next_discount + gain`` (the gain of this
    iteration taken as the next one's, as predictive CFR+ does).
    """
    if len(infosets) >= PARALLEL_MIN:
        for k in prange(len(infosets)):
            _update_one(infosets[k], infoset_pair, edge_start, edge_count, edge_pair, cfv, reach,
                        sigma, regret, cum, pos_discount, neg_discount, avg_discount, plus,
                        predictive, next_discount, sums)
    else:
        for k in range(len(infosets)):
            _update_one(infosets[k], infoset_pair, edge_start, edge_count, edge_pair, cfv, reach,
                        sigma, regret, cum, pos_discount, neg_discount, avg_discount, plus,
                        predictive, next_discount, sums)


@njit(cache=True)
def add_to_average(infosets, infoset_pair, edge_start, edge_count, reach, sigma, cum,
                   avg_discount):
    """cum <- cum * avg_discount + reach(info set) * sigma on one player's information sets,
    outside his own update: the strategy sums of the player who is not updated in a walk
    (:class:`lab.solver.cfr.CFRSolver` with ``sums_in_opponent_walk``)."""
    for k in range(len(infosets)):
        s = infosets[k]
        own = reach[infoset_pair[s]]
        for e in range(edge_start[s], edge_start[s] + edge_count[s]):
            cum[e] = cum[e] * avg_discount + own * sigma[e]
