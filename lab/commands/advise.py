"""The solver's advice for one seat at one point of a hand: one JSON object, or in words.

``lab advise --vira 4c --hand 5c,3h,Kd --seat mao [--score M,P] [--text | --json]
[ACTION ...]``: the asking seat's three cards as dealt (``5c,3h,Kd``, ``"5c 3h Kd"`` or
``5c3hKd``) and the actions so far in ``lab replay`` notation (``5c``, ``cover:3h``,
``raise``/``truco``, ``accept``, ``run``, ``surrender``); the opponent's cards as he
played them, his covered card as ``cover`` (or ``cover:CARD``, whose card is ignored).
The opponent's hidden cards are never needed.

``--text`` prints the advice in words with rounded numbers (:mod:`lab.advice_text`);
``--json`` the JSON object below. Without either, words when stdout is a terminal and
JSON otherwise (piped or redirected), so scripts read the same JSON as before.

The JSON object, when the seat is to act::

    {"to_act": "mao", "legal": [...], "strategy": {action: probability},
     "ev": {action: value}, "on_path": true, "model": "full-game-points",
     "unit": "points per hand", "exploitability": 0.07}

``{"to_act": "pe", "waiting": true}`` when the other seat is to act, and ``lab replay``'s
object (``{"over": true, "winner", "points", "score", "rounds", "how"}``) when the hand
is over. What each number means, the models by score (the full-game policy in points
per hand at normal scores; mão de onze and 11 x 11 solved exactly in match-win
probability), and the conventions (two cards of one level share its probability and
both carry its value; surrender is listed with probability 0 and what it pays; covering
the last card in round 3 is not listed) are in :mod:`lab.advice`.

Slow steps show a one-line note on stderr when stderr is a terminal: the values at the
deal and after the first card are walked once per policy and machine (5-15 s; ``lab
prepare`` does every policy's at once), a mão de onze model is solved once per score
(seconds), the kernels are compiled once per version of the code (``lab prepare
--kernels``).
Bad input, or a position the solved game cannot value, is one ``error:`` line on stderr
with nothing on stdout (exit 2); a missing policy names the command that builds it.
"""

from __future__ import annotations

from ..cli import add_output_form, in_words, print_json


def add_arguments(parser) -> None:
    parser.add_argument("--vira", required=True, help="the turned card, e.g. 4c")
    parser.add_argument("--hand", required=True,
                        help="the asking seat's three cards as dealt: Ah,3c,4d or "
                             "'Ah 3c 4d' or Ah3c4d")
    parser.add_argument("--seat", required=True, help="the asking seat: mao or pe")
    parser.add_argument("--score", default="0,0", help="M,P points before the hand (default 0,0)")
    parser.add_argument("actions", nargs="*", metavar="ACTION",
                        help="the actions so far: CARD, cover:CARD (the opponent's: cover), "
                             "raise (truco), accept, run, surrender")
    add_output_form(parser, "the advice")


def run(args) -> int:
    from ..advice import advise, request

    position = request(args.vira, args.hand, args.seat, args.score, args.actions)
    advice = advise(position)
    if in_words(args):
        from ..advice_text import advice_text

        print(advice_text(advice, position))
    else:
        print_json(advice)
    return 0
