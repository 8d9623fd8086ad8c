"""Solved strategies as policies: what each hand does at each public state.

A :class:`Policy` answers, for a public state of its game, who acts, which actions are
legal there and the strategy of every hand the actor may hold, as one array
``[action][hand]`` (:class:`Decision`). It carries what it belongs to (game, vira, score,
rules) and its measured exploitability in its own unit. Solvers return policies; bots,
advice, tables and dashboards read only this interface.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..errors import InputError

class PolicyError(InputError):
    """A state or history the policy does not hold (illegal, impossible or not stored)."""


@dataclass(frozen=True)
class Decision:
    """The strategy at one public state.

    ``seat`` acts (0 mão, 1 pé); ``actions`` are the public actions some hand may take;
    ``hands[i]`` is the hand class of the actor's ``i``-th private state and ``held[i]`` the
    levels it still holds; ``strategy[a, i]`` the probability that state ``i`` takes action
    ``a`` (0 where it cannot); ``stored[i]`` whether the policy holds state ``i`` here (its
    own reach is above zero), NaN columns where it does not.
    """

    seat: int
    actions: tuple
    hands: np.ndarray
    held: tuple
    strategy: np.ndarray
    stored: np.ndarray

    def of_hand(self, i: int) -> dict:
        """``{action: probability}`` of private state ``i`` over its own legal actions."""
        col = self.strategy[:, i]
        return {a: float(p) for a, p in zip(self.actions, col) if not np.isnan(p)
                and self.legal_for(i, a)}

    def legal_for(self, i: int, action) -> bool:
        if isinstance(action, tuple):
            return action[1] in self.held[i]
        return True


class Policy:
    """A solved strategy (see the module docstring). Subclasses fill in the metadata and
    :meth:`decision`."""

    game: str = ""
    vira: Optional[str] = None
    score: Optional[tuple] = None
    rules: str = ""
    exploitability: float = float("nan")
    unit: str = ""

    def describe(self) -> dict:
        """The metadata as a plain dict."""
        return {"game": self.game, "vira": self.vira,
                "score": None if self.score is None else list(self.score),
                "rules": self.rules, "exploitability": self.exploitability, "unit": self.unit}
