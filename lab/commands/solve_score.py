"""Play at one score: the points strategy's leak and a score-aware re-solve.

``lab solve score --score M,P --checkpoints DIR [--vira V ...] [--minutes 5] [--target EPS]
[--start points|previous] [--threads N]`` (or
``--all-scores``: the 121 scores where the truco ladder is played) loads, for
each vira, the points solution that ``lab solve full --checkpoints DIR`` left in ``DIR``,
measures its leak at score ``M,P`` (each seat's best-response gain against it with
payoffs in match-win probability, from the ``match_equity`` table) and, unless
``--minutes 0``, re-solves that score with the match payoffs for M minutes per vira
(warm-started from the points solution, or with ``--start previous`` from the re-solve of
the score given before; ``--target EPS`` stops it earlier, once its exploitability is at
most EPS match-win probability). It prints one JSON object per score
and merges its rows into the ``score_leak`` table (see :mod:`lab.tables.score`); a table on
disk that cannot be read is refused before the work unless the run measures all it holds
(``--all-scores`` of its viras) or ``--replace`` (only this run's rows are written).

Viras 2 and 3 play one game, which ``lab solve full`` solves once, as vira 2: the game is
measured (and re-solved) once, on whichever of the two points solutions ``DIR`` holds,
and the other vira gets the same numbers, its hands named for it (``same_game_as``).
"""

from __future__ import annotations

import math
import sys

from ..options import count, number, positive, UsageError
from ..rules import parse_score


def add_arguments(parser) -> None:
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--score", action="append", metavar="M,P",
                       help="the points of the next hand's mão and pé (both 0..10); "
                            "repeat for several scores")
    which.add_argument("--all-scores", action="store_true",
                       help="the 121 scores where the truco ladder is played (leak only "
                            "unless --minutes is given; about 4 minutes per vira)")
    parser.add_argument("--checkpoints", required=True, metavar="DIR",
                        help="where `lab solve full --checkpoints DIR` saved the points "
                             "solutions")
    parser.add_argument("--vira", action="append", metavar="V",
                        help="a vira rank or card; repeat for several (default: all ten)")
    parser.add_argument("--minutes", type=number, default=None, metavar="M",
                        help="score-aware re-solve per vira and score (default 5 with "
                             "--score, 0 with --all-scores; 0: measure the leak only)")
    parser.add_argument("--target", type=positive, default=None, metavar="EPS",
                        help="stop each re-solve once its exploitability (match-win "
                             "probability, checked every 10 iterations) is at most EPS, "
                             "or after --minutes")
    parser.add_argument("--start", choices=("points", "previous"), default="points",
                        help="where each re-solve starts: the points solution (default), or "
                             "the re-solve of the score given before it (the first from the "
                             "points solution; nearby end-game scores measured 1.6x faster)")
    parser.add_argument("--threads", type=count, default=1, metavar="N",
                        help="numba threads per solve (the same iterates; default 1)")
    parser.add_argument("--no-save", action="store_true",
                        help="print only; do not merge the rows into data/score_leak")
    parser.add_argument("--replace", action="store_true",
                        help="write only this run's rows, dropping the table's others "
                             "(default: merge them into it; a table that cannot be read "
                             "is then refused, unless this run measures all it holds)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def chosen_scores(texts) -> list[tuple[int, int]]:
    scores = []
    for text in texts:
        m, p = parse_score(text)
        if not (0 <= m <= 10 and 0 <= p <= 10):
            raise UsageError(f"--score {text}: the truco ladder is played while both players "
                             "have 0..10 points (at 11 the hand is a mão de onze or 11 x 11, "
                             "solved exactly by `lab solve match`)")
        if (m, p) in scores:
            raise UsageError(f"--score {text}: given twice")
        scores.append((m, p))
    return scores


def run(args) -> int:
    import numpy as np
    from tqdm import tqdm

    from ..classes import hand_classes
    from ..match import equity_array
    from ..tables.score import (RESOLVE_STORAGE, check_leaks_mergeable, load_points_solution,
                                measure_leaks, points_solution_sources, resolve, table_row,
                                write_rows)
    from ..cli import chosen_viras, print_json
    from ..tables import check_data_writable, load_table

    def say(line: str) -> None:   # a stderr line that leaves the progress bar whole
        tqdm.write(line, file=sys.stderr)

    if args.all_scores:
        scores = [(m, p) for m in range(11) for p in range(11)]
        minutes = 0.0 if args.minutes is None else args.minutes
    else:
        scores = chosen_scores(args.score)
        minutes = 5.0 if args.minutes is None else args.minutes
    viras = chosen_viras(args.vira)
    if not 0 <= minutes < math.inf:
        raise UsageError(f"--minutes {args.minutes}: give 0 or more (a finite number)")
    covers = viras if args.all_scores else ()   # the viras whose every score it measures
    if not args.no_save:
        check_data_writable()
        if not args.replace:   # refused now, not after the first vira
            check_leaks_mergeable(covers)
    fresh_start = [args.replace]   # the first write of a --replace run drops the table's rows

    def save(rows) -> None:
        write_rows(rows, replace=fresh_start[0], covers=covers)
        fresh_start[0] = False

    sources = points_solution_sources(args.checkpoints, viras)
    table = load_table("match_equity")
    me = equity_array(table)
    models = dict(zip(zip(table["score_mao"], table["score_pe"]), table["model"]))
    out = {s: {"score": list(s), "match_equity_model": models[s], "viras": {}} for s in scores}
    rows = []
    bar = tqdm(viras, unit="vira", desc="lab solve score", file=sys.stderr,
               disable=args.no_progress or len(viras) < 2)
    measured_on = {}   # points solution's vira -> the vira measured on it in this run
    made = {}          # measured vira -> its rows
    for v in bar:
        twin = measured_on.get(sources[v])
        if twin is not None:   # a vira of the same game as one above: the same numbers
            say(f"vira {v}: plays vira {twin}'s game; its numbers, hands named for vira {v}")
            for s in scores:
                out[s]["viras"][v] = same_game_entry(out[s]["viras"][twin], twin, v)
            rows += [dict(r, vira=v) for r in made[twin]]
            if not args.no_save:
                save(rows)
                rows = []
            continue
        measured_on[sources[v]] = v
        say(f"vira {v}: loading the points solution" +
            ("" if sources[v] == v else f" (vira {sources[v]}'s: the same game)"))
        solver = load_points_solution(args.checkpoints, sources[v], threads=args.threads)
        points_expl, points_its = solver.final_exploitability, solver.own_iterations
        say(f"vira {v}: best responses at {len(scores)} score{'s' if len(scores) > 1 else ''}"
            " (batched: one best-response traversal per seat for all of them)")
        leaks = measure_leaks(solver, me, scores)
        previous = None   # this vira's last re-solve
        for s, lk in zip(scores, leaks):
            entry = {"value_mao": lk.value_mao, "gain_mao": lk.gain_mao, "gain_pe": lk.gain_pe,
                     "leak": lk.exploitability, "points_exploitability": points_expl}
            rs = None
            if minutes > 0:
                from_points = previous is None or args.start == "points"
                # from the points solution in the re-solves' storage: a copy, or the
                # solver itself when nothing else needs it, else loaded again
                if from_points:
                    if solver.config.storage != RESOLVE_STORAGE:
                        work = solver.in_storage(RESOLVE_STORAGE)
                    else:
                        work = solver if len(scores) == 1 else load_points_solution(
                            args.checkpoints, sources[v], threads=args.threads)
                start = "points" if from_points else f"{previous.score[0]},{previous.score[1]}"
                rs = resolve(work, me, s, minutes=minutes, progress=not args.no_progress,
                             target=args.target,
                             before=None if previous is None else previous.before)
                previous = rs
                labels = hand_classes(v).labels
                entry["resolve"] = {
                    "start": start,
                    "iterations": rs.iterations, "seconds": round(rs.seconds, 1),
                    "checks": [list(h) for h in rs.history],
                    "exploitability": rs.exploitability, "value_mao": rs.value_mao,
                    "points_play": {k: rs.before[k] for k in
                                    ("truco_mao", "accept_pe", "run_pe", "raise_pe")},
                    "score_play": {k: rs.after[k] for k in
                                   ("truco_mao", "accept_pe", "run_pe", "raise_pe")},
                    "biggest_changes": {"truco_mao": rs.biggest_changes("truco_mao", labels),
                                        "run_pe": rs.biggest_changes("run_pe", labels)}}
            out[s]["viras"][v] = entry
            made.setdefault(v, []).append(table_row(v, lk, points_expl, points_its, rs))
            if not args.all_scores or rs is not None:
                say(f"vira {v} at {s[0]},{s[1]}: leak {lk.exploitability:.5f} match-win "
                    "probability" + ("" if rs is None else f"; re-solved {rs.iterations} "
                                     f"iterations, exploitability {rs.exploitability:.5f}"))
        rows += made[v]
        if args.all_scores:
            top = max(leaks, key=lambda lk: lk.exploitability)
            say(f"vira {v}: leak at {len(leaks)} scores: mean "
                f"{np.mean([lk.exploitability for lk in leaks]):.5f}, largest "
                f"{top.exploitability:.5f} at {top.score[0]},{top.score[1]} "
                "(match-win probability)")
        if not args.no_save:   # after each vira, so that an interrupted run keeps its work
            save(rows)
            rows = []
    for s in scores:
        measured = out[s]["viras"].values()
        out[s]["leak"] = float(np.mean([e["leak"] for e in measured]))
        out[s]["viras_measured"] = len(measured)
        print_json(out[s])
    return 0


def same_game_entry(entry: dict, solved: str, vira: str) -> dict:
    """The printed ``entry`` of vira ``solved`` for ``vira``, a vira of the same game: the
    same numbers, the hands named for ``vira``, ``same_game_as`` naming the vira solved."""
    from ..classes import hand_classes

    names = dict(zip(hand_classes(solved).labels, hand_classes(vira).labels))
    entry = dict(entry, same_game_as=solved)
    if "resolve" in entry:
        changes = entry["resolve"]["biggest_changes"]
        entry["resolve"] = dict(entry["resolve"], biggest_changes={
            key: [dict(h, hand=names[h["hand"]]) for h in moved]
            for key, moved in changes.items()})
    return entry
