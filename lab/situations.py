"""Where a player stands when he bets: the rounds so far and the cards he still has.

A **situation** is a standing in rounds times a class of live cards, named
``STANDING.LIVE`` (for instance ``even.manilha``):

- **standing** (:data:`STANDINGS`): ``ahead`` (he won more rounds than his opponent so
  far; a tied round counts for nobody), ``even`` (as many: none decided, ties only, or
  one each) or ``behind``;
- **live cards** (:data:`LIVE`): the cards in his hand plus his own open card on the
  table in this round (a covered card shows nothing), classed by the cards truco players
  bet on: ``double`` two or more cards of 3 or better (a plain 3 or a manilha),
  ``manilha`` one card of 3 or better and it a manilha, ``three`` one and it a plain 3,
  ``deuce`` none of 3 or better but a plain 2, ``low`` nothing of 2 or better.

Unlike the bucket of a dealt hand (:mod:`lab.player_profile`), a situation changes
during the hand: a player who bets on what he holds now and on the rounds won is seen
deciding the same way in the same situation. :func:`situation` reads it from cards;
:func:`live_class` from strength levels (the solver's view, checked against the cards by
the tests).
"""

from __future__ import annotations

from .cards import N_LEVELS, N_PLAIN, RANKS, level_rank, manilha_rank

STANDINGS = ("ahead", "even", "behind")
LIVE = ("double", "manilha", "three", "deuce", "low")
SITUATIONS = tuple(f"{s}.{live}" for s in STANDINGS for live in LIVE)
"""Every situation, in index order (``standing * len(LIVE) + live``)."""

WORDS = {"ahead": "ahead in rounds", "even": "level in rounds", "behind": "behind in rounds",
         "double": "two cards of 3 or better", "manilha": "a manilha and no other 3 or better",
         "three": "a 3 and no manilha", "deuce": "a 2 and nothing better",
         "low": "nothing of 2 or better"}

THREE, TWO = RANKS.index("3"), RANKS.index("2")


def standing(rounds, seat: int) -> int:
    """The index in :data:`STANDINGS` of ``seat`` (0 mão, 1 pé) after ``rounds`` (each
    round's winner, a seat, or None or anything else for a tie)."""
    won = sum(r == seat for r in rounds)
    lost = sum(r == 1 - seat for r in rounds)
    return 0 if won > lost else 1 if won == lost else 2


def live_class(tops: int, manilha: bool, deuce: bool) -> int:
    """The index in :data:`LIVE` of live cards with ``tops`` cards of 3 or better,
    ``manilha`` whether one is a manilha, ``deuce`` whether one is a plain 2."""
    if tops >= 2:
        return 0
    if tops == 1:
        return 1 if manilha else 2
    return 3 if deuce else 4


def level_kinds(vira_rank: int) -> tuple:
    """Per strength level 0..12 under a vira of rank index ``vira_rank``: (is it 3 or
    better, is it a manilha, is it a plain 2)."""
    out = []
    for lv in range(N_LEVELS):
        manilha = lv >= N_PLAIN
        rank = level_rank(lv, vira_rank)
        out.append((manilha or rank == THREE, manilha, not manilha and rank == TWO))
    return tuple(out)


def situation_index(vira, live_cards, rounds, seat: int) -> int:
    """The index in :data:`SITUATIONS` of ``seat`` holding ``live_cards`` (Cards: his hand
    and his own open card on the table) after ``rounds``, under ``vira`` (a Card)."""
    m = manilha_rank(vira)
    tops = sum(c.rank in (m, THREE) for c in live_cards)
    manilha = any(c.rank == m for c in live_cards)
    deuce = any(c.rank == TWO and c.rank != m for c in live_cards)
    return standing(rounds, seat) * len(LIVE) + live_class(tops, manilha, deuce)


def situation(vira, live_cards, rounds, seat: int) -> str:
    """The situation (:data:`SITUATIONS`) of :func:`situation_index`."""
    return SITUATIONS[situation_index(vira, live_cards, rounds, seat)]


def situation_words(name: str) -> str:
    """A situation in words: ``level in rounds, a manilha and no other 3 or better``."""
    stand, live = name.split(".")
    return f"{WORDS[stand]}, {WORDS[live]}"


__all__ = ["STANDINGS", "LIVE", "SITUATIONS", "standing", "live_class", "level_kinds",
           "situation", "situation_index", "situation_words"]
