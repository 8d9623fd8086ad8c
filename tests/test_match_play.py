"""Score-aware play across the match: the mixed match equity (lab.match.MixedModel,
lab.tables.score_play) and the resumable sweep of re-solves (lab.tables.score_sweep), the
sweep on a reduced deck standing in for the real viras."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lab.match import (FULL_MODEL, MIXED_MODEL, SCORE_AWARE_MODEL, MixedModel, ScoreAwareHand,
                       equity_array, match_equity)
from lab.cards import parse_card, parse_cards
from lab.rules import MAO, PE
from lab.solver.fullgame.game import LADDER
from lab.solver.fullgame.solver import FullSolver, has_checkpoint
from lab.solver.games.payoffs import after_hand
from lab.tables import load_table
from lab.tables.chain import plays_due, step_commands, step_of
from lab.tables.full import points_checkpoint, points_solver
from lab.tables.score import score_payoffs
from lab.tables.score_play import load_plays, plays_to_rebuild, write_mixed_equity, write_plays
from lab.tables.score_sweep import (MIN_DRIFT, Task, check_row, drift, finished, is_stale,
                                    run_task, score_dir, sweep, waves)

REPO_DATA = Path(__file__).resolve().parents[1] / "data"
TOY = (2, 2, 2, 1)
NORMAL = [(m, p) for m in range(11) for p in range(11)]
RE_SOLVED = ("score_play*", "match_equity_mixed*")
"""The tables of the stored re-solves, left out where a test makes its own."""
NOT_COPIED = shutil.ignore_patterns("full_policy*", "score_policy*", *RE_SOLVED)


@pytest.fixture(scope="module")
def points():
    return (load_table("match_equity", directory=REPO_DATA),
            load_table("full_summary", directory=REPO_DATA))


def made_up_hand(rng, me, score, exploitability=0.001):
    """A score-aware hand with a made-up outcome distribution, solved with ``me``'s payoffs
    shifted a little (so that the drift is not zero)."""
    dist = rng.dirichlet(np.ones(2 * len(LADDER)))
    pay = [np.array([after_hand(me, score, seat, v) for v in LADDER]) + 0.003
           for seat in (MAO, PE)]
    return ScoreAwareHand(dist[:len(LADDER)], dist[len(LADDER):], exploitability, *pay)


def test_without_re_solves_the_mixed_table_is_the_points_table(points):
    table, full = points
    mixed = match_equity(MixedModel(full, table, {}))
    assert (mixed["model"] == table["model"]).all()
    assert np.abs(mixed["p_mao"] - table["p_mao"]).max() < 1e-12


def test_the_mixed_backward_induction_holds_at_every_score(points):
    """Each normal score's value is the mean over viras of the played distribution
    (score-aware where given, else points) priced at the mixed table's own payoffs; the
    end games are the points table's rows; the exploitability widens by the drift."""
    table, full = points
    rng = np.random.default_rng(7)
    me0 = equity_array(table)
    viras = list(full["vira"])
    aware = {(v, (9, 10)): made_up_hand(rng, me0, (9, 10)) for v in viras}
    aware[("4", (10, 10))] = made_up_hand(rng, me0, (10, 10))
    aware[("K", (3, 2))] = made_up_hand(rng, me0, (3, 2))
    leak = {(v, s): 0.01 for v in viras for s in NORMAL}
    mixed = match_equity(MixedModel(full, table, aware, leak))
    me = equity_array(mixed)
    by_score = mixed.set_index(["score_mao", "score_pe"])
    fs = full.set_index("vira")
    for s in NORMAL:
        pay = [np.array([after_hand(me, s, seat, v) for v in LADDER]) for seat in (MAO, PE)]
        values = []
        for v in viras:
            hand = aware.get((v, s))
            dist = (hand.p_mao, hand.p_pe) if hand else (
                fs.loc[v, [f"p_mao_{k}" for k in LADDER]].to_numpy(float),
                fs.loc[v, [f"p_pe_{k}" for k in LADDER]].to_numpy(float))
            values.append(dist[0] @ pay[0] + dist[1] @ pay[1])
        assert by_score.loc[s, "p_mao"] == pytest.approx(np.mean(values), abs=1e-12)
    assert by_score.loc[(9, 10), "model"] == SCORE_AWARE_MODEL
    assert by_score.loc[(10, 10), "model"] == by_score.loc[(3, 2), "model"] == MIXED_MODEL
    assert by_score.loc[(0, 0), "model"] == FULL_MODEL
    eleven = table[(table["score_mao"] == 11) | (table["score_pe"] == 11)].set_index(
        ["score_mao", "score_pe"])
    assert len(eleven) == 23
    assert (by_score.loc[eleven.index, ["p_mao", "model"]] == eleven[["p_mao", "model"]]).all(
        axis=None)
    # 9-10 re-solved everywhere at payoffs 0.003 above the mixed ones (its successors
    # 10-10 and the mão de onze rows moved only where 10-10 did): 0.001 + 2 x drift
    assert by_score.loc[(9, 10), "exploitability"] >= 0.001 + 2 * 0.003 - 1e-12
    # points play: its leak, and twice the drift of its payoffs from the points table's
    drift = max(abs(after_hand(me, (0, 0), seat, v) - after_hand(me0, (0, 0), seat, v))
                for seat in (MAO, PE) for v in LADDER)
    assert drift > 0
    assert by_score.loc[(0, 0), "exploitability"] == pytest.approx(0.01 + 2 * drift, abs=1e-12)


def test_waves_run_from_the_end_of_the_match_down_highest_leak_first():
    cells = [("4", (9, 9), 0.03), ("K", (10, 10), 0.05), ("4", (10, 9), 0.02),
             ("4", (9, 10), 0.06), ("4", (10, 10), 0.05)]
    assert [[(v, s) for v, s, _ in w] for w in waves(cells)] == [
        [("4", (10, 10)), ("K", (10, 10))], [("4", (9, 10)), ("4", (10, 9))], [("4", (9, 9))]]


@pytest.fixture(scope="module")
def toy_points(tmp_path_factory):
    """A points solution of the reduced deck (100 iterations) where `lab solve full
    --checkpoints ROOT` keeps it; each test re-solves other scores under ROOT."""
    root = tmp_path_factory.mktemp("ck")
    solver = points_solver(None, toy_cap=TOY).allocate()   # as `lab solve full` would
    solver.iterate(100)
    solver.save_checkpoint(points_checkpoint(root, None, toy_cap=TOY))
    return root


@pytest.fixture
def toy_root(toy_points, tmp_path, monkeypatch):
    """The reduced deck's points solution and a copy of the repository's tables as data."""
    root = toy_points
    data = tmp_path / "data"
    shutil.copytree(REPO_DATA, data, ignore=NOT_COPIED)
    monkeypatch.setenv("LAB_DATA_DIR", str(data))
    return root, data


def test_a_sweep_writes_each_re_solve_and_warm_starts_from_the_nearest(toy_root):
    root, data = toy_root
    lines = []
    results = sweep([("4", (9, 10), 0.05), ("4", (10, 10), 0.05)], root, target=0.5,
                    toy_cap=TOY, directory=data, say=lines.append)
    rows = [r["row"] for r in results]
    assert [(r["score_mao"], r["score_pe"]) for r in rows] == [(10, 10), (9, 10)]
    assert [r["start"] for r in rows] == ["points", "10,10"]
    assert lines[0].startswith("wave 20 points: 1 re-solve (4 10-10)")
    plays, hands = load_plays(data)
    assert len(plays) == 2 and len(hands) == 2 * hands["hand"].nunique()
    for r in rows:
        assert r["exploitability"] <= 0.5 and r["iterations"] == 10
        outcome = sum(r[f"p_{seat}_{v}"] for seat in ("mao", "pe") for v in LADDER)
        assert outcome == pytest.approx(1.0, abs=1e-9)
        # the table's row is reproduced from the re-solve's checkpoint
        value, expl = check_row(root, r, toy_cap=TOY)
        assert value == pytest.approx(r["value_mao"], abs=1e-9)
        assert expl == pytest.approx(r["exploitability"], abs=1e-9)
    # 9-10's payoffs came from the match equity with 10-10 re-solved for vira 4
    mixed = load_table("match_equity_mixed", directory=data).set_index(["score_mao", "score_pe"])
    assert mixed.loc[(10, 10), "model"] == MIXED_MODEL
    assert mixed.loc[(10, 10), "score_aware_viras"] == 1
    nine_ten = plays[plays["score_mao"] == 9].iloc[0]
    me = equity_array(mixed.reset_index())
    assert nine_ten["pay_mao_1"] == pytest.approx(after_hand(me, (9, 10), MAO, 1), abs=1e-12)
    assert mixed.loc[(9, 10), "difference"] != 0
    # a second sweep finds both finished and re-solves nothing
    again = sweep([("4", (9, 10), 0.05), ("4", (10, 10), 0.05)], root, target=0.5,
                  toy_cap=TOY, directory=data, say=lines.append)
    assert [r["row"] for r in again] == rows


def own_root(points, tmp_path):
    """A checkpoints folder holding the reduced deck's points solution and no re-solves."""
    root = tmp_path / "ck"
    shutil.copytree(points_checkpoint(points, None, toy_cap=TOY),
                    points_checkpoint(root, None, toy_cap=TOY))
    return root


def test_vira_3_takes_the_re_solve_of_vira_2_whose_game_it_plays(toy_root, tmp_path):
    points, data = toy_root
    root = own_root(points, tmp_path)
    lines = []
    results = sweep([("3", (10, 10), 0.05)], root, target=0.5, toy_cap=TOY, directory=data,
                    say=lines.append)
    two, three = (r["row"] for r in results)
    assert (two["vira"], two["start"], three["vira"], three["start"]) == ("2", "points",
                                                                         "3", "vira 2")
    assert three["seconds"] == 0
    assert {k: x for k, x in three.items() if k not in ("vira", "start", "seconds")} == \
        {k: x for k, x in two.items() if k not in ("vira", "start", "seconds")}
    assert lines[0].startswith("wave 20 points: 1 re-solve (2 10-10)")
    assert lines[-1].startswith("vira 3 at 10,10: the game of vira 2, its re-solve copied")
    plays, hands = load_plays(data)
    assert sorted(plays["vira"]) == ["2", "3"]
    by_hand = {v: g.set_index("hand") for v, g in hands.groupby("vira")}
    # the same hand under the other name: two 2s and a 4 with vira 2 are two 3s and a 5
    # with vira 3 (each the top plain rank twice and the lowest once)
    assert by_hand["3"].loc["3 3 5"].drop("vira").equals(by_hand["2"].loc["2 2 4"].drop("vira"))
    mixed = load_table("match_equity_mixed", directory=data).set_index(["score_mao", "score_pe"])
    assert mixed.loc[(10, 10), "score_aware_viras"] == 2
    # nothing changed: a second sweep copies nothing
    assert sweep([("3", (10, 10), 0.05)], root, target=0.5, toy_cap=TOY, directory=data,
                 say=lines.append)[-1]["row"]["vira"] == "2"


def test_the_re_solves_follow_the_points_solves_storage_and_schedule(toy_root, tmp_path,
                                                                    monkeypatch):
    """With points solves under other settings (float32, dcfr+), the sweep finds them
    where `lab solve full` keeps them, and re-solves them with their schedule in 16 bits.
    (Only the points solves' settings change here: the tables stay the repository's.)"""
    import lab.tables.full
    from lab.tables.score import has_points_solution

    _, data = toy_root
    monkeypatch.setattr(lab.tables.full, "FULL_SETTINGS", dict(
        lab.tables.full.FULL_SETTINGS, storage="float32", schedule="dcfr+"))
    root = tmp_path / "ck"
    assert not has_points_solution(root, "4")
    solver = points_solver("4", toy_cap=TOY).allocate()
    assert (solver.config.storage, solver.schedule.name) == ("float32", "dcfr+")
    solver.iterate(40)
    where = points_checkpoint(root, "4", toy_cap=TOY)
    assert where.name.endswith("_float32")
    solver.save_checkpoint(where)
    rows = [r["row"] for r in sweep([("4", (10, 10), 0.05)], root, target=0.5, toy_cap=TOY,
                                    directory=data, say=lambda line: None)]
    assert rows[0]["start"] == "points" and rows[0]["iterations"] == 10
    state = json.loads((score_dir(root, "4", (10, 10), TOY) / "solution" / "state.json")
                       .read_text())
    assert (state["config"]["storage"], state["schedule"]) == ("int16", "dcfr+")
    assert state["iterations"] == 40 + 10
    value, expl = check_row(root, rows[0], toy_cap=TOY)
    assert value == pytest.approx(rows[0]["value_mao"], abs=1e-9)
    assert expl == pytest.approx(rows[0]["exploitability"], abs=1e-9)


def test_a_vira_starts_from_another_viras_re_solve_of_the_same_score(toy_root, tmp_path):
    points, data = toy_root
    root = own_root(points, tmp_path)
    lines = []
    cells = [("5", (10, 10), 0.05), ("4", (10, 10), 0.05), ("4", (9, 10), 0.05)]
    rows = [r["row"] for r in sweep(cells, root, target=0.5, toy_cap=TOY, directory=data,
                                    say=lines.append)]
    assert [(r["vira"], r["score_mao"], r["start"]) for r in rows] == [
        ("4", 10, "points"), ("5", 10, "4 10,10"), ("4", 9, "10,10")]
    assert lines[0].startswith("wave 20 points: 2 re-solves (4 10-10, then 5 10-10 from "
                               "another vira's re-solve of the same score)")
    assert any(line.startswith("wave 20 points, then: 5 10-10 from 4's") for line in lines)
    # its own checkpoint reproduces its row
    value, expl = check_row(root, rows[1], toy_cap=TOY)
    assert value == pytest.approx(rows[1]["value_mao"], abs=1e-9)
    assert expl == pytest.approx(rows[1]["exploitability"], abs=1e-9)
    # a vira new at 9-10 now starts from vira 4's 9-10 rather than its own 10-10
    more = sweep([("5", (9, 10), 0.05)], root, target=0.5, toy_cap=TOY, directory=data,
                 say=lines.append)
    assert more[0]["row"]["start"] == "4 9,10"


def test_a_sweep_that_keeps_one_solution_per_score_deletes_the_later_viras(toy_root,
                                                                           tmp_path):
    points, data = toy_root
    root = own_root(points, tmp_path)
    lines = []
    cells = [("5", (10, 10), 0.05), ("4", (10, 10), 0.05), ("7", (10, 10), 0.05),
             ("4", (9, 10), 0.05)]
    rows = [r["row"] for r in sweep(cells, root, target=0.5, toy_cap=TOY, directory=data,
                                    say=lines.append, keep_all=False)]
    assert [(r["vira"], r["score_mao"], r["start"]) for r in rows] == [
        ("4", 10, "points"), ("5", 10, "4 10,10"), ("7", 10, "4 10,10"), ("4", 9, "10,10")]
    kept = {(v, s): has_checkpoint(score_dir(root, v, s, TOY) / "solution")
            for v, s, _ in cells}
    # 10-10: vira 4's starts the others and stays; 9-10: the only one of its score
    assert kept == {("5", (10, 10)): False, ("4", (10, 10)): True, ("7", (10, 10)): False,
                    ("4", (9, 10)): True}
    assert sum("its solution deleted" in line for line in lines) == 2
    # a second sweep finds them finished and has nothing more to delete
    sweep(cells, root, target=0.5, toy_cap=TOY, directory=data, say=lines.append,
          keep_all=False)
    assert sum("its solution deleted" in line for line in lines) == 2
    for v in ("5", "7"):   # their rows and results stay
        assert finished(root, v, (10, 10), TOY)["row"] == next(r for r in rows
                                                                if r["vira"] == v)
    # solved again as asked: vira 5's 10-10 anew from vira 4's (not read back), its
    # solution kept this time; the others read back
    def written():
        return {(v, s): (score_dir(root, v, s, TOY) / "result.json").stat().st_mtime_ns
                for v, s, _ in cells}

    before = written()
    again = sweep(cells, root, target=0.5, toy_cap=TOY, directory=data, say=lines.append,
                  keep_all=False, again={("5", (10, 10))})
    assert [(r["row"]["vira"], r["row"]["start"]) for r in again] == [
        ("4", "points"), ("5", "4 10,10"), ("7", "4 10,10"), ("4", "10,10")]
    after = written()
    assert [c for c in after if after[c] != before[c]] == [("5", (10, 10))]
    assert has_checkpoint(score_dir(root, "5", (10, 10), TOY) / "solution")
    assert sum("solving it again as asked" in line for line in lines) == 1
    assert sum("its solution deleted" in line for line in lines) == 2


def test_a_re_solve_is_stale_once_its_payoffs_moved_past_its_target(points):
    me = equity_array(points[0])
    mao, pe = score_payoffs(me, (9, 10))
    row = {"score_mao": 9, "score_pe": 10, "exploitability": 0.0015,
           **{f"pay_mao_{v}": x for v, x in zip(LADDER, mao)},
           **{f"pay_pe_{v}": x for v, x in zip(LADDER, pe)}}
    assert drift(row, me) == 0.0 and not is_stale(row, me, 0.002)
    # the mão scoring 1 at 9-10 leads to 10-10; the pé scoring anything ends the match
    for moved, stale in ((0.0002, False), (0.0003, True)):
        now = me.copy()
        now[10, 10] += moved
        assert drift(row, now) == pytest.approx(moved, abs=1e-12)
        assert is_stale(row, now, 0.002) is stale   # 0.0015 + 2 x drift against 0.002
    # over its target already (a re-solve stopped by its time limit): any drift past
    # MIN_DRIFT
    late = {**row, "exploitability": 0.003}
    for moved, stale in ((MIN_DRIFT / 2, False), (2 * MIN_DRIFT, True)):
        now = me.copy()
        now[10, 10] += moved
        assert is_stale(late, now, 0.002) is stale


def end_game_then_another_vira(root, data):
    """Vira 4's 10-10 and 9-10 re-solved (reduced deck), then another vira's 10-10 (made
    up) merged after them: the match equity at 10-10 moves under 9-10. Returns the first
    two rows by score and the match equity now."""
    cells = [("4", (9, 10), 0.05), ("4", (10, 10), 0.05)]
    for _, score, _ in cells:   # re-solved from the start, whatever other tests left
        shutil.rmtree(score_dir(root, "4", score, TOY), ignore_errors=True)
    first = {(r["row"]["score_mao"], r["row"]["score_pe"]): r["row"]
             for r in sweep(cells, root, target=0.5, toy_cap=TOY, directory=data,
                            say=lambda line: None)}
    _, hands = load_plays(data)
    other = {**first[(10, 10)], "vira": "K"}
    other["p_mao_1"] += 0.05
    other["p_pe_1"] -= 0.05
    write_plays([other], hands[hands["score_mao"] == 10].assign(vira="K").to_dict("records"),
                data)
    return first, equity_array(write_mixed_equity(data))


def test_a_stale_re_solve_is_solved_again_from_its_own_strategies(toy_root):
    root, data = toy_root
    cells = [("4", (9, 10), 0.05), ("4", (10, 10), 0.05)]
    first, me = end_game_then_another_vira(root, data)
    nine_ten = first[(9, 10)]
    moved = drift(nine_ten, me)
    assert moved > MIN_DRIFT
    target = nine_ten["exploitability"] + moved   # within 2 x drift: may be exceeded now
    lines = []
    again = sweep(cells[:1], root, target=target, minutes=0.2, toy_cap=TOY, directory=data,
                  say=lines.append)
    row = again[0]["row"]
    assert row["start"] == "9,10"
    assert any("9,10: its payoffs moved by" in line for line in lines)
    # solved with today's payoffs, and so no longer stale
    assert row["pay_mao_1"] == pytest.approx(after_hand(me, (9, 10), MAO, 1), abs=1e-12)
    assert drift(row, me) <= 1e-12
    value, expl = check_row(root, row, toy_cap=TOY)
    assert value == pytest.approx(row["value_mao"], abs=1e-9)
    assert sweep(cells[:1], root, target=target, minutes=0.2, toy_cap=TOY, directory=data,
                 say=lambda line: None)[0]["row"] == row


def test_a_re_solve_whose_files_are_gone_is_kept_from_score_play_unless_stale(toy_root):
    root, data = toy_root
    cells = [("4", (9, 10), 0.05), ("4", (10, 10), 0.05)]
    first, me = end_game_then_another_vira(root, data)
    for score in first:   # the checkpoints were on another machine
        shutil.rmtree(score_dir(root, "4", score, TOY))
    lines = []
    assert sweep(cells, root, target=0.5, toy_cap=TOY, directory=data, say=lines.append) == []
    assert lines == ["wave 20 points: 0 re-solves; 1 kept as score_play holds it",
                     "wave 19 points: 0 re-solves; 1 kept as score_play holds it"]
    nine_ten = first[(9, 10)]
    target = nine_ten["exploitability"] + drift(nine_ten, me)
    out = sweep(cells[:1], root, target=target, minutes=0.2, toy_cap=TOY, directory=data,
                say=lines.append)
    row = out[0]["row"]
    assert row["start"] == "points"   # neither its own strategies nor 10-10's are kept
    assert drift(row, me) <= 1e-12


def test_a_killed_re_solve_resumes_with_the_same_iterates(toy_root, monkeypatch):
    root, data = toy_root
    me = tuple(map(tuple, equity_array(load_table("match_equity", directory=data))))
    whole = run_task(Task("4", (9, 9), me, str(root), target=1e-9, max_iterations=30,
                          toy_cap=TOY))
    shutil.rmtree(score_dir(root, "4", (9, 9), TOY))

    real_save = FullSolver.save_checkpoint
    calls = []

    def die_at_second_save(self, directory):
        calls.append(directory)
        if len(calls) == 2:
            raise KeyboardInterrupt   # killed while saving the check at 20 iterations
        return real_save(self, directory)

    monkeypatch.setattr(FullSolver, "save_checkpoint", die_at_second_save)
    with pytest.raises(KeyboardInterrupt):
        run_task(Task("4", (9, 9), me, str(root), target=1e-9, max_iterations=30, toy_cap=TOY))
    progress = json.loads((score_dir(root, "4", (9, 9), TOY) / "progress.json").read_text())
    assert [h[0] for h in progress["history"]] == [10, 20]   # one check ahead of the
    assert progress["base"] == 100                             # checkpoint (10 iterations)
    monkeypatch.setattr(FullSolver, "save_checkpoint", real_save)
    resumed = run_task(Task("4", (9, 9), me, str(root), target=1e-9, max_iterations=30,
                            toy_cap=TOY))
    assert [(c[0], c[2]) for c in resumed["checks"]] == [(c[0], c[2]) for c in whole["checks"]]
    for key in ("value_mao", "exploitability", "iterations", "p_mao_3", "truco_mao"):
        assert resumed["row"][key] == whole["row"][key]


def lab(*args, env=None):
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True,
                          env=env)


def test_lab_solve_match_play_names_the_missing_points_solution(tmp_path):
    out = lab("solve", "match-play", "--vira", "K", "--checkpoints", str(tmp_path))
    assert out.returncode == 2 and out.stdout == ""
    assert f"lab solve full --vira K --checkpoints {tmp_path}` first" in out.stderr
    out = lab("solve", "match-play", "--checkpoints", str(tmp_path), "--minutes", "0")
    assert out.returncode == 2 and "--minutes 0" in out.stderr
    # with another vira's points solution there, it says to start from it
    seven = points_checkpoint(tmp_path, "7")
    seven.mkdir(parents=True)
    (seven / "state.json").write_text("{}")
    out = lab("solve", "match-play", "--vira", "K", "--checkpoints", str(tmp_path))
    assert out.returncode == 2 and out.stdout == ""
    assert f"lab solve full --vira K --checkpoints {tmp_path} --from 7` first" in out.stderr
    # --again names what to solve again
    out = lab("solve", "match-play", "--vira", "7", "--checkpoints", str(tmp_path), "--again")
    assert out.returncode == 2 and "choose them with --vira and --score" in out.stderr


def test_lab_solve_match_play_tables_only_rebuilds_the_mixed_table(tmp_path, monkeypatch):
    data = tmp_path / "data"
    shutil.copytree(REPO_DATA, data, ignore=NOT_COPIED)
    monkeypatch.setenv("LAB_DATA_DIR", str(data))
    out = lab("solve", "match-play", "--tables-only", env={**os.environ})
    assert out.returncode == 0, out.stderr
    mixed = load_table("match_equity_mixed", directory=data)
    points = load_table("match_equity", directory=data)
    assert (mixed["score_aware_viras"] == 0).all() and (mixed["difference"].abs() < 1e-12).all()
    assert (mixed["p_mao_points"] == points["p_mao"]).all()


# ---------------------------------------------------------------- advice that knows the score

@pytest.fixture
def plays_data(tmp_path, monkeypatch):
    """The repository's tables (the stored policies linked, not copied) plus made-up
    re-solves of vira 4 at 9-10 (not solved: the advice's plumbing is under test)."""
    from lab.classes import hand_classes
    from lab.tables.score import PointsLeak, Resolve
    from lab.tables.score_play import hand_rows, play_row, write_mixed_equity, write_plays

    data = tmp_path / "data"
    shutil.copytree(REPO_DATA, data,
                    ignore=shutil.ignore_patterns("full_policy", "score_policy*", *RE_SOLVED))
    (data / "full_policy").symlink_to(REPO_DATA / "full_policy")
    monkeypatch.setenv("LAB_DATA_DIR", str(data))
    n = len(hand_classes("4").labels)
    def by_class(truco, accept, run, total):
        return {"truco_mao": total, "accept_pe": accept, "run_pe": run,
                "raise_pe": 1 - accept - run,
                "by_class_truco_mao": {c: truco for c in range(n)},
                **{f"by_class_{k}_pe": {c: p for c in range(n)} for k, p in (
                    ("accept", accept), ("run", run), ("raise", 1 - accept - run))}}

    moves, points = by_class(0.25, 0.2, 0.75, 0.3), by_class(0.05, 0.4, 0.5, 0.1)
    rs = Resolve((9, 10), 40, 277.0, 0.0019, 0.4124, points, moves)
    outcome = {(seat, v): 0.1 for seat in ("mao", "pe") for v in LADDER}
    pay = (np.linspace(0.5, 1, 5), np.linspace(0.3, 0, 5))
    write_plays([play_row("4", PointsLeak((9, 10), 0.42, 0.05, 0.06), rs, outcome, pay,
                          "10,10")], hand_rows("4", rs), data)
    write_mixed_equity(data)   # lab.hand reads the match equity the lab advises with
    return data


def test_the_hand_measures_and_the_explorer_show_the_score_aware_play(plays_data):
    from lab.dashboards.hand_explorer import sections_html
    from lab.tables.tidy import hand_measures

    m = hand_measures("4c", "5c,3h,Kd", "mao", (9, 10)).set_index("measure")
    assert m.loc["score-aware first: truco", "value"] == 0.25
    assert m.loc["score-aware first: truco", "model"] == SCORE_AWARE_MODEL
    assert m.loc["score_aware_match_equity", "value"] == pytest.approx(0.4124)
    assert m.loc["score_aware_match_equity", "exploitability"] == pytest.approx(0.0019)
    pe = hand_measures("4c", "5c,3h,Kd", "pe", (9, 10)).set_index("measure")
    assert pe.loc["score-aware vs truco: run", "value"] == 0.75
    assert pe.loc["score_aware_match_equity", "value"] == pytest.approx(1 - 0.4124)
    assert not hand_measures("4c", "5c,3h,Kd", "mao", (9, 9))["measure"].str.startswith(
        "score").any()
    page = sections_html(parse_card("4c"), parse_cards("5c,3h,Kd"), "mao", (9, 10))
    assert "Played for the match at this score" in page
    assert "opens with a truco 25.0% of the time instead of" in page
    assert "falls back to points play" in sections_html(parse_card("4c"),
                                                        parse_cards("5c,3h,Kd"), "mao", (9, 9))


def test_the_advice_and_the_coach_say_what_the_score_aware_play_does(plays_data):
    from lab.advice import build_position, score_aware_moves
    from lab.commands.play import score_aware_words

    vira, hand = parse_card("4c"), parse_cards("5c,3h,Kd")
    aware = score_aware_moves(vira, (9, 10), MAO, hand)
    assert aware["truco_mao"] == 0.25 and aware["truco_mao_points"] == 0.05
    assert aware["exploitability"] == pytest.approx(0.0019) and aware["iterations"] == 40
    assert score_aware_moves(vira, (9, 9), MAO, hand) is None
    assert score_aware_moves(parse_card("Kc"), (9, 10), MAO, parse_cards("5c,3h,Qd")) is None
    words = score_aware_words(aware, MAO, (9, 10))
    assert words.startswith("re-solved for the match at 9-10 (exploitability 0.0019 "
                            "match-win probability), a ")
    assert "opens with a truco 25% of the time instead of 5% under points play" in words
    assert build_position(vira, hand, MAO, (9, 10), []).score == (9, 10)


def one_re_solve(tmp_path, viras):
    """A data folder under ``tmp_path`` whose ``score_play`` holds one re-solve (the bundled
    one of vira 4 at 9-10), and stand-ins for the points solves of ``viras`` under
    ``tmp_path`` (`lab solve full --checkpoints`; never loaded)."""
    for vira in viras:
        where = points_checkpoint(tmp_path, vira)
        where.mkdir(parents=True)
        (where / "state.json").write_text("{}")
    data = tmp_path / "data"
    shutil.copytree(REPO_DATA, data, ignore=NOT_COPIED)
    plays, hands = load_plays(REPO_DATA)
    at = ((plays.vira == "4") & (plays.score_mao == 9) & (plays.score_pe == 10),
          (hands.vira == "4") & (hands.score_mao == 9) & (hands.score_pe == 10))
    write_plays(plays[at[0]].to_dict("records"), hands[at[1]].to_dict("records"), data)
    return data


def test_lab_solve_match_play_plans_the_order_from_the_end_of_the_match(tmp_path):
    data = one_re_solve(tmp_path, ("4", "K"))
    env = {**os.environ, "LAB_DATA_DIR": str(data)}
    out = lab("solve", "match-play", "--checkpoints", str(tmp_path), "--plan", "--score", "9,10",
              "--score", "10,10", "--score", "0,0", env=env)
    assert out.returncode == 0, out.stderr
    plan = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(p["vira"], tuple(p["score"])) for p in plan] == [
        ("4", (10, 10)), ("K", (10, 10)), ("4", (9, 10)), ("K", (9, 10)), ("4", (0, 0)),
        ("K", (0, 0))]
    leaks = load_table("score_leak", directory=REPO_DATA)
    mean = leaks[(leaks.score_mao == 9) & (leaks.score_pe == 10)]["leak"].mean()
    assert plan[2]["mean_leak"] == round(mean, 5)
    # vira 4's 9-10 is in score_play (its files are not under tmp_path): finished, with the
    # drift of its payoffs from the match equity there; K's is not re-solved
    assert plan[2]["finished"] and not plan[2]["files"] and plan[2]["drift"] >= 0
    assert plan[2]["stale"] == (plan[2]["drift"] > 1e-4 and plan[2]["exploitability"]
                                + 2 * plan[2]["drift"] > 0.002)
    assert not plan[3]["finished"] and "drift" not in plan[3]
    default = lab("solve", "match-play", "--checkpoints", str(tmp_path), "--plan", env=env)
    scores = {tuple(json.loads(line)["score"]) for line in default.stdout.splitlines()}
    at = leaks.groupby(["score_mao", "score_pe"])["leak"].mean()
    assert scores == {s for s, x in at.items() if x > 0.02}


def test_lab_solve_match_play_at_gives_each_vira_its_own_scores_in_one_sweep(tmp_path):
    """``--at V:M,P`` names each re-solve: the plan holds exactly those, every vira's
    re-solves of a wave together (so no vira's are solved before the higher scores of
    another they lead to); malformed, repeated or mixed with --vira, one error line."""
    data = one_re_solve(tmp_path, ("4", "K"))
    env = {**os.environ, "LAB_DATA_DIR": str(data)}
    out = lab("solve", "match-play", "--checkpoints", str(tmp_path), "--plan", "--at", "4:9,10",
              "--at", "k:10,10", "--at", "4:10,9", "--at", "4:0,0", env=env)
    assert out.returncode == 0, out.stderr
    plan = [(p["vira"], tuple(p["score"])) for p in map(json.loads, out.stdout.splitlines())]
    assert plan[0] == ("K", (10, 10)) and plan[-1] == ("4", (0, 0))
    assert set(plan[1:3]) == {("4", (9, 10)), ("4", (10, 9))} and len(plan) == 4
    for bad, says in ((["--at", "4"], "--at 4: give a vira and a score"),
                      (["--at", ":9,9"], "--at :9,9: give a vira and a score"),
                      (["--at", "4:12,3"], "--score 12,3: the truco ladder"),
                      (["--at", "Z:9,9"], "Z"),
                      (["--at", "4:9,9", "--at", "4:9,9"], "--at 4:9,9: given twice"),
                      (["--at", "4:9,9", "--vira", "4"], "without --vira and --score")):
        out = lab("solve", "match-play", "--checkpoints", str(tmp_path), "--plan", *bad,
                  env=env)
        assert out.returncode == 2 and out.stdout == "", bad
        assert says in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_the_sweep_runs_its_re_solves_as_dask_tasks_with_the_same_results(toy_root, tmp_path):
    from dask.distributed import Client

    from lab.cluster import local_cluster

    root, data = toy_root
    alone = sweep([("4", (8, 10), 0.03)], root, target=0.5, toy_cap=TOY, directory=data,
                  say=lambda line: None, save=False)
    shutil.rmtree(score_dir(root, "4", (8, 10), TOY))
    cluster = local_cluster(1, processes=False)
    try:
        with Client(cluster) as client:
            tasks = sweep([("4", (8, 10), 0.03)], root, target=0.5, toy_cap=TOY,
                          directory=data, say=lambda line: None, save=False, client=client)
    finally:
        cluster.close()
    def unclocked(results):   # everything but the seconds the clock measured
        return [{k: v for k, v in r["row"].items() if k != "seconds"} for r in results]

    assert unclocked(tasks) == unclocked(alone)


def test_the_watcher_says_each_new_check_once(tmp_path):
    from lab.tables.score_sweep import CheckWatcher

    task = Task("4", (9, 9), (), str(tmp_path), target=0.002, toy_cap=TOY)
    where = score_dir(tmp_path, "4", (9, 9), TOY)
    lines = []
    watch = CheckWatcher([task], lines.append)
    watch()                                   # nothing under way yet
    where.mkdir(parents=True)
    checks = [[10, 61.0, 0.0196], [20, 120.4, 0.0084]]
    (where / "progress.json").write_text(json.dumps({"history": checks}))
    watch()
    watch()
    checks.append([30, 181.9, 0.0049])
    (where / "progress.json").write_text(json.dumps({"history": checks}))
    watch()
    assert lines == [f"vira 4 at 9,9: {n} iterations, {s:.0f} s, exploitability {x:.5f} "
                     "match-win probability (target 0.002)" for n, s, x in checks]


def test_a_sweep_starts_again_score_play_tables_built_with_other_settings(tmp_path):
    """Rows re-solved from another points solve (other settings) cannot be kept: the plan
    and the sweep start the tables again, with a note, instead of stopping at them."""
    data = one_re_solve(tmp_path, ("4",))
    manifest = json.loads((data / "score_play.json").read_text())
    manifest["settings"] = dict(manifest["settings"], warm_start="another one")
    (data / "score_play.json").write_text(json.dumps(manifest))
    env = {**os.environ, "LAB_DATA_DIR": str(data)}
    out = lab("solve", "match-play", "--checkpoints", str(tmp_path), "--plan", "--vira", "4",
              "--score", "9,10", env=env)
    assert out.returncode == 0, out.stderr
    assert "note: score_play starts again, the rows on disk cannot be kept (table " \
           "'score_play' is stale" in out.stderr
    plan = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(p["vira"], p["finished"]) for p in plan] == [("4", False)]


def test_a_sweep_that_starts_again_keeps_the_dropped_scores_to_re_solve(tmp_path):
    """Once a sweep with new settings has written its first re-solve, the rows it dropped
    stay due: the rebuild plan names them and its commands re-solve every (vira, score) the
    table held before, until each is written again."""
    data = tmp_path / "data"
    shutil.copytree(REPO_DATA, data, ignore=shutil.ignore_patterns("full_policy*",
                                                                   "score_policy*"))
    manifest = json.loads((data / "score_play.json").read_text())
    manifest["settings"] = dict(manifest["settings"], warm_start="another one")
    (data / "score_play.json").write_text(json.dumps(manifest))
    plays, hands = load_plays(REPO_DATA)
    before = {}
    for v, m, p in plays[["vira", "score_mao", "score_pe"]].itertuples(index=False):
        before.setdefault(v, set()).add((m, p))
    first = (plays.vira == "4") & (plays.score_mao == 10) & (plays.score_pe == 10)
    first_hands = (hands.vira == "4") & (hands.score_mao == 10) & (hands.score_pe == 10)
    write_plays(plays[first].to_dict("records"), hands[first_hands].to_dict("records"), data)

    assert len(load_plays(data)[0]) == 1
    assert len(plays_to_rebuild(data)) == len(plays) - 1
    assert ("4", 10, 10) not in plays_to_rebuild(data)
    assert plays_due(data).startswith("table 'score_play' does not yet hold the re-solves "
                                      "it held before its settings changed: vira 4 at 10-9, ")
    planned = {}
    [command] = step_commands(step_of("match_play"), data)
    for i, word in enumerate(command):
        if word == "--at":
            vira, score = command[i + 1].split(":")
            planned.setdefault(vira, set()).add(tuple(map(int, score.split(","))))
    assert planned == before

    write_plays(plays[~first].to_dict("records"), hands[~first_hands].to_dict("records"), data)
    assert plays_to_rebuild(data) == [] and plays_due(data) is None
    assert "to_rebuild" not in json.loads((data / "score_play.json").read_text())
