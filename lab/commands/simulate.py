"""Simulate matches between two bots and print the result as one JSON object.

``lab simulate --a BOT --b BOT --matches N [--seed S]`` plays N matches in mirrored pairs
(every deal stream twice, the bots' cards and seats swapped) and prints A's and B's match
wins, A's match-win rate with its 95% confidence interval (``ci95``), the hands played (and
how many scored nothing) and the points scored. ``--rules NAME`` and ``--rule KEY=VALUE``
choose the house rules (printed as ``rules``); the solver bot's policies are solved for the
default rules whatever these say (``solver_rules``). A fixed seed gives identical output,
whatever runs the matches. Large batches run on dask (a LocalCluster, or ``--scheduler
ADDRESS``).

``--record FILE.jsonl`` also writes every hand of every match as a match record
(:mod:`lab.match_record`, ``docs/match_records.md``): matches in the order of their
number (id ``m0``, ``m1`` ...), both seats' cards, each seat named after its bot (``NAME-a``
and ``NAME-b`` when both bots are the same); with any ``--workers`` or ``--scheduler``.
Its folder is made when missing.

The ``exploiter`` (:mod:`lab.exploiter`) learns from match to match, so a run with it
plays here, in order; ``--profiles DIR`` keeps its opponents' profiles between runs and
``--exploits DIR`` gives it the exploits prepared for them; the output says in how many
hands it played an exploit and how often it saw its opponent change.
"""

from __future__ import annotations

import random
from pathlib import Path

from ..sim.batch import check_matches, run_matches
from ..sim.bots import BOT_NAMES, check_bot_name
from ..sim.match import FIRST_CHOICES
from ..errors import InputError
from ..cards import parse_card, parse_cards
from ..match_record import HandRecord, write_records
from ..rules import DEFAULT_RULES, MAO, NOBODY, PE, SEAT_NAMES, check_score, parse_action
from ..options import MAX_PROCESSES, MAX_SEED, read_integer
from ..store import check_output_file, write_atomic
from ..cli import add_rule_options, print_json, rules_from


def parse_start(text: str) -> tuple[int, int]:
    parts = text.split(",")
    if len(parts) != 2:
        raise InputError(f"--start {text!r}: write A's and B's points as A,B")
    start = read_integer(parts[0], "--start"), read_integer(parts[1], "--start")
    try:
        check_score(start)
    except InputError as exc:
        raise InputError(f"--start {exc}") from None
    return start


MAX_RECORDED = 100_000
"""The most matches ``--record`` writes in one run: every hand is kept in memory until the
file is written (about 10 hands and 3.5 kB of file a match)."""


def player_names(a: str, b: str) -> tuple[str, str]:
    """The names of bots A and B in a record: their bot names, ``NAME-a`` and ``NAME-b``
    when they are the same bot (a record names two different players)."""
    return (a, b) if a != b else (f"{a}-a", f"{b}-b")


def hand_records(hands, a: str, b: str, rules) -> list:
    """The match records (:class:`lab.match_record.HandRecord`) of the hands frame of
    :func:`lab.sim.batch.run_matches` with ``record``, in match order."""
    names = player_names(a, b)
    out = []
    for row in hands.itertuples(index=False):
        a_mao = row.a_seat == SEAT_NAMES[MAO]
        score = (row.a_score, row.b_score) if a_mao else (row.b_score, row.a_score)
        winner = None if row.winner == NOBODY else \
            (MAO if (row.winner == "a") == a_mao else PE)
        out.append(HandRecord(
            match=f"m{2 * int(row.pair) + int(row.mirror)}", hand=int(row.hand) + 1,
            rules=rules, vira=parse_card(row.vira),
            players=names if a_mao else (names[1], names[0]),
            score=(int(score[0]), int(score[1])),
            cards=(parse_cards(row.mao_cards, 3), parse_cards(row.pe_cards, 3)),
            actions=tuple(parse_action(t) for t in row.actions.split()),
            result=(winner, int(row.points))))
    return out


def add_arguments(parser) -> None:
    names = ", ".join(BOT_NAMES) + " (solver: policies solved for the default rules)"
    parser.add_argument("--a", required=True, metavar="BOT", help=f"bot A: {names}")
    parser.add_argument("--b", required=True, metavar="BOT", help=f"bot B: {names}")
    parser.add_argument("--matches", required=True, metavar="N", help="matches to play (N >= 1)")
    parser.add_argument("--seed", default=None, metavar="S",
                        help=f"seed (an integer 0..{MAX_SEED}); default: a fresh one, printed")
    parser.add_argument("--first", default="alternate", choices=FIRST_CHOICES,
                        help="who is mão in each match's first hand (default: alternate)")
    parser.add_argument("--start", default="0,0", metavar="A,B",
                        help="A's and B's points when each match starts (default 0,0)")
    parser.add_argument("--workers", default="0", metavar="K",
                        help="1: play here; K >= 2: a dask LocalCluster of K processes (at "
                             f"most {MAX_PROCESSES}, four per core); 0 (default): here below "
                             "4000 matches, else one process per core")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="run on the dask cluster at ADDRESS instead")
    parser.add_argument("--out", default=None, metavar="FILE",
                        help="also write one row per match to FILE (.csv or .parquet)")
    parser.add_argument("--record", default=None, metavar="FILE",
                        help="also write every hand of every match to FILE (.jsonl, one match "
                             f"record line per hand; at most {MAX_RECORDED:,} matches)")
    parser.add_argument("--profiles", default=None, metavar="DIR",
                        help="the exploiter keeps each opponent's profile in DIR "
                             "(NAME.profile.json), read at the start, written after each match")
    parser.add_argument("--exploits", default=None, metavar="DIR",
                        help="the exploiter plays the exploits prepared in DIR/OPPONENT "
                             "(`lab solve lock --out DIR/OPPONENT`) once the opponent's "
                             "profile shows their habits")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_rule_options(parser)


def run(args) -> int:
    check_bot_name(args.a)
    check_bot_name(args.b)
    matches = read_integer(args.matches, "--matches")
    try:
        check_matches(matches)
    except InputError as exc:
        raise InputError(f"--matches {exc}") from None
    seed = random.SystemRandom().randrange(2**32) if args.seed is None else \
        read_integer(args.seed, "--seed", 0, MAX_SEED)
    workers = read_integer(args.workers, "--workers", 0, MAX_PROCESSES)
    start = parse_start(args.start)
    rules = rules_from(args)
    if args.out is not None:
        check_output_file(args.out, "--out", (".csv", ".parquet"))
    if args.record is not None:
        if matches > MAX_RECORDED:
            raise InputError(f"--record: at most {MAX_RECORDED:,} matches are recorded in one "
                             f"run (each hand is a line of about 350 bytes), not {matches:,}")
        if str(args.record).strip():
            Path(args.record).parent.mkdir(parents=True, exist_ok=True)
        check_output_file(args.record, "--record", (".jsonl",))
    learning = "exploiter" in (args.a, args.b)
    if learning and (workers > 1 or args.scheduler):
        raise InputError("the exploiter learns from match to match of one run: play it here "
                         "(--workers 1, no --scheduler)")
    if (args.profiles or args.exploits) and not learning:
        raise InputError("--profiles and --exploits are the exploiter's: name it with --a or "
                         "--b")
    from ..exploiter import stored_exploiter_bot
    from ..ranking import command_bot  # the solver bot on the stored policies and tables

    bots = [stored_exploiter_bot(args.profiles, args.exploits) if name == "exploiter" else
            command_bot(name) if name == "solver" else name for name in (args.a, args.b)]
    frame, hands = run_matches(*bots, matches, seed, first=args.first, start=start,
                               workers=1 if learning else workers, scheduler=args.scheduler,
                               progress=not args.quiet, rules=rules,
                               record=args.record is not None)
    from ..sim.stats import summary

    if args.out is not None:
        data = frame.to_csv(index=False) if args.out.endswith(".csv") else \
            frame.to_parquet(index=False)
        write_atomic(args.out, data)
    if args.record is not None:
        write_records(args.record, hand_records(hands, args.a, args.b, rules))
    result = {"a": args.a, "b": args.b, "seed": seed, "first": args.first,
              "start": list(start), "rules": {"name": rules.name, **rules.items()}}
    if "solver" in (args.a, args.b) or learning:
        result["solver_rules"] = DEFAULT_RULES.name
    result.update(summary(frame, start))
    for name, bot in zip((args.a, args.b), bots):
        if name == "exploiter":
            result[f"exploiter_{'a' if bot is bots[0] else 'b'}"] = {
                "exploit_hands": bot.exploit_hands, "changes_seen": bot.changes}
    print_json(result)
    return 0
