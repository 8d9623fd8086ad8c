"""Cards and actions as small integers: the alphabet of the fast engine.

A card is its index in :data:`lab.cards.DECK`: ``rank * 4 + suit`` (0..39). A deal is
7 card indexes: the vira, the mão's three cards, the pé's three cards. Inside a hand the
fast engine names a card by its *slot*: its position (0, 1, 2) in the hand as dealt.

An action is a code 0..9: ``PLAY0 + slot`` plays a card face up, ``COVER0 + slot`` plays it
face down, then ``RAISE``, ``ACCEPT``, ``RUN``, ``SURRENDER``. A set of legal actions is a
bit mask with bit ``code`` set for each legal code.
"""

from __future__ import annotations

from ..cards import DECK, N_PLAIN, Card
from ..rules import ACCEPT, COVER, PLAY, RAISE, RUN, SURRENDER, Action, HandState

PLAY0, COVER0 = 0, 3
A_RAISE, A_ACCEPT, A_RUN, A_SURRENDER = 6, 7, 8, 9
N_ACTIONS = 10
MAX_STEPS = 16
"""No hand takes more actions: 1 mão de onze decision, or up to 4 raises and 4 accepts,
then at most 6 cards (the last ends it) or one run / surrender."""

HOWS = ("cards", "run", "surrender", "eleven_run")
"""How a hand ended, by code (the same words as ``HandState.how``)."""

SIMPLE_CODES = {RAISE: A_RAISE, ACCEPT: A_ACCEPT, RUN: A_RUN, SURRENDER: A_SURRENDER}



def card_of(index: int) -> Card:
    return DECK[int(index)]


def level_of(index: int, vira_index: int) -> int:
    """Strength level 0..12 of card ``index`` for the vira ``vira_index`` (as lab.cards.level)."""
    rank, suit = divmod(int(index), 4)
    m = (int(vira_index) // 4 + 1) % 10
    if rank == m:
        return N_PLAIN + suit
    return rank if rank < m else rank - 1


def action_code(action: Action, dealt: tuple[Card, ...]) -> int:
    """Code of a rules ``action`` by a seat that was dealt ``dealt`` (its 3 cards in order)."""
    if action.kind == PLAY:
        return PLAY0 + dealt.index(action.card)
    if action.kind == COVER:
        return COVER0 + dealt.index(action.card)
    return SIMPLE_CODES[action.kind]


def code_action(code: int, dealt: tuple[Card, ...]) -> Action:
    """The rules action for ``code`` by a seat that was dealt ``dealt``."""
    code = int(code)
    if PLAY0 <= code < PLAY0 + 3:
        return Action(PLAY, dealt[code - PLAY0])
    if COVER0 <= code < COVER0 + 3:
        return Action(COVER, dealt[code - COVER0])
    return Action({v: k for k, v in SIMPLE_CODES.items()}[code])


def legal_mask(state: HandState, dealt: tuple[tuple[Card, ...], tuple[Card, ...]]) -> int:
    """Bit mask of the codes of ``state.legal_actions()`` (0 when the hand is over)."""
    if state.over:
        return 0
    mine = dealt[state.to_act]
    mask = 0
    for action in state.legal_actions():
        mask |= 1 << action_code(action, mine)
    return mask
