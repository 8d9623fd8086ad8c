"""Tidy tables of solved quantities, and the ``data/`` cache that keeps them: the only
layer that reads or writes ``data/``.

The package: :mod:`~lab.tables.registry` (each table's schema, settings and rebuild
command; where tables live), :mod:`~lab.tables.manifests` (reading a table checked
against its manifest, writing tables atomically), one builder module per family
(:mod:`~lab.tables.cardplay`, :mod:`~lab.tables.match`, :mod:`~lab.tables.full`,
:mod:`~lab.tables.score`), the stored full-game policies (:mod:`~lab.tables.policies`)
and the tidy public views of all of them (:mod:`~lab.tables.tidy`). The names most
callers need are re-exported here.

Each table is a pandas DataFrame with one row per fact. On disk it is
``data/<name>.parquet`` with a manifest ``data/<name>.json`` that records the
rules version, the solver settings, the iterations and exploitability reached,
the build time, a fingerprint of (table schema, rules version, settings) and a
hash of the source code that produced the numbers.

:func:`load_table` returns a table only when its manifest matches the current
rules version and settings; otherwise it raises :class:`TableError` naming the
command that rebuilds it. A stale or missing table is never silently used.
:func:`build_table` rebuilds.

Tables
------
``cardplay``
    One row per (vira, seat, hand class): ``vira`` (rank character), ``seat``
    (``mao``/``pe``), ``hand`` (label such as ``zap 3 K``), ``best``, ``second``,
    ``third`` (level names, strongest first), ``equity`` (win probability under
    the card-play equilibrium), ``double_dummy`` (win probability with both hands
    face up), ``weight`` (probability of being dealt the class) and
    ``exploitability`` (the vira's solve, win probability).
``cardplay_summary``
    One row per vira: ``vira``, ``value_mao`` (the mão's win probability),
    ``double_dummy_mao`` (the same, double dummy), ``exploitability`` (win
    probability), ``iterations``, ``seconds`` (wall time of the solve).

Both come from the same solves, so building one builds both.
``match_equity``
    One row per score before a hand (``score_mao``, ``score_pe``, each 0..11):
    ``p_mao`` / ``p_pe`` (match-win probability of the next hand's mão / pé),
    ``model`` (which hand model produced the row, see :data:`lab.match.MODEL_DESCRIPTIONS`)
    and ``exploitability`` (match-win probability; NaN for the full game's points play,
    whose leak is in ``score_leak``).
``mao_de_onze``
    One row per (vira, score, 11-holder's seat, hand class): ``score`` (``"M,P"``,
    the mão's and the pé's points), ``seat`` (the holder), ``hand``, ``accept``
    (probability that the holder accepts), ``value`` (the holder's match-win
    probability with that hand), ``weight`` and ``exploitability`` (match-win
    probability, that vira and score).

Both come from one backward induction over the scores (``lab solve match``),
built on the ``cardplay_summary`` table and, once it holds all ten viras, ``full_summary``.
``full_ev``, ``full_strategy``, ``full_summary``
    The full hand game with the truco ladder (points per hand), described in
    :mod:`lab.tables.full`. A full solve takes about half an hour per vira, so
    these tables may hold some viras only: :func:`solved_viras` says which, and
    ``load_table(name, viras=solved_viras(name))`` reads them.
``score_leak``
    One row per (vira, score) measured by ``lab solve score`` (normal scores only):
    ``value_mao`` (the mão's match-win probability when both play the points
    solution), ``gain_mao`` / ``gain_pe`` (each seat's best-response gain against it)
    and ``leak`` (their mean), all in match-win probability; ``points_exploitability``
    (points per hand) and ``points_iterations`` of the solution measured; the
    score-aware re-solve's ``resolve_iterations``, ``resolve_exploitability`` and
    ``resolve_value_mao`` (match-win probability), and the first moves before and after
    it: ``truco_mao_points`` / ``truco_mao_score`` (the mão opens with a truco),
    ``run_pe_points`` / ``run_pe_score`` (the pé runs from it). See :mod:`lab.tables.score`.
    Its manifest's per-vira ``exploitability`` is the largest leak measured for that vira.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Callable, Iterable, Optional

_HOMES = {
    "registry": ("CARDPLAY_COLUMNS", "CARDPLAY_SETTINGS", "CARDPLAY_SOURCES", "FULL_SETTINGS",
                 "FULL_SOURCES", "MATCH_SETTINGS", "MATCH_SOURCES", "SCHEMAS", "SCORE_SETTINGS",
                 "SEATS", "SUMMARY_COLUMNS", "TABLES", "TableError", "TableSpec",
                 "check_data_writable", "columns_of", "data_dir", "spec_of", "table_paths"),
    "manifests": ("KIND_WORDS", "MANIFEST_FIELDS", "UNUSED", "TableWrite", "built_on_hashes",
                  "check_family", "check_manifest", "code_hash", "corrupt", "fingerprint",
                  "load_table", "read_manifest", "solved_viras", "table_status", "validate",
                  "validate_before_write", "write_merged", "write_table", "write_tables"),
    "cardplay": ("ViraSolution", "build_cardplay_tables", "cardplay_rows", "resolve_vira",
                 "solve_vira", "solve_viras", "solver_processes", "summary_row"),
    "match": ("build_match_tables", "eleven_rows"),
}
"""Where each name of the package lives. A submodule is imported when one of its names is
first asked for, so that a process reading only the stored policies (the solver bot's)
never imports pandas and pyarrow, which the tables' frames need (about 35 MB of its own
memory)."""

_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [*_HOME_OF, "BUILDERS", "build_table"]

BUILDERS = {"cardplay": "build_cardplay_tables", "match": "build_match_tables"}
"""Table group -> the name of the function that solves and writes every table of the
group."""


def __getattr__(name: str):
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOME_OF))


def build_table(name: str, viras: Optional[Iterable] = None, settings: Optional[dict] = None,
                solve: Optional[Callable] = None, progress: bool = False, jobs: int = 1,
                directory: Optional[Path] = None):
    """Rebuild table ``name`` (and the other tables of its group) and return it (a
    DataFrame)."""
    from .registry import spec_of

    spec = spec_of(name)
    build = __getattr__(BUILDERS[spec.group])
    tables = build(viras=viras, settings=settings, solve=solve, progress=progress, jobs=jobs,
                   directory=directory)
    return tables[name]
