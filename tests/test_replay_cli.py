"""The ``lab replay`` command-line contract (DESIGN.md), through a subprocess.

Good input: one JSON object on stdout with exactly the contract's keys, nothing on
stderr, exit 0. Bad input: exactly one ``error:`` line on stderr naming the offending
token, nothing on stdout, exit 2.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DEAL = ["--vira", "Kc", "--mao", "3h,2h,4c", "--pe", "7s,6s,5s"]
"""Vira Kc (aces are manilhas); the mão's 3h and 2h beat everything the pé holds."""

OVER_KEYS = ["over", "winner", "points", "score", "rounds", "how"]
GOING_KEYS = ["over", "to_act", "legal", "value", "rounds"]


def replay(*args):
    proc = subprocess.run([sys.executable, "-m", "lab", "replay", *args], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def ok(*args):
    code, out, err = replay(*args)
    assert code == 0, err
    assert err == ""
    assert out.endswith("\n") and len(out.splitlines()) == 1
    return json.loads(out)


# ---------------------------------------------------------------- good input


def test_a_finished_hand_prints_the_contract_keys():
    got = ok(*DEAL, "3h", "7s", "2h", "6s")
    assert list(got) == OVER_KEYS
    assert got == {"over": True, "winner": "mao", "points": 1, "score": [1, 0],
                   "rounds": ["mao", "mao"], "how": "cards"}


def test_an_unfinished_hand_prints_the_contract_keys():
    got = ok(*DEAL)
    assert list(got) == GOING_KEYS
    assert got == {"over": False, "to_act": "mao",
                   "legal": ["3h", "2h", "4c", "raise", "surrender"], "value": 1, "rounds": []}


def test_the_default_score_is_0_0():
    assert ok(*DEAL, "surrender")["score"] == [0, 1]
    assert ok(*DEAL, "--score", "0,0", "surrender")["score"] == [0, 1]


def test_score_as_a_separate_argument():
    assert ok(*DEAL, "--score", "7,9", "raise", "run")["score"] == [8, 9]


def test_symbols_and_case_are_accepted():
    got = ok("--vira", "k♣", "--mao", "3♥,2H,4c", "--pe", "7S,6♠,5s", "3H", "7♠", "2h", "6S")
    assert got["winner"] == "mao" and got["rounds"] == ["mao", "mao"]


def test_truco_alias_and_case_insensitive_words():
    assert ok(*DEAL, "TRUCO", "Run") == {"over": True, "winner": "mao", "points": 1,
                                         "score": [1, 0], "rounds": [], "how": "run"}


def test_mao_de_onze_first_action_is_the_holders_decision():
    got = ok(*DEAL, "--score", "3,11")
    assert got == {"over": False, "to_act": "pe", "legal": ["accept", "run"], "value": 3,
                   "rounds": []}
    assert ok(*DEAL, "--score", "3,11", "run")["how"] == "eleven_run"


# ---------------------------------------------------------------- bad input


BAD = [
    # (arguments, text the error line must contain)
    (["--vira", "8c", "--mao", "3h,2h,4c", "--pe", "7s,6s,5s"], "8c"),
    (["--vira", "Kc", "--mao", "3h,2h,9h", "--pe", "7s,6s,5s"], "9h"),
    (["--vira", "Kc", "--mao", "3h,2h,4c", "--pe", "7s,6s,Xs"], "Xs"),
    (["--vira", "Kc", "--mao", "3h,2h,4c", "--pe", "7s,6s,5z"], "5z"),
    ([*DEAL, "Zq"], "Zq"),
    ([*DEAL, "cover:10h"], "10h"),
    ([*DEAL, "fold"], "fold"),
    # a card not in the actor's hand
    ([*DEAL, "7s"], "7s"),
    ([*DEAL, "3h", "2h"], "2h"),
    ([*DEAL, "Ac"], "Ac"),
    # repeated cards: within a hand, across the hands, and played twice
    (["--vira", "Kc", "--mao", "3h,3h,4c", "--pe", "7s,6s,5s"], "3h"),
    (["--vira", "Kc", "--mao", "3h,2h,4c", "--pe", "7s,2H,5s"], "2h"),
    ([*DEAL, "3h", "7s", "3h"], "3h"),
    # the vira in a hand
    (["--vira", "Kc", "--mao", "3h,2h,Kc", "--pe", "7s,6s,5s"], "Kc"),
    (["--vira", "Kc", "--mao", "3h,2h,4c", "--pe", "7s,k♣,5s"], "Kc"),
    # wrong card counts
    (["--vira", "Kc", "--mao", "3h,2h", "--pe", "7s,6s,5s"], "3h,2h"),
    (["--vira", "Kc", "--mao", "3h,2h,4c", "--pe", "7s,6s,5s,4s"], "7s,6s,5s,4s"),
    (["--vira", "Kc,Qc", "--mao", "3h,2h,4c", "--pe", "7s,6s,5s"], "Kc,Qc"),
    # actions the rules forbid at that point
    ([*DEAL, "cover:3h"], "cover:3h"),
    ([*DEAL, "accept"], "accept"),
    ([*DEAL, "run"], "run"),
    ([*DEAL, "raise", "accept", "raise"], "raise"),
    ([*DEAL, "raise", "3h"], "3h"),
    ([*DEAL, "--score", "11,3", "3h"], "3h"),
    ([*DEAL, "--score", "11,3", "accept", "raise"], "raise"),
    ([*DEAL, "--score", "11,11", "truco"], "raise"),
    ([*DEAL, "raise", "raise", "raise", "raise", "raise"], "raise"),
    # actions after the hand is over
    ([*DEAL, "3h", "7s", "2h", "6s", "4c"], "4c"),
    ([*DEAL, "surrender", "surrender"], "surrender"),
    ([*DEAL, "--score", "11,3", "run", "accept"], "accept"),
    # bad scores
    ([*DEAL, "--score", "-1,0"], "-1,0"),
    ([*DEAL, "--score=-1,0"], "-1,0"),
    ([*DEAL, "--score", "12,3"], "12,3"),
    ([*DEAL, "--score", "3,14"], "3,14"),
    ([*DEAL, "--score", "x"], "'x'"),
    ([*DEAL, "--score", "3"], "'3'"),
    ([*DEAL, "--score", "1,2,3"], "1,2,3"),
    ([*DEAL, "--score", "a,b"], "a,b"),
    # a required option missing
    (["--mao", "3h,2h,4c", "--pe", "7s,6s,5s"], "--vira"),
]


@pytest.mark.parametrize("args, token", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_error_line_naming_the_token(args, token):
    code, out, err = replay(*args)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert token.lower() in lines[0].lower()
    assert "Traceback" not in err


def test_an_illegal_action_error_says_why():
    _, _, err = replay(*DEAL, "cover:3h")
    assert err == "error: cover:3h: a card may be covered only from round 2\n"
    _, _, err = replay(*DEAL, "3h", "7s", "2h", "6s", "4c")
    assert err == "error: 4c: the hand is over\n"


def test_the_readme_replay_examples_print_what_the_readme_says():
    """Every ``$ lab replay ...`` line of the README, run as written, prints the line below
    it."""
    import shlex

    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    examples = [(line.strip(), lines[i + 1].strip()) for i, line in enumerate(lines)
                if line.strip().startswith("$ lab replay ")]
    assert len(examples) >= 2
    for command, printed in examples:
        got = ok(*shlex.split(command)[3:])
        assert got == json.loads(printed), command
