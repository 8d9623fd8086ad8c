"""What one seat may see of a hand, and the table that keeps the public record.

A :class:`View` holds only what the rules let a player know: his own cards, the vira, the
score, the ladder, the cards shown on the table and the public history of actions. A card
played face down appears in the history and on the table without its identity (for both
seats; the seat that covered it finds it in its own ``covered``), and the opponent's cards
in hand never appear at all.

A :class:`Table` wraps a :class:`lab.rules.HandState` with the public history (who did
what), which the state alone does not keep, and hands out views.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..cards import Card, level
from ..rules import COVER, ELEVEN, RAISE, Action, HandState, other

COVERED = Action(COVER)
"""How a card played face down appears to everyone: a cover without its card."""


def public(action: Action) -> Action:
    """The action as the table sees it (a covered card loses its identity)."""
    return COVERED if action.kind == COVER else action


def token(action: Action) -> str:
    """The command-line token of an action; a hidden cover reads ``cover``."""
    return "cover" if action.kind == COVER and action.card is None else str(action)


@dataclass(frozen=True)
class View:
    """A hand as seen by ``seat`` (0 = mão, 1 = pé) when it is that seat's turn.

    ``score`` is (mão's points, pé's points) before the hand; ``value`` the accepted value of
    the hand in points; ``pending`` the value offered by an unanswered raise (or None);
    ``rounds`` the round winners so far (seat, or None for a tie); ``table`` the cards on
    the table in the current round as (seat, card or None when covered); ``history`` every
    action so far as (seat, public action); ``legal`` the actions this seat may take now;
    ``covered`` the cards this seat itself played face down, in the order it covered them
    (the player knows what he covered; the history shows only "cover"); ``blind`` whether
    the hand is an 11 x 11 played blind, where the seat may not look at ``hand`` (its moves
    are drawn for it: :func:`lab.sim.bots.decide`).
    """

    seat: int
    hand: tuple[Card, ...]
    vira: Card
    score: tuple[int, int]
    kind: str
    eleven_holder: Optional[int]
    deciding_eleven: bool
    value: int
    pending: Optional[int]
    last_raiser: Optional[int]
    rounds: tuple[Optional[int], ...]
    table: tuple[tuple[int, Optional[Card]], ...]
    history: tuple[tuple[int, Action], ...]
    legal: tuple[Action, ...]
    covered: tuple[Card, ...] = ()
    blind: bool = False

    @property
    def opponent(self) -> int:
        return other(self.seat)

    @property
    def round_index(self) -> int:
        """0, 1 or 2: the round being played."""
        return len(self.rounds)

    @property
    def can_raise(self) -> bool:
        return Action(RAISE) in self.legal

    def level(self, card: Card) -> int:
        """Strength level 0..12 of ``card`` under this hand's vira (9..12 are manilhas)."""
        return level(card, self.vira)

    def opponent_card_on_table(self) -> tuple[bool, Optional[Card]]:
        """(whether the opponent has played this round, his open card or None if covered)."""
        for seat, card in self.table:
            if seat == self.opponent:
                return True, card
        return False, None


class Table:
    """A hand in play: the rules state plus the public history of who did what."""

    def __init__(self, state: HandState):
        self.state = state
        self.history: list[tuple[int, Action]] = []

    @property
    def over(self) -> bool:
        return self.state.over

    def apply(self, action: Action) -> None:
        """Let the seat to act take ``action`` (IllegalAction if the rules forbid it)."""
        seat = self.state.to_act
        self.state = self.state.apply(action)
        self.history.append((seat, public(action)))

    def view(self, seat: Optional[int] = None) -> View:
        """What ``seat`` (default: the seat to act) may see now."""
        s = self.state
        if seat is None:
            seat = s.to_act
        to_act = s.to_act == seat
        return View(
            seat=seat,
            hand=s.hands[seat],
            vira=s.vira,
            score=s.score,
            kind=s.kind,
            eleven_holder=s.eleven_holder,
            deciding_eleven=s.kind == ELEVEN and not s.eleven_decided,
            value=s.value,
            pending=s.pending,
            last_raiser=s.last_raiser,
            rounds=s.rounds,
            table=tuple((p.seat, None if p.covered else p.card) for p in s.table),
            history=tuple(self.history),
            legal=tuple(s.legal_actions()) if to_act else (),
            covered=tuple(p.card for p in s.plays if p.seat == seat and p.covered),
            blind=s.blind,
        )
