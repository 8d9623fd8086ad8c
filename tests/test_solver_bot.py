"""The solver bot (lab.sim.solver_bot): its moves are the solver's, and self-play reproduces
the solved card-play value (cross-check A).

Solves use target exploitability 1e-3 (win probability; about 16 iterations, a second or
two per vira) instead of the tables' 1e-4: the value of a strategy that far from the
equilibrium differs from the equilibrium value by at most about 1e-3, a tenth of the
sampling interval of the cross-check (+-0.01). The bot's solves are cached per process,
keyed by their settings, and tests/test_sim_vs_tables.py uses the same settings: run
together, the two files solve each vira once.
"""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from lab.cards import DECK, level, parse_card, parse_cards
from lab.classes import hand_classes
from lab.rules import ACCEPT, PLAY, RAISE, RUN, SURRENDER, Action, new_hand, parse_action
from lab.sim.bots import RandomBot, SolverBot, make_bot
from lab.sim.hands import hand_summary, sample_hands
from lab.sim.solver_bot import (CHECK_EVERY, RAISE_ACCEPT_EQUITY, SolverStrategy,
                                cardplay_policy, dealt_levels, eleven_policy,
                                match_equity_array, solver_bot)
from lab.sim.view import Table
from lab.solver.cardplay import COVER as COVERED
from lab.solver.cardplay import solve_cardplay
from lab.tables import load_table

ROOT = Path(__file__).parent.parent
TARGET = 1e-3
"""Target exploitability of every solve here (keep equal to test_sim_vs_tables.TARGET)."""


@pytest.fixture(scope="module")
def strategy():
    return SolverStrategy(cardplay_target=TARGET, eleven_target=TARGET, progress=False)


@pytest.fixture(scope="module")
def solution():
    """The full card-play solution of vira 4 (solver kept), with the bot's solve settings."""
    return solve_cardplay("4", target_exploitability=TARGET, first_check=CHECK_EVERY,
                          check_every=CHECK_EVERY)


@pytest.fixture(scope="module")
def eleven_solution():
    """The mão de onze of vira 4 at 11,10 (the mão holds 11) with the table's match payoffs,
    solver kept."""
    from lab.match import eleven_payoffs
    from lab.solver.eleven import solve_eleven

    pay = eleven_payoffs(match_equity_array(), (11, 10))
    return solve_eleven("4", pay.holder, pay.mao_wins, pay.pe_wins, pay.holder_runs,
                        target_exploitability=TARGET, keep_solution=True)


def true_history(state):
    """The card-play history from the full state (the test's own mapping, not the bot's)."""
    return tuple(COVERED if p.covered else level(p.card, state.vira) for p in state.plays)


def by_move(dist, view):
    """{(play|cover, level): probability} of a distribution over rules actions."""
    out = {}
    for action, p in dist.items():
        key = ("play" if action.kind == PLAY else "cover", view.level(action.card))
        out[key] = out.get(key, 0.0) + p
    return out


def same(a, b, tol=1e-6):
    keys = {k for k in set(a) | set(b) if a.get(k, 0.0) > tol or b.get(k, 0.0) > tol}
    return all(abs(a.get(k, 0.0) - b.get(k, 0.0)) <= tol for k in keys)


def walk(strategy, vira, hands, score, seed, opponents):
    """Deal ``hands`` hands of ``vira`` at ``score``; the solver strategy plays one or both
    seats against ``opponents``. Yields (view, the solver's distribution, dealt class of the
    seat, full state) at each solver turn."""
    rng = random.Random(seed)
    bot = SolverBot(strategy)
    rest = [c for c in DECK if c != vira]
    hc = hand_classes(vira.rank)
    for k in range(hands):
        cards = rng.sample(rest, 6)
        state = new_hand(vira, cards[:3], cards[3:], score)
        dealt = [hc.class_of_cards(cards[:3], vira), hc.class_of_cards(cards[3:], vira)]
        players = [bot, bot]
        other = opponents[k % len(opponents)]
        if other is not None:
            players[(k // 2) % 2] = other
        table = Table(state)
        while not table.over:
            seat = table.state.to_act
            view = table.view(seat)
            if players[seat] is bot:
                dist = strategy(view)
                yield view, dist, dealt[seat], table.state
            table.apply(players[seat].act(view, rng))


def test_moves_are_legal_and_are_the_solvers_strategy_at(strategy, solution):
    """At every turn of the bot (against itself and against the random bot, which covers,
    raises and runs), its distribution is over legal moves, never raises nor surrenders,
    and is CardplaySolution.strategy_at for the true history and dealt class (rounds 1-2);
    in round 3 it plays its last card face up, as strategy_at says."""
    compared = covered = round3 = answers = 0
    for view, dist, dealt, state in walk(strategy, parse_card("4c"), 300, (0, 0), 5,
                                         [None, RandomBot()]):
        assert set(dist) <= set(view.legal)
        assert abs(sum(dist.values()) - 1.0) < 1e-9 and min(dist.values()) >= 0
        assert not {a.kind for a in dist} & {RAISE, SURRENDER}
        if view.pending is not None:
            answers += 1
            assert len(dist) == 1 and next(iter(dist)).kind in (ACCEPT, RUN)
            continue
        hist = true_history(state)
        held = tuple(sorted((view.level(c) for c in view.hand), reverse=True))
        expected = solution.strategy_at(hist, view.seat, dealt, held=held)
        assert same(by_move(dist, view), expected), (hist, view.seat, dealt, held)
        compared += 1
        covered += COVERED in hist
        round3 += len(view.hand) == 1
    assert compared > 900 and covered > 20 and round3 > 50 and answers > 20


def test_strategy_at_without_held_agrees(strategy, solution):
    """Before any cover the held levels follow from the class: strategy_at without ``held``."""
    hc = hand_classes("4")
    policy = cardplay_policy("4", TARGET)
    for cls in range(0, hc.n, 7):
        held = tuple(int(x) for x in hc.levels[cls])
        assert same(policy.strategy((), 0, cls, held), solution.strategy_at([], 0, cls))
    assert policy.value == pytest.approx(solution.value, abs=1e-9)  # the same solve


def test_mao_de_onze_decision_and_card_play(strategy, eleven_solution):
    """At 11,10 (the mão holds 11) the bot accepts with the solved probability of its class
    and both seats then play the solved game's strategy after "accept"; its accept rate is
    the table's (mao_de_onze, solved to 1e-5) within 0.01."""
    sol = eleven_solution
    solver, tree = sol.cardplay.solver, sol.cardplay.solver.tree
    from lab.solver.cardplay import _game, game_state_id

    game = _game("4")
    decisions = plays = 0
    for view, dist, dealt, state in walk(strategy, parse_card("4c"), 200, (11, 10), 9, [None]):
        if view.deciding_eleven:
            assert view.seat == 0
            assert dist[Action(ACCEPT)] == pytest.approx(sol.accept[dealt], abs=1e-6)
            decisions += 1
            continue
        if len(view.hand) == 1:
            continue
        hist = true_history(state)
        held = tuple(sorted((view.level(c) for c in view.hand), reverse=True))
        node = tree.node_of(("accept",) + hist)
        moves = solver.strategy_of(node, view.seat, game_state_id(game, dealt, held))
        expected = {}
        for action, nxt, p in moves:
            if action == COVERED:
                rest = list(held)
                for lv in game.state_held[nxt]:
                    rest.remove(lv)
                key = ("cover", rest[0])
            else:
                key = ("play", int(action))
            expected[key] = expected.get(key, 0.0) + p
        assert same(by_move(dist, view), expected)
        plays += 1
    assert decisions == 200 and plays > 150
    table = load_table("mao_de_onze", viras=["4"])
    rows = table[(table["score"] == "11,10") & (table["seat"] == "mao")]
    hc = hand_classes("4")
    ours = float(hc.weight @ eleven_policy("4", (11, 10), TARGET).accept)
    theirs = float((rows["weight"] * rows["accept"]).sum())
    assert abs(ours - theirs) < 0.01


def raise_answer(strategy, vira, mao, pe, before=()):
    t = Table(new_hand(parse_card(vira), parse_cards(mao), parse_cards(pe)))
    for token in before:
        t.apply(parse_action(token))
    t.apply(Action(RAISE))
    view = t.view()
    return view, strategy(view)


def test_the_answer_to_a_raise_is_the_documented_heuristic(strategy):
    """Not solved: accept when the card-play equity of the dealt class for the seat is at
    least 0.5, else run; a covered card counts as level 0."""
    policy = cardplay_policy("4", TARGET)
    hc = hand_classes("4")
    # the pé holds zap, copas, espadilha (vira 4: the 5s are manilhas): accept
    view, dist = raise_answer(strategy, "4c", "4h,4s,6d", "5c,5h,5s")
    assert view.pending == 3 and dist == {Action(ACCEPT): 1.0}
    # the pé holds two 4s and a 6: run
    view, dist = raise_answer(strategy, "4c", "5c,5h,5s", "4h,4s,6d")
    assert dist == {Action(RUN): 1.0}
    assert policy.equity[1, hc.index_of((0, 0, 2))] < RAISE_ACCEPT_EQUITY
    # the pé won round 1 with a K, covered the 6 in round 2; the mão raises in round 3
    view, dist = raise_answer(strategy, "4c", "Qd,3h,7s", "Ks,2d,6h",
                              before=("Qd", "Ks", "cover:6h", "7s"))
    levels, exact = dealt_levels(view)
    assert not exact and levels == (view.level(parse_card("2d")), view.level(parse_card("Ks")), 0)
    equity = policy.equity[1, hc.index_of(levels)]
    assert dist == {Action(ACCEPT if equity >= RAISE_ACCEPT_EQUITY else RUN): 1.0}


def test_self_play_reproduces_the_solved_card_play_value(strategy):
    """Cross-check A: the bot against itself, 10,000 hands of vira 4 and of vira K; the
    mão's win rate has a 95% Wilson interval of about +-0.0097 and must contain the value
    of the solve the bot plays and the cardplay_summary table's value (solved to 1e-4).

    Measured (seed 11): vira 4: 0.4440 in [0.4343, 0.4538], solved 0.4458 (exploitability
    9.9e-4; table 0.4460); vira K: 0.4458 in [0.4361, 0.4556], solved 0.4465 (table 0.4467)."""
    bot = SolverBot(strategy)
    summary = load_table("cardplay_summary").set_index("vira")["value_mao"]
    for vira in ("4c", "Kc"):
        frame = sample_hands(bot, bot, 10_000, seed=11, vira=parse_card(vira))
        assert (frame["how"] == "cards").all() and (frame["points"] == 1).all()
        result = hand_summary(frame)
        lo, hi = result["mao_win_ci95"]
        assert hi - lo < 0.02
        solved = cardplay_policy(vira[0], TARGET).value
        assert lo <= solved <= hi, (vira, result, solved)
        assert lo <= summary[vira[0]] <= hi


def test_make_bot_knows_the_solver():
    bot = make_bot("solver")
    assert isinstance(bot, SolverBot) and isinstance(bot.strategy, SolverStrategy)
    assert bot.strategy.cardplay_target == 1e-4 and bot.strategy.eleven_target == 1e-5
    with pytest.raises(ValueError, match="random, cautious, aggressive, solver"):
        make_bot("smart")
    assert isinstance(solver_bot(TARGET).strategy, SolverStrategy)


def lab(*args, stdin=""):
    proc = subprocess.run([sys.executable, "-m", "lab", *args], input=stdin,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def test_lab_simulate_with_the_solver_bot():
    """At 11 x 11 a match is one hand, so the run needs one solve."""
    code, out, err = lab("simulate", "--a", "solver", "--b", "random", "--matches", "2",
                         "--seed", "3", "--start", "11,11", "--quiet")
    assert code == 0, err
    result = json.loads(out)
    assert result["a"] == "solver" and result["matches"] == 2 and result["hands"] == 2
    assert result["a_wins"] + result["b_wins"] == 2


def test_lab_play_against_the_solver_bot():
    """The bot leads an 11 x 11 hand (one solve), says what it is, and the person gives up."""
    code, out, err = lab("play", "--bot", "solver", "--target", "1", "--first", "bot",
                         "--seed", "5", stdin="surrender\n")
    assert code == 0, err
    assert "heuristic, NOT solved" in out
    assert out.count("bot: ") == 1 and "you: surrender" in out
    assert out.rstrip().endswith("The bot wins the match 12-11 after 1 hands.")
    code, out, _ = lab("play", "--help")
    assert "solver" in out and "NOT" in out and "solved" in out
