"""The solver bot (lab.sim.solver_bot): it plays the stored full-game policy in normal hands
(raises, answers and cards), the mão de onze and 11 x 11 as solved, and nothing illegal.

Normal hands use vira 4's stored policy from the data dir the suite reads (``LAB_DATA_DIR``,
or ``data/``), loaded once for the module; without it the tests fail and say so. The mão
de onze decisions come from the ``mao_de_onze`` table and its payoffs from
``match_equity`` in the same data dir. Card-play solves (mão de onze after "accept", 11 x
11) use target exploitability 1e-3 (a second or two each) instead of the tables' 1e-4 /
1e-5, as tests/test_sim_vs_tables.py does.

Runtime: about 2 minutes on a busy 2-core machine (the self-play check, 1,000 hands, about
30 s; the sampled frequencies 15 s; two command runs 15 s each; the policy loads in a few
seconds).
"""

import json
import random
import subprocess
import sys
from collections import Counter
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab.cards import DECK, SUITS, level, parse_card, parse_cards
from lab.classes import hand_classes
from lab.ranking import match_equity
from lab.rules import ACCEPT, COVER, PLAY, RAISE, RUN, SURRENDER, Action, new_hand
from lab.sim.bots import SolverBot, make_bot
from lab.sim.view import Table
from lab.policy.base import PolicyError
from lab.tables import TableError

ROOT = Path(__file__).parent.parent
TARGET = 1e-3
"""Target exploitability of the card-play solves here (keep equal to test_sim_vs_tables)."""
VIRA = "4"


@pytest.fixture(scope="module")
def policy():
    from lab.tables.policies import load_full_policy
    from lab.tables import data_dir

    try:
        return load_full_policy(VIRA)
    except TableError as exc:
        pytest.fail(f"the solver bot's tests need vira {VIRA}'s stored full-game policy in "
                    f"{data_dir()} (set LAB_DATA_DIR to a data dir that has it): {exc}")


@pytest.fixture(scope="module")
def strategy(policy):
    from lab.tables.policies import load_full_policy
    from lab.ranking import eleven_accept
    from lab.sim.solver_bot import SolverStrategy

    return SolverStrategy(load_full_policy, eleven_accept, match_equity,
                          cardplay_target=TARGET, eleven_target=TARGET, progress=False)


def deal(rng, vira):
    cards = rng.sample([c for c in DECK if c != vira], 6)
    return cards[:3], cards[3:]


def public_name(action: Action, vira):
    """The policy's name of a rules action (the test's own mapping)."""
    if action.kind == PLAY:
        return ("card", level(action.card, vira))
    if action.kind == COVER:
        return ("cover", level(action.card, vira))
    return action.kind


# ---------------------------------------------------------------- legal, always


SCORES = [(0, 0), (7, 4), (10, 10), (11, 6), (3, 11), (11, 11)]
"""Normal, mão de onze (each seat holding 11) and 11 x 11 scores."""


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), score=st.sampled_from(SCORES),
       suit=st.integers(0, 3), opponent=st.sampled_from(["solver", "random", "cautious",
                                                          "aggressive"]),
       seat=st.integers(0, 1))
def test_the_bot_only_takes_legal_actions(strategy, seed, score, suit, opponent, seat):
    """Either seat, any opponent (the random bot raises, covers in round 3 and surrenders):
    the bot's distribution is over legal actions and sums to 1; it never surrenders and
    never covers its last card."""
    rng = random.Random(seed)
    vira = parse_card(VIRA + SUITS[suit])
    bot = SolverBot(strategy)
    players = [bot, bot]
    if opponent != "solver":
        players[1 - seat] = make_bot(opponent)
    table = Table(new_hand(vira, *deal(rng, vira), score))
    while not table.over:
        s = table.state.to_act
        view = table.view(s)
        if players[s] is bot:
            dist = strategy(view)
            assert set(dist) <= set(view.legal)
            assert abs(sum(dist.values()) - 1.0) < 1e-9 and min(dist.values()) >= 0
            assert SURRENDER not in {a.kind for a in dist}
            if view.round_index == 2:
                assert COVER not in {a.kind for a in dist}
        table.apply(players[s].act(view, rng))


# ---------------------------------------------------------------- the policy, as stored


def test_normal_hands_play_the_stored_policy(strategy, policy):
    """At every turn of a normal hand the bot's distribution is the policy's strategy of
    its dealt class and held cards at the public state the test walks to itself; over the
    hands it raises, re-raises, accepts, runs and covers. Where the opponent led round 3
    face down (outside the solved game) it raises while it may, else accepts, else plays
    its card open."""
    rng = random.Random(12)
    vira = parse_card("4c")
    hc = hand_classes(VIRA)
    bot = SolverBot(strategy)
    taken, compared, off_tree = Counter(), 0, 0
    for k in range(300):
        cards = deal(rng, vira)
        opponent = make_bot(("random", "aggressive", "cautious")[k % 3]) if k % 4 else bot
        players = [bot, opponent] if k % 2 else [opponent, bot]
        table = Table(new_hand(vira, *cards))
        spot = policy.root()
        while not table.over:
            s = table.state.to_act
            view = table.view(s)
            if players[s] is bot:
                dist = strategy(view)
                shown = [p for p in table.state.table if p.seat != s and p.covered]
                if view.round_index == 2 and shown:
                    off_tree += 1
                    want = RAISE if view.can_raise else ACCEPT if view.pending else PLAY
                    assert len(dist) == 1 and next(iter(dist)).kind == want
                else:
                    dealt = hc.class_of_cards(cards[s], vira)
                    state = policy.state_of(dealt, [level(c, vira) for c in view.hand])
                    want = {a: p for a, p in policy.strategy(spot, state).items() if p > 0}
                    got = {public_name(a, vira): p for a, p in dist.items()}
                    assert got.keys() == want.keys()
                    assert all(abs(got[a] - want[a]) < 1e-12 for a in want)
                    compared += 1
            action = players[s].act(view, rng)
            if players[s] is bot:
                taken[action.kind if action.kind != RAISE or view.pending is None
                      else "re-raise"] += 1
            table.apply(action)
            if spot is not None and not table.over:
                try:
                    spot = policy.child(spot, "cover" if action.kind == COVER
                                        else public_name(action, vira))
                except PolicyError:
                    spot = None  # off the solved game (a round-3 cover): the bot needs none
    assert compared > 500
    assert all(taken[k] > 5 for k in (PLAY, COVER, RAISE, ACCEPT, RUN)), taken
    # (a face-down round-3 lead by the opponent, when it happens, was checked above)
    assert taken["re-raise"] > 0 and taken[SURRENDER] == 0, (taken, off_tree)


def find_spot(policy, vira, line, seat, test, tries=3000):
    """A seeded deal whose ``seat`` holding has a strategy satisfying ``test`` after the
    public ``line`` of actions; (cards, strategy)."""
    from lab.policy.line import dealt_state

    rng = random.Random(5)
    spot = policy.root()
    for action in line:
        spot = policy.child(spot, action)
    for _ in range(tries):
        cards = deal(rng, vira)
        sigma = policy.strategy(spot, dealt_state(policy, cards[seat], vira))
        if test(sigma):
            return cards, sigma
    pytest.fail(f"no holding of seat {seat} after {line} passes the test in {tries} deals")


def frequencies(strategy, view, n=2000, seed=9):
    bot, rng = SolverBot(strategy), random.Random(seed)
    picks = Counter(bot.act(view, rng).kind for _ in range(n))
    return {k: v / n for k, v in picks.items()}


def close(freq, p, n=2000):
    return abs(freq - p) <= 4 * np.sqrt(p * (1 - p) / n) + 1e-9


def test_it_raises_and_answers_by_the_policys_probabilities(strategy, policy):
    """Seeded sampling at spots where the policy mixes: the mão's opening truco (rare in
    the solved game: one deal in 3000 of vira 4 opens with a mixed truco, none purely),
    the pé's accept / run against it, and a re-raise; each within 4 standard errors."""
    vira = parse_card("4c")
    cards, sigma = find_spot(policy, vira, [], 0, lambda s: 0 < s.get(RAISE, 0) < 1)
    view = Table(new_hand(vira, *cards)).view()
    f = frequencies(strategy, view)
    assert close(f.get(RAISE, 0.0), sigma[RAISE])
    cards, sigma = find_spot(policy, vira, [RAISE], 1,
                             lambda s: 0.2 < s[ACCEPT] < 0.8 and 0.2 < s[RUN] < 0.8)
    t = Table(new_hand(vira, *cards))
    t.apply(Action(RAISE))
    f = frequencies(strategy, t.view())
    assert close(f.get(ACCEPT, 0.0), sigma[ACCEPT]) and close(f.get(RUN, 0.0), sigma[RUN])
    cards, sigma = find_spot(policy, vira, [RAISE], 1, lambda s: s.get(RAISE, 0) > 0.05)
    t = Table(new_hand(vira, *cards))
    t.apply(Action(RAISE))
    f = frequencies(strategy, t.view())
    assert f.get(RAISE, 0.0) > 0 and close(f.get(RAISE, 0.0), sigma[RAISE])


def test_self_play_reproduces_the_policys_value(policy):
    """lab.ranking.self_play_value, 1,000 hands of vira 4 (about 30 s): the mão's
    mean points per hand has a 95% interval of about +-0.12 and must hold the policy's
    value_mao (exact, from its manifest)."""
    from lab.tables.policies import load_full_policy, policy_info
    from lab.ranking import self_play_value

    result = self_play_value(load_full_policy, parse_card("4h"), 1000, seed=3)
    lo, hi = result["ci95"]
    value = policy_info(VIRA)["value_mao"]
    assert hi - lo < 0.35
    assert lo <= value <= hi, (result, value)
    assert result["how"].get("run", 0) > 100  # the betting is played, not only the cards


# ---------------------------------------------------------------- mão de onze and 11 x 11


def test_mao_de_onze_decision_comes_from_the_table(strategy):
    """The holder (either seat) accepts with the mao_de_onze table's probability for its
    class; without the table provider the bot solves it (the same game, to 1e-3)."""
    from lab.ranking import eleven_accept
    from lab.policy.cardplay import eleven_policy
    from lab.sim.solver_bot import SolverStrategy, class_of

    rng = random.Random(4)
    vira = parse_card("4d")
    solving = SolverStrategy(cardplay_target=TARGET, eleven_target=TARGET,
                             match_equity=match_equity, progress=False)
    gaps = []
    for score in ((11, 6), (3, 11)):
        accept = eleven_accept(VIRA, score)
        solved = eleven_policy(VIRA, score, TARGET, equity=match_equity()).accept
        for _ in range(30):
            view = Table(new_hand(vira, *deal(rng, vira), score)).view()
            assert view.deciding_eleven and view.seat == (0 if score[0] == 11 else 1)
            dist = strategy(view)
            assert dist[Action(ACCEPT)] == pytest.approx(accept[class_of(view)], abs=1e-12)
            own = solving(view)
            assert own[Action(ACCEPT)] == pytest.approx(solved[class_of(view)], abs=1e-12)
            gaps.append(abs(own[Action(ACCEPT)] - dist[Action(ACCEPT)]))
    assert np.mean(gaps) < 0.05  # the table's solve (1e-5) and the test's (1e-3) agree


def test_card_play_after_accepting_and_at_11_11_is_the_card_play_solve(strategy):
    """After "accept", and at 11 x 11, the bot plays the card-play strategy of the solved
    game (the mão de onze game of the score, or the vira's card-play game)."""
    from lab.policy.cardplay import cardplay_policy, eleven_policy
    from lab.sim.solver_bot import cardplay_history

    rng = random.Random(6)
    vira = parse_card("4s")
    hc = hand_classes(VIRA)
    checked = 0
    for score in ((11, 6), (11, 11)):
        for _ in range(20):
            cards = deal(rng, vira)
            table = Table(new_hand(vira, *cards, score))
            if table.view().deciding_eleven:
                table.apply(Action(ACCEPT))
            view = table.view()
            solved = eleven_policy(VIRA, score, TARGET, equity=match_equity()).policy \
                if score != (11, 11) else \
                cardplay_policy(VIRA, TARGET)
            held = tuple(sorted((level(c, vira) for c in view.hand), reverse=True))
            want = solved.strategy(cardplay_history(view), 0,
                                   hc.class_of_cards(cards[0], vira), held)
            got = {("play" if a.kind == PLAY else "cover", level(a.card, vira)): p
                   for a, p in strategy(view).items()}
            assert got == pytest.approx({k: p for k, p in want.items() if p > 0})
            checked += 1
    assert checked == 40


# ---------------------------------------------------------------- errors


def test_a_missing_policy_is_an_error_naming_the_command(tmp_path):
    from lab.tables.policies import load_full_policy
    from lab.sim.solver_bot import solver_bot

    table = Table(new_hand(parse_card("4c"), parse_cards("Kd,6h,2h"), parse_cards("Jd,7s,3s")))
    view = table.view()
    bot = solver_bot(partial(load_full_policy, directory=tmp_path), progress=False)
    with pytest.raises(TableError, match="lab solve policy"):
        bot.act(view, random.Random(1))
    with pytest.raises(ValueError, match="without full-game policies"):
        solver_bot(progress=False).act(view, random.Random(1))


def test_the_commands_build_the_solver_on_the_stored_data():
    from lab.ranking import command_bot, eleven_accept
    from lab.sim.solver_bot import SolverStrategy

    bot = command_bot("solver")
    assert isinstance(bot, SolverBot) and isinstance(bot.strategy, SolverStrategy)
    assert bot.strategy.cardplay_target == 1e-4 and bot.strategy.eleven_target == 1e-5
    assert bot.strategy.match_equity is match_equity
    assert bot.strategy.eleven_accept is eleven_accept
    with pytest.raises(ValueError, match="command_bot"):
        make_bot("solver")   # the simulator reads no table: it cannot build this bot
    with pytest.raises(ValueError, match="random, cautious, aggressive, solver"):
        make_bot("smart")


# ---------------------------------------------------------------- the commands


def lab(*args, stdin="", env=None):
    proc = subprocess.run([sys.executable, "-m", "lab", *args], input=stdin,
                          capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def test_lab_simulate_with_the_solver_bot():
    """At 11 x 11 a match is one hand, so the run needs one card-play solve."""
    code, out, err = lab("simulate", "--a", "solver", "--b", "random", "--matches", "2",
                         "--seed", "3", "--start", "11,11", "--quiet")
    assert code == 0, err
    result = json.loads(out)
    assert result["a"] == "solver" and result["matches"] == 2 and result["hands"] == 2
    assert result["a_wins"] + result["b_wins"] == 2


def test_lab_simulate_without_a_policy_names_the_command(tmp_path):
    import os

    env = dict(os.environ, LAB_DATA_DIR=str(tmp_path))
    code, out, err = lab("simulate", "--a", "solver", "--b", "random", "--matches", "2",
                         "--seed", "1", "--quiet", env=env)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("error: ") and "lab solve policy" in err


def test_lab_play_against_the_solver_bot():
    """The bot leads an 11 x 11 hand (one solve), says what it is, and the person gives up."""
    code, out, err = lab("play", "--bot", "solver", "--target", "1", "--first", "bot",
                         "--seed", "5", stdin="surrender\n")
    assert code == 0, err
    assert "stored full-game policy" in out
    assert out.count("bot: ") == 1 and "you: surrender" in out
    assert out.rstrip().endswith("The bot wins the match 12-11 after 1 hands.")
    code, out, _ = lab("play", "--help")
    assert "solver" in out and "stored full-game policy" in " ".join(out.split())
