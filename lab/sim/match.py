"""Matches between two bots, A and B, played with lab/rules.py.

Variance is cut by **mirrored pairs**: match pair ``p`` is played twice from the same stream
of deals. In the first match A receives the first 3-card hand of every deal and B the
second; in the mirror they are swapped. Who is mão in a match's first hand is chosen by
``first``: ``"alternate"`` (A in the first match of the pair, B in the mirror, so seats
swap along with the cards), ``"a"`` or ``"b"`` (that bot in both). The mão then alternates
from hand to hand, as the rules say.

Every random stream (the deals of a pair, each bot's choices in each match) is derived
from ``(seed, pair, ...)``, so a match's result does not depend on which process plays it.
Matches are played under a :class:`lab.rules.RuleSet` (the default rules unless given);
where three tied rounds score nothing, a hand may have no winner and leave the score as
it was.
"""

from __future__ import annotations

import random

import numpy as np

from ..cards import DECK
from ..rules import DEFAULT_RULES, NOBODY, SEAT_NAMES, MatchState, RuleSet, check_score
from .bots import Bot, decide
from .view import Table
from ..errors import InputError

FIRST_CHOICES = ("alternate", "a", "b")


def stream_seed(seed: int, *path: int) -> int:
    """A 64-bit seed for the random stream named by ``(seed, *path)``."""
    return int(np.random.SeedSequence([int(seed), *map(int, path)]).generate_state(1, np.uint64)[0])


def play_match(bot_a: Bot, bot_b: Bot, seed: int, pair: int, mirror: bool,
               first: str = "alternate", start: tuple[int, int] = (0, 0),
               hand_rows: list | None = None, rules: RuleSet = DEFAULT_RULES,
               record: bool = False) -> dict:
    """Play one match of pair ``pair`` (the mirror when ``mirror``) under ``rules``; return
    its record.

    ``start`` is (A's points, B's points) when the match starts. The record gives the match
    number, pair, mirror, who was mão first, the winner (``"a"``/``"b"``), final points, the
    number of hands and how many of them scored nothing. With ``hand_rows`` a list, one dict
    per hand is appended to it (its winner ``"a"``, ``"b"`` or ``"nobody"``); with
    ``record`` too, each row also holds what a match record needs to replay the hand
    (:mod:`lab.match_record`): ``vira``, ``mao_cards`` and ``pe_cards`` (``"Ah,3c,4d"``)
    and ``actions`` (``lab replay``'s tokens, space-separated, covers with their cards).
    """
    if first not in FIRST_CHOICES:
        raise InputError(f"{first!r}: first must be one of {', '.join(FIRST_CHOICES)}")
    check_score(start)
    a_player = 1 if mirror else 0  # players 0 and 1; player 0 gets each deal's first hand
    bots = [None, None]
    bots[a_player], bots[1 - a_player] = bot_a, bot_b
    rngs = [random.Random(stream_seed(seed, pair, 1 + mirror, player)) for player in (0, 1)]
    deals = random.Random(stream_seed(seed, pair, 0))
    scores = [0, 0]
    scores[a_player], scores[1 - a_player] = start
    if first == "alternate":
        first_mao = 0
    else:
        first_mao = a_player if first == "a" else 1 - a_player
    match = MatchState((scores[0], scores[1]), first_mao, rules=rules)
    scoreless = 0
    for player in (0, 1):
        bots[player].begin_match(bots[1 - player].name)
    while not match.over:
        cards = deals.sample(DECK, 7)
        player_cards = (cards[1:4], cards[4:7])
        mao = match.mao
        table = Table(match.deal(cards[0], player_cards[mao], player_cards[1 - mao]))
        for bot in bots:
            bot.begin_hand()
        while not table.over:
            seat = table.state.to_act
            player = mao if seat == 0 else 1 - mao
            view = table.view(seat)
            action = decide(bots[player], view, rngs[player])
            table.apply(action)
            bots[1 - player].observe(view, action)
        hand = table.state
        scoreless += hand.winner is None
        for player in (0, 1):
            bots[player].end_hand(hand.net_points(0 if player == mao else 1))
        if hand_rows is not None:
            if hand.winner is None:
                winner = NOBODY
            else:
                won = mao if hand.winner == 0 else 1 - mao
                winner = "a" if won == a_player else "b"
            row = {
                "pair": pair, "mirror": mirror, "hand": match.hands_played,
                "a_seat": SEAT_NAMES[0 if mao == a_player else 1],
                "a_score": match.scores[a_player], "b_score": match.scores[1 - a_player],
                "winner": winner, "points": hand.points,
                "how": hand.how, "rounds": len(hand.rounds),
            }
            if record:
                row.update({
                    "vira": str(cards[0]),
                    "mao_cards": ",".join(map(str, player_cards[mao])),
                    "pe_cards": ",".join(map(str, player_cards[1 - mao])),
                    "actions": " ".join(map(str, hand.history)),
                })
            hand_rows.append(row)
        match = match.after(hand)
    for bot in bots:
        bot.end_match()
    return {
        "match": 2 * pair + int(mirror), "pair": pair, "mirror": mirror,
        "a_first_mao": first_mao == a_player,
        "winner": "a" if match.winner == a_player else "b",
        "a_points": match.scores[a_player], "b_points": match.scores[1 - a_player],
        "hands": match.hands_played, "scoreless_hands": scoreless,
    }


def play_matches(bot_a: Bot, bot_b: Bot, seed: int, lo: int, hi: int, first: str = "alternate",
                 start: tuple[int, int] = (0, 0), with_hands: bool = False, progress=None,
                 rules: RuleSet = DEFAULT_RULES,
                 record: bool = False) -> tuple[list[dict], list[dict]]:
    """Matches number ``lo .. hi - 1`` (match ``m`` is pair ``m // 2``, mirror ``m % 2``)
    under ``rules``.

    Returns (match records, hand rows; empty unless ``with_hands``, with the cards and
    actions of each hand when ``record``: :func:`play_match`). ``progress``, if given, is
    called with 1 after each match.
    """
    records, hands = [], []
    for m in range(lo, hi):
        records.append(play_match(bot_a, bot_b, seed, m // 2, bool(m % 2), first, start,
                                  hands if with_hands else None, rules, record))
        if progress is not None:
            progress(1)
    return records, hands

