"""Recovery: a write that merges new rows into a table never shrinks it by accident.

A table on disk that cannot be kept (damaged by a write stopped half-way, or stale) makes
the ordinary rerun refuse in one line, its files untouched, naming the two ways on (the
whole rebuild, or ``--replace`` to keep only the new rows); a write killed (SIGKILL) or
interrupted (Ctrl-C) at any step, followed by the ordinary rerun, never leaves a smaller
table; two writers of one family at once lose no row; and solving the same numbers again
makes nothing built on them due.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest

from lab import store
from lab import tables as T
from lab.cards import RANKS
from lab.rules import PRESETS
from lab.tables import manifests as M
from lab.tables.chain import plan
from conftest import default_sigint, linked_copy, require_table

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
CARDPLAY = ("cardplay", "cardplay_summary")
WHATIF = ("whatif", "whatif_match")


def files_of(directory: Path) -> dict:
    """{name: bytes} of the table files (parquet and manifest) in ``directory``."""
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())
            if p.suffix in (".parquet", ".json")}


def held_viras(name: str, directory: Path) -> set:
    return set(T.load_table(name, viras=T.solved_viras(name, directory),
                            directory=directory)["vira"])


def write_viras(directory, viras, value: float = 0.25, replace: bool = False) -> dict:
    """What ``lab solve cardplay --vira ...`` writes (:func:`write_merged`), with made-up
    rows that say ``value``: two rows per vira in ``cardplay``, one in ``cardplay_summary``."""
    rows = {"cardplay": pd.DataFrame([
                {"vira": v, "seat": seat, "hand": "x", "best": "x", "second": "x",
                 "third": "x", "equity": value, "double_dummy": value, "weight": 1.0,
                 "exploitability": 1e-5} for v in viras for seat in ("mao", "pe")]),
            "cardplay_summary": pd.DataFrame({
                "vira": list(viras), "value_mao": value, "double_dummy_mao": value,
                "exploitability": 1e-5, "iterations": 1, "seconds": 0.5})}
    info = {v: {"iterations": 1, "exploitability": 1e-5} for v in viras}
    return M.write_merged(rows, T.CARDPLAY_SETTINGS, info, directory, replace=replace)


def lab(*args, data: Path):
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "LAB_DATA_DIR": str(data)})


# ---------------------------------------------------------------- corrupt table, rerun


DAMAGE = {
    "truncated parquet": lambda d: (d / "cardplay.parquet").write_bytes(
        (d / "cardplay.parquet").read_bytes()[:1000]),
    "manifest not JSON": lambda d: (d / "cardplay.json").write_text("{not json"),
    "family written half": lambda d: M.write_tables({"cardplay_summary": M.TableWrite(
        T.load_table("cardplay_summary", viras=["4", "5"], directory=d).assign(seconds=9.0),
        T.CARDPLAY_SETTINGS, {v: {"iterations": 1, "exploitability": 1e-5} for v in "45"})},
        d),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_table_is_refused_by_a_merge_and_kept_as_it_is(tmp_path, damage):
    write_viras(tmp_path, ["4", "5"])
    DAMAGE[damage](tmp_path)
    before = files_of(tmp_path)
    with pytest.raises(T.TableError) as refused:
        write_viras(tmp_path, ["7"])
    said = str(refused.value)
    assert "\n" not in said and said.startswith("table 'cardplay")
    assert said.endswith("rebuild it whole with `lab solve cardplay --all`, or pass --replace "
                         "to keep only the new rows")
    assert files_of(tmp_path) == before
    # the two ways on: the whole rebuild, and --replace
    write_viras(tmp_path, RANKS)   # what `lab solve cardplay --all` writes
    assert held_viras("cardplay", tmp_path) == set(RANKS)
    DAMAGE[damage](tmp_path)
    write_viras(tmp_path, ["7"], replace=True)
    for name in CARDPLAY:
        assert held_viras(name, tmp_path) == {"7"}


def test_the_ordinary_command_on_a_damaged_table_refuses_in_one_line(tmp_path):
    """`lab solve cardplay --vira 7` on a table cut short: exit 2, one line, before any
    solve, the files as they were."""
    write_viras(tmp_path, ["4", "5"])
    DAMAGE["truncated parquet"](tmp_path)
    before = files_of(tmp_path)
    out = lab("solve", "cardplay", "--vira", "7", "--no-progress", data=tmp_path)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: table 'cardplay' ")
    assert "would drop the rows of vira 4, 5" in out.stderr and "--replace" in out.stderr
    assert files_of(tmp_path) == before


def test_a_whatif_over_damaged_tables_refuses_and_replace_keeps_its_rule_set(tmp_path):
    """The what-if tables hold several rule sets: a damaged table is refused, not dropped,
    before the solves (`lab whatif`), and ``--replace`` writes the one rule set alone."""
    from lab.tables import whatif

    copy_tables(tmp_path, ("cardplay_summary", "full_summary", "match_equity", "mao_de_onze",
                           *WHATIF))
    path = tmp_path / "whatif_match.parquet"
    path.write_bytes(path.read_bytes()[:-100])
    before = files_of(tmp_path)
    out = lab("whatif", "--rules", "fpt", "--no-progress", data=tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith("error: table 'whatif_match'")
    assert "--replace" in out.stderr and "`lab whatif --rules NAME`" in out.stderr
    assert files_of(tmp_path) == before
    with no_solves():
        whatif.build_whatif(PRESETS["fpt"], directory=tmp_path, replace=True)
    for name in WHATIF:
        assert set(T.load_table(name, directory=tmp_path)["rules"]) == {"fpt"}


def copy_tables(directory: Path, names) -> None:
    for name in names:
        for path in T.table_paths(name, DATA):
            shutil.copy(path, directory / path.name)


@contextmanager
def no_solves():
    """``whatif_of`` replaced by the bundled rows of the rule set: a what-if without solves."""
    from lab.tables import whatif

    real = whatif.whatif_of
    whatif.whatif_of = stored_rows_of
    try:
        yield
    finally:
        whatif.whatif_of = real


def stored_rows_of(rules, *args, **kwargs) -> dict:
    out = {}
    for name in WHATIF:
        rows = M.parquet_frame(T.table_paths(name, DATA)[0])
        out[name] = rows[rows["rules_version"] == rules.version].reset_index(drop=True)
    viras = json.loads(T.table_paths("whatif", DATA)[1].read_text())["viras"]
    out["records"] = {v: {"iterations": r["iterations"], "exploitability": r["exploitability"]}
                      for v, r in viras.items()}
    return out


# ---------------------------------------------------------------- killed and interrupted


CHILD = """
import os, sys, time
sys.path.insert(0, {tests!r})
from test_recovery import write_viras
step, real, done = int(sys.argv[2]), os.replace, []
def replace(src, dst):   # the write's renames: the signal lands before rename `step`
    if len(done) == step:
        print("at", step, flush=True)
        time.sleep(1.0)
    done.append(dst)
    real(src, dst)
os.replace = replace
write_viras(sys.argv[1], ["7"], 0.75)
print("written", flush=True)
"""


@pytest.mark.parametrize("signum,step", [(signal.SIGKILL, 0), (signal.SIGKILL, 1),
                                         (signal.SIGKILL, 2), (signal.SIGKILL, 3),
                                         (signal.SIGINT, 1), (signal.SIGINT, 3),
                                         (signal.SIGTERM, 2)])
def test_a_write_stopped_at_any_step_then_the_rerun_never_shrinks_the_table(tmp_path, signum,
                                                                            step):
    """A write of vira 7 into tables of viras 4 and 5 killed, or interrupted with Ctrl-C or
    SIGTERM, before each of its four renames; then the ordinary rerun (vira 7 again) either
    writes a table that keeps every vira or refuses with its files untouched. Ctrl-C and
    SIGTERM are held off until the write is whole."""
    write_viras(tmp_path, ["4", "5"])
    code = CHILD.format(tests=str(ROOT / "tests"))
    child = subprocess.Popen([sys.executable, "-c", code, str(tmp_path), str(step)], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=default_sigint)
    assert child.stdout.readline() == f"at {step}\n"
    child.send_signal(signum)
    out, err = child.communicate(timeout=60)
    assert "written" not in out
    if signum != signal.SIGKILL:   # the write ran to its end, then the signal was taken
        assert child.returncode == -signum
        assert ("KeyboardInterrupt" in err) == (signum == signal.SIGINT)
        for name in CARDPLAY:
            assert held_viras(name, tmp_path) == {"4", "5", "7"}
    before = files_of(tmp_path)
    try:
        write_viras(tmp_path, ["7"])
    except T.TableError as exc:
        assert "--replace" in str(exc) and "\n" not in str(exc)
        assert files_of(tmp_path) == before
        assert signum == signal.SIGKILL and step > 0   # only a write stopped half-way
    else:
        for name in CARDPLAY:
            assert held_viras(name, tmp_path) == {"4", "5", "7"}


class Killed(BaseException):
    """Stands for the process dying at one step of a write."""


def dies_at(monkeypatch, step: int) -> None:
    renames = []
    real = os.replace

    def replace(src, dst):
        if len(renames) == step:
            raise Killed
        renames.append(dst)
        real(src, dst)

    monkeypatch.setattr(store.os, "replace", replace)


@pytest.mark.parametrize("step", range(4))
def test_a_whatif_write_killed_then_another_rule_set_keeps_every_rule_set(tmp_path,
                                                                          monkeypatch, step):
    """The issue's case: a what-if write stopped at any step, then the what-if of another
    rule set: both rule sets are there afterwards, or that write is refused."""
    from lab.tables import whatif

    copy_tables(tmp_path, ("cardplay_summary", "full_summary", "match_equity", "mao_de_onze"))
    fpt, buteco = PRESETS["fpt"], PRESETS["buteco"]
    with no_solves():
        whatif.build_whatif(buteco, directory=tmp_path)
        dies_at(monkeypatch, step)
        with pytest.raises(Killed):
            whatif.build_whatif(fpt, directory=tmp_path)
        monkeypatch.undo()
        before = files_of(tmp_path)
        try:
            whatif.build_whatif(fpt, directory=tmp_path)
        except T.TableError as exc:
            assert "--replace" in str(exc) and files_of(tmp_path) == before
            assert step > 0
        else:
            for name in WHATIF:
                assert set(T.load_table(name, directory=tmp_path)["rules"]) == {"fpt", "buteco"}


def test_a_score_leak_write_killed_then_a_rerun_refuses_or_measures_it_all(tmp_path,
                                                                          monkeypatch):
    """Killed between its two renames, a write leaves a ``score_leak`` that refuses to
    load; the rerun of one vira refuses, a run that measures every vira it held goes on."""
    from lab.tables.score import write_rows

    leaks = M.parquet_frame(T.table_paths("score_leak", DATA)[0])
    rows = {v: leaks[leaks["vira"] == v].to_dict("records") for v in ("4", "5")}
    write_rows(rows["4"], tmp_path)
    dies_at(monkeypatch, 1)
    with pytest.raises(Killed):
        write_rows(rows["5"], tmp_path)
    monkeypatch.undo()
    before = files_of(tmp_path)
    with pytest.raises(T.TableError, match="would drop the rows of vira 4: rebuild it whole"):
        write_rows(rows["5"], tmp_path)
    assert files_of(tmp_path) == before
    # a run that measures vira 4 and 5 at every score starts the table again
    write_rows(rows["5"], tmp_path, covers=["4", "5"])
    write_rows(rows["4"], tmp_path, covers=["4", "5"])
    assert held_viras("score_leak", tmp_path) == {"4", "5"}


def test_a_damaged_score_play_is_refused_and_replace_starts_it_again(tmp_path):
    from lab.tables.score_play import load_plays, plays_to_rebuild, write_plays

    plays, hands = load_plays(DATA)
    mine = [(plays["vira"] == v, hands["vira"] == v) for v in ("4", "5")]
    write_plays(plays[mine[0][0]].to_dict("records"), hands[mine[0][1]].to_dict("records"),
                tmp_path)
    (tmp_path / "score_play_hands.json").write_text("[]")
    before = files_of(tmp_path)
    with pytest.raises(T.TableError, match=r"^table 'score_play.*the re-solves it holds: "
                                           r"rebuild it whole with .*--replace"):
        write_plays(plays[mine[1][0]].to_dict("records"),
                    hands[mine[1][1]].to_dict("records"), tmp_path)
    assert files_of(tmp_path) == before
    write_plays(plays[mine[1][0]].to_dict("records"), hands[mine[1][1]].to_dict("records"),
                tmp_path, replace=True)
    assert set(load_plays(tmp_path)[0]["vira"]) == {"5"}
    assert {v for v, _, _ in plays_to_rebuild(tmp_path)} == {"4"}   # still to re-solve


# ---------------------------------------------------------------- concurrent writers


FAMILIES = {"cardplay": ("cardplay", "cardplay_summary"),
            "full": ("full_ev", "full_strategy", "full_summary"), "score": ("score_leak",),
            "match_play": ("score_play", "score_play_hands"), "ranking": ("bot_ranking",)}
"""The families of tables written by merging new viras into them (each in a folder of its
own here, so that none is built on another's changing rows), besides the what-if."""


def _write_each_family(directory: str, worker: int, start: float) -> int:
    """Write the worker's vira (4 or 5) or rule set into every family, each write paused
    between its read and its write, from the moment ``start`` on (a separate process)."""
    from lab.tables import whatif
    from lab.tables.full import write_full_tables
    from lab.tables.score import write_rows
    from lab.tables.score_play import load_plays, write_plays

    root = Path(directory)
    real = M.write_tables

    def slow_write(*args, **kwargs):   # read ... (a pause) ... write
        time.sleep(0.3)
        return real(*args, **kwargs)

    M.write_tables = whatif.write_tables = slow_write
    whatif.whatif_of = stored_rows_of
    v = ("4", "5")[worker]
    bundled = {name: M.parquet_frame(T.table_paths(name, DATA)[0])
               for names in FAMILIES.values() for name in names if name != "score_play_hands"}
    mine = {name: rows[rows["vira"] == v].reset_index(drop=True)
            for name, rows in bundled.items()}
    plays, hands = load_plays(DATA)
    while time.time() < start:
        time.sleep(0.01)
    write_viras(root / "cardplay", [v])
    summary = {k: getattr(x, "item", lambda: x)()   # plain numbers, as a solve gives them
               for k, x in mine["full_summary"].iloc[0].to_dict().items()}
    write_full_tables({v: {"full_ev": mine["full_ev"], "full_strategy": mine["full_strategy"],
                           "full_summary": summary}}, directory=root / "full")
    write_rows(mine["score_leak"].to_dict("records"), root / "score")
    write_plays(plays[plays["vira"] == v].to_dict("records"),
                hands[hands["vira"] == v].to_dict("records"), root / "match_play")
    ranked = bundled["bot_ranking"]   # the bundled vira's rows, as the worker's vira
    ranked = ranked[ranked["vira"] == ranked["vira"].iloc[0]].assign(vira=v)
    M.write_merged({"bot_ranking": ranked}, T.spec_of("bot_ranking").settings,
                   {v: {"iterations": 1, "exploitability": 0.01}}, root / "ranking")
    whatif.build_whatif(PRESETS[("fpt", "buteco")[worker]], directory=root / "whatif")
    return worker


def test_two_writers_of_every_family_at_once_lose_no_row(tmp_path):
    """Two processes write every family at once (each write paused between its read and
    its write, where a writer without the lock would lose the other's rows)."""
    start = time.time() + 8.0   # both processes started by then
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        done = pool.map(_write_each_family, [str(tmp_path)] * 2, [0, 1], [start] * 2)
        assert sorted(done) == [0, 1]
    for family, names in FAMILIES.items():
        for name in names:
            assert held_viras(name, tmp_path / family) == {"4", "5"}, name
    for name in WHATIF:
        assert set(T.load_table(name, directory=tmp_path / "whatif")["rules"]) == {"fpt",
                                                                                  "buteco"}
    assert not list(tmp_path.rglob(".*.tmp"))


# ---------------------------------------------------------------- freshness by numbers


@pytest.fixture
def copy(tmp_path):
    """A copy of the bundled data folder (the policy folders linked, not copied)."""
    require_table("cardplay")
    return linked_copy(DATA, tmp_path)


def due(directory) -> dict:
    return {row["step"]: row["why"] for row in plan(directory) if row["due"]}


def solve_again(directory: Path, vira: str, change=None) -> None:
    """Write vira ``vira`` of the card-play tables again as `lab solve cardplay --vira`
    does: the same numbers (``change``: rows -> rows with other ones), another time."""
    rows = {name: T.load_table(name, viras=[vira], directory=directory) for name in CARDPLAY}
    rows["cardplay_summary"]["seconds"] += 1.5
    if change is not None:
        rows = change(rows)
    info = json.loads(T.table_paths("cardplay", directory)[1].read_text())["viras"][vira]
    M.write_merged(rows, T.CARDPLAY_SETTINGS, {vira: dict(info, seconds=info["seconds"] + 1.5)},
                   directory)


def test_solving_the_same_numbers_again_makes_nothing_due(copy):
    was = due(copy)
    old_hash = json.loads((copy / "cardplay_summary.json").read_text())["sha256"]
    solve_again(copy, "7")
    manifest = json.loads((copy / "cardplay_summary.json").read_text())
    assert manifest["sha256"] != old_hash            # the file changed: its seconds
    assert old_hash in manifest["same_numbers_as"]   # its numbers did not
    assert due(copy) == was
    solve_again(copy, "7")                            # and again, on the new manifests
    assert due(copy) == was
    for name in ("match_equity", "mao_de_onze", "whatif"):
        T.load_table(name, directory=copy)            # still fresh for every reader

    def moved(rows):
        rows["cardplay_summary"]["value_mao"] += 1e-9
        return rows

    solve_again(copy, "7", moved)                     # other numbers: built on them is due
    now = due(copy)
    assert {"match", "whatif"} <= set(now) - set(was)
    assert "another 'cardplay_summary' table" in now["match"]


def test_a_stale_whatif_keeps_the_rule_set_not_computed_again_until_it_is(copy):
    """After the tables a what-if is built on change, computing one rule set again keeps
    the other's rows (and its full-game solves) and the tables stay due until that one is
    computed again too."""
    from lab.tables import whatif
    from lab.tables.chain import step_of, why_due

    def moved(rows):
        rows["cardplay_summary"]["value_mao"] += 1e-9
        return rows

    solve_again(copy, "7", moved)
    assert "another 'cardplay_summary'" in why_due(step_of("whatif"), copy)
    before = T.load_table("whatif", directory=DATA)
    with no_solves():
        whatif.build_whatif(PRESETS["fpt"], directory=copy)
        assert "another 'cardplay_summary'" in why_due(step_of("whatif"), copy)
        kept = whatif.stored_whatif("whatif", copy)
        assert kept[kept["rules"] == "buteco"].reset_index(drop=True).equals(
            before[before["rules"] == "buteco"].reset_index(drop=True))
        whatif.build_whatif(PRESETS["buteco"], directory=copy)
    assert why_due(step_of("whatif"), copy) is None
    assert set(T.load_table("whatif", directory=copy)["rules"]) == {"fpt", "buteco"}
