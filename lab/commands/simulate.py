"""Simulate matches between two bots and print the result as one JSON object.

``lab simulate --a BOT --b BOT --matches N [--seed S]`` plays N matches in mirrored pairs
(every deal stream twice, the bots' cards and seats swapped) and prints A's and B's match
wins, A's match-win rate with its 95% confidence interval (``ci95``), the hands played and
the points scored. A fixed seed gives identical output, whatever runs the matches. Large
batches run on dask (a LocalCluster, or ``--scheduler ADDRESS``).
"""

from __future__ import annotations

import json
import os
import random

from ..sim.batch import check_matches, run_matches
from ..sim.bots import BOT_NAMES, make_bot
from ..sim.match import FIRST_CHOICES
from ..errors import InputError


def parse_int(text: str, what: str) -> int:
    """An integer written in decimal; ValueError naming ``what`` otherwise."""
    try:
        return int(text, 10)
    except (TypeError, ValueError):
        raise InputError(f"{what} {text!r}: not an integer") from None


def parse_start(text: str) -> tuple[int, int]:
    parts = text.split(",")
    if len(parts) != 2:
        raise InputError(f"--start {text!r}: write A's and B's points as A,B")
    return parse_int(parts[0], "--start"), parse_int(parts[1], "--start")


def add_arguments(parser) -> None:
    names = ", ".join(BOT_NAMES)
    parser.add_argument("--a", required=True, metavar="BOT", help=f"bot A: {names}")
    parser.add_argument("--b", required=True, metavar="BOT", help=f"bot B: {names}")
    parser.add_argument("--matches", required=True, metavar="N", help="matches to play (N >= 1)")
    parser.add_argument("--seed", default=None, metavar="S",
                        help="seed (non-negative integer); default: a fresh one, printed")
    parser.add_argument("--first", default="alternate", choices=FIRST_CHOICES,
                        help="who is mão in each match's first hand (default: alternate)")
    parser.add_argument("--start", default="0,0", metavar="A,B",
                        help="A's and B's points when each match starts (default 0,0)")
    parser.add_argument("--workers", default="0", metavar="K",
                        help="1: play here; K >= 2: a dask LocalCluster of K processes; "
                             "0 (default): here below 4000 matches, else one process per core")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="run on the dask cluster at ADDRESS instead")
    parser.add_argument("--out", default=None, metavar="FILE",
                        help="also write one row per match to FILE (.csv or .parquet)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args) -> int:
    make_bot(args.a)
    make_bot(args.b)
    matches = check_matches(parse_int(args.matches, "--matches"))
    seed = random.SystemRandom().randrange(2**32) if args.seed is None else \
        parse_int(args.seed, "--seed")
    if seed < 0:
        raise InputError(f"--seed {seed}: the seed must be a non-negative integer")
    workers = parse_int(args.workers, "--workers")
    start = parse_start(args.start)
    if args.out and not args.out.endswith((".csv", ".parquet")):
        raise InputError(f"--out {args.out!r}: write a .csv or .parquet file")
    if args.out:
        folder = os.path.dirname(os.path.abspath(args.out))
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            raise InputError(f"--out {args.out!r}: {folder} is not a writable folder")
    from ..ranking import command_bot  # the solver bot on the stored policies and tables

    bots = [command_bot(name) if name == "solver" else name for name in (args.a, args.b)]
    frame, _ = run_matches(*bots, matches, seed, first=args.first, start=start,
                           workers=workers, scheduler=args.scheduler,
                           progress=not args.quiet)
    from ..sim.stats import summary

    if args.out:
        if args.out.endswith(".csv"):
            frame.to_csv(args.out, index=False)
        else:
            frame.to_parquet(args.out, index=False)
    result = {"a": args.a, "b": args.b, "seed": seed, "first": args.first,
              "start": list(start), **summary(frame, start)}
    print(json.dumps(result))
    return 0
