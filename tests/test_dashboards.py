"""The policy dashboards' logic: decision points in words, how every hand plays there and
how likely it is there, preset situations, a hand played forward, background work and
the bot ranking; the house-rules page on made-up what-if tables.

Expected numbers are worked out here: deal probabilities by counting cards of a small
deck, weights from the policy's own strategy lookups (``FullPolicy.strategy``, another
path than the ``Decision`` arrays the dashboards use), values from
``Line.action_values`` called directly. The hand played with real cards needs a stored
vira-4 policy in data/ (skipped without one, failed under CI).
"""

import asyncio
import html
import random
import re
import threading
from math import comb

import numpy as np
import pandas as pd
import pytest

from conftest import Deferred, in_ci
from lab import charts
from lab.cards import level, parse_card
from lab.dashboards import spots
from lab.dashboards.background import Background, settle
from lab.dashboards.hand_play import HandPlay, HandPlayer, compute_values, hand_values
from lab.dashboards.house_rules import HouseRules
from lab.dashboards.ranking import BotRanking, ranking_summary
from lab.rules import Action, PRESETS, RuleSet

TOY = (2, 2, 2, 1)
"""A 7-card deck: two cards of each of levels 0, 1, 2 and one of level 3."""


@pytest.fixture(scope="module")
def toy():
    from lab.solver.fullgame.solver import FullSolver, config_for
    from lab.solver.fullgame.compact import compact_policy
    from lab.policy.full import FullPolicy

    config = config_for(toy_cap=TOY, ladder=(1, 3, 6))
    solver = FullSolver(config).allocate()
    solver.iterate(30)
    q, keys, _ = compact_policy(solver, 0.01)
    return FullPolicy(config, q, keys=keys)


def class_of(policy, label: str) -> int:
    return policy.cards.labels.index(label)


def root_strategy(policy, cls: int) -> dict:
    """The mão's strategy at the deal with class ``cls``, by the state lookup."""
    levels = policy.cards.class_levels[cls]
    return policy.strategy(policy.root(), policy.state_of(cls, levels))


# ------------------------------------------------------------------ words


def test_calls_and_cards_in_player_words():
    assert [spots.raise_word(v) for v in (3, 6, 9, 12)] == ["truco", "seis", "nove", "doze"]
    assert spots.card_phrase("zap") == "the zap"
    assert spots.card_phrase("A") == "an A" and spots.card_phrase("3") == "a 3"
    assert charts.percent(0.0) == "0%" and charts.percent(1.0) == "100%"
    assert charts.percent(0.004) == "<1%" and charts.percent(0.996) == ">99%"
    assert charts.percent(0.374) == "37%" and charts.percent(float("nan")) == "—"


@pytest.mark.slow
def test_each_spot_says_who_acts_and_what_the_calls_are_worth(toy):
    root = toy.start()
    assert spots.spot_words(toy, root) == ("Round 1: the mão leads the round; the hand is "
                                           "worth 1.")
    truco = root.then("raise")
    assert spots.short_words(toy, truco.spot, "raise") == "seis!"
    assert spots.action_words(toy, truco.spot, "run") == ("runs from the truco (the mão "
                                                          "scores 1)")
    assert spots.action_words(toy, truco.spot, "accept") == ("accepts the truco (the hand "
                                                             "is worth 3)")
    seis = truco.then("raise")
    assert "the mão answers a seis" in spots.spot_words(toy, seis)
    assert spots.action_words(toy, seis.spot, "run") == "runs from the seis (the pé scores 3)"
    assert spots.categories(toy, seis.spot) == ["accept", "run"]   # 6 is the top here
    assert [w for _, w in spots.line_words(toy, seis.actions)] == [
        "truco! (asks for 3 points)", "seis! (accepts 3 points and asks for 6)"]
    assert spots.category(toy, root.spot, ("card", 2), (3, 2, 1)) == "play the middle card"
    assert spots.category(toy, root.spot, ("card", 2), (2, 2, 1)) == "play the highest card"
    assert spots.category(toy, root.spot, ("cover", 0), (1, 0)) == "cover a card"


# ------------------------------------------------------------------ who holds what


@pytest.mark.slow
def test_at_the_deal_each_class_is_as_likely_as_the_deck_deals_it(toy):
    frame = spots.class_strategy(toy, toy.start()).set_index("hand")
    deals = comb(7, 3)
    # class "3 2 1": the one 3, one of two 2s, one of two 1s
    assert frame.loc["3 2 1", "share"] == pytest.approx(4 / deals)
    assert frame.loc["2 1 0", "share"] == pytest.approx(8 / deals)
    assert frame.loc["3 0 0", "share"] == pytest.approx(1 / deals)
    assert frame.loc["2 2 1", "share"] == pytest.approx(2 / deals)
    assert frame["share"].sum() == pytest.approx(1.0)
    assert list(frame.index[[0, -1]]) == ["1 0 0", "3 2 2"]      # weakest first
    assert spots.reach_probability(toy, toy.start()) == pytest.approx(1.0)


@pytest.mark.slow
def test_a_class_plays_its_cards_by_their_rank_in_the_hand(toy):
    frame = spots.class_strategy(toy, toy.start()).set_index("hand")
    mix = root_strategy(toy, class_of(toy, "3 2 1"))
    row = frame.loc["3 2 1"]
    assert row["play the highest card"] == pytest.approx(mix[("card", 3)])
    assert row["play the middle card"] == pytest.approx(mix[("card", 2)])
    assert row["play the lowest card"] == pytest.approx(mix[("card", 1)])
    assert row["truco"] == pytest.approx(mix["raise"])


@pytest.mark.slow
def test_the_answering_hands_are_weighted_by_how_often_the_raiser_raises(toy):
    W = np.asarray(toy.cards.deal_weights())          # (mão class, pé class)
    n = len(toy.cards.labels)
    raises = np.array([root_strategy(toy, j)["raise"] for j in range(n)])
    line = toy.start().then("raise")
    frame = spots.class_strategy(toy, line).set_index("class")
    expected = raises @ W                                # per pé class
    assert spots.reach_probability(toy, line) == pytest.approx(expected.sum())
    for cls, share in frame["share"].items():
        assert share == pytest.approx(expected[cls] / expected.sum())
    assert set(frame.index) == set(np.flatnonzero(expected > 0))
    assert spots.aggregate_mix(toy, toy.start())["raise"] == pytest.approx(expected.sum())


@pytest.mark.slow
def test_the_opponent_s_mix_weights_his_hands_by_the_deal_against_yours(toy):
    W = np.asarray(toy.cards.deal_weights())
    yours = class_of(toy, "2 1 0")                       # the pé's class
    n = len(toy.cards.labels)
    mixes = [root_strategy(toy, j) for j in range(n)]
    mix, on_path = spots.opponent_mix(toy, toy.start(), yours)
    assert on_path
    for action in (("card", 3), ("card", 0), "raise"):
        expected = sum(W[j, yours] * mixes[j].get(action, 0.0) for j in range(n))
        assert mix[action] == pytest.approx(expected / W[:, yours].sum())
    assert sum(mix.values()) == pytest.approx(1.0)
    # holding the only card of level 3, the pé never sees the mão play one
    three = class_of(toy, "3 2 1")
    assert ("card", 3) not in spots.possible_actions(toy, toy.start(), three)
    assert spots.opponent_mix(toy, toy.start(), three)[0][("card", 3)] == 0.0


def test_groups_by_best_card_are_share_weighted():
    frame = pd.DataFrame({"hand": ["a", "b", "c"], "class": [0, 1, 2],
                          "holds": ["", "", ""], "best": ["2", "3", "3"],
                          "strength": [(1,), (2,), (2,)], "share": [0.5, 0.2, 0.3],
                          "truco": [0.0, 1.0, 0.0], "run": [1.0, 0.0, 1.0]})
    groups = spots.by_best_card(frame)
    assert list(groups["best card"]) == ["3", "2"]        # strongest first
    assert groups.loc[0, "share"] == pytest.approx(0.5)
    assert groups.loc[0, "truco"] == pytest.approx(0.4)   # 0.2 of 0.5
    assert groups.loc[1, "run"] == pytest.approx(1.0)


# ------------------------------------------------------------------ presets


@pytest.mark.slow
def test_presets_reach_the_situations_they_name(toy):
    lines = {name: spots.preset_line(toy, steps) for name, steps in spots.PRESETS}

    def at(name):
        line = lines[name]
        return line, toy.actor(line.spot), spots.round_of(toy, line.spot)

    line, seat, _ = at("the pé answers the mão's opening truco")
    assert seat == 1 and toy.is_answer(line.spot) and spots.pending_value(toy, line.spot) == 3
    line, seat, _ = at("the mão answers a seis (the pé re-raised the truco)")
    assert seat == 0 and spots.pending_value(toy, line.spot) == 6
    line, seat, rnd = at("round 2: the mão leads after winning round 1")
    (_, first), (_, second) = line.actions
    assert (seat, rnd) == (0, (2, True)) and second < first
    line, seat, rnd = at("round 2: the pé leads after winning round 1")
    assert (seat, rnd) == (1, (2, True)) and line.actions[1][1] > line.actions[0][1]
    line, seat, rnd = at("round 2: the mão leads again after a tied round 1")
    assert (seat, rnd) == (0, (2, True)) and line.actions[1][1] == line.actions[0][1]
    line, seat, rnd = at("round 2: the mão answers a truco after winning round 1")
    assert seat == 0 and rnd[0] == 2 and toy.is_answer(line.spot)
    assert at("round 3: the pé leads at one round each")[1:] == (1, (3, True))
    assert at("round 3: the mão answers the pé's last card at one round each")[1:] == \
        (0, (3, False))
    # a card pick is the most frequent card of the player to act
    mix = spots.aggregate_mix(toy, toy.start())
    top = max((p, a) for a, p in mix.items() if isinstance(a, tuple))[1]
    assert lines["the pé's first move after the mão's card"].actions == (top,)
    for line in lines.values():
        assert spots.reach_probability(toy, line) > 0


# ------------------------------------------------------------------ chart


def test_the_spot_chart_stacks_each_hand_as_wide_as_its_share():
    hands = pd.DataFrame({"best": ["2", "3"], "share": [0.25, 0.75],
                          "accept": [1.0, 0.2], "run": [0.0, 0.8]})
    fig = charts.spot_strategy_chart(hands, ["accept", "run"], "t")
    ax = fig.axes[0]
    accept, run = ax.collections
    top = accept.get_paths()[0].vertices
    # accept reaches 100 % over the first hand (0-25 %) and 20 % over the second
    assert top[:, 1].max() == pytest.approx(100.0)
    assert sorted(set(np.round(top[top[:, 0] > 25, 1], 6))) == [0.0, 20.0]
    lower = run.get_paths()[0].vertices
    assert lower[lower[:, 0] > 25, 1].min() == pytest.approx(20.0)
    assert [t.get_text() for t in ax.child_axes[0].get_xticklabels()] == ["2", "3"]
    assert charts.png(fig)[:4] == b"\x89PNG"


# ------------------------------------------------------------------ background


def test_background_work_runs_at_once_outside_a_kernel():
    seen = []
    job = Background()
    assert not job.threaded
    job.submit("x", lambda: 2 + 2, seen.append)
    assert seen == [4] and job.idle()
    job.submit("x", lambda: 1 / 0, seen.append, lambda exc: seen.append(type(exc)))
    assert seen == [4, ZeroDivisionError]


def test_background_work_in_a_kernel_hands_results_back_on_its_loop():
    async def main():
        loop_thread = threading.get_ident()
        gate = threading.Event()
        done = []
        job = Background(threaded=True)  # as in a kernel: results come back on its loop
        assert job.threaded
        job.submit("load", lambda: gate.wait(5) and "policy",
                   lambda r: done.append((r, threading.get_ident() == loop_thread)))
        job.submit("values", lambda: "old", done.append)      # replaced before it starts
        job.submit("values", lambda: "new", done.append)
        assert not job.idle()
        gate.set()
        assert await settle(10)
        return done

    # a thread of its own: the browser tests' library may run an event loop in this one
    out = []
    runner = threading.Thread(target=lambda: out.append(asyncio.run(main())))
    runner.start()
    runner.join(30)
    assert out == [[("policy", True), "new"]]


# ------------------------------------------------------------------ the bot ranking


def test_the_ranking_averages_each_bot_over_the_viras():
    table = pd.DataFrame({
        "vira": ["4", "7", "4", "7"], "bot": ["random", "random", "uniform", "uniform"],
        "exploitability": [np.nan, np.nan, 2.0, 3.0], "ev_vs_solver": [-1.0, -2.0, -0.5, -0.7],
        "exact": [False, False, True, True], "ci95_lo": [-1.3, -2.4, np.nan, np.nan],
        "ci95_hi": [-0.7, -1.6, np.nan, np.nan], "hands": [1000, 1000, 0, 0],
        "method": ["simulated", "simulated", "exact", "exact"]})
    out = ranking_summary(table)
    assert list(out["bot"]) == ["uniform", "random"]        # best expected points first
    uniform, rand = out.iloc[0], out.iloc[1]
    assert uniform["ev"] == pytest.approx(-0.6) and uniform["exploitability"] == 2.5
    assert np.isnan(uniform["lo"])
    half = np.hypot(0.3, 0.4) / 2
    assert rand["ev"] == pytest.approx(-1.5) and np.isnan(rand["exploitability"])
    assert (rand["lo"], rand["hi"]) == pytest.approx((-1.5 - half, -1.5 + half))


def test_a_missing_ranking_says_how_to_build_it(tmp_path, monkeypatch):
    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    view = BotRanking()
    assert view.missing is not None
    assert "lab rank --write" in view.children[0].value


# ------------------------------------------------------------------ a hand with real cards


def real_policy():
    from lab.tables.policies import load_full_policy
    from lab.tables import TableError

    try:
        return load_full_policy("4")
    except TableError as exc:
        if in_ci():
            pytest.fail(f"stored policy needed: {exc}")
        pytest.skip(f"stored policy needed: {exc}")


VIRA = parse_card("4c")
HAND = tuple(parse_card(c) for c in ("5c", "3h", "Kd"))     # zap 3 K with vira 4


def test_a_mao_de_onze_or_11x11_hand_plays_on_card_play_and_a_missing_policy_says_how(
        tmp_path, monkeypatch):
    """At 11-4 and 11-11 the section plays the solved card-play model (no truco ladder);
    at 0-0 without a stored policy it says the command that solves one."""
    player = HandPlayer(background=Deferred())
    player.show(VIRA, HAND, 0, (11, 4))
    assert player.play is None and player.eleven is not None
    text = player.stage.children[0].value
    assert "mão de onze" in text and "does not apply" in text
    player.show(VIRA, HAND, 1, (11, 11))
    assert player.play is None and player.eleven is not None
    assert "11 x 11" in player.stage.children[0].value
    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    player.show(VIRA, HAND, 0, (0, 0))
    assert player.play is None and player.eleven is None
    text = player.stage.children[0].value
    assert "solved strategy missing" in text
    assert "lab solve policy --vira V --checkpoints DIR" in text


class HeldLoads(Background):
    """Keeps the loads (``loads``: (work, done) pairs) until the test finishes them, as a
    slow load that completes after the user has changed the picks."""

    def __init__(self):
        super().__init__(threaded=False)
        self.loads = []

    def submit(self, kind, work, done, failed=None, delay=0.0):
        self.loads.append((work, done))


def test_a_points_load_that_ends_after_the_score_moved_to_mao_de_onze_starts_no_ladder():
    """A points-policy load started at 0-0 and finished after the user moved to 11-0 (a
    mão de onze) must not put the truco ladder on screen: the section waits for the mão
    de onze's own model."""
    background = HeldLoads()
    player = HandPlayer(background=background)
    player.show(VIRA, HAND, 0, (0, 0))
    player.show(VIRA, HAND, 0, (11, 0))
    points_load, eleven_load = background.loads
    background.loads = []
    points_load[1](object())                 # any policy: it must not be started
    assert player.play is None and player.eleven is None
    text = player.stage.children[0].value
    assert "loading the solved mão de onze" in text


@pytest.mark.slow
def test_your_moves_and_his_at_the_start_of_a_hand():
    policy = real_policy()
    play = HandPlay(policy, VIRA, HAND, 0)
    assert play.your_turn
    assert [text for _, _, text in play.options()] == ["play 5♣ (zap)", "play 3♥", "play K♦",
                                                       "truco!"]
    truco = play.then(Action("raise"))
    assert truco.actor == 1
    assert [text for _, _, text in truco.options()] == ["accepts", "runs", "seis!"]
    mix, on_path = truco.opponent_mix()
    assert sum(mix.values()) == pytest.approx(1.0)
    led = play.then(Action("play", parse_card("3h")))
    shown = [action.card for action, _, _ in led.options() if action.kind == "play"]
    assert not set(shown) & {VIRA, *HAND}                  # never a card he cannot hold
    levels = [level(c, VIRA) for c in shown]
    assert len(levels) == len(set(levels))                 # one card per level
    assert parse_card("Kc") in shown and parse_card("Kd") not in shown
    assert led.back().moves == () and led.restart().moves == ()
    rng = random.Random(3)
    for step in (play, truco, led):
        choice = step.policy_choice(rng)
        assert choice in [action for action, _, _ in step.options()]


@pytest.mark.slow
def test_the_page_shows_the_hand_s_strategy_and_then_its_values():
    policy = real_policy()
    background = Deferred()
    player = HandPlayer(background=background, rng=random.Random(1))
    player.show(VIRA, HAND, 0, (0, 0))
    text = player.stage.children[0].value
    start = policy.strategy(policy.root(), player.play.state)
    for _, move, label in player.play.options():
        assert f">{label}</td><td>{charts.percent(start.get(move, 0.0))}</td>" in text
    assert "computing…" in text and len(background.jobs) == 1
    background.jobs.clear()                               # the deal's values: too slow here
    buttons = {b.description: b for b in player.stage.children[1].children[1:]}
    cards = [(start.get(move, 0.0), label) for _, move, label in player.play.options()
             if label.startswith("play ")]
    buttons[max(cards)[1]].click()   # the policy's likeliest card: on its path (each beats 4♥)
    assert "his move" in player.stage.children[0].value
    before = player.stage.children[0].value
    buttons = {b.description: b for b in player.stage.children[1].children[1:]}
    buttons["plays 4♥"].click()                            # the pé's lowest card: mão leads
    after = player.stage.children[0].value
    assert after != before and "Round 2: the mão leads" in after
    assert "computing…" in after
    background.run_jobs()
    shown = player.stage.children[0].value
    acts, vals = player.play.line.action_values(0)
    i = policy.pair_of(player.play.line.spot.card, 0, player.play.state)
    for _, move, label in player.play.options():
        value = vals[list(acts).index(move), i]
        assert f">{label}</td>" in shown and f"{value:+.2f}" in shown
    mix = policy.strategy(player.play.line.spot, player.play.state)   # on the path here
    here = sum(p * vals[list(acts).index(m), i] for m, p in mix.items()) / sum(mix.values())
    assert f"move 1 (round 1) — · now {here:+.2f}" in shown    # the deal's values not done
    assert hand_values(player.play) is not None
    assert "Value so far" in shown and "computing…" not in shown
    player.stage.children[2].children[0].click()          # back
    assert "his move" in player.stage.children[0].value


@pytest.mark.slow
def test_values_are_remembered_per_line():
    policy = real_policy()
    play = HandPlay(policy, VIRA, HAND, 0).then(Action("play", parse_card("3h"))).then(
        Action("play", parse_card("4h")))
    first = compute_values(policy, play.line)
    assert compute_values(policy, play.line) is first


@pytest.mark.slow
def test_the_strategy_explorer_jumps_to_a_situation_and_walks_on():
    real_policy()
    from lab.dashboards.strategy_explorer import OWN_WALK, StrategyExplorer

    explorer = StrategyExplorer()
    assert explorer.missing is None and explorer.line.actions == ()
    chart = explorer.stage.children[1].children[0].value
    assert chart[:4] == b"\x89PNG"
    explorer.preset.value = 1                     # the pé answers the mão's opening truco
    assert explorer.line.actions == ("raise",)
    header, views, row = explorer.stage.children[:3]
    assert "the pé answers a truco" in header.value
    assert views.children[0].value != chart
    frame = spots.class_strategy(explorer.policy, explorer.line)
    mix = spots.aggregate_mix(explorer.policy, explorer.line)
    assert (frame["share"] * frame["accept"]).sum() == pytest.approx(mix["accept"])
    assert f"<td>{charts.percent(mix['accept'])}</td>" in views.children[1].value
    buttons = {b.description: b for b in row.children[1:]}
    assert set(buttons) == {"accepts", "runs", "seis!"}
    buttons["runs"].click()                        # the hand ends
    assert explorer.line.over and explorer.preset.value == OWN_WALK
    assert "the mão wins 1 point" in explorer.stage.children[0].value
    explorer.stage.children[1].children[0].click()  # back
    assert explorer.line.actions == ("raise",)


@pytest.mark.slow
def test_viras_sharing_a_policy_name_their_own_cards():
    """Viras 2 and 3 deal alike and read one stored policy; each names its own cards."""
    from lab.dashboards.strategy_explorer import StrategyExplorer
    from lab.tables.policies import stored_viras

    if not {"2", "3"} <= set(stored_viras()):
        pytest.skip("needs stored policies of viras 2 and 3")
    explorer = StrategyExplorer()
    moves = {}
    for vira in ("2", "3"):
        explorer.vira.value = vira
        moves[vira] = explorer.stage.children[1].children[1].value
    assert "plays a 2" in moves["2"] and "plays a 3" not in moves["2"]   # 3s: manilhas
    assert "plays a 3" in moves["3"] and "plays a 4" not in moves["3"]   # 4s: manilhas


# ------------------------------------------------------------------ house rules


FLIPS = {("4", "11,3"): [("zap 3 K", 0.0, 1.0), ("copas A 7", 0.2, 0.9), ("K Q 4", 1.0, 0.0)],
         ("5", "11,3"): [("zap 2 2", 0.0, 1.0)],
         ("4", "3,11"): [("3 3 2", 1.0, 0.3)]}
"""Made-up mão de onze decisions that change: {(vira, score): [(hand, the lab's accept
probability, the rule set's)]}."""

LARGEST = (10, 11)
"""The score where the made-up match equity changes most."""


def made_up_whatif(rules: RuleSet, seed: int) -> dict:
    """Made-up ``whatif`` and ``whatif_match`` rows of ``rules``: random figures per vira
    and score, the full game not solved under these rules, the hands of FLIPS, and the
    largest match-equity change at LARGEST."""
    from lab.charts import VIRAS
    from lab.tables import columns_of
    from lab.tables.whatif import NOT_SOLVED

    rng = np.random.default_rng(seed)
    rows = []

    def add(quantity, unit, default, variant, model, default_model, **keys):
        rows.append({"rules": rules.name, "rules_version": rules.version,
                     "quantity": quantity, "unit": unit, "vira": "", "score": "", "seat": "",
                     "hand": "", **keys, "variant": variant, "default": default,
                     "difference": variant - default,
                     "variant_exploitability": np.nan if np.isnan(variant) else 1e-4,
                     "default_exploitability": 2e-4, "variant_model": model,
                     "default_model": default_model})

    for vira in VIRAS:
        value = rng.uniform(0.44, 0.45)
        add("cardplay_value", "win probability", value, value + rng.normal(0, 0.002),
            "cardplay-equilibrium", "cardplay-equilibrium", vira=vira)
        add("cardplay_scoreless", "probability", 0.0, rng.uniform(0.001, 0.004),
            "cardplay-equilibrium", "cardplay-equilibrium", vira=vira)
        add("double_dummy_value", "win probability", value, value + rng.normal(0, 0.002),
            "double-dummy", "double-dummy", vira=vira)
        if vira == "4":   # one vira's full game solved under these rules
            add("full_game_value", "points per hand", -0.21, -0.2085, "full-game-points",
                "full-game-points", vira=vira)
            add("full_game_scoreless", "probability", 0.0, 0.0005, "full-game-points",
                "full-game-points", vira=vira)
            for seat in ("mao", "pe"):
                for points in ("1", "3", "6", "9", "12"):
                    p = rng.uniform(0.0, 0.3)
                    add("full_game_outcome", "probability", p, p + rng.normal(0, 0.01),
                        "full-game-points", "full-game-points", vira=vira, seat=seat,
                        hand=points)
        else:
            add("full_game_value", "points per hand", -0.21, np.nan, NOT_SOLVED,
                "full-game-points", vira=vira)
        for score in [f"11,{p}" for p in range(11)] + [f"{m},11" for m in range(11)]:
            seat = "mao" if score.startswith("11,") else "pe"
            rate = rng.uniform(0.3, 0.7)
            add("eleven_accept_rate", "probability", rate, rate + rng.normal(0, 0.02),
                "mao-de-onze-exact", "mao-de-onze-exact", vira=vira, score=score, seat=seat)
    for (vira, score), hands in FLIPS.items():
        seat = "mao" if score.startswith("11,") else "pe"
        for hand, before, after in hands:
            add("eleven_accept", "probability", before, after, "mao-de-onze-exact",
                "mao-de-onze-exact", vira=vira, score=score, seat=seat, hand=hand)
    whatif = pd.DataFrame(rows)[list(columns_of("whatif"))]
    scores = [(m, p) for m in range(12) for p in range(12)]
    default = rng.uniform(0.1, 0.9, len(scores))
    change = rng.uniform(-0.02, 0.02, len(scores))
    change[scores.index(LARGEST)] = -0.05
    models = ["eleven-eleven-exact" if m == p == 11 else "mao-de-onze-exact" if 11 in (m, p)
              else "full-game-points" for m, p in scores]
    exploitability = [np.nan if m == "full-game-points" else 1e-5 for m in models]
    match = pd.DataFrame({
        "rules": rules.name, "rules_version": rules.version, "unit": "match-win probability",
        "score_mao": [m for m, _ in scores], "score_pe": [p for _, p in scores],
        "variant": default + change, "default": default,
        "variant_exploitability": exploitability, "default_exploitability": exploitability,
        "variant_model": models, "default_model": models})
    match["difference"] = match["variant"] - match["default"]
    return {"whatif": whatif, "whatif_match": match[list(columns_of("whatif_match"))]}


STORED = (PRESETS["fpt"], RuleSet(surrender="answer_only"))
"""The rule sets of the made-up what-if tables (buteco is not computed)."""


@pytest.fixture()
def whatif_data(tmp_path, monkeypatch):
    """A data folder holding made-up what-if tables of the rule sets of STORED (written
    through the tables layer, with manifests); returns {rule set: its rows}."""
    from lab.cards import RANKS
    from lab.tables import TableWrite, write_tables
    from lab.tables.registry import WHATIF_SETTINGS

    stored = {rules: made_up_whatif(rules, seed) for seed, rules in enumerate(STORED)}
    viras = {v: {"iterations": 1, "exploitability": 1e-4} for v in RANKS}
    write_tables({name: TableWrite(pd.concat([rows[name] for rows in stored.values()],
                                             ignore_index=True), WHATIF_SETTINGS, viras)
                  for name in ("whatif", "whatif_match")}, tmp_path)
    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    return stored


def code_of(message: str) -> list[str]:
    """The words of the command a missing-table message names."""
    return html.unescape(re.search(r"<code>(.*?)</code>", message).group(1)).split()


def rules_of(command: list[str]) -> RuleSet:
    """The rule set a ``lab whatif`` command line names, read by the ``lab`` parser."""
    from lab.cli import build_parser
    from lab.rules import rule_set

    assert command[0] == "lab"
    args = build_parser("whatif").parse_args(command[1:])
    assert args.command == "whatif"
    return rule_set(args.rules, args.rule)


def table_rows(page: str) -> list[list[str]]:
    """The cells of every body row of an HTML table."""
    body = page.split("<tbody>", 1)[1]
    return [re.findall(r"<td>(.*?)</td>", row, re.S)
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def test_the_landing_page_lists_every_public_table(tmp_path, monkeypatch):
    from lab.dashboards.landing import data_status
    from lab.tables import spec_of
    from lab.tables.tidy import TABLE_NAMES

    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))       # nothing built
    status = data_status().set_index("table")
    assert list(status.index) == [*TABLE_NAMES, "full_policy", "score_policy"]
    assert status.loc["score_policy", "status"].startswith("rebuild: lab solve policy")
    for name in ("whatif", "whatif_match"):
        assert status.loc[name, "status"] == f"rebuild: {spec_of(name).rebuild}"


def test_a_rule_set_not_computed_says_the_command_that_computes_it(whatif_data):
    view = HouseRules()
    assert view.rules == STORED[0] and view.missing is None      # opens on a stored preset
    view.preset.value = "buteco"
    assert view.missing is not None and view.sections not in view.children
    assert rules_of(code_of(view.message.value)) == PRESETS["buteco"]
    view.rule_pickers["surrender"].value = "answer_only"            # no preset any more
    assert view.preset.value == "custom"
    assert rules_of(code_of(view.message.value)) == view.rules == RuleSet(
        three_ties="nobody", eleven_eleven="one", surrender="answer_only")
    view.rule_pickers["three_ties"].value = "mao"
    view.rule_pickers["eleven_eleven"].value = "three"               # a stored rule set
    assert view.missing is None and view.sections in view.children
    assert view.rules == STORED[1]
    view.rule_pickers["surrender"].value = "any_turn"                # the lab's own rules
    assert "the lab's own rules" in view.message.value
    assert view.sections not in view.children


def test_no_what_if_tables_at_all_is_a_message_with_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    view = HouseRules()
    assert view.missing is not None and "lab-missing" in view.message.value
    assert rules_of(code_of(view.message.value)) == view.rules
    view.rule_pickers["eleven_eleven"].value = "blind"
    assert rules_of(code_of(view.message.value)) == view.rules


def test_each_rule_is_said_in_one_line(whatif_data):
    from lab.dashboards.house_rules import RULE_WORDS

    view = HouseRules()
    lines = re.findall(r"<li>(.*?)</li>", view.words.value)
    assert len(lines) == 4
    for line, (key, value) in zip(lines, view.rules.items().items()):
        assert html.escape(RULE_WORDS[key][value]) in line
        assert line.startswith("<b>") == (value != RuleSet().items()[key])


def test_the_heatmap_is_the_tables_match_equity_change(whatif_data):
    view = HouseRules()
    for rules in STORED:
        for key, value in rules.items().items():
            view.rule_pickers[key].value = value
        match = whatif_data[rules]["whatif_match"]
        expected = np.full((12, 12), np.nan)
        expected[match["score_mao"], match["score_pe"]] = match["variant"] - match["default"]
        image = view.match_figure().axes[0].images[0]
        np.testing.assert_allclose(np.ma.filled(image.get_array(), np.nan), expected,
                                   rtol=0, atol=1e-15)
        assert image.norm.vcenter == 0 and image.norm.vmin == -image.norm.vmax
        assert image.norm.vmax == pytest.approx(np.abs(expected).max())
    worst = match[(match["score_mao"] == LARGEST[0]) & (match["score_pe"] == LARGEST[1])].iloc[0]
    text = view.match_note.value
    assert f"at {LARGEST[0]}–{LARGEST[1]} (mão–pé)" in text and "loses" in text
    assert f"{charts.significant(abs(worst['difference']))} match-win probability" in text
    assert f"{worst['default']:.3f}" in text and f"{worst['variant']:.3f}" in text


def test_the_value_per_vira_is_the_tables_change(whatif_data):
    view = HouseRules()
    rows = whatif_data[STORED[0]]["whatif"]
    assert [q for _, q in view.quantity.options] == ["cardplay_value", "double_dummy_value",
                                                     "full_game_value"]
    card = rows[rows["quantity"] == "cardplay_value"]
    bars = view.value_figure().axes[0].patches
    np.testing.assert_allclose([b.get_height() for b in bars], card["variant"] - card["default"])
    shown = table_rows(view.value_table.value)
    assert [r[0] for r in shown] == list(card["vira"])
    assert [r[2] for r in shown] == [f"{x:.4f}" for x in card["variant"]]
    view.quantity.value = "full_game_value"
    shown = {r[0]: r for r in table_rows(view.value_table.value)}
    assert len(shown) == 10 and shown["4"][2] == "-0.2085" and shown["4"][-1] == "0.05%"
    assert all(r[2] == "not solved under these rules" and r[-3:] == ["—"] * 3
               for v, r in shown.items() if v != "4")
    # how often a hand ends worth 3 points or more, either seat scoring it, each side
    raised = rows[(rows["quantity"] == "full_game_outcome") & (rows["hand"] != "1")]
    assert shown["4"][-3:-1] == [f"{100 * raised[side].sum():.2f}%"
                                 for side in ("default", "variant")]
    labels = [t.get_text() for t in view.value_figure().axes[0].texts]
    assert labels == ["+0.0015"] + ["not solved"] * 9    # vira 4 first
    assert "points per hand" in view.value_note.value


def test_the_hands_that_change_their_mao_de_onze_decision(whatif_data):
    view = HouseRules()
    rows = whatif_data[STORED[0]]["whatif"]
    vira, score = max(FLIPS, key=lambda at: len(FLIPS[at]))     # opens where most change
    assert (view.vira.value, view.score.value) == (vira, tuple(map(int, score.split(","))))
    for (vira, score), flips in FLIPS.items():
        view.vira.value = vira
        view.score.value = tuple(int(x) for x in score.split(","))
        listed = {r[0]: r[1:] for r in table_rows(view.hands.value)}
        assert set(listed) == {hand for hand, _, _ in flips}
        for hand, before, after in flips:
            assert listed[hand][:2] == [charts.percent(before), charts.percent(after)]
        rate = rows[(rows["quantity"] == "eleven_accept_rate") & (rows["vira"] == vira)
                    & (rows["score"] == score)].iloc[0]
        note = view.eleven_note.value
        assert f"{rate['default']:.1%}" in note and f"{rate['variant']:.1%}" in note
        rates = table_rows(view.rates.value)
        assert len(rates) == 22
        shown = {r[0]: r for r in rates}[score.replace(",", "–")]
        assert shown[2:4] == [f"{rate['default']:.1%}", f"{rate['variant']:.1%}"]
    view.vira.value, view.score.value = "6", (11, 3)         # nothing flips there
    assert view.hands.value == "" and "No hand changes" in view.eleven_note.value



def test_the_leak_text_names_the_sweep_s_re_solve_where_there_is_one():
    """leak_text(score): the points play's leak at the score and, where the match-play
    sweep re-solved it (score_play) and score_leak holds no re-solve of its own, what vira
    4's re-solve changes (its iterations, exploitability and match-win probabilities);
    nothing of the kind where no vira was re-solved."""
    from conftest import require_table
    from lab.widgets import leak_text, significant

    require_table("score_leak", solved_only=True)
    plays = require_table("score_play")
    row = plays[(plays["vira"] == "4") & (plays["score_mao"] == 9)
                & (plays["score_pe"] == 9)].iloc[0]
    text = leak_text((9, 9))
    assert text.startswith("the points play leaks ")
    assert (f"a score-aware re-solve of vira 4 ({int(row['iterations'])} iterations, "
            f"exploitability {significant(row['exploitability'])})") in text
    assert (f"win the match with probability {row['value_mao']:.3f} instead of "
            f"{row['points_value_mao']:.3f}") in text
    n = int(((plays["score_mao"] == 9) & (plays["score_pe"] == 9)).sum())
    assert f"({n} viras re-solved here" in text
    assert not ((plays["score_mao"] == 0) & (plays["score_pe"] == 0)).any()
    assert "re-solve" not in leak_text((0, 0))
