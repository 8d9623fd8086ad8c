"""`lab equity`: one JSON object from data/ (or solved on the spot), and every bad input
reported as one `error:` line with exit status 2."""

import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

from lab import tables
from lab.classes import hand_classes
from lab.cli import main
from lab.solver.games.double_dummy import double_dummy_equity


def stand_in_solve(vira, settings, progress=False):
    """A stand-in for the CFR solver: equities shrunk from double dummy towards 1/2."""
    equity = 0.25 + 0.5 * double_dummy_equity(vira)
    w = hand_classes(vira).weight
    return SimpleNamespace(equity=equity, value=float(w @ equity[0]), exploitability=3e-5,
                           iterations=11, seconds=0.25)


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    return tmp_path


def equity(capsys, *argv):
    code = main(["equity", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_equity_from_the_table(data, capsys):
    tables.build_cardplay_tables(["5"], solve=stand_in_solve)
    code, out, err = equity(capsys, "--vira", "5h", "--hand", "6c,3d,6s", "--seat", "pe")
    assert code == 0 and err == ""
    got = json.loads(out)
    assert out.count("\n") == 1
    assert got["source"] == "table" and "table_status" not in got
    assert got["hand"] == "zap espadilha 3"  # vira 5: the manilha is 6
    assert got["vira"] == "5h" and got["seat"] == "pe"
    assert got["cards"] == ["6c", "3d", "6s"]
    i = hand_classes("5").index_of((12, 10, 8))
    assert got["equity"] == pytest.approx(0.25 + 0.5 * double_dummy_equity("5")[1, i])
    assert got["double_dummy"] == pytest.approx(double_dummy_equity("5")[1, i])
    assert got["exploitability"] == pytest.approx(3e-5)
    assert got["weight"] == pytest.approx(hand_classes("5").weight[i])


def test_equity_solves_the_vira_when_the_table_is_missing(data, capsys, monkeypatch):
    monkeypatch.setattr(tables, "solve_vira", stand_in_solve)
    code, out, err = equity(capsys, "--vira", "Ks", "--hand", "4c,4d,7h", "--seat", "mao")
    assert code == 0
    got = json.loads(out)
    assert got["source"] == "solved"
    assert "missing" in got["table_status"] and "lab solve cardplay --all" in got["table_status"]
    assert "solving vira K" in err
    assert got["hand"] == "7 4 4"
    i = hand_classes("K").index_of((3, 0, 0))
    assert got["double_dummy"] == pytest.approx(double_dummy_equity("K")[0, i])


def test_a_stale_table_is_not_used(data, capsys, monkeypatch):
    tables.build_cardplay_tables(["5"], solve=stand_in_solve)
    manifest = json.loads((data / "cardplay.json").read_text())
    manifest["rules_version"] = "001_other"
    (data / "cardplay.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(tables, "solve_vira", stand_in_solve)
    code, out, _ = equity(capsys, "--vira", "5h", "--hand", "6c,3d,6s", "--seat", "mão")
    got = json.loads(out)
    assert code == 0 and got["source"] == "solved" and "stale" in got["table_status"]
    assert got["seat"] == "mao"


@pytest.mark.parametrize("argv,names", [
    (["--vira", "5x", "--hand", "6c,3d,6s", "--seat", "pe"], "5x"),          # unknown suit
    (["--vira", "5h", "--hand", "6c,9d,6s", "--seat", "pe"], "9d"),          # unknown rank
    (["--vira", "5h", "--hand", "6c,3d,6c", "--seat", "pe"], "6c"),          # repeated card
    (["--vira", "5h", "--hand", "6c,5h,6s", "--seat", "pe"], "5h"),          # the vira in hand
    (["--vira", "5h", "--hand", "6c,3d", "--seat", "pe"], "expected 3"),     # too few
    (["--vira", "5h", "--hand", "6c,3d,6s,7d", "--seat", "pe"], "expected 3"),  # too many
    (["--vira", "5h", "--hand", "6c,3d,6s", "--seat", "dealer"], "dealer"),  # wrong seat
    (["--vira", "5h", "--hand", "6c,3d,6s"], "--seat"),                      # no seat
    (["--vira", "5h", "--hand", "", "--seat", "pe"], "expected 3"),          # empty hand
])
def test_bad_input_is_one_error_line_and_exit_2(data, capsys, argv, names):
    code, out, err = equity(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1
    assert names in err
    assert not (data / "cardplay.parquet").exists()


def test_the_installed_command_reports_bad_input_without_a_traceback(data):
    proc = subprocess.run([sys.executable, "-m", "lab", "equity", "--vira", "5h", "--hand",
                           "6c,5h,6s", "--seat", "pe"], capture_output=True, text=True,
                          env={"LAB_DATA_DIR": str(data), "PATH": ""})
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("error: 5h") and "Traceback" not in proc.stderr


def test_equity_reads_the_committed_table(capsys, monkeypatch):
    monkeypatch.delenv("LAB_DATA_DIR", raising=False)
    code, out, _ = equity(capsys, "--vira", "4c", "--hand", "5c,5h,5s", "--seat", "mao")
    got = json.loads(out)
    assert code == 0 and got["source"] == "table"
    assert got["hand"] == "zap copas espadilha"
    assert got["equity"] == pytest.approx(1.0, abs=1e-6) and got["double_dummy"] == 1.0
    assert 0 < got["exploitability"] <= 1e-4


def test_equity_solves_with_the_real_solver_when_the_table_is_missing(data, capsys):
    code, out, _ = equity(capsys, "--vira", "Jd", "--hand", "Kc,Kd,4s", "--seat", "pe")
    got = json.loads(out)
    assert code == 0 and got["source"] == "solved"
    assert got["hand"] == "zap pica-fumo 4"  # vira J: the manilha is K
    assert 0 < got["exploitability"] <= 1e-4
    committed = tables.load_table("cardplay", viras=["J"], directory=tables.Path(
        tables.__file__).resolve().parents[2] / "data")
    row = committed[(committed["seat"] == "pe") & (committed["hand"] == got["hand"])].iloc[0]
    assert got["double_dummy"] == pytest.approx(row["double_dummy"], abs=1e-12)
    assert got["equity"] == pytest.approx(row["equity"], abs=0.01)
