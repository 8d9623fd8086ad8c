"""Situations (lab.situations): the solver's reading of every pair of the card tree
(lab.solver.fullgame.situations) is the reading of the cards at the table, on random
positions of viras where the 3 and the 2 are plain, the 3 a manilha and the 2 a manilha."""

import random

import pytest

from lab.bench.advise import random_deal
from lab.cards import parse_card as card
from lab.rules import NORMAL
from lab.situations import LIVE, SITUATIONS, live_class, situation, standing

VIRAS = ("7", "2", "A")      # plain 3 and 2; the 3 a manilha; the 2 a manilha


def test_the_names_and_classes():
    assert len(SITUATIONS) == 15 and SITUATIONS[0] == "ahead.double"
    assert SITUATIONS[1 * len(LIVE) + 1] == "even.manilha"
    assert standing((0, None), 0) == 0 and standing((0, 1), 1) == 1 and standing((0,), 1) == 2
    assert standing((None,), 0) == 1
    assert [live_class(2, False, False), live_class(1, True, True), live_class(1, False, True),
            live_class(0, False, True), live_class(0, False, False)] == [0, 1, 2, 3, 4]


def test_cards_read_under_the_vira():
    seven, two, ace = card("7d"), card("2d"), card("Ad")
    # vira 7: the Q is the manilha; 3 and 2 plain
    assert situation(seven, [card("Qc"), card("4d")], (), 0) == "even.manilha"
    assert situation(seven, [card("3c"), card("Qh")], (0,), 0) == "ahead.double"
    assert situation(seven, [card("2c"), card("Kh")], (1,), 0) == "behind.deuce"
    # vira 2: the 3 is the manilha; vira A: the 2 is, and no plain 2 is left
    assert situation(two, [card("3c")], (None,), 1) == "even.manilha"
    assert situation(ace, [card("2s"), card("Ac")], (), 1) == "even.manilha"
    assert situation(ace, [card("Ac"), card("Kc")], (), 1) == "even.low"


def reference(state, seat):
    live = list(state.hands[seat]) + [p.card for p in state.table
                                      if p.seat == seat and not p.covered]
    return situation(state.vira, live, state.rounds, seat)


@pytest.mark.parametrize("vira", VIRAS)
def test_the_tree_reads_every_pair_as_the_cards_do(vira):
    from lab.policy.line import follow
    from lab.solver.fullgame.situations import pair_situations
    from lab.tables.policies import load_full_policy

    policy = load_full_policy(vira)
    tree = policy.tree
    read = pair_situations(tree, policy.cards, policy.cards.vira_rank)
    rng = random.Random(7)
    seen = set()
    for _ in range(150):
        position, state, history = random_deal(rng, "normal", viras=(vira,))
        if state.kind != NORMAL:
            continue
        seat = position.seat
        followed = follow(policy, position.vira, position.history, {seat: position.hand})
        c = followed.line.spot.card
        i = policy.pair_of(c, seat, followed.states[seat])
        got = SITUATIONS[read[tree.pairs(c, seat).start + i]]
        assert got == reference(state, seat), (position, state)
        seen.add(got)
    assert len(seen) >= 6       # the draws reach many situations, not one


def test_a_profile_keeps_its_situation_cells():
    from lab.errors import InputError
    from lab.player_profile import Profile, from_json, to_json

    profile = Profile("friend", 5)
    profile.count("weak", "behind.low",
                  [("answer_truco", "run", {"accept": 0.5, "run": 0.5}),
                   ("lead", "weakest", None)])
    back = from_json(to_json(profile))
    assert back.cells == profile.cells
    assert set(back.cells) == {("answer_truco", "weak"), ("answer_truco", "behind.low"),
                               ("lead", "weak")}      # the card spots have no situation
    saved = to_json(profile)
    saved["cells"].append({**saved["cells"][0], "spot": "lead", "bucket": "behind.low",
                           "counts": {"weakest": 1}, "solver_sum": {}})
    with pytest.raises(InputError, match="situation"):
        from_json(saved)
