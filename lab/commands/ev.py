"""The points EV of one hand in the full game with the truco ladder, as one JSON object.

``lab ev --vira CARD --hand C,C,C --seat mao|pe`` prints the hand's ``ev`` (expected net
points per hand for that seat under the solved strategies of the full hand game),
the solve's ``exploitability`` (points per hand), the class ``hand`` label, the deal
``weight`` of the class, and the seat's ``strategy`` at its first decision: for the
mão ``{"first": {action: p}}`` (``truco`` or ``play <card>``); for the pé
``{"vs_truco": {accept, run, raise}, "first_after_card": {action: p}}``.

The numbers come from the ``full_ev`` / ``full_strategy`` / ``full_summary`` tables in
``data/`` (``lab solve full``). When the vira is not there, the command stops with an
``error:`` line naming the command that solves it, or, with ``--solve-minutes M``,
solves the vira now within M minutes (``source`` is then ``solved``).
"""

from __future__ import annotations

import sys

from ..cards import RANKS
from ..options import positive, UsageError
from .equity import parse_request
from ..cli import print_json


def add_arguments(parser) -> None:
    parser.add_argument("--vira", required=True, help="the turned card, e.g. 4c")
    parser.add_argument("--hand", required=True, help="three cards, e.g. 5c,Qh,3d")
    parser.add_argument("--seat", required=True, help="mao (leads round 1) or pe")
    parser.add_argument("--solve-minutes", type=positive, default=None, metavar="M",
                        help="solve the vira now (at most M minutes, M up to "
                             f"{MAX_SOLVE_MINUTES:,}: a week) if no table has it")


MAX_SOLVE_MINUTES = 10_080
"""The longest ``--solve-minutes``: a week (a vira solves in about 30 minutes)."""


def ev_of(vira, hand, seat: str, solve_minutes=None) -> dict:
    from .. import tables
    from ..classes import hand_classes
    from ..tables import full as F

    rank = RANKS[vira.rank]
    hc = hand_classes(rank)
    label = hc.labels[hc.class_of_cards(hand, vira)]
    try:
        ev = F.load_full("full_ev", rank)
        strat = F.load_full("full_strategy", rank)
        summary = F.load_full("full_summary", rank).iloc[0]
        source = "table"
    except tables.TableError as exc:
        if solve_minutes is None:
            raise UsageError(f"vira {rank}: {exc}") from None
        print(f"note: {exc}; solving vira {rank} now (at most {solve_minutes} minutes)",
              file=sys.stderr)
        settings = dict(F.FULL_SETTINGS, time_budget_minutes=float(solve_minutes))
        rows = F.solve_vira_full(rank, settings, progress=True)
        ev, strat = rows["full_ev"], rows["full_strategy"]
        summary = rows["full_summary"]
        source = "solved"
    row = ev[(ev["seat"] == seat) & (ev["hand"] == label)].iloc[0]
    mine = strat[(strat["seat"] == seat) & (strat["hand"] == label)]
    strategy = {}
    for situation, group in mine.groupby("situation", sort=False):
        strategy[situation] = {a: round(float(p), 6) for a, p in zip(group["action"],
                                                                     group["probability"])}
    return {"vira": str(vira), "hand": label, "cards": [str(c) for c in hand], "seat": seat,
            "ev": float(row["ev"]), "exploitability": float(summary["exploitability"]),
            "weight": float(row["weight"]), "value_mao": float(summary["value_mao"]),
            "iterations": int(summary["iterations"]), "strategy": strategy, "source": source}


def run(args) -> int:
    if args.solve_minutes is not None and args.solve_minutes > MAX_SOLVE_MINUTES:
        raise UsageError(f"--solve-minutes {args.solve_minutes:g}: give at most "
                         f"{MAX_SOLVE_MINUTES:,} minutes (a week)")
    vira, hand, seat = parse_request(args.vira, args.hand, args.seat)
    print_json(ev_of(vira, hand, seat, args.solve_minutes))
    return 0
