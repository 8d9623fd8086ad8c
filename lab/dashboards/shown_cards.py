"""How the play-forward sections name cards, and which copy of a card the hidden
opponent shows, and the moves so far in words (:mod:`lab.dashboards.hand_play`,
:mod:`lab.dashboards.eleven_play`)."""

from __future__ import annotations

import html

from ..cards import DECK, MANILHA_NAMES, SUITS, Card, is_manilha
from ..rules import PLAY
from ..widgets import card_label

SHOW_ORDER = sorted(DECK, key=lambda c: (c.rank, -SUITS.index(c.suit_char)))
"""Which copy of a plain rank the opponent shows first: clubs, hearts, spades, diamonds."""


def unseen(vira: Card, hand, seat: int, moves) -> list[Card]:
    """Cards the opponent may still show (``moves``: (seat, Action) pairs so far): not the
    vira, not the user's ``hand``, not shown already (a covered card stays unknown)."""
    seen = {vira, *hand}
    seen |= {a.card for s, a in moves if s != seat and a.kind == PLAY}
    return [c for c in SHOW_ORDER if c not in seen]


def card_text(card: Card, vira: Card) -> str:
    """``3♥``; a manilha with its name: ``5♣ (zap)``."""
    if is_manilha(card, vira):
        return f"{card_label(card)} ({MANILHA_NAMES[card.suit_char]})"
    return card_label(card)


def history_html(history, seat: int, you: str, other: str) -> str:
    """The moves so far as a numbered list (``history``: (seat, words) pairs; ``you`` and
    ``other``: the two seats' names), or "" before the first move."""
    if not history:
        return ""
    items = "".join(f"<li>{f'you ({you})' if s == seat else 'the ' + other}: "
                    f"{html.escape(words)}</li>" for s, words in history)
    return f"<ol class='lab-play-history' style='margin:2px 0'>{items}</ol>"
