"""Hand equity of a real vira: the solved card-play game and its API."""

import numpy as np
import pytest

from lab.classes import hand_classes
from lab.solver.games.cardplay import COVER, solve_cardplay
from lab.solver.cfr import SolverStateError


@pytest.fixture(scope="module", params=["4", "K"])
def solution(request):
    return solve_cardplay(request.param, target_exploitability=1e-4, max_iterations=400)


def test_solved_to_the_target(solution):
    assert solution.exploitability <= 1e-4
    assert 0 < solution.iterations < 400
    assert solution.equity.shape == (2, 403)


def test_weighted_seat_equities_sum_to_one(solution):
    hc = hand_classes(solution.vira)
    mao, pe = float(hc.weight @ solution.equity[0]), float(hc.weight @ solution.equity[1])
    assert mao == pytest.approx(solution.value, abs=1e-9)
    assert mao + pe == pytest.approx(1.0, abs=1e-9)
    assert 0.3 < solution.value < 0.7


def test_sure_winners_and_sure_losers(solution):
    """Zap, copas and espadilha win whatever anyone plays: round 1 is won by an open
    manilha, and a round-2 cover only leads to a round 3 won by another manilha, or to
    a tie after a win. Equity 1 for either seat, up to float32 rounding.

    Three cards of the lowest level (4s, or 5s when 4 is the manilha rank) cannot win
    a round against correct play: the opponent holds at most one card of that level and
    two higher ones, which win two rounds. Equity 0 at the equilibrium; the solved
    strategies are within the exploitability target of it."""
    hc = hand_classes(solution.vira)
    top = hc.index_of((12, 11, 10))
    low = hc.index_of((0, 0, 0))
    assert hc.labels[top] == "zap copas espadilha"
    assert np.all(np.abs(solution.equity[:, top] - 1) <= 1e-6)
    assert np.all(solution.equity[:, low] <= 1e-4)
    assert np.all((solution.equity >= -1e-6) & (solution.equity <= 1 + 1e-6))  # float32 strategies


def test_strategy_at(solution):
    hc = hand_classes(solution.vira)
    i = hc.index_of((11, 8, 3))
    first = solution.strategy_at([], 0, i)
    assert set(first) <= {("play", 11), ("play", 8), ("play", 3)}
    assert sum(first.values()) == pytest.approx(1.0, abs=1e-6)
    # the pé after the mão led zap: round 1 has no covers
    reply = solution.strategy_at([12], 1, i)
    assert set(reply) <= {("play", 11), ("play", 8), ("play", 3)}
    # round 2 after a cover by the mão: the pé may play or cover either card
    j = hc.index_of((9, 7, 2))
    later = solution.strategy_at([12, 2, COVER], 1, j)
    assert set(later) <= {("play", 9), ("play", 7), ("cover", 9), ("cover", 7)}
    assert sum(later.values()) == pytest.approx(1.0, abs=1e-6)
    # round 3 is forced: after [zap, 3, covered, 8] the pé won round 2 and leads round 3
    pe = hc.index_of((11, 8, 3))
    assert solution.strategy_at([12, 3, COVER, 8], 1, pe) == {("play", 11): 1.0}
    mao = hc.index_of((12, 7, 3))
    assert solution.strategy_at([12, 3, COVER, 8, 11], 0, mao, held=(7,)) == {("play", 7): 1.0}
    with pytest.raises(ValueError, match="not to act"):
        solution.strategy_at([12, 3, COVER, 8], 0, mao, held=(7,))
    with pytest.raises(ValueError):
        solution.strategy_at([12], 1, hc.index_of((12, 0, 0)))  # the zap is on the table


def test_results_before_solving_are_refused():
    from lab.solver.games.cardplay import cardplay_solver
    solver = cardplay_solver("4")
    with pytest.raises(SolverStateError, match="call solve"):
        solver.hand_values()


def test_work_figures_describe_the_tree():
    from lab.solver.games.cardplay import cardplay_tree, cardplay_work
    work = cardplay_work()
    tree = cardplay_tree()
    assert work["pairs"] == tree.node_pair_count.sum() == tree.n_pairs
    assert work["edges"] == tree.infoset_edge_count.sum()
    assert work["terminals"] + work["decision_nodes"] == work["nodes"]
    counts = tree.node_pair_count[tree.terminals].astype(int)
    dense = 2 * int((counts[:, 0] * counts[:, 1]).sum())
    # per-hand sums at public terminals do less than the dense product, never more
    assert work["terminal_pairs"] < work["terminal_multiply_adds"] < dense
    assert work["bytes_per_iteration"] > 8 * 2 * work["pairs"]


def test_strategy_at_with_a_root_decision():
    """The mão de onze form: the pé holds 11 and decides first; card play follows "accept".
    Mão's utility 0.9 if he wins the hand, 0.2 if he loses, 0.6 if the pé runs."""
    sol = solve_cardplay("Q", target_exploitability=1e-3, max_iterations=64,
                         payoff=(0.9, 0.2), decision=(1, 0.6))
    hc = hand_classes("Q")
    top, low = hc.index_of((12, 11, 10)), hc.index_of((0, 0, 0))
    decide = sol.strategy_at([], 1, top)
    assert set(decide) == {"accept", "run"}
    assert decide["accept"] == pytest.approx(1.0, abs=1e-3)            # a sure win: accept
    assert sol.strategy_at([], 1, low)["run"] == pytest.approx(1.0, abs=1e-3)  # a sure loss: run
    first = sol.strategy_at(["accept"], 0, hc.index_of((11, 8, 3)))
    assert sum(first.values()) == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(ValueError, match="decides first"):
        sol.strategy_at([], 0, top)
    with pytest.raises(ValueError, match="starts with 'accept'"):
        sol.strategy_at([11], 1, top)
