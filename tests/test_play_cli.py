"""``lab play`` through a subprocess with its input piped in."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


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


def test_an_illegal_move_names_the_rule():
    # the first move of round 1 cannot be covered, and the card must be in hand
    answers = "".join(f"cover:{r}{s}\n" for r in "4567QJKA23" for s in "cdhs") + "1\n" * 400
    code, out, _ = play(answers, "--seed", "3", "--first", "you", "--target", "2")
    assert code == 0
    assert "not allowed now: a card may be covered only from round 2" in out
    assert "not allowed now: not in the mao's hand" in out
    assert "you start at 10." in out


def test_same_seed_same_transcript_and_end_of_input_quits_cleanly():
    answers = "1\n" * 3
    first = play(answers, "--bot", "random", "--seed", "7")
    second = play(answers, "--bot", "random", "--seed", "7")
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
                            stderr=subprocess.PIPE, cwd=ROOT)
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
