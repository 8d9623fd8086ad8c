"""Fault injection: writes killed in their window, concurrent writers, corrupt tables and
manifests, interrupted solves and their resumes.

Each test breaks something on purpose and checks what a reader or a resumed solve sees:
the old data, the new data, or one error line naming the rebuild command; never a
mixture served as good data, never a traceback.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lab import store
from lab import tables as T
from lab.cards import RANKS
from lab.cli import main as lab_main
from conftest import default_sigint

ROOT = Path(__file__).resolve().parent.parent
INFO = {"iterations": 1, "exploitability": 0.001, "seconds": 0.0}


def summary_rows(value: float, viras=RANKS) -> pd.DataFrame:
    """A made-up ``cardplay_summary`` whose numbers all say ``value``."""
    return pd.DataFrame({"vira": list(viras), "value_mao": value, "double_dummy_mao": value,
                         "exploitability": 0.001, "iterations": 1, "seconds": 0.0})


def cardplay_rows(value: float, viras=RANKS) -> pd.DataFrame:
    """A made-up ``cardplay`` table (one row per vira and seat) saying ``value``."""
    rows = [{"vira": v, "seat": seat, "hand": "x", "best": "x", "second": "x", "third": "x",
             "equity": value, "double_dummy": value, "weight": 1.0, "exploitability": 0.001}
            for v in viras for seat in ("mao", "pe")]
    return pd.DataFrame(rows)


def write_family(directory, value: float) -> None:
    T.write_tables({"cardplay": T.TableWrite(cardplay_rows(value), T.CARDPLAY_SETTINGS,
                                             {v: INFO for v in RANKS}),
                    "cardplay_summary": T.TableWrite(summary_rows(value), T.CARDPLAY_SETTINGS,
                                                     {v: INFO for v in RANKS})}, directory)


def what_readers_see(directory) -> set:
    """{value} of each table of the family that loads; TableError ones are left out."""
    seen = set()
    for name, column in (("cardplay", "equity"), ("cardplay_summary", "value_mao")):
        try:
            seen |= set(T.load_table(name, directory=directory)[column])
        except T.TableError as exc:
            assert "rebuild it with `lab solve cardplay --all`" in str(exc)
    return seen


# ---------------------------------------------------------------- the write window


class Killed(BaseException):
    """Stands for the process dying at one step of a write."""


@pytest.mark.parametrize("step", range(4))
def test_a_write_killed_at_any_step_never_serves_a_mixture(tmp_path, monkeypatch, step):
    """A family write does four renames (two parquets, two manifests); dying before any
    one of them leaves each table either whole (old or new, and then both tables of the
    family agree) or refused with the rebuild command."""
    write_family(tmp_path, 0.25)
    renames = []
    real_replace = os.replace

    def replace(src, dst):
        if len(renames) == step:
            raise Killed
        renames.append(dst)
        real_replace(src, dst)

    monkeypatch.setattr(store.os, "replace", replace)
    with pytest.raises(Killed):
        write_family(tmp_path, 0.75)
    assert len(renames) == step
    monkeypatch.setattr(store.os, "replace", real_replace)
    seen = what_readers_see(tmp_path)
    assert len(seen) <= 1, f"readers saw a mixture {seen} after {step} renames"
    # the temporaries of the killed write are cleaned by the next writer
    write_family(tmp_path, 0.5)
    assert what_readers_see(tmp_path) == {0.5}
    assert not list(tmp_path.glob(".*.tmp"))


def _kill_child(directory, seed):
    """Write families in a loop until killed (a separate process)."""
    value = 0.0
    while True:
        value += 1.0
        write_family(directory, value)


def test_writers_killed_by_sigkill_leave_nothing_mixed(tmp_path):
    """Real kills at random moments of a writing process."""
    write_family(tmp_path, 0.0)
    code = ("import sys; sys.path.insert(0, %r); from test_faults import _kill_child; "
            "_kill_child(%r, 0)" % (str(ROOT / "tests"), str(tmp_path)))
    rng = random.Random(4)
    for _ in range(3):
        child = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
        time.sleep(1.5 + rng.random())
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert len(what_readers_see(tmp_path)) <= 1


def _write_many(directory, worker):
    for i in range(10):
        write_family(directory, float(worker * 100 + i))
    return worker


def test_concurrent_writers_all_succeed_and_agree(tmp_path):
    """Four processes write the same family 10 times each: no write fails, and what is
    left is one writer's whole family."""
    import multiprocessing

    with ProcessPoolExecutor(4, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert sorted(pool.map(_write_many, [tmp_path] * 4, range(4))) == [0, 1, 2, 3]
    seen = what_readers_see(tmp_path)
    assert len(seen) == 1 and next(iter(seen)) % 100 == 9
    assert not list(tmp_path.glob(".*.tmp"))


# ---------------------------------------------------------------- corrupt tables


def copy_real(name, tmp_path):
    """Copy the committed table ``name`` (and those it is built on) into ``tmp_path``."""
    import shutil

    for table in (name, *T.spec_of(name).built_on):
        for path in T.table_paths(table):
            shutil.copy(path, tmp_path / path.name)
    return T.table_paths(name, tmp_path)


def manifest_edit(tmp_path, name, change):
    path = T.table_paths(name, tmp_path)[1]
    manifest = json.loads(path.read_text())
    path.write_text(json.dumps(change(manifest)))


CORRUPTIONS = {
    "manifest is a list": lambda p, m: m.write_text("[]"),
    "manifest is empty": lambda p, m: m.write_text(""),
    "manifest is binary": lambda p, m: m.write_bytes(b"\xff\xfe\x00"),
    "rows + 1": lambda p, m: m.write_text(json.dumps(
        dict(json.loads(m.read_text()), rows=json.loads(m.read_text())["rows"] + 1))),
    "a number changed": lambda p, m: p.write_bytes(_changed_number(p)),
    "truncated parquet": lambda p, m: p.write_bytes(p.read_bytes()[:len(p.read_bytes()) // 2]),
    # cardplay and full_ev have the same row count (one row per vira, seat and class)
    "another table's parquet": lambda p, m: p.write_bytes(T.table_paths(
        "cardplay" if p.name == "full_ev.parquet" else "full_ev")[0].read_bytes()),
    "viras is not a mapping": lambda p, m: m.write_text(json.dumps(
        dict(json.loads(m.read_text()), viras=["4"]))),
    "built_on is text": lambda p, m: m.write_text(json.dumps(
        dict(json.loads(m.read_text()), built_on="x"))),
}


def _changed_number(parquet: Path) -> bytes:
    import io

    df = pd.read_parquet(parquet)
    column = "ev" if "ev" in df else "equity"
    df.loc[0, column] += 0.125
    out = io.BytesIO()
    df.to_parquet(out, index=False, compression="zstd")
    return out.getvalue()


@pytest.mark.parametrize("name", ["full_ev", "cardplay"])
@pytest.mark.parametrize("kind", list(CORRUPTIONS))
def test_corrupt_tables_are_refused_with_the_rebuild_command(tmp_path, name, kind):
    parquet, manifest = copy_real(name, tmp_path)
    CORRUPTIONS[kind](parquet, manifest)
    with pytest.raises(T.TableError, match=r"(rebuild|build) it with `lab solve"):
        T.load_table(name, viras=["4"], directory=tmp_path)


def _table_columns_dropped(tmp_path, name, column):
    parquet, manifest = copy_real(name, tmp_path)
    df = pd.read_parquet(parquet).drop(columns=[column])
    df.to_parquet(parquet, index=False)
    manifest_edit(tmp_path, name, lambda m: dict(m, sha256=store.content_hash(parquet)))


@pytest.mark.parametrize("name,column", [("cardplay", "equity"), ("full_ev", "ev"),
                                         ("match_equity", "p_mao")])
def test_a_missing_column_is_refused_even_with_a_matching_hash(tmp_path, name, column):
    _table_columns_dropped(tmp_path, name, column)
    with pytest.raises(T.TableError, match=f"columns are .*{column}|expected .*{column}"):
        T.load_table(name, viras=T.solved_viras(name, tmp_path), directory=tmp_path)


def test_nan_where_a_number_is_promised_is_refused(tmp_path):
    parquet, _ = copy_real("match_equity", tmp_path)
    df = pd.read_parquet(parquet)
    df.loc[3, "p_mao"] = float("nan")
    df.to_parquet(parquet, index=False)
    manifest_edit(tmp_path, "match_equity", lambda m: dict(m, sha256=store.content_hash(parquet)))
    with pytest.raises(T.TableError, match="'p_mao' does not hold finite numbers"):
        T.load_table("match_equity", directory=tmp_path)


@pytest.fixture
def corrupt_folder(tmp_path, monkeypatch):
    """Every committed table copied with its manifest's row count off by one."""
    names = [name for name in T.TABLES if T.table_paths(name)[0].exists()]
    for name in names:
        copy_real(name, tmp_path)
    for name in names:
        manifest_edit(tmp_path, name, lambda m: dict(m, rows=m["rows"] + 1))
    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("argv", [
    ["ev", "--vira", "4c", "--hand", "Qh,3d,4s", "--seat", "mao"],
    ["match", "--score", "3,4"],
])
def test_commands_on_a_corrupt_folder_print_one_error_line(corrupt_folder, capsys, argv):
    assert lab_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "lab solve" in err


def test_equity_on_a_corrupt_table_solves_instead_of_serving_it(corrupt_folder, capsys):
    """``lab equity`` falls back to solving the vira when its table cannot be read."""
    assert lab_main(["equity", "--vira", "7c", "--hand", "Qh,3d,4s", "--seat", "mao"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["source"] == "solved" and "stale or corrupt" in out["table_status"]


@pytest.mark.parametrize("dashboard", ["lab.dashboards.equity_by_vira:equity_by_vira",
                                       "lab.dashboards.match_equity:match_equity",
                                       "lab.dashboards.hand_explorer:hand_explorer"])
def test_dashboards_on_a_corrupt_folder_show_the_rebuild_command(corrupt_folder, dashboard):
    import importlib

    import ipywidgets as W

    module, name = dashboard.split(":")
    texts, todo = [], [getattr(importlib.import_module(module), name)()]
    while todo:
        widget = todo.pop()
        if isinstance(widget, W.HTML):
            texts.append(widget.value)
        todo += list(getattr(widget, "children", ()))
    page = " ".join(texts)
    assert "table to rebuild" in page and "stale or corrupt" in page
    assert "<code>lab solve" in page


def test_an_unwritable_data_folder_is_refused_before_the_solve(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv("LAB_DATA_DIR", str(blocker / "data"))  # unwritable even for root
    started = []
    monkeypatch.setattr("lab.tables.build_cardplay_tables",
                        lambda *args, **kwargs: started.append(args))
    assert lab_main(["solve", "cardplay", "--vira", "4"]) == 2
    assert started == []   # refused before the solve
    assert "the data folder" in capsys.readouterr().err


# ---------------------------------------------------------------- interrupted solves

TOY_ITERATIONS = 3000   # a few seconds: each child below is still solving when signalled
TOY_SOLVE = ["bench", "full", "--toy", "2,2,2,1", "--ladder", "1,3", "--target", "1e-12",
             "--max-iterations", str(TOY_ITERATIONS), "--check-every", "7",
             "--checkpoint-minutes", "0.0005",
             "--storage", "int16", "--schedules", "dcfr"]   # the FullSolver defaults below


def test_interrupted_solves_resume_bit_identically(tmp_path):
    """A toy solve interrupted at a random moment by SIGINT, SIGTERM or SIGKILL, then
    resumed from its checkpoint, ends with exactly the regrets and sums of an
    uninterrupted run (the checkpoint holds whole iterations only)."""
    from lab.solver.fullgame.solver import FullSolver, config_for, has_checkpoint

    cfg = config_for(toy_cap=(2, 2, 2, 1), ladder=(1, 3))
    straight = FullSolver(cfg).solve(1e-12, TOY_ITERATIONS, check_every=7)
    rng = random.Random(16)
    runs = []
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        ck = tmp_path / f"ck{len(runs)}"
        child = subprocess.Popen([sys.executable, "-m", "lab", *TOY_SOLVE, "--checkpoint",
                                  str(ck)], cwd=ROOT, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
        runs.append((sig, ck, child))
    for sig, ck, child in runs:
        child.stdout.readline()            # the solver is built and compiled: it iterates now
        deadline = time.time() + 60
        while not has_checkpoint(ck) and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(rng.random() * 0.5)
        child.send_signal(sig)
    for sig, ck, child in runs:
        _, err = child.communicate(timeout=120)
        if sig == signal.SIGKILL:
            assert child.returncode == -signal.SIGKILL
        else:   # Ctrl-C and SIGTERM end the command with one line
            assert child.returncode == 130 and "Traceback" not in err, err[-2000:]
            assert err.rstrip().splitlines()[-1].split("\r")[-1] == "error: interrupted"
        resumed = FullSolver(cfg).solve(1e-12, TOY_ITERATIONS, check_every=7,
                                        checkpoint_dir=ck)
        assert resumed.iterations == TOY_ITERATIONS
        assert np.array_equal(resumed.reg16, straight.reg16), signal.Signals(sig).name
        assert np.array_equal(resumed.cum16, straight.cum16), signal.Signals(sig).name
        assert np.array_equal(resumed.rscale, straight.rscale)


def test_an_interrupt_is_taken_once_the_checkpoint_being_written_is_whole(tmp_path,
                                                                          monkeypatch):
    """Ctrl-C arriving while a checkpoint's arrays are compressed (on a thread pool, whose
    lock an interrupt can break) lets the checkpoint finish, then stops the solve."""
    from lab.solver.fullgame import solver as full
    from lab.solver.fullgame.solver import FullSolver, config_for

    cfg = config_for(toy_cap=(2, 2, 2, 1), ladder=(1, 3))
    solver = FullSolver(cfg)
    solver.solve(1e-12, 5, check_every=5)
    real, written = full.save_array, []

    def save_array(path, arr, threads=1):
        if not written:
            signal.raise_signal(signal.SIGINT)
        written.append(Path(path).name)
        return real(path, arr, threads)

    monkeypatch.setattr(full, "save_array", save_array)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            solver.save_checkpoint(tmp_path / "ck")
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
    assert len(written) == len(solver._arrays()) > 1
    resumed = FullSolver(cfg).load_checkpoint(tmp_path / "ck")
    assert resumed.iterations == 5 and np.array_equal(resumed.reg16, solver.reg16)


def test_a_clean_up_broken_by_an_interrupt_ends_as_interrupted(monkeypatch, capsys):
    """An error raised while an interrupt is handled (a thread pool's lock released twice)
    ends the command as the interrupt does: status 130 and one line; the same error
    without an interrupt is an internal error (status 1)."""
    import lab.bench.full as bench_full

    def broken(argv):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("cannot release un-acquired lock")

    monkeypatch.setattr(bench_full, "main", broken)
    assert lab_main(["bench", "full"]) == 130
    assert capsys.readouterr().err.strip() == "error: interrupted"

    def faulty(argv):
        raise RuntimeError("cannot release un-acquired lock")

    monkeypatch.setattr(bench_full, "main", faulty)
    assert lab_main(["bench", "full"]) == 1
    assert "internal error (RuntimeError" in capsys.readouterr().err


def test_a_half_done_iteration_is_never_saved(tmp_path, monkeypatch):
    """Interrupted between the two seats' traversals of an iteration, the solve keeps the
    last checkpoint instead of saving half an iteration."""
    from lab.solver.fullgame.solver import FullSolver, SolverStateError, config_for

    cfg = config_for(toy_cap=(2, 2, 2, 1), ladder=(1, 3))
    ck = tmp_path / "ck"
    FullSolver(cfg).solve(1e-12, 10, check_every=5, checkpoint_dir=ck)
    solver = FullSolver(cfg)
    real = FullSolver.traverse
    calls = []

    def traverse(self, u, *args, **kwargs):
        out = real(self, u, *args, **kwargs)
        calls.append(u)
        if len(calls) == 7:      # after the mão's traversal of iteration 14
            raise KeyboardInterrupt
        return out

    monkeypatch.setattr(FullSolver, "traverse", traverse)
    with pytest.raises(KeyboardInterrupt):
        solver.solve(1e-12, 20, check_every=5, checkpoint_dir=ck)
    assert json.loads((ck / "state.json").read_text())["iterations"] == 10
    with pytest.raises(SolverStateError, match="interrupted"):
        solver.save_checkpoint(ck)


def test_ctrl_c_on_a_local_dask_cluster_is_one_line(tmp_path):
    """Ctrl-C reaches the whole foreground process group, the cluster's worker processes
    too: the command still ends with the one line ``error: interrupted`` (no worker's
    traceback) and leaves no worker behind."""
    import psutil

    child = subprocess.Popen([sys.executable, "-m", "lab", "simulate", "--a", "cautious", "--b",
                              "random", "--matches", "2000000", "--workers", "2", "--seed", "1",
                              "--quiet"], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True,
                             preexec_fn=default_sigint)
    me = psutil.Process(child.pid)
    try:
        deadline = time.time() + 120
        workers = []
        while len(workers) < 2 and time.time() < deadline and child.poll() is None:
            time.sleep(0.2)
            workers = [p for p in me.children(recursive=True)
                       if "spawn_main" in " ".join(p.cmdline())]
        assert len(workers) == 2, "the local cluster did not start its two workers"
        time.sleep(3)                           # the workers play their first chunks
        os.killpg(child.pid, signal.SIGINT)     # what a terminal's Ctrl-C does
        out, err = child.communicate(timeout=120)
        assert (child.returncode, out, err) == (130, "", "error: interrupted\n")
        gone, alive = psutil.wait_procs(workers, timeout=30)
        assert not alive
    finally:   # a failed run leaves neither the command nor its workers to the next tests
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        child.wait()
