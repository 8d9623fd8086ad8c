"""Node locking in the full game (:mod:`lab.solver.fullgame.locking`), on the reduced game
of ``test_rank`` (toy deck (3, 3, 1), ladder 1-3-6), checked against that file's
plain-Python best response (a walk of the reference game sharing nothing with the
kernels but the policy's lookups).

- Locking nothing solves exactly as the plain solver.
- A seat locked whole plays, and averages to, exactly the locked strategy, and the other
  seat's re-solve reaches the brute-force best response to it.
- Locked at its own equilibrium, a seat leaves the other's value where it was, within the
  policy's exploitability.
- Play shifted toward running, or away from raising, moves each chosen decision's
  probability as asked; a whole answer reshaped (run up, re-raise up, accept down) moves
  each move as asked where it fits and keeps each decision a distribution.
"""

import numpy as np
import pytest

from test_rank import TOY, brute_best_response, policy_rule, uniform_rule

from lab.solver.fullgame.game import FullGame


@pytest.fixture(scope="module")
def toy():
    from lab.policy.full import FullPolicy
    from lab.solver.fullgame.locking import slot_table
    from lab.solver.fullgame.solver import FullSolver, config_for

    config = config_for(**TOY)
    solver = FullSolver(config).allocate()
    solver.iterate(200)
    policy = FullPolicy.from_solver(solver, threshold=0.0)
    return policy, slot_table(policy.keys, policy.tree, policy.templates), FullGame(**TOY)


def locked_solve(policy, chosen, q, iterations=300):
    """A locked re-solve, run: its values and best responses read its own average
    strategy (the strategy sums as they are)."""
    from lab.solver.fullgame.locking import LockedSolver

    solver = LockedSolver(policy.config).allocate()
    solver.lock(policy.keys, chosen, q).iterate(iterations)
    return solver


def test_locking_nothing_is_the_plain_solve_bit_for_bit(toy):
    from dataclasses import replace

    from lab.solver.fullgame.locking import LockedSolver
    from lab.solver.fullgame.solver import FullSolver

    policy, table, _ = toy
    plain = FullSolver(replace(policy.config, storage="float32")).allocate()
    plain.iterate(20)
    for chosen in (None, np.zeros(policy.keys.n_slots, dtype=bool)):
        locked = LockedSolver(policy.config).allocate()
        if chosen is not None:
            locked.lock(policy.keys, chosen, policy.q)
        locked.iterate(20)
        assert len(locked.locked) == 0
        for name in ("reg32", "cum32", "cscale"):
            np.testing.assert_array_equal(getattr(locked, name), getattr(plain, name))


def test_the_slot_table_names_every_stored_slot(toy):
    from lab.solver.fullgame.locking import ANSWER, CARD, RAISE, choose

    policy, table, _ = toy
    assert (table.seat >= 0).all() and set(np.unique(table.kind)) == {CARD, RAISE, ANSWER}
    answers = table.kind == ANSWER
    assert (table.answer[answers] >= 0).all() and (table.answer[~answers] == -1).all()
    # a stored answering pair sums to the quantisation, or is all zero (uniform)
    firsts = np.unique(table.first[answers])
    sums = np.add.reduceat(policy.q.astype(int)[answers], np.searchsorted(
        np.flatnonzero(answers), firsts))
    assert set(np.unique(sums)) <= {0, 255}
    mine = choose(table, policy.tree, 1)
    assert (table.seat[mine] == 1).all() and mine.sum() == (table.seat == 1).sum()
    middle = choose(table, policy.tree, 0, kinds=(ANSWER,), classes=[1, 2])
    assert middle.any() and (table.kind[middle] == ANSWER).all()
    assert set(np.unique(policy.tree.pair_hand[table.pair[middle]])) == {1, 2}


def test_shifting_answers_toward_running(toy):
    from lab.solver.fullgame.locking import ANSWER, RUN, choose, shift

    policy, table, _ = toy
    chosen = choose(table, policy.tree, 1, kinds=(ANSWER,))
    shifted = shift(policy.q, table, chosen, table.answer == RUN, 0.3)
    assert (shifted[~chosen] == policy.q[~chosen]).all()
    run = chosen & (table.answer == RUN)
    for first in np.unique(table.first[run])[:200]:
        width = 3 if (table.first == first).sum() == 3 else 2
        before = policy.q[first:first + width].astype(float)
        before = before / before.sum() if before.sum() else np.full(width, 1 / width)
        after = shifted[first:first + width].astype(float)
        assert after.sum() == 255
        want = min(1.0, before[1] + 0.3)
        assert after[1] / 255 == pytest.approx(want, abs=1.5 / 255)


def test_reshaping_a_whole_answer(toy):
    """Run +0.3, re-raise +0.1, accept -0.4 at every answer of the pé: where the moves fit
    (accept held 0.4 or more, run and re-raise not past 1) each moves by exactly its
    shift; elsewhere the clipped moves are scaled back to a distribution."""
    from lab.solver.fullgame.locking import ACCEPT, ANSWER, RERAISE, RUN, choose, reshape

    policy, table, _ = toy
    chosen = choose(table, policy.tree, 1, kinds=(ANSWER,))
    by = {ACCEPT: -0.4, RUN: 0.3, RERAISE: 0.1}
    moved = reshape(policy.q, table, chosen, [table.answer == a for a in by], list(by.values()))
    assert (moved[~chosen] == policy.q[~chosen]).all()
    fitted = clipped = 0
    for first in np.unique(table.first[chosen]):
        width = 3 if (table.first == first).sum() == 3 else 2
        before = policy.q[first:first + width].astype(float)
        before = before / before.sum() if before.sum() else np.full(width, 1 / width)
        after = moved[first:first + width].astype(float)
        assert after.sum() == 255
        want = np.array([before[a] + by[a] for a in range(width)])
        if (want >= 0).all() and want.sum() == pytest.approx(1.0):
            fitted += 1
            assert after / 255 == pytest.approx(want, abs=1.5 / 255)
        else:
            clipped += 1
            want = np.clip(want, 0, 1)
            assert after / 255 == pytest.approx(want / want.sum(), abs=1.5 / 255)
    assert fitted and clipped


def test_setting_a_whole_answer_to_his_frequencies(toy):
    """Accept 0.2, run 0.5, re-raise 0.3 at every answer of the pé, whatever the
    equilibrium played there: each answer plays exactly those frequencies, and where
    the re-raise is not open the other two are scaled to a distribution (2/7 and 5/7)."""
    from lab.solver.fullgame.locking import ACCEPT, ANSWER, RERAISE, RUN, choose, reshape

    policy, table, _ = toy
    chosen = choose(table, policy.tree, 1, kinds=(ANSWER,))
    to = {ACCEPT: 0.2, RUN: 0.5, RERAISE: 0.3}
    moved = reshape(policy.q, table, chosen, [table.answer == a for a in to], [0.0] * 3,
                    list(to.values()))
    assert (moved[~chosen] == policy.q[~chosen]).all()
    widths = set()
    for first in np.unique(table.first[chosen]):
        width = 3 if (table.first == first).sum() == 3 else 2
        widths.add(width)
        want = np.array([to[a] for a in range(width)])
        assert moved[first:first + width] / 255 == pytest.approx(want / want.sum(),
                                                                abs=1.5 / 255)
    assert widths == {2, 3}


@pytest.mark.parametrize("strategy", ["uniform", "runs more"])
def test_a_seat_locked_whole_gets_the_brute_force_best_response(toy, strategy):
    """The pé locked at every decision; the mão re-solved. The average holds the lock
    exactly (the mão's best response to it is the brute force's to 1e-9) and the mão's
    value reaches that best response."""
    from lab.policy.full import FullPolicy
    from lab.solver.fullgame.locking import ANSWER, RUN, choose, shift

    policy, table, game = toy
    pe = choose(table, policy.tree, 1)
    if strategy == "uniform":
        q, rule = np.zeros_like(policy.q), uniform_rule
    else:
        q = shift(policy.q, table, choose(table, policy.tree, 1, kinds=(ANSWER,)),
                  table.answer == RUN, 0.3)
        rule = policy_rule(FullPolicy(policy.config, q, keys=policy.keys))
    brute = brute_best_response(game, policy, rule)[0]
    solver = locked_solve(policy, pe, q, iterations=1000)
    assert solver.best_response_values()[0] == pytest.approx(brute, abs=1e-9)
    assert solver.value() == pytest.approx(brute, abs=1e-4)


def test_locked_at_its_equilibrium_a_seat_leaves_the_others_value(toy):
    from lab.solver.fullgame.locking import choose

    policy, table, _ = toy
    value = locked_solve(policy, choose(table, policy.tree, 1), policy.q).value()
    assert value == pytest.approx(policy.solver().value(), abs=policy.exploitability)


def test_shifting_play_away_from_raising(toy):
    """A player who raises 40 points less often: each chosen card-or-raise decision of the
    mão gives up to 0.4 of its raise to its cards, in proportion to them."""
    from lab.solver.fullgame.locking import CARD, RAISE, choose, shift

    policy, table, _ = toy
    chosen = choose(table, policy.tree, 0, kinds=(CARD, RAISE))
    chosen &= np.isin(table.first, table.first[table.kind == RAISE])   # may raise there
    shifted = shift(policy.q, table, chosen, table.kind == RAISE, -0.4)
    checked = 0
    for first in np.unique(table.first[chosen]):
        slots = np.flatnonzero(table.first == first)
        raising = slots[table.kind[slots] == RAISE]
        before = policy.q[slots].astype(float)
        if not before.sum():
            continue
        before /= before.sum()
        after = shifted[slots].astype(float)
        assert after.sum() == 255
        was = before[table.kind[slots] == RAISE].sum()
        assert shifted[raising].sum() / 255 == pytest.approx(max(0.0, was - 0.4), abs=1.5 / 255)
        cards = table.kind[slots] == CARD
        if before[cards].sum() > 0.1 and after[cards].sum() > 25:   # cards keep their ratios
            np.testing.assert_allclose(after[cards] / after[cards].sum(),
                                       before[cards] / before[cards].sum(), atol=0.03)
        checked += 1
    assert checked > 50


def test_a_start_from_the_equilibrium_stores_it_back_unchanged(toy):
    """Started at the stored strategy and not iterated, the solver's average strategy is
    that strategy again on every pair it reaches: the measuring iteration that sizes the
    hold must leave no discount behind on the sums it overwrote (a node it left out had
    its sums' scale set to zero, and the held strategy vanished there)."""
    from lab.solver.fullgame.compact import compact_policy
    from lab.solver.fullgame.locking import LockedSolver

    policy, _, _ = toy
    solver = LockedSolver(policy.config).allocate().start_from(policy.keys, policy.q,
                                                               weight=1000)
    assert (solver.cscale == 1).all()
    q, keys, _ = compact_policy(solver, 0.0, True)
    assert keys.n_slots == policy.keys.n_slots
    reached = q > 0
    assert reached.sum() > 0.5 * (policy.q > 0).sum()
    np.testing.assert_array_equal(q[reached], policy.q[reached])
    assert ((q > 0) == (policy.q > 0)).all()
