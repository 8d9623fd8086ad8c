"""The bot ranking (lab.ranking, ``lab rank``): exact figures against a brute force, and the
command's contract.

On a reduced game (toy deck (2, 2, 2, 1), ladder 1-3-6; a 30-iteration solve, about 1 s)
the ranking's exact figures for the tabulated bots (the solver's policy and the uniform
policy) must equal what a plain-Python walk of the reference game
(:class:`lab.solver.fullgame.game.FullGame`, one public node per public history) computes:
each seat's best-response value against the bot, and the mão's value when one policy
plays the mão and another the pé. That walk is written here and shares nothing with the
kernels but the policy's own lookups (``FullPolicy.strategy``).

The command recomputes (``--recompute``) on the data dir the suite reads (``LAB_DATA_DIR``,
or ``data/``); it needs vira 4's stored policy and fails, saying so, without it. Without
``--recompute`` it prints the stored ``bot_ranking`` table: checked here on a temporary copy
of that table against its parquet file read with pandas alone, and on a made-up table for
what it cannot serve. Runtime: about 40 s for the toy checks (numba compiles the solver's
traversal twice, about 15 s each; the brute force takes about 10 s) and 20 s for the
command runs.
"""

import json
import math
import os
import shutil
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
    from lab.policy.full import FullPolicy

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
    code, out, err = lab("rank", "--recompute", "--vira", "4", "--json", "--hands", "20",
                         "--seed", "3", "--bot", "solver", "--bot", "random", "--bot",
                         "cautious")
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
    assert json.loads(lab("rank", "--recompute", "--vira", "4", "--json", "--hands", "20",
                          "--seed", "3", "--bot", "random")[1])[0] == by["random"]
    # the estimate of the time, on stderr before the work
    assert "ranking 3 bots on 1 vira: about" in err


def test_rank_readable_table(stored):
    code, out, err = lab("rank", "--recompute", "--vira", "4", "--hands", "4", "--bot",
                         "solver", "--bot", "aggressive")
    assert code == 0, err
    assert "solver" in out and "aggressive" in out and "simulated" in out


@pytest.mark.parametrize("args, words", [
    (("--vira", "X"), "unknown vira"),
    (("--hands", "1"), "--hands"),
    (("--hands", "many"), "--hands"),
    (("--seed", "-2"), "seed"),
    (("--bot", "smart"), "unknown bot"),
    (("--hands", str(10**20)), "at most 100000"),
    (("--recompute", "--hands", "100001"), "at most 100000"),
    (("--recompute", "--vira", "4", "--write", "--seed", "2"), "default"),
    (("--replace",), "--replace goes with --write"),
])
def test_rank_bad_input_is_one_error_line(args, words):
    code, out, err = lab("rank", "--json", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and words in err


def test_rank_without_a_policy_names_the_command_that_builds_it(tmp_path):
    env = dict(os.environ, LAB_DATA_DIR=str(tmp_path))
    code, out, err = lab("rank", "--json", "--recompute", env=env)
    assert code == 2 and out == "" and "lab solve policy" in err and err.count("\n") == 1
    # without a stored table: the commands that build it, or rank without storing
    code, out, err = lab("rank", "--json", env=env)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "lab rank --write" in err and "lab rank --recompute" in err


# ---------------------------------------------------------------- the stored table


class WorkStarted(Exception):
    """Raised by the stand-in of rank_bots: the command started to recompute."""


def in_process(monkeypatch, capsys, directory, *args):
    """(exit status, stdout, stderr) of ``lab rank ARGS`` on the data dir ``directory``,
    with rank_bots replaced by a function that fails (nothing may be recomputed)."""
    from lab.cli import main
    import lab.commands.rank

    def started(*a, **k):
        raise WorkStarted

    monkeypatch.setattr(lab.commands.rank, "rank_bots", started)
    monkeypatch.setenv("LAB_DATA_DIR", str(directory))
    code = main(["rank", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def stored_copy(tmp_path):
    """A temporary data dir holding a copy of the bot_ranking table (and the policy
    manifest its header reads)."""
    from lab.tables import data_dir

    source = data_dir()
    for name in ("bot_ranking.parquet", "bot_ranking.json", "full_policy.json"):
        if not (source / name).exists():
            pytest.fail(f"lab rank's stored-table tests need {source / name}; build it with "
                        "`lab rank --write`")
        shutil.copy(source / name, tmp_path / name)
    return tmp_path


def test_the_stored_table_is_printed_without_recomputing(stored_copy, monkeypatch, capsys):
    import pandas as pd

    rows = pd.read_parquet(stored_copy / "bot_ranking.parquet")
    manifest = json.loads((stored_copy / "bot_ranking.json").read_text())
    code, out, err = in_process(monkeypatch, capsys, stored_copy, "--json")
    assert code == 0, err
    got = json.loads(out)
    assert [list(e) for e in got] == [["bot", "exploitability", "ev_vs_solver", "exact",
                                       "ci95", "viras", "hands"]] * len(got)
    assert sorted(e["bot"] for e in got) == sorted(set(rows["bot"]))
    assert [e["ev_vs_solver"] for e in got] == sorted((e["ev_vs_solver"] for e in got),
                                                      reverse=True)
    for e in got:   # the means over the viras, from the parquet file alone
        mine = rows[rows["bot"] == e["bot"]]
        assert e["viras"] == list(mine["vira"])
        assert e["ev_vs_solver"] == pytest.approx(mine["ev_vs_solver"].mean(), abs=1e-12)
        assert e["exact"] == bool(mine["exact"].all())
        if e["exact"]:
            assert e["exploitability"] == pytest.approx(mine["exploitability"].mean(),
                                                        abs=1e-12)
            assert e["ci95"] is None
        else:
            half = math.sqrt((((mine["ci95_hi"] - mine["ci95_lo"]) / 2) ** 2).sum()) / len(mine)
            assert e["exploitability"] is None
            assert e["ci95"] == pytest.approx([e["ev_vs_solver"] - half,
                                               e["ev_vs_solver"] + half], abs=1e-12)
            assert e["hands"] == int(mine["hands"].iloc[0]) == manifest["settings"]["hands"]
    # the line naming the stored table goes to stderr beside the JSON
    assert err.count("\n") == 1 and err.startswith("stored bot_ranking table")
    assert "--recompute" in err and f"seed {manifest['settings']['seed']}" in err

    code, out, err = in_process(monkeypatch, capsys, stored_copy)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("stored bot_ranking table") and "--recompute" in lines[0]
    for e in got:   # the same figures in the readable table, rounded
        line = next(x for x in lines if x.split()[:1] == [e["bot"]])
        assert f"{e['ev_vs_solver']:+.4f}" in line
    # a subset of the stored viras and bots is served from the table too
    viras = sorted(set(rows["vira"]))
    code, out, _ = in_process(monkeypatch, capsys, stored_copy, "--json", "--vira", viras[0],
                              "--bot", "random", "--hands", str(manifest["settings"]["hands"]))
    assert code == 0
    random = rows[(rows["bot"] == "random") & (rows["vira"] == viras[0])]
    assert [(e["bot"], e["viras"], e["ev_vs_solver"]) for e in json.loads(out)] == \
        [("random", [viras[0]], pytest.approx(float(random["ev_vs_solver"].iloc[0])))]


def test_what_the_stored_table_does_not_hold_is_one_line_naming_recompute(
        stored, tmp_path, monkeypatch, capsys):
    import pandas as pd

    from lab.ranking import COLUMNS, write_ranking

    frame = pd.DataFrame([
        {"vira": "4", "bot": "solver", "exploitability": 0.07, "ev_vs_solver": 0.0,
         "exact": True, "ci95_lo": None, "ci95_hi": None, "hands": 0, "method": "exact"},
        {"vira": "4", "bot": "random", "exploitability": None, "ev_vs_solver": -1.0,
         "exact": False, "ci95_lo": -1.1, "ci95_hi": -0.9, "hands": 1000,
         "method": "simulated"}], columns=list(COLUMNS))
    write_ranking(frame, directory=tmp_path)
    for args, words in ((["--seed", "3"], "holds seed 0, not 3"),
                        (["--hands", "20"], "holds 1000 simulated hand pairs per vira, not 20"),
                        (["--bot", "cautious"], "holds no row of bot cautious"),
                        (["--vira", "7"], "lacks vira 7 (it holds 4)")):
        code, out, err = in_process(monkeypatch, capsys, tmp_path, "--json", *args)
        assert (code, out) == (2, ""), err
        assert err.startswith("error: the stored bot_ranking table ") and words in err
        assert err.count("\n") == 1 and "--recompute" in err
    code, out, err = in_process(monkeypatch, capsys, tmp_path)
    assert code == 0 and "the table lacks vira 5, 6, 7, Q, J, K, A, 2, 3" in out


def test_too_many_hands_are_refused_before_any_work(tmp_path, monkeypatch, capsys):
    for args in (["--recompute", "--hands", str(10**20)], ["--hands", "100001"],
                 ["--recompute", "--vira", "4", "--hands", "100001"]):
        code, out, err = in_process(monkeypatch, capsys, tmp_path, *args)
        assert (code, out) == (2, "")
        assert err.count("\n") == 1 and "at most 100000 simulated hand pairs" in err


def test_the_estimate_counts_each_kind_of_work():
    from lab.ranking import (LOAD_SECONDS, PAIR_SECONDS, UNIFORM_SECONDS, duration_text,
                             estimate_seconds)

    assert estimate_seconds(["4"], ["solver"], 1000) == LOAD_SECONDS
    assert estimate_seconds(["4", "5"], ["solver", "uniform", "random", "cautious"], 10) == \
        pytest.approx(2 * (LOAD_SECONDS + UNIFORM_SECONDS + 2 * 10 * PAIR_SECONDS))
    assert duration_text(30) == "about 30 s"
    assert duration_text(27 * 60) == "about 27 minutes"
    assert duration_text(3 * 3600) == "about 3.0 hours"


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
