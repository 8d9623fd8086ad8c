"""The benches' yardstick: copy bandwidth measured on as many threads as the timed solve."""

import json
import time

import numpy as np
import pytest

from lab.bench import bandwidth


def test_threads_copy_at_once_and_every_threads_bytes_count(monkeypatch):
    """Each thread copies its own array, all at once: with each copy made to take 0.2 s,
    two threads take 0.2 s (not 0.4) for twice the bytes of one."""
    def slow_copy(target, source):
        time.sleep(0.2)
        target[...] = source
    monkeypatch.setattr(bandwidth.np, "copyto", slow_copy)
    nbytes = 2**20
    one = bandwidth.copy_bandwidth(nbytes, repeats=1, threads=1)
    two = bandwidth.copy_bandwidth(nbytes, repeats=1, threads=2)
    assert one == pytest.approx(2 * nbytes / 0.2, rel=0.5)
    assert two == pytest.approx(2 * one, rel=0.3)


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
