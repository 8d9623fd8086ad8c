"""``lab bench full``: solve one vira of the full hand game and print its figures.

Prints (stdout, one JSON object per line): the sizes and the memory estimate before
allocating, the build time, the memory traffic of an iteration that walks every node
(:func:`iteration_traffic`) and the time it would take at this machine's measured copy
bandwidth on as many threads as the solve (the bound), then one line per exploitability
check (iterations, seconds, exploitability in points per hand, seconds per iteration and
how many times the bound that is, (node, hand) updates per second (of the whole tree),
the share of (node, hand) pairs the last iteration left out because the opponent does
not reach them), and a final summary with the exploitability-vs-time curve and the peak
memory (resident set, GiB).
The defaults are the stored solves' settings (float32 storage, the ``dcfr+`` schedule, a
target of 0.001 points per hand); the targets: that exploitability within 30 minutes on 2
cores and 12 GB.
``--no-prune`` walks those pairs too (the same numbers), to measure what leaving them
out buys; ``--eager-discount`` leaves them out but still discounts their regrets at every
iteration (the same numbers as ``--no-prune``) instead of when they are next reached;
``--three-pass`` works the round-3 showdown nodes in three passes over all their entering
histories instead of one history at a time (the same numbers), to measure what that buys.

``--checkpoint DIR`` makes the run resumable (kill it, run the same command
again); ``--toy 2,2,2,1 --ladder 1,3,6`` runs a reduced configuration;
``--schedules dcfr,lcfr,...`` runs each Discounted CFR schedule in turn on the same
configuration and ends with their exploitabilities side by side; ``--storage
int16,float32`` does the same for each storage (every schedule with every storage), and
``--plot FILE.png`` draws the runs' exploitability against iterations and solver seconds.
"""

from __future__ import annotations

import json
import math
import sys
import time
from ..options import count, integers, Parser, positive, UsageError

STORAGES = ("int16", "float32")


def storages_of(text: str) -> list[str]:
    """The storages named in ``text``, comma separated, each once (an option's value)."""
    names = [name.strip() for name in str(text).split(",") if name.strip()]
    if not names or len(set(names)) != len(names) or not set(names) <= set(STORAGES):
        raise UsageError(f"--storage {text}: name each of {', '.join(STORAGES)} at most once")
    return names


def iteration_traffic(solver) -> int:
    """Bytes one Discounted CFR iteration moves at least when it walks every node: each of
    its two walks reads every regret entry (both seats' current strategies), and each
    seat's entries are then rewritten once with their strategy sums (read and written);
    plus the scales per public node (float32, read and written: the regrets' and the sums'
    in 16 bits, the sums' in float32). Walks that leave out the nodes the opponent does not
    reach (the default) touch fewer entries."""
    L = solver.layout
    wide = solver.config.storage == "float32"
    entry = 4 if wide else 2
    scales = (1 if wide else 2) * 4 * 2 * L.n_public
    return L.n_slots * entry * (2 + 3) + scales


def _rss_gib() -> float:
    try:
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    except Exception:  # pragma: no cover
        return float("nan")


def main(argv) -> int:
    import numba

    from ..solver.cfr import SCHEDULES, schedules_of
    from ..solver.fullgame.solver import FullSolver, config_for, ensure_compiled
    from ..tables.registry import FULL_SETTINGS
    from .bandwidth import copy_bandwidth

    p = Parser(prog="lab bench full", description=__doc__.splitlines()[0])
    p.add_argument("--vira", default="4", help="vira rank (default 4)")
    p.add_argument("--toy", type=integers, default=None,
                   help="a reduced deck: copies per level, e.g. 2,2,2,1")
    p.add_argument("--ladder", type=integers, default=(1, 3, 6, 9, 12),
                   help="hand values (default 1,3,6,9,12)")
    p.add_argument("--storage", default=FULL_SETTINGS["storage"],
                   help=f"int16 or float32 (default {FULL_SETTINGS['storage']}, the stored "
                        "solves'); comma separated to run each in turn")
    p.add_argument("--target", type=positive, default=FULL_SETTINGS["target_exploitability"],
                   help=f"points per hand (default {FULL_SETTINGS['target_exploitability']:g})")
    p.add_argument("--minutes", type=positive, default=30.0, help="time budget (default 30)")
    p.add_argument("--max-iterations", type=count, default=100_000)
    p.add_argument("--check-every", type=count, default=10)
    p.add_argument("--memory-gb", type=positive, default=12.0, help="refuse above this (default 12)")
    p.add_argument("--checkpoint", default=None, metavar="DIR")
    p.add_argument("--checkpoint-minutes", type=positive, default=5.0)
    p.add_argument("--log", default=None, help="append the checks as JSON lines to this file")
    p.add_argument("--threads", type=count, default=1,
                   help="threads (the root's subtrees are split among them; default 1)")
    p.add_argument("--schedules", default=FULL_SETTINGS["schedule"],
                   help="Discounted CFR weights to run one after the other on the same "
                        "configuration, comma separated (" + ", ".join(SCHEDULES) + "; "
                        f"default {FULL_SETTINGS['schedule']}, the stored solves'); with more "
                        "than one, a side-by-side table ends the run")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="draw every run's exploitability against iterations and seconds")
    p.add_argument("--no-prune", action="store_true",
                   help="walk the betting nodes the opponent does not reach too (the same "
                        "numbers, slower: to measure what leaving them out buys)")
    p.add_argument("--eager-discount", action="store_true",
                   help="leave those nodes out but discount their regrets at every iteration "
                        "(the numbers of --no-prune) instead of when they are next reached")
    p.add_argument("--three-pass", action="store_true",
                   help="work the round-3 showdown nodes in three passes over all their "
                        "entering histories, not one history at a time (the same numbers, "
                        "slower: to measure what the one pass buys)")
    args = p.parse_args(argv)
    schedules = schedules_of(args.schedules)
    storages = storages_of(args.storage)
    if args.plot is not None and not args.plot.endswith(".png"):
        raise UsageError(f"--plot {args.plot}: name a .png file")

    ladder, toy = args.ladder, args.toy
    copy_threads = min(args.threads, numba.config.NUMBA_NUM_THREADS)   # those the solve gets
    bandwidth = copy_bandwidth(threads=copy_threads)
    curves = {}
    for storage in storages:
        config = config_for(None if toy else args.vira, toy_cap=toy, ladder=ladder,
                            storage=storage)
        t_compile = time.perf_counter()
        ensure_compiled(args.threads, storage)
        t_compile = time.perf_counter() - t_compile
        for schedule in schedules:
            name = schedule.name if len(storages) == 1 else f"{schedule.name}/{storage}"
            checkpoint = args.checkpoint
            if checkpoint is not None and len(schedules) * len(storages) > 1:
                checkpoint = f"{checkpoint}_{name.replace('/', '_')}"
            solver = FullSolver(config, threads=args.threads, schedule=schedule)
            solver.prune_dead = not args.no_prune
            solver.lazy_discount = not args.eager_discount
            solver.histories_one_pass = not args.three_pass
            curves[name] = _run(solver, args, checkpoint, t_compile, bandwidth,
                                 copy_threads)
    if len(curves) > 1:
        print(json.dumps({"compare": _side_by_side(curves)}), flush=True)
        for line in _side_by_side_text(curves):
            print(line, file=sys.stderr, flush=True)
    if args.plot is not None:
        title = config.label if len(storages) == 1 else config.label.rsplit(", ", 1)[0]
        plot_curves(curves, args.plot, title)
        print(json.dumps({"plot": args.plot}), flush=True)
    return 0


def _run(solver, args, checkpoint, t_compile, bandwidth, copy_threads) -> list:
    """Solve with one schedule, printing its lines (``bandwidth``: bytes/s measured on
    ``copy_threads`` threads); returns its checks."""
    est = solver.memory_estimate()
    traffic = iteration_traffic(solver)
    bound = traffic / bandwidth
    print(json.dumps({"config": solver.config.label, "schedule": solver.schedule.name,
                      "sizes": solver.sizes(),
                      "memory_estimate_gib": round(est["total"] / 2**30, 3),
                      "iteration_traffic_gb": round(traffic / 1e9, 3),
                      "copy_bandwidth_gb_s": round(bandwidth / 1e9, 2),
                      "copy_threads": copy_threads,
                      "iteration_bound_seconds": round(bound, 3),
                      "build_seconds": round(solver.build_seconds, 2),
                      "compile_seconds": round(t_compile, 1)}), flush=True)
    solver.allocate(limit_bytes=int(args.memory_gb * 2**30), out=sys.stderr)
    pairs = solver.layout.public_pairs
    budget = args.minutes * 60.0
    t0 = time.perf_counter()
    curve = []

    before = []   # (iterations, seconds) at the check before

    def report(solver):
        it, _, expl = solver.history[-1]
        if not before:   # this run's first check: a resumed solve's history holds its last
            before.extend(solver.history[-2][:2] if len(solver.history) > 1 else (0, 0.0))
        d_it = it - before[0]
        d_s = solver.seconds - before[1]
        before[:] = [it, solver.seconds]
        rate = 2 * pairs * d_it / d_s if d_s > 0 else float("nan")
        per_iteration = d_s / d_it if d_it else float("nan")
        row = {"schedule": solver.schedule.name, "iterations": it,
               "seconds": round(solver.seconds, 1),
               "wall": round(time.perf_counter() - t0, 1), "exploitability": expl,
               "seconds_per_iteration": round(per_iteration, 3),
               "times_the_bound": round(per_iteration / bound, 1),
               "updates_per_second": round(rate) if math.isfinite(rate) else None,
               "left_out": round(solver.dead_share, 3), "rss_gib": round(_rss_gib(), 2)}
        curve.append(row)
        print(json.dumps(row), flush=True)

    solver.solve(args.target, args.max_iterations, time_budget=budget,
                 check_every=args.check_every, checkpoint_dir=checkpoint,
                 checkpoint_seconds=args.checkpoint_minutes * 60, log=args.log,
                 on_check=report, progress=True)
    final = {"final": True, "schedule": solver.schedule.name, "iterations": solver.iterations,
             "seconds": round(solver.seconds, 1),
             "exploitability": solver.history[-1][2] if solver.history else None,
             "target": args.target, "reached": bool(solver.history and
                                                    solver.history[-1][2] <= args.target),
             "peak_rss_gib": round(_rss_gib(), 2), "pairs_per_traversal": pairs,
             "curve": [(r["wall"], r["exploitability"]) for r in curve]}
    print(json.dumps(final), flush=True)
    return curve


def _side_by_side(curves: dict) -> list:
    """One row per checked iteration count: each schedule's exploitability (points per
    hand) and solver seconds there."""
    at = sorted({r["iterations"] for c in curves.values() for r in c})
    rows = []
    for it in at:
        row = {"iterations": it}
        for name, c in curves.items():
            hit = [r for r in c if r["iterations"] == it]
            row[name] = hit[0]["exploitability"] if hit else None
            row[name + "_seconds"] = hit[0]["seconds"] if hit else None
        rows.append(row)
    return rows


def _side_by_side_text(curves: dict) -> list:
    names = list(curves)
    lines = ["exploitability (points per hand) after each check:",
             f"{'iterations':>10}" + "".join(f"{n:>15}" for n in names)]
    for row in _side_by_side(curves):
        lines.append(f"{row['iterations']:>10}" + "".join(
            f"{row[n]:>15.5f}" if row[n] is not None else f"{'':>15}" for n in names))
    return lines


def plot_curves(curves: dict, path, title: str) -> None:
    """Each run's exploitability (points per hand, log scale) against its iterations and
    against its solver seconds, side by side, saved as a PNG at ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for name, rows in curves.items():
        axes[0].plot([r["iterations"] for r in rows], [r["exploitability"] for r in rows],
                     marker=".", label=name)
        axes[1].plot([r["seconds"] for r in rows], [r["exploitability"] for r in rows],
                     marker=".", label=name)
    axes[0].set_yscale("log")
    axes[0].set_ylabel("exploitability (points per hand)")
    axes[0].set_xlabel("iterations")
    axes[1].set_xlabel("solver seconds")
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    axes[1].legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
