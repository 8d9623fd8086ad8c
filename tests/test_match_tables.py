"""The committed match tables (``lab solve match``): structure, the rules' consequences,
and an end-to-end re-solve of one mão de onze."""

import json
import subprocess
import sys

import numpy as np
import pytest

from lab.match import (CARDPLAY_MODEL, ELEVEN_ELEVEN_MODEL, ELEVEN_MODEL, FULL_MODEL,
                       SCORE_AWARE_MODEL, after_hand, eleven_payoffs)
from lab.rules import MAO, PE
from lab.tables import TableError, load_table, solved_viras
from conftest import complete_table


@pytest.fixture(scope="module")
def me_table():
    return load_table("match_equity")


@pytest.fixture(scope="module")
def me(me_table):
    """(12, 12) array: the next hand's mão's match-win probability by (mão, pé) points."""
    out = np.full((12, 12), np.nan)
    for row in me_table.itertuples():
        out[row.score_mao, row.score_pe] = row.p_mao
    return out


@pytest.fixture(scope="module")
def eleven_table():
    return load_table("mao_de_onze")


@pytest.fixture(scope="module")
def summary():
    return load_table("cardplay_summary")


@pytest.fixture(scope="module")
def full_summary():
    """The full game's summary when it holds all ten viras (then normal scores use it), else
    None (normal scores use the card-play model)."""
    try:
        return load_table("full_summary")
    except TableError:
        return None


@pytest.fixture(scope="module")
def normal_model(full_summary):
    return CARDPLAY_MODEL if full_summary is None else FULL_MODEL


def test_one_row_per_score_with_probabilities_summing_to_one(me_table, me):
    assert len(me_table) == 144 and not np.isnan(me).any()
    assert np.allclose(me_table.p_mao + me_table.p_pe, 1.0)
    assert ((me_table.p_mao > 0) & (me_table.p_mao < 1)).all()


def test_each_row_names_the_model_the_rules_call_for(me_table, normal_model):
    for row in me_table.itertuples():
        if row.score_mao == row.score_pe == 11:
            assert row.model == ELEVEN_ELEVEN_MODEL
        elif 11 in (row.score_mao, row.score_pe):
            assert row.model == ELEVEN_MODEL
        else:
            assert row.model == normal_model
    # every exactly solved row reports its exploitability; the full game's points play is
    # not a match equilibrium, and its leak is measured by `lab solve score`, not here
    solved = me_table[me_table.model != FULL_MODEL]
    assert (solved.exploitability >= 0).all() and (solved.exploitability < 1e-3).all()
    assert me_table[me_table.model == FULL_MODEL].exploitability.isna().all()


def test_eleven_eleven_is_the_average_hand_value_over_viras(me, summary):
    """At 11 x 11 whoever wins the hand wins the match: the mão's match equity is his
    card-play win probability averaged over the ten viras."""
    assert len(summary) == 10
    assert me[11, 11] == pytest.approx(summary.value_mao.mean(), abs=1e-12)


def test_eleven_eleven_at_stake_three_has_the_same_win_probability(summary):
    """Solving the 11 x 11 hand in points (worth 3) gives the same win probability as the
    win-probability solve in the table: payoffs affine in the winner change no strategy."""
    from lab.solver.games.cardplay import solve_cardplay

    points = solve_cardplay("7", target_exploitability=3e-4, payoff=(3.0, -3.0), total=0.0)
    p_win = (points.value / 3.0 + 1.0) / 2.0
    table = summary.set_index("vira").loc["7"]
    assert p_win == pytest.approx(table.value_mao, abs=2e-4)


def test_more_points_never_hurt(me):
    for a in range(12):
        for b in range(12):
            if a < 11:
                assert me[a + 1, b] >= me[a, b] - 1e-9, (a, b)
            if b < 11:
                assert me[a, b + 1] <= me[a, b] + 1e-9, (a, b)


def test_normal_scores_satisfy_the_backward_induction(me, summary, full_summary):
    """Below 11 the mão's match equity is the average over the outcomes of the hand of the
    match equity after it: under the card-play model the hand is worth 1 point, won with
    the card-play win probability; under the full game each seat scores 1, 3, 6, 9 or 12
    with the solved outcome probabilities (averaged over the ten viras)."""
    if full_summary is None:
        outcomes = {(MAO, 1): summary.value_mao.mean(), (PE, 1): 1 - summary.value_mao.mean()}
    else:
        outcomes = {(seat, v): full_summary[f"p_{name}_{v}"].mean()
                    for seat, name in ((MAO, "mao"), (PE, "pe")) for v in (1, 3, 6, 9, 12)}
    assert sum(outcomes.values()) == pytest.approx(1.0, abs=1e-9)
    for a in range(11):
        for b in range(11):
            expect = sum(p * after_hand(me, (a, b), seat, v) for (seat, v), p in outcomes.items())
            assert me[a, b] == pytest.approx(expect, abs=1e-12)


def test_mao_de_onze_rows_cover_every_vira_score_and_class(eleven_table):
    assert len(eleven_table) == 10 * 22 * 403
    holders = eleven_table.groupby("score")["seat"].unique()
    for score, seats in holders.items():
        m, p = map(int, score.split(","))
        assert list(seats) == (["mao"] if m == 11 else ["pe"])
    assert eleven_table.accept.between(0, 1).all() and eleven_table.value.between(0, 1).all()


def test_the_holder_never_does_worse_than_running(me, eleven_table):
    """Running is always open to the holder, so with every class his match-win
    probability is at least what a run gives him."""
    for score, rows in eleven_table.groupby("score"):
        m, p = map(int, score.split(","))
        pay = eleven_payoffs(me, (m, p))
        run_for_holder = pay.holder_runs if pay.holder == MAO else 1 - pay.holder_runs
        assert rows.value.min() >= run_for_holder - 1e-3, score


def test_holder_values_average_to_the_match_equity(me, eleven_table):
    """The holder's per-class match-win probabilities, weighted by the deal, average to the
    table's match equity at that score (each vira with probability 1/10)."""
    for score, rows in eleven_table.groupby("score"):
        m, p = map(int, score.split(","))
        per_vira = rows.groupby("vira").apply(lambda r: np.dot(r.value, r.weight))
        holder_value = per_vira.mean()
        expect = me[m, p] if m == 11 else 1 - me[m, p]
        assert holder_value == pytest.approx(expect, abs=2e-4), score


def test_the_three_top_manilhas_always_accept(eleven_table):
    top = eleven_table[eleven_table.hand == "zap copas espadilha"]
    assert len(top) == 220 and (top.accept > 0.99).all() and (top.value > 0.999).all()


def test_one_mao_de_onze_re_solved_matches_the_table(me, eleven_table):
    """Re-solve vira Q at 11-9 (the mão holds 11) from the table's own match payoffs."""
    from lab.solver.games.eleven import solve_eleven

    pay = eleven_payoffs(me, (11, 9))
    sol = solve_eleven("Q", pay.holder, pay.mao_wins, pay.pe_wins, pay.holder_runs,
                       target_exploitability=1e-5)
    rows = eleven_table[(eleven_table.vira == "Q") & (eleven_table.score == "11,9")]
    assert np.dot(sol.holder_value, rows.weight) == pytest.approx(np.dot(rows.value, rows.weight),
                                                                  abs=5e-5)
    decided = (rows.accept.to_numpy() < 0.01) | (rows.accept.to_numpy() > 0.99)
    assert np.array_equal(sol.accept[decided] > 0.5, rows.accept.to_numpy()[decided] > 0.5)


def lab(*args):
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True)


def test_lab_match_prints_the_table_row(me):
    out = lab("match", "--score", "3,7")
    assert out.returncode == 0 and out.stderr == ""
    obj = json.loads(out.stdout)
    mixed = load_table("match_equity_mixed").set_index(["score_mao", "score_pe"])
    assert obj["mao"] == pytest.approx(mixed.p_mao[3, 7]) and obj["mao"] + obj["pe"] == pytest.approx(1)
    assert obj["mao_points_play"] == pytest.approx(me[3, 7])
    assert obj["model"] == mixed.model[3, 7] and obj["hand"] == "normal"
    leaks = load_table("score_leak", viras=solved_viras("score_leak"))
    at = leaks[(leaks.score_mao == 3) & (leaks.score_pe == 7)]
    assert obj["points_play_leak_viras"] == len(at) > 0            # the sweep's rows
    assert obj["points_play_leak"] == pytest.approx(at.leak.mean())
    resolved = json.loads(lab("match", "--score", "9,10").stdout)   # re-solved on every vira
    assert resolved["model"] == SCORE_AWARE_MODEL and resolved["score_aware_viras"] == 10
    assert resolved["mao"] == pytest.approx(mixed.p_mao[9, 10])
    assert resolved["mao_points_play"] == pytest.approx(me[9, 10])
    top = json.loads(lab("match", "--score", "11,11").stdout)
    assert top["model"] == ELEVEN_ELEVEN_MODEL and top["points_play_leak"] is None
    assert json.loads(lab("match", "--score", "4,11").stdout)["hand"] == "mao_de_onze"


@pytest.mark.parametrize("score", ["-1,0", "0,-2", "12,3", "3,12", "13,0", "x", "1,2,3", "1"])
def test_lab_match_refuses_bad_scores(score):
    out = lab("match", "--score", score)
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and score in lines[0]


def test_match_tables_built_on_another_cardplay_summary_are_stale(tmp_path):
    """Rebuilding the card-play summary makes the match tables computed from it stale."""
    import shutil

    from lab.tables import TableError, table_paths, write_table

    for name in ("cardplay_summary", "full_summary", "match_equity", "mao_de_onze"):
        for path in table_paths(name):
            shutil.copy(path, tmp_path / path.name)
    assert len(load_table("match_equity", directory=tmp_path)) == 144
    summary = load_table("cardplay_summary", directory=tmp_path)
    summary.loc[0, "value_mao"] += 0.01
    manifest = json.loads(table_paths("cardplay_summary", tmp_path)[1].read_text())
    write_table("cardplay_summary", summary, manifest["settings"], manifest["viras"], tmp_path)
    for name in ("match_equity", "mao_de_onze"):
        with pytest.raises(TableError, match="computed from another 'cardplay_summary'.*lab solve match"):
            load_table(name, directory=tmp_path)


def test_match_tables_follow_the_full_summary_only_when_they_read_it(tmp_path):
    """A match table built on the card-play model records ``full_summary`` as unused, so
    solving one more vira of the full game leaves it usable; one built on the full game
    goes stale when ``full_summary`` changes."""
    import pandas as pd

    from lab.cards import RANKS
    from lab.tables import FULL_SETTINGS, MATCH_SETTINGS, TableError, write_table

    info = {"iterations": 1, "exploitability": 0.0}
    me_rows = pd.DataFrame({"score_mao": [0], "score_pe": [0], "p_mao": [0.5], "p_pe": [0.5],
                            "model": ["x"], "exploitability": [0.0]})
    full = complete_table("full_summary", pd.DataFrame({"vira": ["4"], "value_mao": [-0.2]}))

    def solve_one_more_vira(value):
        write_table("full_summary", full.assign(value_mao=value), FULL_SETTINGS,
                    {"4": info}, tmp_path)

    solve_one_more_vira(-0.2)
    write_table("match_equity", me_rows, MATCH_SETTINGS, {v: info for v in RANKS}, tmp_path,
                unused=("full_summary",))
    solve_one_more_vira(-0.3)
    assert len(load_table("match_equity", directory=tmp_path)) == 1
    write_table("match_equity", me_rows, MATCH_SETTINGS, {v: info for v in RANKS}, tmp_path)
    assert len(load_table("match_equity", directory=tmp_path)) == 1
    solve_one_more_vira(-0.4)
    with pytest.raises(TableError, match="computed from another 'full_summary'"):
        load_table("match_equity", directory=tmp_path)


def test_the_match_build_uses_the_full_game_once_every_vira_is_solved(tmp_path, monkeypatch):
    """``build_match_tables`` on made-up summaries, with the mão de onze solves stood in
    (they are tested above): the full game's outcome distribution drives the normal scores
    only when ``full_summary`` holds all ten viras, and the manifest says what was read."""
    import pandas as pd

    from lab.cards import RANKS
    from lab.classes import hand_classes
    from lab.match import CardplayModel, HandResult
    from lab.solver.games.eleven import ElevenSolution
    from lab.tables import (CARDPLAY_SETTINGS, FULL_SETTINGS, UNUSED, build_match_tables,
                            read_manifest, write_table)

    def stand_in_eleven(self, score, pay):
        n = len(hand_classes("4").labels)
        self.eleven_solutions[tuple(score)] = [
            ElevenSolution(v, pay.holder, 0.5, 0.0, 1, np.ones(n), np.full(n, 0.5))
            for v in self.viras]
        return HandResult(0.5 * pay.mao_wins + 0.5 * pay.pe_wins, 0.0, ELEVEN_MODEL)

    monkeypatch.setattr(CardplayModel, "eleven", stand_in_eleven)
    info = {"iterations": 1, "exploitability": 0.0}
    card = pd.DataFrame({"vira": list(RANKS), "value_mao": 0.45, "double_dummy_mao": 0.45,
                         "exploitability": 0.0, "iterations": 1, "seconds": 0.0})
    write_table("cardplay_summary", card, CARDPLAY_SETTINGS, {v: info for v in RANKS}, tmp_path)
    full = pd.DataFrame({"vira": list(RANKS)})
    for v in (1, 3, 6, 9, 12):   # every hand ends at 3 points, the mão winning 40 %
        full[f"p_mao_{v}"], full[f"p_pe_{v}"] = (0.4, 0.6) if v == 3 else (0.0, 0.0)
    full = complete_table("full_summary", full)
    write_table("full_summary", full.iloc[:9], FULL_SETTINGS, {v: info for v in RANKS[:9]},
                tmp_path)
    me = build_match_tables(directory=tmp_path)["match_equity"].set_index(["score_mao",
                                                                           "score_pe"])
    assert me.loc[(10, 10), "model"] == CARDPLAY_MODEL
    # 1 point a hand: from 10-10 the winner reaches 11 and the loser holds a mão de onze
    after = 0.45 * (1 - me.loc[(10, 11), "p_mao"]) + 0.55 * (1 - me.loc[(11, 10), "p_mao"])
    assert me.loc[(10, 10), "p_mao"] == pytest.approx(after, abs=1e-12)
    assert read_manifest("match_equity", tmp_path)["built_on"]["full_summary"] == UNUSED

    write_table("full_summary", full, FULL_SETTINGS, {v: info for v in RANKS}, tmp_path)
    me = build_match_tables(directory=tmp_path)["match_equity"].set_index(["score_mao",
                                                                           "score_pe"])
    assert me.loc[(10, 10), "model"] == FULL_MODEL and np.isnan(me.loc[(10, 10), "exploitability"])
    assert me.loc[(10, 10), "p_mao"] == pytest.approx(0.4)    # 3 points end it
    assert me.loc[(11, 11), "model"] == ELEVEN_ELEVEN_MODEL
    assert read_manifest("match_equity", tmp_path)["built_on"]["full_summary"] != UNUSED
    assert len(load_table("match_equity", directory=tmp_path)) == 144
