"""Match payoffs of one hand, from a match-equity table: what each way a hand can end is
worth in match-win probability (the mão de onze is solved with these payoffs).

``me[a, b]`` is the next hand's mão's match-win probability when the mão has ``a`` points
and the pé ``b``; after a hand the seats swap, so the old mão's probability at the next
score ``(a', b')`` is ``1 - me[b', a']`` (1 or 0 once a player reached 12).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...rules import ELEVEN_VALUE, MAO, PE, TARGET

ELEVEN = TARGET - 1


@dataclass(frozen=True)
class ElevenPayoffs:
    """Match-win probabilities of the next hand's mão at a mão de onze, by outcome:
    the mão wins the hand, the pé wins the hand, the 11-holder runs, and (under rules where
    three tied rounds score nothing) the hand scores nothing; NaN where it cannot."""

    holder: int
    mao_wins: float
    pe_wins: float
    holder_runs: float
    nobody: float = float("nan")


def after_hand(me: np.ndarray, score: tuple[int, int], winner, points: int) -> float:
    """The old mão's match-win probability after ``winner`` scores ``points`` at ``score``
    (``winner`` None: the hand scored nothing, the score stays and the seats swap)."""
    a, b = score
    if winner is None:
        return 1.0 - me[b, a]
    if winner == MAO:
        a += points
        if a >= TARGET:
            return 1.0
    else:
        b += points
        if b >= TARGET:
            return 0.0
    return 1.0 - me[b, a]


def eleven_payoffs(me: np.ndarray, score: tuple[int, int],
                   nobody: float = float("nan")) -> ElevenPayoffs:
    """Match payoffs of the mão de onze at ``score`` (exactly one player at 11); ``nobody``
    is the payoff of a hand that scores nothing, where the rules have one."""
    holder = MAO if score[0] == ELEVEN else PE
    return ElevenPayoffs(
        holder=holder,
        mao_wins=after_hand(me, score, MAO, ELEVEN_VALUE),
        pe_wins=after_hand(me, score, PE, ELEVEN_VALUE),
        holder_runs=after_hand(me, score, 1 - holder, 1),
        nobody=nobody,
    )
