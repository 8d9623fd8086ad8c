"""How the play-forward sections name cards, and which copy of a card the hidden
opponent shows (:mod:`lab.dashboards.hand_play`, :mod:`lab.dashboards.eleven_play`)."""

from __future__ import annotations

from ..cards import DECK, MANILHA_NAMES, SUITS, Card, is_manilha
from ..widgets import card_label

SHOW_ORDER = sorted(DECK, key=lambda c: (c.rank, -SUITS.index(c.suit_char)))
"""Which copy of a plain rank the opponent shows first: clubs, hearts, spades, diamonds."""


def card_text(card: Card, vira: Card) -> str:
    """``3♥``; a manilha with its name: ``5♣ (zap)``."""
    if is_manilha(card, vira):
        return f"{card_label(card)} ({MANILHA_NAMES[card.suit_char]})"
    return card_label(card)
