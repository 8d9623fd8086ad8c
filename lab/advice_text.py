"""The advice in words: what a player at the table reads instead of the JSON object.

:func:`advice_text` takes the object :func:`lab.advice.advise` returns (and, to say where
the hand stands, the :class:`~lab.advice.Position` it was asked for) and writes a few
short lines with rounded numbers::

    Vira 7d, you are mão at 0-0 holding Ah 3c 4d.
    Solver (full game, points per hand, exploitability 0.015): play 3c 75%, 4d 25%.
    Values: 3c -0.42, 4d -0.42, Ah -0.43, truco -0.58, surrender -1.00.
    3c and 4d are within the policy's exploitability of each other: either is fine.

Values are in the advice's unit: points per hand signed with two decimals, match-win
probability with three. What the words promise:

- the solver's probabilities are shown only on the solved path; off it the answer is
  labelled "off the solved path (best response)" and names the best move against the
  solver's play, never a probability of the solver's;
- where the strategy mixes between moves whose values differ by less than the policy's
  exploitability, or a move it does not play is worth a little more than the ones it
  plays, the text says whether that difference is inside the exploitability;
- surrender is never named best when another move has the same value.
"""

from __future__ import annotations

import math

from .advice import POINTS
from .match import ELEVEN_ELEVEN_MODEL, ELEVEN_MODEL, FULL_MODEL, SCORE_AWARE_MODEL
from .rules import RAISE, SURRENDER, next_value

SHOWN = 0.005
"""Smallest probability written in the strategy (smaller ones round to 0%)."""

TIE = 1e-9
"""Values closer than this are equal."""

SEAT_WORDS = {"mao": "mão", "pe": "pé"}

RAISE_WORDS = {3: "truco", 6: "seis", 9: "nove", 12: "doze"}
"""A raise named by the value it offers."""

MODEL_WORDS = {
    FULL_MODEL: "full game",
    SCORE_AWARE_MODEL: "full game re-solved for the match at this score",
    ELEVEN_MODEL: "mão de onze solved exactly",
    ELEVEN_ELEVEN_MODEL: "11 x 11 solved exactly",
}


# ---------------------------------------------------------------- numbers and names


def value_text(x: float, unit: str) -> str:
    """A value rounded for reading: points signed with two decimals, a probability with
    three."""
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:+.2f}" if unit == POINTS else f"{x:.3f}"


def gap_text(x: float, unit: str) -> str:
    """A difference of values (or an exploitability), with one decimal more than a value."""
    return f"{x:.3f}" if unit == POINTS else f"{x:.4f}"


def percent(p: float) -> str:
    return f"{p:.0%}"


def move_names(legal, position=None) -> dict:
    """{legal token: its name in words}: a card as itself, ``cover:3h`` as ``cover 3h``,
    a raise by the value it offers (``truco``, ``seis``, ... where the position is
    known)."""
    raise_word = "raise"
    if position is not None:
        state = position.state
        try:
            raise_word = RAISE_WORDS.get(next_value(state.pending or state.value), "raise")
        except (ValueError, IndexError):
            pass
    names = {}
    for token in legal:
        if token == RAISE:
            names[token] = raise_word
        elif token.startswith("cover:"):
            names[token] = "cover " + token[len("cover:"):]
        else:
            names[token] = token
    return names


def is_card(token: str) -> bool:
    """A card played face up (``3c``: two characters), not a cover or a word."""
    return len(token) == 2


def joined(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def best_moves(legal, ev: dict) -> list[str]:
    """The tokens of highest value (within :data:`TIE`), in ``legal`` order; surrender
    only when nothing else has that value."""
    top = max(ev[a] for a in legal)
    best = [a for a in legal if ev[a] >= top - TIE]
    return [a for a in best if a != SURRENDER] or best


# ---------------------------------------------------------------- the lines


def situation(position) -> str:
    """``Vira 7d, you are mão at 0-0 holding Ah 3c 4d.`` and the moves so far."""
    seat = SEAT_WORDS["mao" if position.seat == 0 else "pe"]
    held = position.state.hands[position.seat]
    dealt = " ".join(str(c) for c in position.hand)
    cards = " ".join(str(c) for c in held)
    holding = f"holding {cards}" if len(held) == len(position.hand) else (
        f"holding {cards} (dealt {dealt})" if held else f"dealt {dealt}")
    text = (f"Vira {position.vira}, you are {seat} at {position.score[0]}-{position.score[1]} "
            f"{holding}.")
    if position.history:
        moves = ", ".join(f"{SEAT_WORDS['mao' if s == 0 else 'pe']} "
                          f"{'cover' if a.kind == 'cover' and a.card is None else a}"
                          for s, a in position.history)
        text += f" So far: {moves}."
    return text


def over_text(advice: dict) -> str:
    winner = SEAT_WORDS.get(advice.get("winner"), advice.get("winner"))
    points = advice.get("points")
    how = {"run": "the other ran from a raise", "surrender": "the other surrendered",
           "eleven_run": "the holder ran from the mão de onze",
           "cards": "on the cards"}.get(advice.get("how"), advice.get("how"))
    score = advice.get("score") or []
    after = f"; the score is {score[0]}-{score[1]} (mão-pé)" if len(score) == 2 else ""
    if not points:
        return f"The hand is over, nobody scores ({how}){after}."
    return (f"The hand is over: the {winner} wins {points} point{'s' if points != 1 else ''} "
            f"({how}){after}.")


def nuance(legal, strategy: dict, ev: dict, names: dict, expl: float, unit: str) -> list[str]:
    """Sentences on the solver's choices whose values are close: moves it mixes between,
    and moves it does not play that are worth more."""
    if expl is None or not math.isfinite(expl):
        return []
    played = [a for a in legal if strategy[a] >= SHOWN]
    out = []
    if len(played) >= 2:
        spread = max(ev[a] for a in played) - min(ev[a] for a in played)
        words = joined([names[a] for a in played])
        if spread < expl:
            either = "either is fine" if len(played) == 2 else "any of them is fine"
            out.append(f"{words} are within the policy's exploitability of each other: "
                       f"{either}.")
        else:
            top = best_moves(played, ev)[0]
            out.append(f"{words} differ in value by {gap_text(spread, unit)}, more than the "
                       f"policy's exploitability ({gap_text(expl, unit)}): {names[top]} is "
                       "worth the most.")
    if played:
        chosen = max(ev[a] for a in played)
        for a in legal:
            gain = ev[a] - chosen
            if a in played or gain <= TIE:
                continue
            if gain < expl:
                out.append(f"{names[a]} is worth {gap_text(gain, unit)} more than the "
                           f"solver's choice, inside the policy's exploitability "
                           f"({gap_text(expl, unit)}): as good within the precision of "
                           "the solve.")
            else:
                out.append(f"{names[a]} is worth {gap_text(gain, unit)} more than the "
                           f"solver's choice, more than the policy's exploitability "
                           f"({gap_text(expl, unit)}): against this stored policy it does "
                           "better here.")
    return out


def score_lines(advice: dict, position=None) -> list[str]:
    """What playing for points costs at this score, and the score-aware re-solve's play."""
    if advice.get("model") != FULL_MODEL:
        return []
    at = f"at {position.score[0]}-{position.score[1]}" if position is not None else \
        "at this score"
    leak = advice.get("points_play_leak")
    out = [f"The solver plays for points, the same at every score; {at} "
           + ("what that leaks is not measured." if leak is None or not math.isfinite(leak)
              else f"that leaks {leak:.4f} in match-win probability.")]
    aware = advice.get("score_aware")
    if aware:
        mao = advice.get("to_act") == "mao"
        key = "truco_mao" if mao else "run_pe"
        what = "opens with a truco" if mao else "runs from a truco"

        def pct(x):
            return "n/a" if x is None else f"{x:.0%}"

        out.append(f"Re-solved for the match {at} (exploitability "
                   f"{aware['exploitability']:.4f} in match-win probability), a "
                   f"{aware['hand']} hand {what} {pct(aware.get(key))} of the time instead of "
                   f"{pct(aware.get(key + '_points'))} under points play; your match-win "
                   f"probability there is {aware['match_win_probability']:.3f}.")
    return out


def advice_text(advice: dict, position=None) -> str:
    """The advice object of :func:`lab.advice.advise` in words (lines, no final newline).
    ``position``: the :class:`lab.advice.Position` asked about, for the first line (where
    the hand stands) and the names of raises; without it those are left out."""
    head = [situation(position)] if position is not None else []
    if advice.get("over"):
        return "\n".join(head + [over_text(advice)])
    if advice.get("waiting"):
        who = SEAT_WORDS.get(advice["to_act"], advice["to_act"])
        return "\n".join(head + [f"The {who} is to act: wait for his move."])
    legal = list(advice["legal"])
    strategy, ev = advice["strategy"], advice["ev"]
    unit, expl = advice["unit"], advice.get("exploitability")
    names = move_names(legal, position)
    model = MODEL_WORDS.get(advice["model"], advice["model"])
    measured = ("exploitability not measured" if expl is None or not math.isfinite(expl)
                else f"exploitability {gap_text(expl, unit)}")
    order = sorted(legal, key=lambda a: (-ev[a], a == SURRENDER, legal.index(a)))
    values = "Values: " + ", ".join(f"{names[a]} {value_text(ev[a], unit)}"
                                    for a in order) + "."
    lines = list(head)
    if advice["on_path"]:
        shown = sorted((a for a in legal if strategy[a] >= SHOWN),
                       key=lambda a: (-strategy[a], legal.index(a)))
        plays = ", ".join(f"{names[a]} {percent(strategy[a])}" for a in shown)
        lead = "play " if is_card(shown[0]) else ""
        lines.append(f"Solver ({model}, {unit}, {measured}): {lead}{plays}.")
        lines.append(values)
        lines += nuance(legal, strategy, ev, names, expl, unit)
    else:
        best = best_moves(legal, ev)
        tie = " (equal values)" if len(best) > 1 else ""
        lines.append(f"Off the solved path (best response): the solver never reaches this "
                     f"point with your hand, so it gives no probabilities here ({model}, "
                     f"{unit}, {measured}). Best against its play: "
                     f"{' or '.join(names[a] for a in best)}{tie}.")
        lines.append(values)
    lines += score_lines(advice, position)
    return "\n".join(lines)


__all__ = ["advice_text", "best_moves", "move_names", "value_text"]
