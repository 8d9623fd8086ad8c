"""The data/ cache: tables round-trip through parquet + manifest; stale or missing ones are
reported, never used."""

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from lab import RULES_VERSION, tables
from lab.cards import RANKS
from lab.classes import hand_classes
from lab.solver.games.double_dummy import double_dummy_equity

SETTINGS = dict(tables.CARDPLAY_SETTINGS)
SEATS = tables.SEATS


def stand_in_solve(vira, settings, progress=False):
    """A stand-in for the CFR solver: equities shrunk from double dummy towards 1/2."""
    dd = double_dummy_equity(vira)
    equity = 0.25 + 0.5 * dd
    w = hand_classes(vira).weight
    return SimpleNamespace(equity=equity, value=float(w @ equity[0]),
                           exploitability=settings["target_exploitability"] / 2,
                           iterations=10 + RANKS.index(vira), seconds=0.5)


def build(tmp_path, viras, settings=SETTINGS, replace=False):
    return tables.build_cardplay_tables(viras, settings, solve=stand_in_solve,
                                        directory=tmp_path, replace=replace)


def test_cardplay_rows_are_tidy_and_complete(tmp_path):
    df = build(tmp_path, ["7"])["cardplay"]
    hc = hand_classes("7")
    assert tuple(df.columns) == tables.CARDPLAY_COLUMNS
    assert len(df) == 2 * hc.n
    assert list(df["seat"].unique()) == ["mao", "pe"]
    assert (df["hand"] == df["best"] + " " + df["second"] + " " + df["third"]).all()
    assert df.groupby("seat")["weight"].sum().to_numpy() == pytest.approx([1.0, 1.0])
    assert not df.duplicated(["vira", "seat", "hand"]).any()
    mao = df[df["seat"] == "mao"].set_index("hand")
    assert mao.loc["zap copas espadilha", "double_dummy"] == 1.0
    # vira 7: the manilha is Q; the vira's own rank 7 has three copies left
    assert mao.loc["7 7 7", "weight"] == pytest.approx(1 / 9139)
    assert "Q Q Q" not in mao.index and mao.loc["zap 7 7", "weight"] == pytest.approx(3 / 9139)
    assert np.allclose(df["double_dummy"].to_numpy().reshape(2, -1), double_dummy_equity("7"))


def test_round_trip_through_parquet_and_manifest(tmp_path):
    built = build(tmp_path, ["4", "Q"])
    for name in ("cardplay", "cardplay_summary"):
        loaded = tables.load_table(name, viras=["4", "Q"], directory=tmp_path)
        pd.testing.assert_frame_equal(loaded, built[name])
        manifest = json.loads((tmp_path / f"{name}.json").read_text())
        assert manifest["rules_version"] == RULES_VERSION
        assert manifest["settings"] == SETTINGS
        assert manifest["fingerprint"] == tables.fingerprint(name, SETTINGS)
        assert list(manifest["viras"]) == ["4", "Q"]
        assert manifest["viras"]["Q"]["iterations"] == 14
        assert manifest["exploitability"] == SETTINGS["target_exploitability"] / 2
        assert manifest["rows"] == len(built[name])
        assert manifest["rebuild"] == "lab solve cardplay --all"
    summary = built["cardplay_summary"]
    assert list(summary["vira"]) == ["4", "Q"]
    assert list(summary.columns) == list(tables.SUMMARY_COLUMNS)


THREADS_AROUND_A_TABLE = """
import json, os, sys
from pathlib import Path
import pandas, pyarrow.parquet    # imported first: the tables import them on first use
from lab import tables
def threads():
    return len(os.listdir("/proc/self/task"))
source, target = Path(sys.argv[1]), Path(sys.argv[2])
before = threads()
family = {}
for name in ("cardplay", "cardplay_summary"):
    manifest = json.loads((source / f"{name}.json").read_text())
    df = tables.load_table(name, viras=["K"], directory=source)
    family[name] = tables.TableWrite(df, manifest["settings"], manifest["viras"])
read = threads()
tables.write_tables(family, directory=target)
print(before, read, threads())
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc")
def test_tables_are_read_and_written_without_starting_threads(tmp_path):
    """A parquet read through pandas hands the file to Arrow's thread pool, and a pool
    thread letting go of it while the interpreter exits aborts the process after the
    command has printed its answer (exit status 134). The tables layer reads and writes
    on the calling thread: the process has as many threads after as before."""
    build(tmp_path / "a", ["K"])
    (tmp_path / "b").mkdir()
    out = subprocess.run([sys.executable, "-c", THREADS_AROUND_A_TABLE, str(tmp_path / "a"),
                          str(tmp_path / "b")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    before, read, written = map(int, out.stdout.split())
    assert read == before and written == before
    for name in ("cardplay", "cardplay_summary"):
        pd.testing.assert_frame_equal(
            tables.load_table(name, viras=["K"], directory=tmp_path / "b"),
            tables.load_table(name, viras=["K"], directory=tmp_path / "a"))


def test_tables_grow_one_vira_at_a_time(tmp_path):
    build(tmp_path, ["K"])
    build(tmp_path, ["4"])
    build(tmp_path, ["K"])  # rebuilding a vira replaces its rows
    df = tables.load_table("cardplay", viras=["4", "K"], directory=tmp_path)
    assert list(df["vira"].unique()) == ["4", "K"]  # rank order, not build order
    assert len(df) == 2 * 2 * 403
    summary = tables.load_table("cardplay_summary", viras=["K", "4"], directory=tmp_path)
    assert list(summary["vira"]) == ["4", "K"]


def test_a_table_lacking_viras_is_not_used(tmp_path):
    build(tmp_path, ["4"])
    with pytest.raises(tables.TableError, match=r"lacks vira 5, 6.*lab solve cardplay --all"):
        tables.load_table("cardplay", directory=tmp_path)


def test_a_missing_table_names_the_command_that_builds_it(tmp_path):
    with pytest.raises(tables.TableError, match=r"missing.*`lab solve cardplay --all`"):
        tables.load_table("cardplay", directory=tmp_path)
    assert "missing" in tables.table_status("cardplay_summary", directory=tmp_path)


def test_a_table_read_again_is_checked_again_but_parsed_once(tmp_path, monkeypatch):
    """The second read of an unchanged table skips the parse and the row checks (kept in
    memory), still gives a fresh copy, and a changed manifest or file is checked anew."""
    from lab.tables import manifests

    build(tmp_path, ["4"])
    parsed = []
    parquet_frame = manifests.parquet_frame
    monkeypatch.setattr(manifests, "parquet_frame",
                        lambda *a, **k: parsed.append(1) or parquet_frame(*a, **k))
    first = tables.load_table("cardplay", viras=["4"], directory=tmp_path)
    first.loc[0, "equity"] = -1.0        # the caller's copy, not the kept one
    again = tables.load_table("cardplay", viras=["4"], directory=tmp_path)
    assert len(parsed) == 1 and again.loc[0, "equity"] != -1.0
    edit_manifest(tmp_path, "cardplay", rows=5)
    with pytest.raises(tables.TableError, match="stale"):
        tables.load_table("cardplay", viras=["4"], directory=tmp_path)
    build(tmp_path, ["4", "5"])          # new content: parsed and checked again
    parsed.clear()
    for _ in range(2):
        grown = tables.load_table("cardplay", directory=tmp_path, viras=["4", "5"])
        assert set(grown["vira"]) == {"4", "5"} and len(parsed) == 1


def edit_manifest(tmp_path, name, **changes):
    path = tmp_path / f"{name}.json"
    manifest = json.loads(path.read_text())
    manifest.update(changes)
    path.write_text(json.dumps(manifest))


@pytest.mark.parametrize("changes,why", [
    ({"rules_version": "001_other_rules"}, "built for rules '001_other_rules'"),
    ({"schema": 0}, "schema 0"),
    ({"settings": {"target_exploitability": 1e-2, "max_iterations": 10}}, "built with settings"),
    ({"fingerprint": "0123456789abcdef"}, "fingerprint"),
    ({"table": "cardplay_summary"}, "manifest is for table"),
    ({"rows": 5}, "5"),
])
def test_a_stale_manifest_is_reported_not_used(tmp_path, changes, why):
    build(tmp_path, ["4"])
    edit_manifest(tmp_path, "cardplay", **changes)
    with pytest.raises(tables.TableError, match="stale") as err:
        tables.load_table("cardplay", viras=["4"], directory=tmp_path)
    assert why in str(err.value) and "lab solve cardplay --all" in str(err.value)


def test_tables_built_with_other_settings_are_stale_for_the_defaults(tmp_path):
    other = {**SETTINGS, "target_exploitability": 1e-3}
    build(tmp_path, ["4"], other)
    assert len(tables.load_table("cardplay", viras=["4"], settings=other,
                                 directory=tmp_path)) == 806
    with pytest.raises(tables.TableError, match="built with settings"):
        tables.load_table("cardplay", viras=["4"], directory=tmp_path)
    # a rebuild of another vira with the defaults cannot keep the rows solved with other
    # settings: it is refused, the tables left as they were, unless asked to replace them
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    with pytest.raises(tables.TableError, match=r"would drop the rows of vira 4: rebuild it "
                       r"whole with `lab solve cardplay --all`, or pass --replace"):
        build(tmp_path, ["5"])
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before
    build(tmp_path, ["5"], replace=True)
    df = tables.load_table("cardplay", viras=["5"], directory=tmp_path)
    assert list(df["vira"].unique()) == ["5"]
    with pytest.raises(tables.TableError, match="lacks vira 4"):
        tables.load_table("cardplay", viras=["4"], directory=tmp_path)


def test_damaged_files_are_reported(tmp_path):
    build(tmp_path, ["4"])
    (tmp_path / "cardplay.json").write_text("{not json")
    with pytest.raises(tables.TableError, match="unreadable manifest"):
        tables.load_table("cardplay", viras=["4"], directory=tmp_path)
    (tmp_path / "cardplay_summary.parquet").write_bytes(b"not parquet")
    with pytest.raises(tables.TableError, match="stale or corrupt.*lab solve cardplay"):
        tables.load_table("cardplay_summary", viras=["4"], directory=tmp_path)


def test_data_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    assert tables.data_dir() == tmp_path
    tables.build_table("cardplay_summary", viras=["3"], solve=stand_in_solve)
    assert (tmp_path / "cardplay.parquet").exists()  # the group is built together
    assert list(tables.load_table("cardplay_summary", viras=["3"])["vira"]) == ["3"]


def test_unknown_table():
    with pytest.raises(tables.TableError, match="unknown table"):
        tables.load_table("nonsense")


# ---------------------------------------------------------------- the committed tables


def test_the_committed_cardplay_tables_are_current_and_consistent():
    df = tables.load_table("cardplay")
    summary = tables.load_table("cardplay_summary").set_index("vira")
    assert list(df["vira"].unique()) == list(RANKS) and len(df) == 10 * 2 * 403
    assert (summary["exploitability"] <= SETTINGS["target_exploitability"]).all()
    assert df["equity"].between(0, 1).all() and df["double_dummy"].between(0, 1).all()
    for (vira, seat), rows in df.groupby(["vira", "seat"]):
        assert rows["weight"].sum() == pytest.approx(1.0)
        assert (rows["exploitability"] == summary.loc[vira, "exploitability"]).all()
        dd = double_dummy_equity(vira)[SEATS.index(seat)]
        assert np.allclose(rows["double_dummy"], dd)
        certain = rows.set_index("hand").loc["zap copas espadilha"]
        assert certain["equity"] == pytest.approx(1.0, abs=1e-6)
        assert certain["double_dummy"] == 1.0
    for vira, rows in df.groupby("vira"):
        by_seat = (rows["weight"] * rows["equity"]).groupby(rows["seat"]).sum()
        assert by_seat["mao"] == pytest.approx(summary.loc[vira, "value_mao"], abs=1e-6)
        assert by_seat["mao"] + by_seat["pe"] == pytest.approx(1.0, abs=1e-6)


def test_lab_solve_writes_loadable_tables(tmp_path, monkeypatch, capsys):
    """The real solver through `lab solve` (a loose target keeps it short)."""
    from lab.cli import main

    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    code = main(["solve", "cardplay", "--vira", "3", "--target", "1e-2", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0
    assert out.startswith("vira 3: mão wins 0.4") and "wrote" in out
    assert "not the defaults" in err
    loose = {**SETTINGS, "target_exploitability": 1e-2}
    summary = tables.load_table("cardplay_summary", viras=["3"], settings=loose)
    assert summary.loc[0, "exploitability"] <= 1e-2 and summary.loc[0, "iterations"] >= 1
    assert "built with settings" in tables.table_status("cardplay")


@pytest.mark.parametrize("argv,names", [
    (["solve", "cardplay", "--vira", "9"], "9"),
    (["solve", "cardplay", "--vira", "4", "--all"], "not allowed"),
    (["solve", "poker"], "poker"),
    (["solve", "cardplay", "--target", "2"], "--target"),
    (["solve", "cardplay", "--vira", "4", "--vira", "4c"], "repeated"),
])
def test_lab_solve_bad_input(tmp_path, monkeypatch, capsys, argv, names):
    from lab.cli import main

    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1
    assert names in err
    assert list(tmp_path.iterdir()) == []
