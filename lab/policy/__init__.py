"""Solved strategies as readers see them: the one package the dashboards and the bots use
to read a solved game, never the solver package.

* :mod:`~lab.policy.base` -- :class:`~lab.policy.base.Policy`, a solved strategy as
  ``[action][hand]`` arrays at public states, and :class:`~lab.policy.base.PolicyError`.
* :mod:`~lab.policy.full` -- :class:`~lab.policy.full.FullPolicy`, the full game's stored
  strategy (decoded from :mod:`lab.solver.fullgame.compact`), and
  :class:`~lab.policy.full.Line`, a public line followed on it with each seat's reach.
* :mod:`~lab.policy.values` -- exact action values at a spot of a stored policy, kept for
  the deal and the first card, a subtree walk below.
* :mod:`~lab.policy.line` -- a real hand (cards and rules actions) followed on a policy.

The tables layer reads the stored files into these; the advice service
(:mod:`lab.advice`) answers every surface from them.
"""
