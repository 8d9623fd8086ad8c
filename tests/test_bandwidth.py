"""The benches' yardstick: copy bandwidth measured on as many threads as the timed solve."""

import itertools
import json
import threading
import types

import numpy as np
import pytest

from lab.bench import bandwidth


def test_threads_copy_at_once_and_every_threads_bytes_count(monkeypatch):
    """Each thread copies its own array, all at once: each copy waits at a barrier for the
    others, which copies made one after the other would never pass. The bandwidth counts
    every thread's bytes read and written over the round's time (read on a clock that
    moves one second a reading, so no test depends on how busy the machine is)."""
    clock = itertools.count()
    monkeypatch.setattr(bandwidth, "time",
                        types.SimpleNamespace(perf_counter=lambda: float(next(clock))))
    nbytes = 2**20
    for threads in (1, 2):
        copied = []
        barrier = threading.Barrier(threads)

        def copy_at_once(target, source):
            barrier.wait(timeout=60)
            target[...] = source
            copied.append(target.nbytes)

        monkeypatch.setattr(bandwidth.np, "copyto", copy_at_once)
        measured = bandwidth.copy_bandwidth(nbytes, repeats=1, threads=threads)
        assert copied == [nbytes] * threads                # every thread copied, together
        assert measured == 2 * threads * nbytes            # read and written, in 1 s


def test_a_real_copy_measures_a_finite_positive_bandwidth():
    measured = bandwidth.copy_bandwidth(2**22, repeats=2, threads=2)
    assert np.isfinite(measured) and measured > 0


def test_lab_bench_full_bounds_the_iteration_at_its_threads_bandwidth(capsys, monkeypatch):
    """The full game's bound is its traffic at the bandwidth of as many threads as it runs:
    with a bandwidth made to be 1000 bytes/s a thread, two threads halve the bound; more
    threads than numba has are measured as the solve runs them, on numba's."""
    import numba

    from lab.cli import main

    asked = []

    def measured(nbytes=0, repeats=0, threads=1):
        asked.append(threads)
        return 1e3 * threads
    monkeypatch.setattr(bandwidth, "copy_bandwidth", measured)
    first = {}
    for threads in (1, 2, 64):
        assert main(["bench", "full", "--toy", "2,2,2,1", "--ladder", "1,3", "--max-iterations",
                     "2", "--check-every", "2", "--target", "1e-12",
                     "--threads", str(threads)]) == 0
        first[threads] = json.loads(capsys.readouterr().out.splitlines()[0])
    most = numba.config.NUMBA_NUM_THREADS
    assert asked == [1, 2, most] and [first[t]["copy_threads"] for t in (1, 2, 64)] == asked
    assert first[1]["iteration_bound_seconds"] > 10
    assert first[2]["iteration_bound_seconds"] == pytest.approx(
        first[1]["iteration_bound_seconds"] / 2, abs=1e-3)
