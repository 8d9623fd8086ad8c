"""`lab ev` (points EV in the full game) through a subprocess: its JSON against the tables in
data/, and bad input as one `error:` line on stderr, nothing on stdout, exit status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from lab.cards import parse_card, parse_cards
from lab.classes import hand_classes
from lab.tables import data_dir


def lab(*args, env=None):
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120)


def test_ev_reads_the_solved_table():
    out = lab("ev", "--vira", "4c", "--hand", "5c,3h,Kd", "--seat", "mao")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    ev = pd.read_parquet(data_dir() / "full_ev.parquet")
    label = hand_classes("4").labels[hand_classes("4").class_of_cards(
        parse_cards("5c,3h,Kd"), parse_card("4c"))]
    row = ev[(ev.vira == "4") & (ev.seat == "mao") & (ev.hand == label)].iloc[0]
    assert got["hand"] == label == "zap 3 K"
    assert got["ev"] == pytest.approx(row["ev"])
    assert got["exploitability"] == pytest.approx(row["exploitability"])
    first = got["strategy"]["first"]
    assert sum(first.values()) == pytest.approx(1.0, abs=1e-5)
    assert set(first) <= {"truco", "play zap", "play 3", "play K"}


def test_ev_of_the_pe_has_its_first_decisions():
    out = lab("ev", "--vira", "4c", "--hand", "4h,5d,6s", "--seat", "pe")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert set(got["strategy"]) == {"vs_truco", "first_after_card"}
    assert set(got["strategy"]["vs_truco"]) == {"accept", "run", "raise"}
    assert sum(got["strategy"]["vs_truco"].values()) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("args, word", [
    (["--vira", "4x", "--hand", "5c,3h,Kd", "--seat", "mao"], "4x"),
    (["--vira", "4c", "--hand", "5c,5c,Kd", "--seat", "mao"], "repeated"),
    (["--vira", "4c", "--hand", "5c,3h", "--seat", "mao"], "3 cards"),
    (["--vira", "4c", "--hand", "4c,3h,Kd", "--seat", "mao"], "vira"),
    (["--vira", "4c", "--hand", "5c,3h,Kd", "--seat", "dealer"], "seat"),
    (["--vira", "4c", "--hand", "5c,3h,Kd", "--seat", "mao", "--solve-minutes", "0"], "positive"),
])
def test_bad_input_is_one_error_line(args, word):
    out = lab("ev", *args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and word in lines[0]


def test_a_vira_without_a_table_names_the_command_that_solves_it(tmp_path):
    out = lab("ev", "--vira", "Qc", "--hand", "5c,3h,Kd", "--seat", "mao",
              env={"LAB_DATA_DIR": str(tmp_path)})
    assert out.returncode == 2 and out.stdout == ""
    line = out.stderr.strip()
    assert line.startswith("error:") and len(line.splitlines()) == 1
    assert "lab solve full" in line


@pytest.mark.parametrize("option", ["--threads", "--workers"])
def test_lab_solve_full_refuses_fewer_than_one(option):
    out = lab("solve", "full", "--vira", "4", option, "0")
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
    assert f"{option}: '0': give at least 1" in lines[0]


@pytest.mark.parametrize("extra, words", [
    ([], ["--from needs --checkpoints DIR", "vira 7"]),
    (["--checkpoints", "CK"], ["--from 7:", "holds no solve of vira 7",
                               "`lab solve full --vira 7 --checkpoints CK`"]),
])
def test_lab_solve_full_from_a_vira_without_its_solve_says_how_to_get_one(tmp_path, extra,
                                                                            words):
    ck = tmp_path / "ck"
    extra = [str(ck) if x == "CK" else x for x in extra]
    out = lab("solve", "full", "--vira", "6", "--from", "7c", *extra,
              env={"LAB_DATA_DIR": str(tmp_path / "data")})
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
    for word in words:
        assert word.replace("CK", str(ck)) in lines[0]
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())


def test_the_stored_solves_of_viras_2_and_3_are_one_game_under_two_names():
    # solved separately, vira 2's and vira 3's rows hold the same numbers, hand by hand:
    # two 2s and a 4 with vira 2 are two 3s and a 5 with vira 3
    summary = pd.read_parquet(data_dir() / "full_summary.parquet").set_index("vira")
    numbers = summary.columns.drop("seconds")
    assert summary.loc["2", numbers].equals(summary.loc["3", numbers])
    ev = pd.read_parquet(data_dir() / "full_ev.parquet").set_index(["vira", "seat", "hand"])
    assert ev.loc[("3", "mao", "3 3 5")].equals(ev.loc[("2", "mao", "2 2 4")])
    rename = dict(zip(hand_classes("2").labels, hand_classes("3").labels))
    two = ev.loc["2"].rename(index=rename, level="hand")
    assert two.sort_index().equals(ev.loc["3"].sort_index())
