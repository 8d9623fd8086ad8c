"""The CFR kernels on Kuhn poker (value -1/18), and the solver's state machine."""

import math

import numpy as np
import pytest

from lab.solver.cfr import SCHEDULES, CFRSolver, Schedule, SolverStateError
from lab.solver.games.kuhn import KUHN_PAYOFF, KUHN_VALUE, KuhnPoker
from lab.solver.tree import build_tree


def kuhn_solver(schedule="dcfr"):
    game = KuhnPoker()
    return CFRSolver(build_tree(game), game.deal_weights(), KUHN_PAYOFF, schedule=schedule)


def test_kuhn_value_through_the_same_kernels():
    solver = kuhn_solver().solve(target_exploitability=0.0, max_iterations=2000, check_every=100)
    # |value(avg) - value*| <= 2 * exploitability; at 2000 iterations that is below 2e-4 chips
    assert solver.final_exploitability < 1e-4
    assert solver.value() == pytest.approx(KUHN_VALUE, abs=2e-4)
    # the known equilibrium facts: player 1 with the king always calls a bet, with the jack
    # never calls; player 0's hand values average to the game value
    hv = solver.hand_values()
    weights = solver.weights[0].sum(axis=1)
    assert weights @ hv[0] == pytest.approx(solver.value(), abs=1e-9)


@pytest.mark.parametrize("schedule", sorted(SCHEDULES))
def test_every_schedule_solves_kuhn(schedule):
    """Each schedule offered (Discounted CFR's, the floored ``+`` ones, the predictive
    ones) converges to the game value -1/18 on the same kernels."""
    solver = kuhn_solver(schedule).solve(target_exploitability=1e-3, max_iterations=3000,
                                         check_every=50)
    assert solver.final_exploitability <= 1e-3
    assert solver.value() == pytest.approx(KUHN_VALUE, abs=2e-3)
    if SCHEDULES[schedule].plus:   # floored regrets never go negative
        assert solver.regret.min() >= 0.0


def test_predictive_matching_plays_the_predicted_regret():
    """Predictive CFR+ against the same schedule without prediction: after iteration 1 the
    regrets are the first gains' positive parts, and matching on (regret + the gain again)
    plays the same strategy; at iteration 2 the gains differ from the regrets, and the
    strategies part."""
    plain = kuhn_solver(Schedule("cfr+", math.inf, -math.inf, 2.0, plus=True)).allocate()
    predictive = kuhn_solver("pcfr+").allocate()
    plain.iterate(1)
    predictive.iterate(1)
    assert np.array_equal(plain.regret, predictive.regret)
    assert np.allclose(plain.sigma, predictive.sigma, atol=1e-7)
    plain.iterate(1)
    predictive.iterate(1)
    assert not np.allclose(plain.sigma, predictive.sigma, atol=1e-3)


def test_kuhn_equilibrium_strategy_facts():
    solver = kuhn_solver().solve(target_exploitability=0.0, max_iterations=2000, check_every=500)
    tree = solver.tree
    bet = tree.node_of(("b",))  # player 0 bet; player 1 to call ("b") or fold ("p")
    call = {card: dict((a, p) for a, _, p in solver.strategy_of(bet, 1, card)) for card in range(3)}
    assert call[2]["b"] == pytest.approx(1.0, abs=1e-3)      # the king calls
    assert call[0]["b"] == pytest.approx(0.0, abs=1e-3)      # the jack folds
    assert call[1]["b"] == pytest.approx(1 / 3, abs=2e-2)    # the queen calls 1/3


def test_exploitability_falls_with_iterations():
    solver = kuhn_solver().allocate()
    seen = []
    for target in (10, 100, 1000):
        solver.iterate(target - solver.iterations)
        seen.append(solver.exploitability())
    assert seen[0] > 2 * seen[1] > 4 * seen[2] > 0


def test_state_machine_errors():
    solver = kuhn_solver()
    assert solver.state == "built"
    for call in (solver.hand_values, solver.value, solver.average_strategy):
        with pytest.raises(SolverStateError, match="it is built: call solve"):
            call()
    with pytest.raises(SolverStateError, match="call allocate"):
        solver.iterate(1)
    solver.allocate()
    assert solver.state == "allocated"
    with pytest.raises(SolverStateError, match="already allocated"):
        solver.allocate()
    with pytest.raises(SolverStateError, match="at least one iteration"):
        solver.exploitability()
    solver.iterate(5)
    with pytest.raises(SolverStateError, match="call solve"):
        solver.hand_values()
    with pytest.raises(SolverStateError, match="call solve"):
        solver.strategy_of(0, 0, 0)
    solver.solve(target_exploitability=1.0, max_iterations=10)
    assert solver.state == "solved"
    assert np.isfinite(solver.value())
    solver.iterate(1)  # more iterations make the results stale again
    assert solver.state == "allocated"


def test_bad_inputs_are_refused():
    game = KuhnPoker()
    tree = build_tree(game)
    with pytest.raises(ValueError, match="deal weights"):
        CFRSolver(tree, np.ones((2, 3)), KUHN_PAYOFF)
    with pytest.raises(ValueError, match="payoffs"):
        CFRSolver(tree, game.deal_weights(), [1.0, -1.0])
