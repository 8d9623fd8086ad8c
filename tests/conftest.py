"""Shared test helpers."""

import os

import pytest

from lab.dashboards.background import Background
from lab.tables import TableError, load_table, solved_viras


def in_ci() -> bool:
    """True under CI (CI=true), where a missing prerequisite fails instead of skipping."""
    return os.environ.get("CI") == "true"


def require_table(name: str, solved_only: bool = False):
    """A solved table from data/ (the viras solved so far when ``solved_only``); under CI a
    missing or stale table fails the test, elsewhere it skips it."""
    try:
        return load_table(name, viras=solved_viras(name) if solved_only else None)
    except TableError as exc:
        message = f"solved table needed: {exc}"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)


def complete_table(name: str, frame):
    """``frame`` with the columns a table of ``name`` lacks added (zeros, "x" for text),
    in the table's column order: made-up tables that the tables layer will write."""
    from lab.tables import columns_of

    frame = frame.copy()
    fill = {"str": "x", "int": 0, "bool": False, "float": 0.0, "float?": 0.0}
    for column, kind in columns_of(name).items():
        if column not in frame:
            frame[column] = fill[kind]
    return frame[list(columns_of(name))]


def assert_same_first_iterates(ref, mine) -> None:
    """Two iterations of the generic solver ``ref`` (strategy sums added in the opponent's
    walk, as the compact solver adds them) and the compact solver ``mine`` give the same
    best responses: both seats' after the first, and after the second the mão's (against
    the pé's sums of both iterations, weighted by the schedule).

    Not compared: the pé's best response after the second iteration. The mão's sums then
    hold his strategy of the third iteration, and on these small decks regret matching
    meets exact ties between regrets, whose float rounding differs between the two
    solvers: perturbing the generic solver's regrets by 1e-9 moves its third iterate's best
    response by 0.14 points."""
    ref.iterate(1)
    mine.iterate(1)
    assert mine.exploitability() == pytest.approx(ref.exploitability(), rel=1e-6, abs=1e-7)
    assert mine.best_response_values() == pytest.approx(ref.best_response_values(), abs=1e-6)
    ref.iterate(1)   # the second iteration applies each schedule's own weights
    mine.iterate(1)
    assert mine.best_response_values()[0] == pytest.approx(ref.best_response_values()[0],
                                                           abs=1e-6)


def default_sigint():
    """``preexec_fn`` for a child a test interrupts with Ctrl-C: SIGINT at its default, as a
    command started from a terminal has it. The test process has been seen (in full runs
    only, not yet traced to a test) with SIGINT ignored, and a child would inherit that and
    never see the signal."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def linked_copy(source, tmp_path):
    """A copy of the data folder ``source`` under ``tmp_path`` (its folders, the stored
    policies, linked rather than copied)."""
    import shutil

    target = tmp_path / "data"
    target.mkdir()
    for path in source.iterdir():
        if path.name.startswith("."):
            continue
        if path.is_dir():
            (target / path.name).symlink_to(path)
        else:
            shutil.copy2(path, target / path.name)
    return target


@pytest.fixture(autouse=True)
def history_in_tmp(tmp_path_factory, monkeypatch):
    """Matches that ``lab play`` saves go to a temporary history folder, never the home."""
    monkeypatch.setenv("LAB_HISTORY_DIR", str(tmp_path_factory.mktemp("history")))


class Deferred(Background):
    """A dashboard's background that loads at once and keeps every other job (exact
    values: seconds at a deal) until the test runs them (``run_jobs``), or never."""

    def __init__(self):
        super().__init__(threaded=False)
        self.jobs = []

    def submit(self, kind, work, done, failed=None, delay=0.0):
        if kind == "load":
            return super().submit(kind, work, done, failed)
        self.jobs.append((work, done))

    def run_jobs(self):
        jobs, self.jobs = self.jobs, []
        for work, done in jobs:
            done(work())
