"""The numba engine (lab/sim/fast.py) against the reference engine (lab/rules.py).

The fast engine deals and plays 100,000 hands with random legal moves, at scores that make
normal hands, mão de onze (either holder) and 11 x 11 all common, and records every step's
legal set and chosen action. Each hand is replayed through lab/rules.py, which must offer the
same legal set at every step and end with the same winner, points, how and rounds.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from lab.cards import level
from lab.rules import new_hand
from lab.sim import fast
from lab.sim.encoding import (
    A_RAISE, COVER0, HOWS, MAX_STEPS, card_of, code_action, legal_mask, level_of)

N_HANDS = 100_000
SEED = 20240607


@pytest.fixture(scope="module")
def recorded():
    return fast.record(SEED, 0, N_HANDS)


def replay_through_rules(deal, score, actions, masks):
    """Replay one recorded hand in lab/rules.py; return the final state and the steps used."""
    cards = [card_of(c) for c in deal]
    dealt = (tuple(cards[1:4]), tuple(cards[4:7]))
    state = new_hand(cards[0], dealt[0], dealt[1], (int(score[0]), int(score[1])))
    step = 0
    while not state.over:
        assert step < MAX_STEPS, "the fast engine stopped before the hand was over"
        assert legal_mask(state, dealt) == masks[step], (
            f"legal sets differ at step {step}: rules {legal_mask(state, dealt):010b}, "
            f"fast {int(masks[step]):010b}")
        state = state.apply(code_action(actions[step], dealt[state.to_act]))
        step += 1
    return state, step


def test_levels_match_cards_module():
    for vira in range(40):
        for card in range(40):
            assert level_of(card, vira) == level(card_of(card), card_of(vira))


def test_hundred_thousand_random_hands_match_the_rules_engine(recorded):
    deals, scores, results = recorded["deals"], recorded["scores"], recorded["results"]
    actions, masks = recorded["actions"], recorded["masks"]
    round_code = {0: "mao", 1: "pe", fast.TIE: "tie"}
    for i in range(N_HANDS):
        state, steps = replay_through_rules(deals[i], scores[i], actions[i], masks[i])
        winner, points, how, r1, r2, r3, fast_steps = (int(x) for x in results[i])
        assert steps == fast_steps, f"hand {i}: rules ended after {steps} actions"
        assert state.winner == winner, f"hand {i}"
        assert state.points == points, f"hand {i}"
        assert state.how == HOWS[how], f"hand {i}"
        assert state.round_names() == [round_code[r] for r in (r1, r2, r3) if r >= 0], f"hand {i}"


def test_recorded_hands_cover_every_part_of_the_rules(recorded):
    """The comparison above means something only if the hands reach every rule."""
    scores, results, actions = recorded["scores"], recorded["results"], recorded["actions"]
    hows = Counter(HOWS[h] for h in results[:, 2])
    assert all(hows[h] > 1000 for h in HOWS), hows
    assert Counter(results[:, 1].tolist()).keys() >= {1, 3, 6, 9, 12}  # every value scored
    assert (results[:, 5] >= 0).sum() > 1000  # third rounds played
    assert (results[:, 3:6] == fast.TIE).sum() > 1000  # tied rounds
    all_tied = (results[:, 3:6] == fast.TIE).all(axis=1)
    assert all_tied.sum() > 0 and (results[all_tied, 0] == 0).all()  # three ties: the mão
    covered = ((actions >= COVER0) & (actions < COVER0 + 3)).any(axis=1)
    assert covered.sum() > 5000
    four_raises = (actions == A_RAISE).sum(axis=1) == 4
    assert four_raises.sum() > 100
    eleven = (scores == 11).sum(axis=1) == 1
    eleven_eleven = (scores == 11).all(axis=1)
    assert eleven.sum() > 20000 and eleven_eleven.sum() > 10000
    assert not (actions[eleven | eleven_eleven] == A_RAISE).any()  # raises locked


def test_same_seed_same_hands_and_tally_agrees_with_records(recorded):
    again = fast.record(SEED, 5000, 1000)
    assert np.array_equal(again["deals"], recorded["deals"][5000:6000])
    assert np.array_equal(again["actions"], recorded["actions"][5000:6000])
    tally = fast.tally(SEED, 0, N_HANDS, chunks=7)
    results = recorded["results"]
    assert tally["hands"] == N_HANDS
    assert tally["mao_wins"] == int((results[:, 0] == 0).sum())
    assert tally["mao_points"] == int(results[results[:, 0] == 0, 1].astype(int).sum())
    assert tally["pe_points"] == int(results[results[:, 0] == 1, 1].astype(int).sum())
    assert tally["how_surrender"] == int((results[:, 2] == HOWS.index("surrender")).sum())
