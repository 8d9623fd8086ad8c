"""Rank the bots by the points they lose: exploitability and expected points against the solver.

``lab rank [--vira V ...] [--bot NAME ...] [--json] [--recompute | --write [--replace]]
[--hands N] [--seed S]``

Without ``--recompute`` or ``--write`` it prints the stored ``bot_ranking`` table at once
(read through :mod:`lab.tables`, manifest checked), first a line saying which stored table
and policies it shows and which viras it lacks (on stdout before the table; on stderr
with ``--json``). A request the stored table cannot serve (a vira or bot it does not hold,
other ``--hands`` or ``--seed``) is one ``error:`` line naming ``--recompute``.

``--recompute`` ranks now, without storing: for every bot (the registry of
lab/sim/bots.py: random, cautious, aggressive, solver; and ``uniform``, the uniform
policy over the solved game's actions), on each vira with a stored full-game policy
(default: all of them), at 0-0, in points per hand (see lab/ranking.py):

- ``exploitability``: what a best responder wins per hand against the bot, the seats
  averaged; exact (best response) for the bots that are tables of the solved game (solver,
  uniform), null for the rule bots (too slow to tabulate);
- ``ev_vs_solver``: the bot's expected points per hand against the solver; exact for the
  tabulated bots, else simulated: N mirrored hand pairs per vira against the solver bot
  (2 to 100000, checked before any work), with a 95% interval (``ci95``).

It takes minutes per vira: an estimate of the time is printed on stderr before it starts,
and a progress bar runs on stderr when stderr is a terminal. ``--write`` recomputes and
writes the ``bot_ranking`` table (every bot, the default hands and seed; rows of viras not
ranked now are kept; ``--replace`` writes only them, for a table on disk that cannot be
read). A vira without a stored policy is an error naming the command that builds it.

Figures over several viras are means over the viras. ``--json`` prints one JSON list of
``{"bot", "exploitability", "ev_vs_solver", "exact", "ci95", "viras", "hands"}``, best
``ev_vs_solver`` first, the same for the stored table and a recomputed one; otherwise a
table.
"""

from __future__ import annotations

import sys
import time

from ..ranking import (DEFAULT_HANDS, DEFAULT_SEED, MAX_HANDS, check_ranking, duration_text,
                       estimate_seconds, rank_bots, ranked_bots, stored_line, stored_ranking,
                       summary)
from ..errors import InputError
from ..options import read_integer
from ..cli import print_json


def add_arguments(parser) -> None:
    parser.add_argument("--vira", nargs="+", action="extend", metavar="V",
                        help="vira ranks to rank on (default: every vira the stored table "
                             "holds; with --recompute, every vira with a stored policy)")
    parser.add_argument("--bot", nargs="+", action="extend", metavar="NAME",
                        help=f"bots to rank: {', '.join(ranked_bots())} (default: all)")
    parser.add_argument("--hands", metavar="N",
                        help=f"simulated hand pairs per vira for the rule bots, with "
                             f"--recompute (default {DEFAULT_HANDS}, 2 to {MAX_HANDS})")
    parser.add_argument("--seed", metavar="S",
                        help=f"seed of the simulated deals and bots, with --recompute "
                             f"(default {DEFAULT_SEED})")
    parser.add_argument("--json", action="store_true", help="print a JSON list")
    parser.add_argument("--recompute", action="store_true",
                        help="rank now instead of printing the stored table (minutes per "
                             "vira)")
    parser.add_argument("--write", action="store_true",
                        help="recompute and write the bot_ranking table (all bots, default "
                             "--hands and --seed)")
    parser.add_argument("--replace", action="store_true",
                        help="with --write: keep only the viras ranked now (for a table on "
                             "disk that cannot be read)")


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


def show(entries: list, as_json: bool, line: str = "") -> None:
    """Print the ranking (JSON or a table); ``line`` (which stored table it is) before the
    table, or on stderr beside the JSON."""
    if as_json:
        if line:
            print(line, file=sys.stderr)
        print_json(entries)
    else:
        print(("\n".join([line, table(entries)])) if line else table(entries))


def run(args) -> int:
    hands = None if args.hands is None else read_integer(args.hands, "--hands")
    seed = None if args.seed is None else read_integer(args.seed, "--seed")
    if seed is not None and seed < 0:
        raise InputError(f"--seed {seed}: the seed must be a non-negative integer")
    if args.replace and not args.write:
        raise InputError("--replace goes with --write: it writes only the viras ranked now")
    if not (args.recompute or args.write):
        frame, manifest = stored_ranking(args.vira, args.bot, hands, seed)
        show(summary(frame), args.json, stored_line(frame, manifest))
        return 0
    hands = DEFAULT_HANDS if hands is None else hands
    seed = DEFAULT_SEED if seed is None else seed
    if args.write and (args.bot or hands != DEFAULT_HANDS or seed != DEFAULT_SEED):
        raise InputError("--write builds the bot_ranking table with every bot and the default "
                         "--hands and --seed; leave those out")
    viras, bots = check_ranking(args.vira, args.bot, hands, seed)
    if args.write:
        from ..tables import check_data_writable

        check_data_writable()
    print(f"ranking {len(bots)} bot{'s' if len(bots) > 1 else ''} on {len(viras)} "
          f"vira{'s' if len(viras) > 1 else ''}: "
          f"{duration_text(estimate_seconds(viras, bots, hands))} (estimate)", file=sys.stderr)
    start = time.perf_counter()
    frame = rank_bots(viras, bots, hands, seed)
    show(summary(frame), args.json)
    if args.write:
        from ..ranking import write_ranking

        from ..tables import table_paths

        written = write_ranking(frame, time.perf_counter() - start, replace=args.replace)
        print(f"wrote {table_paths('bot_ranking')[0]} ({written['vira'].nunique()} viras)",
              file=sys.stderr)
    return 0
