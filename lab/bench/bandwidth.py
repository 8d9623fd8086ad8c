"""The machine's memory bandwidth, the yardstick of the benches' memory-traffic bounds.

A solve that runs on two threads can move about twice the bytes a second that one thread
moves here (46-48 GB/s against 24-25 GB/s), so a bound is measured with as many threads as
the timed solve uses.
"""

from __future__ import annotations

import threading
import time

import numpy as np


def copy_bandwidth(nbytes: int = 256 * 2**20, repeats: int = 5, threads: int = 1) -> float:
    """Memory bandwidth in bytes/s that ``threads`` threads reach together: the bytes read
    plus the bytes written in the fastest of ``repeats`` rounds (the first also maps the
    targets' pages), each thread copying an ``nbytes`` array of its own, all started at
    once (numpy lets go of the interpreter lock while it copies a large array)."""
    threads = max(1, int(threads))
    sources = [np.ones(nbytes // 8, dtype=np.float64) for _ in range(threads)]
    targets = [np.empty_like(s) for s in sources]   # the first round maps their pages
    best = float("inf")
    for _ in range(repeats):
        start = threading.Barrier(threads + 1)

        def copy(i):
            start.wait()
            np.copyto(targets[i], sources[i])

        workers = [threading.Thread(target=copy, args=(i,)) for i in range(threads)]
        for w in workers:
            w.start()
        start.wait()
        began = time.perf_counter()
        for w in workers:
            w.join()
        best = min(best, time.perf_counter() - began)
    return 2 * threads * sources[0].nbytes / best
