"""Properties of the engine under random legal play (hypothesis).

Random deals, random scores and random choices among ``legal_actions()``; at every
state visited, every action of the whole action space (40 cards played or covered, plus
raise, accept, run, surrender) is tried: legal ones are accepted, all others are refused
with IllegalAction and leave the state as it was. The last tests run the same properties
under every preset of house rules and every single rule changed.
"""

import pytest

from hypothesis import event, given, settings
from hypothesis import strategies as st

from lab.cards import DECK, level
from lab.rules import (
    ACCEPT,
    COVER,
    DEFAULT_RULES,
    ELEVEN,
    ELEVEN_ELEVEN,
    LADDER,
    MAO,
    NOBODY,
    NORMAL,
    PE,
    PLAY,
    RAISE,
    RUN,
    SURRENDER,
    Action,
    PRESETS,
    RULE_CHOICES,
    IllegalAction,
    MatchState,
    RuleSet,
    new_hand,
)

settings.register_profile("truco-rules", max_examples=300, deadline=None)
PROFILE = settings.get_profile("truco-rules")

MAX_ACTIONS = 16
"""Most actions a hand can take: the 11-holder's decision, 4 raises, 4 answers, 6 cards,
one of which may be replaced by a surrender (so 15); anything longer is a bug."""

ALL_ACTIONS = ([Action(PLAY, c) for c in DECK] + [Action(COVER, c) for c in DECK]
               + [Action(k) for k in (RAISE, ACCEPT, RUN, SURRENDER)])

deals = st.lists(st.integers(0, 39), min_size=7, max_size=7, unique=True)
points = st.integers(0, 11)
scores = st.one_of(st.tuples(points, points),              # any score before a hand
                   st.tuples(st.just(11), points),         # mão de onze or 11 x 11 ...
                   st.tuples(points, st.just(11)))         # ... more often than by chance


def deal(indices, score, rules=DEFAULT_RULES):
    cards = [DECK[i] for i in indices]
    return new_hand(cards[0], cards[1:4], cards[4:7], score, rules)


def check_action_space(state):
    """Legal actions apply; every other action raises IllegalAction and changes nothing."""
    legal = state.legal_actions()
    assert len(set(legal)) == len(legal)
    before = (state, state.history, state.to_act, state.value, state.final_score)
    for action in ALL_ACTIONS:
        if action in legal:
            state.apply(action)
            continue
        try:
            state.apply(action)
        except IllegalAction as exc:
            assert str(exc).startswith(f"{action}: ")
        else:
            raise AssertionError(f"{action} is not legal at {legal} but was applied")
        assert (state, state.history, state.to_act, state.value, state.final_score) == before
    assert set(legal) <= set(ALL_ACTIONS)


def round_result(first, second, vira):
    """The round's winning seat or None, from the rules: covered loses to open, two covered
    tie, otherwise the higher strength level wins and equal levels tie."""
    if first.covered or second.covered:
        if first.covered and second.covered:
            return None
        return second.seat if first.covered else first.seat
    a, b = level(first.card, vira), level(second.card, vira)
    return None if a == b else (first.seat if a > b else second.seat)


def decided(rounds):
    """The hand's winner by the tie table once these rounds are played, or None."""
    wins = [r for r in rounds if r is not None]
    for seat in (MAO, PE):
        if wins.count(seat) == 2:
            return seat
    if len(rounds) >= 2 and len(wins) == 1 and None in rounds[:2]:
        return wins[0]                      # a win and a tie, in either order
    if len(rounds) == 3:
        return wins[0] if wins else MAO     # 1-1-tie: first win; all tied: the mão
    return None


def play_out(state, data, check_space=True):
    """Play random legal actions to the end; check the invariants at every step."""
    calm = data.draw(st.booleans())  # True: play on (no run or surrender) whenever possible
    steps = 0
    while not state.over:
        assert steps < MAX_ACTIONS, f"hand not over after {steps} actions"
        assert state.to_act in (MAO, PE)
        if check_space:
            check_action_space(state)
        legal = state.legal_actions()
        assert legal
        if state.kind == NORMAL:
            assert state.value in LADDER
            assert state.pending is None or state.pending in LADDER
        else:
            worth = state.rules.eleven_eleven_value if state.kind == ELEVEN_ELEVEN else 3
            assert state.value == worth and state.pending is None
            assert Action(RAISE) not in legal
        choices = [a for a in legal if a.kind not in (RUN, SURRENDER)] if calm else legal
        action = data.draw(st.sampled_from(choices or legal))
        state = state.apply(action)
        steps += 1
    if check_space:
        check_action_space(state)  # nothing at all is legal once the hand is over
    assert state.legal_actions() == [] and state.to_act is None
    return state


@settings(PROFILE)
@given(deals, scores, st.data())
def test_random_legal_play_ends_with_a_value_on_the_ladder(indices, score, data):
    start = deal(indices, score)
    end = play_out(start, data)
    event(f"{start.kind} {end.how} after {len(end.rounds)} rounds")
    assert end.points in (1, 3, 6, 9, 12)
    if start.kind == NORMAL:
        assert end.how in ("cards", "run", "surrender")
    elif end.how == "eleven_run":
        assert start.kind == ELEVEN and end.points == 1
        assert end.winner != start.eleven_holder and end.plays == ()
    else:
        assert end.points == 3
    if end.how == "cards":
        assert end.points == end.value


@settings(PROFILE)
@given(deals, scores, st.data())
def test_the_score_never_passes_12(indices, score, data):
    start = deal(indices, score)
    end = play_out(start, data, check_space=False)
    final = end.final_score
    assert max(final) <= 12
    w, lo = end.winner, 1 - end.winner
    assert final[w] == min(12, score[w] + end.points)
    assert final[lo] == score[lo]


@settings(PROFILE)
@given(deals, scores, st.data())
def test_rounds_follow_the_cards_and_the_hand_ends_when_decided(indices, score, data):
    end = play_out(deal(indices, score), data, check_space=False)
    plays = end.plays
    played = 2 * len(end.rounds)
    assert len(plays) <= 6 and len(plays) - played in ((0,) if end.how == "cards" else (0, 1))
    results = [round_result(plays[i], plays[i + 1], end.vira) for i in range(0, played, 2)]
    assert end.rounds == tuple(results)
    leader = MAO
    for i, r in enumerate(results):
        assert plays[2 * i].seat == leader                # who leads each round
        assert not (i == 0 and (plays[0].covered or plays[1].covered))
        leader = leader if r is None else r
    for k in range(len(results)):
        assert decided(results[:k]) is None               # nothing ended the hand earlier
    if end.how == "cards":
        assert decided(results) == end.winner


@settings(PROFILE)
@given(deals, st.data())
def test_illegal_actions_are_refused_everywhere(indices, data):
    score = data.draw(st.sampled_from([(0, 0), (5, 9), (11, 4), (2, 11), (11, 11), (10, 10)]))
    play_out(deal(indices, score), data, check_space=True)


@settings(PROFILE, max_examples=60)
@given(st.integers(0, 1), st.data())
def test_a_random_match_ends_with_exactly_one_player_at_12(first_mao, data):
    match = MatchState((0, 0), mao=first_mao)
    maos = []
    while not match.over:
        assert match.hands_played < 24  # every hand scores at least 1 point
        maos.append(match.mao)
        indices = data.draw(deals)
        before = match.scores
        hand = match.deal(DECK[indices[0]], [DECK[i] for i in indices[1:4]],
                          [DECK[i] for i in indices[4:7]])
        hand = play_out(hand, data, check_space=False)
        match = match.after(hand)
        gained = [match.scores[p] - before[p] for p in (0, 1)]
        assert sorted(gained)[0] == 0 and 1 <= max(gained) <= hand.points
    assert sorted(match.scores)[1] == 12 and sorted(match.scores)[0] < 12
    assert match.winner == match.scores.index(12)
    assert maos == [(first_mao + i) % 2 for i in range(len(maos))]


# ---------------------------------------------------------------- house rules

HOUSE_RULES = {**PRESETS, **{f"{key}={value}": RuleSet(**{key: value})
                             for key, choices in RULE_CHOICES.items() for value in choices[1:]}}
"""Every preset, and the default with each single rule changed."""


@pytest.mark.parametrize("name", HOUSE_RULES)
def test_house_rules_random_play(name):
    """Under each rule set: legal actions apply and nothing else does, hands end, each
    rule holds where it applies, and the score moves by the hand's points (or not at all
    after a hand that scores nothing), never past 12."""
    rules = HOUSE_RULES[name]

    @settings(PROFILE, max_examples=150)
    @given(deals, scores, st.data())
    def check(indices, score, data):
        start = deal(indices, score, rules)
        end = play_out(start, data)
        final = end.final_score
        assert max(final) <= 12
        if end.winner is None:                  # a hand that scores nothing
            assert rules.three_ties_winner(start.kind, start.eleven_holder) == NOBODY
            assert end.how == "cards" and end.rounds == (None, None, None)
            assert end.points == 0 and final == score
        else:
            w = end.winner
            assert final[w] == min(12, score[w] + end.points) and final[1 - w] == score[1 - w]
            if end.rounds == (None, None, None):
                assert w == rules.three_ties_winner(start.kind, start.eleven_holder)
        if start.kind == ELEVEN_ELEVEN and end.how == "cards" and end.winner is not None:
            assert end.points == rules.eleven_eleven_value
        if start.blind:
            assert not any(p.covered for p in end.plays)
        if rules.surrender == "answer_only" and end.how == "surrender":
            assert end.history[-2].kind == RAISE    # it answered a raise

    check()


@pytest.mark.parametrize("name", HOUSE_RULES)
def test_house_rules_matches_end(name):
    """A random match under each rule set (where some hands score nothing, too) ends with
    exactly one player at 12, the mão alternating every hand and each player's score moving
    by at most the hand's points."""
    rules = HOUSE_RULES[name]

    @settings(PROFILE, max_examples=40)
    @given(st.integers(0, 1), st.data())
    def check(first_mao, data):
        match = MatchState((0, 0), mao=first_mao, rules=rules)
        while not match.over:
            assert match.hands_played < 200
            indices = data.draw(deals)
            hand = match.deal(DECK[indices[0]], [DECK[i] for i in indices[1:4]],
                              [DECK[i] for i in indices[4:7]])
            mao, before = match.mao, match.scores
            hand = play_out(hand, data, check_space=False)
            match = match.after(hand)
            assert match.mao == 1 - mao
            gained = sorted(match.scores[p] - before[p] for p in (0, 1))
            assert gained[0] == 0 and 0 <= gained[1] <= hand.points
            assert (gained[1] == 0) == (hand.winner is None)
        assert sorted(match.scores)[1] == 12 and sorted(match.scores)[0] < 12

    check()
