"""The bot ranking (lab.ranking, ``lab rank``): exact figures against a brute force, and the
command's contract.

On a reduced game (toy deck (2, 2, 2, 1), ladder 1-3-6; a 30-iteration solve, about 1 s)
the ranking's exact figures for the tabulated bots (the solver's policy and the uniform
policy) must equal what a plain-Python walk of the reference game
(:class:`lab.solver.fullgame.game.FullGame`, one public node per public history) computes:
each seat's best-response value against the bot, and the mão's value when one policy
plays the mão and another the pé. That walk is written here and shares nothing with the
kernels but the policy's own lookups (``FullPolicy.strategy``).

The command is run on the data dir the suite reads (``LAB_DATA_DIR``, or ``data/``); it
needs vira 4's stored policy and fails, saying so, without it. Runtime: about 40 s for the
toy checks (numba compiles the solver's traversal twice, about 15 s each; the brute force
takes about 10 s) and 20 s for the command runs.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lab.solver.games.cardplay_game import COVER, decided
from lab.solver.fullgame.game import FullGame

ROOT = Path(__file__).parent.parent
TOY = dict(toy_cap=(3, 3, 1), ladder=(1, 3, 6))


@pytest.fixture(scope="module")
def toy():
    from lab.solver.fullgame.solver import FullSolver, config_for
    from lab.solver.fullgame.compact import compact_policy
    from lab.solver.fullgame.policy import FullPolicy

    cfg = config_for(**TOY)
    solver = FullSolver(cfg).allocate()
    solver.iterate(30)
    q, keys, _ = compact_policy(solver, 0.01)
    return FullPolicy(cfg, q, keys=keys), FullGame(**TOY)


# ---------------------------------------------------------------- the brute force


def policy_rule(policy):
    """The strategy of a stored policy: ``{action: p}`` at (spot, reference state)."""
    def rule(spot, game, state, moves):
        levels = game.cards.state_held[state]
        return policy.strategy(spot, policy.state_of(game.cards.state_class[state], levels))
    return rule


def uniform_rule(spot, game, state, moves):
    """Every action the state has here (each card level open, each level covered, raise,
    accept, run) with equal probability."""
    return {m: 1.0 / len(moves) for m in moves}


def move_name(game, action, frm, to):
    """The policy's name of a reference move: ("card", level), ("cover", level) or a word."""
    if not isinstance(action, tuple):
        return action
    if action[1] != COVER:
        return ("card", int(action[1]))
    before = list(game.cards.state_held[frm])
    for lv in game.cards.state_held[to]:
        before.remove(lv)
    return ("cover", int(before[0]))


def walk(game, policy, rules, u, spot=None, pub=None, priv=None, reach=None):
    """Seat ``u``'s values (deal weight times points, summed over the other seat's states)
    for each of his private states ``priv[u]``. ``rules[seat]`` is a strategy rule, or None
    for a best response of ``u``. ``reach[o]``: the other seat's own reach."""
    o = 1 - u
    if pub is None:
        spot, pub = policy.root(), game.root()
        priv = [np.asarray(game.root_states(0)), np.asarray(game.root_states(1))]
        reach = [np.ones(len(priv[0])), np.ones(len(priv[1]))]
    actor = game.actor(pub)
    W = game.deal_weights() if u == 0 else game.deal_weights().T
    hu, ho = game.cards.state_class[priv[u]], game.cards.state_class[priv[o]]
    if actor is None:
        card_pub, bet, end = pub
        winner, k = (end[1], end[2]) if end is not None else (decided(card_pub[0]), bet.value)
        points = game.ladder[k] * (1 if winner == u else -1)
        return points * (W[np.ix_(hu, ho)] @ reach[o])
    moves = game.moves(pub, priv[actor])
    per_state = {}
    for action, frm, to in moves:
        for f, t in zip(frm, to):
            per_state.setdefault(int(f), []).append(move_name(game, action, priv[actor][f], t))
    dist = {}
    for i, names in per_state.items():
        rule = rules[actor]
        if rule is None or reach[actor][i] == 0:  # a best response, or never here
            continue
        dist[i] = rule(spot, game, int(priv[actor][i]), names)
    best = np.full(len(priv[u]), -np.inf)
    total = np.zeros(len(priv[u]))
    for action, frm, to in moves:
        names = [move_name(game, action, priv[actor][f], t) for f, t in zip(frm, to)]
        child_pub = game.child(pub, action)
        public = "cover" if isinstance(action, tuple) and action[1] == COVER else names[0]
        child_spot = policy.child(spot, public)
        p = np.array([dist[f].get(n, 0.0) if f in dist else 0.0 for f, n in zip(frm, names)])
        cpriv, creach = list(priv), list(reach)
        cpriv[actor] = np.asarray(to)
        creach[actor] = reach[actor][frm] * p if rules[actor] is not None else np.ones(len(to))
        keep = [np.arange(len(cpriv[0])), np.arange(len(cpriv[1]))]
        for seat in (0, 1):
            mask = game.consistent(child_pub, seat, cpriv[seat])
            if mask is not None:
                keep[seat] = np.flatnonzero(mask)
                cpriv[seat], creach[seat] = cpriv[seat][keep[seat]], creach[seat][keep[seat]]
        if not len(cpriv[0]) or not len(cpriv[1]):
            continue
        sub = walk(game, policy, rules, u, child_spot, child_pub, cpriv, creach)
        value = np.zeros(len(to) if actor == u else len(priv[u]))
        value[keep[u]] = sub
        if actor == o:
            total += value
        elif rules[u] is None:
            np.maximum.at(best, frm, value)
        else:
            np.add.at(total, frm, p * value)
    if actor == u and rules[u] is None:
        return np.where(np.isfinite(best), best, 0.0)
    return total


def brute_best_response(game, policy, rule) -> tuple[float, float]:
    return tuple(float(walk(game, policy, [None, rule] if u == 0 else [rule, None], u).sum())
                 for u in (0, 1))


def brute_value(game, policy, rule_mao, rule_pe) -> float:
    return float(walk(game, policy, [rule_mao, rule_pe], 0).sum())


# ---------------------------------------------------------------- exact figures


def test_exploitability_of_tabulated_bots_is_the_brute_force_best_response(toy):
    from lab.ranking import best_response_values, exploitability, uniform_q

    policy, game = toy
    for q, rule in ((policy.q, policy_rule(policy)), (uniform_q(policy), uniform_rule)):
        brute = brute_best_response(game, policy, rule)
        assert best_response_values(policy, q) == pytest.approx(brute, abs=1e-9)
        assert exploitability(policy, q) == pytest.approx(0.5 * sum(brute), abs=1e-9)
    # the uniform policy is far easier to beat than a (short) solve
    assert exploitability(policy, uniform_q(policy)) > exploitability(policy, policy.q) + 0.1


def test_points_against_the_solver_mix_one_seat_from_each_policy(toy):
    from lab.ranking import ev_against, seat_mixed, uniform_q, value_mao

    policy, game = toy
    uq = uniform_q(policy)
    solved, uniform = policy_rule(policy), uniform_rule
    assert value_mao(policy, uq, policy.q) == pytest.approx(
        brute_value(game, policy, uniform, solved), abs=1e-9)
    assert value_mao(policy, policy.q, uq) == pytest.approx(
        brute_value(game, policy, solved, uniform), abs=1e-9)
    assert value_mao(policy, policy.q, policy.q) == pytest.approx(policy.solver().value(),
                                                                   abs=1e-12)
    assert ev_against(policy, policy.q, policy.q) == pytest.approx(0.0, abs=1e-12)
    assert ev_against(policy, uq, policy.q) < -0.1
    mixed = seat_mixed(policy, uq, policy.q)  # every slot is one seat's: both halves
    assert ((mixed == 0) | (mixed == policy.q)).all() and (mixed != policy.q).any()
    assert (mixed != 0).any()


# ---------------------------------------------------------------- the command


def lab(*args, env=None):
    proc = subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env=env)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def stored():
    from lab.tables.policies import stored_viras

    if "4" not in stored_viras():
        pytest.fail("lab rank's tests need vira 4's stored full-game policy in the data dir "
                    f"(LAB_DATA_DIR={os.environ.get('LAB_DATA_DIR', 'data/')}); build it with "
                    "`lab solve policy --vira 4 --checkpoints DIR`")


def test_rank_json_is_one_entry_per_bot(stored):
    code, out, err = lab("rank", "--vira", "4", "--json", "--hands", "20", "--seed", "3",
                         "--bot", "solver", "--bot", "random", "--bot", "cautious")
    assert code == 0, err
    rows = json.loads(out)
    assert isinstance(rows, list) and [r["bot"] for r in rows][0] == "solver"
    assert {r["bot"] for r in rows} == {"solver", "random", "cautious"}
    for r in rows:
        assert {"bot", "exploitability", "ev_vs_solver", "exact"} <= set(r)
        assert isinstance(r["ev_vs_solver"], float) and isinstance(r["exact"], bool)
    by = {r["bot"]: r for r in rows}
    from lab.tables.policies import policy_info

    assert by["solver"]["exact"] and by["solver"]["ev_vs_solver"] == 0.0
    assert by["solver"]["exploitability"] == pytest.approx(policy_info("4")["exploitability"])
    for name in ("random", "cautious"):
        r = by[name]
        assert not r["exact"] and r["exploitability"] is None
        lo, hi = r["ci95"]
        assert lo < r["ev_vs_solver"] < hi and r["hands"] == 20
    assert by["random"]["ev_vs_solver"] < 0  # it surrenders and runs at random
    # the same seed gives the same figures
    assert json.loads(lab("rank", "--vira", "4", "--json", "--hands", "20", "--seed", "3",
                          "--bot", "random")[1])[0] == by["random"]


def test_rank_readable_table(stored):
    code, out, err = lab("rank", "--vira", "4", "--hands", "4", "--bot", "solver",
                         "--bot", "aggressive")
    assert code == 0, err
    assert "solver" in out and "aggressive" in out and "simulated" in out


@pytest.mark.parametrize("args, words", [
    (("--vira", "X"), "unknown vira"),
    (("--hands", "1"), "--hands"),
    (("--hands", "many"), "--hands"),
    (("--seed", "-2"), "seed"),
    (("--bot", "smart"), "unknown bot"),
])
def test_rank_bad_input_is_one_error_line(args, words):
    code, out, err = lab("rank", "--json", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and words in err


def test_rank_without_a_policy_names_the_command_that_builds_it(tmp_path):
    env = dict(os.environ, LAB_DATA_DIR=str(tmp_path))
    code, out, err = lab("rank", "--json", env=env)
    assert code == 2 and out == "" and "lab solve policy" in err and err.count("\n") == 1


def test_the_table_is_written_and_read_back(stored, tmp_path):
    """``lab rank --write`` writes through write_ranking: the rows read back through
    lab.tables (manifest checked), and a later vira's rows would be kept beside them."""
    import pandas as pd

    from lab.ranking import COLUMNS, summary, write_ranking
    from lab.tables import load_table, read_manifest

    frame = pd.DataFrame([
        {"vira": "4", "bot": "solver", "exploitability": 0.07, "ev_vs_solver": 0.0,
         "exact": True, "ci95_lo": None, "ci95_hi": None, "hands": 0, "method": "exact"},
        {"vira": "4", "bot": "random", "exploitability": None, "ev_vs_solver": -1.0,
         "exact": False, "ci95_lo": -1.1, "ci95_hi": -0.9, "hands": 1000,
         "method": "simulated"}], columns=list(COLUMNS))
    write_ranking(frame, directory=tmp_path)
    back = load_table("bot_ranking", viras=["4"], directory=tmp_path)
    assert list(back["bot"]) == ["solver", "random"] and back["exact"].tolist() == [True, False]
    manifest = read_manifest("bot_ranking", tmp_path)
    assert manifest["rebuild"] == "lab rank --write" and list(manifest["viras"]) == ["4"]
    entries = summary(back)
    assert [e["bot"] for e in entries] == ["solver", "random"]
    assert entries[1]["ci95"] == pytest.approx([-1.1, -0.9])
