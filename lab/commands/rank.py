"""Rank the bots by the points they lose: exploitability and expected points against the solver.

``lab rank [--vira V ...] [--bot NAME ...] [--hands N] [--seed S] [--json] [--write]``

For every bot (the registry of lab/sim/bots.py: random, cautious, aggressive, solver; and
``uniform``, the uniform policy over the solved game's actions), on each vira with a stored
full-game policy (default: all of them), at 0-0, in points per hand (see lab/ranking.py):

- ``exploitability``: what a best responder wins per hand against the bot, the seats
  averaged; exact (best response) for the bots that are tables of the solved game (solver,
  uniform), null for the rule bots (too slow to tabulate);
- ``ev_vs_solver``: the bot's expected points per hand against the solver; exact for the
  tabulated bots, else simulated: N mirrored hand pairs per vira against the solver bot,
  with a 95% interval (``ci95``).

Figures over several viras are means over the viras. ``--json`` prints one JSON list of
``{"bot", "exploitability", "ev_vs_solver", "exact", "ci95", "viras", "hands"}``, best
``ev_vs_solver`` first; otherwise a table. ``--write`` also writes the ``bot_ranking``
table (every bot, the default hands and seed; rows of viras not ranked now are kept). A
vira without a stored policy is an error naming the command that builds it.
"""

from __future__ import annotations

import sys
import time

from ..ranking import (DEFAULT_HANDS, DEFAULT_SEED, check_ranking, rank_bots, ranked_bots,
                       summary)
from ..errors import InputError
from ..options import read_integer
from ..cli import print_json


def add_arguments(parser) -> None:
    parser.add_argument("--vira", nargs="+", action="extend", metavar="V",
                        help="vira ranks to rank on (default: every vira with a stored policy)")
    parser.add_argument("--bot", nargs="+", action="extend", metavar="NAME",
                        help=f"bots to rank: {', '.join(ranked_bots())} (default: all)")
    parser.add_argument("--hands", default=str(DEFAULT_HANDS), metavar="N",
                        help=f"simulated hand pairs per vira for the rule bots (default "
                             f"{DEFAULT_HANDS}, at least 2)")
    parser.add_argument("--seed", default=str(DEFAULT_SEED), metavar="S",
                        help=f"seed of the simulated deals and bots (default {DEFAULT_SEED})")
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    parser.add_argument("--write", action="store_true",
                        help="also write the bot_ranking table (all bots, default --hands "
                             "and --seed)")


def number(x, width: int = 8, sign: str = "+") -> str:
    return f"{'-':>{width}}" if x is None else f"{x:>{sign}{width}.4f}"


def table(entries: list) -> str:
    """The ranking as readable lines (points per hand)."""
    lines = [f"{'bot':<11}{'exploitability':>15}{'ev vs solver':>14}  {'95% interval':<21}how",
             f"{'':<11}{'(points per hand)':>29}"]
    for e in entries:
        ci = "exact" if e["ci95"] is None else f"[{e['ci95'][0]:+.3f}, {e['ci95'][1]:+.3f}]"
        how = "best response and value" if e["exact"] else \
            f"simulated, {e['hands']} hand pairs per vira"
        lines.append(f"{e['bot']:<11}{number(e['exploitability'], 15, '')}"
                     f"{number(e['ev_vs_solver'], 14)}  {ci:<21}{how}")
    lines.append(f"viras: {', '.join(entries[0]['viras'])}" if entries else "no bots")
    return "\n".join(lines)


def run(args) -> int:
    hands = read_integer(args.hands, "--hands")
    seed = read_integer(args.seed, "--seed")
    if seed < 0:
        raise InputError(f"--seed {seed}: the seed must be a non-negative integer")
    if args.write and (args.bot or hands != DEFAULT_HANDS or seed != DEFAULT_SEED):
        raise InputError("--write builds the bot_ranking table with every bot and the default "
                         "--hands and --seed; leave those out")
    check_ranking(args.vira, args.bot, hands, seed)
    if args.write:
        from ..tables import check_data_writable

        check_data_writable()
    start = time.perf_counter()
    frame = rank_bots(args.vira, args.bot, hands, seed)
    entries = summary(frame)
    if args.json:
        print_json(entries)
    else:
        print(table(entries))
    if args.write:
        from ..ranking import write_ranking

        from ..tables import table_paths

        written = write_ranking(frame, time.perf_counter() - start)
        print(f"wrote {table_paths('bot_ranking')[0]} ({written['vira'].nunique()} viras)",
              file=sys.stderr)
    return 0
