"""Match records (``docs/match_records.md``, ``lab/match_record.py``): what ``lab play`` and
``lab simulate --record`` write reads back identically and replays to its recorded results;
every malformed line is one ``FILE:LINE: problem`` error; a seat's unknown cards read."""

from __future__ import annotations

import io
import json

import pytest

from lab.cards import parse_cards
from lab.cli import build_parser, main
from lab.errors import InputError
from lab.match_record import (FORMAT, HandRecord, append_record, read_records,
                              records_from_lines, replay_record, write_records)
from lab.rules import MAO, PE, PRESETS, SEAT_NAMES, TARGET


@pytest.fixture(autouse=True)
def history_in_tmp(tmp_path, monkeypatch):
    """Matches played here are saved under ``tmp_path``, never in the real history folder."""
    monkeypatch.setenv("LAB_HISTORY_DIR", str(tmp_path / "history"))


def play(answers: str, *args) -> tuple[int, str]:
    """(exit status, transcript) of ``lab play ARGS`` run in this process."""
    from lab.commands import play as command

    parsed = build_parser("play").parse_args(["play", *args])
    out = io.StringIO()
    return command.run(parsed, io.StringIO(answers), out), out.getvalue()


def check_replays(records) -> None:
    """Every hand replays to its recorded result; each match's hands follow on."""
    for record in records:
        assert record.result is not None
        state = replay_record(record)
        assert (state.winner, state.points) == record.result


def assert_round_trip(path, tmp_path) -> list[HandRecord]:
    """read -> write gives the same bytes, and each line's object the same record."""
    records = read_records(path)
    again = tmp_path / "again.jsonl"
    write_records(again, records)
    assert again.read_bytes() == path.read_bytes()
    assert read_records(again) == records
    assert [HandRecord.from_json(r.to_json()) for r in records] == records
    lines = path.read_text().splitlines()
    assert [r.to_json() for r in records] == lines
    assert all(json.loads(line)["format"] == FORMAT for line in lines)
    return records


# ---------------------------------------------------------------- what the commands write


def test_a_played_match_is_saved_and_reads_back(tmp_path):
    path = tmp_path / "match.jsonl"
    code, out = play("1\n" * 400, "--bot", "random", "--seed", "12", "--first", "you",
                     "--save", str(path), "--name", "ana")
    assert code == 0
    hands = int(out.split(" after ")[-1].split()[0])
    assert f"Match saved to {path} ({hands} hands)." in out.splitlines()
    records = assert_round_trip(path, tmp_path)
    check_replays(records)
    assert len(records) == hands and [r.hand for r in records] == list(range(1, hands + 1))
    assert len({r.match for r in records}) == 1 and records[0].match.endswith("-seed12")
    assert records[0].players == ("ana", "random")   # you were mão first; the mão alternates
    assert all(r.players == (("ana", "random") if r.hand % 2 else ("random", "ana"))
               for r in records)
    assert all(None not in r.cards for r in records)   # both seats' cards are known
    final = replay_record(records[-1]).final_score
    assert max(final) == TARGET
    # the transcript's first hand: your cards, the vira, and your first move
    first = out.split("--- hand 2")[0]
    assert f"vira {records[0].vira} " in first
    assert "your cards: " + "  ".join(map(str, records[0].cards[MAO])) in first
    assert f"you: {records[0].actions[0]}" in first


def test_without_save_the_match_goes_to_the_history_folder(tmp_path):
    history = tmp_path / "history"
    code, out = play("1\n" * 3, "--bot", "random", "--seed", "7")
    assert code == 0 and out.rstrip().endswith("bye (end of input)")
    [saved] = history.iterdir()
    assert saved.name.endswith("-seed7.jsonl")
    assert f"Match saved to {saved} (1 hand)." in out.splitlines()
    [record] = assert_round_trip(saved, tmp_path)
    check_replays([record])
    assert "you" in record.players and "random" in record.players
    # a session that ends before any hand is over saves nothing and says nothing
    code, out = play("", "--bot", "random", "--seed", "8")
    assert code == 0 and "saved" not in out and len(list(history.iterdir())) == 1


def test_a_history_folder_that_cannot_be_written_is_said_once_and_play_goes_on(
        tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("LAB_HISTORY_DIR", str(blocked / "history"))
    code, out = play("1\n" * 400, "--bot", "random", "--seed", "12", "--first", "you")
    assert code == 0 and out.count("could not save the match (") == 1
    assert "playing on unsaved" in out and "Match saved" not in out
    assert out.rstrip().splitlines()[-1].startswith(("You win the match", "The bot wins"))


def test_play_refuses_a_bad_save_file_or_name_before_playing(tmp_path):
    for args, words in ((["--save", str(tmp_path / "m.csv")], "write a .jsonl file"),
                        (["--save", str(tmp_path)], "that is a folder"),
                        (["--name", "random"], "the bot is named random"),
                        (["--name", " "], "--name")):
        assert main(["play", "--bot", "random", *args]) == 2
    assert not (tmp_path / "m.csv").exists() and not (tmp_path / "history").exists()


def test_simulated_matches_are_recorded_in_order_and_read_back(tmp_path, capsys):
    path = tmp_path / "sim.jsonl"
    assert main(["simulate", "--a", "random", "--b", "cautious", "--matches", "2", "--seed",
                 "3", "--workers", "1", "--quiet", "--record", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    records = assert_round_trip(path, tmp_path)
    check_replays(records)
    assert len(records) == summary["hands"]
    assert [r.match for r in records] == sorted((r.match for r in records),
                                                key=lambda m: int(m[1:]))
    assert {r.match for r in records} == {"m0", "m1"}
    assert all(set(r.players) == {"random", "cautious"} and None not in r.cards
               for r in records)
    wins = {"random": 0, "cautious": 0}
    for match in ("m0", "m1"):
        hands = [r for r in records if r.match == match]
        assert [r.hand for r in hands] == list(range(1, len(hands) + 1))
        last = replay_record(hands[-1])
        assert max(last.final_score) == TARGET
        wins[hands[-1].players[last.winner]] += 1
    assert (wins["random"], wins["cautious"]) == (summary["a_wins"], summary["b_wins"])


def test_a_bot_against_itself_and_house_rules_are_recorded(tmp_path, capsys):
    path = tmp_path / "self.jsonl"
    assert main(["simulate", "--a", "random", "--b", "random", "--matches", "2", "--seed",
                 "5", "--quiet", "--rules", "buteco", "--rule", "surrender=answer_only",
                 "--start", "9,10", "--record", str(path)]) == 0
    records = assert_round_trip(path, tmp_path)
    check_replays(records)
    assert all(set(r.players) == {"random-a", "random-b"} for r in records)
    rules = PRESETS["buteco"].items() | {"surrender": "answer_only"}
    assert all(r.rules.items() == rules for r in records)
    line = json.loads(path.read_text().splitlines()[0])
    assert line["rules"] == {"preset": "paulista", "changes": {
        "three_ties": "nobody", "eleven_eleven": "one", "surrender": "answer_only"}}
    first = [r for r in records if r.hand == 1]
    assert {tuple(r.score) for r in first} == {(9, 10), (10, 9)}


def test_records_are_the_same_from_dask_workers():
    from lab.commands.simulate import hand_records
    from lab.sim.batch import run_matches

    _, here = run_matches("aggressive", "random", 4, seed=2, record=True, progress=False)
    _, on_dask = run_matches("aggressive", "random", 4, seed=2, record=True, use_dask=True,
                             workers=1, progress=False)
    rules = PRESETS["paulista"]
    assert hand_records(here, "aggressive", "random", rules) == \
        hand_records(on_dask, "aggressive", "random", rules)


def test_simulate_writes_nothing_when_its_input_is_refused(tmp_path, capsys):
    base = ["simulate", "--a", "random", "--b", "random", "--seed", "1", "--quiet"]
    assert main([*base, "--matches", "2", "--record", str(tmp_path / "m.csv")]) == 2
    assert main([*base, "--matches", "100001", "--record", str(tmp_path / "m.jsonl")]) == 2
    assert main([*base, "--matches", "2", "--start", "12,0",
                 "--record", str(tmp_path / "m.jsonl")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("error: ") for line in err)
    assert "--record" in err[0] and "at most 100,000 matches" in err[1]
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- malformed lines

LINE = {"format": FORMAT, "match": "m0", "hand": 1,
        "rules": {"preset": "paulista", "changes": {}}, "vira": "Ks",
        "players": {"mao": "random", "pe": "cautious"}, "score": [0, 0],
        "cards": {"mao": ["Jd", "3c", "4d"], "pe": ["2d", "Kc", "As"]},
        "actions": ["4d", "raise", "raise", "accept", "Kc", "2d", "cover:Jd"],
        "result": {"winner": "pe", "points": 6}}
"""The example line of docs/match_records.md."""

NEXT = {**LINE, "hand": 2, "vira": "4c", "players": {"mao": "cautious", "pe": "random"},
        "score": [6, 0], "cards": {"mao": ["5c", "Qh", "3d"], "pe": ["6c", "7c", "Kd"]},
        "actions": ["Qh", "raise", "run"], "result": {"winner": "pe", "points": 1}}
"""The next hand of the same match: seats swapped, the score the first hand left."""


def changed(base=LINE, **fields):
    line = {**base, **fields}
    return {k: v for k, v in line.items() if v is not DROP}


DROP = object()

BAD_LINES = [
    ("{not json", "not JSON"),
    ('{"format": "truco-lab/match-record/1", "format": "x"}', "key 'format' appears twice"),
    ('[1, 2]', "one JSON object, not list"),
    (changed(vira=DROP), "missing field 'vira'"),
    (changed(format=DROP), "missing field 'format'"),
    (changed(format="truco-lab/match-record/2"), "major version 2 is unknown"),
    (changed(format="something/else"), "not a match record"),
    (changed(color="red"), "unknown field 'color'"),
    (changed(hand=0), "hand 0: must be at least 1"),
    (changed(hand=True), "hand true: write a whole number"),
    (changed(score=[1.0, 0]), "score 1.0: write a whole number"),
    (changed(score=[12, 3]), "the match is over"),
    (changed(vira="1x"), "vira: '1x': unknown rank"),
    (changed(cards={"mao": ["Jd", "3c", "Zz"], "pe": ["2d", "Kc", "As"]}),
     "cards.mao: 'Zz': unknown rank"),
    (changed(cards={"mao": ["Jd", "3c"], "pe": ["2d", "Kc", "As"]}), "write three cards"),
    (changed(cards={"mao": ["Jd", "3c", "4d"], "pe": ["2d", "3c", "As"]}),
     "cards: 3c: repeated card"),
    (changed(vira="Jd"), "cards: Jd is the vira; it cannot be in a hand"),
    (changed(cards={"mao": None, "pe": None}), "both seats' cards are unknown"),
    (changed(players={"mao": "bot", "pe": "bot"}), "both seats are named 'bot'"),
    (changed(rules={"preset": "house", "changes": {}}), "unknown rule set"),
    (changed(rules={"preset": "paulista", "changes": {"envido": "yes"}}),
     "unknown rule 'envido'"),
    (changed(actions=["4d", "accept"]), "action 2: accept: there is no raise to answer"),
    (changed(actions=["cover:4d"]), "action 1: cover:4d: a card may be covered only from "
                                    "round 2"),
    (changed(actions=["4d", "Jd"]), "action 2: Jd: not in the pe's hand"),
    (changed(actions=["4d", "raise", "raise", "accept", "Kc", "2d", "cover"]),
     "action 7 (cover): the mao's cards are known; name the card it covers"),
    (changed(actions=["4d", "knock"]), "action 2: 'knock': unknown action"),
    (changed(actions=["4d", "raise", "raise", "accept", "Kc"]),
     "the actions stop before the hand is over (the pe is to act: "),
    (changed(actions=LINE["actions"] + ["3c"]), "action 8 (3c): the hand is already over"),
    (changed(result={"winner": "mao", "points": 6}),
     "result: the record says the mao scores 6; the actions give: the pe scores 6 (cards)"),
    (changed(result={"winner": "pe"}), "result: missing key 'points'"),
]


@pytest.mark.parametrize("line, problem", BAD_LINES)
def test_a_malformed_line_is_one_error_naming_file_line_and_problem(tmp_path, line, problem):
    path = tmp_path / "bad.jsonl"
    text = line if isinstance(line, str) else json.dumps(line)
    path.write_text(json.dumps(NEXT | {"match": "other", "hand": 5}) + "\n\n" + text + "\n")
    with pytest.raises(InputError) as caught:
        read_records(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:3: ") and problem in message, message
    assert "\n" not in message and "Traceback" not in message


@pytest.mark.parametrize("nxt, problem", [
    (changed(NEXT, hand=3), "hand 3 of match 'm0' follows its hand 1"),
    (changed(NEXT, score=[6, 1]), "score 6,1: hand 1 left the score at 6,0"),
    (changed(NEXT, players={"mao": "random", "pe": "cautious"}), "the next hand swaps them"),
    (changed(NEXT, rules={"preset": "fpt", "changes": {}}), "changes its rules"),
])
def test_the_hands_of_a_match_must_follow_on(tmp_path, nxt, problem):
    with pytest.raises(InputError, match="^f:2: .*" + problem.replace("(", r"\(")):
        records_from_lines([json.dumps(LINE), json.dumps(nxt)], "f")
    good = records_from_lines([json.dumps(LINE), json.dumps(NEXT)], "f")
    assert [r.hand for r in good] == [1, 2]
    # a match's hands are written together
    other = {**NEXT, "match": "m1", "hand": 1, "score": [0, 0]}
    again = {**LINE, "hand": 3, "score": [0, 7]}
    with pytest.raises(InputError, match="^f:3: match 'm0' appears again"):
        records_from_lines([json.dumps(LINE), json.dumps(other), json.dumps(again)], "f")


def test_bytes_constants_and_unreadable_files_are_one_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(json.dumps(LINE).encode() + b"\n\xff\xfe\n")
    with pytest.raises(InputError, match=f"^{path}:2: not UTF-8 text$"):
        read_records(path)
    path.write_text(json.dumps(LINE).replace('"hand": 1', '"hand": NaN'))
    with pytest.raises(InputError, match=f"^{path}:1: not JSON: NaN"):
        read_records(path)
    with pytest.raises(InputError, match="missing.jsonl: cannot read it"):
        read_records(tmp_path / "missing.jsonl")


def test_a_later_minor_version_is_read_and_its_new_fields_ignored():
    later = {**LINE, "format": FORMAT + ".3", "clock": [12.5, 3.0]}
    [record] = records_from_lines([json.dumps(later)])
    [same] = records_from_lines([json.dumps(LINE)])
    assert record == same and "clock" not in record.to_json()
    with pytest.raises(InputError, match="unknown field 'clock'"):
        records_from_lines([json.dumps({**later, "format": FORMAT + ".0"})])


# ---------------------------------------------------------------- unknown cards


def test_a_record_with_only_one_seats_cards_reads_and_replays(tmp_path):
    hidden = changed(cards={"mao": ["Jd", "3c", "4d"], "pe": None})
    [record] = records_from_lines([json.dumps(hidden)])
    assert record.cards[PE] is None and replay_record(record).winner == PE
    # the mão's cards unknown: its cover is the plain token, its open cards are real
    mao_hidden = changed(cards={"mao": None, "pe": ["2d", "Kc", "As"]},
                         actions=LINE["actions"][:-1] + ["cover"])
    path = tmp_path / "hidden.jsonl"
    path.write_text(json.dumps(hidden) + "\n" + json.dumps(mao_hidden) + "\n")
    with pytest.raises(InputError, match="appears again|follows its hand"):
        read_records(path)   # the same hand twice is not a match
    path.write_text(json.dumps(mao_hidden | {"match": "m1"}) + "\n")
    [record] = assert_round_trip(path, tmp_path)
    state = replay_record(record)
    assert (state.winner, state.points) == (PE, 6) and record.actions[-1].card is None
    # the record of a finished hand with a seat's cards unknown hides that seat's covers
    full = replay_record(HandRecord.from_json(json.dumps(LINE)))
    of_hand = HandRecord.of_hand("m1", 1, ("random", "cautious"),
                                 (None, parse_cards("2d,Kc,As")), full)
    assert of_hand == record
    # what the unknown seat plays must be a card it can hold
    for card, problem in (("Ks", "is the vira"), ("Kc", "is in the pe's hand")):
        bad = mao_hidden | {"actions": [card] + LINE["actions"][1:]}
        with pytest.raises(InputError, match=f"action 1 \\({card}\\): {card} {problem}"):
            records_from_lines([json.dumps(bad)])


def test_append_adds_a_line_and_refuses_a_cut_file(tmp_path):
    path = tmp_path / "a.jsonl"
    first, second = (HandRecord.from_json(json.dumps(x)) for x in (LINE, NEXT))
    append_record(path, first)
    append_record(path, second)
    assert read_records(path) == [first, second]
    path.write_bytes(path.read_bytes()[:-5])
    with pytest.raises(InputError, match="last line is cut short"):
        append_record(path, second)
    with pytest.raises(InputError, match="players"):
        write_records(tmp_path / "w.jsonl", [first, first.__class__(
            **{**first.__dict__, "players": ("x", "x")})])
    assert not (tmp_path / "w.jsonl").exists()
    assert SEAT_NAMES[MAO] == "mao"
