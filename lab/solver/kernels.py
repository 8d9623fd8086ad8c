"""Numba kernels of public-tree CFR over the flat arrays of :mod:`lab.solver.tree`.

Storage (float32 where the solver keeps it between iterations, float64 for the
sums a kernel forms):

* ``regret[e]``, ``cum[e]`` (float32): cumulative regret and cumulative
  (reach-weighted) strategy of edge ``e``; ``sigma[e]`` (float32) the current
  or average strategy. An information set's edges are contiguous, so regret
  matching and the updates are segment loops.
* ``reach[i]`` (float64): probability that pair ``i``'s player plays to it
  (his own actions only); chance and the opponent enter through the deal
  weights at the terminals.
* ``cfv[i]`` (float64): counterfactual value of pair ``i`` for its player:
  sum over opponent pairs ``o`` at the same terminals of
  ``W[hand_i, hand_o] * reach[o] * utility`` (``W`` = deal probability).

One traversal for player ``u`` is: ``forward_reach`` (all pairs, top down),
``terminal_values`` (u's pairs at terminals), ``backward_values`` (u's pairs,
bottom up: a sum weighted by ``sigma`` at his own choices, a plain sum over the
other player's, or a max at his choices for a best response), then
``update_regrets``. Utilities are player 0's; player 1 gets minus them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NEG_INF = -np.inf


@njit(cache=True)
def regret_matching(infosets, edge_start, edge_count, regret, sigma):
    """sigma = positive part of the regret, normalised per information set (uniform if none)."""
    for k in range(len(infosets)):
        s = infosets[k]
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
def forward_reach(pair_parent, pair_edge, sigma, reach):
    """reach[i] = reach[parent] * sigma(edge of i) in breadth-first order; 1 at the root."""
    for i in range(len(pair_parent)):
        p = pair_parent[i]
        if p < 0:
            reach[i] = 1.0
        else:
            e = pair_edge[i]
            reach[i] = reach[p] * sigma[e] if e >= 0 else reach[p]


@njit(cache=True)
def terminal_values(player, terminals, node_pair_start, node_pair_count, node_outcomes,
                    pair_hand, pair_strength, reach, weights_u, payoff, cfv):
    """cfv of ``player``'s pairs at every terminal.

    ``weights_u[h, o]`` is the deal probability with ``player`` holding hand ``h``
    and the opponent ``o``; ``payoff[k]`` player 0's utility of outcome ``k``.
    At a showdown the outcome depends on the strengths of the two pairs.
    """
    sign = 1.0 if player == 0 else -1.0
    for k in range(len(terminals)):
        t = terminals[k]
        start = node_pair_start[t]
        n0, n1 = node_pair_count[t, 0], node_pair_count[t, 1]
        if player == 0:
            mine, theirs, n_mine, n_theirs = start, start + n0, n0, n1
        else:
            mine, theirs, n_mine, n_theirs = start + n0, start, n1, n0
        o_hi, o_eq, o_lo = node_outcomes[t, 0], node_outcomes[t, 1], node_outcomes[t, 2]
        if o_hi == o_eq and o_eq == o_lo:
            u = sign * payoff[o_hi]
            for i in range(mine, mine + n_mine):
                row = weights_u[pair_hand[i]]
                s = 0.0
                for j in range(theirs, theirs + n_theirs):
                    s += row[pair_hand[j]] * reach[j]
                cfv[i] = u * s
        else:
            # player 0 stronger / equal / weaker, seen from ``player``
            if player == 0:
                u_win, u_tie, u_lose = payoff[o_hi], payoff[o_eq], payoff[o_lo]
            else:
                u_win, u_tie, u_lose = -payoff[o_lo], -payoff[o_eq], -payoff[o_hi]
            for i in range(mine, mine + n_mine):
                row = weights_u[pair_hand[i]]
                mine_s = pair_strength[i]
                s = 0.0
                for j in range(theirs, theirs + n_theirs):
                    their_s = pair_strength[j]
                    if mine_s > their_s:
                        u = u_win
                    elif mine_s == their_s:
                        u = u_tie
                    else:
                        u = u_lose
                    s += row[pair_hand[j]] * reach[j] * u
                cfv[i] = s


@njit(cache=True)
def backward_values(pairs, pair_parent, pair_edge, pair_infoset, sigma, is_terminal, cfv,
                    best_response):
    """Values of one player's ``pairs`` (breadth-first order), from the terminals up.

    Terminal pairs must already hold their values. At the player's own choices a
    pair's value is the sigma-weighted sum of its edges, or their max when
    ``best_response``; elsewhere the plain sum of its children.
    """
    for k in range(len(pairs)):
        i = pairs[k]
        if not is_terminal[i]:
            cfv[i] = NEG_INF if (best_response and pair_infoset[i] >= 0) else 0.0
    for k in range(len(pairs) - 1, -1, -1):
        i = pairs[k]
        p = pair_parent[i]
        if p < 0:
            continue
        e = pair_edge[i]
        if e < 0:
            cfv[p] += cfv[i]
        elif best_response:
            if cfv[i] > cfv[p]:
                cfv[p] = cfv[i]
        else:
            cfv[p] += sigma[e] * cfv[i]


@njit(cache=True)
def update_regrets(infosets, infoset_pair, edge_start, edge_count, edge_pair, cfv, reach,
                   sigma, regret, cum, pos_discount, neg_discount, avg_discount):
    """Discounted CFR step for one player's information sets.

    regret <- regret * (pos_discount if > 0 else neg_discount) + (cfv(edge) - cfv(info set));
    cum <- cum * avg_discount + reach(info set) * sigma.
    """
    for k in range(len(infosets)):
        s = infosets[k]
        pair = infoset_pair[s]
        ev = cfv[pair]
        r_own = reach[pair]
        for e in range(edge_start[s], edge_start[s] + edge_count[s]):
            r = regret[e]
            r = r * (pos_discount if r > 0.0 else neg_discount)
            regret[e] = r + (cfv[edge_pair[e]] - ev)
            cum[e] = cum[e] * avg_discount + r_own * sigma[e]
