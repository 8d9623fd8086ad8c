"""The strategy report (lab/strategy_report.py), its command and its page.

Expected numbers come from other routes than the report's vectorised walk: every line of
a small solved game walked one public action at a time with ``Line.then`` and weighted by
``spots.state_weights`` (the dashboards' route), and the outcome distribution of the
solver's own kernels (a hand worth 1 point at its end had no truco, or a truco run
from). The real vira-4 report is checked the same way on round 1.
"""

import base64
import html
import json
import re

import numpy as np
import pandas as pd
import pytest

from lab import strategy_report as sr
from lab.cli import main
from lab.dashboards import spots
from lab.tables import TableError, data_dir, read_manifest

from conftest import linked_copy, require_table

TOY = (2, 2, 2, 1)
"""A 7-card deck: two cards of each of levels 0, 1, 2 and one of level 3."""


@pytest.fixture(scope="module")
def toy():
    """A toy full game with the whole ladder 1-3-6-9-12, 30 iterations, as stored."""
    from lab.policy.full import FullPolicy
    from lab.solver.fullgame.compact import compact_policy
    from lab.solver.fullgame.solver import FullSolver, config_for

    config = config_for(toy_cap=TOY, ladder=(1, 3, 6, 9, 12))
    solver = FullSolver(config).allocate()
    solver.iterate(30)
    q, keys, _ = compact_policy(solver, 0.01)
    return FullPolicy(config, q, keys=keys)


def mass(policy, line, action) -> float:
    """The probability per hand that ``line`` is reached and its actor takes ``action``."""
    d = policy.decision(line.spot)
    if action not in d.actions:
        return 0.0
    return float((spots.state_weights(policy, line)
                  * np.nan_to_num(d.strategy[d.actions.index(action)])).sum())


def brute_force(policy) -> dict:
    """Sums over every line without a raise, walked action by action: ``(what, seat,
    round)`` -> probability per hand (``seat`` the player concerned)."""
    out: dict = {}

    def add(key, value):
        out[key] = out.get(key, 0.0) + value

    def visit(line):
        if line.over:
            return
        seat, rnd = policy.actor(line.spot), spots.round_of(policy, line.spot)[0]
        add(("truco", seat, rnd), mass(policy, line, "raise"))
        truco = line.then("raise")
        add(("facing", 1 - seat, rnd), spots.reach_probability(policy, truco))
        add(("run", 1 - seat, rnd), mass(policy, truco, "run"))
        add(("seis", 1 - seat, rnd), mass(policy, truco, "raise"))
        seis = truco.then("raise")
        add(("facing_seis", seat, 0), spots.reach_probability(policy, seis))
        add(("nove", seat, 0), mass(policy, seis, "raise"))
        nove = seis.then("raise")
        add(("facing_nove", 1 - seat, 0), spots.reach_probability(policy, nove))
        add(("doze", 1 - seat, 0), mass(policy, nove, "raise"))
        for action in spots.public_actions(policy.decision(line.spot)):
            if action != "raise":
                visit(line.then(action))

    visit(policy.start())
    return out


def value(frame, measure, seat, rnd=0, bucket="all"):
    row = frame[(frame["measure"] == measure) & (frame["seat"] == sr.SEAT_NAMES[seat])
                & (frame["round"] == rnd) & (frame["bucket"] == bucket)]
    assert len(row) == 1, (measure, seat, rnd, bucket)
    return float(row["value"].iloc[0]), float(row["base"].iloc[0])


@pytest.mark.slow
def test_the_report_equals_sums_over_every_line_of_a_small_game(toy):
    frame = sr.report_of_policy(toy)
    lines = brute_force(toy)
    for seat in (0, 1):
        for rnd in (1, 2, 3):
            assert value(frame, "opens_truco", seat, rnd)[0] == pytest.approx(
                lines[("truco", seat, rnd)], abs=1e-12)
            runs, facing = value(frame, "runs_from_truco", seat, rnd)
            assert facing == pytest.approx(lines[("facing", seat, rnd)], abs=1e-12)
            assert runs * facing == pytest.approx(lines[("run", seat, rnd)], abs=1e-12)
            seis, _ = value(frame, "raise_to_6", seat, rnd)
            assert seis * facing == pytest.approx(lines[("seis", seat, rnd)], abs=1e-12)
        total = sum(lines[("truco", seat, r)] for r in (1, 2, 3))
        assert value(frame, "opens_truco", seat)[0] == pytest.approx(total, abs=1e-12)
        assert value(frame, "truco_rate", seat)[0] == pytest.approx(total, abs=1e-12)
        for measure, num, base in (("raise_to_9", "nove", "facing_seis"),
                                   ("raise_to_12", "doze", "facing_nove")):
            rate, facing = value(frame, measure, seat)
            assert facing == pytest.approx(lines[(base, seat, 0)], abs=1e-12)
            assert facing > 0 and rate * facing == pytest.approx(lines[(num, seat, 0)],
                                                                 abs=1e-12)


@pytest.mark.slow
def test_hands_left_at_one_point_had_no_truco_or_ran_from_it(toy):
    """The solver's outcome distribution (its kernels, exact): a hand ends with 1 point
    scored when nobody called truco, or when a truco was run from."""
    frame = sr.report_of_policy(toy)
    outcome = toy.solver(threads=1).outcome_distribution()
    at_one = outcome[("mao", 1)] + outcome[("pe", 1)]
    trucos = [value(frame, "opens_truco", seat)[0] for seat in (0, 1)]
    runs = sum(np.prod(value(frame, "runs_from_truco", seat)) for seat in (0, 1))
    assert at_one == pytest.approx(1 - sum(trucos) + runs, abs=1e-6)


@pytest.mark.slow
def test_a_vira_report_agrees_with_its_lines_and_splits_by_strength():
    from lab.tables.policies import load_full_policy

    policy = load_full_policy("4")
    frame = sr.vira_report("4")
    root = policy.start()
    assert value(frame, "opens_truco", 0, 1)[0] == pytest.approx(mass(policy, root, "raise"),
                                                                 abs=1e-12)
    pe_first = sum(mass(policy, root.then(card), "raise")
                   for card in spots.public_actions(policy.decision(root.spot))
                   if card != "raise")
    assert value(frame, "opens_truco", 1, 1)[0] == pytest.approx(pe_first, abs=1e-12)
    for seat in (0, 1):
        shares = [value(frame, "truco_share", seat, 0, b)[0] for b in ("weak", "middle",
                                                                       "strong")]
        assert sum(shares) == pytest.approx(1.0)
        rates = [np.prod(value(frame, "truco_rate", seat, 0, b)) for b in ("weak", "middle",
                                                                           "strong")]
        assert sum(rates) == pytest.approx(value(frame, "opens_truco", seat)[0])
        dealt = [value(frame, "truco_rate", seat, 0, b)[1] for b in ("weak", "middle",
                                                                     "strong")]
        assert sum(dealt) == pytest.approx(1.0) and min(dealt) > 0.3


def made_up(vira, opens, runs, facing):
    return pd.DataFrame([(vira, "opens_truco", 0, "mão", "all", opens, 1.0),
                         (vira, "runs_from_truco", 0, "pé", "all", runs, facing)],
                        columns=list(sr.COLUMNS))


def test_all_viras_weigh_each_vira_equally_and_rates_by_their_situations():
    both = sr.combine([made_up("4", 0.2, 0.5, 0.2), made_up("5", 0.4, 1.0, 0.6)])
    assert value(both, "opens_truco", 0) == pytest.approx((0.3, 1.0))
    # runs: (0.5 x 0.2 + 1.0 x 0.6) / (0.2 + 0.6) of the trucos faced, faced in 0.4 of hands
    assert value(both, "runs_from_truco", 1) == pytest.approx((0.875, 0.4))
    assert set(both["vira"]) == {"all"}


def test_the_csv_reads_back_as_the_report():
    frame = pd.concat([made_up("4", 0.2, float("nan"), 0.0), made_up("Q", 1 / 3, 0.5, 0.1)],
                      ignore_index=True)
    back = sr.read_csv(sr.to_csv(frame))
    pd.testing.assert_frame_equal(back, frame, check_exact=False, rtol=1e-9)
    with pytest.raises(sr.InputError, match="not a strategy report"):
        sr.read_csv("a,b\n1,2\n")


def test_the_command_says_what_is_wrong_in_one_line(tmp_path, capsys):
    assert main(["report", "--vira", "8"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: vira '8': choose one of 4, 5") and "\n" not in err
    assert main(["report", "--vira", "4", "--csv", str(tmp_path / "no" / "r.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["report", "--vira", "4", "--csv", str(tmp_path)]) == 2
    assert "not a folder" in capsys.readouterr().err


@pytest.mark.slow
def test_the_command_prints_words_json_and_writes_csv(tmp_path, capsys):
    target = tmp_path / "report.csv"
    assert main(["report", "--vira", "4", "--json", "--csv", str(target)]) == 0
    rows = pd.DataFrame(json.loads(capsys.readouterr().out))
    pd.testing.assert_frame_equal(sr.read_csv(target.read_text()), sr.vira_report("4"),
                                  check_exact=False, rtol=1e-9)
    assert len(rows) == len(sr.vira_report("4")) and set(rows["vira"]) == {"4"}
    assert main(["report", "--vira", "4", "--text"]) == 0
    text = capsys.readouterr().out
    assert "vira 4" in text and re.search(r"the pé runs from the other side's truco, "
                                          r"round 2 +\d+\.\d%", text)


def test_the_page_draws_each_vira_with_its_table_and_csv(monkeypatch):
    from lab.dashboards import strategy_report as page

    asked = []

    def fake(vira):
        asked.append(vira)
        return pd.concat([made_up(vira, 0.25, 0.5, 0.2)], ignore_index=True)

    monkeypatch.setattr(page, "strategy_report", fake)
    monkeypatch.setattr(page, "viras", lambda: ["4", "5"])
    view = page.strategy_report_page()
    assert [label for label, _ in view.picker.options] == ["all viras", "vira 4", "vira 5"]
    assert view.image.value[:8] == b"\x89PNG\r\n\x1a\n"
    table = html.unescape(view.table.value)
    assert "25.0%" in table and "the mão calls the hand's truco" in table
    link = re.search(r"base64,([A-Za-z0-9+/=]+)'", view.link.value).group(1)
    assert sr.read_csv(base64.b64decode(link).decode()).equals(sr.read_csv(sr.to_csv(
        fake("all"))))
    first = view.image.value
    view.picker.value = "5"
    assert asked[-1] == "5" and view.image.value != first
    view.picker.value = "all"            # drawn before: kept, not worked out again
    assert asked.count("all") == 2 and view.image.value == first


# ---------------------------------------------------------------- the stored table


def same_rows(stored, computed, tolerance=1e-12):
    """The two reports hold the same rows in the same order, every number within
    ``tolerance`` (a rate without a situation, NaN, in both)."""
    keys = ["vira", "measure", "round", "seat", "bucket"]
    assert stored[keys].astype(str).values.tolist() == computed[keys].astype(str).values.tolist()
    for column in ("value", "base"):
        a, b = stored[column].to_numpy(float), computed[column].to_numpy(float)
        assert np.array_equal(np.isnan(a), np.isnan(b)), column
        assert np.nanmax(np.abs(a - b)) <= tolerance, column


@pytest.mark.slow
def test_the_stored_table_holds_what_the_policy_gives():
    """Vira 4 worked out again from its stored policy (about 8 s) against the table's rows,
    which the command and the page read."""
    require_table("strategy_report")
    stored = sr.stored_report("4")
    assert len(stored) == 42 and set(stored["seat"]) == {"mão", "pé"}
    same_rows(stored, sr.vira_report("4"))
    same_rows(sr.strategy_report("4"), stored, 0.0)


def test_the_report_over_all_viras_weighs_the_stored_viras_equally():
    require_table("strategy_report")
    stored = sr.stored_report("all")
    assert [v for v in dict.fromkeys(stored["vira"])] == list(sr.RANKS)
    every = sr.strategy_report("all")
    at = (every["measure"] == "runs_from_truco") & (every["round"] == 2) & (
        every["seat"] == "pé")
    rows = stored[(stored["measure"] == "runs_from_truco") & (stored["round"] == 2)
                  & (stored["seat"] == "pé")]
    assert len(rows) == 10 and set(every.loc[at, "vira"]) == {"all"}
    weighted = (rows["value"] * rows["base"]).sum() / rows["base"].sum()
    assert float(every.loc[at, "value"].iloc[0]) == pytest.approx(weighted, abs=1e-12)
    assert float(every.loc[at, "base"].iloc[0]) == pytest.approx(rows["base"].mean(), abs=1e-12)


@pytest.fixture
def stale_copy(tmp_path):
    """A copy of the data folder whose report names another points policy for vira 4."""
    require_table("strategy_report")
    copy = linked_copy(data_dir(), tmp_path)
    path = copy / "strategy_report.json"
    manifest = json.loads(path.read_text())
    manifest["viras"]["4"]["policy_sha256"] = "0" * 16
    path.write_text(json.dumps(manifest))
    return copy


def test_a_report_of_another_policy_is_refused_naming_its_command(stale_copy, monkeypatch,
                                                                  capsys):
    with pytest.raises(TableError) as refused:
        sr.stored_report("4", stale_copy)
    assert str(refused.value) == (
        "table 'strategy_report' is stale: vira 4 was summed over another points policy than "
        "the one stored now; rebuild it with `lab report --write`")
    assert len(sr.stored_report("5", stale_copy)) == 42     # vira 5's rows are still its own
    monkeypatch.setenv("LAB_DATA_DIR", str(stale_copy))
    assert main(["report", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "vira 4 was summed over another" in captured.err and "lab report --write" in captured.err


def test_the_page_says_how_to_rebuild_an_outdated_or_missing_table(stale_copy, tmp_path,
                                                                      monkeypatch):
    from lab.dashboards import strategy_report as page

    monkeypatch.setenv("LAB_DATA_DIR", str(stale_copy))
    view = page.strategy_report_page()
    note = html.unescape(view.note.value)
    assert "table to rebuild" in note and "lab report --write" in note
    assert view.image.layout.display == "none" and view.table.value == ""
    view.picker.value = "5"                     # vira 5's rows are fresh: drawn
    assert view.image.value[:8] == b"\x89PNG\r\n\x1a\n" and "lab-missing" not in view.note.value
    assert view.image.layout.display is None and "lab-report" in view.table.value
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("LAB_DATA_DIR", str(empty))
    note = html.unescape(page.strategy_report_page().note.value)
    assert "table missing" in note and "lab report --write" in note


@pytest.mark.slow
def test_write_stores_one_vira_with_the_policy_it_summed(tmp_path, monkeypatch, capsys):
    """``lab report --write --vira 4`` into a data folder without the table: vira 4's rows
    as worked out from its policy, its manifest naming that policy; the other viras are
    not there, so the report over all viras names the command."""
    from lab.tables.policies import policy_info

    folder = linked_copy(data_dir(), tmp_path)
    for path in folder.glob("strategy_report.*"):
        path.unlink()
    monkeypatch.setenv("LAB_DATA_DIR", str(folder))
    assert main(["report", "--write", "--vira", "4", "--json"]) == 0
    captured = capsys.readouterr()
    assert "wrote" in captured.err and "(1 vira)" in captured.err
    shown = pd.DataFrame(json.loads(captured.out))
    same_rows(sr.stored_report("4"), sr.vira_report("4"), 0.0)
    same_rows(shown.astype({"value": float}), sr.vira_report("4"), 1e-15)
    manifest = read_manifest("strategy_report", folder)
    assert list(manifest["viras"]) == ["4"]
    assert manifest["viras"]["4"]["policy_sha256"] == policy_info("4")["sha256"]
    assert main(["report"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "lacks vira 5" in err and "lab report --write" in err
