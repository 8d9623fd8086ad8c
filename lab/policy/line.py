"""A real hand (cards and :mod:`lab.rules` actions) followed on a :class:`FullPolicy`.

The policy speaks in strength levels and hand classes; a hand at the table speaks in
cards. :func:`follow` walks a public history of :class:`~lab.rules.Action` s from the deal
and returns the :class:`~lab.policy.full.Line` (each seat's reach under the policy) and,
for each seat whose cards are known, its private state in the policy (its class as dealt
and the levels it still holds). The opponent's hidden cards are never needed: his cards
are public once played, and a covered card is public only as "cover".

Surrender is not part of the solved game (every surrender is weakly dominated, see
:mod:`lab.solver.fullgame.game`); it ends the hand, which :func:`follow` reports as over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..cards import Card, level
from ..classes import hand_classes
from ..rules import ACCEPT, COVER, PLAY, RAISE, RUN, SURRENDER, Action
from .base import PolicyError
from .full import FullPolicy, Line


def policy_action(action: Action, vira: Card):
    """The policy's public action for a rules action (a cover as the table sees it)."""
    if action.kind == PLAY:
        return ("card", level(action.card, vira))
    if action.kind == COVER:
        return "cover"
    if action.kind in (RAISE, ACCEPT, RUN):
        return action.kind
    raise PolicyError(f"{action}: not an action of the solved game")


def rules_action(move, hand: tuple, vira: Card) -> Action:
    """A policy action of the player holding ``hand`` as a rules action on one of his cards
    (of two cards of one level, the first in hand stands for both: they are equivalent)."""
    if isinstance(move, tuple):
        for card in hand:
            if level(card, vira) == move[1]:
                return Action(PLAY if move[0] == "card" else COVER, card)
        raise PolicyError(f"no card of level {move[1]} in hand")
    return Action(move)


@dataclass(frozen=True)
class Followed:
    """Where a hand stands on the policy: the ``line`` and the private state of each seat
    whose cards were given (None otherwise); ``surrendered`` is the seat that gave up."""

    line: Line
    states: tuple
    surrendered: Optional[int] = None

    @property
    def over(self) -> bool:
        return self.surrendered is not None or self.line.over


def dealt_state(policy: FullPolicy, cards, vira: Card) -> int:
    """The private state of a hand as dealt (its class, all three levels held)."""
    levels = tuple(sorted((level(c, vira) for c in cards), reverse=True))
    return policy.state_of(hand_classes(vira.rank).index_of(levels), levels)


def follow(policy: FullPolicy, vira: Card, history, hands: dict) -> Followed:
    """Walk ``history`` (``(seat, Action)`` pairs from the deal) on ``policy``. ``hands``
    maps a seat to its three dealt cards when known. PolicyError for a history the solved
    game does not allow (out of turn, an illegal raise, a card not held, a cover in round
    1, a card already shown ...)."""
    states = [None, None]
    held = [None, None]
    for seat, cards in hands.items():
        states[seat] = dealt_state(policy, cards, vira)
        held[seat] = list(cards)
    line = policy.start()
    for n, (seat, action) in enumerate(history):
        if line.over:
            raise PolicyError(f"action {n + 1} ({action}): the hand is already over")
        actor = policy.actor(line.spot)
        if seat != actor:
            raise PolicyError(f"action {n + 1} ({action}): it is the "
                              f"{('mão', 'pé')[actor]}'s turn")
        if action.kind == SURRENDER:
            return Followed(line, tuple(states), surrendered=seat)
        move = policy_action(action, vira)
        if held[seat] is not None and action.kind in (PLAY, COVER):
            if action.card not in held[seat]:
                raise PolicyError(f"action {n + 1}: {action.card} is not in that hand")
            held[seat].remove(action.card)
        try:
            nxt = line.then(move)
        except PolicyError as exc:
            raise PolicyError(f"action {n + 1} ({action}): {exc}") from None
        if states[seat] is not None and action.kind in (PLAY, COVER):
            lv = level(action.card, vira)
            s = int(policy.cards.remove[states[seat], lv])
            if s < 0:
                raise PolicyError(f"action {n + 1}: no card of that level left")
            states[seat] = s
        line = nxt
    return Followed(line, tuple(states))
