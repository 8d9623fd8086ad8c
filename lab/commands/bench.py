"""Run a benchmark target and print its figures: ``lab bench TARGET [OPTIONS...]``.

Each target is a function ``main(argv: list[str]) -> int`` named in BENCHES as
``"module:function"``; it parses its own options from ``argv`` and prints its figures on
stdout. Adding a target is one entry in BENCHES. Speed targets live here, never in tests.
"""

from __future__ import annotations

import argparse
import importlib
from ..errors import InputError

BENCHES = {
    "sim": "lab.bench.sim:main",
    "dashboards": "lab.bench.dashboards:main",
    "serve": "lab.bench.serve:main",
    "cardplay": "lab.bench.cardplay:main",
    "full": "lab.bench.full:main",
    "score": "lab.bench.score:main",
    "policy": "lab.bench.policy:main",
    "advise": "lab.bench.advise:main",
    "match-play": "lab.bench.match_play:main",
    "review": "lab.bench.review:main",
    "exploit": "lab.bench.exploit:main",
}
"""Benchmark target -> ``module:function`` running it."""


def add_arguments(parser) -> None:
    parser.add_argument("target", metavar="TARGET", help=f"one of: {', '.join(BENCHES)}")
    parser.add_argument("options", nargs=argparse.REMAINDER,
                        help="options for the target (see lab bench TARGET --help)")


def run(args) -> int:
    if args.target not in BENCHES:
        raise InputError(f"{args.target!r}: unknown benchmark (choose one of "
                         f"{', '.join(BENCHES)})")
    module_name, function = BENCHES[args.target].split(":")
    return getattr(importlib.import_module(module_name), function)(list(args.options))
