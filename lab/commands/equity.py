"""The card-play equity of one hand for a vira and a seat, as one JSON object.

``lab equity --vira CARD --hand C,C,C --seat mao|pe`` prints the hand's
``equity`` (win probability under the card-play equilibrium), ``double_dummy``
(win probability with both hands face up) and the solve's ``exploitability``
(win probability), with the class ``hand`` label, the ``vira``, the ``seat``,
the class's deal ``weight`` and the ``source`` of the numbers: ``table`` when
read from ``data/cardplay.parquet``, ``solved`` when that table is missing or
stale and the vira was solved on the spot (then ``table_status`` says why).
"""

from __future__ import annotations

import sys

from ..cards import RANKS, parse_card, parse_cards
from ..cli import UsageError, print_json
from ..options import shown

SEAT_ALIASES = {"mao": "mao", "mão": "mao", "pe": "pe", "pé": "pe"}


def add_arguments(parser) -> None:
    parser.add_argument("--vira", required=True, help="the turned card, e.g. 4c")
    parser.add_argument("--hand", required=True, help="three cards, e.g. 5c,Qh,3d")
    parser.add_argument("--seat", required=True, help="mao (leads round 1) or pe")


def parse_request(vira_text: str, hand_text: str, seat_text: str):
    """(vira card, hand cards, seat name) from the command line; ValueError on bad input."""
    vira = parse_card(vira_text)
    hand = parse_cards(hand_text, 3)
    if vira in hand:
        raise UsageError(f"{vira}: the vira is turned face up and cannot be in the hand")
    seat = SEAT_ALIASES.get(seat_text.strip().lower())
    if seat is None:
        raise UsageError(f"--seat {shown(seat_text)}: the seat is mao or pe")
    return vira, hand, seat


def equity_of(vira, hand, seat: str) -> dict:
    """The JSON object for one hand: from ``data/`` or, failing that, solved now."""
    from .. import tables
    from ..classes import hand_classes

    rank = RANKS[vira.rank]
    label = hand_classes(rank).labels[hand_classes(rank).class_of_cards(hand, vira)]
    try:
        rows = tables.load_table("cardplay", viras=[rank])
        source, status = "table", "ok"
    except tables.TableError as exc:
        status = str(exc)
        print(f"note: {status}; solving vira {rank} now", file=sys.stderr)
        solution = tables.solve_vira(rank, tables.CARDPLAY_SETTINGS, progress=True)
        rows = tables.cardplay_rows(rank, solution)
        source = "solved"
    row = rows[(rows["seat"] == seat) & (rows["hand"] == label)].iloc[0]
    out = {"vira": str(vira), "hand": label, "cards": [str(c) for c in hand], "seat": seat,
           "equity": float(row["equity"]), "double_dummy": float(row["double_dummy"]),
           "exploitability": float(row["exploitability"]), "weight": float(row["weight"]),
           "source": source}
    if source != "table":
        out["table_status"] = status
    return out


def run(args) -> int:
    vira, hand, seat = parse_request(args.vira, args.hand, args.seat)
    print_json(equity_of(vira, hand, seat))
    return 0
