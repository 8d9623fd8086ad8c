"""The score-aware sweep: ``lab solve match-play --checkpoints DIR``.

Re-solves the hand with match-win payoffs at every chosen (vira, score) — by default every
score whose points-play leak, averaged over the viras in ``score_leak``, exceeds
``--min-leak`` (0.02 match-win probability), for every vira with a points solution in
``DIR`` (``--vira`` to choose; or ``--at V:M,P``, repeated, each vira with its own scores)
— until ``--target`` (0.002 match-win probability) or ``--minutes`` per re-solve, in the
order :mod:`lab.tables.score_sweep` explains (waves of equal total points from the end of
the match down, each wave's payoffs from the match equity of every re-solve so far, every
vira's re-solves of the wave in it; warm starts from the nearest re-solved score). One dask
task per (vira, score): a local cluster of ``--workers`` processes, or ``--scheduler
ADDRESS``. Each finished re-solve is merged into ``score_play`` and ``score_play_hands``
and ``match_equity_mixed`` is rebuilt; a killed sweep started again resumes where it was,
and a finished re-solve whose payoffs have moved since (a score it leads to was re-solved
after it) so far that its exploitability may exceed ``--target`` is solved again.
Vira 3 plays vira 2's game and takes its re-solves (it needs vira 2's points solution).
``--again`` solves the chosen finished re-solves again and keeps their solutions (for ``lab
solve policy --score``). ``--plan`` prints the order (with each finished re-solve's payoff
drift) and exits;
``--tables-only`` rebuilds ``match_equity_mixed`` from the tables on disk; ``--check``
measures the stored re-solves again from their checkpoints.
"""

from __future__ import annotations

import math
import sys

from ..options import count, number, positive, UsageError
from .solve_score import chosen_scores


def add_arguments(parser) -> None:
    parser.add_argument("--checkpoints", metavar="DIR",
                        help="where `lab solve full --checkpoints DIR` saved the points "
                             "solutions; the re-solves are kept under DIR/score")
    parser.add_argument("--vira", action="append", metavar="V",
                        help="a vira rank or card; repeat for several (default: every vira "
                             "with a points solution in DIR)")
    parser.add_argument("--score", action="append", metavar="M,P",
                        help="re-solve this score (both 0..10); repeat for several "
                             "(default: the scores of --min-leak)")
    parser.add_argument("--at", action="append", metavar="V:M,P",
                        help="one re-solve: vira V at score M,P (4:10,9); repeat for several, "
                             "each vira with its own scores (instead of --vira and --score)")
    parser.add_argument("--min-leak", type=positive, default=0.02, metavar="L",
                        help="the scores whose points-play leak, averaged over the viras in "
                             "score_leak, exceeds L match-win probability (default 0.02)")
    parser.add_argument("--target", type=positive, default=0.002, metavar="EPS",
                        help="stop each re-solve at exploitability EPS match-win "
                             "probability, checked every 10 iterations (default 0.002)")
    parser.add_argument("--minutes", type=number, default=30.0, metavar="M",
                        help="the most time per re-solve (default 30)")
    parser.add_argument("--threads", type=count, default=1, metavar="N",
                        help="numba threads per re-solve (the same iterates; default 1)")
    parser.add_argument("--start", choices=("nearest", "points"), default="nearest",
                        help="warm start: the nearest re-solved score of the vira within 2 "
                             "points when there is one (default), or always points play")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="a dask.distributed scheduler (default: start a local cluster)")
    parser.add_argument("--workers", type=count, default=1, metavar="N",
                        help="worker processes of the local cluster (default 1)")
    parser.add_argument("--keep", choices=("all", "one"), default="all",
                        help="the re-solves' solutions (about 0.4 GB each on disk) to keep: all (the "
                             "default; `lab solve policy --score` and `--check` read them), "
                             "or one per score, the first finished, which starts the other "
                             "viras' re-solves of it (the others' are deleted once written)")
    parser.add_argument("--again", action="store_true",
                        help="solve the chosen (--vira, --score) re-solves again even where "
                             "finished, and keep their solutions (for `lab solve policy "
                             "--score`, whichever --keep)")
    parser.add_argument("--replace", action="store_true",
                        help="start score_play again with this sweep's re-solves (the rows "
                             "on disk dropped, their keys left to re-solve) where it is "
                             "damaged; without it a damaged table is refused, not dropped")
    parser.add_argument("--plan", action="store_true",
                        help="print the (vira, score) re-solves in their order, each finished "
                             "one (in DIR or in score_play) with how far its payoffs lie from "
                             "the match equity now and whether it would be solved again, and "
                             "exit")
    parser.add_argument("--tables-only", action="store_true",
                        help="only rebuild match_equity_mixed from the tables on disk")
    parser.add_argument("--check", action="store_true",
                        help="measure each score_play row of the chosen viras and scores "
                             "again from its checkpoint (value and exploitability) and exit")


def chosen_pairs(texts) -> list:
    """(vira rank, score) of each ``--at V:M,P``; UsageError on a malformed or repeated one."""
    from ..cards import RANKS
    from ..classes import vira_rank_of

    pairs = []
    for text in texts:
        vira, sep, score = text.partition(":")
        if not sep or not vira.strip():
            raise UsageError(f"--at {text}: give a vira and a score, as 4:10,9")
        pair = (RANKS[vira_rank_of(vira.strip())], chosen_scores([score])[0])
        if pair in pairs:
            raise UsageError(f"--at {text}: given twice")
        pairs.append(pair)
    return pairs


def chosen_cells(args, viras, pairs=None) -> list:
    """(vira, score, mean points-play leak) of every re-solve asked for: ``pairs`` (of
    ``--at``) when given, else every vira of ``viras`` at each chosen score."""
    import numpy as np

    from ..tables import load_table, read_manifest
    from ..tables.registry import TableError

    try:
        leaks = load_table("score_leak", viras=list(read_manifest("score_leak")["viras"]))
    except (TableError, KeyError) as exc:
        raise UsageError(f"the sweep orders its scores by the points play's leak: {exc}; "
                         "measure it with `lab solve score --all-scores --checkpoints DIR`") \
            from None
    mean = leaks.groupby(["score_mao", "score_pe"])["leak"].mean()
    if pairs:
        return [(v, s, float(mean.get(s, np.nan))) for v, s in pairs]
    if args.score:
        scores = chosen_scores(args.score)
    else:
        scores = [s for s, x in mean.items() if x > args.min_leak]
        if not scores:
            raise UsageError(f"--min-leak {args.min_leak}: no score's mean leak exceeds it "
                             f"(the largest is {mean.max():.4f})")
    return [(v, tuple(int(x) for x in s), float(mean.get(tuple(s), np.nan)))
            for s in scores for v in viras]


def run(args) -> int:
    from tqdm import tqdm

    from ..cards import RANKS
    from ..classes import same_game_vira, vira_rank_of
    from ..cli import chosen_viras, print_json
    from ..tables import check_data_writable
    from ..tables.score import has_points_solution
    from ..tables.score_play import write_mixed_equity
    from ..tables.score_sweep import finished, standing, sweep, waves

    def say(line: str) -> None:
        tqdm.write(line, file=sys.stderr)

    if args.tables_only:
        check_data_writable()
        table = write_mixed_equity()
        aware = table[table["score_aware_viras"] > 0]
        say(f"match_equity_mixed: {len(aware)} scores with score-aware play, largest change "
            f"{table['difference'].abs().max():.4f} match-win probability")
        return 0
    if not args.checkpoints:
        raise UsageError("give --checkpoints DIR (where `lab solve full --checkpoints DIR` "
                         "saved the points solutions), or --tables-only")
    if not 0 < args.minutes < math.inf:
        raise UsageError(f"--minutes {args.minutes}: give a positive finite number")
    pairs = None
    if args.at:
        if args.vira or args.score:
            raise UsageError("--at names each re-solve with its vira: give it without --vira "
                             "and --score")
        pairs = chosen_pairs(args.at)
    if args.vira or pairs:
        viras = chosen_viras(args.vira) if args.vira else list(dict.fromkeys(v for v, _ in pairs))
        # a vira that plays another vira's game (3 plays 2's) takes that vira's re-solves
        games = dict.fromkeys(RANKS[same_game_vira(v)] for v in viras)
        missing = [g for g in games if not has_points_solution(args.checkpoints, g)]
        if missing:
            have = [v for v in RANKS if has_points_solution(args.checkpoints, v)]
            raise UsageError(f"no points solution for vira {', '.join(missing)} in "
                             f"{args.checkpoints}: run `lab solve full --vira {missing[0]} "
                             f"--checkpoints {args.checkpoints}"
                             + (f" --from {have[0]}` first (started from vira {have[0]}'s "
                                "solution: about a third of the iterations)" if have else
                                "` first"))
    else:
        viras = [v for v in RANKS
                 if has_points_solution(args.checkpoints, RANKS[same_game_vira(v)])]
        if not viras:
            raise UsageError(f"no points solution in {args.checkpoints}: run `lab solve full "
                             f"--vira V --checkpoints {args.checkpoints}` first")
    viras = [RANKS[vira_rank_of(v)] for v in viras]
    if args.again and not (pairs or (args.vira and args.score)):
        raise UsageError("--again solves finished re-solves again: choose them with --vira "
                         "and --score, or --at")
    cells = chosen_cells(args, viras, pairs)
    again = {(RANKS[same_game_vira(v)], s) for v, s, _ in cells} if args.again else set()
    if args.check:
        return check_rows(args, cells, say)
    if args.plan:
        from ..match import equity_array
        from ..tables.score_play import mixed_equity, plays_to_build_on

        plays = plays_to_build_on()[0]
        me = equity_array(mixed_equity(plays))
        for wave in waves(cells):
            for v, s, leak in wave:
                how, row, moved = standing(args.checkpoints, plays, v, s, me, args.target)
                line = {"vira": v, "score": list(s), "mean_leak": round(leak, 5),
                        "finished": row is not None,
                        "files": finished(args.checkpoints, v, s) is not None}
                if row is not None:
                    line["exploitability"] = float(row["exploitability"])
                    line["drift"] = round(moved, 6)
                    line["stale"] = how == "again"
                print_json(line)
        return 0
    check_data_writable()
    if not args.replace:   # refused now, not after the first re-solve
        from ..tables.score_play import check_plays_whole

        check_plays_whole()
    client = cluster = None
    from dask.distributed import Client

    from ..cluster import connect, local_cluster
    if args.scheduler:
        client = connect(args.scheduler)
    else:
        cluster = local_cluster(args.workers)
        client = Client(cluster)
    try:
        results = sweep(cells, args.checkpoints, target=args.target, minutes=args.minutes,
                        threads=args.threads, nearest=args.start == "nearest", client=client,
                        say=say, keep_all=args.keep == "all", again=again,
                        replace=args.replace)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    for r in results:
        row = r["row"]
        print_json({"vira": row["vira"], "score": [row["score_mao"], row["score_pe"]],
                    "start": row["start"], "iterations": row["iterations"],
                    "seconds": row["seconds"], "exploitability": row["exploitability"],
                    "value_mao": row["value_mao"], "points_value_mao": row["points_value_mao"],
                    "points_leak": row["points_leak"], "checks": r["checks"]})
    return 0


def check_rows(args, cells, say) -> int:
    """``--check``: each stored re-solve of ``cells`` measured again from its checkpoint;
    one JSON line each (match-win probability); exit 1 if one differs by more than 1e-9."""
    from ..cli import print_json
    from ..tables.score_play import load_plays
    from ..tables.score_sweep import check_row, score_dir

    plays, _ = load_plays()
    worst = 0.0
    for v, s, _ in cells:
        rows = plays[(plays["vira"] == v) & (plays["score_mao"] == s[0])
                     & (plays["score_pe"] == s[1])] if len(plays) else plays
        if not len(rows) or not (score_dir(args.checkpoints, v, s) / "solution").exists():
            continue
        row = rows.iloc[0].to_dict()
        say(f"vira {v} at {s[0]},{s[1]}: measuring the re-solve again from its checkpoint")
        value, expl = check_row(args.checkpoints, row, threads=args.threads)
        diff = max(abs(value - row["value_mao"]), abs(expl - row["exploitability"]))
        worst = max(worst, diff)
        print_json({"vira": v, "score": list(s), "value_mao": value,
                    "table_value_mao": row["value_mao"], "exploitability": expl,
                    "table_exploitability": row["exploitability"], "difference": diff})
    return 0 if worst <= 1e-9 else 1
