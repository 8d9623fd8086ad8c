"""Moving a full-game solve between float32 and 16-bit storage (lab.solver.fullgame.storage),
on a reduced deck with the whole ladder."""

from __future__ import annotations

import numpy as np
import pytest

from lab.solver.fullgame.records import I16, U16
from lab.solver.fullgame.solver import FullSolver, SolverStateError, config_for
from lab.solver.fullgame.storage import public_slots

TOY = (3, 2, 2, 2)


def solved(storage: str, iterations: int, schedule: str = "dcfr") -> FullSolver:
    solver = FullSolver(config_for(toy_cap=TOY, storage=storage), schedule=schedule)
    return solver.allocate().iterate(iterations) or solver


STEP, SUM_STEP = 0.5 + I16 * 2.0 ** -24, 0.5 + U16 * 2.0 ** -24
"""Rounding to 16 bits moves an entry by at most half a step of its node's scale, and the
scale's own rounding to float32 (2^-24 of it, times at most the top number of steps) by a
little more."""


def node_of_slot(solver):
    first = public_slots(solver.shape, solver.layout.n_public, solver.layout.n_slots)
    return first, np.repeat(np.arange(solver.layout.n_public), np.diff(first))


@pytest.fixture(scope="module")
def int16_solve():
    return solved("int16", 12)


@pytest.fixture(scope="module")
def float32_solve():
    return solved("float32", 12)


def test_the_public_nodes_tile_the_slots_card_node_by_card_node(int16_solve):
    L = int16_solve.layout
    first, _ = node_of_slot(int16_solve)
    assert first[0] == 0 and first[-1] == L.n_slots and np.all(np.diff(first) >= 0)
    # each card node's first public node starts at its first slot
    has_nodes = np.diff(np.append(L.node_base, L.n_public)) > 0
    assert np.array_equal(first[L.node_base[has_nodes]], L.slot_base[has_nodes])


def test_the_slots_of_each_public_node_are_those_the_walks_scale_together(int16_solve):
    """The walks write each public node's regrets and sums with one scale that maps its
    largest magnitude to the top of the range: so under the right grouping every node
    written holds the top exactly (a shifted grouping would not)."""
    first, node = node_of_slot(int16_solve)
    with_slots = (np.diff(first) > 0).sum()
    for arr, top in ((int16_solve.reg16, I16), (int16_solve.cum16, U16)):
        peak = np.zeros(int16_solve.layout.n_public)
        np.maximum.at(peak, node, np.abs(arr.astype(np.float64)))
        written = peak > 0
        assert written.sum() > 0.5 * with_slots
        assert np.all(peak[written] == top)


def test_float32_to_int16_rounds_each_entry_within_half_a_step(float32_solve):
    narrow = float32_solve.in_storage("int16")
    assert narrow is not float32_solve and narrow.config.storage == "int16"
    assert (narrow.iterations, narrow.history, narrow.schedule.name) == (
        float32_solve.iterations, float32_solve.history, "dcfr")
    _, node = node_of_slot(float32_solve)
    got = narrow.reg16 * narrow.rscale[node].astype(np.float64)
    want = float32_solve.reg32.astype(np.float64)
    assert np.all(np.abs(got - want) <= STEP * narrow.rscale[node])
    sums = float32_solve.cum32 * float32_solve.cscale[node].astype(np.float64)
    got = narrow.cum16 * narrow.cscale[node].astype(np.float64)
    assert np.all(np.abs(got - sums) <= SUM_STEP * narrow.cscale[node])
    assert np.array_equal(narrow.rstamp, float32_solve.rstamp)
    # the same strategies but for rounding: the same exploitability to a few 1e-4
    assert narrow.exploitability() == pytest.approx(float32_solve.exploitability(), abs=2e-3)
    # and it goes on solving in 16 bits
    narrow.iterate(4)
    assert narrow.iterations == float32_solve.iterations + 4


def test_int16_to_float32_is_exact_and_back_again_is_the_same_bits(int16_solve):
    wide = int16_solve.in_storage("float32")
    _, node = node_of_slot(int16_solve)
    want = (int16_solve.reg16 * int16_solve.rscale[node].astype(np.float64)).astype(np.float32)
    assert np.array_equal(wide.reg32, want)
    assert np.all(wide.cscale == 1.0)
    back = wide.in_storage("int16")
    for name in ("reg16", "cum16"):
        assert np.abs(getattr(back, name).astype(int) - getattr(int16_solve, name)).max() <= 1
    assert int16_solve.in_storage("int16") is int16_solve


def test_a_predictive_solve_moves_its_predicted_regrets_too():
    wide = solved("float32", 6, schedule="pcfr+")
    narrow = wide.in_storage("int16")
    _, node = node_of_slot(wide)
    got = narrow.pred16 * narrow.pscale[node].astype(np.float64)
    assert np.all(np.abs(got - wide.pred32) <= STEP * narrow.pscale[node])
    assert narrow.pred16 is not narrow.reg16


def test_only_an_allocated_solve_can_move():
    with pytest.raises(SolverStateError, match="allocate"):
        FullSolver(config_for(toy_cap=TOY, storage="float32")).in_storage("int16")
