"""Shared test helpers."""

import os

import pytest

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
