"""Solve the full hand game (truco ladder) per vira and write its tables to ``data/``.

``lab solve full [--vira V ... | --all] [--scheduler ADDRESS] [--minutes 40] [--target 0.001]
[--threads N] [--schedule NAME] [--checkpoints DIR [--from V]]``
sends one task per vira to a dask.distributed cluster (a local one when no address
is given), each an epsilon-Nash solve of the hand game with betting that stops at
the target exploitability (points per hand) or the time budget, and writes the
``full_ev``, ``full_strategy`` and ``full_summary`` tables (see
:mod:`lab.tables.full`). With ``--checkpoints DIR`` every solve saves its
state there, so that running the same command again resumes it. ``--from V`` starts
every other vira from vira V's solve there (its regrets, the average restarted): about a
third of the iterations of a solve from scratch. The viras solved are merged into the
tables on disk (``--replace``: only they are written; without it, tables on disk that
cannot be read while they hold other viras are refused before the solves).

``--rules NAME`` / ``--rule KEY=VALUE``: a house rule set whose normal hands differ (three
tied rounds that score nothing or go to the pé) solves the full game under it, with the
same settings, and records each vira's value, exploitability and scoreless rate in the
rule set's rows of the ``whatif`` table (which ``lab whatif --rules NAME`` must have
written first); the full-game tables of the lab's rules are not touched. A rule set whose
normal hands play as the lab's is refused: the stored solves are its full game.

:mod:`lab.commands.solve` hands ``lab solve full`` to this module.
"""

from __future__ import annotations

import sys
import time

from ..options import count, positive


def add_arguments(parser) -> None:
    from ..tables.registry import FULL_SETTINGS

    which = parser.add_mutually_exclusive_group()
    which.add_argument("--vira", action="append", metavar="V",
                       help="a vira rank or card (4, Q, 7c ...); repeat for several")
    which.add_argument("--all", action="store_true", help="all ten viras (the default)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="a dask.distributed scheduler (default: start a local cluster)")
    parser.add_argument("--workers", type=count, default=1, metavar="N",
                        help="worker processes of the local cluster (default 1)")
    parser.add_argument("--minutes", type=positive, default=None, metavar="M",
                        help="time budget of each vira's solve (default "
                             f"{FULL_SETTINGS['time_budget_minutes']:g})")
    parser.add_argument("--target", type=positive, default=None, metavar="EPS",
                        help="stop at this exploitability, points per hand (default "
                             f"{FULL_SETTINGS['target_exploitability']:g})")
    parser.add_argument("--storage", choices=("int16", "float32"), default=None,
                        help=f"regret storage (default {FULL_SETTINGS['storage']})")
    parser.add_argument("--threads", type=count, default=1, metavar="N",
                        help="numba threads per solve (the same iterates; on an idle 2-core "
                             "machine 2 threads take vira 4 to 0.001 in about 11 minutes)")
    parser.add_argument("--checkpoints", default=None, metavar="DIR",
                        help="save and resume each solve's state under DIR")
    parser.add_argument("--from", dest="start_vira", default=None, metavar="V",
                        help="start every other vira without a checkpoint of its own from "
                             "vira V's solve under --checkpoints (solved first when V is "
                             "asked for too): vira 5 from vira 4's reached 0.001 in 240 "
                             "iterations against 340-380 from scratch")
    parser.add_argument("--schedule", default=None, metavar="NAME",
                        help="Discounted CFR weights (default "
                             f"{FULL_SETTINGS.get('schedule', 'dcfr')}, the stored solves'): "
                             "dcfr, dcfr+ (measured fastest), dcfr-g3, dcfr-floor, lcfr, pcfr+ "
                             "or pdcfr+ (see benchmarks/full.md and `lab bench full "
                             "--schedules`)")
    add_replace_option(parser)


def add_replace_option(parser) -> None:
    """``--replace``: write only the rows solved now, instead of merging them into the
    tables on disk (which is refused when a table there cannot be read)."""
    parser.add_argument("--replace", action="store_true",
                        help="write only the rows solved now, dropping the table's other "
                             "rows (default: merge them into it; a table that cannot be "
                             "read is then refused, not dropped)")


def settings_from(args) -> dict:
    from ..tables.full import FULL_SETTINGS

    s = dict(FULL_SETTINGS)
    if args.minutes is not None:
        s["time_budget_minutes"] = float(args.minutes)
    if args.target is not None:
        s["target_exploitability"] = float(args.target)
    if args.storage is not None:
        s["storage"] = args.storage
    if args.schedule is not None:
        from ..solver.cfr import schedule_of

        s["schedule"] = schedule_of(args.schedule).name
    return s


def run(args) -> int:
    from ..tables.full import solve_viras_full, write_full_tables
    from ..cli import chosen_viras
    from ..cluster import check_scheduler
    from ..store import check_writable
    from ..tables import check_data_writable

    viras = chosen_viras(args.vira)
    settings = settings_from(args)
    rules = house_rules(args)
    if rules is not None:
        settings["three_ties"] = rules.three_ties
    check_data_writable()
    if args.checkpoints is not None:
        check_writable(args.checkpoints, "--checkpoints")
    if args.scheduler is not None:
        check_scheduler(args.scheduler)
    start_vira = start_of(args, viras, settings)
    if rules is None and not args.replace:   # refused now, not after the solves
        from ..tables.full import FULL_TABLES
        from ..tables.manifests import check_mergeable

        check_mergeable(FULL_TABLES, settings, viras)
    print(f"solving the full game for vira {', '.join(viras)} "
          f"({'scheduler ' + args.scheduler if args.scheduler else 'local cluster'})",
          file=sys.stderr)
    start = time.time()
    results = solve_viras_full(viras, settings, scheduler=args.scheduler,
                               checkpoint_root=args.checkpoints, local_workers=args.workers,
                               threads=args.threads, start_vira=start_vira)
    if rules is not None:
        return record_house_rules(rules, viras, results, time.time() - start)
    tables = write_full_tables(results, settings, replace=args.replace)
    for v in viras:
        s, source = results[v]["full_summary"], results[v].get("start")
        print(f"vira {v}: mão EV {s['value_mao']:+.4f} points, exploitability "
              f"{s['exploitability']:.4f} points, {s['iterations']} iterations"
              + (f" from vira {source['vira']}'s solve" if source else ""), file=sys.stderr)
    print(", ".join(f"data/{n}.parquet ({len(df)} rows)" for n, df in tables.items()))
    note_match_model()
    return 0


def start_of(args, viras, settings: dict):
    """The vira of ``--from`` (rank character), or None; InputError without
    ``--checkpoints``, or when that vira's solve is neither there nor asked for."""
    from ..cli import chosen_viras
    from ..errors import InputError
    from ..solver.fullgame.solver import has_checkpoint
    from ..tables.full import points_checkpoint

    if args.start_vira is None:
        return None
    (start,) = chosen_viras([args.start_vira])
    if args.checkpoints is None:
        raise InputError("--from needs --checkpoints DIR: the folder that holds (or will "
                         f"hold) vira {start}'s solve")
    source = points_checkpoint(args.checkpoints, start, settings)
    if start not in viras and not has_checkpoint(source):
        raise InputError(f"--from {start}: {source} holds no solve of vira {start}; "
                         f"`lab solve full --vira {start} --checkpoints {args.checkpoints}` "
                         f"writes one (or add --vira {start} to solve it first)")
    return start


def house_rules(args):
    """The house rule set of ``--rules`` / ``--rule``, or None for the lab's own rules;
    InputError for one whose full game is the lab's, or whose what-if is not written yet
    (checked before any solving)."""
    from ..cli import rules_from
    from ..errors import InputError
    from ..rules import DEFAULT_RULES
    from ..tables import TableError
    from ..tables.whatif import solves_other_full_game, whatif_command, whatif_rows

    rules = rules_from(args)
    if rules == DEFAULT_RULES:
        return None
    if not solves_other_full_game(rules):
        raise InputError(f"--rules {rules.name}: its normal hands play as under the lab's "
                         "rules (three tied rounds go to the mão, and surrendering on one's "
                         "turn is never better than playing on), so the stored full-game "
                         "tables are its full game: nothing to solve")
    try:
        whatif_rows(rules)
    except TableError as exc:
        raise TableError(f"{exc} (the full game under --rules {rules.name} is recorded in "
                         f"its what-if rows: `{whatif_command(rules)}` writes them)") from None
    return rules


def record_house_rules(rules, viras, results: dict, seconds: float = 0.0) -> int:
    """Write the variant's full-game figures into its what-if rows and print them."""
    from ..tables.whatif import add_full_game, stored_variant_full_game, whatif_command

    rows = add_full_game(rules, {v: results[v]["full_summary"] for v in viras}, seconds)
    for v in viras:
        row = rows[(rows["quantity"] == "full_game_value") & (rows["vira"] == v)].iloc[0]
        tied = rows[(rows["quantity"] == "full_game_scoreless") & (rows["vira"] == v)]
        print(f"vira {v} under {rules.name}: mão EV {row['variant']:+.4f} points "
              f"(exploitability {row['variant_exploitability']:.4f}), the lab's rules "
              f"{row['default']:+.4f} (exploitability {row['default_exploitability']:.4f}); "
              f"hands that score nothing {tied['variant'].iloc[0]:.5f}", file=sys.stderr)
    print(f"data/whatif.parquet: rules {rules.name}, full game of vira {', '.join(viras)}")
    if stored_variant_full_game(rules) is not None:
        print(f"note: the full game under {rules.name} is now solved for all ten viras; "
              f"`{whatif_command(rules)}` compares the match on it", file=sys.stderr)
    return 0


def note_match_model() -> None:
    """Say so when the full game now covers all ten viras but the match tables still use
    the card-play model for normal scores."""
    from ..match import CARDPLAY_MODEL
    from ..tables import TableError, load_table

    try:
        load_table("full_summary")
        uses_cardplay = (load_table("match_equity")["model"] == CARDPLAY_MODEL).any()
    except TableError:
        return
    if uses_cardplay:
        print("note: the full game is now solved for all ten viras; `lab solve match` "
              "rebuilds the match tables on it", file=sys.stderr)
