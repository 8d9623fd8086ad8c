"""Double dummy: the card-play game with both hands face up.

For a vira, a deal of classes (the mão holds class ``i``, the pé class ``j``)
is a perfect-information game: no betting, covers allowed from round 2, the
tie table of docs/rules.md, and the hand stops the moment its winner is decided.
Its minimax value (the mão maximises his win) is 1 or 0; where three tied rounds score
nothing (``three_ties=NOBODY``, see :meth:`lab.rules.RuleSet.three_ties_winner`) such a
hand counts half a win, as in the card-play game, so a value may be 1/2.

The game only sees strength levels, so one memoised search over level
multisets serves every vira; the vira only changes which deals can happen and
their exact weights (:func:`lab.classes.deal_weight_matrix`).

A covered card is a move of its own: the player chooses *which* card goes
face down (that decides what he keeps), and on the table it counts as
strength ``COVERED``, below every open card.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...classes import deal_weight_matrix, hand_classes
from ...rules import NOBODY, hand_winner

MAO, PE, TIE = 0, 1, 2
"""Round results (and seats)."""

COVERED = -1
"""Table strength of a face-down card: loses to any open card, ties another covered card."""


def round_result(leader: int, lead: int, follow: int) -> int:
    """MAO, PE or TIE for a round where ``leader`` showed strength ``lead`` and the other ``follow``."""
    if lead == follow:
        return TIE  # equal levels, or two covered cards
    return leader if lead > follow else 1 - leader


def decided_winner(rounds: tuple[int, ...], three_ties=MAO):
    """MAO, PE (or NOBODY, for three tied rounds that score nothing) once the round results
    decide the hand, else None (the tie table of :func:`lab.rules.hand_winner`)."""
    return hand_winner(tuple(None if r == TIE else r for r in rounds), three_ties)


def moves(hand: tuple[int, ...], round_index: int) -> list[tuple[int, tuple[int, ...]]]:
    """(table strength, cards kept) for every distinct move from ``hand`` (levels, sorted)."""
    out = []
    for k, lv in enumerate(hand):
        if k and hand[k - 1] == lv:
            continue  # two cards of one level are the same move
        kept = hand[:k] + hand[k + 1:]
        out.append((lv, kept))
        if round_index >= 1:
            out.append((COVERED, kept))
    return out


@lru_cache(maxsize=None)
def mao_wins(mao: tuple[int, ...], pe: tuple[int, ...], rounds: tuple[int, ...] = (),
             leader: int = MAO, three_ties=MAO) -> float:
    """1 if the mão wins the rest of the hand under perfect play from both sides, 0 if he
    loses it, 1/2 if it ends scoring nothing (only with ``three_ties=NOBODY``).

    ``mao`` and ``pe`` are the levels still held (sorted, strongest first), ``rounds`` the
    results so far and ``leader`` the seat that leads the next round.
    """
    winner = decided_winner(rounds, three_ties)
    if winner is not None:
        return 0.5 if winner == NOBODY else 1 if winner == MAO else 0
    r = len(rounds)
    hands = (mao, pe)
    follower = 1 - leader
    best_for_leader = max if leader == MAO else min
    best_for_follower = max if follower == MAO else min
    outcomes = []
    for lead, lead_kept in moves(hands[leader], r):
        replies = []
        for follow, follow_kept in moves(hands[follower], r):
            result = round_result(leader, lead, follow)
            kept = [None, None]
            kept[leader], kept[follower] = lead_kept, follow_kept
            next_leader = leader if result == TIE else result
            replies.append(mao_wins(kept[0], kept[1], rounds + (result,), next_leader,
                                    three_ties))
        outcomes.append(best_for_follower(replies))
    return best_for_leader(outcomes)


@lru_cache(maxsize=None)
def double_dummy_matrix(vira, three_ties=MAO) -> np.ndarray:
    """(n, n) float: the mão's (class ``i``) double-dummy result against the pé (class
    ``j``): 1 a win, 0 a loss, 1/2 a hand that scores nothing.

    Pairs that cannot be dealt together (zero weight) are filled in too; they are
    harmless because every use multiplies by the deal weight.
    """
    hc = hand_classes(vira)
    hands = [tuple(int(x) for x in row) for row in hc.levels]  # strongest first
    out = np.array([[mao_wins(a, b, three_ties=three_ties) for b in hands] for a in hands],
                   dtype=np.float64)
    out.setflags(write=False)
    return out


def double_dummy_equity(vira, three_ties=MAO) -> np.ndarray:
    """(2, n) win probability per class, double dummy: row 0 for the mão, row 1 for the pé.

    Each class's value is averaged over the opponent's classes with the exact deal
    weights (card removal), conditional on holding that class.
    """
    w = deal_weight_matrix(vira)
    dd = double_dummy_matrix(vira, three_ties)
    mao = (w * dd).sum(axis=1) / w.sum(axis=1)
    pe = (w * (1 - dd)).sum(axis=0) / w.sum(axis=0)
    return np.stack([mao, pe])


def double_dummy_value(vira, three_ties=MAO) -> float:
    """The mão's double-dummy win probability over all deals of this vira (a hand that
    scores nothing counts half)."""
    w = deal_weight_matrix(vira)
    return float((w * double_dummy_matrix(vira, three_ties)).sum())
