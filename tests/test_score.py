"""Play at one score (lab.tables.score): match payoffs in the full-game solver, the points
strategy's leak and the score-aware re-solve, on a reduced deck (7 cards: levels with
2, 2, 2, 1 copies) with the whole ladder 1-3-6-9-12."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from lab.match import HandResult, match_equity
from lab.rules import MAO, PE
from lab.tables.score import (FIRST_RATE, check_gap, measure_leak, resolve, score_payoffs,
                              table_row, write_rows)
from lab.solver.cfr import CFRSolver, predicted_gap
from conftest import assert_same_first_iterates
from lab.solver.fullgame.solver import FullSolver, config_for
from lab.solver.fullgame.game import LADDER, FullGame
from lab.solver.tree import build_tree

TOY = (2, 2, 2, 1)


class TrucoCoin:
    """A made-up hand model (not solved): each seat scores 1 or 3 points, the mão winning
    with probability 0.48; end games are coin flips. It gives a match-equity table whose
    payoffs are far from linear in points near 12."""

    name = "coin"

    def normal(self, score, payoff):
        p = 0.48 * (0.7 * payoff(MAO, 1) + 0.3 * payoff(MAO, 3)) \
            + 0.52 * (0.7 * payoff(PE, 1) + 0.3 * payoff(PE, 3))
        return HandResult(p, 0.0, self.name)

    def eleven(self, score, pay):
        return HandResult(0.5 * pay.mao_wins + 0.5 * pay.pe_wins, 0.0, self.name)

    def eleven_eleven(self, nobody=float("nan")):
        return HandResult(0.5, 0.0, self.name)


@pytest.fixture(scope="module")
def me():
    table = match_equity(TrucoCoin())
    out = np.full((12, 12), np.nan)
    out[table["score_mao"], table["score_pe"]] = table["p_mao"]
    return out


@pytest.fixture(scope="module")
def points_solution(tmp_path_factory):
    """A points solution of the reduced game (300 iterations), saved as a checkpoint."""
    solver = FullSolver(config_for(toy_cap=TOY)).allocate()
    solver.iterate(300)
    where = tmp_path_factory.mktemp("points") / "ckpt"
    solver.save_checkpoint(where)
    return solver, where


def fresh(where):
    return FullSolver(config_for(toy_cap=TOY)).load_checkpoint(where)


def test_score_payoffs_are_the_match_equity_after_each_outcome(me):
    mao, pe = score_payoffs(me, (9, 4))
    assert mao[0] == pytest.approx(1 - me[4, 10]) and (mao[1:] == 1.0).all()   # 10 or 12+
    assert list(pe) == pytest.approx([1 - me[5, 9], 1 - me[7, 9], 1 - me[10, 9], 0.0, 0.0])
    with pytest.raises(ValueError, match="below 11"):
        score_payoffs(me, (11, 3))


def test_match_payoffs_run_the_same_iterates_as_the_generic_solver():
    """Any payoff per (winner, value) outcome: the compact solver and the generic
    public-tree solver on the reference game agree on the first iterates' best responses."""
    game = FullGame(toy_cap=TOY, ladder=(1, 3, 6))
    mao, pe = np.array([0.61, 0.83, 0.97]), np.array([0.40, 0.15, 0.02])
    payoffs = np.empty(6)
    payoffs[0::2], payoffs[1::2] = mao, pe          # outcome 2 k + winner
    ref = CFRSolver(build_tree(game), game.deal_weights(), payoffs,
                    sums_in_opponent_walk=True).allocate()
    mine = FullSolver(config_for(toy_cap=TOY, ladder=(1, 3, 6), storage="float32")).allocate()
    mine.set_payoffs(mao, pe)
    assert_same_first_iterates(ref, mine)


def test_points_written_as_payoffs_change_nothing(points_solution):
    solver, _ = points_solution
    points = (solver.best_response_values(), solver.value())
    solver.set_payoffs(solver.ladder, -solver.ladder)
    try:
        assert (solver.best_response_values(), solver.value()) == points
    finally:
        solver.set_payoffs(None, None)


def test_the_value_is_the_outcome_distribution_priced_at_the_match_payoffs(points_solution, me):
    solver, _ = points_solution
    mao, pe = score_payoffs(me, (8, 10))
    dist = solver.outcome_distribution()
    expect = sum(dist["mao", v] * a + dist["pe", v] * b for v, a, b in zip(LADDER, mao, pe))
    assert measure_leak(solver, me, (8, 10)).value_mao == pytest.approx(expect, abs=1e-12)


def test_with_payoffs_linear_in_points_the_leak_is_the_points_exploitability(points_solution):
    """Payoffs c + s * (the mão's net points) have the points game's best responses: each
    gain is s times the points gain (and the strategy leaks nothing beyond its epsilon)."""
    solver, _ = points_solution
    b0, b1 = solver.best_response_values()
    v = solver.value()
    lk = measure_leak(solver, None, (0, 0), payoffs=(0.5 + 0.02 * solver.ladder, 0.5 - 0.02 * solver.ladder))
    assert lk.gain_mao == pytest.approx(0.02 * (b0 - v), abs=1e-12)
    assert lk.gain_pe == pytest.approx(0.02 * (b1 + v), abs=1e-12)


def test_near_the_end_the_points_strategy_leaks_and_a_re_solve_plugs_it(points_solution, me):
    solver, where = points_solution
    score = (4, 10)   # the pé needs 2 points: every accepted truco ends the match
    points_best = solver.best_response_values()
    lk = measure_leak(solver, me, score)
    assert solver.payoffs is None and solver.best_response_values() == points_best
    assert lk.gain_mao >= -1e-12 and lk.gain_pe >= -1e-12
    mao, pe = score_payoffs(me, score)
    # far above what the points epsilon would leak if the payoffs were linear in points
    assert lk.exploitability > 3 * 0.5 * sum(points_best) * 0.5 * (mao[0] - pe[0])
    work = fresh(where)
    rs = resolve(work, me, score, max_iterations=30)
    assert rs.iterations == 30 and work.payoffs is None
    assert rs.exploitability < 0.25 * lk.exploitability
    # the re-solve's figures, rescaled back, are those of the solution it leaves behind
    again = measure_leak(work, me, score)
    assert again.value_mao == pytest.approx(rs.value_mao, abs=1e-12)
    assert again.exploitability == pytest.approx(rs.exploitability, abs=1e-12)
    for key in ("truco_mao", "accept_pe", "run_pe", "raise_pe"):
        assert 0 <= rs.before[key] <= 1 and 0 <= rs.after[key] <= 1
    assert rs.after != rs.before


def test_a_re_solve_with_a_target_stops_at_the_first_check_that_meets_it(points_solution, me):
    """Without a reachable target it runs to its limit, checked every 10 iterations; with
    the exploitability of its third check as the target, the same iterates are checked
    where the power law says the target is met, and stop at the first check that meets
    it, no later than the third."""
    _, where = points_solution
    score = (4, 10)
    full = resolve(fresh(where), me, score, max_iterations=50, target=1e-12)
    assert [h[0] for h in full.history] == [10, 20, 30, 40, 50]
    assert full.exploitability == full.history[-1][2]
    goal = full.history[2][2]
    assert min(h[2] for h in full.history[:2]) > goal   # not met before the third check
    early = resolve(fresh(where), me, score, max_iterations=50, target=goal)
    checks = [h[0] for h in early.history]
    assert checks[0] == 10 and early.iterations == checks[-1] <= 30
    for n in range(1, len(checks)):
        assert checks[n] == checks[n - 1] + check_gap(early.history[:n], goal, 10)
    assert early.exploitability == early.history[-1][2] <= goal
    assert all(h[2] > goal for h in early.history[:-1])
    same = {h[0]: h[2] for h in full.history}
    assert [h[2] for h in early.history if h[0] in same] == [same[h[0]] for h in early.history
                                                            if h[0] in same]


def test_the_next_check_comes_where_the_power_law_meets_the_target():
    """Exploitability falling as iterations ** -rate: through the last two checks, or at
    the assumed rate after one; within [2, check_every]."""
    halving = [(10, 0.004), (20, 0.002)]                       # rate 1
    assert predicted_gap(halving, 0.001, 30) == 20              # 0.001 at 40
    assert predicted_gap(halving, 0.001, 10) == 10              # at most check_every
    assert predicted_gap(halving, 0.0019, 10) == 2              # 21.05: at least 2
    assert predicted_gap(halving[:1], 0.002, 30) == 30          # no rate: check_every
    assert predicted_gap(halving[:1], 0.002, 30, rate=1.0) == 10
    assert predicted_gap([(10, 0.002), (20, 0.003)], 0.001, 10, rate=1.0) == 10  # rose
    first = [(10, 55.0, 0.00269)]                               # (iterations, s, expl.)
    assert check_gap(first, 0.002, 10) == int(np.ceil(10 * (0.00269 / 0.002) ** (1 / FIRST_RATE))) - 10


def test_score_leak_rows_merge_by_vira_and_score(tmp_path, points_solution, me):
    solver, _ = points_solution
    lk = measure_leak(solver, me, (3, 3))
    row = table_row("4", lk, 0.01, 300)
    first = write_rows([{**row, "vira": "4"}, {**row, "vira": "7"}], tmp_path)
    assert len(first) == 2 and np.isnan(first.resolve_exploitability).all()
    again = write_rows([{**row, "vira": "7", "leak": 0.5}, {**row, "vira": "7", "score_pe": 9}],
                       tmp_path)
    assert len(again) == 3
    assert again.set_index(["vira", "score_pe"]).loc[("7", 3), "leak"] == 0.5
    from lab.tables import load_table, solved_viras

    assert solved_viras("score_leak", tmp_path) == ["4", "7"]
    assert len(load_table("score_leak", viras=["4", "7"], directory=tmp_path)) == 3


def lab(*args):
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True)


@pytest.mark.parametrize("score", ["11,3", "3,11", "11,11", "-1,2", "x"])
def test_lab_solve_score_refuses_scores_without_the_ladder(score, tmp_path):
    out = lab("solve", "score", "--score", score, "--checkpoints", str(tmp_path))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("error:") and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("command", [("solve", "score", "--score", "9,9"), ("bench", "score")])
def test_the_missing_points_solution_is_named_with_the_command_that_solves_it(command,
                                                                             tmp_path):
    out = lab(*command, "--vira", "3", "--checkpoints", str(tmp_path))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (f"error: no points solution for vira 3 in {tmp_path}: run `lab solve "
                          f"full --vira 3 --checkpoints {tmp_path}` first (about half an hour "
                          "per vira)\n")


@pytest.fixture
def toy_command(points_solution, me, tmp_path, monkeypatch):
    """`lab solve score` with the reduced deck's points solution standing in for the real
    viras' (which take 3 GB each), a made-up match-equity table and data in tmp_path."""
    import pandas as pd

    import lab.tables.score
    import lab.tables

    _, where = points_solution
    table = pd.DataFrame([(m, p, me[m, p], "coin") for m in range(12) for p in range(12)],
                         columns=["score_mao", "score_pe", "p_mao", "model"])
    real_load = lab.tables.load_table
    monkeypatch.setattr(lab.tables, "load_table", lambda name, *a, **k: table
                        if name == "match_equity" else real_load(name, *a, **k))
    monkeypatch.setattr(lab.tables.score, "has_points_solution", lambda root, vira: True)
    monkeypatch.setattr(lab.tables.score, "load_points_solution",
                        lambda root, vira, threads=1: fresh(where))
    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    from lab.cli import main

    return lambda *args: main(["solve", "score", "--checkpoints", str(tmp_path), *args])


def test_lab_solve_score_prints_json_and_saves_each_vira(toy_command, tmp_path, capsys):
    import json

    from lab.tables import load_table

    code = toy_command( "--score", "4,10", "--score", "0,0", "--vira", "4", "--vira", "K",
                       "--minutes", "0.001", "--no-progress")
    out, err = capsys.readouterr()
    assert code == 0
    objs = [json.loads(line) for line in out.splitlines()]      # strict JSON: no NaN
    assert [o["score"] for o in objs] == [[4, 10], [0, 0]]
    for o in objs:
        assert o["match_equity_model"] == "coin" and o["viras_measured"] == 2
        assert o["leak"] == pytest.approx(o["viras"]["4"]["leak"])
        assert o["viras"]["4"]["resolve"]["iterations"] >= 1
    assert err.count("leak") == 4                                # one line per vira and score
    saved = load_table("score_leak", viras=["4", "K"], directory=tmp_path)
    assert len(saved) == 4 and (saved.resolve_iterations >= 1).all()


def test_lab_solve_score_measures_one_game_once_for_viras_2_and_3(toy_command, tmp_path,
                                                                   capsys, monkeypatch):
    """`lab solve full` leaves one points solution for viras 2 and 3 (one game, as vira 2):
    vira 3 is measured on it, the game re-solved once, and vira 3 gets vira 2's numbers
    with its own hand names."""
    import json

    import lab.tables.score
    from lab.classes import hand_classes
    from lab.tables import load_table

    monkeypatch.setattr(lab.tables.score, "has_points_solution", lambda root, vira: vira == "2")
    loads = []
    load = lab.tables.score.load_points_solution
    monkeypatch.setattr(lab.tables.score, "load_points_solution",
                        lambda root, vira, threads=1: loads.append(vira) or load(root, vira))
    code = toy_command("--score", "4,10", "--vira", "2", "--vira", "3", "--minutes", "0.001",
                       "--no-progress")
    out, err = capsys.readouterr()
    assert code == 0 and loads == ["2"]
    two, three = (json.loads(out)["viras"][v] for v in ("2", "3"))
    assert "same_game_as" not in two and three["same_game_as"] == "2"
    assert three["leak"] == two["leak"] and three["resolve"]["exploitability"] == \
        two["resolve"]["exploitability"]
    names = dict(zip(hand_classes("2").labels, hand_classes("3").labels))
    for key in ("truco_mao", "run_pe"):
        assert [names[h["hand"]] for h in two["resolve"]["biggest_changes"][key]] == \
            [h["hand"] for h in three["resolve"]["biggest_changes"][key]]
    saved = load_table("score_leak", viras=["2", "3"], directory=tmp_path).set_index("vira")
    assert saved.loc["3"].equals(saved.loc["2"])
    loads.clear()   # vira 3 alone: measured on vira 2's points solution
    assert toy_command("--score", "4,10", "--vira", "3", "--minutes", "0", "--no-progress",
                       "--no-save") == 0
    out, err = capsys.readouterr()
    assert loads == ["2"] and json.loads(out)["viras"]["3"]["leak"] == two["leak"]
    assert "vira 3: loading the points solution (vira 2's: the same game)" in err


def test_lab_solve_score_stops_each_re_solve_at_its_target(toy_command, capsys):
    import json

    code = toy_command("--score", "4,10", "--vira", "4", "--minutes", "5", "--target", "1",
                       "--threads", "2", "--no-progress", "--no-save")
    out, _ = capsys.readouterr()
    assert code == 0
    rs = json.loads(out)["viras"]["4"]["resolve"]
    assert rs["iterations"] == 10 and len(rs["checks"]) == 1
    assert rs["checks"][0][2] == rs["exploitability"] <= 1


def test_lab_solve_score_can_start_each_re_solve_from_the_previous_one(toy_command, capsys):
    """--start previous: the second score's re-solve continues from the first's solution
    (other iterates than from the points solution), and its points-play columns still
    describe the points solution."""
    import json

    runs = {}
    for start in ("points", "previous"):
        assert toy_command("--score", "4,10", "--score", "3,10", "--vira", "4", "--minutes", "5",
                           "--target", "1", "--start", start, "--no-progress",
                           "--no-save") == 0
        out, _ = capsys.readouterr()
        runs[start] = [json.loads(line)["viras"]["4"]["resolve"] for line in out.splitlines()]
    assert [r["start"] for r in runs["points"]] == ["points", "points"]
    assert [r["start"] for r in runs["previous"]] == ["points", "4,10"]
    def same_run(r):   # what does not depend on the clock
        return ([(c[0], c[2]) for c in r["checks"]], r["exploitability"], r["score_play"])

    assert same_run(runs["previous"][0]) == same_run(runs["points"][0])
    first, second = runs["points"][1], runs["previous"][1]
    assert second["points_play"] == first["points_play"]
    assert same_run(second)[0] != same_run(first)[0]
    assert second["score_play"] != first["score_play"]


def test_lab_solve_score_sweeps_every_score_of_the_ladder(toy_command, tmp_path, capsys):
    import json

    from lab.tables import load_table

    assert toy_command("--all-scores", "--vira", "7") == 0
    out, err = capsys.readouterr()
    objs = [json.loads(line) for line in out.splitlines()]
    assert len(objs) == 121 and {tuple(o["score"]) for o in objs} == {
        (m, p) for m in range(11) for p in range(11)}
    assert all("resolve" not in o["viras"]["7"] for o in objs)   # leak only by default
    saved = load_table("score_leak", viras=["7"], directory=tmp_path)
    assert len(saved) == 121 and (saved.resolve_iterations == 0).all()
    assert (saved.gain_mao > -1e-12).all() and (saved.gain_pe > -1e-12).all()
    top = saved.loc[saved.leak.idxmax()]                         # one summary line, no 121
    assert f"vira 7: leak at 121 scores: mean {saved.leak.mean():.5f}, largest " \
           f"{top.leak:.5f} at {top.score_mao},{top.score_pe}" in err
    assert " at 0,0: leak" not in err


def test_lab_bench_score_compares_one_at_a_time_with_batched(capsys):
    """The benchmark prints both methods side by side, and their leaks agree."""
    import json

    from lab.cli import main

    assert main(["bench", "score", "--iterations", "20", "--one-by-one", "2",
                 "--threads", "1,2"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [x.get("method") for x in lines] == [None, "one at a time", "batched", None,
                                                "batched", None]
    assert [x["threads"] for x in lines if x.get("method") == "batched"] == [1, 2]
    assert lines[2]["scores"] == 121
    summary = lines[-1]
    assert {"seconds_per_score_one_at_a_time", "seconds_per_score_batched",
            "speedup"} <= set(summary)
    assert summary["max_leak_difference"] < 1e-12
    assert set(summary["seconds_per_score_batched_by_threads"]) == {"1", "2"}
    assert summary["same_leaks_on_every_thread_count"] is True
