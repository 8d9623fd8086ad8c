"""``lab review`` and ``lab profile``: a player's decisions in a match record graded by the
advice service, checked against ``lab.advise`` asked independently; a bot that always runs
from a truco; the JSON contract; bad input. Viras 4 and 7 at normal scores only (the
advice walks each vira's solved game once per machine)."""

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

import lab
from lab.cli import main
from lab.match_record import HandRecord, read_records
from lab.rules import COVER, RUN, Action, new_hand
from lab.sim.bots import Bot, ManiacBot, decide
from lab.sim.view import Table

ROOT = Path(__file__).resolve().parent.parent

HEAD = {"format": "truco-lab/match-record/1", "rules": {"preset": "paulista", "changes": {}}}


def line(match, hand, vira, mao, pe, score, cards_mao, cards_pe, actions):
    return json.dumps({**HEAD, "match": match, "hand": hand, "vira": vira,
                       "players": {"mao": mao, "pe": pe}, "score": score,
                       "cards": {"mao": cards_mao, "pe": cards_pe}, "actions": actions})


LINES = [
    # ann leads Kd, bob calls truco, ann (a manilha and a 3) runs
    line("m0", 1, "4c", "ann", "bob", [0, 0], ["5c", "3h", "Kd"], ["2d", "Qs", "6h"],
         ["Kd", "raise", "run"]),
    # bob opens a truco, ann accepts; ann wins both rounds
    line("m0", 2, "7d", "bob", "ann", [1, 0], ["2d", "Qs", "6h"], ["5c", "3h", "Kd"],
         ["raise", "accept", "2d", "3h", "5c", "cover:Qs"]),
    # a new match from its 4th hand: card play only, ann covers in round 2
    line("m1", 4, "4c", "ann", "bob", [3, 2], ["Ad", "6s", "Jc"], ["7h", "Qd", "Kh"],
         ["Ad", "Kh", "cover:Jc", "7h", "Qd", "6s"]),
    # ann covers her last card in round 3: a move the solved games do not hold (skipped)
    line("m1", 5, "4c", "bob", "ann", [3, 3], ["Ac", "Js", "2h"], ["3d", "Ks", "Qc"],
         ["2h", "3d", "Qc", "Ac", "Js", "cover:Ks"]),
]


@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("review") / "match.jsonl"
    path.write_text("".join(x + "\n" for x in LINES))
    return path


@pytest.fixture(scope="module")
def reviewed(record_file):
    from lab.match_review import review

    return review(record_file, "ann", progress=False)


def expected_decisions(path, player):
    """Walk the file by hand: for each of ``player``'s decisions, ``lab.advise`` on the
    actions before it as he saw them; (hand number, token, loss or None where the advice
    refuses the position)."""
    out = []
    for number, record in enumerate(read_records(path), 1):
        if player not in record.players:
            continue
        seat = record.players.index(player)
        state = new_hand(record.vira, record.cards[0], record.cards[1], record.score)
        seen = []
        for action in record.actions:
            if state.to_act == seat:
                try:
                    advice = lab.advise(str(record.vira), [str(c) for c in record.cards[seat]],
                                        "mao" if seat == 0 else "pe", record.score, seen)
                except ValueError:
                    out.append((number, str(action), None))
                else:
                    if str(action) not in advice["ev"]:
                        out.append((number, str(action), None))
                        seen.append(str(action))
                        state = state.apply(action)
                        continue
                    mix = sum(advice["strategy"][t] * advice["ev"][t] for t in advice["legal"])
                    out.append((number, str(action), max(0.0, mix - advice["ev"][str(action)])))
                seen.append(str(action))
            else:
                seen.append("cover" if action.kind == COVER else str(action))
            state = state.apply(action)
    return out


def test_each_loss_is_the_advices_mix_less_the_move_taken(record_file, reviewed):
    expected = expected_decisions(record_file, "ann")
    graded = [(d.hand, d.token, d.loss) for d in reviewed.decisions]
    skipped = [(s.hand, s.token) for s in reviewed.skipped]
    assert len(graded) + len(skipped) == len(expected)
    assert len(graded) >= 5
    found = iter(graded)
    for hand, token, loss in expected:
        if loss is None:
            assert (hand, token) in skipped
            continue
        got = next(found)
        assert got[:2] == (hand, token)
        assert got[2] == pytest.approx(loss, abs=1e-12)
    run = [d for d in reviewed.decisions if d.action.kind == RUN]
    assert len(run) == 1 and run[0].kind == "answer_truco" and run[0].mark == "blunder"
    kinds = {d.kind for d in reviewed.decisions}
    assert {"lead", "answer_truco", "answer_card"} <= kinds
    assert all(d.unit == "points per hand" and d.zone == "normal" for d in reviewed.decisions)


def test_the_frame_and_the_summary(reviewed, record_file):
    from lab.match_review import review_frame, review_json, review_text

    frame = review_frame(reviewed.decisions)
    assert len(frame) == len(reviewed.decisions)
    assert frame.attrs["units"]["loss"] == "the row's unit column"
    assert frame.attrs["unit"] == ["points per hand"]
    assert (frame["loss"] >= 0).all()
    assert frame["loss"].sum() == pytest.approx(review_json(reviewed)["summary"]["loss_total"])
    summary = review_json(reviewed)["summary"]
    assert summary["loss_per_hand"] == pytest.approx(summary["loss_total"] / 4)
    assert sum(v["decisions"] for v in summary["by_kind"].values()) == summary["decisions"]
    text = review_text(reviewed)
    assert "you ran from a truco" in text and "blunder" in text
    api = lab.review(record_file, player="ann")
    assert api.drop(columns=["strategy", "ev"]).equals(frame.drop(columns=["strategy", "ev"]))
    assert api.attrs["summary"]["decisions"] == summary["decisions"]


class Runner(Bot):
    """Runs from every raise; otherwise plays its first card."""

    name = "runner"

    def act(self, view, rng):
        if view.pending is not None or view.deciding_eleven:
            return Action(RUN)
        return next(a for a in view.legal if a.kind == "play")


def played(vira, runner_cards, maniac_cards, runner_seat, match):
    from lab.cards import parse_card, parse_cards

    vira = parse_card(vira)
    hands = [None, None]
    hands[runner_seat] = parse_cards(runner_cards, 3)
    hands[1 - runner_seat] = parse_cards(maniac_cards, 3)
    table = Table(new_hand(vira, hands[0], hands[1], (0, 0)))
    bots = [None, None]
    bots[runner_seat], bots[1 - runner_seat] = Runner(), ManiacBot()
    rng = random.Random(0)
    while not table.over:
        seat = table.state.to_act
        table.apply(decide(bots[seat], table.view(seat), rng))
    names = ["maniac", "maniac"]
    names[runner_seat] = "runner"
    return HandRecord.of_hand(match, 1, names, hands, table.state)


def test_a_bot_that_always_runs_loses_in_answer_truco():
    records = [played("4c", "5c,5h,3s", "6d,Qs,Kh", 0, "r0"),    # two manilhas and a 3
               played("7d", "Qc,Qh,2s", "4d,5s,Jh", 0, "r1"),
               played("4c", "6c,Js,Qh", "3d,2h,Ad", 1, "r2")]    # a weak hand: running is fine
    df = lab.review(records, player="runner")
    assert set(df["kind"]) <= {"answer_truco", "lead"}
    answers = df[df["kind"] == "answer_truco"]
    assert len(answers) == 3 and (answers["action"] == "run").all()
    assert answers["loss"].iloc[0] > 0.5 and answers["loss"].iloc[1] > 0.5
    assert df.attrs["summary"]["by_kind"]["answer_truco"]["loss"] == \
        pytest.approx(answers["loss"].sum())
    profile = lab.profile(records, "runner")
    strong = profile[(profile["spot"] == "answer_truco") & (profile["bucket"] == "strong")
                     & (profile["move"] == "run")]
    assert strong["count"].tolist() == [2] and strong["frequency"].tolist() == [1.0]
    assert strong["solver"].iloc[0] < strong["ci_lo"].iloc[0]
    assert strong["verdict"].iloc[0].startswith("runs from a raise too often with strong hands")


def test_the_json_contract_from_the_command_line(record_file):
    out = subprocess.run([sys.executable, "-m", "lab", "review", str(record_file), "--player",
                          "ann"], capture_output=True, text=True)   # piped: JSON
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout)
    assert {"player", "hands", "decisions", "summary"} <= set(obj)
    assert obj["player"] == "ann" and obj["hands"] == 4
    for d in obj["decisions"]:
        assert {"hand", "score", "kind", "action", "strategy", "ev", "loss", "unit", "model",
                "mark"} <= set(d)
        assert d["kind"] in ("open_truco", "answer_truco", "raise", "lead", "answer_card",
                             "cover", "mao_de_onze")
        assert d["loss"] >= 0 and d["action"] in d["ev"] and set(d["strategy"]) == set(d["ev"])
        assert len(d["score"]) == 2 and d["mark"] in ("", "mistake", "blunder")
    s = obj["summary"]
    assert {"decisions", "loss_total", "loss_per_hand", "unit", "by_kind"} <= set(s)
    assert s["unit"] == "points per hand" and s["decisions"] == len(obj["decisions"])
    for row in s["by_kind"].values():
        assert set(row) == {"decisions", "loss"}


def test_mixed_units_are_kept_apart(reviewed):
    from dataclasses import replace

    from lab.advice import MATCH_WIN
    from lab.match_review import Review, summary

    first = reviewed.decisions[0]
    other = replace(first, advice=replace(first.advice, unit=MATCH_WIN))
    s = summary(Review("ann", 2, [first, other]))
    assert s["unit"] == ["points per hand", "match-win probability"]
    assert set(s["loss_total"]) == set(s["unit"])
    assert all(isinstance(v["loss"], dict) for v in s["by_kind"].values())


def errors(argv, capsys):
    status = main(argv)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    return status, lines, captured.out


def test_bad_input_is_one_error_line(tmp_path, record_file, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(LINES[0] + "\n" + LINES[1].replace('"accept"', '"acept"') + "\n")
    status, lines, out = errors(["review", str(bad), "--player", "ann"], capsys)
    assert status == 2 and len(lines) == 1 and not out
    assert re.match(rf"error: {re.escape(str(bad))}:2: ", lines[0])

    status, lines, out = errors(["review", str(record_file), "--player", "zed"], capsys)
    assert status == 2 and len(lines) == 1 and "'ann', 'bob'" in lines[0] and not out

    status, lines, _ = errors(["review", str(record_file)], capsys)
    assert status == 2 and "--player" in lines[0]

    status, lines, _ = errors(["review", str(tmp_path / "none.jsonl"), "--player", "a"],
                              capsys)
    assert status == 2 and "cannot read it" in lines[0]

    other = tmp_path / "buteco.jsonl"
    other.write_text(LINES[0].replace('"preset": "paulista"', '"preset": "buteco"') + "\n")
    status, lines, _ = errors(["review", str(other), "--player", "ann"], capsys)
    assert status == 2 and "hand 1" in lines[0] and "buteco" in lines[0]

    save = tmp_path / "p.json"
    status, lines, _ = errors(["profile", str(record_file), "--player", "zed", "--save",
                               str(save)], capsys)
    assert status == 2 and len(lines) == 1 and not save.exists()

    with pytest.raises(ValueError):
        lab.review(record_file, player=3)
    with pytest.raises(ValueError):
        lab.profile(record_file, None)


def test_saved_profiles_merge_by_adding_counts(tmp_path, record_file, capsys):
    save = tmp_path / "ann.json"
    status, _, out = errors(["profile", str(record_file), "--player", "ann", "--save",
                             str(save), "--json"], capsys)
    assert status == 0
    once = json.loads(out)
    status, _, out = errors(["profile", str(record_file), str(save), "--player", "ann",
                             "--json"], capsys)
    twice = json.loads(out)
    assert twice["hands"] == 2 * once["hands"]
    for a, b in zip(once["rows"], twice["rows"]):
        assert (a["spot"], a["bucket"], a["move"]) == (b["spot"], b["bucket"], b["move"])
        assert b["count"] == 2 * a["count"] and b["decisions"] == 2 * a["decisions"]
        if a["solver"] is None:
            assert b["solver"] is None
        else:
            assert b["solver"] == pytest.approx(a["solver"])


def test_the_readme_example_runs():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### Review a played match"):]
    code = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})


def bots_hand(vira, cards, names, match, bots=None):
    """One hand at 0-0 of the bots ``names`` (mão's, pé's; or the ``bots`` given, under
    those names) with ``cards`` dealt, as a record."""
    from lab.sim.bots import make_bot

    table = Table(new_hand(vira, cards[0], cards[1], (0, 0)))
    bots = [make_bot(name) for name in names] if bots is None else bots
    rng = random.Random(len(match))
    while not table.over:
        seat = table.state.to_act
        table.apply(decide(bots[seat], table.view(seat), rng))
    return HandRecord.of_hand(match, 1, list(names), cards, table.state)


def move_rate(profile, spot, move):
    """The player's frequency of ``move`` over every bucket of ``spot``."""
    cells = profile[profile["spot"] == spot]
    return cells[cells["move"] == move]["count"].sum() / cells.groupby("bucket")[
        "decisions"].first().sum()


def deals(n, seed, viras="47"):
    """``n`` random deals ``(vira, (mão's cards, pé's cards))`` of the ``viras``."""
    from lab.cards import DECK

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        cards = list(DECK)
        rng.shuffle(cards)
        if cards[0].rank_char in viras:
            out.append((cards[0], (tuple(cards[1:4]), tuple(cards[4:7]))))
    return out


def test_the_solver_bot_reviewed_against_itself_loses_within_its_exploitability():
    """The solver bot against itself over 200 hands (viras 4 and 7 at 0-0): its moves are
    drawn from the stored strategy, so its mean loss per decision is the gap between the
    values of the moves it mixes, within the policies' exploitability of zero (points per
    hand). Every vira and score over 2,000 hands: ``lab bench review --bots solver,solver
    --hands 2000``."""
    from lab.ranking import command_bot
    from lab.tables.policies import load_full_policy

    bot = command_bot("solver")
    records = [bots_hand(vira, cards, ("solver-a", "solver-b"), f"s{i}", bots=(bot, bot))
               for i, (vira, cards) in enumerate(deals(200, 5))]
    df = lab.review(records, player="solver-a")
    assert set(df["unit"]) == {"points per hand"} and len(df) > 400
    bound = max(load_full_policy(v).exploitability for v in "47")
    assert 0.0 <= df["loss"].mean() <= bound
    assert (df["mark"] != "blunder").all()


def test_cautious_and_aggressive_profiles_differ_as_their_code_says():
    """``cautious`` raises only with a manilha, answers a raise only with a manilha or a 3
    and leads its weakest card; ``aggressive`` raises with any 2 or better, runs only with
    an all-weak hand and leads its strongest. Their profiles over the same 24 deals (viras
    4 and 7, seats swapped every hand) show each of those differences."""
    records = [bots_hand(vira, cards, ("cautious", "aggressive")[::1 if i % 2 else -1],
                         f"c{i}") for i, (vira, cards) in enumerate(deals(24, 11))]
    cautious, aggressive = lab.profile(records, "cautious"), lab.profile(records, "aggressive")
    assert move_rate(aggressive, "open_truco", "raise") > \
        move_rate(cautious, "open_truco", "raise") + 0.2
    assert move_rate(cautious, "answer_truco", "run") > \
        move_rate(aggressive, "answer_truco", "run") + 0.2
    assert move_rate(aggressive, "lead", "strongest") > move_rate(cautious, "lead", "strongest")
    assert move_rate(cautious, "lead", "weakest") > move_rate(aggressive, "lead", "weakest")
