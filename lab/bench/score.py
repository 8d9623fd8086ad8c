"""``lab bench score``: the points play's leak at many scores, one traversal per score
against one batched traversal for all of them, side by side.

Prints one JSON object per line on stdout: the setup, the one-at-a-time figures (a
value and two best-response traversals per score, :meth:`FullSolver.set_payoffs`),
the batched figures (:func:`lab.tables.score.measure_leaks` over all 121 normal scores) and a
summary with the seconds per score of each and the largest difference between their
leaks on the scores both measured (match-win probability).

``--checkpoints DIR --vira V`` measures a real vira's points solution (left by
``lab solve full --checkpoints DIR``; about 10 minutes); without them a reduced deck
(``--toy 2,2,2,1``) is solved first, in seconds.
"""

from __future__ import annotations

import json
import time
from ..options import count, integers, natural, Parser, UsageError


def _leak_one_at_a_time(solver, me, score):
    """The points play's leak at ``score`` from three unbatched traversals (the reference
    :func:`lab.tables.score.measure_leaks` is compared with); leaves the solver on points."""
    from ..tables.score import PointsLeak, score_payoffs

    solver.set_payoffs(*score_payoffs(me, score))
    try:
        value = solver.value()
        best_mao, best_pe = solver.best_response_values()
    finally:
        solver.set_payoffs(None, None)
    return PointsLeak(score, value, best_mao - value, best_pe + value)


def main(argv) -> int:
    import numpy as np

    from ..match import equity_array
    from ..tables.score import load_points_solution, measure_leaks, points_solution_sources
    from ..solver.fullgame.solver import FullSolver, config_for
    from ..tables import load_table

    p = Parser(prog="lab bench score", description=__doc__.splitlines()[0])
    p.add_argument("--checkpoints", metavar="DIR", help="where lab solve full saved the "
                   "points solutions (default: solve a reduced deck)")
    p.add_argument("--vira", default="4", help="vira rank with --checkpoints (default 4)")
    p.add_argument("--toy", type=integers, default=(2, 2, 2, 1),
                   help="the reduced deck without --checkpoints (default 2,2,2,1)")
    p.add_argument("--iterations", type=count, default=200,
                   help="points iterations on the reduced deck (default 200)")
    p.add_argument("--one-by-one", type=natural, default=3, metavar="N",
                   help="scores measured one at a time (default 3; all 121 take long)")
    p.add_argument("--threads", type=integers, default=(1,), metavar="N,N",
                   help="the batched measurement on solvers of these many threads, one "
                        "after the other (default 1; with 2 the two seats' best responses "
                        "run at once)")
    args = p.parse_args(argv)
    if min(args.threads) < 1:
        raise UsageError(f"--threads {','.join(map(str, args.threads))}: give 1 or more")

    me = equity_array(load_table("match_equity"))
    scores = [(m, q) for m in range(11) for q in range(11)]
    one = [scores[i] for i in np.linspace(0, len(scores) - 1, max(1, args.one_by_one)).astype(int)]
    source = (points_solution_sources(args.checkpoints, [args.vira])[args.vira]
              if args.checkpoints else None)

    def points_solution(threads: int):
        if source is not None:
            return load_points_solution(args.checkpoints, source, threads), f"vira {args.vira}"
        cap = args.toy
        solver = FullSolver(config_for(toy_cap=cap), threads=threads).allocate()
        solver.iterate(args.iterations)
        return solver, f"reduced deck {','.join(map(str, cap))}"

    batched, per_batched = {}, {}
    for threads in args.threads:
        start = time.perf_counter()
        solver, what = points_solution(threads)
        print(json.dumps({"points_solution": what, "iterations": solver.iterations,
                          "threads": threads, "seconds": round(time.perf_counter() - start, 1)}),
              flush=True)
        measure_leaks(solver, me, scores[:1])    # compile the kernels before timing them
        if not batched:
            _leak_one_at_a_time(solver, me, scores[0])
            start = time.perf_counter()
            slow = [_leak_one_at_a_time(solver, me, s) for s in one]
            slow_seconds = time.perf_counter() - start
            print(json.dumps({"method": "one at a time", "scores": len(one),
                              "seconds": round(slow_seconds, 2)}), flush=True)
        start = time.perf_counter()
        batched[threads] = dict(zip(scores, measure_leaks(solver, me, scores)))
        seconds = time.perf_counter() - start
        per_batched[threads] = float(f"{seconds / len(scores):.3g}")
        print(json.dumps({"method": "batched", "threads": threads, "scores": len(scores),
                          "seconds": round(seconds, 2)}), flush=True)
        del solver
    fast = batched[args.threads[0]]
    worst = max(abs(lk.exploitability - fast[lk.score].exploitability) for lk in slow)
    per_slow = slow_seconds / len(one)
    print(json.dumps({"summary": what, "seconds_per_score_one_at_a_time": float(f"{per_slow:.3g}"),
                      "seconds_per_score_batched": per_batched[args.threads[0]],
                      "speedup": float(f"{per_slow / per_batched[args.threads[0]]:.3g}"),
                      "max_leak_difference": worst,
                      "seconds_per_score_batched_by_threads": per_batched,
                      "same_leaks_on_every_thread_count": all(
                          [lk.exploitability for lk in b.values()] ==
                          [lk.exploitability for lk in fast.values()]
                          for b in batched.values())}), flush=True)
    return 0
