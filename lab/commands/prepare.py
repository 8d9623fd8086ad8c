"""Prepare this machine for instant advice: ``lab prepare [--vira V ...]``.

The advice at the start of a hand values every action by a best-response walk of the
whole solved game; :func:`lab.advice.prepare` walks it once per stored policy (the points
policy of each vira and its score-aware ones) and keeps the values of the deal and of the
first card for every hand in the disk cache (``.cache/lab``, or ``$LAB_CACHE_DIR``), with
the 11 x 11 card-play model of each vira. After it, ``lab advise``, the coach, the hand
explorer and ``lab review`` answer every position in milliseconds; without it, the first
question at each vira and score does that vira's share of the work (seconds). About half
a minute per policy on two cores (50 policies: about half an hour), with a progress bar;
run again, it only reads what is there. Prints one JSON object: the policies prepared and
the seconds taken.

``lab prepare --kernels`` compiles the numba kernels instead (:mod:`lab.warmup`), in
two processes side by side, into numba's cache: minutes, once per version of the code
(the test command does it before the suite's workers start).
"""

from __future__ import annotations

import time

from ..cli import print_json


def add_arguments(parser) -> None:
    from ..warmup import PARTS

    parser.add_argument("--kernels", nargs="?", const="all", choices=(*PARTS, "all"),
                        default=None, help="compile the numba kernels instead (all: every "
                        "part, in two processes at once)")
    parser.add_argument("--vira", action="append", default=None, metavar="V",
                        help="prepare this vira only (repeat for more; default: every vira "
                             "with a stored policy)")


def run(args) -> int:
    if args.kernels is not None:
        return compile_kernels(args.kernels)
    from ..advice import prepare
    from ..cards import parse_card

    viras = None if args.vira is None else [parse_card(v + "c" if len(v.strip()) == 1 else v)
                                            for v in args.vira]
    start = time.perf_counter()
    n = prepare(viras)
    print_json({"policies": n, "seconds": round(time.perf_counter() - start, 1)})
    return 0


def compile_kernels(part: str) -> int:
    """Compile ``part`` of the kernels here, or every part in processes side by side."""
    import subprocess
    import sys

    from ..warmup import PARTS, warm

    start = time.perf_counter()
    if part != "all":
        warm(part)
    else:
        procs = [subprocess.Popen([sys.executable, "-m", "lab", "prepare", "--kernels", name],
                                  stdout=subprocess.DEVNULL) for name in PARTS]
        if any(proc.wait() for proc in procs):
            raise RuntimeError("compiling the kernels failed (the error is above)")
    print_json({"kernels": part, "seconds": round(time.perf_counter() - start, 1)})
    return 0
