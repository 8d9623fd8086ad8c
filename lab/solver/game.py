"""The interface between a game and the public-tree solver.

A *public game* is a two-player zero-sum game whose only chance event is the
deal of one private *hand* to each player (hand ``i`` to player 0 and hand ``j``
to player 1 with probability ``deal_weights()[i, j]``), and whose moves are
*public actions* seen by both players. A player's *private state* is what he
alone knows: his hand, and whatever he chose in secret since (in truco, which
card he kept when he covered the other). Private states are small integers
chosen by the game, so the tree builder works on numpy arrays of them.

The solver never looks inside public states, private states or actions; it
only asks the questions below.

Terminals. A terminal is public, but its outcome may still depend on the two
private states through a *showdown*: ``outcomes(public)`` gives the outcome
when player 0's ``strength`` is higher, when they are equal, and when player
1's is higher (a plain terminal repeats one outcome three times). Outcomes are
indices into ``outcome_names``; the caller turns them into utilities for
player 0 with a payoff vector, and player 1 receives minus that (zero-sum; a
constant-sum unit such as win probability changes no strategy).

Moves. ``moves(public, privates)`` lists, for the player to act, every public
action with the private states that can take it (``from_index``, positions in
``privates``) and the private state each one moves to. One private state may
reach one public action by several moves (a cover: which card goes face down
is secret). Perfect recall is required: two different private states never
move to the same next state under one public action.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Hashable, Optional

import numpy as np

Public = Hashable
Action = Hashable


class PublicGame(ABC):
    """A two-player game with a dealt private hand per player and public actions."""

    name: str = "game"
    outcome_names: tuple[str, ...] = ()
    """Names of the terminal outcomes; a payoff vector has one entry per outcome."""

    @abstractmethod
    def n_hands(self) -> tuple[int, int]:
        """Number of hands each player can be dealt."""

    @abstractmethod
    def deal_weights(self) -> np.ndarray:
        """(n0, n1) probability of each deal (hand of player 0, hand of player 1); sums to 1."""

    @abstractmethod
    def root(self) -> Public:
        """The public state before the first move."""

    @abstractmethod
    def root_states(self, player: int) -> np.ndarray:
        """The private state of each hand of ``player`` at the root (position = hand)."""

    @abstractmethod
    def hand_of(self, player: int, privates: np.ndarray) -> np.ndarray:
        """The dealt hand behind each private state."""

    @abstractmethod
    def actor(self, public: Public) -> Optional[int]:
        """The player to move, or None at a terminal."""

    @abstractmethod
    def outcomes(self, public: Public) -> tuple[int, int, int]:
        """A terminal's outcome when player 0 is stronger, equal, weaker (see module doc)."""

    def strength(self, player: int, privates: np.ndarray) -> np.ndarray:
        """Showdown strength of each private state (only compared at showdowns)."""
        return np.zeros(len(privates), dtype=np.int64)

    @abstractmethod
    def moves(self, public: Public, privates: np.ndarray) -> list:
        """``[(action, from_index, to_private), ...]`` for the player to act (see module doc)."""

    @abstractmethod
    def child(self, public: Public, action: Action) -> Public:
        """The public state after ``action``."""

    def consistent(self, public: Public, player: int, privates: np.ndarray):
        """Mask of the private states the public history still allows (None: all of them).

        Dropping states that cannot occur changes no value; it only makes the tree smaller.
        """
        return None

    def action_name(self, action: Action) -> str:
        return str(action)


class RootDecision(PublicGame):
    """``game`` preceded by a public choice of ``player``, who already sees his hand.

    ``accept`` plays ``game``; ``run`` ends at once with the extra outcome ``"run"``
    (the last outcome index), whose payoff the caller fixes. This is the mão de
    onze: the 11-point holder accepts or runs, and the opponent then plays
    against the range that accepted.
    """

    ACCEPT, RUN = "accept", "run"

    def __init__(self, game: PublicGame, player: int):
        self.game = game
        self.player = player
        self.name = f"{game.name}+decision({player})"
        self.outcome_names = tuple(game.outcome_names) + ("run",)
        self.run_outcome = len(game.outcome_names)

    def n_hands(self):
        return self.game.n_hands()

    def deal_weights(self):
        return self.game.deal_weights()

    def root(self):
        return ("decide",)

    def root_states(self, player):
        return self.game.root_states(player)

    def hand_of(self, player, privates):
        return self.game.hand_of(player, privates)

    def actor(self, public):
        if public[0] == "decide":
            return self.player
        if public[0] == "run":
            return None
        return self.game.actor(public[1])

    def outcomes(self, public):
        if public[0] == "run":
            return (self.run_outcome,) * 3
        return self.game.outcomes(public[1])

    def strength(self, player, privates):
        return self.game.strength(player, privates)

    def moves(self, public, privates):
        if public[0] == "decide":
            everyone = np.arange(len(privates))
            return [(self.ACCEPT, everyone, privates), (self.RUN, everyone, privates)]
        return self.game.moves(public[1], privates)

    def child(self, public, action):
        if public[0] == "decide":
            return ("play", self.game.root()) if action == self.ACCEPT else ("run",)
        return ("play", self.game.child(public[1], action))

    def consistent(self, public, player, privates):
        if public[0] != "play":
            return None
        return self.game.consistent(public[1], player, privates)

    def action_name(self, action):
        if action in (self.ACCEPT, self.RUN):
            return action
        return self.game.action_name(action)
