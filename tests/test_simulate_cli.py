"""``lab simulate`` through a subprocess: one JSON object, reproducible, clean errors."""

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from lab.rules import PRESETS

ROOT = Path(__file__).parent.parent


def simulate(*args):
    proc = subprocess.run([sys.executable, "-m", "lab", "simulate", *args],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def test_a_fixed_seed_prints_the_same_json_object_twice(tmp_path):
    args = ["--a", "cautious", "--b", "random", "--matches", "40", "--seed", "17"]
    code, out, err = simulate(*args, "--out", str(tmp_path / "m.csv"))
    assert code == 0, err
    assert len(out.splitlines()) == 1
    result = json.loads(out)
    assert result["a_wins"] + result["b_wins"] == result["matches"] == 40
    lo, hi = result["ci95"]
    assert 0 <= lo <= result["a_win_rate"] <= hi <= 1
    assert result["a_win_rate"] == result["a_wins"] / 40
    assert result["hands"] >= 40 * 1 and result["seed"] == 17
    assert "Traceback" not in err
    table = pd.read_csv(tmp_path / "m.csv")
    assert len(table) == 40 and (table["winner"] == "a").sum() == result["a_wins"]
    assert table["hands"].sum() == result["hands"]
    code2, out2, _ = simulate(*args, "--quiet")
    assert code2 == 0 and out2 == out


def test_another_seed_or_bot_changes_the_result():
    base = ["--matches", "30", "--quiet"]
    _, a, _ = simulate("--a", "aggressive", "--b", "random", *base, "--seed", "1")
    _, b, _ = simulate("--a", "aggressive", "--b", "random", *base, "--seed", "2")
    ra, rb = json.loads(a), json.loads(b)
    assert ra.pop("seed") == 1 and rb.pop("seed") == 2
    assert ra != rb  # different deals give different hands or points
    _, c, _ = simulate("--a", "random", "--b", "aggressive", *base, "--seed", "1")
    rc = json.loads(c)
    assert rc["a"] == "random" and rc["a_win_rate"] < ra["a_win_rate"]


def test_house_rules_are_played_and_reported(tmp_path):
    args = ["--a", "random", "--b", "aggressive", "--matches", "60", "--seed", "4", "--quiet"]
    code, out, err = simulate(*args, "--rules", "buteco", "--out", str(tmp_path / "m.csv"))
    assert code == 0, err
    result = json.loads(out)
    assert result["rules"] == {"name": "buteco", **PRESETS["buteco"].items()}
    assert "solver_rules" not in result
    table = pd.read_csv(tmp_path / "m.csv")
    assert len(table) == 60 and result["a_wins"] + result["b_wins"] == 60
    assert (table[["a_points", "b_points"]].max(axis=1) == 12).all()  # every match ended
    assert (table[["a_points", "b_points"]].min(axis=1) < 12).all()
    assert result["hands"] == table["hands"].sum()
    assert result["scoreless_hands"] == table["scoreless_hands"].sum()
    assert 0 <= result["scoreless_hands"] < result["hands"]
    code, out, err = simulate(*args)
    default = json.loads(out)
    assert code == 0 and default["rules"] == {"name": "paulista", **PRESETS["paulista"].items()}
    assert default["scoreless_hands"] == 0
    code, out, err = simulate(*args, "--rule", "eleven_eleven=blind", "--rule",
                              "surrender=answer_only", "--start", "11,11")
    custom = json.loads(out)
    assert code == 0 and custom["rules"]["name"] == "custom"
    assert custom["hands"] == 60  # the blind 11 x 11 decides each match at once


@pytest.mark.parametrize("bad, word", [
    (["--a", "smart", "--b", "random", "--matches", "4"], "smart"),
    (["--a", "random", "--b", "dumb", "--matches", "4"], "dumb"),
    (["--a", "random", "--b", "random", "--matches", "0"], "0"),
    (["--a", "random", "--b", "random", "--matches", "-5"], "-5"),
    (["--a", "random", "--b", "random", "--matches", "2.5"], "2.5"),
    (["--a", "random", "--b", "random", "--matches", "many"], "many"),
    (["--a", "random", "--b", "random", "--matches", "4", "--seed", "x"], "x"),
    (["--a", "random", "--b", "random", "--matches", "4", "--start", "12,1"], "12"),
    (["--a", "random", "--b", "random"], "--matches"),
    (["--a", "random", "--b", "random", "--matches", "9" * 5000], "too large"),
    (["--a", "random", "--b", "random", "--matches", "4", "--seed", str(2**64)],
     f"give at most {2**64 - 1:,}"),
    (["--a", "random", "--b", "random", "--matches", "4", "--workers", "100000"],
     "--workers '100000': give at most"),
])
def test_bad_input_is_one_error_line_and_exit_2(bad, word):
    code, out, err = simulate(*bad)
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and word in err
