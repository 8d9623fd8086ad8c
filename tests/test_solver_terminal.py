"""The terminal-value kernel against a dense brute force, with card removal.

At a terminal, a pair's counterfactual value is the sum over the opponent's pairs of
deal weight x opponent reach x utility (decided by the two strengths at a showdown).
The brute force builds that dense matrix per terminal with numpy, straight from the
deal-weight matrix of lab.classes, and multiplies.
"""

import numpy as np
import pytest

from lab.classes import deal_weight_matrix
from lab.solver import kernels as K
from lab.solver.games.cardplay import cardplay_tree
from lab.solver.games.kuhn import KUHN_PAYOFF, KuhnPoker
from lab.solver.tree import build_tree


def brute_force(tree, weights, payoff, reach, player, terminals):
    sign = 1.0 if player == 0 else -1.0
    out = {}
    for t in terminals:
        mine, theirs = tree.pairs_of(t, player), tree.pairs_of(t, 1 - player)
        hm, ho = tree.pair_hand[mine.start:mine.stop], tree.pair_hand[theirs.start:theirs.stop]
        w = weights[np.ix_(hm, ho)] if player == 0 else weights[np.ix_(ho, hm)].T
        sm = tree.pair_strength[mine.start:mine.stop][:, None]
        so = tree.pair_strength[theirs.start:theirs.stop][None, :]
        s0, s1 = (sm, so) if player == 0 else (so, sm)
        k = np.where(s0 > s1, tree.node_outcomes[t, 0],
                     np.where(s0 == s1, tree.node_outcomes[t, 1], tree.node_outcomes[t, 2]))
        out[int(t)] = (w * sign * payoff[k]) @ reach[theirs.start:theirs.stop]
    return out


def run_kernel(tree, weights, payoff, reach, player):
    cfv = np.zeros(tree.n_pairs)
    wu = np.ascontiguousarray(weights if player == 0 else weights.T)
    K.terminal_values(player, tree.terminals, tree.node_pair_start, tree.node_pair_count,
                      tree.node_outcomes, tree.pair_hand, tree.pair_strength, reach, wu,
                      np.asarray(payoff, dtype=np.float64), cfv)
    return cfv


@pytest.mark.parametrize("player", [0, 1])
def test_cardplay_terminals_match_brute_force(player):
    tree = cardplay_tree()
    weights = deal_weight_matrix("7")
    payoff = np.array([1.0, 0.0])
    reach = np.random.default_rng(player).random(tree.n_pairs)
    cfv = run_kernel(tree, weights, payoff, reach, player)
    rng = np.random.default_rng(10 + player)
    showdown = tree.terminals[tree.node_outcomes[tree.terminals, 0] != tree.node_outcomes[tree.terminals, 2]]
    plain = np.setdiff1d(tree.terminals, showdown)
    picked = np.concatenate([rng.choice(showdown, 1500, replace=False),
                             rng.choice(plain, 1500, replace=False)])
    expected = brute_force(tree, weights, payoff, reach, player, picked)
    for t, v in expected.items():
        r = tree.pairs_of(t, player)
        assert np.allclose(cfv[r.start:r.stop], v, rtol=1e-12, atol=1e-15), t
    assert len(showdown) > 10_000 and len(plain) > 10_000


def test_kuhn_showdowns_match_brute_force():
    game = KuhnPoker()
    tree = build_tree(game)
    reach = np.random.default_rng(3).random(tree.n_pairs)
    for player in (0, 1):
        cfv = run_kernel(tree, game.deal_weights(), KUHN_PAYOFF, reach, player)
        for t, v in brute_force(tree, game.deal_weights(), KUHN_PAYOFF, reach, player,
                                tree.terminals).items():
            r = tree.pairs_of(t, player)
            assert np.allclose(cfv[r.start:r.stop], v, rtol=1e-12)
