"""Exact solvers: public trees, CFR kernels, best responses, and the games built on them.

Modules, in import order:

* :mod:`~lab.solver.game` -- the small interface a game offers the solver
  (deal weights, public states, private states as integers, moves, outcomes),
  and :class:`~lab.solver.game.RootDecision` (a choice before the cards).
* :mod:`~lab.solver.tree` -- the public tree as flat numpy arrays.
* :mod:`~lab.solver.kernels` -- numba kernels: regret matching, reach, terminal
  values with card removal, values up the tree, Discounted CFR updates.
* :mod:`~lab.solver.cfr` -- :class:`~lab.solver.cfr.CFRSolver` (built -> allocated
  -> solved), exact best response and exploitability.
* :mod:`~lab.solver.kuhn` -- Kuhn poker, which keeps the kernels honest.
* :mod:`~lab.solver.cardplay_game` -- the truco card-play game of a vira.
* :mod:`~lab.solver.cardplay` -- :func:`~lab.solver.cardplay.solve_cardplay`: hand equity.
* :mod:`~lab.solver.double_dummy` -- the card-play game with both hands face up.
"""
