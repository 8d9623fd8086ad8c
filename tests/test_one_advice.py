"""One advice service: every surface gives the same strategy, values and model.

Random positions of every score kind (normal scores, the re-solved end-game scores, mão de
onze, 11 x 11; the actions before drawn at random, so on and off the solved path) are
asked of the advice service (:func:`lab.advice.advice_for`) and of each surface that
answers the same question: the public ``lab.advise``, the command line (a few, each a
process), the coach of ``lab play``, the hand explorer's play-forward (its strategy and
exact values) and the solver bot (its strategy, where the solved strategy holds the
hand). The positions use two viras and, at mão de onze, four scores, so that a fresh
machine expands few policies and solves few mão de onze games.
"""

import json
import random
import subprocess
import sys

import numpy as np
import pytest

import lab
from lab.advice import AdviceError, advice_for
from lab.bench.advise import KINDS, position_tokens, random_deal
from lab.cards import level
from lab.rules import COVER, ELEVEN, NORMAL, PLAY, SEAT_NAMES

VIRAS = ("4", "7")
ELEVEN_SCORES = ((11, 0), (11, 9), (4, 11), (10, 11))
POSITIONS = 300


def positions():
    rng = random.Random(20261206)
    out = []
    for i in range(POSITIONS):
        kind = KINDS[i % len(KINDS)]
        out.append((kind, *random_deal(rng, kind, viras=VIRAS, scores=((10, 9), (9, 10)),
                                       eleven_scores=ELEVEN_SCORES)))
    return out


ASKED = positions()


def answer(position):
    try:
        return advice_for(position)
    except AdviceError as exc:
        return str(exc)


@pytest.fixture(scope="module")
def answers():
    return [answer(position) for _, position, _, _ in ASKED]


def move_key(action, vira):
    """A move as the solver sees it: its kind and, for a card, its level."""
    return (action.kind, level(action.card, vira)) if action.kind in (PLAY, COVER) \
        else action.kind


def by_level(legal, probabilities, vira):
    """Probability per move kind and card level (two cards of one level are one move)."""
    out = {}
    for action, p in zip(legal, probabilities):
        key = move_key(action, vira)
        out[key] = out.get(key, 0.0) + p
    return out


def test_the_positions_cover_every_kind_on_and_off_the_path(answers):
    given = [a for a in answers if not isinstance(a, str)]
    models = {a.model for a in given}
    assert {"full-game-points", "full-game-score-aware", "mao-de-onze-exact",
            "eleven-eleven-exact"} <= models
    assert any(not a.on_path for a in given) and sum(a.on_path for a in given) > POSITIONS // 2


def test_the_public_api_and_the_coach_give_the_services_answer(answers):
    from lab.commands.play import Coach

    coach = Coach(term=None)
    for (kind, position, state, history), advice in zip(ASKED, answers):
        tokens = position_tokens(position)
        actions = tokens[tokens.index("--score") + 2:]
        seat = SEAT_NAMES[position.seat].replace("ã", "a").replace("é", "e")
        if isinstance(advice, str):
            with pytest.raises(ValueError):
                lab.advise(str(position.vira), list(position.hand), seat, position.score,
                           actions)
            continue
        assert lab.advise(str(position.vira), list(position.hand), seat, position.score,
                          actions) == advice.as_json()
        seen = [(who, a) for who, a in position.history]
        coached = coach.advise(position.hand, position.seat, position.state, seen)
        assert coached == advice


def test_the_command_line_prints_the_services_answer(answers):
    """One position of each kind (each a fresh process)."""
    done = set()
    for (kind, position, _, _), advice in zip(ASKED, answers):
        if isinstance(advice, str) or kind in done:
            continue
        out = subprocess.run([sys.executable, "-m", "lab", "advise", "--json",
                              *position_tokens(position)], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout) == json.loads(json.dumps(advice.as_json()))
        done.add(kind)
    assert done == set(KINDS)


def test_the_hand_explorers_play_forward_gives_the_services_strategy_and_values(answers):
    from lab.dashboards.hand_play import HandPlay, compute_values, hand_values
    from lab.policy.line import rules_action
    from lab.tables.policies import load_full_policy
    from lab.tables.score_policies import load_score_policy

    checked = 0
    for (kind, position, _, _), advice in zip(ASKED, answers):
        if isinstance(advice, str) or position.state.kind != NORMAL:
            continue
        vira = position.vira
        policy = load_score_policy(vira, position.score) or load_full_policy(vira)
        seen = [(who, a) for who, a in position.history]
        play = HandPlay(policy, vira, position.hand, position.seat, seen)
        compute_values(policy, play.line, play.pair())
        values = hand_values(play)
        mine = {move_key(a, vira): v for a, v in zip(advice.legal, advice.ev)}
        assert values
        for move, value in values.items():
            key = move_key(rules_action(move, play.in_hand, vira), vira) \
                if isinstance(move, tuple) else move
            assert policy.seat_value(position.seat, value) == mine[key]
        strategy = play.strategy()
        assert (strategy is not None) == advice.on_path
        if strategy is not None:
            ours = by_level(advice.legal, advice.strategy, vira)
            for move, p in strategy.items():
                key = move_key(rules_action(move, play.in_hand, vira), vira) \
                    if isinstance(move, tuple) else move
                assert ours.get(key, 0.0) == pytest.approx(p, abs=1e-12)
        checked += 1
    assert checked >= POSITIONS // 4


def test_the_solver_bot_plays_the_services_strategy(answers):
    from lab.ranking import eleven_accept, match_equity
    from lab.sim.solver_bot import SolverStrategy
    from lab.sim.view import Table
    from lab.tables.policies import load_full_policy
    from lab.tables.score_policies import load_score_policy

    bot = SolverStrategy(policies=load_full_policy, score_policies=load_score_policy,
                         eleven_accept=eleven_accept, match_equity=match_equity,
                         progress=False)
    checked = set()
    for (kind, position, state, history), advice in zip(ASKED, answers):
        if isinstance(advice, str) or not advice.on_path:
            continue
        table = Table(_dealt(state, history))
        for _, action in history:
            table.apply(action)
        plays = bot(table.view())
        vira = position.vira
        ours = by_level(advice.legal, advice.strategy, vira)
        theirs = by_level(list(plays), list(plays.values()), vira)
        # the mão de onze decision: the bot reads the mao_de_onze table's accept
        # probability, stored in float32; the adviser's solve is the table's, in float64
        tolerance = 1e-6 if position.state.kind == ELEVEN and not position.history else 1e-9
        for key in set(ours) | set(theirs):
            assert theirs.get(key, 0.0) == pytest.approx(ours.get(key, 0.0), abs=tolerance), \
                (kind, key)
        checked.add(advice.model)
    assert {"full-game-points", "full-game-score-aware", "mao-de-onze-exact",
            "eleven-eleven-exact"} <= checked


def _dealt(state, history):
    """The rules state at the deal of the hand ``state`` came to after ``history``."""
    from lab.rules import new_hand

    hands = [list(h) for h in state.hands]
    for seat, action in history:
        if action.kind in (PLAY, COVER):
            hands[seat].append(action.card)
    return new_hand(state.vira, tuple(hands[0]), tuple(hands[1]), state.score)


FAST_POSITIONS = 200
FAST_AT_THE_DEAL = 10
"""Positions of vira 4 whose fast values are checked against the whole game's walk (those
at the deal capped: each reference walk there covers a tenth of the game)."""


def test_fast_values_equal_the_walk_of_the_whole_game():
    """The advice's values (kept for the deal and the first card, else a walk of the card
    node's subtree on the policy expanded for it alone) equal, to 1e-9, one masked walk of
    the policy expanded whole from the asked spot, on 200 positions of vira 4 (points
    and score-aware) on and off the solved path."""
    from lab.policy import values
    from lab.policy.line import follow
    from lab.tables.policies import load_full_policy
    from lab.tables.score_policies import load_score_policy

    rng = random.Random(7)
    done, at_deal, depths = 0, 0, set()
    while done < FAST_POSITIONS:
        kind = "normal" if done % 4 else "re-solved"
        position, _, _ = random_deal(rng, kind, viras="4", scores=((10, 9),))
        policy = load_score_policy(position.vira, position.score) \
            or load_full_policy(position.vira)
        seen = [(who, a) for who, a in position.history]
        try:
            line = follow(policy, position.vira, seen, {position.seat: position.hand})
        except ValueError:
            continue
        if line.over or policy.actor(line.line.spot) != position.seat:
            continue
        spot = line.line.spot
        if spot.card == 0:
            if at_deal == FAST_AT_THE_DEAL:
                continue
            at_deal += 1
        i = policy.pair_of(spot.card, position.seat, line.states[position.seat])
        acts, fast = line.line.action_values(position.seat, i)
        whole = policy.solver()
        values.walk_values(policy, whole, line.line, position.seat, i)
        want_acts, want = values.read_values(policy, whole, line.line, position.seat)
        assert acts == want_acts
        np.testing.assert_allclose(fast[:, i], want[:, i], rtol=0, atol=1e-9)
        depths.add(int(policy.tree.depth[spot.card]))
        done += 1
    assert depths >= {0, 1, 2, 3}
