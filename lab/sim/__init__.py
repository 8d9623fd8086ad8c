"""Fast playouts, bots and match simulation (``lab bench sim`` times the fast engine:
:mod:`lab.bench.sim`).

- :mod:`lab.sim.encoding` -- cards and actions as small integers (the fast engine's alphabet).
- :mod:`lab.sim.fast` -- a numba hand engine playing uniformly random legal moves.
- :mod:`lab.sim.view` -- what one seat may see of a hand, and the table that keeps it.
- :mod:`lab.sim.bots` -- the bot interface ``Bot.act(view, rng) -> Action`` and the bots.
- :mod:`lab.sim.hands` -- single hands between two bots (checks a solved hand value).
- :mod:`lab.sim.match` -- one match between two bots, and mirrored pairs of matches.
- :mod:`lab.sim.stats` -- match results as DataFrames with 95% confidence intervals.
- :mod:`lab.sim.batch` -- many matches, in this process or on a dask cluster.
"""
