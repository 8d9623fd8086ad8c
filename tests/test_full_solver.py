"""The compact full-game solver (lab.solver.fullgame.solver) against the generic public-tree solver on
the reference game, its storage modes, checkpoints, memory guard, summaries and dask path.

Reduced configurations keep it fast: a 7-card deck (levels with 2, 2, 2, 1 copies) and
ladders 1-3 / 1-3-6 (one or two raises) or the full 1-3-6-9-12."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lab.solver.cfr import SCHEDULES, CFRSolver, schedule_of
from lab.solver.fullgame.solver import (FullSolver, MemoryLimitError, SolverStateError,
                                        checkpoint_path, config_for)
from lab.errors import InputError
from lab.solver.fullgame import packed
from lab.solver.fullgame.records import AVERAGE, END, LAST
from lab.solver.fullgame.game import FullGame
from lab.solver.fullgame.packed import load_array
from lab.tables.full import (points_checkpoint, solve_game_full, solve_vira_full,
                             solve_viras_full, summarise)
from lab.solver.tree import build_tree
from conftest import assert_same_first_iterates

TOY = (2, 2, 2, 1)


@pytest.fixture(scope="module")
def reference():
    """The reference game (every card public, generic tree) with ladder 1-3-6."""
    game = FullGame(toy_cap=TOY, ladder=(1, 3, 6))
    return game, build_tree(game)


def test_same_public_nodes_and_actions_as_the_reference(reference):
    game, tree = reference
    solver = FullSolver(config_for(toy_cap=TOY, ladder=(1, 3, 6), storage="float32"))
    sizes = solver.sizes()
    # the compact layout folds only the forced last card: same decisions, same choices
    assert sizes["public_nodes"] == tree.sizes()["decision_nodes"]
    assert sizes["regret_entries"] == tree.n_edges


@pytest.mark.parametrize("schedule", sorted(SCHEDULES))
def test_first_iterations_equal_the_generic_solver(reference, schedule):
    """From the uniform start both solvers run the same Discounted CFR iterates, with
    every schedule offered; the compact solver's walks skip the betting nodes the
    opponent does not reach (from the pé's first walk on)."""
    game, tree = reference
    ref = CFRSolver(tree, game.deal_weights(), game.payoffs(), schedule=schedule,
                    sums_in_opponent_walk=True).allocate()
    mine = FullSolver(config_for(toy_cap=TOY, ladder=(1, 3, 6), storage="float32"),
                      schedule=schedule).allocate()
    assert_same_first_iterates(ref, mine)


@pytest.mark.parametrize("storage", ["float32", "int16"])
def test_solved_value_agrees_with_the_generic_solver(reference, storage):
    """Both certify an interval [what the pé concedes, what the mão can get] around the
    game value: the intervals overlap and are narrow."""
    game, tree = reference
    ref = CFRSolver(tree, game.deal_weights(), game.payoffs())
    ref.solve(2e-3, 3000, check_every=25)
    r0, r1 = ref.best_response_values()
    mine = FullSolver(config_for(toy_cap=TOY, ladder=(1, 3, 6), storage=storage))
    mine.solve(2.5e-3, 3000, check_every=25)
    m0, m1 = mine.best_response_values()
    assert mine.final_exploitability <= 2.5e-3
    lo, hi = max(-r1, -m1), min(r0, m0)
    assert lo <= hi + 1e-9
    assert -m1 <= mine.value() <= m0
    assert mine.value() == pytest.approx(ref.value(), abs=5e-3)


def assert_same_iterates(x: FullSolver, y: FullSolver, iterations: int = 8) -> None:
    """After ``iterations`` each, the two solvers hold the same regrets, strategy sums and
    stamps, left out the same share of pairs (a good part of them), and give the same best
    responses and value, bit for bit."""
    x.iterate(iterations)
    y.iterate(iterations)
    assert x.dead_share == y.dead_share > 0.1
    a, b = x._arrays(), y._arrays()
    for name, arr in a.items():
        assert np.array_equal(arr, b[name]), name
    assert x.best_response_values() == y.best_response_values()
    assert x.value() == y.value()


@pytest.mark.parametrize("storage", ["float32", "int16"])
def test_histories_set_apart_change_no_number(storage):
    """The histories entering a round-3 showdown node whose turn is the forced card alone
    (the follower may not raise: he raised last, or 12 is accepted) get no betting node in
    the walks (betting.forced_alone), nor, in the lazy CFR walks, the dead ones (the
    opponent reaches them with probability zero): the regrets, strategy sums, best
    responses, values and the share of pairs left out are the same, bit for bit, as with
    their betting nodes walked."""
    cfg = config_for(toy_cap=TOY, ladder=(1, 3, 6, 9, 12), storage=storage)
    apart = FullSolver(cfg, schedule="dcfr+").allocate()
    whole = FullSolver(cfg, schedule="dcfr+").allocate()
    whole.histories_apart = False
    t, tm = apart.tree, apart.templates
    last = t.kind == LAST
    alone = (tm.size == 1) & (tm.child_a[tm.start] < 0)   # [actor, state]
    entering = apart.layout.hist[last]
    assert 0 < (entering * alone[t.actor[last]]).sum() < entering.sum()
    assert_same_iterates(apart, whole)


@pytest.mark.parametrize("schedule", ["dcfr", "dcfr+"])
def test_one_pass_by_history_changes_no_number(schedule):
    """A lazy CFR walk on float32 storage works each round-3 showdown node one entering
    history at a time (last_node.last_node_by_history: each history's betting nodes walked
    forward, shown down and walked back at once); the three passes over all the node's
    histories give the same regrets, strategy sums, regret stamps, share of pairs left out,
    best responses and value, bit for bit."""
    cfg = config_for(toy_cap=TOY, ladder=(1, 3, 6, 9, 12), storage="float32")
    one = FullSolver(cfg, schedule=schedule).allocate()
    three = FullSolver(cfg, schedule=schedule).allocate()
    three.histories_one_pass = False
    t = one.tree
    last = np.flatnonzero(t.kind == LAST)
    # the follower holds one card a state at every such node: each takes the one-pass path
    assert len(last) > 0
    assert (t.n_edges[last] == t.n[last, t.actor[last]]).all()
    assert one.lazy() and one.histories_apart
    assert_same_iterates(one, three)


@pytest.mark.parametrize("storage", ["float32", "int16"])
def test_leaving_out_dead_nodes_changes_no_number(storage):
    """The CFR walks leave out the betting nodes the opponent reaches with probability
    zero; walking them too gives the same regrets and strategy sums, with a plain, a
    floored and a predictive schedule (in 16 bits the opponent's sums there are
    discounted through their node's scale instead of being written again: the same
    numbers but for the last 16-bit step, so the best responses agree to 1e-5 points).
    Discounts applied at once (not lazily, which the next test compares)."""
    for schedule in ("dcfr", "dcfr+", "pdcfr+"):
        cfg = config_for(toy_cap=TOY, ladder=(1, 3, 6), storage=storage)
        pruned = FullSolver(cfg, schedule=schedule).allocate()
        pruned.lazy_discount = False
        full = FullSolver(cfg, schedule=schedule).allocate()
        full.prune_dead = False
        pruned.iterate(8)
        full.iterate(8)
        assert pruned.dead_share > 0.1 and full.dead_share == 0.0
        a, b = pruned._arrays(), full._arrays()
        same = ("reg32", "reg16", "rscale", "pred32", "pred16", "pscale", "cum32")
        for name in same:
            if name in a:
                assert np.array_equal(a[name], b[name]), (schedule, name)
        tol = 1e-5 if storage == "int16" else 1e-12
        assert pruned.best_response_values() == pytest.approx(full.best_response_values(),
                                                              abs=tol), schedule


@pytest.mark.parametrize("schedule, tolerance", [("dcfr+", 1e-12), ("lcfr", 1e-12),
                                                 ("dcfr", 1e-4), ("dcfr-floor", 1e-3)])
def test_lazy_discounts_give_the_eager_numbers(schedule, tolerance):
    """Leaving the dead nodes' regrets alone (and their card subtrees unwalked) until they
    are next reached, then applying every missed discount at once, gives the numbers of
    discounting them at every iteration but for rounding: after 8 lazy iterations and one
    that walks every node (so that every node has caught up), the 16-bit regrets are those
    of the eager solve to a step or two where nothing else differs (schedules whose
    stored integers the eager walk's requantisation of a dead node leaves alone: all
    regrets floored at zero, or the same factor for both signs), and the best responses
    agree to ``tolerance`` points. Where a dead node's negative regrets shrink faster than
    its positive ones, the eager walk requantises it each iteration and the integers part
    (a regret rounded to zero in one and not the other), so only the best responses are
    compared."""
    cfg = config_for(toy_cap=TOY, ladder=(1, 3, 6))
    lazy = FullSolver(cfg, schedule=schedule).allocate()
    eager = FullSolver(cfg, schedule=schedule).allocate()
    eager.lazy_discount = False
    assert lazy.lazy() and not eager.lazy()
    for solver in (lazy, eager):
        solver.iterate(8)
    assert lazy.dead_share == pytest.approx(eager.dead_share, abs=0.01)
    assert eager.dead_share > 0.3
    assert (lazy.rstamp < 8).sum() > 0.1 * len(lazy.rstamp)   # nodes left behind
    for solver in (lazy, eager):
        solver.prune_dead = False
        solver.iterate(1)
    if tolerance < 1e-9:
        assert np.abs(lazy.reg16.astype(int) - eager.reg16).max() <= 2
        assert np.array_equal(lazy.cum16, eager.cum16)
    assert lazy.best_response_values() == pytest.approx(eager.best_response_values(),
                                                        abs=tolerance)


def unpack_checkpoint(solver, directory):
    """Rewrite the checkpoint in ``directory`` of ``solver`` as checkpoints were written
    before they were packed: one .npy file per array."""
    for name, arr in solver._arrays().items():
        out = np.empty_like(arr)
        load_array(directory / f"{name}.zst", out)
        np.save(directory / f"{name}.npy", out)
        (directory / f"{name}.zst").unlink()


@pytest.mark.parametrize("storage", ["int16", "float32"])
def test_a_checkpoint_without_stamps_resumes_as_all_current(tmp_path, storage):
    """A checkpoint written before the lazy discounts holds no stamps (and, in float32, one
    placeholder for the sums' scales): every node's regrets and sums are then taken as
    current (as the eager walks left them), and the solve resumes exactly as the eager
    solver's own state would."""
    cfg = config_for(toy_cap=TOY, ladder=(1, 3, 6), storage=storage)
    eager = FullSolver(cfg).allocate()
    eager.lazy_discount = False
    eager.iterate(6)
    eager.save_checkpoint(tmp_path / "ck")
    unpack_checkpoint(eager, tmp_path / "ck")
    (tmp_path / "ck" / "rstamp.npy").unlink()
    if storage == "float32":
        np.save(tmp_path / "ck" / "cscale.npy", np.zeros(1, dtype=np.float32))
    resumed = FullSolver(cfg).load_checkpoint(tmp_path / "ck")
    assert (resumed.rstamp == 6).all() and (resumed.cscale == eager.cscale).all()
    eager.lazy_discount = True
    eager.iterate(4)
    resumed.iterate(4)
    for name, arr in eager._arrays().items():   # the stamps of nodes without choices differ
        assert name == "rstamp" or np.array_equal(getattr(resumed, name), arr), name


@pytest.mark.parametrize("schedule", ["dcfr", "dcfr+", "lcfr"])
def test_lazy_discounts_in_float32_give_the_eager_numbers(schedule):
    """In float32 the lazy walks leave the dead nodes' regrets and sums alone as in 16 bits
    (the sums are discounted through a scale per node, which the node's next update folds
    in). After two lazy iterations and one that walks every node (so that every node has
    caught up), the regrets and sums are the eager solve's to float32 rounding; over four
    iterations the best responses agree to 1e-7 points. (Later, float rounding decides
    exact ties between equal action values on this small deck, a gain of 1e-17 against
    0, and the two runs part, as they do from the generic solver: see conftest.)"""
    cfg = config_for(toy_cap=TOY, ladder=(1, 3, 6), storage="float32")
    lazy = FullSolver(cfg, schedule=schedule).allocate()
    eager = FullSolver(cfg, schedule=schedule).allocate()
    eager.lazy_discount = False
    assert lazy.lazy() and not eager.lazy()
    for n in range(1, 5):
        for solver in (lazy, eager):
            solver.iterate(1)
        assert (lazy.rstamp < n).mean() > 0.5 and (lazy.cscale < 1).mean() > 0.5
        assert (eager.cscale == 1).all()
        assert lazy.best_response_values() == pytest.approx(eager.best_response_values(),
                                                            abs=1e-7)
    lazy = FullSolver(cfg, schedule=schedule).allocate()
    eager = FullSolver(cfg, schedule=schedule).allocate()
    eager.lazy_discount = False
    for solver in (lazy, eager):
        solver.iterate(2)
        solver.prune_dead = False
        solver.iterate(1)
    assert np.allclose(lazy.reg32, eager.reg32, rtol=1e-6, atol=0)
    # that walk wrote every node's sums again, folding their scales in
    assert np.allclose(lazy.cum32, eager.cum32, rtol=1e-6, atol=0)

@pytest.mark.parametrize("storage", ["int16", "float32"])
def test_checkpoint_resume_is_exact(tmp_path, storage):
    cfg = config_for(toy_cap=TOY, ladder=(1, 3), storage=storage)
    straight = FullSolver(cfg).solve(0.0, 60, check_every=20)
    first = FullSolver(cfg).solve(0.0, 40, check_every=20, checkpoint_dir=tmp_path / "ck")
    resumed = FullSolver(cfg).solve(0.0, 60, check_every=20, checkpoint_dir=tmp_path / "ck")
    assert first.iterations == 40 and resumed.iterations == 60
    assert [h[2] for h in resumed.history] == [h[2] for h in straight.history]
    for name, arr in straight._arrays().items():
        assert np.array_equal(getattr(resumed, name), arr), name
    with pytest.raises(ValueError, match="another configuration"):
        FullSolver(config_for(toy_cap=TOY, ladder=(1, 3, 6))).load_checkpoint(tmp_path / "ck")


@pytest.mark.parametrize("storage", ["int16", "float32"])
def test_a_checkpoint_is_packed_and_an_unpacked_one_still_resumes_exactly(tmp_path, storage):
    cfg = config_for(toy_cap=TOY, ladder=(1, 3, 6), storage=storage)
    solver = FullSolver(cfg).solve(0.0, 20, check_every=10, checkpoint_dir=tmp_path / "ck")
    files = {f.name: f.stat().st_size for f in (tmp_path / "ck").iterdir()}
    raw = sum(arr.nbytes for arr in solver._arrays().values())
    assert not any(name.endswith(".npy") for name in files)
    assert sum(files.values()) < 0.8 * raw
    for as_packed in (True, False):
        if not as_packed:
            unpack_checkpoint(solver, tmp_path / "ck")
        resumed = FullSolver(cfg).load_checkpoint(tmp_path / "ck")
        for name, arr in solver._arrays().items():
            assert np.array_equal(getattr(resumed, name), arr), name


def test_a_damaged_checkpoint_is_refused_with_what_to_do(tmp_path):
    cfg = config_for(toy_cap=TOY, ladder=(1, 3))
    FullSolver(cfg).solve(0.0, 10, check_every=10, checkpoint_dir=tmp_path / "ck")
    regrets = tmp_path / "ck" / "reg16.zst"
    whole = regrets.read_bytes()
    for damaged in (whole[:len(whole) // 2], whole[:100] + bytes(50) + whole[150:], b""):
        regrets.write_bytes(damaged)
        with pytest.raises(InputError, match="damaged checkpoint; delete .* to solve again"):
            FullSolver(cfg).load_checkpoint(tmp_path / "ck")


def test_a_packed_array_keeps_its_dtype_and_shape_across_frames(tmp_path, monkeypatch):
    monkeypatch.setattr(packed, "FRAME", 1000)
    arr = np.random.default_rng(3).standard_normal(12_345).astype(np.float32)
    arr[::3] = 0.0
    packed.save_array(tmp_path / "a.zst", arr, threads=3)
    out = np.empty_like(arr)
    packed.load_array(tmp_path / "a.zst", out)
    assert np.array_equal(out, arr)
    with pytest.raises(packed.PackedError, match="holds a float32 array of shape"):
        packed.load_array(tmp_path / "a.zst", np.empty(12_345, np.int16))
    empty = np.empty(0, np.int16)
    packed.save_array(tmp_path / "e.zst", empty)
    packed.load_array(tmp_path / "e.zst", np.empty(0, np.int16))


def test_a_solve_resumed_after_meeting_its_target_is_not_iterated_again(tmp_path):
    cfg = config_for(toy_cap=TOY, ladder=(1, 3))
    first = FullSolver(cfg).solve(0.05, 200, check_every=10, checkpoint_dir=tmp_path / "ck")
    assert first.final_exploitability <= 0.05 < first.history[-2][2]
    saved = (tmp_path / "ck" / "state.json").stat().st_mtime_ns
    again = FullSolver(cfg).solve(0.05, 200, check_every=10, checkpoint_dir=tmp_path / "ck")
    assert again.iterations == first.iterations and again.history == first.history
    assert again.final_exploitability == first.final_exploitability
    assert (tmp_path / "ck" / "state.json").stat().st_mtime_ns == saved   # not written again
    # a lower target goes on from it
    lower = FullSolver(cfg).solve(0.0, first.iterations + 10, check_every=10,
                                  checkpoint_dir=tmp_path / "ck")
    assert lower.iterations == first.iterations + 10


def test_schedule_weights():
    """Discounted CFR's multipliers at iteration t (positive regrets, negative regrets,
    strategy sums): (t-1)^a / ((t-1)^a + 1), (t-1)^b / ((t-1)^b + 1), ((t-1)/t)^g."""
    dcfr = schedule_of("dcfr")
    assert dcfr.factors(1) == (0.0, 0.5, 0.0)
    assert dcfr.factors(2) == (0.5, 0.5, 0.25)
    assert dcfr.factors(5) == pytest.approx((8 / 9, 0.5, (4 / 5) ** 2))
    assert schedule_of("dcfr-floor").factors(5)[1] == 0.0
    assert schedule_of("dcfr-g3").factors(5)[2] == pytest.approx((4 / 5) ** 3)
    assert schedule_of("lcfr").factors(5) == pytest.approx((4 / 5, 4 / 5, 4 / 5))
    # predictive CFR+ never discounts; PDCFR+ (alpha 2.3, gamma 5); both floor the regrets
    # and take the next iteration's positive factor for the prediction
    assert schedule_of("pcfr+").update(5) == (1.0, 0.0, (4 / 5) ** 2, True, True, 1.0)
    k4, k5 = 4 ** 2.3, 5 ** 2.3
    assert schedule_of("pdcfr+").update(5) == pytest.approx(
        (k4 / (k4 + 1), 0.0, (4 / 5) ** 5, True, True, k5 / (k5 + 1)))
    with pytest.raises(ValueError, match="the schedules are"):
        schedule_of("cfr+")


@pytest.mark.parametrize("storage", ["int16", "float32"])
def test_a_checkpoint_resumes_only_with_its_schedule(tmp_path, storage):
    """A predictive schedule's checkpoint also holds the predicted regrets: resuming it
    runs the straight solve's iterates bit for bit."""
    cfg = config_for(toy_cap=TOY, ladder=(1, 3), storage=storage)
    FullSolver(cfg, schedule="pdcfr+").solve(0.0, 10, check_every=5,
                                             checkpoint_dir=tmp_path / "ck")
    with pytest.raises(ValueError, match="checkpoint of a pdcfr\\+ solve"):
        FullSolver(cfg).solve(0.0, 20, check_every=5, checkpoint_dir=tmp_path / "ck")
    resumed = FullSolver(cfg, schedule="pdcfr+").solve(0.0, 20, check_every=5,
                                                       checkpoint_dir=tmp_path / "ck")
    straight = FullSolver(cfg, schedule="pdcfr+").solve(0.0, 20, check_every=5)
    assert resumed.iterations == 20
    for name, arr in straight._arrays().items():
        assert np.array_equal(resumed._arrays()[name], arr), name
    assert [h[2] for h in resumed.history] == [h[2] for h in straight.history]


def test_a_checkpoint_without_a_schedule_is_a_dcfr_one(tmp_path):
    """Checkpoints written before schedules had names were dcfr solves."""
    cfg = config_for(toy_cap=TOY, ladder=(1, 3))
    FullSolver(cfg).solve(0.0, 10, check_every=5, checkpoint_dir=tmp_path / "old")
    state = tmp_path / "old" / "state.json"
    meta = json.loads(state.read_text())
    del meta["schedule"]
    state.write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="checkpoint of a dcfr solve"):
        FullSolver(cfg, schedule="lcfr").load_checkpoint(tmp_path / "old")
    assert FullSolver(cfg).load_checkpoint(tmp_path / "old").iterations == 10


def test_time_budget_stops_the_solve():
    solver = FullSolver(config_for(toy_cap=TOY, ladder=(1, 3)))
    solver.solve(0.0, 10_000, time_budget=0.5, check_every=5)
    assert 0 < solver.iterations < 10_000


def test_memory_estimate_is_printed_and_too_much_is_refused(capsys):
    solver = FullSolver(config_for(toy_cap=TOY))
    est = solver.memory_estimate()
    import sys
    with pytest.raises(MemoryLimitError, match="needs about"):
        solver.allocate(limit_bytes=1000, out=sys.stderr)
    assert "memory estimate" in capsys.readouterr().err
    assert solver.state == "built"
    solver.allocate()   # the estimate is what the regrets, sums, scales and stamps take
    assert est["storage"] == sum(a.nbytes for a in (solver.reg16, solver.cum16, solver.rscale,
                                                     solver.cscale, solver.rstamp, solver.cstamp))
    wide = FullSolver(config_for(toy_cap=TOY, storage="float32"))
    est = wide.memory_estimate()
    wide.allocate()   # float32: no regret scales, one scale per node for the sums; and the
    # per-history tables of the one-pass walk
    assert est["storage"] == sum(a.nbytes for a in (
        wide.reg32, wide.cum32, wide.cscale, wide.rstamp, wide.cstamp,
        wide.shape.history_start, wide.shape.history_slot, wide.shape.history_node))


def test_real_vira_sizes_without_allocating():
    """One vira of the real game: the sizes the issue quotes, and a 16-bit footprint that
    fits the 12 GB target (nothing is allocated here; how long the build takes is a
    benchmark's figure, ``lab bench full``, not a test's)."""
    solver = FullSolver(config_for("4"))
    s = solver.sizes()
    assert 2.5e7 < s["public_nodes"] < 3.5e7
    assert s["public_pairs"] > 5e8
    assert solver.memory_estimate()["total"] < 12 * 2**30


@pytest.mark.parametrize("toy_cap", [TOY, None])
def test_where_each_state_holds_one_card_move_its_edge_is_the_state_s_index(toy_cap):
    """The walks' short path for the round-3 cards (``betting.card_or_raise``) takes edge
    ``i`` as state ``i``'s one card move wherever a node has as many card edges as its
    actor has states; the card tree lays them out so, on the reduced and the real deck."""
    tree = FullSolver(config_for("4" if toy_cap is None else None, toy_cap=toy_cap)).tree
    forced = 0
    for c in range(len(tree.kind)):
        a = tree.actor[c]
        na = int(tree.n[c, a])
        if tree.kind[c] == END or tree.n_edges[c] != na:
            continue
        pa = tree.pair_start[c] + (tree.n[c, 0] if a == 1 else 0)
        assert list(tree.pair_edge_start[pa:pa + na]) == list(range(na)), c
        assert set(tree.pair_edge_count[pa:pa + na]) == {1}, c
        forced += 1
    assert forced > 0


def test_summaries_are_consistent():
    cfg = config_for(toy_cap=TOY, ladder=(1, 3, 6))
    solver = FullSolver(cfg).solve(5e-3, 2000, check_every=25)
    rows = summarise(solver, 1.0)
    s = rows["full_summary"]
    probs = {k: v for k, v in s.items() if k.startswith("p_")}
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-9)
    points = sum(v * (1 if k.startswith("p_mao") else -1) * int(k.rsplit("_", 1)[1])
                 for k, v in probs.items())
    assert points == pytest.approx(s["value_mao"], abs=1e-9)
    ev = rows["full_ev"]
    for seat, sign in (("mao", 1), ("pe", -1)):
        e = ev[ev["seat"] == seat]
        assert (e["weight"] * e["ev"]).sum() == pytest.approx(sign * s["value_mao"], abs=1e-9)
    strat = rows["full_strategy"]
    sums = strat.groupby(["seat", "hand", "situation"])["probability"].sum()
    assert np.allclose(sums.to_numpy(), 1.0)
    assert set(strat["situation"]) == {"first", "vs_truco", "first_after_card"}
    assert 0.0 <= s["bluff_mao"] <= 1.0 and 0.0 <= s["bluff_pe"] <= 1.0


def test_two_tiny_solves_through_a_local_dask_cluster():
    settings = {"target_exploitability": 0.05, "time_budget_minutes": 1.0, "storage": "int16",
                "ladder": [1, 3], "check_every": 10}
    direct = solve_vira_full(None, settings, toy_cap=TOY)
    # a threaded local cluster: the workers share this process's compiled kernels; two
    # numba threads per solve run the same iterates
    results = solve_viras_full(["4", "5"], settings, toy_cap=TOY, local_workers=1,
                               processes=False, threads=2)
    assert set(results) == {"4", "5"}
    for r in results.values():
        assert r["full_summary"]["exploitability"] <= 0.05
        assert r["full_summary"]["value_mao"] == pytest.approx(
            direct["full_summary"]["value_mao"], abs=1e-12)


def test_viras_of_one_game_are_solved_once(monkeypatch):
    settings = {"target_exploitability": 0.05, "time_budget_minutes": 1.0, "storage": "int16",
                "ladder": [1, 3], "check_every": 10}
    solves = []
    solve = FullSolver.solve
    monkeypatch.setattr(FullSolver, "solve",
                        lambda self, *a, **k: solves.append(1) or solve(self, *a, **k))
    results = solve_viras_full(["2", "3"], settings, toy_cap=TOY, local_workers=1,
                               processes=False)
    assert len(solves) == 1   # vira 3 plays vira 2's game
    two, three = results["2"], results["3"]
    assert three["full_summary"]["vira"] == "3"   # (the reduced deck's own rows say "toy")
    assert three["full_summary"]["seconds"] == 0 < two["full_summary"]["seconds"]
    for name in ("full_ev", "full_strategy"):
        assert set(three[name]["vira"]) == {"3"}
        assert three[name].drop(columns="vira").equals(two[name].drop(columns="vira"))
    same = {k: x for k, x in three["full_summary"].items() if k not in ("vira", "seconds")}
    assert same == {k: x for k, x in two["full_summary"].items() if k in same}


def test_a_solve_started_from_another_solve_counts_its_own_iterations(tmp_path):
    settings = {"target_exploitability": 0.02, "time_budget_minutes": 1.0, "storage": "int16",
                "ladder": [1, 3], "check_every": 5}
    scratch = solve_game_full([None], settings, tmp_path / "a", toy_cap=TOY)[None]
    assert scratch["start"] is None
    source = checkpoint_path(tmp_path / "a", config_for(toy_cap=TOY, ladder=(1, 3)))
    warm = solve_game_full([None], settings, tmp_path / "b", toy_cap=TOY, start=source)[None]
    done = scratch["full_summary"]["iterations"]
    assert warm["start"] == {"vira": None, "iterations": done,
                             "exploitability": scratch["full_summary"]["exploitability"]}
    # the regrets of a solved game: its average, restarted, is good again in fewer
    assert 0 < warm["full_summary"]["iterations"] < done
    assert warm["full_summary"]["exploitability"] <= 0.02
    assert warm["full_summary"]["seconds"] > 0


def test_a_resumed_solves_seconds_are_those_of_all_its_runs(tmp_path):
    """The summary's seconds: iterating and checking, summed over the runs of a resumed
    solve (not the last run's, which for a finished solve is only loading it)."""
    settings = {"target_exploitability": 0.0, "time_budget_minutes": 1.0, "storage": "int16",
                "ladder": [1, 3], "check_every": 5, "max_iterations": 10}
    first = solve_game_full([None], settings, tmp_path, toy_cap=TOY)[None]["full_summary"]
    ck = checkpoint_path(tmp_path, config_for(toy_cap=TOY, ladder=(1, 3)))
    solver = FullSolver(config_for(toy_cap=TOY, ladder=(1, 3))).load_checkpoint(ck)
    assert first["seconds"] == solver.seconds + solver.check_seconds
    assert solver.seconds > 0 and solver.check_seconds > 0
    more = solve_game_full([None], dict(settings, max_iterations=20), tmp_path,
                           toy_cap=TOY)[None]["full_summary"]
    assert more["iterations"] == 20 and more["seconds"] > first["seconds"]
    again = solve_game_full([None], dict(settings, max_iterations=20), tmp_path,
                            toy_cap=TOY)[None]["full_summary"]
    assert again["seconds"] == more["seconds"]


CALLS: list = []
"""The calls :func:`recorded_solve` saw (a threaded dask worker shares this process)."""


def recorded_solve(viras, settings, root, progress, toy_cap, log, threads, start):
    """A stand-in for :func:`lab.tables.full.solve_game_full` that records its call."""
    CALLS.append((list(viras), start))
    return {v: {"vira": v} for v in viras}


def test_solving_viras_from_another_solves_it_first_then_starts_the_rest_from_it(
        tmp_path, monkeypatch):
    import lab.tables.full as full

    CALLS.clear()
    calls = CALLS
    monkeypatch.setattr(full, "solve_game_full", recorded_solve)
    out = solve_viras_full(["6", "7", "3", "2"], None, checkpoint_root=tmp_path,
                           processes=False, start_vira="7")
    assert set(out) == {"6", "7", "3", "2"}
    seven = points_checkpoint(tmp_path, "7")
    assert calls[0] == (["7"], None)   # first, alone: the others start from it
    assert sorted(calls[1:]) == [(["3", "2"], seven), (["6"], seven)]   # 3 plays 2's game
    with pytest.raises(ValueError, match="real viras"):
        solve_viras_full(["6"], None, toy_cap=TOY, checkpoint_root=tmp_path, start_vira="7")


def test_a_warm_started_solve_resumes_bit_exactly_with_its_start(tmp_path):
    config = config_for(toy_cap=TOY, ladder=(1, 3))
    FullSolver(config).solve(0.0, 12, check_every=6, checkpoint_dir=tmp_path / "a")
    whole = FullSolver(config).warm_start(tmp_path / "a")
    assert whole.iterations == 12 and whole.own_iterations == 0 and whole.history == []
    assert not whole.cum16.any() and not whole.cum32.any()   # the average restarts
    whole.solve(0.0, 10, check_every=5)
    half = FullSolver(config).warm_start(tmp_path / "a")
    half.solve(0.0, 5, check_every=5, checkpoint_dir=tmp_path / "b")
    resumed = FullSolver(config).solve(0.0, 10, check_every=5, checkpoint_dir=tmp_path / "b")
    assert resumed.start == whole.start == {"vira": None, "iterations": 12,
                                            "exploitability": whole.start["exploitability"]}
    assert resumed.own_iterations == whole.own_iterations == 10
    assert resumed.iterations == 22
    for name, arr in whole._arrays().items():
        assert np.array_equal(arr, resumed._arrays()[name]), name
    assert [h[0] for h in resumed.history] == [17, 22]


@pytest.mark.parametrize("storage", ["int16", "float32"])
def test_two_and_three_threads_give_the_same_iterates_bit_for_bit(storage):
    """The threads walk disjoint subtrees and their values are added in the children's
    order, so the iterates, sums and exploitabilities are those of one thread exactly
    (with the ladder 1-3 the lazy walks leave out some of the root's own subtrees)."""
    for ladder, n in (((1, 3, 6), 10), ((1, 3), 20)):
        cfg = config_for(toy_cap=TOY, ladder=ladder, storage=storage)
        one = FullSolver(cfg).solve(0.0, n, check_every=5)
        for threads in (2, 3):
            many = FullSolver(cfg, threads=threads).solve(0.0, n, check_every=5)
            assert [h[2] for h in many.history] == [h[2] for h in one.history]
            for name, arr in one._arrays().items():
                assert np.array_equal(getattr(many, name), arr), (ladder, name)


def test_each_seat_s_walks_share_the_root_by_the_live_pairs_of_its_last_walk(monkeypatch):
    """A CFR walk on threads records the live (node, hand) pairs it met under each of the
    root's subtrees, and the seat's next walk shares the subtrees by them (the iterates stay
    those of one thread: the test above runs such walks)."""
    from lab.solver.fullgame import solver as module

    solver = FullSolver(config_for(toy_cap=TOY, ladder=(1, 3, 6)), threads=2).allocate()
    assert not solver.root_live.any()   # the first walks share by the subtrees' size
    solver.iterate(1)
    dead, seen = solver.thread_work.DC.sum(axis=0)   # both walks of the iteration
    assert solver.root_live.sum() == seen - dead > 0
    assert (solver.root_live > 0).sum(axis=1).min() >= 2
    last = solver.root_live.copy()
    shared = []
    real = module.share_among_threads
    monkeypatch.setattr(module, "share_among_threads",
                        lambda work, threads: shared.append(np.array(work)) or real(work, threads))
    solver.iterate(1)
    assert len(shared) == 2
    assert np.array_equal(shared[0], last[0]) and np.array_equal(shared[1], last[1])


def test_with_a_one_step_ladder_the_real_game_is_the_card_play_game():
    """Ladder (1,): no raises, so vira 4's full game is its card-play game in points
    (2 p - 1 for the mão's win probability p). Its certified interval must contain the
    card-play table's value, up to that solve's own exploitability."""
    from lab.tables import load_table

    row = load_table("cardplay_summary", viras=["4"]).iloc[0]
    card_points = 2 * row["value_mao"] - 1
    slack = 2 * row["exploitability"]
    solver = FullSolver(config_for("4", ladder=(1,), storage="float32"))
    solver.solve(5e-3, 500, check_every=10)
    b0, b1 = solver.best_response_values()
    assert b0 + b1 <= 2 * 5e-3 + 1e-12
    assert -b1 - slack <= card_points <= b0 + slack


@pytest.mark.parametrize("storage", ["float32", "int16"])
def test_batched_values_equal_one_traversal_per_payoff(storage):
    """lab.solver.fullgame.batch: B payoff vectors in one traversal give, column by column,
    the best responses and values of B separate traversals (points among them)."""
    solver = FullSolver(config_for(toy_cap=TOY, storage=storage)).allocate()
    with pytest.raises(SolverStateError, match="at least one iteration"):
        solver.batch_values(np.ones((1, 5)), -np.ones((1, 5)))
    solver.iterate(25)
    rng = np.random.default_rng(7)
    mao, pe = rng.uniform(0.3, 1.0, (6, 5)), rng.uniform(0.0, 0.7, (6, 5))
    mao[0], pe[0] = solver.ladder, -solver.ladder                # points
    best = solver.batch_values(mao, pe, chunk=4)                  # two chunks
    value = solver.batch_values(mao, pe, best=False, chunk=4)
    for b in range(len(mao)):
        solver.set_payoffs(mao[b], pe[b])
        assert best[b] == pytest.approx(solver.best_response_values(), abs=1e-12)
        assert value[b] == pytest.approx(solver.value(), abs=1e-12)
    solver.set_payoffs(None, None)
    assert best[0] == pytest.approx(solver.best_response_values(), abs=1e-12)
    assert len({round(x, 9) for x in best[:, 0]}) == len(mao)   # the columns differ
    with pytest.raises(ValueError, match="one value per ladder value"):
        solver.batch_values(mao[:, :3], pe[:, :3])


def test_batched_best_responses_on_two_threads_are_the_same_numbers():
    """A solver of two threads walks the two seats' batched best responses at once, each on
    its own working buffers: the same bits as one after the other."""
    rng = np.random.default_rng(3)
    mao, pe = rng.uniform(0.3, 1.0, (5, 5)), rng.uniform(0.0, 0.7, (5, 5))
    out, values = {}, {}
    for threads in (1, 2):
        solver = FullSolver(config_for(toy_cap=TOY, storage="float32"), threads=threads)
        solver.allocate().iterate(25)
        out[threads] = solver.batch_values(mao, pe, chunk=3)
        values[threads] = solver.batch_values(mao, pe, best=False, chunk=3)  # rows split
    assert np.array_equal(out[1], out[2])
    assert np.array_equal(values[1], values[2])


def test_the_outcome_distribution_is_one_walk_per_outcome_batched():
    """The probability of each (seat, ladder value) ending, from one batched walk, equals a
    walk of its own per outcome (the mão paid 1 for that outcome only), and sums to 1."""
    solver = FullSolver(config_for(toy_cap=TOY, storage="float32"), threads=2)
    solver.allocate().iterate(25)
    dist = solver.outcome_distribution()
    for k, v in enumerate(solver.config.ladder):
        e = np.zeros(len(solver.ladder))
        e[k] = 1.0
        mao = solver.traverse(0, AVERAGE, ladder=e, win=1.0, lose=0.0).sum()
        pe = solver.traverse(0, AVERAGE, ladder=e, win=0.0, lose=-1.0).sum()
        assert dist["mao", v] == pytest.approx(mao, abs=1e-12)
        assert dist["pe", v] == pytest.approx(pe, abs=1e-12)
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)


def test_the_root_subtrees_are_shared_by_their_work():
    """The threads' shares: a subtree's work sums its nodes' (public node, hand) pairs, and
    two threads get the best split (vira 4's root: nine subtrees of 81.5 M pairs and four
    of 61 M split 6 + (3, 4), 489 against 488.5, where dealing them in turn gives 529)."""
    from lab.solver.fullgame.tree import END, share_among_threads, subtree_work

    solver = FullSolver(config_for(toy_cap=TOY, ladder=(1, 3, 6)))
    t, L = solver.tree, solver.layout
    work = subtree_work(t, L)
    ends = t.kind == END
    assert work[0] == L.public_pairs + (L.n_enter[ends] * t.n[ends].sum(1)).sum()
    cs, cc = t.child_start[0], t.child_count[0]
    assert work[cs:cs + cc].sum() + (L.n_t[0] + L.n_q[0]) * t.n[0].sum() == work[0]
    sizes = np.array([81.5] * 9 + [61.0] * 4)
    owner = share_among_threads(sizes, 2)
    assert sorted(sizes[owner == k].sum() for k in (0, 1)) == [488.5, 489.0]
    owner = share_among_threads(sizes, 3)              # largest first, to the least loaded
    assert sorted(sizes[owner == k].sum() for k in (0, 1, 2)) == [305.5, 305.5, 366.5]
    assert not share_among_threads(sizes, 1).any()


def test_scoreless_three_ties_equal_the_generic_solver():
    """Under the house rule that three tied rounds score nothing, the compact solver runs
    the generic solver's iterates on the reference game built with the same rule, and its
    batched values agree with its own walks. (The rule that gives them to the pé only
    changes which seat the tree's showdowns name.)"""
    three_ties = "nobody"
    from lab.rules import RuleSet
    from lab.solver.fullgame.tree import END, LAST, NO_WINNER

    ties = RuleSet(three_ties=three_ties).three_ties_winner("normal", None)
    game = FullGame(toy_cap=TOY, ladder=(1, 3, 6), three_ties=ties)
    ref = CFRSolver(build_tree(game), game.deal_weights(), game.payoffs(),
                    sums_in_opponent_walk=True).allocate()
    cfg = config_for(toy_cap=TOY, ladder=(1, 3, 6), storage="float32", three_ties=three_ties)
    mine = FullSolver(cfg).allocate()
    t = mine.tree
    # three tied rounds end in the round-3 showdown (a tie there scores nothing), never
    # at a card node decided before the last card
    assert (t.showdown[t.kind == LAST] == NO_WINNER).any()
    assert not (t.winner[t.kind == END] == NO_WINNER).any()
    pe = FullSolver(config_for(toy_cap=TOY, ladder=(1, 3, 6), three_ties="pe")).tree
    to_pe = t.showdown == NO_WINNER
    assert (pe.showdown[to_pe] == 1).all() and (pe.showdown[~to_pe] == t.showdown[~to_pe]).all()
    assert_same_first_iterates(ref, mine)
    m0, m1 = mine.best_response_values()
    points = (mine.ladder[None, :], -mine.ladder[None, :])
    assert mine.batch_values(*points)[0] == pytest.approx((m0, m1), abs=1e-9)
    assert mine.batch_values(*points, best=False)[0, 0] == pytest.approx(mine.value(), abs=1e-9)
    # the default rule's game is another game: its values differ
    default = FullSolver(config_for(toy_cap=TOY, ladder=(1, 3, 6), storage="float32")).allocate()
    default.iterate(2)
    assert default.value() != pytest.approx(mine.value(), abs=1e-6)
    assert cfg.label.endswith(f"three ties: {three_ties}") and "three_ties" in cfg.as_dict()
    assert "three_ties" not in default.config.as_dict()   # older checkpoints still match


def test_lab_bench_full_says_what_leaving_out_dead_nodes_buys(capsys):
    """`lab bench full` reports the share of (node, hand) pairs left out; with
    --no-prune none is, and the exploitabilities are those of leaving them out with
    --eager-discount; the lazy discounts (the default) leave out the same share and give
    the same exploitabilities but for rounding (float32: 1e-7; 16 bits: 1e-4); with
    --three-pass (the round-3 showdown nodes in three passes) the very same figures."""
    from lab.cli import main

    runs = []
    for storage, extra in (("float32", ["--eager-discount"]), ("float32", ["--no-prune"]),
                           ("int16", []), ("int16", ["--eager-discount"]), ("float32", []),
                           ("float32", ["--three-pass"])):
        assert main(["bench", "full", "--toy", "2,2,2,1", "--ladder", "1,3,6",
                     "--max-iterations", "6", "--check-every", "3", "--target", "1e-12",
                     "--storage", storage, "--schedules", "dcfr", *extra]) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        runs.append([x for x in lines if "left_out" in x])
    pruned, full, lazy, eager, lazy32, three_pass = runs
    assert [x["iterations"] for x in pruned] == [3, 6]
    assert all(x["left_out"] > 0.1 for x in pruned) and all(x["left_out"] == 0 for x in full)
    assert [x["exploitability"] for x in pruned] == pytest.approx(
        [x["exploitability"] for x in full], abs=1e-12)
    assert [x["left_out"] for x in lazy] == [x["left_out"] for x in eager]
    assert [x["exploitability"] for x in lazy] == pytest.approx(
        [x["exploitability"] for x in eager], abs=1e-4)
    assert [x["left_out"] for x in lazy32] == [x["left_out"] for x in pruned]
    assert [x["exploitability"] for x in lazy32] == pytest.approx(
        [x["exploitability"] for x in pruned], abs=1e-7)
    assert [(x["exploitability"], x["left_out"]) for x in three_pass] == [
        (x["exploitability"], x["left_out"]) for x in lazy32]


def test_lab_bench_full_runs_each_storage_and_plots_the_curves(tmp_path, capsys):
    """`--storage int16,float32` runs both storages one after the other and compares them
    side by side; `--plot` draws the curves into a PNG; a storage named twice or unknown
    is one error line."""
    from lab.cli import main

    plot = tmp_path / "curves.png"
    assert main(["bench", "full", "--toy", "2,2,2,1", "--ladder", "1,3", "--max-iterations",
                 "4", "--check-every", "2", "--target", "1e-12", "--storage", "int16,float32",
                 "--schedules", "dcfr", "--plot", str(plot)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    compare = [x["compare"] for x in lines if "compare" in x][0]
    assert [row["iterations"] for row in compare] == [2, 4]
    assert all(row["dcfr/int16"] > 0 and row["dcfr/float32"] > 0 for row in compare)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for bad in ("int16,int16", "int8"):
        assert main(["bench", "full", "--toy", "2,2,2,1", "--storage", bad]) == 2
        assert capsys.readouterr().err.startswith(f"error: --storage {bad}:")
    assert main(["bench", "full", "--toy", "2,2,2,1", "--plot", "x.svg"]) == 2
    assert "name a .png file" in capsys.readouterr().err


def test_lab_bench_full_resumed_times_the_iterations_since_the_check_before(tmp_path, capsys,
                                                                          monkeypatch):
    """A `lab bench full` resumed from its checkpoint prints the seconds per iteration of the
    iterations since the check before (the solve's history holds the earlier run's checks),
    not averaged over the whole solve: here each iteration is made to count 1 s in the first
    run and 3 s in the resumed one, so the average from zero would be 1.67 s."""
    from lab.cli import main
    from lab.solver.fullgame.solver import FullSolver

    iterate = FullSolver.iterate

    def taking(extra):
        def slow_iterate(self, n=1):
            iterate(self, n)
            self.seconds += extra * n
        return slow_iterate

    ckpt = tmp_path / "ck"
    for cap, extra in (("4", 1.0), ("6", 3.0)):
        monkeypatch.setattr(FullSolver, "iterate", taking(extra))
        assert main(["bench", "full", "--toy", "2,2,2,1", "--ladder", "1,3", "--max-iterations",
                     cap, "--check-every", "2", "--target", "1e-12",
                     "--checkpoint", str(ckpt)]) == 0
    checks = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    checks = [x for x in checks if "left_out" in x]
    assert [x["iterations"] for x in checks] == [2, 4, 6]
    assert [x["seconds_per_iteration"] for x in checks] == pytest.approx([1, 1, 3], abs=0.1)
    assert checks[-1]["updates_per_second"] < checks[-2]["updates_per_second"] / 2
