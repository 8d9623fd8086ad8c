"""The full hand game with the truco ladder, as a plain :class:`~lab.solver.game.PublicGame`.

This is the *reference* form of the game: readable, one public node per public
history, small enough only for reduced decks and ladders. The generic solver of
:mod:`lab.solver.cfr` solves it; the compact solver of :mod:`lab.solver.fullgame.solver`
(card nodes times betting histories, 16-bit storage) must agree with it
iteration by iteration on reduced configurations.

Cards follow :class:`~lab.solver.games.cardplay_game.CardplayGame` (strength levels,
hand classes, covered cards from round 2, the tie table); the betting follows
``docs/rules.md``:

* On his turn to play a card a player may first **raise** (if he did not make
  the last raise and the value is below the top of the ladder).
* A raise is answered by **accept** (the raiser's opponent accepts; the player
  whose turn it was plays on at the new value), **run** (the raiser scores the
  accepted value, the one before the raise) or **re-raise** (accepts, and offers
  the next step; the first raiser must answer).
* **Surrender** pays the opponent the accepted value.

Pruned moves (both are kept when asked, for the tests that show they change
nothing):

``surrender`` (``with_surrender=False`` drops it).
    *As an answer* to a raise it pays exactly what ``run`` pays (the accepted
    value to the same player), so it duplicates ``run``. *On one's turn to play*
    it pays ``-v`` (``v`` = accepted value). Playing on with the continuation
    "never raise, run from every raise" guarantees at least ``-v`` against every
    opponent strategy: the value never rises above ``v`` because nothing is
    accepted, a run pays ``v`` and a lost hand pays ``v``. So every strategy that
    surrenders is weakly dominated, pointwise against every opponent strategy, by
    the same strategy with each surrender replaced by that continuation. Removing
    weakly dominated strategies of a zero-sum game changes neither its value nor
    either player's best-response value against a strategy that never uses them,
    so values and exploitabilities are the same with and without surrender.

covering in round 3 (``cover_in_round3=False`` drops it).
    The round-3 *follower* plays his last card as the last action of the hand:
    open, it wins, ties or loses the round; covered, it loses to an open lead and
    ties a covered one, never better. Pointwise dominated, drop it first. With
    it gone, a *leader* who covers his last card loses the round (the follower's
    card is open) and with it the hand (after 1-1 or two ties round 3 decides),
    so covering pays at most ``-v``: afterwards he only answers raises, and
    accepting or re-raising only raises what he loses. Playing the card open and
    then "run from every raise" guarantees ``-v``. Dominated again; by the same
    argument as for surrender neither the value nor the best responses change.

Here every card is a public action and every terminal outcome is public. The
compact layout folds the round-3 follower's forced last card into a showdown
(the lead's level is public, so the outcome depends on his card only); its
values must match this form exactly.

Outcomes: index ``2 * k`` is "the mão scores ``ladder[k]``", ``2 * k + 1`` "the pé
scores ``ladder[k]``"; :meth:`FullGame.payoffs` gives the mão's points for each.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...rules import NOBODY
from ..games.cardplay_game import MAO, CardplayGame, decided
from ..game import PublicGame

LADDER = (1, 3, 6, 9, 12)
"""Hand values of the real game: 1, then truco 3, 6, 9, 12."""

RAISE, ACCEPT, RUN, SURRENDER = "raise", "accept", "run", "surrender"


@dataclass(frozen=True)
class BetState:
    """The betting part of a public state.

    ``value`` index into the ladder of the accepted value; ``pending`` index of an
    offered value waiting for an answer (-1 if none); ``last_raiser`` seat of the
    last raise (-1 if none). A terminal's public state also carries
    ``end = (how, winner, value index)``.
    """

    value: int = 0
    pending: int = -1
    last_raiser: int = -1


class FullGame(PublicGame):
    """The hand game with the truco ladder for one vira (or a toy deck), reference form.

    ``ladder``: the hand values (the real game's ``(1, 3, 6, 9, 12)`` or a shorter
    one such as ``(1, 3, 6)`` for tests). ``toy_cap``: copies per level of a small
    deck (see :func:`~lab.solver.games.cardplay_game.toy_classes`). ``three_ties``: who
    takes three tied rounds (a seat, or ``NOBODY``: the hand scores nothing, its own
    outcome, worth 0 points).
    """

    def __init__(self, vira=None, *, ladder=LADDER, toy_cap=None, with_surrender: bool = False,
                 cover_in_round3: bool = False, three_ties=MAO):
        self.cards = CardplayGame(vira, fold_round3=False, cover_in_round3=cover_in_round3,
                                  toy_cap=toy_cap, three_ties=three_ties)
        self.ladder = tuple(int(v) for v in ladder)
        self.with_surrender = with_surrender
        self.outcome_names = tuple(f"{s}+{v}" for v in self.ladder for s in ("mao", "pe")) + (
            ("nobody",) if three_ties == NOBODY else ())
        self.name = (f"full[{self.cards.name} ladder {'-'.join(map(str, self.ladder))}"
                     + (" +surrender" if with_surrender else "")
                     + (" +cover3" if cover_in_round3 else "")
                     + "]")
        self.labels = self.cards.labels

    # ---- payoffs
    def payoffs(self) -> np.ndarray:
        """The mão's points for each outcome."""
        points = [v if s == "mao" else -v for v in self.ladder for s in ("mao", "pe")]
        return np.array(points + [0] * (len(self.outcome_names) - len(points)),
                        dtype=np.float64)

    def outcome(self, winner, value_index: int) -> int:
        if winner == NOBODY:
            return 2 * len(self.ladder)
        return 2 * value_index + winner

    # ---- chance
    def n_hands(self):
        return self.cards.n_hands()

    def deal_weights(self):
        return self.cards.deal_weights()

    def root_states(self, player):
        return self.cards.root_states(player)

    def hand_of(self, player, privates):
        return self.cards.hand_of(player, privates)

    # ---- public states: (card public, BetState, end)
    def root(self):
        return (self.cards.root(), BetState(), None)

    def actor(self, public):
        card_pub, bet, end = public
        if end is not None:
            return None
        if bet.pending >= 0:
            return 1 - bet.last_raiser
        return self.cards.actor(card_pub)

    def outcomes(self, public):
        card_pub, bet, end = public
        if end is not None:
            winner, value_index = end[1], end[2]
            return (self.outcome(winner, value_index),) * 3
        winner = decided(card_pub[0], self.cards.three_ties)
        return (self.outcome(winner, bet.value),) * 3

    def can_raise(self, bet: BetState, seat: int) -> bool:
        top = len(self.ladder) - 1
        offered = bet.pending if bet.pending >= 0 else bet.value
        return bet.last_raiser != seat and offered < top

    def moves(self, public, privates):
        card_pub, bet, _ = public
        seat = self.actor(public)
        everyone = np.arange(len(privates))
        out = []
        if bet.pending >= 0:
            out += [(ACCEPT, everyone, privates), (RUN, everyone, privates)]
            if self.can_raise(bet, seat):
                out.append((RAISE, everyone, privates))
            if self.with_surrender:
                out.append((SURRENDER, everyone, privates))
            return out
        out += [(("card", a), f, t) for a, f, t in self.cards.moves(card_pub, privates)]
        if self.can_raise(bet, seat):
            out.append((RAISE, everyone, privates))
        if self.with_surrender:
            out.append((SURRENDER, everyone, privates))
        return out

    def child(self, public, action):
        card_pub, bet, _ = public
        seat = self.actor(public)
        if action == ACCEPT:
            return (card_pub, BetState(bet.pending, -1, bet.last_raiser), None)
        if action in (RUN, SURRENDER):
            return (card_pub, bet, (action, 1 - seat, bet.value))
        if action == RAISE:
            if bet.pending >= 0:  # a re-raise accepts the pending value first
                return (card_pub, BetState(bet.pending, bet.pending + 1, seat), None)
            return (card_pub, BetState(bet.value, bet.value + 1, seat), None)
        return (self.cards.child(card_pub, action[1]), bet, None)

    def consistent(self, public, player, privates):
        card_pub, _, end = public
        if end is not None:
            return None
        return self.cards.consistent(card_pub, player, privates)

    def action_name(self, action):
        if isinstance(action, tuple):
            return self.cards.action_name(action[1])
        return str(action)

