"""``lab bench cardplay``: how fast the card-play game of all ten viras is solved.

Figures printed (all measured in this run):

* wall time to solve all 10 viras to exploitability <= ``--target`` (win
  probability) in a pool of ``--jobs`` processes, after a warm-up that loads
  the numba kernels from their cache and builds the public tree (target 10 s
  on 2 cores), once for each of ``--schedules`` (side by side: the stored
  tables' ``dcfr`` and the fastest measured, ``dcfr+``);
* peak memory: the resident set of the bench and its workers, summed, sampled
  every 20 ms (shared copy-on-write pages count once per process, so this
  over-states; target 2 GB);
* time per iteration of the public-tree solver against a plain per-information
  -set Python CFR (:mod:`lab.baseline_cfr`) on the same game and vira (goal
  >= 100x). The baseline walks a uniform sample of deals and is scaled to all
  deals: its cost is one tree walk per deal;
* bytes the solver's kernels touch per iteration, the machine's memory
  bandwidth (numpy copies of a large array, on one thread like the timed
  iterations), and the iteration time over the time those bytes need at that
  bandwidth (goal within 3x).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import threading
import time

from ..cards import RANKS
from ..errors import InputError
from ..options import integer, number
from .bandwidth import copy_bandwidth

MB = 1e6


class PeakMemory:
    """Context manager sampling the summed RSS (bytes) of this process and its children."""

    def __init__(self, every: float = 0.02):
        self.every = every
        self.peak = 0
        self._stop = threading.Event()

    def sample(self) -> int:
        import psutil

        me = psutil.Process()
        total = me.memory_info().rss
        for child in me.children(recursive=True):
            try:
                total += child.memory_info().rss
            except psutil.Error:
                pass  # a worker that just exited
        return total

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self.sample())
            self._stop.wait(self.every)

    def __enter__(self):
        self.peak = self.sample()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.sample())


def solve_one(args) -> dict:
    """Solve one vira (in a worker process); returns its figures."""
    from ..solver.games.cardplay import solve_cardplay

    vira, target, max_iterations, schedule = args
    sol = solve_cardplay(vira, target_exploitability=target, max_iterations=max_iterations,
                         schedule=schedule)
    return {"vira": sol.vira, "iterations": sol.iterations,
            "exploitability": sol.exploitability, "value_mao": sol.value,
            "seconds": sol.seconds, "iteration_seconds": sol.solver.seconds}


def solve_all(viras, target: float, max_iterations: int, jobs: int,
              schedule: str = "dcfr") -> list[dict]:
    """Solve every vira, ``jobs`` at a time in worker processes (spawned: forking a process
    whose numba kernels already ran on OpenMP threads is unsafe). Each worker loads the
    kernels from numba's on-disk cache and builds the public tree once; that start-up is
    part of the measured wall time."""
    tasks = [(v, target, max_iterations, schedule) for v in viras]
    if jobs <= 1:
        return [solve_one(t) for t in tasks]
    from concurrent.futures import ProcessPoolExecutor

    from ..tables import solver_processes

    with ProcessPoolExecutor(jobs, mp_context=solver_processes()) as pool:
        return list(pool.map(solve_one, tasks))


def solver_iteration(vira, iterations: int) -> dict:
    """Seconds per solver iteration on one vira (after 2 untimed ones) and bytes touched."""
    from ..solver.games.cardplay import cardplay_solver

    solver = cardplay_solver(vira).allocate()
    solver.iterate(2)
    start = time.perf_counter()
    solver.iterate(iterations)
    seconds = (time.perf_counter() - start) / iterations
    return {"seconds_per_iteration": seconds,
            "bytes_per_iteration": solver.work()["bytes_per_iteration"],
            "sizes": solver.tree.sizes()}


def parse(argv) -> argparse.Namespace:
    from ..options import Parser

    p = Parser(prog="lab bench cardplay", description=__doc__.split("\n\n")[0])
    p.add_argument("--target", type=number, default=1e-4,
                   help="exploitability to reach, win probability (default 1e-4)")
    p.add_argument("--max-iterations", type=integer, default=2000)
    p.add_argument("--jobs", type=integer, default=2, help="worker processes (default 2)")
    p.add_argument("--viras", default=RANKS, help=f"vira ranks to solve (default {RANKS})")
    p.add_argument("--baseline-vira", default="4", help="vira of the per-iteration comparison")
    p.add_argument("--baseline-deals", type=integer, default=2000,
                   help="deals the textbook CFR walks per iteration (0: all, minutes)")
    p.add_argument("--baseline-iterations", type=integer, default=2)
    p.add_argument("--solver-iterations", type=integer, default=20)
    p.add_argument("--schedules", default="dcfr,dcfr+",
                   help="Discounted CFR schedules to time one after the other, comma-separated "
                        "(default dcfr,dcfr+; see lab bench full --schedules)")
    p.add_argument("--json", action="store_true", help="also print the figures as JSON")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse([] if argv is None else argv)
    for option in ("jobs", "max_iterations", "baseline_iterations", "solver_iterations"):
        if getattr(args, option) < 1:
            raise InputError(f"--{option.replace('_', '-')} {getattr(args, option)}: give at "
                             "least 1")
    viras = [v.upper() for v in args.viras if not v.isspace() and v != ","]
    unknown = [v for v in viras if v not in RANKS]
    if unknown:
        raise InputError(f"--viras {args.viras}: unknown rank {unknown[0]!r}")
    from ..baseline_cfr import time_per_iteration
    from ..solver.cfr import schedules_of
    from ..solver.games.cardplay import solve_cardplay

    schedules = [s.name for s in schedules_of(args.schedules)]

    figures: dict = {"cores": os.cpu_count(), "jobs": args.jobs, "target": args.target}
    print(f"card play: {len(viras)} viras to exploitability <= {args.target:g} "
          f"(win probability), {args.jobs} processes, {os.cpu_count()} cores")

    start = time.perf_counter()
    solve_cardplay(viras[0], target_exploitability=1.0, max_iterations=1)
    figures["warmup_s"] = time.perf_counter() - start
    print(f"warm-up (numba kernels from cache, public tree): {figures['warmup_s']:.1f} s")

    figures["schedules"] = {}
    for schedule in schedules:
        with PeakMemory() as mem:
            start = time.perf_counter()
            results = solve_all(viras, args.target, args.max_iterations, args.jobs, schedule)
            wall = time.perf_counter() - start
        print(f"schedule {schedule}:")
        for r in results:
            print(f"  vira {r['vira']}: {r['iterations']} iterations, exploitability "
                  f"{r['exploitability']:.2e}, mão wins {r['value_mao']:.6f}, {r['seconds']:.1f} s")
        reached = all(r["exploitability"] <= args.target for r in results)
        peak_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        peak_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        figures["schedules"][schedule] = dict(
            wall_s=wall, all_reached_target=reached, peak_rss_sum_bytes=mem.peak,
            peak_rss_largest_process_bytes=max(peak_children, peak_self), viras=results)
        print(f"  wall time, {len(viras)} viras: {wall:.1f} s (target <= 10 s)"
              + ("" if reached else "  -- NOT every vira reached the target"))
        print(f"  peak memory: {mem.peak / MB:.0f} MB summed over processes, largest process "
              f"{max(peak_children, peak_self) / MB:.0f} MB (target <= 2000 MB)")
    if len(schedules) > 1:
        print("side by side: " + ", ".join(
            f"{name} {f['wall_s']:.1f} s ({sum(r['iterations'] for r in f['viras'])} iterations)"
            for name, f in figures["schedules"].items()))

    it = solver_iteration(args.baseline_vira, args.solver_iterations)
    base = time_per_iteration(args.baseline_vira, args.baseline_deals or None,
                              args.baseline_iterations)
    ratio = base["seconds_per_iteration"] / it["seconds_per_iteration"]
    figures.update(solver_iteration_s=it["seconds_per_iteration"], sizes=it["sizes"],
                   baseline=base, speedup=ratio)
    print(f"tree: {it['sizes']['nodes']} public nodes, {it['sizes']['pairs']} (node, hand) "
          f"pairs, {it['sizes']['infosets']} information sets")
    print(f"time per iteration, vira {args.baseline_vira}: solver "
          f"{it['seconds_per_iteration'] * 1e3:.1f} ms; textbook CFR "
          f"{base['seconds_per_iteration']:.1f} s ({base['deals_walked']} of "
          f"{base['deals_total']} deals walked in {base['seconds_walked']:.2f} s, scaled)")
    print(f"speed-up per iteration: {ratio:.0f}x (goal >= 100x)")

    bandwidth = copy_bandwidth(threads=1)   # solver_iteration's solver runs on one thread
    bound = it["bytes_per_iteration"] / bandwidth
    figures.update(bytes_per_iteration=it["bytes_per_iteration"], bandwidth_bytes_s=bandwidth,
                   bandwidth_bound_s=bound, over_bound=it["seconds_per_iteration"] / bound)
    print(f"bytes touched per iteration: {it['bytes_per_iteration'] / MB:.0f} MB; memory "
          f"bandwidth (numpy copy, read + write, one thread): {bandwidth / 1e9:.1f} GB/s; "
          f"bound {bound * 1e3:.1f} ms per iteration")
    print(f"iteration time / bandwidth bound: {figures['over_bound']:.1f}x (goal within 3x)")
    if args.json:
        print(json.dumps(figures))
    return 0
