"""``lab bench sim``: random-play hands per second, fast engine against lab/rules.py.

Both engines deal and play the same kind of hands: 7 random cards, a score drawn so that
normal hands, mão de onze and 11 x 11 are all common, and uniformly random legal moves to
the end of the hand. The fast engine (lab/sim/fast.py) runs on ``--threads`` numba threads
(default 2) after a JIT warm-up, best of ``--repeats`` timings; the plain engine
(lab/rules.py) runs in this one Python thread on hands dealt by the fast engine.
The ratio is fast (on its threads) over plain (one thread).
"""

from __future__ import annotations

import random
import time

import numba

from ..rules import new_hand
from ..sim import fast
from ..sim.encoding import card_of
from ..errors import InputError
from ..options import Parser, integer

FAST_TARGET = 1_000_000
"""Hands per second the fast engine should reach on 2 cores."""
RATIO_TARGET = 100
"""How many times faster than lab/rules.py the fast engine should be."""


def fast_rate(hands: int, threads: int, repeats: int, seed: int) -> tuple[float, int, float]:
    """Best hands per second of the fast engine over ``repeats`` timings, the threads
    actually used, and the mean number of actions per hand."""
    threads = max(1, min(threads, numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(threads)
    fast.tally(seed, 0, 10_000)  # warm-up: compile, or load the cache
    best = float("inf")
    for r in range(repeats):
        t0 = time.perf_counter()
        totals = fast.tally(seed, r * hands, hands)
        best = min(best, time.perf_counter() - t0)
        assert totals["hands"] == hands
    return hands / best, threads, totals["steps"] / hands


def plain_rate(hands: int, seed: int) -> float:
    """Hands per second of lab/rules.py playing random legal moves (one thread)."""
    dealt = fast.record(seed, 0, hands)
    deals = [[card_of(c) for c in row] for row in dealt["deals"]]
    scores = [(int(a), int(b)) for a, b in dealt["scores"]]
    rng = random.Random(seed)
    t0 = time.perf_counter()
    for cards, score in zip(deals, scores):
        state = new_hand(cards[0], cards[1:4], cards[4:7], score)
        while not state.over:
            legal = state.legal_actions()
            state = state.apply(legal[rng.randrange(len(legal))])
    return hands / (time.perf_counter() - t0)


def main(argv: list[str]) -> int:
    parser = Parser(prog="lab bench sim", description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=integer, default=5_000_000,
                        help="hands per timing of the fast engine (default 5,000,000)")
    parser.add_argument("--plain-hands", type=integer, default=30_000,
                        help="hands for the plain engine (default 30,000)")
    parser.add_argument("--threads", type=integer, default=2, help="numba threads (default 2)")
    parser.add_argument("--repeats", type=integer, default=3, help="fast timings (default 3)")
    parser.add_argument("--seed", type=integer, default=1)
    args = parser.parse_args(argv)
    if min(args.hands, args.plain_hands, args.threads, args.repeats) < 1 or args.seed < 0:
        raise InputError("--hands, --plain-hands, --threads and --repeats must be >= 1, "
                         "--seed >= 0")
    rate, threads, steps = fast_rate(args.hands, args.threads, args.repeats, args.seed)
    one = fast_rate(args.hands, 1, args.repeats, args.seed)[0] if threads > 1 else rate
    plain = plain_rate(args.plain_hands, args.seed)
    ratio = rate / plain
    print(f"fast engine (numba, {threads} threads): {rate:,.0f} hands/s "
          f"(best of {args.repeats} x {args.hands:,} hands, {steps:.2f} actions per hand)")
    if threads > 1:
        print(f"fast engine (numba, 1 thread): {one:,.0f} hands/s")
    print(f"plain engine (lab/rules.py, 1 thread): {plain:,.0f} hands/s "
          f"({args.plain_hands:,} hands)")
    print(f"ratio: {ratio:,.0f}x")
    print(f"targets: >= {FAST_TARGET:,} hands/s {'met' if rate >= FAST_TARGET else 'MISSED'}; "
          f">= {RATIO_TARGET}x {'met' if ratio >= RATIO_TARGET else 'MISSED'}")
    return 0
