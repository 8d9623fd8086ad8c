"""``lab play`` through a subprocess with its input piped in."""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import default_sigint

ROOT = Path(__file__).parent.parent


@pytest.fixture(autouse=True)
def history_in_tmp(tmp_path, monkeypatch):
    """Matches played here are saved under ``tmp_path``, never in the real history folder."""
    monkeypatch.setenv("LAB_HISTORY_DIR", str(tmp_path / "history"))


def play(stdin, *args):
    proc = subprocess.run([sys.executable, "-m", "lab", "play", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def test_a_whole_match_with_bad_answers_reprompted():
    # bad answers first, then always the first legal move (a card, or accept)
    answers = "xyz\n0\n99\ncover:Zz\n\n" + "1\n" * 400
    code, out, err = play(answers, "--bot", "aggressive", "--seed", "12", "--first", "you")
    assert code == 0, err
    assert err == ""
    lines = out.splitlines()
    assert "--- hand 1: you are mão ---" in lines
    assert "--- hand 2: you are pé ---" in lines  # the mão alternates
    assert any(line.startswith("vira ") and "score: you 0, bot 0" in line for line in lines)
    assert any(line.startswith("your cards: ") for line in lines)
    assert any(line.strip().startswith("1) ") for line in lines)
    # each bad answer is refused with its reason and asked again
    assert "'xyz': unknown action" in out
    assert "0: no such move; type a number 1-" in out
    assert "99: no such move" in out
    assert "'Zz': unknown rank" in out
    assert "please type a number" in out
    assert out.count("your move> ") > 5
    assert lines[-1].startswith(("You win the match 12-", "The bot wins the match 12-"))
    assert "bot: " in out and "you: " in out and "won the hand" in out


def test_only_the_numbers_shown_are_moves():
    # other digits, other numbers and long lines are refused and asked again; "1" is taken
    answers = "١\n３\n²\n01\n" + "9" * 5000 + "\n" + "x" * 50_000 + "\n1\n"
    code, out, err = play(answers, "--bot", "random", "--seed", "12", "--first", "you")
    assert code == 0 and err == "", err
    first = out.split("you: ", 1)[0]
    lines = first.split("your move> ")[1:]
    assert len(lines) == 7   # six refusals, then the move taken
    for line, answer in zip(lines, ("'١'", "'３'", "'²'")):
        assert line.startswith(f"  {answer}: type the move's number as shown, 1-")
        assert "in ASCII digits, or a move token" in line
    assert lines[3].startswith("  01: no such move; type a number 1-")
    assert lines[4].startswith("  '999999999999'...: too long to be a move; type a number 1-")
    assert lines[5].startswith("  'xxxxxxxxxxxx'...: too long to be a move")
    assert all(len(line) < 120 for line in lines)
    assert lines[6] == ""
    assert "9" * 100 not in out and "x" * 100 not in out


def test_an_illegal_move_names_the_rule():
    # the first move of round 1 cannot be covered, and the card must be in hand
    answers = "".join(f"cover:{r}{s}\n" for r in "4567QJKA23" for s in "cdhs") + "1\n" * 400
    code, out, _ = play(answers, "--seed", "3", "--first", "you", "--target", "2")
    assert code == 0
    assert "not allowed now: a card may be covered only from round 2" in out
    assert "not allowed now: not in the mao's hand" in out
    assert "you start at 10." in out


def test_same_seed_same_transcript_and_end_of_input_quits_cleanly(tmp_path):
    answers = "1\n" * 3
    saved = str(tmp_path / "m.jsonl")   # the history's file names hold the time
    first = play(answers, "--bot", "random", "--seed", "7", "--save", saved)
    second = play(answers, "--bot", "random", "--seed", "7", "--save", saved)
    assert first == second
    code, out, err = first
    assert code == 0 and err == ""
    assert out.rstrip().endswith("bye (end of input)")


def test_bad_options_are_one_error_line():
    for args, word in ((["--bot", "smart"], "smart"), (["--target", "13"], "13"),
                       (["--target", "0"], "0"), (["--seed", "x"], "x")):
        code, out, err = play("", *args)
        assert code == 2 and out == "", args
        assert len(err.splitlines()) == 1 and err.startswith("error: ") and word in err


def test_ctrl_c_at_the_prompt_quits_cleanly():
    import os
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "lab", "play", "--seed", "1"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, preexec_fn=default_sigint)
    seen, deadline = b"", time.monotonic() + 60
    while b"your move> " not in seen and time.monotonic() < deadline:
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            break
        seen += chunk
    assert b"your move> " in seen
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert (seen + out).decode().rstrip().endswith("bye (interrupted)")
    assert err == b""


# ---------------------------------------------------------------- the coach


def coached(answers: str, *args):
    """(exit status, transcript) of ``lab play --coach ARGS`` run in this process (the
    solves and the stored policy are loaded once for all the coach tests)."""
    import io

    from lab.cli import build_parser
    from lab.commands import play as command

    parsed = build_parser("play").parse_args(["play", "--coach", *args])
    out = io.StringIO()
    code = command.run(parsed, io.StringIO(answers), out)
    return code, out.getvalue()


def test_coach_at_eleven_eleven_comments_every_move_and_reviews_the_match():
    # --target 1: both start at 11, one hand of 11 x 11 decides the match (vira 4s; you
    # are mão with 5d Kh 6d and always take the first move)
    code, out = coached("1\n" * 10, "--seed", "5", "--first", "you", "--target", "1")
    assert code == 0
    lines = out.splitlines()
    moves = [k for k, line in enumerate(lines) if line.startswith("your move> you: ")]
    assert len(moves) == 3
    for k in moves:  # each decision: the strategy with every move's value, then the cost
        assert lines[k + 1].startswith("coach: the solver's strategy for your hand (and each "
                                       "move's match-win probability): ")
        assert lines[k + 2].startswith("coach: ")
    # the last card decides the hand, which the bot won: the rules make it worth 0
    assert "bot won the hand: 3 points" in out and lines[moves[-1]] == "your move> you: 6d"
    assert lines[moves[-1] + 1].endswith(": 6d 100% (0.000), surrender 0% (0.000)")
    assert lines[moves[-1] + 2] == "coach: 6d is the best move here (0.000)"
    # the review lists the costly decisions, costliest first, with the costs shown above
    costs = [float(line.split(" costs ")[1].split()[0]) for line in lines
             if line.startswith("coach: ") and " costs " in line]
    review = lines[lines.index("The bot wins the match 12-11 after 1 hands.") + 2:]
    assert review[0] == "Coach's review: your costliest decisions (of 3 coached):"
    listed = [float(line.split("cost ")[-1].split()[0]) for line in review[1:]]
    assert listed == sorted(costs, reverse=True) and len(listed) == len(costs) > 0
    assert review[1].startswith("  1. hand 1 (vira 4s, you mão with 5d Kh 6d), round 1, hand "
                                "worth 3: you 5d, best ")


def test_coach_with_the_stored_policy_and_off_its_path():
    import random

    from lab.cards import DECK, level, parse_card
    from lab.tables.policies import load_full_policy
    from lab.sim.match import stream_seed
    from lab.policy.line import dealt_state
    from lab.tables import TableError
    from lab.tables.score import points_play_leak

    from conftest import in_ci

    # seed 15, --first bot: hand 1 has the vira 4s and you are pé with the 5th-7th cards;
    # the bot leads a card (read from a session that ends at the first prompt)
    cards = random.Random(stream_seed(15, 0, 0)).sample(DECK, 7)
    vira, mine = cards[0], cards[4:7]
    try:
        policy = load_full_policy(vira)
    except TableError as exc:
        if in_ci():
            pytest.fail(f"stored policy needed: {exc}")
        pytest.skip(f"stored policy needed: {exc}")
    _, out = coached("", "--seed", "15", "--first", "bot")
    lead = parse_card(next(line for line in out.splitlines()
                           if line.startswith("bot: ")).split()[1])
    line = policy.start().then(("card", level(lead, vira)))
    stored = policy.strategy(line.spot, dealt_state(policy, mine, vira))

    def token(a):
        return a if isinstance(a, str) else str(next(c for c in mine if level(c, vira) == a[1]))

    never = [a for a, p in stored.items() if p == 0]
    assert never, f"the policy plays every move of {mine} here: {stored}"
    move = token(never[0])
    code, out = coached(f"{move}\n" + "1\n" * 2, "--seed", "15", "--first", "bot")
    assert code == 0 and out.rstrip().endswith("bye (end of input)")
    lines = out.splitlines()
    k = next(k for k, line in enumerate(lines) if line.startswith("your move> you: "))
    # once a hand: the model, and what points play leaks at this score (the table's row)
    leak = points_play_leak(vira, (0, 0))
    assert leak is not None and lines[k + 1] == (
        "coach: the solver plays this hand for points, the same at every normal score; at "
        f"0-0 (mão-pé) here that leaks {leak:.4f} in match-win probability to play that "
        "knows the score")
    this_hand = lines[k + 2:]
    this_hand = this_hand[:next((i for i, line in enumerate(this_hand)
                                 if line.startswith("--- hand ")), len(this_hand))]
    assert not any("plays this hand for points" in line for line in this_hand)
    first = lines[k + 2]
    assert first.startswith("coach: the solver's strategy for your hand (and each move's "
                            "points): ")
    for a, p in stored.items():  # the stored strategy, rounded as shown
        assert f"{token(a)} {p:.0%} (" in first
    assert lines[k + 3].startswith(f"coach: {move} costs ") and "points against the best" \
        in lines[k + 3]
    # the next decision of the hand is off the solver's path for this hand
    later = [line for line in lines[k + 4:] if line.startswith("coach: ")]
    assert later and later[0].startswith("coach: your earlier choices left the solver's "
                                         "path"), later


def test_the_hint_shows_the_coachs_advice_before_the_move_and_grades_it_the_same():
    args = ("--seed", "5", "--first", "you", "--target", "1")   # 11 x 11 (as above)
    _, after = coached("1\n" * 10, *args)
    code, before = coached("1\n" * 10, "--hint", *args)
    assert code == 0
    assert "Coach on: before each of your moves" in before
    after_lines, lines = after.splitlines(), before.splitlines()
    advice = [line for line in after_lines if line.startswith("coach: the solver's strategy")]
    hints = [line for line in lines if line.startswith("coach: the solver's strategy")]
    assert hints == advice and len(hints) == 3   # the same advice, from the same function
    moves = [k for k, line in enumerate(lines) if line.startswith("your move> you: ")]
    assert len(moves) == 3
    for k, hint in zip(moves, hints):   # each hint comes before its prompt, none after
        shown = max(i for i in range(k) if lines[i].startswith("coach: the solver's"))
        assert lines[shown] == hint and shown > max([0] + [m for m in moves if m < k])
        assert lines[k + 1].startswith("coach: ") and "strategy" not in lines[k + 1]
    grades = [lines[k + 1] for k in moves]
    assert grades == [after_lines[k + 2] for k, line in enumerate(after_lines)
                      if line.startswith("your move> you: ")]
    assert before[before.index("Coach's review"):] == after[after.index("Coach's review"):]


def test_the_hint_is_refused_under_house_rules():
    code, out, err = play("", "--hint", "--rules", "fpt")
    assert code == 2 and out == ""
    assert err.startswith("error: --hint: the solver's numbers are for the default rules")


# ---------------------------------------------------------------- house rules


class FixedDeal:
    """Stands in for the deal stream: every hand is dealt ``cards`` (vira, mão's, pé's)."""

    def __init__(self, text):
        from lab.cards import parse_cards

        self.cards = parse_cards(text, 7)

    def sample(self, deck, k):
        return list(self.cards)


def one_hand(answers, deal, score, rules, bot):
    """(transcript, match after) of one hand of ``lab play`` where you are mão."""
    import io
    import random

    from lab.commands.play import YOU, Terminal, play_hand
    from lab.rules import MatchState

    out = io.StringIO()
    match = MatchState(score, mao=YOU, rules=rules)
    after = play_hand(Terminal(io.StringIO(answers), out), match, FixedDeal(deal), bot,
                      random.Random(1), 1)
    return out.getvalue(), after


def test_a_hand_that_scores_nothing_says_so_and_leaves_the_score():
    from lab.rules import PLAY, PRESETS, Action
    from lab.sim.bots import Bot

    class Matcher(Bot):
        """Answers each card with its own card of the same level."""

        def act(self, view, rng):
            _, theirs = view.opponent_card_on_table()
            return Action(PLAY, next(c for c in view.hand
                                     if view.level(c) == view.level(theirs)))

    deal = "4c,6c,7c,Qc,6h,7h,Qh"  # vira 4c: both hold a 6, a 7 and a Q
    out, after = one_hand("6c\n7c\nQc\n", deal, (2, 5), PRESETS["buteco"], Matcher())
    assert "nobody scores: the three rounds tied. Score: you 2, bot 5" in out
    assert after.scores == (2, 5) and after.mao == 1 and after.hands_played == 1
    out, after = one_hand("6c\n7c\nQc\n", deal, (2, 5), PRESETS["paulista"], Matcher())
    assert "you won the hand: 1 point (on the cards). Score: you 3, bot 5" in out


def test_at_a_blind_eleven_eleven_you_play_unseen_cards_by_number():
    from lab.rules import RuleSet
    from lab.sim.bots import Bot

    class Blindfolded(Bot):
        def act(self, view, rng):
            raise AssertionError("a bot was asked to choose cards it cannot see")

    deal = "4c,6c,7c,Qc,6h,7h,Qh"
    out, after = one_hand("6c\n1\n1\n1\n", deal, (11, 11), RuleSet(eleven_eleven="blind"),
                          Blindfolded())
    assert "--- hand 1: you are mão (11 x 11: worth 3, blind) ---" in out
    assert "your cards: 3, unseen (a blind 11 x 11: nobody sees his own cards)" in out
    assert "  1) card 1     play your card 1, unseen" in out
    assert "6c: at a blind 11 x 11 you cannot see your cards; type a number 1-" in out
    shown = [line for line in out.splitlines() if line.startswith(("your cards", "  1)",
                                                                   "  2)", "  3)"))]
    assert not any(card in line for line in shown for card in ("6c", "7c", "Qc"))
    assert "won the hand: 3 points (on the cards)" in out and after.over


def test_the_exploiter_learns_you_and_keeps_your_profile(tmp_path):
    import json

    folder = tmp_path / "profiles"
    answers = "1\n" * 400
    code, out, err = play(answers, "--bot", "exploiter", "--seed", "5", "--name", "ana",
                          "--profiles", str(folder))
    assert code == 0, err
    assert "until your profile (0 hands of you known)" in out
    saved = json.loads((folder / "ana.profile.json").read_text())
    assert saved["player"] == "ana" and saved["hands"] == out.count("--- hand ")
    assert saved["cells"] and all(c["decisions"] > 0 for c in saved["cells"])
    code, out, err = play(answers, "--bot", "exploiter", "--seed", "6", "--name", "ana",
                          "--profiles", str(folder))
    assert code == 0 and f"({saved['hands']} hands of you known)" in out
    code, out, err = play("", "--bot", "cautious", "--profiles", str(folder))
    assert code == 2 and err.strip().splitlines() == [
        "error: --profiles and --exploits are the exploiter's: play --bot exploiter"]
