"""The public Python API (``lab.load``, ``lab.hand``, ``lab.match_equity``) and the README's
examples of it.

The API's numbers are checked against the stored parquet files read directly and against
the command line's own readers (``lab equity``, ``lab ev``), so a wrong join or a wrong seat
shows up as a mismatch.
"""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lab
from lab.cards import RANKS, parse_card, parse_cards
from lab.commands.equity import equity_of
from lab.commands.ev import ev_of
from lab.tables import data_dir

from conftest import require_table

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", autouse=True)
def tables_present():
    for name in ("cardplay", "match_equity", "mao_de_onze"):
        require_table(name)
    for name in ("full_ev", "full_strategy", "full_summary", "score_leak", "bot_ranking",
                 "strategy_report"):
        require_table(name, solved_only=True)


def raw(name: str) -> pd.DataFrame:
    return pd.read_parquet(data_dir() / f"{name}.parquet")


@pytest.mark.parametrize("name", lab.TABLE_NAMES)
def test_every_table_loads_tidy_with_units_and_manifest(name):
    df = lab.load(name)
    assert len(df) > 0
    numbers = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])
               and not pd.api.types.is_bool_dtype(df[c])
               and not isinstance(df[c].dtype, pd.CategoricalDtype)]
    assert numbers and set(numbers) <= set(df.attrs["units"]), "a number column has no unit"
    assert all(isinstance(u, str) and u for u in df.attrs["units"].values())
    manifest = df.attrs["manifest"]
    assert manifest["rules_version"] == lab.RULES_VERSION and "settings" in manifest
    assert "score" not in df.columns  # scores are two integer columns everywhere
    for column in ("score_mao", "score_pe"):
        if column in df:
            assert pd.api.types.is_integer_dtype(df[column]) and df[column].between(0, 11).all()
    if "vira" in df:
        assert isinstance(df["vira"].dtype, pd.CategoricalDtype) and df["vira"].cat.ordered
        assert list(df["vira"].cat.categories) == list(RANKS)
        assert set(df["vira"].astype(str)) == set(manifest["viras"])
        assert df["vira"].is_monotonic_increasing  # rank order: 4 5 6 7 Q J K A 2 3


def test_mao_de_onze_scores_are_the_stored_scores_split():
    tidy, stored = lab.load("mao_de_onze"), raw("mao_de_onze")
    joined = tidy["score_mao"].astype(str) + "," + tidy["score_pe"].astype(str)
    assert (joined == stored["score"]).all()
    assert np.array_equal(tidy["value"], stored["value"])


def test_outcomes_are_the_summary_columns_in_long_form():
    outcomes, stored = lab.load("full_outcomes"), raw("full_summary").set_index("vira")
    assert list(outcomes.columns) == ["vira", "seat", "points", "probability"]
    for row in outcomes.sample(20, random_state=1).itertuples():
        assert row.probability == stored.loc[row.vira, f"p_{row.seat}_{row.points}"]
    total = outcomes.groupby("vira", observed=True)["probability"].sum()
    assert np.allclose(total, 1, atol=1e-6)  # every hand ends with one seat scoring
    assert not any(c.startswith("p_") for c in lab.load("full_summary").columns)


def test_match_equity_grid_is_the_table_and_rises_with_the_maos_points():
    grid, stored = lab.match_equity(), raw("match_equity_mixed")   # lab match's model
    assert grid.shape == (12, 12) and list(grid.index) == list(range(12))
    assert list(grid.columns) == list(range(12))
    for row in stored.itertuples():
        assert grid.loc[row.score_mao, row.score_pe] == row.p_mao
    normal = grid.iloc[:11, :11].to_numpy()  # more points never hurt before 11
    assert (np.diff(normal, axis=0) > 0).all() and (np.diff(normal, axis=1) < 0).all()
    assert grid.attrs["units"]["values"] == "match-win probability"


@pytest.mark.parametrize("vira,cards,seat", [("4c", "5c,3h,Kd", "mao"), ("Kd", "Ac,Ah,2s", "pe"),
                                             ("3s", "4c,4h,5d", "pe")])
def test_hand_at_a_normal_score_agrees_with_the_command_line(vira, cards, seat):
    h = lab.hand(vira, cards, seat=seat, score=(3, 5)).set_index("measure")
    card, hand_cards = parse_card(vira), parse_cards(cards, 3)
    equity = equity_of(card, hand_cards, seat)
    assert h.loc["equity", "value"] == equity["equity"]
    assert h.loc["double_dummy", "value"] == equity["double_dummy"]
    assert h.loc["equity", "exploitability"] == equity["exploitability"]
    ev = ev_of(card, hand_cards, seat)
    assert h.loc["points_ev", "value"] == ev["ev"]
    assert h.loc["points_ev", "unit"] == "points per hand"
    for situation, name in (("first", "first"), ("vs_truco", "vs truco"),
                            ("first_after_card", "after a card")):
        for action, p in ev["strategy"].get(situation, {}).items():
            assert h.loc[f"{name}: {action}", "value"] == pytest.approx(p, abs=1e-6)
    me = raw("match_equity_mixed").set_index(["score_mao", "score_pe"]).loc[(3, 5)]
    assert h.loc["match_equity", "value"] == me["p_mao" if seat == "mao" else "p_pe"]
    assert h.attrs["hand"] == equity["hand"]


def test_hand_at_a_mao_de_onze_offers_no_truco_and_reads_the_holders_decision():
    h = lab.hand("4c", "5c,3h,Kd", seat="pe", score=(2, 11)).set_index("measure")
    assert not h.index.str.contains("truco").any() and "points_ev" not in h.index
    stored = raw("mao_de_onze")
    label = h.attrs["hand"]
    row = stored[(stored["vira"] == "4") & (stored["score"] == "2,11") & (stored["seat"] == "pe")
                 & (stored["hand"] == label)].iloc[0]
    assert h.loc["accept", "value"] == row["accept"]
    assert h.loc["eleven_value", "value"] == row["value"]
    assert h.loc["eleven_value", "unit"] == "match-win probability"
    other = lab.hand("4c", "5c,3h,Kd", seat="mao", score=(2, 11)).set_index("measure")
    assert "accept" not in other.index  # the holder decides, not its opponent


def test_hand_at_eleven_eleven_is_decided_by_the_card_play():
    h = lab.hand("4c", "5c,3h,Kd", seat="mao", score=(11, 11)).set_index("measure")
    assert h.loc["eleven_value", "value"] == h.loc["equity", "value"]
    assert not h.index.str.contains("truco").any()


@pytest.mark.parametrize("call", [
    lambda: lab.load("nope"),
    lambda: lab.load(3),
    lambda: lab.hand("4x", "5c,3h,Kd"),
    lambda: lab.hand("4c", "5c,3h"),
    lambda: lab.hand("4c", ["5c", "3h", "Kd", "Ks"]),
    lambda: lab.hand("4c", "4c,3h,Kd"),
    lambda: lab.hand("4c", "5c,5c,Kd"),
    lambda: lab.hand("4c", [5, 3, 1]),
    lambda: lab.hand("4c", "5c,3h,Kd", seat="dealer"),
    lambda: lab.hand("4c", "5c,3h,Kd", score=(12, 0)),
    lambda: lab.hand("4c", "5c,3h,Kd", score=(-1, 0)),
    lambda: lab.hand("4c", "5c,3h,Kd", score=(1.5, 0)),
    lambda: lab.hand("4c", "5c,3h,Kd", score="3,4"),
    lambda: lab.hand("4c", "5c,3h,Kd", score=(1, 2, 3)),
    lambda: lab.hand("4c", "5c,3h,Kd", score=(True, 0)),
    lambda: lab.hand("4c", "5c,3h,Kd", score=(1.0, 0)),
    lambda: lab.hand("4c", "5c,3h,Kd", score=(float("inf"), 0)),
    lambda: lab.hand("4c", "5c,3h,Kd", score=(10**5000, 0)),
    lambda: lab.hand("4c", None),
    lambda: lab.hand("4c", 5),
    lambda: lab.hand("4c", "5c,3h,Kd", "mao", (0, 0), "extra"),
    lambda: lab.match_equity("points"),
])
def test_bad_input_is_a_one_line_value_error(call):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert message and "\n" not in message


def test_booleans_are_not_points_and_the_message_says_what_a_score_is():
    with pytest.raises(ValueError, match=r"score \(True, 0\): give the score as two integers"):
        lab.hand("4c", "5c,3h,Kd", score=(True, 0))
    with pytest.raises(ValueError, match=r"lab\.match_equity\(\): too many positional"):
        lab.match_equity(3)


def test_cards_numpy_points_and_a_list_score_give_the_same_numbers():
    expected = lab.hand("4c", "5c,3h,Kd", seat="pe", score=(3, 5))
    for cards, score in ((["5c", "3h", "Kd"], [3, 5]),
                         (parse_cards("5c,3h,Kd", 3), (np.int64(3), np.int32(5))),
                         (("Kd", "5c", "3h"), np.array([3, 5]))):
        got = lab.hand(parse_card("4c"), cards, seat="pé", score=score)
        pd.testing.assert_frame_equal(got, expected)
        assert got.attrs["score"] == (3, 5) and all(type(p) is int for p in got.attrs["score"])


def test_the_api_keeps_its_signatures():
    import inspect

    assert list(inspect.signature(lab.hand).parameters) == ["vira", "cards", "seat", "score"]
    assert list(inspect.signature(lab.load).parameters) == ["name"]
    assert not inspect.signature(lab.match_equity).parameters
    assert lab.hand.__doc__.startswith("What the lab says about one hand")


def readme_examples() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_readme_examples_run():
    examples = readme_examples()
    assert examples, "the README has no Python example"
    for code in examples:
        exec(compile(code, "README.md", "exec"), {})


def test_import_lab_stays_light():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", "import sys, lab; print('pandas' in sys.modules)"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "False", out.stderr


def test_hand_at_a_re_solved_score_gives_the_advice_services_first_moves():
    """At 10-9 vira 4 has a stored score-aware policy: lab.hand, lab advise and the hand
    explorer all give its first moves (the points table's are left out)."""
    from lab.advice import advise, request
    from lab.dashboards.hand_explorer import sections_html
    from lab.match import SCORE_AWARE_MODEL

    mao = lab.hand("4c", "5c,3h,Kd", seat="mao", score=(10, 9)).set_index("measure")
    asked = advise(request("4c", "5c,3h,Kd", "mao", "10,9", []))
    firsts = mao[mao.index.str.startswith("first: ")]
    assert set(firsts["model"]) == {SCORE_AWARE_MODEL}
    for token, p in asked["strategy"].items():
        name = "truco" if token == "raise" else f"play {token}"
        if token != "surrender":
            assert firsts.loc[f"first: {name}", "value"] == p
    assert firsts["value"].sum() == pytest.approx(1)
    assert (firsts["exploitability"] == asked["exploitability"]).all()
    best = max(asked["strategy"], key=asked["strategy"].get)
    page = sections_html(parse_card("4c"), parse_cards("5c,3h,Kd", 3), "mao", (10, 9))
    assert f"<th>play {best}</th><td>{100 * asked['strategy'][best]:.1f}%</td>" in page
    pe = lab.hand("4c", "5c,3h,Kd", seat="pe", score=(10, 9)).set_index("measure")
    answers = advise(request("4c", "5c,3h,Kd", "pe", "10,9", ["raise"]))
    for token in ("accept", "run", "raise"):
        assert pe.loc[f"vs truco: {token}", "value"] == answers["strategy"][token]
    assert not pe.index.str.startswith("after a card: ").any()
    # at a score without a stored score-aware policy the tables' points play stays
    normal = lab.hand("4c", "5c,3h,Kd", seat="mao", score=(3, 5)).set_index("measure")
    assert set(normal[normal.index.str.startswith("first: ")]["model"]) == {"full-game-points"}


def test_advise_is_the_command_lines_object():
    """lab.advise answers with the very object `lab advise --json` prints, for the same
    position written as a list or as one string; bad arguments are one-line ValueErrors."""
    import json
    import subprocess
    import sys

    api = lab.advise("7d", "Ah3c4d", seat="mao", score=(2, 5), actions=["3c", "5h"])
    assert api == lab.advise("7d", ["Ah", "3c", "4d"], "mao", (2, 5), "3c, 5h")
    out = subprocess.run([sys.executable, "-m", "lab", "advise", "--json", "--vira", "7d",
                          "--hand", "Ah,3c,4d", "--seat", "mao", "--score", "2,5", "3c", "5h"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and json.loads(out.stdout) == api
    assert sum(api["strategy"].values()) == pytest.approx(1)
    for bad in (dict(actions=[1]), dict(actions="zz"), dict(score=(True, 0)),
                dict(actions="5h"), dict(actions=" ".join(["raise"] * 40))):
        with pytest.raises(ValueError) as err:
            lab.advise("7d", "Ah3c4d", **bad)
        assert len(str(err.value).splitlines()) == 1
