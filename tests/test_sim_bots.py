"""Views hide what a seat may not see; each bot plays as its docstring says."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import fields

import pytest

from lab.cards import DECK, parse_card, parse_cards
from lab.rules import COVER, ELEVEN, SEAT_NAMES, Action, new_hand, parse_action
from lab.sim.bots import (BOT_NAMES, BOTS, AggressiveBot, BlufferBot, CautiousBot, ManiacBot,
                          NitBot, RandomBot, SolverBot, StationBot, make_bot)
from lab.sim.view import Table


def table(vira, mao, pe, score=(0, 0), actions=()):
    t = Table(new_hand(parse_card(vira), parse_cards(mao, 3), parse_cards(pe, 3), score))
    for token in actions:
        t.apply(parse_action(token))
    return t


def act(bot, t):
    return str(bot.act(t.view(), random.Random(0)))


def cards_in(value):
    """Every Card reachable inside a view field."""
    if hasattr(value, "rank") and hasattr(value, "suit"):
        yield value
    elif isinstance(value, Action):
        if value.card is not None:
            yield value.card
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from cards_in(v)


def test_views_never_show_the_opponents_hand_or_a_covered_card():
    rng = random.Random(7)
    bots = [make_bot(name) for name in BOTS]
    checked = covers = 0
    for _ in range(1500):
        cards = rng.sample(DECK, 7)
        score = rng.choice([(0, 0), (5, 9), (11, 3), (2, 11), (11, 11)])
        t = Table(new_hand(cards[0], cards[1:4], cards[4:7], score))
        seat_bots = rng.sample(bots, 2)
        while not t.over:
            seat = t.state.to_act
            view = t.view()
            hidden = set(t.state.hands[1 - seat]) | {p.card for p in t.state.plays
                                                     if p.covered and p.seat != seat}
            seen = {c for f in fields(view) for c in cards_in(getattr(view, f.name))}
            assert not seen & hidden
            assert view.hand == t.state.hands[seat]
            # a seat's own covered cards are its own knowledge, in view.covered only
            assert view.covered == tuple(p.card for p in t.state.plays
                                         if p.covered and p.seat == seat)
            checked += 1
            action = seat_bots[seat].act(view, rng)
            assert action in view.legal
            covers += action.kind == COVER
            t.apply(action)
    assert checked > 5000 and covers > 100


def test_history_and_table_show_covers_without_the_card():
    t = table("4c", "5c,Qh,Kd", "6s,7s,Jd", actions=["Qh", "6s", "cover:Kd"])
    view = t.view()
    assert view.seat == 1 and view.table == ((0, None),)
    assert [(s, str(a)) for s, a in view.history[:2]] == [(0, "Qh"), (1, "6s")]
    assert view.history[2] == (0, Action(COVER))
    assert view.opponent_card_on_table() == (True, None)


def test_random_bot_reaches_every_legal_action():
    t = table("4c", "5c,Qh,Kd", "6s,7s,Jd")
    rng = random.Random(1)
    picks = Counter(str(RandomBot().act(t.view(), rng)) for _ in range(2000))
    assert set(picks) == {"5c", "Qh", "Kd", "raise", "surrender"}
    assert min(picks.values()) > 300


# vira 4c: the manilhas are the 5s (5c zap, 5h copas, 5s espadilha, 5d pica-fumo)

def test_cautious_follows_with_its_weakest_winning_card_else_its_weakest():
    assert act(CautiousBot(), table("4c", "Kd,6h,Ah", "Jd,As,2s", actions=["Kd"])) == "As"
    assert act(CautiousBot(), table("4c", "3d,6h,Ah", "Jd,7s,2s", actions=["3d"])) == "7s"


def test_cautious_leads_its_weakest_and_calls_truco_only_with_a_manilha():
    assert act(CautiousBot(), table("4c", "Kd,6h,Ah", "Jd,7s,2s")) == "6h"
    assert act(CautiousBot(), table("4c", "Kd,6h,5d", "Jd,7s,2s")) == "raise"
    # after its truco is accepted (worth 3) it never raises again
    t = table("4c", "Kd,6h,5d", "Jd,7s,2s", actions=["raise", "accept"])
    assert act(CautiousBot(), t) == "6h"


def test_cautious_accepts_a_raise_only_with_a_manilha_or_a_three():
    assert act(CautiousBot(), table("4c", "Kd,6h,Ah", "Jd,7s,3s", actions=["raise"])) == "accept"
    assert act(CautiousBot(), table("4c", "Kd,6h,Ah", "Jd,7s,5h", actions=["raise"])) == "accept"
    assert act(CautiousBot(), table("4c", "Kd,6h,Ah", "Jd,7s,2s", actions=["raise"])) == "run"


def test_cautious_at_mao_de_onze():
    t = table("4c", "Kd,6h,3h", "Jd,7s,2s", score=(11, 4))
    assert t.view().deciding_eleven and t.state.kind == ELEVEN
    assert act(CautiousBot(), t) == "accept"
    assert act(CautiousBot(), table("4c", "Kd,6h,Ah", "Jd,7s,2s", score=(11, 4))) == "run"


def test_aggressive_raises_with_a_two_or_better_and_leads_its_strongest():
    assert act(AggressiveBot(), table("4c", "Kd,6h,2h", "Jd,7s,3s")) == "raise"
    assert act(AggressiveBot(), table("4c", "Kd,6h,Ah", "Jd,7s,3s")) == "Ah"


def test_aggressive_reraises_with_two_manilhas_and_runs_only_with_4_to_7():
    assert act(AggressiveBot(), table("4c", "Kd,6h,2h", "5d,5s,4s", actions=["raise"])) == "raise"
    assert act(AggressiveBot(), table("4c", "Kd,6h,2h", "5d,Qs,4s", actions=["raise"])) == "accept"
    assert act(AggressiveBot(), table("4c", "Kd,6h,2h", "6d,7s,4s", actions=["raise"])) == "run"
    assert act(AggressiveBot(), table("4c", "6d,7s,4s", "Kd,6h,2h", score=(11, 0))) == "run"
    assert act(AggressiveBot(), table("4c", "6d,7s,Qs", "Kd,6h,2h", score=(11, 0))) == "accept"


def test_solver_bot_samples_its_strategy():
    t = table("4c", "Kd,6h,2h", "Jd,7s,3s")
    strategy = {Action("raise"): 0.25, parse_action("Kd"): 0.75}
    bot = SolverBot(lambda view: strategy)
    rng = random.Random(3)
    picks = Counter(str(bot.act(t.view(), rng)) for _ in range(4000))
    assert set(picks) == {"raise", "Kd"}
    assert abs(picks["raise"] / 4000 - 0.25) < 0.03


def test_solver_bot_falls_back_where_the_strategy_is_silent_and_refuses_bad_ones():
    t = table("4c", "Kd,6h,2h", "Jd,7s,3s")
    assert act(SolverBot(lambda view: None, fallback=CautiousBot()), t) == "6h"
    with pytest.raises(ValueError, match="illegal"):
        act(SolverBot(lambda view: {parse_action("Jd"): 1.0}), t)
    with pytest.raises(ValueError, match="distribution"):
        act(SolverBot(lambda view: {parse_action("Kd"): 0.5}), t)


def test_make_bot_names_the_choices():
    assert isinstance(make_bot("aggressive"), AggressiveBot)
    with pytest.raises(ValueError, match="random, cautious, aggressive"):
        make_bot("smart")



def test_solver_bots_reproduce_the_value_of_the_strategy_they_play():
    """The solver cross-check's hook in miniature: two SolverBots that always play their
    strongest card face up. Then round k pits each player's k-th strongest card, so the
    exact outcome of every hand is known without playing it; the sampled hands must agree
    hand by hand, and so must the summary's win rate and points."""
    from lab.cards import level
    from lab.rules import hand_winner
    from lab.sim.hands import hand_summary, sample_hands

    def strongest(view):
        plays = [a for a in view.legal if a.kind == "play"]
        return {max(plays, key=lambda a: view.level(a.card)): 1.0}

    bot = SolverBot(strongest)
    frame = sample_hands(bot, bot, 400, seed=1, vira=parse_card("4c"))
    assert (frame["vira"] == "4c").all() and (frame["how"] == "cards").all()
    expected = []
    for row in frame.itertuples():
        vira = parse_card(row.vira)
        mao = sorted((level(c, vira) for c in parse_cards(row.mao_cards)), reverse=True)
        pe = sorted((level(c, vira) for c in parse_cards(row.pe_cards)), reverse=True)
        rounds, winner = [], None
        for m, p in zip(mao, pe):
            rounds.append(None if m == p else (0 if m > p else 1))
            winner = hand_winner(tuple(rounds))
            if winner is not None:
                break
        expected.append(SEAT_NAMES[winner])
    assert list(frame["winner"]) == expected
    s = hand_summary(frame)
    rate = expected.count("mao") / len(expected)
    assert s["mao_win_rate"] == rate
    assert s["mao_points"] == pytest.approx(2 * rate - 1)  # every hand is worth 1
    assert s["mao_win_ci95"][0] < rate < s["mao_win_ci95"][1]


# ---------------------------------------------------------------- style bots
# vira 4c again (manilhas: the 5s) unless said; vira Kc makes the aces the manilhas

STYLE = ("maniac", "station", "nit", "bluffer")


def test_style_bots_are_named_wherever_bots_are():
    assert set(STYLE) <= set(BOTS) and set(STYLE) <= set(BOT_NAMES)
    for name, cls in zip(STYLE, (ManiacBot, StationBot, NitBot, BlufferBot)):
        assert isinstance(make_bot(name), cls) and cls.name == name


def test_maniac_raises_whenever_it_may_and_accepts_the_rest():
    weak = "6d,7s,4s"
    assert act(ManiacBot(), table("4c", weak, "Kd,6h,2h")) == "raise"       # first chance
    assert act(ManiacBot(), table("4c", "Kd,6h,2h", weak, actions=["raise"])) == "raise"
    # the ladder: 3, 6, 9 and 12 offered in turn; at 12 it can only accept
    assert act(ManiacBot(), table("4c", weak, "Kd,6h,2h",
                                  actions=["raise", "raise", "raise"])) == "raise"
    assert act(ManiacBot(), table("4c", weak, "Kd,6h,2h",
                                  actions=["raise"] * 4)) == "accept"
    # after its own truco is accepted it may not raise: leads its strongest card
    assert act(ManiacBot(), table("4c", weak, "Kd,6h,2h", actions=["raise", "accept"])) == "7s"
    # its truco accepted, it follows with its weakest winning card
    t = table("4c", "Kd,6h,2h", "Jd,As,3s", actions=["Kd", "raise", "accept"])
    assert act(ManiacBot(), t) == "As"
    assert act(ManiacBot(), table("4c", weak, "Kd,6h,2h", score=(11, 0))) == "accept"


def test_station_never_raises_never_runs():
    strong = "5c,5h,3s"
    assert act(StationBot(), table("4c", strong, "Kd,6h,2h")) == "3s"        # leads weakest
    for actions in (["raise"], ["Kd", "raise"]):
        assert act(StationBot(), table("4c", "Kd,6h,2h", "6d,7s,4s", actions=actions)) == "accept"
    assert act(StationBot(), table("4c", "6d,7s,4s", "Kd,6h,2h",
                                   actions=["raise"] * 4)) == "accept"     # an offer of 12
    assert act(StationBot(), table("4c", "6d,7s,4s", "Kd,6h,2h", score=(11, 3))) == "accept"


def test_nit_runs_with_weak_hands_and_raises_and_accepts_with_strong_ones():
    assert act(NitBot(), table("4c", "Kd,6h,2h", "6d,7s,2s", actions=["raise"])) == "run"
    assert act(NitBot(), table("4c", "Kd,6h,2h", "6d,7s,5d", actions=["raise"])) == "raise"
    assert act(NitBot(), table("4c", "Kd,6h,2h", "6d,3h,3s", actions=["raise"])) == "raise"
    assert act(NitBot(), table("4c", "6d,7s,5d", "Kd,6h,2h",
                               actions=["raise"] * 4)) == "accept"     # an offer of 12
    assert act(NitBot(), table("4c", "6d,7s,2s", "Kd,6h,2h")) == "6d"     # no truco, weakest
    assert act(NitBot(), table("4c", "6d,7s,5d", "Kd,6h,2h")) == "raise"
    assert act(NitBot(), table("4c", "6d,7s,3d", "Kd,6h,2h", score=(11, 0))) == "run"
    assert act(NitBot(), table("4c", "6d,7s,5h", "Kd,6h,2h", score=(11, 0))) == "accept"


def test_nit_judges_later_rounds_on_its_cards_and_the_rounds_won():
    # won round 1 (2s over Kd): a 3 left is strong
    assert act(NitBot(), table("4c", "Kd,6h,2h", "2s,3d,6d", actions=["Kd", "2s"])) == "raise"
    assert act(NitBot(), table("4c", "Kd,6h,2h", "2s,Qd,6d", actions=["Kd", "2s"])) == "6d"
    # lost round 1 (6d under Kd): a manilha beside a 6 is not enough, it runs
    t = table("4c", "Kd,6h,2h", "6d,5s,6s", actions=["Kd", "6d", "raise"])
    assert t.view().seat == 1 and act(NitBot(), t) == "run"
    # its own open card on the table counts: ahead, it led the 5s (only a 6 left in
    # hand), then faces a truco: strong, so it re-raises
    t = table("4c", "Kd,6h,2h", "2s,5s,6d", actions=["Kd", "2s", "5s", "raise"])
    assert act(NitBot(), t) == "raise"


def test_bluffer_raises_weak_hands_and_slow_plays_strong_ones():
    # vira Kc: the aces are manilhas, 4, 5 and 6 are plain
    assert act(BlufferBot(), table("Kc", "4d,5h,6s", "Qd,7h,2h")) == "raise"
    assert act(BlufferBot(), table("Kc", "Ad,Ah,4s", "Qd,7h,2h")) == "4s"   # no raise
    assert act(BlufferBot(), table("Kc", "Qd,7h,2h", "Ad,Ah,4s", actions=["raise"])) == "accept"
    # medium (a 2 or a 3, no manilha): never raises, accepts
    assert act(BlufferBot(), table("Kc", "4d,5h,3s", "Qd,7h,2h")) == "4d"
    assert act(BlufferBot(), table("Kc", "Qd,7h,2h", "4d,5h,3s", actions=["raise"])) == "accept"
    # weak answers a raise by re-raising, and runs from an offer of 12
    assert act(BlufferBot(), table("Kc", "Qd,7h,2h", "4d,5h,6s", actions=["raise"])) == "raise"
    assert act(BlufferBot(), table("Kc", "4d,5h,6s", "Qd,7h,2h",
                                   actions=["raise"] * 4)) == "run"
    assert act(BlufferBot(), table("Kc", "4d,5h,6s", "Qd,7h,2h", score=(11, 2))) == "run"
    assert act(BlufferBot(), table("Kc", "4d,5h,3s", "Qd,7h,2h", score=(11, 2))) == "accept"


def test_style_bots_choose_legal_actions_never_surrender_and_are_deterministic():
    rng = random.Random(11)
    bots = {name: make_bot(name) for name in STYLE}
    raised = Counter()
    for k in range(400):
        cards = rng.sample(DECK, 7)
        score = rng.choice([(0, 0), (5, 9), (11, 3), (2, 11), (8, 8)])
        t = Table(new_hand(cards[0], cards[1:4], cards[4:7], score))
        names = (STYLE[k % 4], STYLE[(k // 4) % 4])
        while not t.over:
            view = t.view()
            bot = bots[names[t.state.to_act]]
            action = bot.act(view, random.Random(k))
            assert action in view.legal and action.kind != "surrender"
            assert bot.act(view, random.Random(k + 1)) == action
            raised[bot.name] += action.kind == "raise"
            t.apply(action)
    assert raised["station"] == 0 and raised["maniac"] > raised["nit"] > 0
    assert raised["bluffer"] > 0
