"""Cards, their notation, the vira and the manilhas.

A card is written rank + suit: ranks ``4 5 6 7 Q J K A 2 3`` (weakest to
strongest), suits ``c h s d`` (clubs, hearts, spades, diamonds). The symbols
``♣ ♥ ♠ ♦`` are accepted for the suits, and letters are case-insensitive. Several
cards are written with commas (``Ah,3c,4d``), spaces (``Ah 3c 4d``) or nothing
(``Ah3c4d``) between them (:func:`parse_cards`).

For a fixed vira every card has a *strength level* from 0 to 12: the nine
plain ranks (every rank but the manilha's) take levels 0..8 in rank order,
and the four manilhas take 9..12 (pica-fumo, espadilha, copas, zap). A higher
level wins a round; equal levels tie. Suits of plain cards never matter.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InputError

RANKS = "4567QJKA23"
"""Ranks from weakest to strongest."""

SUITS = "dshc"
"""Suits in manilha order, weakest to strongest: diamonds, spades, hearts, clubs."""

SUIT_SYMBOLS = {"♦": "d", "♠": "s", "♥": "h", "♣": "c"}

MANILHA_NAMES = {"c": "zap", "h": "copas", "s": "espadilha", "d": "pica-fumo"}
"""Names of the four manilhas by suit."""

N_LEVELS = 13
"""Strength levels per vira: 9 plain ranks and 4 manilhas."""

N_PLAIN = 9
"""Plain (non-manilha) strength levels per vira."""


class CardError(InputError):
    """A card token that cannot be read, or a set of cards that cannot be dealt."""


@dataclass(frozen=True, order=True)
class Card:
    """One of the 40 cards: ``rank`` indexes RANKS, ``suit`` indexes SUITS."""

    rank: int
    suit: int

    def __str__(self) -> str:
        return RANKS[self.rank] + SUITS[self.suit]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    @property
    def rank_char(self) -> str:
        return RANKS[self.rank]

    @property
    def suit_char(self) -> str:
        return SUITS[self.suit]


DECK: tuple[Card, ...] = tuple(Card(r, s) for r in range(len(RANKS)) for s in range(len(SUITS)))
"""The 40-card deck."""


CARD_FORM = "a card is rank + suit: ranks 4 5 6 7 Q J K A 2 3, suits c h s d or ♣ ♥ ♠ ♦"
"""How one card is written, for error messages."""

CARDS_FORMS = "write the cards as Ah,3c,4d or 'Ah 3c 4d' or Ah3c4d"
"""The accepted ways of writing several cards, for error messages."""


def parse_card(token: str) -> Card:
    """Read one card such as ``4c``, ``Qh``, ``q♥`` or ``3D``; raise CardError otherwise
    (the message shows how a card is written)."""
    if not isinstance(token, str):
        raise CardError(f"{token!r}: not a card ({CARD_FORM}, e.g. 4c or Q♥)")
    text = token.strip()
    if len(text) != 2:
        raise CardError(f"{token!r}: unknown card ({CARD_FORM}, e.g. 4c, Qh, A♠)")
    rank_ch, suit_ch = text[0].upper(), SUIT_SYMBOLS.get(text[1], text[1].lower())
    if rank_ch not in RANKS:
        raise CardError(f"{token!r}: unknown rank {text[0]!r} ({CARD_FORM})")
    if suit_ch not in SUITS:
        raise CardError(f"{token!r}: unknown suit {text[1]!r} ({CARD_FORM})")
    return Card(RANKS.index(rank_ch), SUITS.index(suit_ch))


def card_tokens(text: str) -> list[str]:
    """The card tokens of ``text``: split at commas and at spaces, and a token of several
    two-character cards written together (``Ah3c4d``) cut in twos. A token of odd length
    is kept whole (it is not a card; :func:`parse_card` says why)."""
    tokens = []
    for part in text.split(","):
        words = part.split() or [part]   # an empty part stays: ``4c,,5h`` is refused
        for word in words:
            if len(word) > 2 and len(word) % 2 == 0:
                tokens += [word[i:i + 2] for i in range(0, len(word), 2)]
            else:
                tokens.append(word)
    return tokens


def parse_cards(text: str, count: int | None = None) -> tuple[Card, ...]:
    """Read several cards written ``4c,5h,Qs``, ``4c 5h Qs`` or ``4c5hQs`` (the forms
    may mix: ``4c, 5h Qs``); refuse a bad card, repeats and a wrong count, each error
    showing the accepted forms (repeats name the card)."""
    if not isinstance(text, str):
        raise CardError(f"{text!r}: not a list of cards ({CARDS_FORMS})")
    tokens = card_tokens(text) if text.strip() else []
    try:
        cards = tuple(parse_card(t) for t in tokens)
    except CardError as exc:
        where = f"{text!r}: " if len(tokens) > 1 else ""
        raise CardError(f"{where}{exc}; {CARDS_FORMS}") from None
    if count is not None and len(cards) != count:
        raise CardError(f"{text!r}: expected {count} cards, got {len(cards)} ({CARDS_FORMS})")
    check_distinct(cards)
    return cards


def check_distinct(cards) -> None:
    """Raise CardError naming the first card that appears twice."""
    seen = set()
    for card in cards:
        if card in seen:
            raise CardError(f"{card}: repeated card (each card exists once in the deck)")
        seen.add(card)


def manilha_rank(vira: Card) -> int:
    """Rank index of the manilhas: the rank just above the vira's, wrapping 3 -> 4."""
    return (vira.rank + 1) % len(RANKS)


def is_manilha(card: Card, vira: Card) -> bool:
    return card.rank == manilha_rank(vira)


def level(card: Card, vira: Card) -> int:
    """Strength level 0..12 of ``card`` for this vira (higher wins; equal ties)."""
    m = manilha_rank(vira)
    if card.rank == m:
        return N_PLAIN + card.suit
    return card.rank if card.rank < m else card.rank - 1


def beats(a: Card, b: Card, vira: Card) -> int:
    """+1 if open card ``a`` beats open card ``b``, -1 if it loses, 0 for a tie."""
    la, lb = level(a, vira), level(b, vira)
    return (la > lb) - (la < lb)


def level_rank(lvl: int, vira_rank: int) -> int:
    """Rank index shown by strength level ``lvl`` for a vira of rank ``vira_rank``."""
    m = (vira_rank + 1) % len(RANKS)
    if lvl >= N_PLAIN:
        return m
    return lvl if lvl < m else lvl + 1


def level_copies(lvl: int, vira_rank: int) -> int:
    """Cards of strength level ``lvl`` left for the hands once the vira is turned."""
    if lvl >= N_PLAIN:
        return 1
    return 3 if level_rank(lvl, vira_rank) == vira_rank else 4


def level_name(lvl: int, vira_rank: int) -> str:
    """Readable name of a level: the rank letter, or the manilha's name."""
    if lvl >= N_PLAIN:
        return MANILHA_NAMES[SUITS[lvl - N_PLAIN]]
    return RANKS[level_rank(lvl, vira_rank)]


def card_name(card: Card, vira: Card) -> str:
    """``zap`` / ``copas`` / ``espadilha`` / ``pica-fumo`` for a manilha, else the card."""
    if is_manilha(card, vira):
        return MANILHA_NAMES[card.suit_char]
    return str(card)
