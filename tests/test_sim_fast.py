"""The numba engine (lab/sim/fast.py) against the reference engine (lab/rules.py).

The fast engine deals and plays 100,000 hands with random legal moves, at scores that make
normal hands, mão de onze (either holder) and 11 x 11 all common, and records every step's
legal set and chosen action. Each hand is replayed through lab/rules.py, which must offer the
same legal set at every step and end with the same winner, points, how and rounds. The same
comparison runs under every preset of house rules and two custom rule sets (blind 11 x 11,
surrender only as an answer), each on enough hands that every rule of the set comes into
play.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from lab.cards import level
from lab.rules import (
    DEFAULT_RULES, ELEVEN, ELEVEN_ELEVEN, NOBODY, NORMAL, PRESETS, RAISE, RuleSet, new_hand)
from lab.sim import fast
from lab.sim.encoding import (
    A_RAISE, COVER0, HOWS, MAX_STEPS, card_of, code_action, legal_mask, level_of)

N_HANDS = 100_000
SEED = 20240607


@pytest.fixture(scope="module")
def recorded():
    return fast.record(SEED, 0, N_HANDS)


def replay_through_rules(deal, score, actions, masks, rules=DEFAULT_RULES):
    """Replay one recorded hand in lab/rules.py under ``rules``; return the final state and
    the steps used."""
    cards = [card_of(c) for c in deal]
    dealt = (tuple(cards[1:4]), tuple(cards[4:7]))
    state = new_hand(cards[0], dealt[0], dealt[1], (int(score[0]), int(score[1])), rules)
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


def check_against_rules(recorded, rules=DEFAULT_RULES) -> list:
    """Replay every recorded hand through lab/rules.py under ``rules`` and check it step by
    step and at its end; return the reference engine's final states."""
    deals, scores, results = recorded["deals"], recorded["scores"], recorded["results"]
    actions, masks = recorded["actions"], recorded["masks"]
    round_code = {0: "mao", 1: "pe", fast.TIE: "tie"}
    winner_code = {0: 0, 1: 1, fast.NOBODY: None}
    finals = []
    for i in range(len(deals)):
        state, steps = replay_through_rules(deals[i], scores[i], actions[i], masks[i], rules)
        winner, points, how, r1, r2, r3, fast_steps = (int(x) for x in results[i])
        assert steps == fast_steps, f"hand {i}: rules ended after {steps} actions"
        assert state.winner == winner_code[winner], f"hand {i}"
        assert state.points == points, f"hand {i}"
        assert state.how == HOWS[how], f"hand {i}"
        assert state.round_names() == [round_code[r] for r in (r1, r2, r3) if r >= 0], f"hand {i}"
        finals.append(state)
    return finals


def test_hundred_thousand_random_hands_match_the_rules_engine(recorded):
    check_against_rules(recorded)


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


# ---------------------------------------------------------------- house rules

HOUSE_RULES = {
    **PRESETS,
    "blind, three ties to the pe, surrender answering only": RuleSet(
        three_ties="pe", eleven_eleven="blind", surrender="answer_only"),
    "buteco, blind, the federation's tie rule, surrender answering only": RuleSet(
        three_ties="nobody", eleven_eleven="blind", eleven_tie_gives_three="yes",
        surrender="answer_only"),
}
"""Every preset, and custom rule sets with the choices no preset makes."""

BASE_HANDS = 10_000
POOL_HANDS = 400_000
"""Per rule set, hands 0 .. BASE_HANDS - 1 are all replayed; three tied rounds are rare
under random play (about 1 hand in 2,000), so of hands 0 .. POOL_HANDS - 1 every hand whose
three rounds tied is replayed too."""


def house_hands(rules) -> dict:
    """The recorded hands replayed under ``rules``: the first BASE_HANDS, and every hand of
    the first POOL_HANDS whose three rounds tied."""
    pool = fast.record(SEED, 0, POOL_HANDS, rules=rules)
    tied = (pool["results"][:, 3:6] == fast.TIE).all(axis=1)
    chosen = (np.arange(POOL_HANDS) < BASE_HANDS) | tied
    return {key: value[chosen] for key, value in pool.items()}


@pytest.mark.parametrize("name", HOUSE_RULES)
def test_random_hands_match_the_rules_engine_under_house_rules(name):
    rules = HOUSE_RULES[name]
    finals = check_against_rules(house_hands(rules), rules)
    # every rule of the set came into play: three tied rounds in normal hands and at mão
    # de onze, 11 x 11 hands played out, surrenders
    tied = Counter(s.kind for s in finals if s.rounds == (None, None, None))
    assert tied[NORMAL] >= 20 and tied[ELEVEN] >= 10, tied
    scoreless = [s for s in finals if s.winner is None]
    normal_ties_score = rules.three_ties_winner(NORMAL, None) != NOBODY
    assert (len(scoreless) == 0) == normal_ties_score
    assert all(s.points == 0 and s.final_score == s.score for s in scoreless)
    if rules.eleven_tie_gives_three == "yes":
        given = [s for s in finals if s.kind == ELEVEN and s.rounds == (None, None, None)]
        assert given and all(s.winner == 1 - s.eleven_holder and s.points == 3 for s in given)
    eleven_eleven = [s for s in finals if s.kind == ELEVEN_ELEVEN]
    by_cards = [s for s in eleven_eleven if s.how == "cards" and s.winner is not None]
    assert len(eleven_eleven) > 1000 and len(by_cards) > 200
    assert all(s.points == rules.eleven_eleven_value for s in by_cards)
    covered = sum(any(p.covered for p in s.plays) for s in eleven_eleven)
    assert (covered == 0) == (rules.eleven_eleven == "blind")
    surrenders = [s for s in finals if s.how == "surrender"]
    answering = [len(s.history) > 1 and s.history[-2].kind == RAISE for s in surrenders]
    assert len(surrenders) > 500
    assert all(answering) == (rules.surrender == "answer_only")


def test_tally_agrees_with_records_where_hands_score_nothing():
    rules = PRESETS["buteco"]
    recorded = fast.record(SEED, 0, 50_000, rules=rules)
    results = recorded["results"]
    tally = fast.tally(SEED, 0, 50_000, chunks=5, rules=rules)
    assert tally["scoreless"] == int((results[:, 0] == fast.NOBODY).sum()) > 0
    assert tally["mao_wins"] == int((results[:, 0] == 0).sum())
    assert tally["pe_points"] == int(results[results[:, 0] == 1, 1].astype(int).sum())
    assert fast.tally(SEED, 0, 50_000, chunks=5)["scoreless"] == 0
