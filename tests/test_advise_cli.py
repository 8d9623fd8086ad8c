"""``lab advise`` end to end on the stored data (lab.tables.policies' default location).

The advice runs in this process through ``lab.cli.main`` with captured streams (the vira
4 policy is loaded once, about 1 GB, and numba compiles once); the checks that need no
policy also run as subprocesses. Expected numbers never come from lab.advice: they come
from the rules (what a run, a surrender or a decided last card pays), the solver's own
best-response traversal of the whole game (``FullSolver.traverse(BEST)``), the
``mao_de_onze`` and ``match_equity`` tables, and ``lab replay``.

Runtime: about 1 minute of CPU with tests/test_play_cli.py (mostly the root test's two
traversals of the whole game and the mão de onze and 11 x 11 solves); on the two-core
development machine shared with two long solves that was 3.5 minutes of wall time when
they ran niced, 17 minutes when they did not.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

from lab.cards import DECK, parse_card, parse_cards
from lab.cli import main
from lab.rules import new_hand, parse_action
from lab.tables import TableError

from conftest import in_ci, require_table

ROOT = Path(__file__).parent.parent
VIRA = "4c"
MINE = "5c,3h,Kd"
"""Vira 4c: 5c is the zap (level 12), 3h level 8, Kd level 5."""


def advise(*args):
    """(exit status, stdout, stderr) of ``lab advise ARGS`` run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["advise", *args])
    return code, out.getvalue(), err.getvalue()


def ok(*args) -> dict:
    code, out, err = advise(*args)
    assert code == 0, err
    assert err == ""
    assert out.endswith("\n") and len(out.splitlines()) == 1
    return json.loads(out)


def check_shape(got: dict, model="full-game-points", unit="points per hand") -> None:
    assert list(got) == ["to_act", "legal", "strategy", "ev", "on_path", "model", "unit",
                         "exploitability"] + (["points_play_leak", "score_aware"]
                                              if model == "full-game-points" else [])
    assert list(got["strategy"]) == got["legal"] and list(got["ev"]) == got["legal"]
    assert all(p >= 0 for p in got["strategy"].values())
    assert sum(got["strategy"].values()) == pytest.approx(1.0, abs=1e-9)
    assert all(np.isfinite(v) for v in got["ev"].values())
    assert got["model"] == model and got["unit"] == unit


# ---------------------------------------------------------------- the stored policy


@pytest.fixture(scope="module")
def policy():
    from lab.tables.policies import load_full_policy

    try:
        return load_full_policy("4")
    except TableError as exc:
        message = f"stored full-game policy of vira 4 needed: {exc}"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)


def card_of_level(lv: int, avoid) -> str:
    vira = parse_card(VIRA)
    from lab.cards import level

    for c in DECK:
        if c != vira and c not in avoid and level(c, vira) == lv:
            return str(c)
    raise AssertionError(f"no free card of level {lv}")


def free(lv: int, avoid) -> bool:
    try:
        card_of_level(lv, avoid)
        return True
    except AssertionError:
        return False


def possible_cards(policy, line, avoid=()) -> list:
    """Levels the seat to act plays face up with positive probability for some hand it
    may hold (its reach under the policy above zero), most likely first; only levels
    with a card left outside ``avoid``."""
    d = policy.decision(line.spot)
    reach = line.reach[d.seat]
    mass = {}
    for a, row in zip(d.actions, np.nan_to_num(d.strategy)):
        if isinstance(a, tuple) and a[0] == "card":
            mass[a[1]] = float(row @ reach)
    return [lv for lv, m in sorted(mass.items(), key=lambda x: -x[1])
            if m > 0 and free(lv, avoid)]


def test_at_a_normal_score_the_advice_says_what_points_play_leaks_there(policy):
    """Where no score-aware policy is stored the advice plays for points and gives the
    score_leak table's leak of points play at the asked score (match-win probability),
    small at 0-0 and large near the end of the match (the largest leak of vira 4 among the
    scores without a score-aware policy)."""
    from lab.tables import load_table
    from lab.tables.score_policies import stored_scores

    table = load_table("score_leak", viras=["4"])
    aware = set(stored_scores("4"))
    open_rows = table[[(m, p) not in aware for m, p in zip(table["score_mao"],
                                                          table["score_pe"])]]
    worst = open_rows.loc[open_rows["leak"].idxmax()]
    late = (int(worst["score_mao"]), int(worst["score_pe"]))
    leaks = {}
    for score in ((0, 0), late):
        got = ok("--vira", VIRA, "--hand", MINE, "--seat", "mao", "--score",
                 f"{score[0]},{score[1]}")
        row = table[(table["vira"] == "4") & (table["score_mao"] == score[0])
                    & (table["score_pe"] == score[1])]
        assert got["points_play_leak"] == float(row["leak"].iloc[0])
        leaks[score] = got["points_play_leak"]
    assert leaks[(0, 0)] < 0.005 < 0.03 < leaks[late]


def test_root_advice_and_the_best_response_value(policy):
    from lab.solver.fullgame.records import BEST
    from lab.policy.line import dealt_state

    got = ok("--vira", VIRA, "--hand", MINE, "--seat", "mao")
    check_shape(got)
    assert got["to_act"] == "mao"
    assert got["legal"] == ["5c", "3h", "Kd", "raise", "surrender"]
    assert got["on_path"] is True
    from lab.tables.policies import policy_info

    assert got["exploitability"] == policy_info("4")["exploitability"]
    # the stored strategy of this hand at the root, level by level
    state = dealt_state(policy, parse_cards(MINE, 3), parse_card(VIRA))
    stored = policy.strategy(policy.root(), state)
    assert got["strategy"]["5c"] == pytest.approx(stored[("card", 12)])
    assert got["strategy"]["raise"] == pytest.approx(stored["raise"])
    # surrender pays the accepted value, 1
    assert got["ev"]["surrender"] == -1.0 and got["strategy"]["surrender"] == 0.0
    # the best action's value is the hand's best-response value: the solver's traversal
    # of the whole game with the mão best-responding, per root hand, over its deal weight
    solver = policy.solver()
    cfv = solver.traverse(0, BEST)
    sl = policy.tree.pairs(0, 0)
    hands = policy.tree.pair_hand[sl]
    i = policy.pair_of(0, 0, state)
    best = cfv[i] / solver.weights[0].sum(axis=1)[hands[i]]
    assert max(got["ev"].values()) == pytest.approx(best, rel=1e-6, abs=1e-9)


OPENINGS = ["5c,3h,Kd", "5c,4d,Qh", "3h,2h,Ad", "5h,6s,7d", "Kd,Jh,6c", "2c,2d,Qs"]
"""Hands of the mão to search for a card the stored policy never leads with."""


def test_off_the_path_the_strategy_is_the_best_response(policy):
    from lab.cards import level
    from lab.policy.line import dealt_state

    vira = parse_card(VIRA)
    for text in OPENINGS:
        hand = parse_cards(text, 3)
        stored = policy.strategy(policy.root(), dealt_state(policy, hand, vira))
        never = [a[1] for a, p in stored.items() if isinstance(a, tuple) and p == 0]
        line = policy.start().then(("card", never[0])) if never else None
        # the pé's reply: a card he plays there, lower than the mão's (the mão leads on)
        replies = [lv for lv in possible_cards(policy, line, hand) if lv < never[0]] \
            if never else []
        if replies:
            break
    else:
        pytest.fail(f"none of {OPENINGS} leads a card the policy never leads with")
    mine = next(str(c) for c in hand if level(c, vira) == never[0])
    reply = card_of_level(replies[0], hand)
    got = ok("--vira", VIRA, "--hand", text, "--seat", "mao", mine, reply)
    check_shape(got)
    assert got["on_path"] is False
    best = max(got["ev"], key=lambda a: (got["ev"][a], -got["legal"].index(a)))
    assert got["strategy"] == {a: (1.0 if a == best else 0.0) for a in got["legal"]}
    # in words: labelled, the best response named, no probability given as the solver's
    code, out, err = advise("--text", "--vira", VIRA, "--hand", text, "--seat", "mao", mine,
                            reply)
    assert code == 0, err
    assert "Off the solved path (best response)" in out and "%" not in out
    top = max(got["ev"].values())
    named = [spoken(a) for a in got["legal"] if got["ev"][a] >= top - 1e-9
             and a != "surrender"]
    assert f"Best against its play: {' or '.join(named)}" in out


def test_answer_to_a_raise_pays_the_accepted_value_on_a_run(policy):
    # the pé holds 7d, 6s, Qh; the mão leads a card he plays, the pé plays 6s, the mão
    # (round 1 won unless 6s beats it) raises when he has a hand that raises there
    pe = parse_cards("7d,6s,Qh", 3)
    line = policy.start()
    lead = next(lv for lv in possible_cards(policy, line, pe) if lv > 1)  # beats 6s (1)
    card = card_of_level(lead, pe)
    line = line.then(("card", lead)).then(("card", 1))
    d = policy.decision(line.spot)
    assert "raise" in d.actions and float(np.nan_to_num(
        d.strategy[d.actions.index("raise")]) @ line.reach[d.seat]) > 0, \
        "no mão hand raises here"
    got = ok("--vira", VIRA, "--hand", "7d,6s,Qh", "--seat", "pe", card, "6s", "raise")
    check_shape(got)
    assert got["to_act"] == "pe"
    assert got["legal"] == ["accept", "run", "raise", "surrender"]
    assert got["ev"]["run"] == pytest.approx(-1.0) and got["ev"]["surrender"] == -1.0


def test_the_last_card_is_worth_what_the_rules_say(policy):
    # the pé wins round 1 with the zap, leads his lowest card; the mão beats it with a
    # card he plays there; the mão leads round 3 with a card he plays; the pé follows
    vira = parse_card(VIRA)
    pe = parse_cards("5c,4d,Qh", 3)  # zap, level 0, level 3
    line = policy.start()
    level1 = possible_cards(policy, line, pe)[0]
    lead1 = card_of_level(level1, pe)
    line = line.then(("card", level1)).then(("card", 12)).then(("card", 0))
    seen = pe + (parse_card(lead1),)
    beats = [lv for lv in possible_cards(policy, line, seen) if lv > 0]
    assert beats, "the mão never beats a level-0 card here"
    lead2 = card_of_level(beats[0], seen)
    line = line.then(("card", beats[0]))
    seen += (parse_card(lead2),)
    lead3 = card_of_level(possible_cards(policy, line, seen)[0], seen)
    tokens = [lead1, "5c", "4d", lead2, lead3]
    got = ok("--vira", VIRA, "--hand", "5c,4d,Qh", "--seat", "pe", *tokens)
    check_shape(got)
    assert "Qh" in got["legal"] and "cover:Qh" not in got["legal"]
    # the rules decide the hand once the pé's last card is down
    mao_cards = tuple(parse_cards(f"{lead1},{lead2},{lead3}", 3))
    state = new_hand(vira, mao_cards, pe)
    for t in tokens + ["Qh"]:
        state = state.apply(parse_action(t))
    assert state.over
    assert got["ev"]["Qh"] == pytest.approx(state.points if state.winner == 1
                                            else -state.points)


def never_led(policy, line, seen) -> list:
    """Levels with a free card that the seat to act plays with probability zero for
    every hand it may hold."""
    d = policy.decision(line.spot)
    mass = {a[1]: float(np.nan_to_num(row) @ line.reach[d.seat])
            for a, row in zip(d.actions, d.strategy) if a[0] == "card"}
    return [lv for lv in range(13) if mass.get(lv, 0.0) == 0 and free(lv, seen)]


def test_an_opponent_lead_the_policy_never_plays_cannot_be_valued(policy):
    # the mão leads round 1, or else round 2 (after the pé lost round 1 with 6s), with a
    # card that no hand of his leads with there: the pé's values have nothing to weigh
    pe = parse_cards("7d,6s,Qh", 3)
    line = policy.start()
    tokens, seen = [], pe
    never = never_led(policy, line, seen)
    if not never:
        lead = next(lv for lv in possible_cards(policy, line, pe) if lv > 1)  # beats 6s
        tokens = [card_of_level(lead, pe), "6s"]
        seen += (parse_card(tokens[0]),)
        line = line.then(("card", lead)).then(("card", 1))
        never = never_led(policy, line, seen)
    assert never, "the mão leads every level in rounds 1 and 2"
    tokens.append(card_of_level(never[0], seen))
    code, out, err = advise("--vira", VIRA, "--hand", "7d,6s,Qh", "--seat", "pe", *tokens)
    assert code == 2 and out == "", out
    assert len(err.splitlines()) == 1 and "probability zero" in err, err


# ---------------------------------------------------------------- no policy needed


def test_waiting_and_over_need_no_policy():
    assert ok("--vira", VIRA, "--hand", MINE, "--seat", "pe") == {"to_act": "mao",
                                                                  "waiting": True}
    assert ok("--vira", VIRA, "--hand", MINE, "--seat", "mao", "3h") == {"to_act": "pe",
                                                                         "waiting": True}


REPLAYS = [
    # (asking seat, its hand, the other hand, actions: the other's covers as "cover")
    ("mao", "3h,2h,4c", "7s,6s,5s", ["3h", "7s", "2h", "6s"]),
    ("mao", "3h,2h,4c", "7s,6s,5s", ["3h", "7s", "cover:2h", "cover"]),
    ("pe", "7s,6s,5s", "3h,2h,4c", ["3h", "7s", "cover:2h", "cover:6s"]),
    ("pe", "7s,6s,5s", "3h,2h,4c", ["raise", "run"]),
    ("mao", "3h,2h,4c", "7s,6s,5s", ["raise", "accept", "4c", "raise", "run"]),
    ("mao", "3h,2h,4c", "7s,6s,5s", ["4c", "surrender"]),
]


@pytest.mark.parametrize("seat, hand, other, actions", REPLAYS)
def test_a_finished_hand_is_what_lab_replay_prints(seat, hand, other, actions):
    from lab.commands.replay import replay

    mao, pe = (hand, other) if seat == "mao" else (other, hand)
    shown = [a if a != "cover" else "cover:6s" for a in actions]
    for score in ("0,0", "7,9"):
        got = ok("--vira", "Kc", "--hand", hand, "--seat", seat, "--score", score, *actions)
        assert got == replay("Kc", mao, pe, score, shown)
        assert got["over"] is True


BAD = [
    # (arguments after --vira/--hand/--seat defaults, text the error line names)
    (["--seat", "dealer"], "dealer"),
    (["--seat", "mao", "--vira", "8c"], "8c"),
    (["--seat", "mao", "--vira", "Kc,Qc"], "Kc,Qc"),
    (["--seat", "mao", "--hand", "5c,3h"], "5c,3h"),
    (["--seat", "mao", "--hand", "5c,3h,3h"], "3h"),
    (["--seat", "mao", "--hand", "5c,3h,4c"], "4c"),              # the vira in the hand
    (["--seat", "mao", "--score", "x"], "'x'"),
    (["--seat", "mao", "--score", "-1,0"], "-1,0"),
    (["--seat", "mao", "--score", "12,3"], "12,3"),
    (["--seat", "mao", "7d"], "7d"),                               # not in the hand
    (["--seat", "mao", "cover:3h"], "cover"),                      # no cover in round 1
    (["--seat", "mao", "accept"], "accept"),                       # nothing to accept
    (["--seat", "mao", "raise", "raise", "raise", "raise", "raise"], "raise"),
    (["--seat", "mao", "3h", "3h"], "3h"),                         # the pé shows my card
    (["--seat", "mao", "3h", "4c"], "4c"),                         # the pé shows the vira
    (["--seat", "mao", "3h", "7d", "Kd", "7d"], "7d"),             # the pé shows one twice
    (["--seat", "mao", "3h", "7d", "cover"], "cover"),             # my cover names no card
    (["--seat", "mao", "3h", "5d", "cover", "cover:3h"], "3h"),
    (["--seat", "mao", "surrender", "3h"], "3h"),                  # after the hand is over
    (["--seat", "pe", "--score", "11,3", "3h"], "3h"),             # mão de onze decides first
    (["--seat", "pe", "--score", "11,11", "raise"], "raise"),      # raises locked
    (["--seat", "mao", "fold"], "fold"),
]


@pytest.mark.parametrize("args, token", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_error_line(args, token):
    argv = []
    for option, value in (("--vira", VIRA), ("--hand", MINE)):
        if option not in args:
            argv += [option, value]
    code, out, err = advise(*argv, *args)
    assert code == 2, (out, err)
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert token.lower() in lines[0].lower()


def cli(*args, env=None):
    proc = subprocess.run([sys.executable, "-m", "lab", "advise", *args], capture_output=True,
                          text=True, timeout=120, cwd=ROOT, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def test_as_a_command_bad_input_and_waiting():
    code, out, err = cli("--vira", VIRA, "--hand", MINE, "--seat", "mao", "3h", "3h")
    assert (code, out) == (2, "") and err.count("\n") == 1 and err.startswith("error: ")
    code, out, err = cli("--vira", VIRA, "--hand", MINE, "--seat", "pe")
    assert (code, err) == (0, "") and json.loads(out) == {"to_act": "mao", "waiting": True}


def test_a_missing_policy_names_the_command_that_builds_it(tmp_path):
    env = dict(os.environ, LAB_DATA_DIR=str(tmp_path))
    code, out, err = cli("--vira", VIRA, "--hand", MINE, "--seat", "mao", env=env)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: ")
    assert "lab solve policy" in err


# ---------------------------------------------------------------- mão de onze, 11 x 11


def test_mao_de_onze_holder_decision_matches_the_tables():
    from lab.classes import hand_classes
    from lab.match import after_hand, equity_array

    table = require_table("mao_de_onze")
    me = equity_array(require_table("match_equity"))
    got = ok("--vira", VIRA, "--hand", MINE, "--seat", "pe", "--score", "5,11")
    check_shape(got, "mao-de-onze-exact", "match-win probability")
    assert got["to_act"] == "pe" and got["legal"] == ["accept", "run"]
    label = hand_classes("4").labels[hand_classes("4").class_of_cards(parse_cards(MINE, 3),
                                                                      parse_card(VIRA))]
    row = table[(table["vira"] == "4") & (table["score"] == "5,11") & (table["seat"] == "pe")
                & (table["hand"] == label)].iloc[0]
    assert got["strategy"]["accept"] == pytest.approx(row["accept"], abs=1e-6)  # float32
    # running gives the mão one point: the pé's match-win probability after it
    assert got["ev"]["run"] == pytest.approx(1.0 - after_hand(me, (5, 11), 0, 1))
    # the mão waits for the decision, then plays at 3 points
    assert ok("--vira", VIRA, "--hand", "7d,6s,Qh", "--seat", "mao", "--score", "5,11") == \
        {"to_act": "pe", "waiting": True}
    got = ok("--vira", VIRA, "--hand", "7d,6s,Qh", "--seat", "mao", "--score", "5,11",
             "accept")
    check_shape(got, "mao-de-onze-exact", "match-win probability")
    assert got["legal"] == ["7d", "6s", "Qh", "surrender"]
    assert got["ev"]["surrender"] == pytest.approx(after_hand(me, (5, 11), 1, 3))


def test_eleven_eleven_last_card_and_surrender():
    # 11 x 11: whoever wins the hand wins the match
    got = ok("--vira", VIRA, "--hand", "7d,6s,Qh", "--seat", "mao", "--score", "11,11")
    check_shape(got, "eleven-eleven-exact", "match-win probability")
    assert got["ev"]["surrender"] == 0.0
    # round 1 the mão's Qh beats 7h; round 2 the pé's Ah beats 6s; the pé leads round 3
    # and the mão's 7d beats 4d (he wins the match) or loses to 3h (he loses it)
    for lead, value in (("4d", 1.0), ("3h", 0.0)):
        tokens = ["Qh", "7h", "6s", "Ah", lead]
        got = ok("--vira", VIRA, "--hand", "7d,6s,Qh", "--seat", "mao", "--score", "11,11",
                 *tokens)
        check_shape(got, "eleven-eleven-exact", "match-win probability")
        assert got["legal"] == ["7d", "surrender"] and got["strategy"]["7d"] == 1.0
        assert got["ev"]["7d"] == value


# ---------------------------------------------------------------- in words


def spoken(token: str) -> str:
    """A move as the words name it in a hand worth 1: ``cover:3h`` is ``cover 3h``, a raise
    is a ``truco``."""
    return "truco" if token == "raise" else token.replace("cover:", "cover ")


def words_of(got: dict, score="0-0", seat="mão", held=MINE) -> list[str]:
    """What ``--text`` must say for the advice object ``got`` (from the JSON, not from the
    renderer): the situation, each played move's rounded probability, each move's
    rounded value."""
    return [f"Vira {VIRA}, you are {seat} at {score} holding {held.replace(',', ' ')}.",
            *[f"{a} {p:.0%}" for a, p in got["strategy"].items() if p >= 0.005],
            *[f"{spoken(a)} {v:+.2f}" for a, v in got["ev"].items()],
            f"exploitability {got['exploitability']:.3f}"]


def test_in_words_the_strategy_and_values_rounded(policy):
    args = ["--vira", VIRA, "--hand", MINE.replace(",", " "), "--seat", "mao"]
    got = ok(*args)   # stdout is not a terminal here: JSON
    code, out, err = advise("--text", *args)
    assert code == 0 and err == "", err
    assert not out.lstrip().startswith("{")
    for words in words_of(got):
        assert words in out, (words, out)
    solver = next(line for line in out.splitlines() if line.startswith("Solver ("))
    assert "points per hand" in solver
    assert [a for a, p in got["strategy"].items() if p >= 0.005 and f"{a} " in solver]
    values = next(line for line in out.splitlines() if line.startswith("Values: "))
    shown = [w.rsplit(" ", 1)[0] for w in values[len("Values: "):].rstrip(".").split(", ")]
    order = sorted(got["legal"], key=lambda a: (-got["ev"][a], a == "surrender"))
    assert shown == [spoken(a) for a in order]   # best value first
    assert f"{got['points_play_leak']:.4f} in match-win probability" in out


def test_the_default_is_json_when_piped_and_words_on_a_terminal():
    args = ["--vira", VIRA, "--hand", MINE, "--seat", "pe"]   # waiting: needs no policy
    code, piped, err = cli(*args)
    assert (code, err) == (0, "")
    code, as_json, _ = advise("--json", *args)
    assert code == 0 and piped == as_json == '{"to_act": "mao", "waiting": true}\n'

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    out = Terminal()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        assert main(["advise", *args]) == 0
    assert out.getvalue() == ("Vira 4c, you are pé at 0-0 holding 5c 3h Kd.\n"
                              "The mão is to act: wait for his move.\n")
    code, out, err = advise("--json", "--text", *args)
    assert code == 2 and out == "" and err.startswith("error: ")


def test_a_hand_in_any_of_the_three_forms_gives_the_same_answer():
    outs = {advise("--vira", VIRA, "--hand", hand, "--seat", "mao", "3h")
            for hand in ("5c,3h,Kd", "5c 3h Kd", "5c3hKd")}
    assert outs == {(0, '{"to_act": "pe", "waiting": true}\n', "")}
    code, out, err = advise("--vira", VIRA, "--hand", "5c3hKx", "--seat", "mao")
    assert code == 2 and out == "" and "Ah,3c,4d or 'Ah 3c 4d' or Ah3c4d" in err


POINTS_ADVICE = {
    "to_act": "mao", "legal": ["Ah", "3c", "4d", "raise", "surrender"],
    "strategy": {"Ah": 0.0, "3c": 0.75, "4d": 0.25, "raise": 0.0, "surrender": 0.0},
    "ev": {"Ah": -0.4277, "3c": -0.4211, "4d": -0.4234, "raise": -0.5759, "surrender": -1.0},
    "on_path": True, "model": "full-game-points", "unit": "points per hand",
    "exploitability": 0.0154, "points_play_leak": 0.0005, "score_aware": None}
"""An advice object of the JSON contract, made up: values and exploitability chosen so
that 3c and 4d differ by 0.0023, less than the exploitability."""


def test_the_words_of_a_made_up_advice():
    from lab.advice_text import advice_text

    text = advice_text(POINTS_ADVICE)
    assert "play 3c 75%, 4d 25%" in text and "Ah 0%" not in text
    assert "Values: 3c -0.42, 4d -0.42, Ah -0.43, raise -0.58, surrender -1.00." in text
    assert "3c and 4d are within the policy's exploitability of each other: either is fine" \
        in text
    assert "exploitability 0.015" in text and "leaks 0.0005 in match-win probability" in text
    # a move the solver does not play, worth more: inside the exploitability, or beyond it
    near = dict(POINTS_ADVICE, ev=dict(POINTS_ADVICE["ev"], Ah=-0.4111))
    assert "Ah is worth 0.010 more than the solver's choice, inside the policy's " \
           "exploitability" in advice_text(near)
    far = dict(POINTS_ADVICE, ev=dict(POINTS_ADVICE["ev"], Ah=-0.3))
    assert "Ah is worth 0.121 more than the solver's choice, more than the policy's " \
           "exploitability" in advice_text(far)
    # mixing between values further apart than the exploitability is said too
    wide = dict(POINTS_ADVICE, ev=dict(POINTS_ADVICE["ev"], **{"4d": -0.5}))
    assert "3c and 4d differ in value by 0.079, more than the policy's exploitability" in \
        advice_text(wide)
    assert "either is fine" not in advice_text(wide)


def test_off_the_path_surrender_is_never_named_best_on_a_tie():
    from lab.advice_text import advice_text

    tie = dict(POINTS_ADVICE, on_path=False,
               strategy={a: float(a == "surrender") for a in POINTS_ADVICE["legal"]},
               ev={"Ah": -1.5, "3c": -1.5, "4d": -1.0, "raise": -1.5, "surrender": -1.0})
    text = advice_text(tie)
    assert "Off the solved path (best response)" in text and "%" not in text
    assert "Best against its play: 4d." in text
    assert text.index("4d -1.00") < text.index("surrender -1.00")
    alone = dict(tie, legal=["surrender", "run"], ev={"surrender": -1.0, "run": -1.0},
                 strategy={"surrender": 1.0, "run": 0.0})
    assert "Best against its play: run." in advice_text(alone)


def test_the_words_of_a_match_win_model_and_a_finished_hand():
    from lab.advice_text import advice_text

    eleven = {"to_act": "pe", "legal": ["accept", "run"], "strategy": {"accept": 1.0,
              "run": 0.0}, "ev": {"accept": 0.41234, "run": 0.35}, "on_path": True,
              "model": "mao-de-onze-exact", "unit": "match-win probability",
              "exploitability": 0.00021}
    text = advice_text(eleven)
    assert "mão de onze" in text and "match-win probability" in text
    assert "accept 100%" in text and "Values: accept 0.412, run 0.350." in text
    assert "exploitability 0.0002" in text and "points" not in text
    over = {"over": True, "winner": "pe", "points": 3, "score": [0, 3], "rounds": ["pe"],
            "how": "run"}
    assert "the pé wins 3 points" in advice_text(over) and "0-3" in advice_text(over)
