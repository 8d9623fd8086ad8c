"""Hand classes of a vira and their exact deal weights (card removal).

For a fixed vira only the 13 strength levels of :mod:`lab.cards` matter, so a
3-card hand is a multiset of 3 levels: 403 *classes* per vira, and only the
vira's rank matters (10 viras). Level ``l`` has ``cap[l]`` copies left for the
hands: 1 for each manilha, 3 for the vira's own rank, 4 for the other ranks.

The chance of a deal of classes (mão holds ``hM``, pé holds ``hP``) is exact::

    w(hM, hP) = prod_l C(cap_l, m_l) * C(cap_l - m_l, p_l) / (C(39,3) * C(36,3))

with ``m_l``, ``p_l`` the copies of level ``l`` in each hand. All weights are
probabilities (they sum to 1 over all pairs of classes).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb

import numpy as np

from .cards import N_LEVELS, RANKS, Card, level, level_copies, level_name, parse_card
from .errors import InputError

N_HANDS_PER_CLASS_DEALS = comb(39, 3) * comb(36, 3)
"""Number of ordered deals (mão's 3 cards, pé's 3 cards) once the vira is turned."""


def vira_rank_of(vira) -> int:
    """Rank index of a vira given as a Card, a rank character (``'4'``, ``'Q'``) or an index."""
    if isinstance(vira, Card):
        return vira.rank
    if isinstance(vira, str):
        text = vira.strip()
        if len(text) > 1:  # a card such as "4c" or "4♣"
            return parse_card(text).rank
        if len(text) != 1 or text.upper() not in RANKS:
            raise InputError(f"{vira!r}: unknown vira rank (ranks are {' '.join(RANKS)})")
        return RANKS.index(text.upper())
    if isinstance(vira, (int, np.integer)) and 0 <= vira < len(RANKS):
        return int(vira)
    raise InputError(f"{vira!r}: unknown vira")


@dataclass(frozen=True)
class HandClasses:
    """The 403 hand classes of one vira rank.

    ``levels[i]`` are class ``i``'s three levels, strongest first; ``counts[i, l]``
    its copies of level ``l``; ``weight[i]`` the probability that a seat is dealt
    class ``i``; ``labels[i]`` a readable name such as ``zap 3 K``.
    """

    vira_rank: int
    cap: np.ndarray        # (13,) copies of each level left for the hands
    levels: np.ndarray     # (n, 3) int8, strongest first
    counts: np.ndarray     # (n, 13) int8
    weight: np.ndarray     # (n,) float64, marginal deal probability of a class
    labels: tuple[str, ...]

    @property
    def n(self) -> int:
        return len(self.labels)

    @property
    def vira(self) -> str:
        return RANKS[self.vira_rank]

    def index_of(self, lv) -> int:
        """Class index of a multiset of 3 levels (any order)."""
        key = tuple(sorted((int(x) for x in lv), reverse=True))
        return self._index[key]

    def class_of_cards(self, cards, vira: Card) -> int:
        """Class index of three cards for this vira."""
        if vira.rank != self.vira_rank:
            raise InputError(f"vira {vira} is not of rank {self.vira}")
        return self.index_of(level(c, vira) for c in cards)

    @property
    def _index(self) -> dict:
        return _class_index(self.vira_rank)


@lru_cache(maxsize=None)
def _class_index(vira_rank: int) -> dict:
    hc = hand_classes(vira_rank)
    return {tuple(int(x) for x in row): i for i, row in enumerate(hc.levels)}


def hand_label(levels, vira_rank: int) -> str:
    """Readable label of a class: level names strongest first, e.g. ``zap 3 K``."""
    return " ".join(level_name(int(lv), vira_rank) for lv in sorted(levels, reverse=True))


@lru_cache(maxsize=None)
def hand_classes(vira) -> HandClasses:
    """The hand classes of a vira (a Card, a rank character or a rank index)."""
    vira_rank = vira_rank_of(vira)
    cap = np.array([level_copies(lv, vira_rank) for lv in range(N_LEVELS)], dtype=np.int64)
    rows, counts, weights = [], [], []
    for combo in combinations_with_replacement(range(N_LEVELS - 1, -1, -1), 3):
        cnt = np.bincount(combo, minlength=N_LEVELS)
        if np.any(cnt > cap):
            continue
        rows.append(combo)
        counts.append(cnt)
        weights.append(np.prod([comb(int(c), int(k)) for c, k in zip(cap, cnt)]))
    levels = np.array(rows, dtype=np.int8)
    weight = np.array(weights, dtype=np.float64) / comb(39, 3)
    labels = tuple(hand_label(r, vira_rank) for r in rows)
    for arr in (levels, weight, cap):
        arr.setflags(write=False)
    counts_arr = np.array(counts, dtype=np.int8)
    counts_arr.setflags(write=False)
    return HandClasses(vira_rank, cap, levels, counts_arr, weight, labels)


def same_game_vira(vira) -> int:
    """Rank index of the first vira (in ``RANKS`` order) whose hands play the same game as
    ``vira``'s: every strength level keeps as many copies. Viras differ only in where their
    own rank (3 copies left) sits among the plain levels; viras 2 and 3 both put it on top,
    so vira 3 plays vira 2's game (the same classes, deal weights, strategies and values,
    with the rank names one step apart); every other vira plays its own."""
    cap = hand_classes(vira).cap
    return next(r for r in range(len(RANKS)) if np.array_equal(hand_classes(r).cap, cap))


@lru_cache(maxsize=None)
def deal_weight_matrix(vira) -> np.ndarray:
    """(n, n) probabilities of each (mão class, pé class) deal; sums to 1."""
    hc = hand_classes(vira)
    cap = hc.cap
    m = hc.counts.astype(np.int64)
    binom = np.array([[comb(c, k) for k in range(4)] for c in range(5)], dtype=np.float64)
    # w = prod_l C(cap_l, m_l) * C(cap_l - m_l, p_l)
    first = np.prod(binom[cap[None, :], m], axis=1)                      # (n,)
    rest = cap[None, None, :] - m[:, None, :]                            # (n, 1, 13)
    second = np.prod(binom[np.clip(rest, 0, None), m[None, :, :]] * (rest >= 0), axis=2)
    w = first[:, None] * second / N_HANDS_PER_CLASS_DEALS
    w.setflags(write=False)
    return w
