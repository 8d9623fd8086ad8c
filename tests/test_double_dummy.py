"""Double dummy against an independent brute force through the reference engine."""

import random

import numpy as np
import pytest

from lab.cards import DECK, RANKS, Card, parse_cards
from lab.classes import deal_weight_matrix, hand_classes
from lab.rules import COVER, MAO, PLAY, new_hand
from lab.solver.games.double_dummy import double_dummy_equity, double_dummy_matrix, double_dummy_value


def brute_force_mao_wins(state) -> int:
    """Minimax over lab.rules: every PLAY/COVER move of real cards, the mão maximising."""
    if state.over:
        return int(state.winner == MAO)
    values = [brute_force_mao_wins(state.apply(a)) for a in state.legal_actions()
              if a.kind in (PLAY, COVER)]
    return max(values) if state.to_act == MAO else min(values)


def deal_from(rng: random.Random) -> tuple[Card, tuple[Card, ...], tuple[Card, ...]]:
    cards = rng.sample(DECK, 7)
    return cards[0], tuple(cards[1:4]), tuple(cards[4:7])


def dd_of_deal(vira, mao, pe) -> int:
    hc = hand_classes(vira)
    return int(double_dummy_matrix(vira.rank)[hc.class_of_cards(mao, vira),
                                              hc.class_of_cards(pe, vira)])


CURATED = [
    # vira, mão, pé: ties, manilhas, pairs and triples of one level
    ("4c", "5c,5h,5s", "5d,3c,3h"),        # three manilhas against pica-fumo
    ("7d", "Kc,Kh,4c", "Ks,Kd,4h"),        # mirror hands: everything can tie
    ("3h", "4c,5c,6c", "4d,5d,6d"),        # vira 3: manilha is 4
    ("Qs", "Jd,7c,7h", "Jc,Jh,7s"),        # a manilha pair against a triple
    ("2c", "3c,3h,3d", "Ac,Ah,Ad"),
    ("Kc", "Ad,2c,2h", "Ac,3c,4d"),
    ("6h", "7d,6c,6s", "7c,5c,5h"),
]


@pytest.mark.parametrize("vira,mao,pe", CURATED)
def test_curated_deals_match_brute_force(vira, mao, pe):
    v, = parse_cards(vira)
    m, p = parse_cards(mao, 3), parse_cards(pe, 3)
    assert dd_of_deal(v, m, p) == brute_force_mao_wins(new_hand(v, m, p))


def test_random_deals_match_brute_force():
    rng = random.Random(20240601)
    results = []
    for _ in range(400):
        vira, mao, pe = deal_from(rng)
        expected = brute_force_mao_wins(new_hand(vira, mao, pe))
        assert dd_of_deal(vira, mao, pe) == expected, (vira, mao, pe)
        results.append(expected)
    assert 0 < sum(results) < len(results)  # both outcomes were exercised


def test_three_top_manilhas_always_win_for_either_seat():
    for vira in RANKS:
        hc = hand_classes(vira)
        i = hc.index_of((12, 11, 10))  # zap, copas, espadilha
        assert hc.labels[i] == "zap copas espadilha"
        eq = double_dummy_equity(vira)
        assert eq[0, i] == 1.0 and eq[1, i] == 1.0


def test_weighted_seat_equities_sum_to_one():
    for vira in RANKS:
        hc = hand_classes(vira)
        eq = double_dummy_equity(vira)
        mao, pe = float(hc.weight @ eq[0]), float(hc.weight @ eq[1])
        assert mao == pytest.approx(double_dummy_value(vira), abs=1e-12)
        assert mao + pe == pytest.approx(1.0, abs=1e-12)
        assert 0.3 < mao < 0.7


def test_equity_is_the_weighted_average_over_opponent_classes():
    w = deal_weight_matrix("K")
    dd = double_dummy_matrix("K")
    hc = hand_classes("K")
    i = hc.index_of((8, 8, 7))  # a pair of the top plain rank and the next one
    j = hc.index_of((12, 0, 0))
    by_hand = sum(w[i, k] * dd[i, k] for k in range(hc.n)) / w[i].sum()
    assert double_dummy_equity("K")[0, i] == pytest.approx(by_hand, abs=1e-12)
    assert np.isclose(double_dummy_equity("K")[1, j],
                      sum(w[k, j] * (1 - dd[k, j]) for k in range(hc.n)) / w[:, j].sum())


def test_weights_of_a_class_match_counting_real_deals():
    """The conditional averaging uses weights that agree with counting card deals."""
    vira, = parse_cards("5h")
    hc = hand_classes(vira)
    rest = [c for c in DECK if c != vira]
    mao = parse_cards("6c,6d,Ks")  # 6 is the manilha for vira 5: zap and pica-fumo
    i = hc.class_of_cards(mao, vira)
    counts = np.zeros(hc.n)
    left = [c for c in rest if c not in mao]
    from itertools import combinations
    for pe in combinations(left, 3):
        counts[hc.class_of_cards(pe, vira)] += 1
    w = deal_weight_matrix(vira.rank)[i]
    assert np.allclose(w / w.sum(), counts / counts.sum())
