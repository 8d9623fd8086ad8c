"""Kuhn poker as a public game: a tiny known game that keeps the CFR kernels honest.

Three cards (J < Q < K), one to each player, ante 1 each. Player 0 checks or
bets 1; after a check player 1 checks (showdown for 1) or bets; facing a bet a
player folds (loses his ante) or calls (showdown for 2). The game value for
player 0 is -1/18.

Private states are the cards 0, 1, 2; public actions ``"p"`` (pass: check or
fold) and ``"b"`` (bet or call); a public state is the action string.
"""

from __future__ import annotations

import numpy as np

from ..game import PublicGame

KUHN_VALUE = -1.0 / 18.0
"""Player 0's equilibrium value of Kuhn poker."""

KUHN_PAYOFF = np.array([1.0, -1.0, 2.0, -2.0])
"""Player 0's utility of each outcome (the outcomes are named in KuhnPoker.outcome_names)."""


class KuhnPoker(PublicGame):
    name = "kuhn"
    outcome_names = ("p0_wins_1", "p1_wins_1", "p0_wins_2", "p1_wins_2")

    def n_hands(self):
        return (3, 3)

    def deal_weights(self):
        w = np.ones((3, 3)) - np.eye(3)
        return w / w.sum()

    def root(self):
        return ""

    def root_states(self, player):
        return np.arange(3)

    def hand_of(self, player, privates):
        return np.asarray(privates)

    def strength(self, player, privates):
        return np.asarray(privates)

    def actor(self, public):
        if public in ("pp", "bp", "bb", "pbp", "pbb"):
            return None
        return len(public) % 2

    def outcomes(self, public):
        if public == "bp":
            return (0, 0, 0)          # player 1 folds
        if public == "pbp":
            return (1, 1, 1)          # player 0 folds
        if public == "pp":
            return (0, 0, 1)          # showdown for 1 (cards never tie)
        return (2, 2, 3)              # showdown for 2

    def moves(self, public, privates):
        everyone = np.arange(len(privates))
        return [("b", everyone, privates), ("p", everyone, privates)]

    def child(self, public, action):
        return public + action
