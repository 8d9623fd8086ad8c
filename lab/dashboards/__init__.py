"""The dashboards, one module per view: :mod:`~lab.dashboards.landing` (the landing page),
:mod:`~lab.dashboards.equity_by_vira`, :mod:`~lab.dashboards.match_equity`, and the views
on the full game's stored policy (:mod:`lab.tables.policies`):

* :mod:`~lab.dashboards.spots`: decision points of the policy in a player's words: who
  acts, what each public action is called, how every hand class plays there and how likely
  each is to be there; preset situations.
* :mod:`~lab.dashboards.background`: slow work (loading a policy, exact action values)
  off the kernel's main thread, so that a dashboard draws first and fills in after.
* :mod:`~lab.dashboards.hand_play`: one hand played forward against the policy, move by
  move (the hand explorer's play section).
* :mod:`~lab.dashboards.hand_explorer`, :mod:`~lab.dashboards.strategy_explorer`: the
  two dashboards of ``notebooks/hand_explorer.ipynb`` and ``strategy_explorer.ipynb``.
* :mod:`~lab.dashboards.ranking`: the ``bot_ranking`` table.
* :mod:`~lab.dashboards.house_rules`: what a house rule set changes beside the lab's own
  rules, from the what-if tables (``notebooks/house_rules.ipynb``).
* :mod:`~lab.dashboards.review`: a played match graded decision by decision, through
  :mod:`lab.match_review` and :mod:`lab.player_profile` (``notebooks/review.ipynb``).

The helpers they share with the other dashboards (missing-table messages, images, seat
buttons) live in :mod:`lab.widgets`.
"""
