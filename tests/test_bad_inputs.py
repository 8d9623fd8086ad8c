"""A sweep of bad inputs across every sub-command: each is one ``error:`` line on stderr,
exit status 2, nothing on stdout, no traceback and no work started.

The inputs are generated: every integer, number, vira, card, score and path option of
every command gets each of a list of bad values, plus unknown options and missing
arguments. The data folder is a fresh temporary one, so a command that wrongly started
work could not touch the committed tables.
"""

from __future__ import annotations

import pytest

from lab.cli import main as lab_main

BAD_INTEGERS = ["1_0", "١٢", "x", "", "1.5", "1e3", "0x10", "+-1", "٣", "1 0"]
BAD_COUNTS = ["0", "-3"]
BAD_NUMBERS = ["inf", "nan", "-inf", "x", "", "1_0", "1e999", "٣"]
BAD_VIRAS = ["", "7z", "11", "X", "4c,5c", "zap", " "]
BAD_HANDS = ["", "Qh,3d", "Qh,3d,4s,5s", "Qh,Qh,4s", "Qx,3d,4s", "Qh;3d;4s", "10h,3d,4s"]
BAD_SCORES = ["1_0,0", "-1,0", "12,0", "a,b", "3", "3,4,5", "١,٢", "", "3,", "11,11,"]
BAD_SEATS = ["", "x", "maopé", "0"]


def sweep() -> list[list[str]]:
    cases = []
    vira_hand_seat = ["--vira", "4c", "--hand", "Qh,3d,4s", "--seat", "mao"]
    replay = ["replay", "--vira", "4c", "--mao", "5c,Qh,3d", "--pe", "7c,Kh,2d"]

    def vary(base, option, values):
        for value in values:
            argv = list(base)
            if option in argv:
                argv[argv.index(option) + 1] = value
            else:
                argv += [option, value]
            cases.append(argv)

    # cards, viras, seats and scores
    for cmd in (["equity", *vira_hand_seat], ["ev", *vira_hand_seat],
                ["advise", *vira_hand_seat]):
        vary(cmd, "--vira", BAD_VIRAS[:6])
        vary(cmd, "--hand", BAD_HANDS)
        vary(cmd, "--seat", BAD_SEATS)
    vary(["advise", *vira_hand_seat], "--score", BAD_SCORES)
    vary(replay, "--vira", BAD_VIRAS[:6])
    vary(replay, "--mao", BAD_HANDS)
    vary(replay, "--score", BAD_SCORES)
    bad_rule_sets = ["", "Buteco", "mineiro", "paulista,fpt"]
    bad_rules = ["", "three_ties", "three_ties=", "=mao", "three_ties=dealer", "ties=mao",
                 "surrender=never", "eleven_eleven=3"]
    contradictory = ["--rule", "three_ties=pe", "--rule", "three_ties=nobody"]
    vary(replay, "--rules", bad_rule_sets)
    vary(replay, "--rule", bad_rules)
    cases.append(replay + contradictory)
    cases.append(replay + ["--rules", "buteco", "--rule", "surrender=answer_only", "surrender"])
    vary(["match"], "--score", BAD_SCORES)
    # integers and numbers of the commands that play or solve
    simulate = ["simulate", "--a", "random", "--b", "random", "--matches", "4", "--quiet"]
    for option in ("--matches", "--seed", "--workers"):
        vary(simulate, option, BAD_INTEGERS[:6])
    vary(simulate, "--matches", ["0", "-1", str(10**12)])
    vary(simulate, "--start", BAD_SCORES[:6])
    vary(simulate, "--a", ["", "nobody"])
    vary(simulate, "--rules", bad_rule_sets)
    vary(simulate, "--rule", bad_rules)
    cases.append(simulate + contradictory)
    vary(["play", "--bot", "random"], "--seed", BAD_INTEGERS[:5])
    vary(["play", "--bot", "random"], "--target", BAD_INTEGERS[:3] + ["0", "13"])
    vary(["play"], "--bot", ["", "nobody"])
    vary(["play", "--bot", "random"], "--rules", bad_rule_sets)
    vary(["play", "--bot", "random"], "--rule", bad_rules)
    cases.append(["play", "--bot", "random", *contradictory])
    cases.append(["play", "--coach", "--rules", "fpt"])  # the coach knows the default rules
    vary(["rank", "--vira", "4"], "--hands", BAD_INTEGERS[:5] + ["1"])
    vary(["rank", "--vira", "4"], "--seed", BAD_INTEGERS[:4] + ["-1"])
    vary(["rank"], "--bot", ["nobody"])
    for v in BAD_VIRAS[:5]:
        cases.append(["rank", "--vira", v])
    vary(["rebuild", "--plan"], "--threads", BAD_INTEGERS[:3] + BAD_COUNTS)
    vary(["rebuild", "--plan"], "--jobs", BAD_INTEGERS[:3] + BAD_COUNTS)
    cases.append(["rebuild"])   # every step due, some solve the full game: no --checkpoints
    for cmd in (["solve", "cardplay"], ["solve", "full"], ["solve", "policy"],
                ["solve", "score", "--score", "3,4", "--checkpoints", "nowhere"]):
        for v in BAD_VIRAS:
            cases.append([*cmd, "--vira", v])
    vary(["solve", "cardplay", "--vira", "4"], "--target", BAD_NUMBERS[:6] + ["0", "1"])
    vary(["solve", "cardplay", "--vira", "4"], "--max-iterations", BAD_INTEGERS[:4] + BAD_COUNTS)
    vary(["solve", "cardplay", "--vira", "4"], "--jobs", BAD_INTEGERS[:4] + BAD_COUNTS)
    vary(["solve", "match"], "--jobs", BAD_INTEGERS[:3] + BAD_COUNTS)
    vary(["solve", "full", "--vira", "4"], "--minutes", BAD_NUMBERS + ["0", "-1"])
    vary(["solve", "full", "--vira", "4"], "--target", BAD_NUMBERS[:5] + ["0"])
    vary(["solve", "full", "--vira", "4"], "--threads", BAD_INTEGERS[:3] + BAD_COUNTS)
    vary(["solve", "full", "--vira", "4"], "--workers", BAD_INTEGERS[:3] + BAD_COUNTS)
    vary(["solve", "full", "--vira", "4"], "--storage", ["", "int8"])
    vary(["solve", "full", "--vira", "4"], "--schedule", ["", "cfr+"])
    vary(["solve", "score", "--checkpoints", "nowhere"], "--score", BAD_SCORES[:6] + ["11,0"])
    vary(["solve", "score", "--score", "3,4", "--checkpoints", "nowhere"], "--minutes",
         BAD_NUMBERS[:4] + ["-1"])
    vary(["solve", "policy", "--vira", "4", "--checkpoints", "nowhere"], "--threshold",
         BAD_NUMBERS[:4] + ["0.5", "-0.1"])
    vary(["solve", "policy", "--vira", "4", "--checkpoints", "nowhere"], "--threads",
         BAD_INTEGERS[:3] + BAD_COUNTS)
    vary(["solve", "policy", "--checkpoints", "nowhere"], "--same-as", ["4", "4=z", "=2"])
    vary(["solve", "policy", "--vira", "4", "--score", "10,10", "--checkpoints", "nowhere"],
         "--tolerance", BAD_NUMBERS[:4] + ["1.5", "-0.1"])
    vary(["solve", "policy", "--vira", "4", "--score", "10,10", "--checkpoints", "nowhere"],
         "--reach-tolerance", BAD_NUMBERS[:4] + ["-0.1"])
    cases.append(["solve", "policy", "--vira", "4", "--checkpoints", "nowhere",
                  "--tolerance", "0.1"])   # a tolerance without --score
    cases.append(["solve", "policy", "--vira", "4", "--checkpoints", "nowhere",
                  "--reach-tolerance", "-0.1"])   # a points policy's rounding
    cases.append(["solve", "policy", "--round-points", "--vira", "4"])
    cases.append(["solve", "policy", "--vira", "4"])   # no checkpoints, no --repack
    cases.append(["solve", "policy", "--repack", "--vira", "4"])
    # output paths
    for out in ("OUTDIR", "OUTDIR/" + "x" * 300 + ".csv", "OUTDIR/a file/x.csv", "x.txt", ""):
        cases.append([*simulate, "--out", out])
    for folder in ("OUTDIR/a file", ""):
        cases.append(["publish", folder])
    vary(["publish", "OUTDIR/pages"], "--timeout", BAD_INTEGERS[:3] + ["0"])
    vary(["publish", "OUTDIR/pages"], "--only", ["nobody"])
    # benchmarks
    vary(["bench", "full"], "--target", BAD_NUMBERS[:4] + ["0"])
    vary(["bench", "full"], "--minutes", BAD_NUMBERS[:4])
    vary(["bench", "full"], "--threads", BAD_INTEGERS[:3] + ["0"])
    vary(["bench", "full"], "--toy", ["x", "2,2,x", ""])
    vary(["bench", "full"], "--schedules", ["", "cfr", "dcfr,dcfr", "dcfr,nope", ","])
    vary(["bench", "full"], "--ladder", ["x", "1,3,x", ""])
    vary(["bench", "score"], "--iterations", BAD_INTEGERS[:3] + ["0"])
    vary(["bench", "score"], "--toy", ["x", ""])
    vary(["bench", "policy"], "--lookups", BAD_INTEGERS[:3])
    vary(["bench", "sim"], "--hands", BAD_INTEGERS[:3] + ["0"])
    vary(["bench", "cardplay"], "--jobs", BAD_INTEGERS[:3])
    vary(["bench", "dashboards"], "--runs", BAD_INTEGERS[:3] + ["0"])
    vary(["bench", "dashboards"], "--visits", BAD_INTEGERS[:3] + ["0", "1"])
    cases.append(["bench", "nothing"])
    # unknown options, missing arguments, unknown commands
    for cmd in (["replay"], ["equity"], ["ev"], ["advise"], ["match"], ["simulate"],
                ["solve", "full"], ["bench", "full"], ["bench", "score"], ["bench", "policy"],
                ["rank"], ["publish"], ["play"], ["rebuild"]):
        cases.append([*cmd, "--no-such-option"])
    for cmd in (["replay"], ["equity"], ["ev"], ["advise"], ["match"], ["simulate"],
                ["solve"], ["bench"]):
        cases.append(cmd)
    cases += [["nothing"], ["solve", "nothing"], ["--no-such-option"]]
    return cases


CASES = sweep()


def test_the_sweep_is_large():
    assert len(CASES) >= 250


class WorkStarted(BaseException):
    """Raised by the stand-ins of the functions that start real work."""


WORK = ["lab.tables:build_cardplay_tables", "lab.tables:build_match_tables",
        "lab.tables.full:solve_viras_full", "lab.commands.simulate:run_matches",
        "lab.tables.policies:build_full_policy", "lab.tables.policies:copy_policy",
        "lab.commands.rank:rank_bots", "lab.tables.score:measure_leaks",
        "lab.tables.score:load_points_solution", "lab.commands.play:play_match",
        "lab.commands.publish:execute", "lab.solver.fullgame.solver:ensure_compiled",
        "lab.commands.rebuild:_run_lab"]
"""``module:function`` of each entry point of long work: a bad input must be refused
before any of them is called."""


@pytest.fixture
def fresh_folder(tmp_path, monkeypatch):
    import importlib

    def started(*args, **kwargs):
        raise WorkStarted

    for entry in WORK:
        module, name = entry.split(":")
        monkeypatch.setattr(importlib.import_module(module), name, started)
    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "a file").write_text("")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(a) or "(none)" for a in CASES])
def test_bad_input_is_one_error_line(fresh_folder, capsys, argv):
    argv = [a.replace("OUTDIR", str(fresh_folder)) for a in argv]
    status = lab_main(argv)
    out, err = capsys.readouterr()
    assert (status, out) == (2, ""), err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "internal error" not in err
    assert not (fresh_folder / "data").exists() or not any((fresh_folder / "data").glob("*.parquet"))
