"""Compile the numba kernels once, before they are first needed (``lab prepare --kernels``).

A kernel is compiled the first time a process calls it with new argument types, and kept
in numba's cache (:mod:`lab.numba_cache`); the full game's walks take minutes to compile.
Two processes that both need a kernel before either has cached it both compile it. This
module calls every kernel family on toy games, split in two parts that share no kernel,
so two processes can compile them side by side before the work that needs them (the
test suite's two workers, a server's first visitor):

- ``solve``: the full game's CFR walks (both storages, both schedules), its best
  responses and batched values, the stored policy's compaction, the card-play solver;
- ``values``: a stored policy's walks (its values, on every thread and on one), the
  expansion of a subtree, and the simulator's random hands.

Nothing is written but numba's cache.
"""

from __future__ import annotations

import numpy as np

PARTS = ("solve", "values")
"""The parts, each for one process."""

TOY = dict(toy_cap=(2, 2, 2, 1), ladder=(1, 3, 6))
"""A toy full game: every kernel, in a fraction of a second once compiled."""


def warm(part: str) -> None:
    """Call every kernel of ``part`` (:data:`PARTS`) once on toy games."""
    if part == "solve":
        _solve()
    elif part == "values":
        _values()
    else:
        raise ValueError(f"{part!r}: the parts are {', '.join(PARTS)}")


def _solve() -> None:
    from .solver.fullgame.compact import compact_policy
    from .solver.fullgame.solver import FullSolver, config_for
    from .solver.games.cardplay import solve_cardplay

    for storage, schedule in (("float32", "dcfr"), ("int16", "dcfr"), ("float32", "pdcfr+")):
        solver = FullSolver(config_for(storage=storage, **TOY), schedule=schedule).allocate()
        solver.iterate(2)
        solver.best_response_values()
    solver.batch_values(np.array([[0.5, 0.6, 0.7]]), np.array([[0.4, 0.5, 0.6]]))
    compact_policy(solver, 0.01)
    solve_cardplay("4", max_iterations=16, check_every=8, first_check=8)


def _values() -> None:
    from .solver.fullgame.compact import build_keys
    from .policy.full import FullPolicy
    from .solver.fullgame.records import BEST
    from .solver.fullgame.solver import FullSolver, config_for
    from .sim.fast import tally

    config = config_for(**TOY)
    shape = FullSolver(config)
    keys = build_keys(shape.tree, shape.layout, shape.templates)
    policy = FullPolicy(config, np.ones(keys.n_slots, dtype=np.uint8), keys=keys)
    line = policy.start()
    line.action_values(policy.actor(line.spot))          # the deal: every thread
    while not line.over:
        move = policy.decision(line.spot).actions[0]
        line = line.then(move)
        if not line.over and line.spot.card != 0 and policy.tree.depth[line.spot.card] > 1:
            seat = policy.actor(line.spot)
            line.action_values(seat, 0)                  # a subtree, one pair, one thread
            line.action_values(seat)
            break
    policy.solver().traverse(0, BEST)                    # the whole policy's best response
    tally(1, 0, 64)
