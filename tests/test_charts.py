"""Charts and dashboard widgets, in process: numbers drawn equal the numbers given,
controls redraw, missing tables and impossible picks are explained, never raised.

Expected values are worked out by hand from small tables written here, or read from the
real solved tables in data/ (never from the code under test).
"""


import numpy as np
import pandas as pd
import pytest

from lab import charts, widgets
from lab.dashboards import equity_by_vira, hand_explorer, match_equity
from lab.dashboards.hand_play import HandPlayer
from lab.cards import parse_card
from lab.cli import main as lab_main


from conftest import Deferred, require_table as real_table


def tiny_cardplay() -> pd.DataFrame:
    """Three classes of vira 4 and one of vira 5, for the mão, with easy numbers."""
    rows = [
        # vira, seat, hand, best, second, third, equity, double_dummy, weight
        ("4", "mao", "zap 3 K", "zap", "3", "K", 0.9, 0.95, 0.1),
        ("4", "mao", "zap 2 2", "zap", "2", "2", 0.6, 0.7, 0.3),
        ("4", "mao", "3 3 K", "3", "3", "K", 0.5, 0.5, 0.2),
        ("5", "mao", "zap 3 K", "zap", "3", "K", 0.8, 0.8, 0.4),
        ("4", "pe", "zap 3 K", "zap", "3", "K", 0.1, 0.1, 1.0),
    ]
    table = pd.DataFrame(rows, columns=["vira", "seat", "hand", "best", "second", "third",
                                        "equity", "double_dummy", "weight"])
    table["exploitability"] = 1e-4
    return table


# ------------------------------------------------------------------ charts


def test_grouped_equity_is_the_deal_weighted_mean_of_each_group():
    grid = charts.grouped_equity(tiny_cardplay(), "mao", "best card", "equity")
    assert list(grid.index) == ["zap", "3"]          # strongest first
    assert list(grid.columns) == ["4", "5"]          # viras in rank order
    assert grid.loc["zap", "4"] == pytest.approx((0.9 * 0.1 + 0.6 * 0.3) / 0.4)
    assert grid.loc["zap", "5"] == pytest.approx(0.8)
    assert grid.loc["3", "4"] == pytest.approx(0.5)
    assert np.isnan(grid.loc["3", "5"])               # no such hand for vira 5 here


def test_best_two_cards_and_manilha_groupings():
    table = tiny_cardplay()
    two = charts.grouped_equity(table, "mao", "best two cards", "double_dummy")
    assert list(two.index) == ["zap 3", "zap 2", "3 3"]
    assert two.loc["zap 3", "4"] == pytest.approx(0.95)
    held = charts.group_key(table, "manilhas held")
    assert list(held) == ["1 manilha", "1 manilha", "no manilha", "1 manilha", "1 manilha"]
    with pytest.raises(ValueError, match="unknown grouping"):
        charts.group_key(table, "by colour")


def test_two_card_grid_averages_every_vira_by_deal_weight():
    grid = charts.two_card_grid(tiny_cardplay(), "mao", "equity")
    assert list(grid.index) == ["zap", "3"] and list(grid.columns) == ["3", "2"]
    # zap 3: vira 4 (0.9, weight 0.1) and vira 5 (0.8, weight 0.4)
    assert grid.loc["zap", "3"] == pytest.approx((0.9 * 0.1 + 0.8 * 0.4) / 0.5)
    assert grid.loc["zap", "2"] == pytest.approx(0.6)
    assert grid.loc["3", "3"] == pytest.approx(0.5) and np.isnan(grid.loc["3", "2"])
    fig = charts.equity_heatmap(tiny_cardplay(), None, "mao", "best two cards", "equilibrium")
    ax = next(ax for ax in fig.axes if ax.images and ax.get_xlabel())
    assert "second card" in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["3", "2"]


def test_equity_heatmap_draws_the_grouped_numbers_in_each_panel():
    table = tiny_cardplay()
    fig = charts.equity_heatmap(table, None, "mao", "best card", "equilibrium | double dummy")
    eq_ax, dd_ax = [ax for ax in fig.axes if ax.images and ax.get_xlabel()]
    assert "equilibrium" in eq_ax.get_xlabel() and "double dummy" in dd_ax.get_xlabel()
    drawn = eq_ax.images[0].get_array()
    assert drawn[0, 0] == pytest.approx(0.675)        # zap, vira 4: (0.09 + 0.18) / 0.4
    assert np.ma.is_masked(drawn[1, 1])               # "3" with vira 5: no data, gray
    written = {line for t in eq_ax.texts for line in t.get_text().split("\n")}
    assert {"68", "80", "50"} <= written              # percent labels in the cells
    diff = charts.equity_heatmap(table, None, "mao", "best card", "double dummy − equilibrium")
    panel = [ax for ax in diff.axes if ax.images and ax.get_xlabel()]
    assert len(panel) == 1
    assert panel[0].images[0].get_array()[0, 0] == pytest.approx((0.095 + 0.21) / 0.4 - 0.675)
    with pytest.raises(ValueError, match="unknown measure"):
        charts.equity_heatmap(table, None, "mao", "best card", "luck")


def test_cell_labels_sit_one_per_row():
    table = real_table("cardplay")
    fig = charts.equity_heatmap(table, None, "pe", "best card", "equilibrium")
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig.set_dpi(charts.PNG_DPI)
    renderer = FigureCanvasAgg(fig).get_renderer()
    ax = next(ax for ax in fig.axes if ax.images and ax.get_xlabel())
    n_rows = ax.images[0].get_array().shape[0]
    assert n_rows == 14
    (_, y_first), (_, y_last) = ax.transData.transform([(0, -0.5), (0, n_rows - 0.5)])
    row_px = abs(y_last - y_first) / n_rows
    grid = charts.grouped_equity(table, "pe", "best card", "equity").to_numpy()
    for text in ax.texts:
        lines = text.get_text().split("\n")
        column, top_edge = text.get_position()
        first_row = int(top_edge + 0.5)
        box = text.get_window_extent(renderer)
        top_px = ax.transData.transform([(column, top_edge)])[0][1]
        assert box.y1 == pytest.approx(top_px, abs=1.0)            # starts at its row's top
        assert box.height == pytest.approx(len(lines) * row_px, abs=1.0)  # one row per line
        for k, line in enumerate(lines):                             # and says that row's value
            if line:
                assert line == f"{100 * grid[first_row + k, int(column)]:.0f}"


def test_weighted_rank_is_the_share_of_weaker_deals_plus_half_the_ties():
    equity = pd.Series([0.2, 0.9, 0.5, 0.5])
    weight = pd.Series([0.1, 0.2, 0.3, 0.4])
    rank = charts.weighted_rank(equity, weight)
    assert list(rank) == pytest.approx([0.05, 0.9, 0.1 + 0.35, 0.1 + 0.35])


def test_match_equity_heatmap_puts_p_mao_at_row_mao_column_pe():
    scores = [(m, p) for m in range(12) for p in range(12)]
    table = pd.DataFrame({"score_mao": [m for m, _ in scores], "score_pe": [p for _, p in scores],
                          "p_mao": [0.5 + (m - p) / 30 for m, p in scores], "model": "x",
                          "exploitability": 0.0})
    fig = charts.match_equity_heatmap(table, "x", chosen=(3, 7))
    grid = fig.axes[0].images[0].get_array()
    assert grid.shape == (12, 12)
    assert grid[11, 0] == pytest.approx(0.5 + 11 / 30)
    assert grid[3, 7] == pytest.approx(0.5 - 4 / 30)
    assert len(fig.axes[0].patches) == 1                # the chosen score is outlined


def test_match_equity_heatmap_bounds_only_the_solved_scores():
    """Points-play rows (no exploitability) must not vanish into the title's bound."""
    table = synthetic_match_equity()
    normal = (table.score_mao < 11) & (table.score_pe < 11)
    table.loc[normal, "exploitability"] = np.nan
    title = charts.match_equity_heatmap(table, None).axes[0].get_title()
    assert "solved scores: exploitability ≤ 0.001" in title and "points play" in title
    full = charts.match_equity_heatmap(synthetic_match_equity(), None).axes[0].get_title()
    assert "\nexploitability ≤ 0.001 match-win probability" in full


def test_leak_heatmap_puts_the_mean_over_viras_at_row_mao_column_pe():
    leaks = pd.DataFrame({"vira": ["4", "7", "4"], "score_mao": [5, 5, 9],
                          "score_pe": [3, 3, 9], "leak": [0.010, 0.020, 0.050]})
    fig = charts.leak_heatmap(leaks, chosen=(9, 9))
    grid = fig.axes[0].images[0].get_array()
    assert grid.shape == (11, 11)
    assert grid[5, 3] == pytest.approx(0.015) and grid[9, 9] == pytest.approx(0.05)
    assert grid.mask[0, 0] and grid.mask[3, 5]                  # not measured: gray
    assert len(fig.axes[0].patches) == 1
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert {"1.5", "5.0"} <= texts                              # points of %
    title = fig.axes[0].get_title()
    assert "mean over 1-2 viras; 2 of 121 scores measured" in title
    empty = charts.leak_heatmap(leaks.iloc[:0]).axes[0].get_title()
    assert "no score measured yet" in empty


def test_eleven_thresholds_share_and_weakest_accepted_hand():
    cardplay = tiny_cardplay()
    decisions = pd.DataFrame({"vira": ["4", "4", "4"], "score": [5, 5, 5],
                              "seat": ["mao"] * 3, "hand": ["zap 3 K", "zap 2 2", "3 3 K"],
                              "accept": [1.0, 1.0, 0.0], "value": [0.9, 0.6, 0.4]})
    out = charts.eleven_thresholds(decisions, cardplay)
    assert list(out["vira"]) == ["4"]
    assert out.loc[0, "accept_share"] == pytest.approx(0.4 / 0.6)
    assert out.loc[0, "weakest_accepted"] == "zap 2 2"
    assert out.loc[0, "its_cardplay_win_probability"] == pytest.approx(0.6)
    assert charts.eleven_chart(out, "t").axes[0].patches  # one bar per vira


def test_png_is_a_png():
    data = charts.png(charts.equity_curve(tiny_cardplay().query("vira == '4' and seat == 'mao'"),
                                          "zap 2 2"))
    assert data[:8] == b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------ widgets


def test_after_hand_swaps_the_seats_and_stops_at_twelve():
    assert match_equity.after_hand((5, 3), "pe", 1) == (4, 5)
    assert match_equity.after_hand((5, 3), "mao", 3) == (3, 8)
    assert match_equity.after_hand((10, 3), "mao", 3) is None
    assert match_equity.after_hand((0, 11), "pe", 1) is None


def test_impossible_picks_are_explained():
    vira = parse_card("4c")
    assert "is the vira" in hand_explorer.pick_problem(vira, (parse_card("4c"), parse_card("5c"),
                                                        parse_card("3h")))
    assert "picked twice" in hand_explorer.pick_problem(vira, (parse_card("5c"), parse_card("3h"),
                                                         parse_card("3h")))
    assert hand_explorer.pick_problem(vira, (parse_card("4h"), parse_card("5c"), parse_card("3h"))) \
        is None


@pytest.mark.parametrize("module, make", [(equity_by_vira, "EquityByVira"),
                                          (hand_explorer, "HandExplorer")])
def test_a_missing_table_is_a_message_not_an_error(module, make, monkeypatch):
    def missing(name):
        raise widgets.TableMissing(name, f"table {name!r} is missing")

    monkeypatch.setattr(module, "load", missing)
    dashboard = getattr(module, make)()
    text = dashboard.children[0].value
    assert "table missing" in text and "lab solve cardplay --all" in text


def test_sections_say_not_solved_yet_with_the_command(monkeypatch):
    def missing(name, solved_only=False):
        raise widgets.TableMissing(name, "nope")

    monkeypatch.setattr(match_equity, "load", missing)
    dashboard = match_equity.MatchEquity()
    assert "not solved yet" in dashboard.children[0].value
    assert "lab solve match" in dashboard.children[1].value


def test_the_strategy_explorer_without_a_policy_says_how_to_store_one(tmp_path, monkeypatch):
    from lab.dashboards.strategy_explorer import StrategyExplorer

    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    explorer = StrategyExplorer()
    assert explorer.missing is not None
    assert "lab solve policy --vira V --checkpoints DIR" in explorer.children[0].value
    assert "lab rank --write" in explorer.ranking.children[0].value


def test_equity_by_vira_redraws_when_a_control_changes():
    real_table("cardplay")
    dashboard = equity_by_vira.EquityByVira()
    first = dashboard.image.value
    assert first[:4] == b"\x89PNG"
    dashboard.grouping.value = "manilhas held"
    assert dashboard.image.value != first
    dashboard.seat.value = "pe"
    dashboard.measure.value = "double dummy"
    assert dashboard.image.value not in (first,)
    dashboard.grouping.value, dashboard.seat.value = "best card", "mao"
    dashboard.measure.value = "equilibrium | double dummy"
    assert dashboard.image.value == first             # the same view, from the cache


def test_hand_explorer_shows_the_tables_numbers_and_explains_bad_picks():
    table = real_table("cardplay")
    row = table[(table["vira"] == "4") & (table["seat"] == "mao")
                & (table["hand"] == "zap 3 K")].iloc[0]
    dashboard = hand_explorer.HandExplorer(HandPlayer(Deferred()))  # 4♣; 5♣ 3♥ K♦; mão
    assert "zap 3 K" in dashboard.facts.value
    assert f"{100 * row['equity']:.1f}%" in dashboard.facts.value
    assert f"{100 * row['double_dummy']:.1f}%" in dashboard.facts.value
    shown = dashboard.image.value
    dashboard.cards[1].value = parse_card("4c")     # the vira itself
    assert "is the vira" in dashboard.message.value
    assert dashboard.facts.value == ""
    dashboard.cards[1].value = parse_card("Kd")     # K♦ twice
    assert "picked twice" in dashboard.message.value
    dashboard.cards[1].value = parse_card("Ah")
    assert dashboard.message.value == "" and "zap A K" in dashboard.facts.value
    assert dashboard.image.value != shown
    dashboard.score_mao.value = 11
    assert "mão de onze" in dashboard.facts.value
    assert "Mão de onze" in dashboard.sections.value
    assert "does not apply" in dashboard.player.stage.children[0].value
    dashboard.cards[1].value = parse_card("Kd")
    assert dashboard.player.layout.display == "none"   # no hand to play


# ------------------------------------------------------------------ lab publish


def test_publish_refuses_a_bad_directory(tmp_path, capsys):
    not_a_folder = tmp_path / "file.txt"
    not_a_folder.write_text("x")
    for bad in (str(not_a_folder), str(tmp_path / "missing" / "out")):
        assert lab_main(["publish", bad]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err.startswith("error: ") and err.count("\n") == 1
    assert lab_main(["publish", str(tmp_path / "out"), "--only", "nope"]) == 2
    assert "no such dashboard" in capsys.readouterr().err


@pytest.mark.slow
def test_publish_writes_pages_with_widget_state(tmp_path, capsys):
    target = tmp_path / "site"
    assert lab_main(["publish", str(target), "--only", "match_equity"]) == 0
    page = (target / "match_equity.html").read_text()
    assert "application/vnd.jupyter.widget-state+json" in page
    assert "lab-static-snapshot" in page and "Match equity" in page
    assert 'href="match_equity.html"' in (target / "index.html").read_text()
    assert str(target / "match_equity.html") in capsys.readouterr().out


@pytest.mark.slow
def test_published_landing_page_is_the_index_and_links_the_pages(tmp_path):
    target = tmp_path / "site"
    assert lab_main(["publish", str(target), "--only", "index"]) == 0
    index = (target / "index.html").read_text()
    assert "The truco lab" in index and "lab-status" in index  # the landing, not a list
    for name in ("hand_explorer", "strategy_explorer", "strategy_report", "equity_by_vira",
                 "match_equity", "review", "tour"):
        assert f'href="{name}.html"' in index and f'href="{name}.ipynb"' not in index


@pytest.mark.slow
def test_re_solving_a_vira_replaces_its_rows_with_a_fresh_solve():
    summary = real_table("cardplay_summary")
    real_table("cardplay")
    dashboard = equity_by_vira.EquityByVira()
    resolver = dashboard.resolver
    resolver.vira.value, resolver.target.value = "K", 1e-2
    resolver.run()
    assert resolver.progress.value == 1.0 and resolver.progress.bar_style == "success"
    assert "vira K re-solved" in resolver.status.value
    rows = dashboard.table[(dashboard.table["vira"] == "K") & (dashboard.table["seat"] == "mao")]
    reached = rows["exploitability"].iloc[0]
    assert 0 < reached <= 1e-2
    # an eps-equilibrium's value is within 2 eps of the game's (the table's, solved to 1e-4)
    value = (rows["equity"] * rows["weight"]).sum()
    table_value = summary.loc[summary["vira"] == "K", "value_mao"].iloc[0]
    assert abs(value - table_value) <= 2 * (reached + 1e-4)


def synthetic_match_equity() -> pd.DataFrame:
    """A made-up match-equity table (not solved): p_mao = 1/2 + (mão - pé) / 30."""
    scores = [(m, p) for m in range(12) for p in range(12)]
    return pd.DataFrame({"score_mao": [m for m, _ in scores], "score_pe": [p for _, p in scores],
                         "p_mao": [0.5 + (m - p) / 30 for m, p in scores],
                         "model": "made up", "exploitability": 0.001})


def test_match_equity_dashboard_on_a_given_table(monkeypatch):
    def load(name):
        if name == "match_equity":
            return synthetic_match_equity()
        raise widgets.TableMissing(name, "not built")

    monkeypatch.setattr(widgets, "load", load)          # the score texts
    monkeypatch.setattr(match_equity, "load", load)     # the dashboard
    dashboard = match_equity.MatchEquity()
    assert dashboard.model.value is None                 # one model: no choice offered
    first = dashboard.image.value
    assert first[:4] == b"\x89PNG"
    assert "probability <b>0.500</b>" in dashboard.details.value
    dashboard.score_mao.value, dashboard.score_pe.value = 5, 3
    assert dashboard.image.value != first
    details = dashboard.details.value
    assert "probability <b>0.567</b>" in details         # 1/2 + 2/30
    # the pé wins 1 point: next hand at (4, 5) with the other player as mão, so this
    # mão's chance is 1 - p(4, 5) = 1 - (1/2 - 1/30) = 0.533
    assert "<td>0.533</td>" in details
    assert "not solved yet" in dashboard.eleven.children[0].value


def test_points_play_rows_say_what_lab_solve_score_measured(monkeypatch):
    """Rows of the full game's points play carry no exploitability: the details give the
    leak measured at that score, or the command that measures it."""
    table = synthetic_match_equity().assign(model="full-game-points", exploitability=np.nan)
    leaks = pd.DataFrame({"vira": ["4", "7"], "score_mao": 5, "score_pe": 3,
                          "leak": [0.010, 0.020], "value_mao": [0.55, 0.567],
                          "resolve_value_mao": [np.nan, 0.584], "resolve_iterations": [0, 47],
                          "resolve_exploitability": [np.nan, 0.0031],
                          "truco_mao_points": [np.nan, 0.0011], "truco_mao_score": [np.nan, 0.0027],
                          "run_pe_points": [np.nan, 0.567], "run_pe_score": [np.nan, 0.772]})

    def load(name, solved_only=False):
        if name == "match_equity":
            return table
        if name == "score_leak":
            return leaks
        raise widgets.TableMissing(name, "not built")

    monkeypatch.setattr(widgets, "load", load)          # the score texts
    monkeypatch.setattr(match_equity, "load", load)     # the dashboard
    dashboard = match_equity.MatchEquity()
    assert "lab solve score --score 0,0" in dashboard.details.value
    dashboard.score_mao.value, dashboard.score_pe.value = 5, 3
    assert "leaks 0.015 match-win probability here (mean over 2 viras)" in dashboard.details.value
    assert ("a score-aware re-solve of vira 7 (47 iterations, exploitability 0.0031) has the "
            "mão open with a truco 0.3 % of the time instead of 0.1 %, the pé run from it "
            "77.2 % instead of 56.7 %, and the mão win the match with probability 0.584 "
            "instead of 0.567") in dashboard.details.value
    assert "re-solve of vira 4" not in dashboard.details.value    # vira 4 only measured
    equity = dashboard.image.value
    dashboard.view.value = "points play's leak"                  # the 11 x 11 map instead
    assert dashboard.image.value[:4] == b"\x89PNG" and dashboard.image.value != equity
    assert "leaks 0.015" in dashboard.details.value
    dashboard.view.value = "match equity"
    assert dashboard.image.value == equity


def test_the_leak_view_says_how_to_measure_it_when_nothing_is(monkeypatch):
    def load(name, solved_only=False):
        if name == "match_equity":
            return synthetic_match_equity()
        raise widgets.TableMissing(name, "not built")

    monkeypatch.setattr(widgets, "load", load)          # the score texts
    monkeypatch.setattr(match_equity, "load", load)     # the dashboard
    dashboard = match_equity.MatchEquity()
    equity = dashboard.image.value
    dashboard.view.value = "points play's leak"
    assert "not solved yet" in dashboard.details.value
    assert "lab solve score" in dashboard.details.value
    assert dashboard.image.value != equity          # an empty map, not the equity heatmap


def test_published_snapshot_leaves_out_live_only_parts():
    from lab.commands.publish import widget_snapshot

    state = {
        "root": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_a",
                                                                     "IPY_MODEL_b"]}},
        "a": {"model_name": "HTMLModel", "state": {"value": "<b>chart notes</b>"}},
        "b": {"model_name": "VBoxModel", "state": {"_dom_classes": [widgets.LIVE_ONLY],
                                                   "children": ["IPY_MODEL_c"]}},
        "c": {"model_name": "HTMLModel", "state": {"value": "re-solve"}},
    }
    html = widget_snapshot(state, "root")
    assert "<b>chart notes</b>" in html and "re-solve" not in html


def test_sections_of_an_unsolved_vira_say_so(tmp_path, monkeypatch):
    """A full-game table that holds some viras only (as while they are being solved)."""
    import shutil

    from lab.cards import parse_card, parse_cards
    from lab.tables import FULL_SETTINGS, data_dir, write_table

    for path in data_dir().glob("*.*"):
        shutil.copy(path, tmp_path)
    table = real_table("full_ev", solved_only=True)
    some = table[table["vira"].isin(["4", "7"])]
    info = {"iterations": 1, "exploitability": 0.01}
    write_table("full_ev", some, FULL_SETTINGS, {"4": info, "7": info}, tmp_path)
    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    html = hand_explorer.sections_html(parse_card("5c"), parse_cards("Ac,3h,Kd", 3), "mao",
                                       (0, 0))
    assert "lacks vira 5" in html and "lab solve full --all" in html
    assert "lab-missing" in html


def sections_text(vira: str, cards: str, seat: str, score) -> str:
    from lab.cards import parse_card, parse_cards

    return hand_explorer.sections_html(parse_card(vira), parse_cards(cards, 3), seat, score)


def test_hand_sections_follow_the_score():
    """A normal score shows each seat's own first decisions; at a mão de onze or 11 x 11
    nothing about truco is offered, and the holder's decision shows for the holder only."""
    real_table("full_strategy", solved_only=True)
    mao = sections_text("4c", "Ac,3h,Kd", "mao", (3, 4))
    assert "first move: truco, or which card to lead" in mao and "answer to" not in mao
    assert "played for points" in mao and "leaks" in mao
    pe = sections_text("4c", "Ac,3h,Kd", "pe", (3, 4))
    assert "answer to the mão&#x27;s opening truco" in pe and "accept" in pe
    for score, seat in (((11, 0), "mao"), ((11, 0), "pe"), ((5, 11), "pe"), ((11, 11), "mao")):
        html = sections_text("4c", "Ac,3h,Kd", seat, score)
        assert "Solved strategy" not in html and "answer to" not in html, (score, seat)
        assert "points per hand" not in html
    holder = sections_text("4c", "Ac,3h,Kd", "pe", (5, 11))
    assert "how often the holder plays this hand" in holder
    other = sections_text("4c", "Ac,3h,Kd", "mao", (5, 11))
    assert "The pé holds 11 and decides" in other and "how often" not in other
    assert "the hand decides it" in sections_text("4c", "Ac,3h,Kd", "mao", (11, 11))


def test_significant_digits():
    assert [charts.significant(x) for x in (0.020581, 0.000096, 9.99e-6, 0.001, 0.1, 123.4,
                                            0, float("nan"))] == [
        "0.021", "0.000096", "0.00001", "0.001", "0.1", "120", "0", "–"]


def test_eleven_picker_offers_only_scores_with_their_holder():
    real_table("mao_de_onze")
    dashboard = match_equity.ElevenThresholds()
    assert len(dashboard.score.options) == 22
    for label, score in dashboard.score.options:
        dashboard.score.value = score
        holder = "mão" if score[0] == 11 else "pé"
        assert label.endswith(f"the {holder} holds 11") and 11 in score
        assert dashboard.image.layout.visibility == "visible"
        assert f"the {holder} holds 11" in dashboard.details.value or dashboard.image.value


def test_after_this_hand_lists_only_what_can_happen_at_the_score():
    real_table("match_equity")
    dashboard = match_equity.MatchEquity()
    text = dashboard.details_html((11, 10))
    assert "the holder runs" in text and "hand won" not in text
    assert text.count("<tr>") == 3   # body rows: mão plays and wins 3, pé wins 3, mão runs
    assert dashboard.details_html((11, 11)).count("<tr>") == 2
    assert "hand won" in dashboard.details_html((3, 4))


def test_the_score_aware_view_puts_both_plays_side_by_side(monkeypatch):
    points = synthetic_match_equity()
    mixed = points.assign(model="full-game-points", exploitability=0.01, score_aware_viras=0,
                          p_mao_points=points["p_mao"], difference=0.0)
    at = (mixed["score_mao"] == 9) & (mixed["score_pe"] == 10)
    mixed.loc[at, ["model", "score_aware_viras"]] = ["full-game-mixed", 3]
    mixed.loc[at, "p_mao"] = mixed.loc[at, "p_mao_points"] + 0.0123
    mixed.loc[at, "difference"] = 0.0123
    tables = {"match_equity": points, "match_equity_mixed": mixed}

    def load(name, solved_only=False):
        if name in tables:
            return tables[name]
        raise widgets.TableMissing(name, "not built")

    monkeypatch.setattr(widgets, "load", load)
    monkeypatch.setattr(match_equity, "load", load)
    dashboard = match_equity.MatchEquity()
    equity = dashboard.image.value
    dashboard.view.value = "score-aware play"
    assert dashboard.image.value[:4] == b"\x89PNG" and dashboard.image.value != equity
    assert "played for points on every vira here" in dashboard.details.value
    dashboard.score_mao.value, dashboard.score_pe.value = 9, 10
    p = float(points.loc[at, "p_mao"].iloc[0])
    assert (f"<b>{p:.4f}</b> under points play, <b>{p + 0.0123:.4f}</b> with score-aware "
            "play (+0.0123); re-solved for the match on 3 of 10 viras") in dashboard.details.value
    del tables["match_equity_mixed"]
    dashboard.score_mao.value = 8
    assert "lab solve match-play --tables-only" in dashboard.details.value
    assert dashboard.image.layout.visibility == "hidden"
