"""The card-play games under house rules (three tied rounds to the mão, to nobody, to the
pé; the blind 11 x 11) against independent counts through the reference engine."""

import random
from itertools import permutations

import pytest

from lab.cards import DECK, parse_cards
from lab.classes import hand_classes
from lab.rules import COVER, MAO, NOBODY, NORMAL, PE, PLAY, RuleSet, hand_winner, new_hand
from lab.solver.cfr import CFRSolver
from lab.solver.games.cardplay_game import CardplayGame, toy_classes
from lab.solver.games.double_dummy import double_dummy_matrix
from lab.solver.games.eleven import blind_outcomes
from lab.solver.tree import build_tree

THREE_TIES = {"mao": MAO, "nobody": NOBODY, "pe": PE}


def brute_force_value(state) -> float:
    """Minimax over lab.rules with real cards: 1 the mão wins, 0 he loses, 1/2 nobody scores."""
    if state.over:
        return 0.5 if state.winner is None else float(state.winner == MAO)
    values = [brute_force_value(state.apply(a)) for a in state.legal_actions()
              if a.kind in (PLAY, COVER)]
    return max(values) if state.to_act == MAO else min(values)


def dd_of_deal(vira, mao, pe, three_ties) -> float:
    hc = hand_classes(vira)
    return float(double_dummy_matrix(vira.rank, three_ties)[hc.class_of_cards(mao, vira),
                                                            hc.class_of_cards(pe, vira)])


@pytest.mark.parametrize("rule", THREE_TIES)
@pytest.mark.parametrize("vira,mao,pe,expected", [
    # why: mirror hands; the pé answers every card with its twin, so all three rounds tie
    ("7d", "Kc,Kh,4c", "Ks,Kd,4h", {"mao": 1.0, "nobody": 0.5, "pe": 0.0}),
    # why: the mão's 2-2-K beat the pé's A-J-4 card for card; no round can tie
    ("7d", "2c,2h,Kh", "Ac,Jh,4h", {"mao": 1.0, "nobody": 1.0, "pe": 1.0}),
    # why: the pé's 2-2-A beats the mão's A-K-Q; no tie decides it
    ("4c", "Ac,Kc,Qc", "2c,2h,Ad", {"mao": 0.0, "nobody": 0.0, "pe": 0.0}),
])
def test_double_dummy_of_worked_out_deals(vira, mao, pe, expected, rule):
    v, = parse_cards(vira)
    m, p = parse_cards(mao, 3), parse_cards(pe, 3)
    state = new_hand(v, m, p, rules=RuleSet(three_ties=rule))
    assert brute_force_value(state) == expected[rule]
    assert dd_of_deal(v, m, p, THREE_TIES[rule]) == expected[rule]


@pytest.mark.parametrize("rule", ["nobody", "pe"])
def test_double_dummy_matches_the_reference_on_random_deals(rule):
    rng = random.Random(7)
    rules = RuleSet(three_ties=rule)
    seen = set()
    for _ in range(150):
        cards = rng.sample(DECK, 7)
        vira, mao, pe = cards[0], tuple(cards[1:4]), tuple(cards[4:7])
        expected = brute_force_value(new_hand(vira, mao, pe, rules=rules))
        assert dd_of_deal(vira, mao, pe, rules.three_ties_winner(NORMAL, None)) == expected
        seen.add(expected)
    assert {0.0, 1.0} <= seen


@pytest.mark.parametrize("rule", THREE_TIES)
def test_blind_count_matches_every_ordered_deal_of_a_small_deck(rule):
    """Brute force: every ordered deal of real cards of a 7-card deck (the mão's three in the
    order he plays them, then the pé's), each round by level, the hand by lab.rules."""
    cap = (2, 2, 2, 1)
    cards = [lv for lv, n in enumerate(cap) for _ in range(n)]
    win = nobody = total = 0
    ties = THREE_TIES[rule]
    for deal in permutations(range(len(cards)), 6):
        a, b = [cards[i] for i in deal[:3]], [cards[i] for i in deal[3:]]
        rounds = tuple(MAO if x > y else PE if x < y else None for x, y in zip(a, b))
        winner = hand_winner(rounds[:2], ties) or hand_winner(rounds, ties)
        total += 1
        win += winner == MAO
        nobody += winner == NOBODY
    levels, weights = toy_classes(cap)
    p_win, p_nobody = blind_outcomes(levels, weights, ties)
    assert p_win == pytest.approx(win / total, abs=1e-12)
    assert p_nobody == pytest.approx(nobody / total, abs=1e-12)
    assert (p_nobody > 0) == (rule == "nobody")


TOY = (4, 4)
"""Two levels of four copies: rounds tie often, and so do whole hands."""


def solved_toy(three_ties, payoff):
    game = CardplayGame(toy_cap=TOY, three_ties=three_ties)
    solver = CFRSolver(build_tree(game), game.deal_weights(), payoff, total=1.0)
    return solver.solve(target_exploitability=1e-7, max_iterations=4000, check_every=16)


def test_a_scoreless_hand_lies_between_the_mao_and_the_pe_taking_it():
    """Win probability with a scoreless hand worth half: at least the game where the pé takes
    three tied rounds, at most the one where the mão does; its outcome probabilities add up."""
    by_mao = solved_toy(MAO, (1.0, 0.0)).value()
    by_pe = solved_toy(PE, (1.0, 0.0)).value()
    nobody = solved_toy(NOBODY, (1.0, 0.0, 0.5))
    probs = nobody.outcome_probabilities()
    assert probs.sum() == pytest.approx(1.0, abs=1e-6)  # float32 average strategies
    assert probs[2] > 0.1
    assert nobody.value() == pytest.approx(probs[0] + 0.5 * probs[2], abs=1e-6)
    assert by_pe + 0.01 < nobody.value() < by_mao - 0.01


def test_the_default_rules_reproduce_the_stored_cardplay_rows(tmp_path):
    """Three tied rounds to the mão (the default) re-solve one vira's stored card-play rows
    bit for bit: the house-rule paths leave the default's numbers as they were."""
    from conftest import require_table
    from lab.tables.cardplay import build_cardplay_tables

    stored = require_table("cardplay")
    summary = require_table("cardplay_summary")
    out = build_cardplay_tables(viras=["7"], directory=tmp_path)
    old = stored[stored["vira"] == "7"].reset_index(drop=True)
    new = out["cardplay"][out["cardplay"]["vira"] == "7"].reset_index(drop=True)
    assert new.equals(old)
    old_summary = summary[summary["vira"] == "7"].drop(columns="seconds").reset_index(drop=True)
    new_summary = out["cardplay_summary"].drop(columns="seconds").reset_index(drop=True)
    assert new_summary.equals(old_summary)
