"""Match equity by backward induction (lab.match), on hand models whose answer is known."""

from functools import lru_cache

import pytest

from lab.match import ELEVEN, HandResult, match_equity, scores_backward
from lab.rules import MAO, PE


class CoinModel:
    """Every hand worth ``points``; the mão wins it with probability ``p``; at a mão de
    onze the holder always accepts (worth 3); 11 x 11 is a coin flip with ``p``."""

    name = "coin"

    def __init__(self, p=0.5, points=1):
        self.p, self.points = p, points

    def normal(self, score, payoff):
        value = self.p * payoff(MAO, self.points) + (1 - self.p) * payoff(PE, self.points)
        return HandResult(value, 0.0, self.name)

    def eleven(self, score, pay):
        return HandResult(self.p * pay.mao_wins + (1 - self.p) * pay.pe_wins, 0.0, self.name)

    def eleven_eleven(self, nobody=float("nan")):
        return HandResult(self.p, 0.0, self.name)


def reference(p, points):
    """Independent recursion over (points of player A, points of B, A is mão)."""

    @lru_cache(maxsize=None)
    def win_a(a, b, a_is_mao):
        if a >= 12:
            return 1.0
        if b >= 12:
            return 0.0
        eleven = ELEVEN in (a, b)
        pts = 3 if eleven else points
        p_a = p if a_is_mao else 1 - p
        return p_a * win_a(a + pts, b, not a_is_mao) + (1 - p_a) * win_a(a, b + pts, not a_is_mao)

    return win_a


def table_of(model):
    df = match_equity(model)
    return {(r.score_mao, r.score_pe): r.p_mao for r in df.itertuples()}


def test_backward_order_visits_every_score_after_its_successors():
    order = list(scores_backward())
    assert len(order) == 144 and len(set(order)) == 144
    position = {s: i for i, s in enumerate(order)}
    for (a, b), i in position.items():
        for na, nb in ((a + 1, b), (a, b + 1)):
            if na <= ELEVEN and nb <= ELEVEN:
                assert position[(nb, na)] < i  # the state after a hand comes first


@pytest.mark.parametrize("p,points", [(0.5, 1), (0.56, 1), (0.4, 3)])
def test_dp_matches_an_independent_recursion(p, points):
    table = table_of(CoinModel(p, points))
    ref = reference(p, points)
    for (a, b), value in table.items():
        assert value == pytest.approx(ref(a, b, True), abs=1e-12)


def test_fair_coin_is_symmetric():
    table = table_of(CoinModel(0.5))
    for (a, b), value in table.items():
        assert value + table[(b, a)] == pytest.approx(1.0)
    assert table[(5, 5)] == pytest.approx(0.5)


def test_more_points_never_hurt_below_ten():
    """Away from 10 and 11 (where a coin model that never runs at mão de onze can make an
    extra point a burden), a point more for the mão never lowers his match equity."""
    table = table_of(CoinModel(0.56))
    for (a, b), value in table.items():
        if max(a + 1, b) < ELEVEN - 1:
            assert table[(a + 1, b)] >= value - 1e-12
            assert table[(b, a + 1)] <= table[(b, a)] + 1e-12


def test_eleven_eleven_is_the_hand_value():
    assert table_of(CoinModel(0.56))[(11, 11)] == pytest.approx(0.56)


def synthetic_summaries(value_mao):
    """A card-play summary of ten viras with the mão's win probabilities ``value_mao``, and
    the full-game summary of hands that all end at 1 point with the same probabilities."""
    import pandas as pd

    from lab.cards import RANKS

    card = pd.DataFrame({"vira": list(RANKS), "value_mao": value_mao, "exploitability": 0.0})
    full = pd.DataFrame({"vira": list(RANKS)})
    for v in (1, 3, 6, 9, 12):
        full[f"p_mao_{v}"] = value_mao if v == 1 else 0.0
        full[f"p_pe_{v}"] = [1 - x for x in value_mao] if v == 1 else 0.0
    return card, full


def test_full_game_model_with_one_point_hands_is_the_card_play_model():
    from lab.match import CardplayModel, FullGameModel

    value = [0.40 + 0.01 * i for i in range(10)]
    card, full = synthetic_summaries(value)
    a, b = CardplayModel(card), FullGameModel(card, full)
    def payoff(winner, points):
        return (0.6 if winner == MAO else 0.3) + points / 100

    res_a, res_b = a.normal((3, 4), payoff), b.normal((3, 4), payoff)
    assert res_b.p_mao == pytest.approx(res_a.p_mao, abs=1e-15)
    assert res_b.model == "full-game-points" and res_a.model == "cardplay-1pt"


def test_full_game_model_weighs_every_outcome_by_its_probability():
    """Vira by vira the mão scores v with p_mao_v and the pé with p_pe_v; each vira 1/10."""
    from lab.match import FullGameModel

    card, full = synthetic_summaries([0.5] * 10)
    for col in [c for c in full.columns if c.startswith("p_")]:
        full[col] = 0.0
    full.loc[0, ["p_mao_3", "p_pe_12"]] = [0.25, 0.75]   # vira 4
    full.loc[1:, "p_mao_6"] = 1.0                          # the other nine
    model = FullGameModel(card, full)
    res = model.normal((0, 0), lambda w, pts: (pts if w == MAO else -pts) / 100)
    assert res.p_mao == pytest.approx((0.25 * 0.03 - 0.75 * 0.12) / 10 + 0.9 * 0.06, abs=1e-15)


def test_full_game_model_needs_all_ten_viras():
    from lab.match import FullGameModel

    card, full = synthetic_summaries([0.5] * 10)
    with pytest.raises(ValueError, match="all 10 viras"):
        FullGameModel(card, full.iloc[:2])


class ScorelessCoinModel:
    """Every hand: the mão wins ``points`` with probability ``p``, nobody scores with
    probability ``q`` (three tied rounds under rules where that scores nothing), else the pé
    wins; at a mão de onze the holder always accepts (3 points); 11 x 11 the same coin."""

    name = "scoreless-coin"

    def __init__(self, p, q, points=1, rules=None):
        from lab.rules import PRESETS

        self.p, self.q, self.points = p, q, points
        self.rules = PRESETS["buteco"] if rules is None else rules

    def _value(self, win, lose, nobody):
        scoreless = self.q * nobody if self.q else 0.0  # NaN where no hand can score nothing
        return HandResult(self.p * win + (1 - self.p - self.q) * lose + scoreless, 0.0,
                          self.name, self.q)

    def normal(self, score, payoff):
        return self._value(payoff(MAO, self.points), payoff(PE, self.points), payoff(None, 0))

    def eleven(self, score, pay):
        return self._value(pay.mao_wins, pay.pe_wins, pay.nobody)

    def eleven_eleven(self, nobody=float("nan")):
        return self._value(1.0, 0.0, nobody)


def reference_by_iteration(p, q, points):
    """The same match by value iteration over (A's points, B's points, A is mão) until it
    stops moving: an independent check of the exact 2 x 2 solution."""
    import numpy as np

    v = np.full((12, 12, 2), 0.5)

    def win_a(a, b, a_is_mao):
        if a >= 12:
            return 1.0
        if b >= 12:
            return 0.0
        return v[a, b, int(a_is_mao)]

    for _ in range(10_000):
        new = v.copy()
        for a in range(12):
            for b in range(12):
                for m in (0, 1):
                    pts = 3 if ELEVEN in (a, b) else points
                    p_a, p_b = (p, 1 - p - q) if m else (1 - p - q, p)
                    new[a, b, m] = p_a * win_a(a + pts, b, not m) + \
                        p_b * win_a(a, b + pts, not m) + q * win_a(a, b, not m)
        if np.abs(new - v).max() < 1e-15:
            break
        v = new
    return lambda a, b: v[a, b, 1]


@pytest.mark.parametrize("p,q,points", [(0.5, 0.1, 1), (0.45, 0.2, 3), (0.6, 0.01, 1)])
def test_scoreless_hands_are_solved_exactly(p, q, points):
    """A hand that scores nothing leaves the score and swaps the seats: the table solves
    that 2 x 2 system exactly and agrees with value iteration on the same match."""
    table = match_equity(ScorelessCoinModel(p, q, points))
    ref = reference_by_iteration(p, q, points)
    for r in table.itertuples():
        assert r.p_mao == pytest.approx(ref(r.score_mao, r.score_pe), abs=1e-12)
        assert r.exploitability == pytest.approx(0.0, abs=1e-12)


def test_a_model_without_exploitability_is_checked_once():
    """A hand model that reports no exploitability (NaN, as the card-play and full-game
    models do under house rules) has fixed outcomes: the 2 x 2 solution is confirmed by one
    more solve of each hand, not re-solved until MAX_ROUNDS."""
    from dataclasses import replace

    from lab.match import MAX_ROUNDS

    class Unmeasured(ScorelessCoinModel):
        solves = 0

        def _value(self, win, lose, nobody):
            Unmeasured.solves += 1
            return replace(super()._value(win, lose, nobody), exploitability=float("nan"))

    table = match_equity(Unmeasured(0.45, 0.2, 3))
    ref = reference_by_iteration(0.45, 0.2, 3)
    for r in table.itertuples():
        assert r.p_mao == pytest.approx(ref(r.score_mao, r.score_pe), abs=1e-12)
    assert len(table) < Unmeasured.solves <= 2 * len(table) < MAX_ROUNDS * len(table)


def test_scoreless_hands_do_not_count_without_the_rule():
    """Under the default rules a hand always scores: q is never asked for."""
    from lab.rules import DEFAULT_RULES

    table = match_equity(ScorelessCoinModel(0.5, 0.0, 1, rules=DEFAULT_RULES))
    ref = reference(0.5, 1)
    for r in table.itertuples():
        assert r.p_mao == pytest.approx(ref(r.score_mao, r.score_pe, True), abs=1e-12)


def test_full_game_model_with_scoreless_hands_is_solved_exactly():
    """The full game solved under rules where three tied rounds score nothing: each vira's
    outcome probabilities leave 1 - their sum to the hands that score nothing. With the
    end games of the scoreless coin, the table is the coin's match (value iteration)."""
    from lab.match import FullGameModel
    from lab.rules import PRESETS

    p, q = 0.45, 0.2
    card, full = synthetic_summaries([p] * 10)
    full["p_pe_1"] = 1 - p - q

    class FullCoin(FullGameModel):
        _value, eleven, eleven_eleven = (ScorelessCoinModel._value, ScorelessCoinModel.eleven,
                                         ScorelessCoinModel.eleven_eleven)
        points = 1

    model = FullCoin(card, full, rules=PRESETS["buteco"], three_ties="nobody")
    model.p, model.q = p, q
    table = match_equity(model)
    ref = reference_by_iteration(p, q, 1)
    for r in table.itertuples():
        assert r.p_mao == pytest.approx(ref(r.score_mao, r.score_pe), abs=1e-12)
    normal = table[(table["score_mao"] < ELEVEN) & (table["score_pe"] < ELEVEN)]
    assert (normal["model"] == "full-game-points").all()
    # solved under one three-ties rule, it does not stand for another
    with pytest.raises(ValueError, match="played differently"):
        FullGameModel(card, full, rules=PRESETS["buteco"])
    with pytest.raises(ValueError, match="played differently"):
        FullGameModel(card, full, three_ties="nobody")


def play_coin_match(rng, p, q, scores, rules):
    """One match of the scoreless coin model played through lab.rules: each hand the mão
    wins with probability p, nobody scores with q, else the pé wins. A hand is won by the
    loser surrendering (worth 1 in a normal hand and at 11 x 11 under buteco, 3 at an
    accepted mão de onze); a scoreless hand is played out with three tied rounds."""
    from lab.cards import parse_card, parse_cards
    from lab.rules import ELEVEN as MAO_DE_ONZE, NOBODY, MatchState, parse_action

    vira = parse_card("Qd")
    mao_cards, pe_cards = parse_cards("7c,Kh,2s", 3), parse_cards("7h,Ks,2d", 3)
    match = MatchState(scores=scores, mao=0, rules=rules)
    while not match.over:
        u = rng.random()
        outcome = MAO if u < p else NOBODY if u < p + q else PE
        hand = match.deal(vira, mao_cards, pe_cards)
        if hand.kind == MAO_DE_ONZE:
            hand = hand.apply(parse_action("accept"))
        if outcome == NOBODY:
            for token in ("7c", "7h", "Kh", "Ks", "2s", "2d"):
                hand = hand.apply(parse_action(token))
        else:
            if hand.to_act == outcome:  # the winner plays a card, then the loser gives up
                hand = hand.apply(parse_action("7c"))
            hand = hand.apply(parse_action("surrender"))
        assert hand.over and (hand.winner is None) == (outcome == NOBODY)
        match = match.after(hand)
    return match.winner


@pytest.mark.parametrize("start", [(10, 10), (11, 9), (6, 8)])
def test_scoreless_match_equity_agrees_with_simulated_matches(start):
    """Matches under buteco played hand by hand through the reference engine land inside
    the 95% interval around the table's match-win probability."""
    import random

    from lab.rules import PRESETS
    from lab.sim.stats import wilson

    p, q = 0.45, 0.25
    table = table_of(ScorelessCoinModel(p, q, 1, PRESETS["buteco"]))
    rng = random.Random(2026)
    n = 5000
    wins = sum(play_coin_match(rng, p, q, start, PRESETS["buteco"]) == 0 for _ in range(n))
    lo, hi = wilson(wins, n)
    assert lo <= table[start] <= hi, (start, table[start], wins / n, (lo, hi))
