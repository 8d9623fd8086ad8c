"""A sweep of bad inputs across every sub-command: each is one ``error:`` line on stderr,
exit status 2, nothing on stdout, no traceback and no work started.

The inputs are generated: every integer, number, vira, card, score and path option of
every command gets each of a list of bad values, plus unknown options and missing
arguments; every number option of every command (found in its parser) gets a number of
5,000 digits and digits that are not ASCII, and every count option a value past its upper
bound. The data folder is a fresh temporary one, so a command that wrongly started work
could not touch the committed tables, and a refused command leaves nothing in it.

The same holds at ``lab play``'s prompt (each bad answer refused and asked again, the
session going on) and in the public API (each bad argument one ValueError line).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lab import options
from lab.cli import COMMANDS, build_parser
from lab.cli import main as lab_main

ROOT = Path(__file__).resolve().parent.parent

BAD_INTEGERS = ["1_0", "١٢", "x", "", "1.5", "1e3", "0x10", "+-1", "٣", "1 0"]
BAD_COUNTS = ["0", "-3"]
BAD_NUMBERS = ["inf", "nan", "-inf", "x", "", "1_0", "1e999", "٣"]
BAD_VIRAS = ["", "7z", "11", "X", "4c,5c", "zap", " "]
BAD_HANDS = ["", "Qh,3d", "Qh,3d,4s,5s", "Qh,Qh,4s", "Qx,3d,4s", "Qh;3d;4s", "10h,3d,4s"]
BAD_SCORES = ["1_0,0", "-1,0", "12,0", "a,b", "3", "3,4,5", "١,٢", "", "3,", "11,11,"]
BAD_SEATS = ["", "x", "maopé", "0"]
HUGE = "9" * 5000  # Python refuses to read an int of more than 4,300 digits
NOT_ASCII_DIGITS = ["１２", "²", "٣", "߃", "-١"]  # full-width, superscript, Arabic-Indic, N'Ko
PAST_ANY_BOUND = str(2**64)  # past every bound: counts, seeds, seconds


def number_options():
    """(command words, option, type) of every option of every command read as a number
    by its parser (sub-commands included)."""
    found = []

    def walk(parser, words):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, words + [name])
            elif action.option_strings and getattr(action.type, "__module__", "") == \
                    options.__name__:
                found.append((words, action.option_strings[0], action.type))

    for name in COMMANDS:
        top = build_parser(name)
        commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
        walk(commands.choices[name], [name])
    return found


COUNTED = {options.count, options.natural, options.seed, options.processes}
"""The option types that are integers with an upper bound (and :func:`options.bounded`)."""


def is_counted(kind) -> bool:
    return kind in COUNTED or getattr(kind, "__qualname__", "").startswith("bounded.")


READ_BY_HAND = [(["simulate", "--a", "random", "--b", "random", "--matches", "4", "--quiet"],
                 option) for option in ("--matches", "--seed", "--workers")] + \
    [(["rank", "--vira", "4"], option) for option in ("--hands", "--seed")]
"""Integer options a command reads itself (after parsing): command line, option."""


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
    # every number option: 5,000 digits, digits that are not ASCII; every count: its bound
    for words, option, kind in number_options():
        vary(words, option, [HUGE, "-" + HUGE, *NOT_ASCII_DIGITS])
        if is_counted(kind):
            vary(words, option, [PAST_ANY_BOUND])
    for argv, option in READ_BY_HAND:
        vary(argv, option, [HUGE, *NOT_ASCII_DIGITS])
    simulate = READ_BY_HAND[0][0]
    vary(simulate, "--matches", [PAST_ANY_BOUND])
    vary(simulate, "--seed", [str(2**64)])
    vary(simulate, "--workers", [str(options.MAX_PROCESSES + 1)])
    vary(simulate, "--start", [f"{HUGE},0", "0,١", "１,0"])
    vary(["play", "--bot", "random"], "--seed", [str(2**64)])
    vary(["ev", "--vira", "4c", "--hand", "Qh,3d,4s", "--seat", "mao"], "--solve-minutes",
         ["1e6"])
    for bench, option in (("full", "--threads"), ("score", "--iterations"),
                          ("policy", "--lookups"), ("sim", "--hands"), ("cardplay", "--jobs"),
                          ("dashboards", "--runs"), ("match-play", "--matches")):
        vary(["bench", bench], option, [HUGE, "١٢"])
    return cases


CASES = sweep()


def test_the_sweep_is_large():
    assert len(CASES) >= 250


def test_the_sweep_finds_every_number_option():
    found = {(" ".join(words), option) for words, option, _ in number_options()}
    assert {("play", "--target"), ("publish", "--timeout"), ("solve full", "--threads"),
            ("ev", "--solve-minutes"), ("solve policy", "--threads")} <= found
    counted = {(" ".join(words), option) for words, option, kind in number_options()
               if is_counted(kind)}
    assert {("play", "--seed"), ("publish", "--timeout"), ("whatif", "--jobs")} <= counted


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


def case_id(argv) -> str:
    return " ".join(a if len(a) <= 40 else f"{a[:12]}...({len(a)})" for a in argv) or "(none)"


@pytest.mark.parametrize("argv", CASES, ids=[case_id(a) for a in CASES])
def test_bad_input_is_one_error_line(fresh_folder, capsys, argv):
    argv = [a.replace("OUTDIR", str(fresh_folder)) for a in argv]
    before = sorted(p.name for p in fresh_folder.iterdir())
    status = lab_main(argv)
    out, err = capsys.readouterr()
    assert (status, out) == (2, ""), err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert len(err) < 1000, err  # a pasted value is shortened, not echoed whole
    assert "Traceback" not in err and "internal error" not in err
    assert not (fresh_folder / "data").exists() or not any((fresh_folder / "data").glob("*.parquet"))
    left = sorted(p.name for p in fresh_folder.iterdir() if p.name != "data")
    assert left == before, "a refused command left something behind"


def test_a_publish_stopped_before_its_first_page_leaves_no_folder(fresh_folder, monkeypatch,
                                                                   capsys):
    from lab.commands import publish
    from lab.errors import InputError

    def failing(path, timeout):
        raise InputError(f"{path.name}: a cell failed")

    monkeypatch.setattr(publish, "execute", failing)
    assert lab_main(["publish", str(fresh_folder / "pages"), "--only", "tour"]) == 2
    assert "tour.ipynb: a cell failed" in capsys.readouterr().err
    assert not (fresh_folder / "pages").exists()
    (fresh_folder / "kept").mkdir()  # a folder that was there before stays
    assert lab_main(["publish", str(fresh_folder / "kept"), "--only", "tour"]) == 2
    assert (fresh_folder / "kept").is_dir()


# ---------------------------------------------------------------- the play prompt

BAD_ANSWERS = ["١", "３", "²", "¹²", "٣٣", "01", "0", "99", "-1", "+1", "1.0", HUGE,
               "x" * 100_000, "cover:", "\x00", "\u202e1", "truco!", "surrender" * 3]
"""Answers ``lab play``'s prompt does not offer."""


def test_the_play_prompt_refuses_every_bad_answer_and_asks_again():
    answers = BAD_ANSWERS
    stdin = ("\n".join(answers) + "\n").encode() + b"\xff\xfe\x80\n" + b"1\n" * 400
    proc = subprocess.run([sys.executable, "-m", "lab", "play", "--bot", "random", "--seed",
                           "3", "--first", "you"], input=stdin, capture_output=True,
                          timeout=120, cwd=ROOT,   # strict decoding: bytes that are not text
                          env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"})
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 0 and err == "", err
    first_hand = out.split("you: ", 1)[0]
    # every bad answer (and the bytes that are not text) refused with a reason, then asked
    # again: one prompt per answer, one more for the move taken
    assert first_hand.count("your move> ") == len(answers) + 2
    refusals = [line for line in first_hand.split("your move> ")[1:] if line.strip()]
    assert len(refusals) == len(answers) + 1
    assert all(len(line) < 200 for line in refusals)
    assert out.rstrip().splitlines()[-1].startswith(("You win the match", "The bot wins"))


# ---------------------------------------------------------------- the public API

BAD_HAND_ARGUMENTS = [
    dict(vira=None), dict(vira=4), dict(vira=True), dict(vira=b"4c"), dict(vira="4" * 5000),
    dict(vira=["4c"]), dict(cards=None), dict(cards=5), dict(cards=True), dict(cards=b"5c,3h,Kd"),
    dict(cards=iter(["5c", "3h", "Kd"])), dict(cards={"5c": 1, "3h": 2, "Kd": 3}),
    dict(cards=["5c", 3, "Kd"]), dict(cards=["5c", None, "Kd"]), dict(cards=["5c"] * 5000),
    dict(cards="5c," * 5000), dict(cards=["5c", "3h", 10**5000]), dict(seat=None),
    dict(seat=0), dict(seat=True), dict(seat="x" * 5000), dict(score=(True, 0)),
    dict(score=(0, False)), dict(score=(np.bool_(True), 0)), dict(score=(10**5000, 0)),
    dict(score=(2**64, 0)), dict(score=(-(10**5000), 0)), dict(score=(1.0, 0)),
    dict(score=(float("nan"), 0)), dict(score=(float("inf"), 0)), dict(score=(np.float64(3), 0)),
    dict(score=(1 + 0j, 0)), dict(score=("3", 4)), dict(score=(None, 0)), dict(score=None),
    dict(score="3,4"), dict(score=3), dict(score=(3,)), dict(score=(1, 2, 3)),
    dict(score={0: 1, 1: 2}), dict(score=np.array([[0, 0]])), dict(score=(12, 0)),
    dict(score=(-1, 0)),
]


@pytest.mark.parametrize("bad", BAD_HAND_ARGUMENTS, ids=lambda bad: next(iter(bad)))
def test_every_bad_argument_of_lab_hand_is_one_value_error_line(bad):
    import lab

    arguments = dict(vira="4c", cards="5c,3h,Kd", seat="mao", score=(0, 0))
    arguments.update(bad)
    with pytest.raises(ValueError) as info:   # never TypeError, OverflowError, ...
        lab.hand(**arguments)
    message = str(info.value)
    assert type(info.value).__name__ == "InputError"  # the lab's own, not a stray one
    assert message and "\n" not in message and len(message) < 300, message


@pytest.mark.parametrize("call", [
    lambda lab: lab.load(None), lambda lab: lab.load(True), lambda lab: lab.load(["cardplay"]),
    lambda lab: lab.load(b"cardplay"), lambda lab: lab.load(), lambda lab: lab.load("a", "b"),
    lambda lab: lab.match_equity(3), lambda lab: lab.match_equity(model="points"),
    lambda lab: lab.hand(), lambda lab: lab.hand("4c"),
    lambda lab: lab.hand("4c", "5c,3h,Kd", "mao", (0, 0), 1),
    lambda lab: lab.hand("4c", "5c,3h,Kd", sit="pe"),
], ids=["load None", "load True", "load list", "load bytes", "load nothing", "load two",
        "match_equity 3", "match_equity model", "hand nothing", "hand vira only",
        "hand five", "hand unknown name"])
def test_every_bad_call_of_the_api_is_one_value_error_line(call):
    import lab

    with pytest.raises(ValueError) as info:
        call(lab)
    message = str(info.value)
    assert type(info.value).__name__ == "InputError"
    assert message and "\n" not in message and len(message) < 300, message
