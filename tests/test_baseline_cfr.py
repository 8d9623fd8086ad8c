"""The textbook CFR baseline of the benchmark plays the card-play game of lab.rules."""

import random

import pytest

from lab.baseline_cfr import BaselineCFR, time_per_iteration
from lab.cards import DECK, level
from lab.classes import hand_classes
from lab.rules import COVER, MAO, PLAY, new_hand


def uniform_mao_wins(state) -> float:
    """The mão's win probability when both pick uniformly among legal PLAY/COVER moves."""
    if state.over:
        return float(state.winner == MAO)
    acts = [a for a in state.legal_actions() if a.kind in (PLAY, COVER)]
    return sum(uniform_mao_wins(state.apply(a)) for a in acts) / len(acts)


def test_first_iteration_value_is_uniform_play_through_the_engine():
    """All regrets start at zero, so iteration one plays uniformly; with three distinct
    levels in each hand the baseline's moves are exactly the engine's card moves."""
    # (and covering in round 3 too, which the engine allows)
    rng = random.Random(7)
    checked = 0
    while checked < 6:
        cards = rng.sample(DECK, 7)
        vira, mao, pe = cards[0], cards[1:4], cards[4:7]
        if len({level(c, vira) for c in mao}) < 3 or len({level(c, vira) for c in pe}) < 3:
            continue
        hc = hand_classes(vira.rank)
        deal = (hc.class_of_cards(mao, vira), hc.class_of_cards(pe, vira))
        value = BaselineCFR(vira.rank, [deal], cover_in_round3=True).iterate()
        assert value == pytest.approx(uniform_mao_wins(new_hand(vira, mao, pe)), abs=1e-12)
        checked += 1


@pytest.mark.parametrize("mao,pe,won", [
    ((12, 8, 3), (8, 8, 8), 1.0),   # zap 3 7 against three 3s (vira 4): the mão can force a win
    ((8, 8, 8), (12, 8, 3), 0.0),   # and the pé can, the other way round
])
def test_regrets_lead_to_the_forced_result(mao, pe, won):
    """The side facing a triple sees everything; CFR must find its forced win."""
    hc = hand_classes("4")
    cfr = BaselineCFR("4", [(hc.index_of(mao), hc.index_of(pe))])
    first = cfr.iterate()
    assert abs(first - won) > 0.3  # uniform play is far from the forced result
    for _ in range(100):
        cfr.iterate()
    assert cfr.average_value() == pytest.approx(won, abs=0.02)


def test_time_per_iteration_scales_a_sample_to_all_deals():
    got = time_per_iteration("Q", n_deals=20, iterations=1)
    assert got["deals_walked"] == 20 and got["deals_total"] > 100_000
    assert got["seconds_per_iteration"] == pytest.approx(
        got["seconds_walked"] * got["deals_total"] / 20)
