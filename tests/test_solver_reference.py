"""The solver against an independent plain-Python recursion on small decks.

The recursion walks the game through the :class:`PublicGame` interface only (no
tree arrays, no kernels): for one hand of one player it carries the opponent's
private states weighted by deal probability times his strategy, takes the max
over the player's own moves for a best response, and scores terminals by the
game's outcomes. It checks the solver's best responses, exploitability and
values; then the same small decks check the pruning of round-3 covers, the
folding of round 3, the payoff scaling and the root decision.
"""

import numpy as np
import pytest

from lab.solver.games.cardplay_game import CardplayGame
from lab.solver.cfr import CFRSolver
from lab.solver.game import RootDecision
from lab.solver.tree import build_tree

TOY = (3, 3, 2, 1, 1)
"""A 10-card deck: two plain levels of 3 copies, one of 2, two single 'manilhas'."""


def solved(game, payoff=(1.0, 0.0), total=1.0, target=1e-7, iterations=4000):
    solver = CFRSolver(build_tree(game), game.deal_weights(), payoff, total=total)
    return solver.solve(target_exploitability=target, max_iterations=iterations, check_every=16)


def reference_value(game, solver, player, best_response):
    """Player ``player``'s expected utility (player 1's is minus player 0's), summed over
    his hands with their deal weights, when the opponent follows the solver's average
    strategy and he follows it too, or best-responds."""
    tree, payoff = solver.tree, solver.payoff
    weights = game.deal_weights()
    sign = 1.0 if player == 0 else -1.0

    def policy(history, who, private):
        node = tree.node_of(history)
        return [(a, nxt, p) for a, nxt, p in solver.strategy_of(node, who, private)]

    def rec(public, history, mine, opp):
        if sum(opp.values()) == 0.0:
            return 0.0
        actor = game.actor(public)
        if actor is None:
            out = game.outcomes(public)
            s_mine = int(game.strength(player, np.array([mine]))[0])
            total = 0.0
            for o, w in opp.items():
                s_opp = int(game.strength(1 - player, np.array([o]))[0])
                s0, s1 = (s_mine, s_opp) if player == 0 else (s_opp, s_mine)
                k = out[0] if s0 > s1 else out[1] if s0 == s1 else out[2]
                total += w * sign * payoff[k]
            return total
        if actor == player:
            values, probs = [], []
            strategy = None if best_response else policy(history, player, mine)
            for action, _, nxt in game.moves(public, np.array([mine])):
                for n in np.atleast_1d(nxt):
                    child = game.child(public, action)
                    values.append(rec(child, history + (action,), int(n), opp))
                    if strategy is not None:
                        probs.append(sum(p for a, s, p in strategy if a == action and s == int(n)))
            return max(values) if best_response else float(np.dot(values, probs))
        by_action: dict = {}
        for o, w in opp.items():
            if w == 0.0:
                continue
            for action, nxt, p in policy(history, actor, o):
                d = by_action.setdefault(action, {})
                d[nxt] = d.get(nxt, 0.0) + w * p
        return sum(rec(game.child(public, a), history + (a,), mine, d) for a, d in by_action.items())

    total = 0.0
    roots = [game.root_states(0), game.root_states(1)]
    for h, mine in enumerate(roots[player]):
        opp = {int(o): float(weights[h, j] if player == 0 else weights[j, h])
               for j, o in enumerate(roots[1 - player])}
        total += rec(game.root(), (), int(mine), opp)
    return total


@pytest.fixture(scope="module")
def toy_solution():
    game = CardplayGame(toy_cap=TOY)
    return game, solved(game, iterations=48)  # deliberately not converged: a BR must find gains


def test_best_responses_match_the_reference(toy_solution):
    game, solver = toy_solution
    br0, br1 = solver.best_response_values()
    assert br0 == pytest.approx(reference_value(game, solver, 0, True), abs=1e-9)
    assert br1 - solver.total == pytest.approx(reference_value(game, solver, 1, True), abs=1e-9)
    expected = 0.5 * (reference_value(game, solver, 0, True) + reference_value(game, solver, 1, True))
    assert solver.exploitability() == pytest.approx(expected, abs=1e-9)
    assert solver.exploitability() > 1e-6  # a gain to find, so the max is exercised


def test_values_match_the_reference(toy_solution):
    game, solver = toy_solution
    assert solver.value() == pytest.approx(reference_value(game, solver, 0, False), abs=1e-9)
    assert -solver.value() == pytest.approx(reference_value(game, solver, 1, False), abs=1e-9)
    hv = solver.hand_values()
    w = game.deal_weights()
    assert w.sum(axis=1) @ hv[0] == pytest.approx(solver.value(), abs=1e-9)
    assert w.sum(axis=0) @ hv[1] == pytest.approx(1.0 - solver.value(), abs=1e-9)


@pytest.mark.parametrize("deck", [TOY, (2, 2, 2, 2, 1, 1)])
def test_round3_pruning_and_folding_keep_the_value(deck):
    """Covering in round 3 is weakly dominated and round 3 is forced: the game with
    round-3 covers and round 3 as public nodes has the value of the pruned, folded one."""
    values = {}
    for fold, cover3 in ((True, False), (False, True), (False, False), (True, True)):
        solver = solved(CardplayGame(toy_cap=deck, fold_round3=fold, cover_in_round3=cover3))
        assert solver.final_exploitability <= 1e-7
        values[fold, cover3] = solver.value()
    pruned = values[True, False]
    for key, v in values.items():
        assert v == pytest.approx(pruned, abs=4e-7), key


def test_payoff_scaling_keeps_the_equilibrium():
    """Points at a stake of 3 ((3, -3), zero-sum) are 6 * win probability - 3."""
    game = CardplayGame(toy_cap=TOY)
    prob = solved(game)
    points = solved(game, payoff=(3.0, -3.0), total=0.0, target=6e-7)
    assert points.value() == pytest.approx(6 * prob.value() - 3, abs=6e-6)
    hp, hq = prob.hand_values(), points.hand_values()
    w = game.deal_weights()
    ok = w.sum(axis=1) > 0
    assert np.allclose(hq[0][ok], 6 * hp[0][ok] - 3, atol=1e-3)


def test_root_decision():
    """The mão decides before the cards: running pays a fixed amount."""
    game = CardplayGame(toy_cap=TOY)
    plain = solved(game).value()
    never = solved(RootDecision(game, 0), payoff=(1.0, 0.0, -1.0)).value()
    always = solved(RootDecision(game, 0), payoff=(1.0, 0.0, 1.0)).value()
    middle = solved(RootDecision(game, 0), payoff=(1.0, 0.0, 0.3))
    assert never == pytest.approx(plain, abs=1e-6)          # running is never worth it
    assert always == pytest.approx(1.0, abs=1e-6)           # running is as good as a sure win
    assert middle.value() > max(plain, 0.3)                 # the option is worth something
    # the pé may hold the option too (player 1): running gives the mão 0.8, which the pé
    # prefers with his worst hands, so the mão's value drops below the plain game's
    pe = solved(RootDecision(game, 1), payoff=(1.0, 0.0, 0.8))
    assert pe.value() < plain - 1e-3
