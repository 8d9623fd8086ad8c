"""Golden playthroughs: hands worked out by hand from the rules, replayed two ways.

Each ``tests/golden/*.txt`` file is one hand::

    # comment lines; at least one starts with "# why:" and explains the result
    vira: 4d
    mao: 5c,Kh,4h
    pe: 5h,3s,7d
    score: 0,0
    actions: 4h 3s 5h 5c Kh 7d
    expect: {"over": true, "winner": "mao", ...}

and may name house rules in a ``rules: PRESET [KEY=VALUE ...]`` line (the default rules
otherwise). ``expect`` is the ``lab replay`` JSON, written by hand from the rules (never
produced by running the code). Every file is replayed through the ``lab replay`` command
in a subprocess and through the Python API (lab.rules), and both must equal ``expect``.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lab.cards import parse_card
from lab.rules import RULE_CHOICES, SEAT_NAMES, new_hand, parse_action, rule_set

GOLDEN = Path(__file__).parent / "golden"
FILES = sorted(GOLDEN.glob("*.txt"))
KEYS = ("vira", "mao", "pe", "score", "actions", "expect")
OPTIONAL = ("rules",)


def read_golden(path):
    """The fields of a golden file, and its comment lines."""
    fields, comments = {}, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        if line.startswith("#"):
            comments.append(line)
            continue
        key, sep, value = line.partition(":")
        assert sep and key in KEYS + OPTIONAL and key not in fields, \
            f"{path.name}: bad line {line!r}"
        fields[key] = value.strip()
    assert set(KEYS) <= set(fields), f"{path.name}: needs {KEYS}"
    fields["actions"] = fields["actions"].split()
    fields["expect"] = json.loads(fields["expect"])
    preset, *changes = fields.get("rules", "paulista").split()
    fields["rules"] = (preset, changes)
    return fields, comments


def api_outcome(g, rules=None):
    """The contract's JSON built from the public API of lab.rules, without lab.commands
    (under ``rules``, a RuleSet, instead of the file's own when given)."""
    score = tuple(int(x) for x in g["score"].split(","))
    state = new_hand(parse_card(g["vira"]), [parse_card(t) for t in g["mao"].split(",")],
                     [parse_card(t) for t in g["pe"].split(",")], score,
                     rules or rule_set(*g["rules"]))
    for token in g["actions"]:
        state = state.apply(parse_action(token))
    if state.over:
        winner = None if state.winner is None else SEAT_NAMES[state.winner]
        return {"over": True, "winner": winner, "points": state.points,
                "score": list(state.final_score), "rounds": state.round_names(),
                "how": state.how}
    return {"over": False, "to_act": SEAT_NAMES[state.to_act],
            "legal": [str(a) for a in state.legal_actions()], "value": state.value,
            "rounds": state.round_names()}


def test_there_are_golden_files_and_each_says_why():
    assert len(FILES) >= 12
    for path in FILES:
        _, comments = read_golden(path)
        assert any(c.startswith("# why:") for c in comments), path.name


def test_golden_files_cover_every_ending_and_the_stops():
    expects = [read_golden(p)[0]["expect"] for p in FILES]
    hows = {e["how"] for e in expects if e["over"]}
    assert hows == {"cards", "run", "surrender", "eleven_run"}
    assert sum(not e["over"] for e in expects) >= 3
    assert {"tie"} <= {r for e in expects for r in e["rounds"]}
    assert {e["points"] for e in expects if e["over"]} >= {1, 3, 6, 12}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_through_lab_replay(path):
    g, _ = read_golden(path)
    preset, changes = g["rules"]
    cmd = [sys.executable, "-m", "lab", "replay", "--vira", g["vira"], "--mao", g["mao"],
           "--pe", g["pe"], f"--score={g['score']}", "--rules", preset,
           *[arg for change in changes for arg in ("--rule", change)], *g["actions"]]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).parent.parent)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert len(lines) == 1
    got = json.loads(lines[0])
    assert list(got) == list(g["expect"])  # the contract's keys, in the contract's order
    assert got == g["expect"]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_through_the_python_api(path):
    g, _ = read_golden(path)
    assert api_outcome(g) == g["expect"]


def test_golden_files_show_each_house_rule_at_work():
    """For every rule a table may change, at least three files whose outcome changes when
    that rule alone is set back to the default's (so each rule is exercised, not just
    named); and at least one house-rules file whose outcome equals the default's (the
    rule does not reach there)."""
    from dataclasses import replace

    from lab.rules import DEFAULT_RULES

    shown = {key: 0 for key in RULE_CHOICES}
    controls = 0
    for path in FILES:
        g, _ = read_golden(path)
        rules = rule_set(*g["rules"])
        if rules == DEFAULT_RULES:
            continue
        controls += api_outcome(g, DEFAULT_RULES) == g["expect"]
        for key, value in rules.items().items():
            if value != DEFAULT_RULES.items()[key]:
                shown[key] += api_outcome(g, replace(rules, **{key: RULE_CHOICES[key][0]})) \
                    != g["expect"]
    assert min(shown.values()) >= 3, shown
    assert controls >= 1
