"""Exact solvers, in three parts.

The generic engine (this folder), in import order:

* :mod:`~lab.solver.game` -- the small interface a game offers the solver
  (deal weights, public states, private states as integers, moves, outcomes),
  and :class:`~lab.solver.game.RootDecision` (a choice before the cards).
* :mod:`~lab.solver.tree` -- the public tree as flat numpy arrays.
* :mod:`~lab.solver.kernels` -- numba kernels: regret matching, reach, terminal
  values with card removal, values up the tree, Discounted CFR updates.
* :mod:`~lab.solver.lifecycle` -- build -> allocate -> solve, shared by every solver.
* :mod:`~lab.solver.cfr` -- :class:`~lab.solver.cfr.CFRSolver`, exact best response and
  exploitability.

The games built on it (:mod:`lab.solver.games`): Kuhn poker, which keeps the kernels
honest; the truco card-play game of a vira and its solve (hand equity); double dummy;
the mão de onze and its match payoffs.

The compact full-game engine (:mod:`lab.solver.fullgame`): the hand with the truco ladder
as card nodes x betting states, its own kernels and solver with checkpoints, and the
compact stored form of its solved strategies.

A solver returns results (a strategy, values); reading a solved strategy is
:mod:`lab.policy`'s, so that the dashboards and the bots never import this package.
"""
