"""The solvers' kernels (the generic public-tree ones and the full game's) compile without
numba's negative-index wraparound (:mod:`lab.solver.indexing`): in force on the pinned
numba, scoped to the modules that opt in, and safe because those kernels never index with a
negative number (checked with numba's bounds checks on, which reject any negative index
once the wraparound is gone)."""

import os
import subprocess
import sys
import textwrap

import numpy as np
from numba import njit

from lab.solver import indexing, kernels as generic
from lab.solver.fullgame import batch, betting, kernels, last_node, showdowns, updates
# (they opt in on import)


@njit
def _last(a, i):
    return a[i]


def test_the_kernels_compile_without_the_wraparound_and_other_code_keeps_it():
    assert indexing.supported()
    for module in (generic, kernels, betting, last_node, showdowns, updates, batch):
        assert indexing.active(module.__name__), module.__name__
    assert not indexing.active(__name__)
    # this module did not opt in: a negative index still counts from the end
    assert _last(np.arange(5.0), -1) == 4.0


def _run(script: str, tmp_path) -> subprocess.CompletedProcess:
    # bounds checks on; no LLVM optimisation: the walks compile in a fraction of the time
    # and a reduced deck runs fast enough unoptimised
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_OPT="0",
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                          capture_output=True, text=True, timeout=900)


def test_every_walk_indexes_within_its_arrays(tmp_path):
    """With bounds checks on, the full game's walks (CFR lazy, eager, unpruned and
    predictive; best responses; batched values; a masked walk from one pair, as the hand
    explorer's) and the generic kernels (the card-play game, plain and
    predictive) run without an index error: no index is negative or past the end. The same
    script shows that an opted-in module's negative index is caught. One storage and one
    thread: the walks compile once (storages and threads share every index of the walk).
    About two minutes, most of it compiling."""
    done = _run("""
        import numpy as np
        from numba import njit
        from lab.solver.indexing import without_wraparound
        from lab.solver.fullgame import kernels as K
        from lab.solver.fullgame.records import BEST
        from lab.solver.fullgame.solver import FullSolver, config_for
        from lab.solver.games.cardplay import solve_cardplay

        without_wraparound(__name__)

        @njit
        def at(a, i):
            return a[i]

        try:
            at(np.arange(3.0), -1)
        except IndexError:
            print("negative index caught")
        config = config_for(toy_cap=(2, 2, 2, 1), ladder=(1, 3, 6))
        for schedule in ("dcfr", "pdcfr+"):
            s = FullSolver(config, schedule=schedule).allocate()
            s.iterate(3)
            s.prune_dead = False
            s.iterate(1)
            s.lazy_discount, s.prune_dead = False, True
            s.iterate(1)
            s.best_response_values()
            s.batch_values(np.array([[0.5, 0.6, 0.7]]), np.array([[0.4, 0.5, 0.6]]))
            print(schedule, "ok")
        w = s.work   # the mão's first pair only, from the deal
        w.ENT[0, :] = 1.0
        w.ES[0, 0] = 0
        w.MK[0, :] = 0
        w.MK[0, 0] = 1
        K._visit(0, 0, 1, s.shape, s.store(), w, s.step(0, BEST, masked=True))
        print("masked ok")
        for schedule in ("dcfr", "pdcfr+"):   # the generic kernels, on the card-play game
            solve_cardplay("4", max_iterations=3, first_check=3, schedule=schedule)
        print("card play ok")
        """, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split("\n")[:5] == [
        "negative index caught", "dcfr ok", "pdcfr+ ok", "masked ok", "card play ok"], (
        done.stdout + done.stderr[-2000:])
