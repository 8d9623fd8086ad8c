"""Single hands between two bots: the Monte Carlo check of a solved hand value.

:func:`sample_hands` deals ``n`` random hands (optionally for one vira and one score) and
lets ``bot_mao`` and ``bot_pe`` play them with lab/rules.py. Its summary estimates, with
95% intervals, the mão's probability of winning the hand and the mão's expected points
(points won minus points lost). Two solver bots playing a solved strategy must land on the
solved value within the interval: that is the cross-check for the solver's tables.
"""

from __future__ import annotations

import math
import random

import pandas as pd

from ..cards import DECK, Card
from ..rules import DEFAULT_RULES, NOBODY, SEAT_NAMES, HandState, RuleSet, new_hand
from .bots import Bot, decide
from .match import stream_seed
from .stats import Z95, wilson
from .view import Table


def play_hand(state: HandState, bots: tuple[Bot, Bot], rngs) -> HandState:
    """Play ``state`` to its end: ``bots[seat]`` acts for each seat (0 mão, 1 pé)."""
    table = Table(state)
    while not table.over:
        seat = table.state.to_act
        table.apply(decide(bots[seat], table.view(seat), rngs[seat]))
    return table.state


def sample_hands(bot_mao: Bot, bot_pe: Bot, n: int, seed: int, vira: Card | None = None,
                 score: tuple[int, int] = (0, 0),
                 rules: RuleSet = DEFAULT_RULES) -> pd.DataFrame:
    """``n`` random hands (fixed ``vira`` if given; ``score`` = (mão, pé) before each) played
    under ``rules``.

    One row per hand: the cards, the winner seat (``"nobody"`` for a hand that scored
    nothing), points, how it ended, and ``mao_points`` (the mão's signed points: + points
    when he wins, - points when he loses, 0 when nobody scores).
    """
    deals = random.Random(stream_seed(seed, 0))
    rngs = (random.Random(stream_seed(seed, 1)), random.Random(stream_seed(seed, 2)))
    rest = [c for c in DECK if c != vira]
    rows = []
    for i in range(n):
        if vira is None:
            cards = deals.sample(DECK, 7)
        else:
            cards = [vira] + deals.sample(rest, 6)
        hand = play_hand(new_hand(cards[0], cards[1:4], cards[4:7], score, rules),
                         (bot_mao, bot_pe), rngs)
        sign = {0: 1, 1: -1, None: 0}[hand.winner]
        rows.append({"hand": i, "vira": str(cards[0]),
                     "mao_cards": ",".join(map(str, cards[1:4])),
                     "pe_cards": ",".join(map(str, cards[4:7])),
                     "winner": NOBODY if hand.winner is None else SEAT_NAMES[hand.winner],
                     "points": hand.points, "how": hand.how,
                     "mao_points": sign * hand.points})
    return pd.DataFrame(rows)


def hand_summary(frame: pd.DataFrame) -> dict:
    """The mão's hand-win rate (Wilson 95% interval) and mean signed points (normal 95%
    interval) over a :func:`sample_hands` frame."""
    n = len(frame)
    wins = int((frame["winner"] == "mao").sum())
    mean = float(frame["mao_points"].mean())
    half = Z95 * float(frame["mao_points"].std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    return {"hands": n, "mao_win_rate": wins / n, "mao_win_ci95": list(wilson(wins, n)),
            "mao_points": mean, "mao_points_ci95": [mean - half, mean + half]}
