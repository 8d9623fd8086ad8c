"""Tidy tables of solved quantities, and the ``data/`` cache that keeps them.

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
    :mod:`lab.solver.full_tables`. A full solve takes about half an hour per vira, so
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
    ``run_pe_points`` / ``run_pe_score`` (the pé runs from it). See :mod:`lab.score`.
    Its manifest's per-vira ``exploitability`` is the largest leak measured for that vira.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

import numpy as np
import pandas as pd

from . import RULES_VERSION
from .cards import RANKS, level_name
from .classes import hand_classes, vira_rank_of
from .solver.double_dummy import double_dummy_equity, double_dummy_value
from .errors import InputError
from .store import check_writable, content_hash, data_lock, write_atomic

SEATS = ("mao", "pe")

CARDPLAY_SETTINGS = {"target_exploitability": 1e-4, "max_iterations": 2000}
"""Default settings of the card-play solves (exploitability in win probability)."""

CARDPLAY_COLUMNS = ("vira", "seat", "hand", "best", "second", "third", "equity",
                    "double_dummy", "weight", "exploitability")
SUMMARY_COLUMNS = ("vira", "value_mao", "double_dummy_mao", "exploitability", "iterations",
                   "seconds")

CARDPLAY_SOURCES = ("lab/cards.py", "lab/classes.py", "lab/rules.py", "lab/tables.py",
                    "lab/solver/game.py", "lab/solver/tree.py", "lab/solver/kernels.py",
                    "lab/solver/cfr.py", "lab/solver/cardplay_game.py", "lab/solver/cardplay.py",
                    "lab/solver/double_dummy.py")
MATCH_SOURCES = CARDPLAY_SOURCES + ("lab/match.py", "lab/solver/eleven.py")
"""Source files whose code decides a table's numbers: hashed into its manifest."""


class TableError(InputError):
    """A table that is missing, unreadable, stale or corrupt; the message says how to
    rebuild it."""


# column kinds: "str", "int", "bool", "float" (finite), "float?" (finite or NaN)
SCHEMAS = {
    "cardplay": dict(vira="str", seat="str", hand="str", best="str", second="str",
                     third="str", equity="float", double_dummy="float", weight="float",
                     exploitability="float"),
    "cardplay_summary": dict(vira="str", value_mao="float", double_dummy_mao="float",
                             exploitability="float", iterations="int", seconds="float"),
    "match_equity": dict(score_mao="int", score_pe="int", p_mao="float", p_pe="float",
                         model="str", exploitability="float?"),
    "mao_de_onze": dict(vira="str", score="str", seat="str", hand="str", accept="float",
                        value="float", weight="float", exploitability="float"),
    "full_ev": dict(vira="str", seat="str", hand="str", weight="float", ev="float",
                    exploitability="float"),
    "full_strategy": dict(vira="str", seat="str", hand="str", situation="str", action="str",
                          probability="float"),
    "full_summary": None,  # its outcome columns follow the ladder: see columns_of
    "score_leak": dict(vira="str", score_mao="int", score_pe="int", value_mao="float",
                       gain_mao="float", gain_pe="float", leak="float",
                       points_exploitability="float?", points_iterations="int",
                       resolve_iterations="int", resolve_exploitability="float?",
                       resolve_value_mao="float?", truco_mao_points="float?",
                       truco_mao_score="float?", run_pe_points="float?",
                       run_pe_score="float?"),
    "bot_ranking": dict(vira="str", bot="str", exploitability="float?", ev_vs_solver="float",
                        exact="bool", ci95_lo="float?", ci95_hi="float?", hands="int",
                        method="str"),
}
"""Table name -> {column: kind}, in column order: what a table must hold to be read."""


def columns_of(name: str, settings: Optional[dict] = None) -> dict:
    """{column: kind} of table ``name`` built with ``settings`` (default: its own)."""
    if name != "full_summary":
        return SCHEMAS[name]
    ladder = (settings or FULL_SETTINGS).get("ladder", FULL_SETTINGS["ladder"])
    outcomes = {f"p_{seat}_{k}": "float" for k in ladder for seat in SEATS}
    return dict(vira="str", value_mao="float", exploitability="float", iterations="int",
                seconds="float", storage="str", **outcomes, bluff_mao="float",
                bluff_pe="float")


@dataclass(frozen=True)
class TableSpec:
    """What a table is and how it is rebuilt."""

    name: str
    schema: int            # bump when the columns or their meaning change
    settings: dict         # the default solver settings the table must be built with
    group: str             # tables built together by one solve
    rebuild: str           # the command that rebuilds the table
    sources: tuple = CARDPLAY_SOURCES  # the code that decides its numbers
    built_on: tuple = ()   # tables whose numbers it is computed from


MATCH_SETTINGS = {"eleven_target_exploitability": 1e-5,
                  "normal_model": "full-game-points if all ten viras are solved, else cardplay-1pt",
                  "cardplay": CARDPLAY_SETTINGS}
"""Settings of the match tables: the mão de onze solves' target exploitability (match-win
probability) and the model of normal hands (the full game's points solution once
``full_summary`` holds all ten viras, the card-play model until then), on card-play tables
built with CARDPLAY_SETTINGS."""

FULL_SETTINGS = {"target_exploitability": 0.01, "time_budget_minutes": 30.0,
                 "storage": "int16", "ladder": [1, 3, 6, 9, 12]}
"""Default settings of the full-game solves (exploitability in points per hand)."""

# the code hash is provenance (not checked on load): it names the code that decides the
# full game's numbers, which leaves out the table plumbing of this module
FULL_SOURCES = tuple(s for s in CARDPLAY_SOURCES if s != "lab/tables.py") + (
                                   "lab/solver/full_game.py", "lab/solver/full_tree.py",
                                   "lab/solver/full_kernels.py", "lab/solver/full.py",
                                   "lab/solver/full_tables.py")

SCORE_SETTINGS = {"full": FULL_SETTINGS,
                  "payoffs": "match-win probability from match_equity",
                  "warm_start": "points regrets, average strategy restarted"}
"""Settings of the ``score_leak`` table: the points solutions it measures (built with
FULL_SETTINGS) and how the score-aware re-solves start."""

TABLES = {
    "cardplay": TableSpec("cardplay", 1, CARDPLAY_SETTINGS, "cardplay",
                          "lab solve cardplay --all"),
    "cardplay_summary": TableSpec("cardplay_summary", 1, CARDPLAY_SETTINGS, "cardplay",
                                  "lab solve cardplay --all"),
    "match_equity": TableSpec("match_equity", 1, MATCH_SETTINGS, "match", "lab solve match",
                              MATCH_SOURCES, ("cardplay_summary", "full_summary")),
    "mao_de_onze": TableSpec("mao_de_onze", 1, MATCH_SETTINGS, "match", "lab solve match",
                             MATCH_SOURCES, ("cardplay_summary", "full_summary")),
    **{name: TableSpec(name, 1, FULL_SETTINGS, "full", "lab solve full --all", FULL_SOURCES)
       for name in ("full_ev", "full_strategy", "full_summary")},
    "score_leak": TableSpec("score_leak", 1, SCORE_SETTINGS, "score",
                            "lab solve score --score M,P --checkpoints DIR",
                            FULL_SOURCES + ("lab/match.py", "lab/score.py"),
                            ("match_equity", "full_summary")),
    # one row per (vira, bot): exploitability and ev_vs_solver in points per hand, exact or
    # simulated (lab/ranking.py); built on the stored full-game policies of data/full_policy
    "bot_ranking": TableSpec("bot_ranking", 1,
                             {"hands": 1000, "seed": 0, "score": "0,0",
                              "policies": "full_policy (stored)"},
                             "ranking", "lab rank --write",
                             ("lab/ranking.py", "lab/sim/solver_bot.py", "lab/sim/bots.py",
                              "lab/sim/hands.py", "lab/rules.py", "lab/solver/policy.py",
                              "lab/solver/full_line.py", "lab/solver/full_policy.py",
                              "lab/solver/full.py", "lab/solver/full_kernels.py")),
}


# ---------------------------------------------------------------- where tables live


def data_dir() -> Path:
    """The folder of solved tables: ``$LAB_DATA_DIR`` if set, else the repository's ``data/``."""
    env = os.environ.get("LAB_DATA_DIR")
    return Path(env) if env else Path(__file__).resolve().parent.parent / "data"


def table_paths(name: str, directory: Optional[Path] = None) -> tuple[Path, Path]:
    """(parquet file, manifest file) of a table."""
    d = Path(directory) if directory is not None else data_dir()
    return d / f"{name}.parquet", d / f"{name}.json"


def check_data_writable(directory: Optional[Path] = None) -> Path:
    """The data folder, after proving it can be written (InputError otherwise): called by
    the commands that solve before they start, so no work is lost to a read-only folder."""
    return check_writable(data_dir() if directory is None else Path(directory),
                          "the data folder")


def spec_of(name: str) -> TableSpec:
    if name not in TABLES:
        raise TableError(f"{name!r}: unknown table (tables are {', '.join(TABLES)})")
    return TABLES[name]


# ---------------------------------------------------------------- manifests


def fingerprint(name: str, settings: dict) -> str:
    """Hash of what a table's numbers mean: its schema, the rules version and the settings."""
    spec = spec_of(name)
    key = json.dumps({"table": name, "schema": spec.schema, "rules_version": RULES_VERSION,
                      "settings": settings}, sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def code_hash(sources=CARDPLAY_SOURCES) -> str:
    """Hash of the source code of ``sources`` (recorded for provenance, not checked on load)."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for entry in sources:
        path = root / entry
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for f in files:
            if f.exists():
                h.update(str(f.relative_to(root)).encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


def read_manifest(name: str, directory: Optional[Path] = None) -> dict:
    """The manifest of a table on disk; TableError when it is missing or unreadable."""
    spec = spec_of(name)
    parquet, manifest = table_paths(name, directory)
    if not parquet.exists() or not manifest.exists():
        missing = parquet if not parquet.exists() else manifest
        raise TableError(f"table {name!r} is missing ({missing} not found); "
                         f"build it with `{spec.rebuild}`")
    try:
        data = json.loads(manifest.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TableError(f"table {name!r}: unreadable manifest {manifest} ({exc}); "
                         f"rebuild it with `{spec.rebuild}`") from None
    if not isinstance(data, dict) or not all(isinstance(data.get(key), kind) for key, kind
                                             in MANIFEST_FIELDS.items()):
        raise TableError(f"table {name!r} is stale or corrupt: {manifest} is not a table "
                         f"manifest; rebuild it with `{spec.rebuild}`")
    return data


MANIFEST_FIELDS = {"table": str, "schema": int, "rules_version": str, "settings": dict,
                   "fingerprint": str, "built_on": dict, "rows": int, "sha256": str,
                   "family": dict, "viras": dict}
"""The fields every table manifest holds, with their JSON types."""


UNUSED = "unused"
"""Recorded in a manifest's ``built_on`` for a table the build did not read (the match
tables read ``full_summary`` only once it holds all ten viras)."""


def built_on_hashes(name: str, directory: Optional[Path] = None) -> dict:
    """{table it is computed from: hash of that table's parquet file now (None if missing)}."""
    out = {}
    for dep in spec_of(name).built_on:
        parquet = table_paths(dep, directory)[0]
        out[dep] = content_hash(parquet) if parquet.exists() else None
    return out


def check_manifest(name: str, manifest: dict, settings: Optional[dict] = None,
                   viras: Optional[Iterable] = None, directory: Optional[Path] = None) -> None:
    """Raise TableError unless ``manifest`` matches the current rules version, schema and
    ``settings`` (default: the table's own), covers ``viras`` (default: all ten) and was
    computed from the tables now on disk that it is built on."""
    spec = spec_of(name)
    settings = spec.settings if settings is None else settings
    try:
        why = _stale_because(name, manifest, settings, viras, directory)
    except (TypeError, AttributeError, KeyError) as exc:
        raise corrupt(name, f"its manifest is malformed ({type(exc).__name__}: {exc})") from None
    if why is not None:
        raise TableError(f"table {name!r} is stale: {why}; rebuild it with `{spec.rebuild}`")


def _stale_because(name, manifest, settings, viras, directory) -> Optional[str]:
    why = None
    if manifest.get("table") != name:
        why = f"the manifest is for table {manifest.get('table')!r}"
    elif manifest.get("rules_version") != RULES_VERSION:
        why = (f"built for rules {manifest.get('rules_version')!r}, "
               f"the lab is at {RULES_VERSION!r}")
    elif manifest.get("schema") != spec_of(name).schema:
        why = f"schema {manifest.get('schema')!r}, the lab expects {spec_of(name).schema}"
    elif manifest.get("settings") != settings:
        why = f"built with settings {manifest.get('settings')}, expected {settings}"
    elif manifest.get("fingerprint") != fingerprint(name, settings):
        why = "its fingerprint does not match its rules version and settings"
    else:
        want = [RANKS[vira_rank_of(v)] for v in (RANKS if viras is None else viras)]
        have = set(manifest.get("viras", {}))
        lacking = [v for v in want if v not in have]
        if lacking:
            why = f"it lacks vira {', '.join(lacking)}"
        for dep, now in built_on_hashes(name, directory).items():
            recorded = manifest.get("built_on", {}).get(dep)
            if why is None and recorded != UNUSED and recorded != now:
                why = f"it was computed from another {dep!r} table than the one on disk"
    return why


def load_table(name: str, viras: Optional[Iterable] = None, settings: Optional[dict] = None,
               directory: Optional[Path] = None) -> pd.DataFrame:
    """The table ``name`` from ``data/``, checked against its manifest.

    ``viras`` (default: all ten) must all be present; the rows of those viras are
    returned. Raises TableError, with the command that rebuilds the table, when it is
    missing, unreadable, stale or corrupt (see :func:`validate`).
    """
    manifest = read_manifest(name, directory)
    check_manifest(name, manifest, settings, viras, directory)
    parquet, _ = table_paths(name, directory)
    try:
        data = parquet.read_bytes()
    except OSError as exc:
        raise TableError(f"table {name!r}: unreadable {parquet} ({exc}); "
                         f"rebuild it with `{spec_of(name).rebuild}`") from None
    if content_hash(data) != manifest.get("sha256"):
        raise corrupt(name, f"{parquet.name} is not the file its manifest describes (a write "
                            "was interrupted, or the file was changed)")
    check_family(name, manifest, directory)
    try:
        df = pd.read_parquet(io.BytesIO(data))
    except Exception as exc:  # pyarrow raises several kinds for a damaged file
        raise TableError(f"table {name!r}: unreadable {parquet} ({exc}); "
                         f"rebuild it with `{spec_of(name).rebuild}`") from None
    validate(name, df, manifest)
    if viras is not None:
        keep = [RANKS[vira_rank_of(v)] for v in viras]
        df = df[df["vira"].isin(keep)].reset_index(drop=True)
    return df


def corrupt(name: str, why: str) -> TableError:
    """The error of a table whose files contradict each other or its schema."""
    return TableError(f"table {name!r} is stale or corrupt: {why}; rebuild it with "
                      f"`{spec_of(name).rebuild}`")


def check_family(name: str, manifest: dict, directory: Optional[Path] = None) -> None:
    """Raise TableError unless the tables written together with ``name`` (its manifest's
    ``family``) are, where present, still the ones written with it."""
    family = manifest.get("family", {})
    if not isinstance(family, dict):
        raise corrupt(name, "its manifest's family is not a table list")
    for other, recorded in family.items():
        path = table_paths(other, directory)[1]
        if not path.exists():
            continue  # a table kept alone (copied, or its family member deleted)
        try:
            now = json.loads(path.read_text()).get("sha256")
        except (OSError, ValueError, AttributeError):
            now = None
        if now != recorded:
            raise corrupt(name, f"it was written with another {other!r} table than the one "
                                "on disk")


def validate(name: str, df: pd.DataFrame, manifest: dict) -> None:
    """Raise TableError unless ``df`` has the table's columns in order, each of its kind,
    no NaN or infinity where a number is promised, the manifest's row count and only the
    manifest's viras."""
    schema = columns_of(name, manifest.get("settings"))
    if list(df.columns) != list(schema):
        raise corrupt(name, f"its columns are {list(df.columns)}, expected {list(schema)}")
    for column, kind in schema.items():
        values = df[column]
        if kind == "str":
            ok = pd.api.types.is_string_dtype(values) or pd.api.types.is_object_dtype(values)
            ok = ok and values.map(lambda x: isinstance(x, str)).all()
        elif kind == "int":
            ok = pd.api.types.is_integer_dtype(values)
        elif kind == "bool":
            ok = pd.api.types.is_bool_dtype(values)
        else:
            ok = pd.api.types.is_float_dtype(values)
            if ok:
                finite = np.isfinite(values.to_numpy(dtype=np.float64))
                nan = values.isna().to_numpy()
                ok = bool((finite | (nan if kind == "float?" else False)).all())
        if not ok:
            raise corrupt(name, f"column {column!r} does not hold "
                                f"{KIND_WORDS[kind]} in every row")
    if len(df) != manifest.get("rows"):
        raise corrupt(name, f"{len(df)} rows on disk, the manifest says {manifest.get('rows')}")
    if "vira" in df and not set(df["vira"]) <= set(manifest.get("viras", {})):
        raise corrupt(name, "it holds viras its manifest does not list")


KIND_WORDS = {"str": "text", "int": "integers", "bool": "true/false",
              "float": "finite numbers", "float?": "numbers (or blanks)"}


def solved_viras(name: str, directory: Optional[Path] = None) -> list[str]:
    """The viras (rank characters, in rank order) a table on disk holds, its manifest
    checked apart from coverage; TableError when it is missing, stale or empty."""
    manifest = read_manifest(name, directory)
    check_manifest(name, manifest, viras=[], directory=directory)
    viras = [v for v in RANKS if v in manifest.get("viras", {})]
    if not viras:
        raise TableError(f"table {name!r} holds no vira; build it with "
                         f"`{spec_of(name).rebuild}`")
    return viras


def table_status(name: str, directory: Optional[Path] = None) -> str:
    """``ok`` or the reason the table cannot be used (one line)."""
    try:
        check_manifest(name, read_manifest(name, directory), directory=directory)
    except TableError as exc:
        return str(exc)
    return "ok"


# ---------------------------------------------------------------- card play


@dataclass(frozen=True)
class ViraSolution:
    """What the tables keep of a card-play solve (win probabilities; seconds of wall time)."""

    vira: str
    equity: np.ndarray       # (2, n) per seat (0 = mão, 1 = pé) and class
    value: float             # the mão's win probability
    exploitability: float
    iterations: int
    seconds: float


def solve_vira(vira: str, settings: dict, progress: bool = False) -> ViraSolution:
    """Solve the card-play game of one vira with the public-tree CFR solver."""
    from .solver.cardplay import solve_cardplay  # numba: imported only when solving

    sol = solve_cardplay(vira, target_exploitability=settings["target_exploitability"],
                         max_iterations=settings["max_iterations"], progress=progress)
    return ViraSolution(RANKS[vira_rank_of(vira)], np.asarray(sol.equity), float(sol.value),
                        float(sol.exploitability), int(sol.iterations), float(sol.seconds))


def resolve_vira(vira: str, target: float, max_iterations: int, step: int = 32):
    """Solve the card-play game of one vira again, ``step`` iterations at a time: yields
    ``(iterations, exploitability)`` after each step (win probability) and, last, the
    :class:`ViraSolution`. For a dashboard that shows the solve as it goes."""
    from .solver.cardplay import cardplay_solver  # numba: imported only when solving

    start = time.perf_counter()
    solver = cardplay_solver(vira)
    solver.allocate()
    while True:
        solver.solve(target, max_iterations=min(solver.iterations + step, max_iterations),
                     check_every=8)
        reached = solver.final_exploitability
        yield solver.iterations, reached
        if reached <= target or solver.iterations >= max_iterations:
            break
    yield ViraSolution(RANKS[vira_rank_of(vira)], np.asarray(solver.hand_values()),
                       float(solver.value()), float(reached), int(solver.iterations),
                       time.perf_counter() - start)


def cardplay_rows(vira, solution) -> pd.DataFrame:
    """The ``cardplay`` rows of one vira from a card-play solution (tidy, 2 x n rows)."""
    vira_rank = vira_rank_of(vira)
    hc = hand_classes(vira_rank)
    equity = np.asarray(solution.equity, dtype=np.float64)
    if equity.shape != (2, hc.n):
        raise ValueError(f"solution equity has shape {equity.shape}, expected (2, {hc.n})")
    # float32 strategies can put a certain win a few 1e-8 above 1: keep probabilities in [0, 1]
    equity = np.clip(equity, 0.0, 1.0)
    dd = double_dummy_equity(vira_rank)
    names = [[level_name(int(lv), vira_rank) for lv in row] for row in hc.levels]
    frames = []
    for seat, seat_name in enumerate(SEATS):
        frames.append(pd.DataFrame({
            "vira": RANKS[vira_rank],
            "seat": seat_name,
            "hand": list(hc.labels),
            "best": [n[0] for n in names],
            "second": [n[1] for n in names],
            "third": [n[2] for n in names],
            "equity": equity[seat],
            "double_dummy": dd[seat],
            "weight": hc.weight,
            "exploitability": float(solution.exploitability),
        }))
    return pd.concat(frames, ignore_index=True)


def summary_row(vira, solution) -> dict:
    """The ``cardplay_summary`` row of one vira."""
    vira_rank = vira_rank_of(vira)
    return {"vira": RANKS[vira_rank], "value_mao": float(solution.value),
            "double_dummy_mao": double_dummy_value(vira_rank),
            "exploitability": float(solution.exploitability),
            "iterations": int(solution.iterations), "seconds": float(solution.seconds)}


def solver_processes():
    """The multiprocessing context for solver workers: spawned, since forking a process
    whose numba kernels already ran on OpenMP threads is unsafe."""
    import multiprocessing

    return multiprocessing.get_context("spawn")


def _solve_one(args):
    solve, vira, settings, progress = args
    return vira, solve(vira, settings, progress)


def solve_viras(viras: Iterable, settings: dict, solve: Optional[Callable] = None,
                progress: bool = False, jobs: int = 1) -> dict:
    """{vira rank char: solution} for each vira, solved in ``jobs`` processes.

    A tqdm bar over the viras goes to stderr when ``progress``; a single process also
    shows the solver's own bar of iterations.
    """
    from tqdm import tqdm

    solve = solve_vira if solve is None else solve
    chars = [RANKS[vira_rank_of(v)] for v in viras]
    bar = tqdm(total=len(chars), desc="viras", unit="vira", disable=not progress)
    out = {}
    try:
        if jobs <= 1 or len(chars) <= 1:
            for v in chars:
                bar.set_postfix_str(f"vira {v}")
                out[v] = solve(v, settings, progress)
                bar.update()
        else:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(max_workers=min(jobs, len(chars)),
                                     mp_context=solver_processes()) as pool:
                for v, sol in pool.map(_solve_one, [(solve, v, settings, False) for v in chars]):
                    out[v] = sol
                    bar.set_postfix_str(f"vira {v}")
                    bar.update()
    finally:
        bar.close()
    return out


def build_cardplay_tables(viras: Optional[Iterable] = None, settings: Optional[dict] = None,
                          solve: Optional[Callable] = None, progress: bool = False,
                          jobs: int = 1, directory: Optional[Path] = None) -> dict:
    """Solve ``viras`` (default: all ten) and write the ``cardplay`` and ``cardplay_summary``
    tables with their manifests; returns {table name: DataFrame}.

    Rows of viras not solved now are kept from the tables on disk when those were built
    with the same rules version and settings, so the tables can grow one vira at a time.
    """
    settings = dict(CARDPLAY_SETTINGS if settings is None else settings)
    chars = [RANKS[vira_rank_of(v)] for v in (RANKS if viras is None else viras)]
    start = time.time()
    solutions = solve_viras(chars, settings, solve, progress, jobs)
    built_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    fresh = {
        "cardplay": pd.concat([cardplay_rows(v, s) for v, s in solutions.items()],
                              ignore_index=True),
        "cardplay_summary": pd.DataFrame([summary_row(v, s) for v, s in solutions.items()],
                                         columns=list(SUMMARY_COLUMNS)),
    }
    per_vira = {v: {"iterations": int(s.iterations), "exploitability": float(s.exploitability),
                    "seconds": float(s.seconds), "built": built_at}
                for v, s in solutions.items()}
    return write_merged(fresh, settings, per_vira, directory, time.time() - start)


def write_merged(tables: dict, settings: dict, per_vira: dict,
                 directory: Optional[Path] = None, build_seconds: float = 0.0) -> dict:
    """Write ``tables`` ({name: rows of the viras in ``per_vira``}) together, each keeping
    the rows of other viras from its table on disk when that was built with the same rules
    version and settings (so tables can grow one vira at a time); returns {name: table
    written}. The read and the write happen under the data folder's lock."""
    directory = data_dir() if directory is None else Path(directory)
    with data_lock(directory):
        merged = {}
        for name, df in tables.items():
            old_viras = {}
            try:
                manifest = read_manifest(name, directory)
                check_manifest(name, manifest, settings, viras=[], directory=directory)
                old = load_table(name, viras=list(manifest["viras"]), settings=settings,
                                 directory=directory)
                old = old[~old["vira"].isin(per_vira)]
                old_viras = {v: info for v, info in manifest["viras"].items()
                             if v not in per_vira}
                df = pd.concat([old, df], ignore_index=True)
            except (TableError, OSError, KeyError, ValueError):
                pass  # nothing usable on disk: the table holds only what was solved now
            merged[name] = (_in_vira_order(df), {**old_viras, **per_vira})
        write_tables({name: TableWrite(df, settings, viras, build_seconds)
                      for name, (df, viras) in merged.items()}, directory)
    return {name: df for name, (df, _) in merged.items()}


def _in_vira_order(df: pd.DataFrame) -> pd.DataFrame:
    """Rows sorted by vira (rank order), then seat; rows of one vira and seat keep their
    order (classes strongest first)."""
    vira = df["vira"].map(RANKS.index).to_numpy()
    seat = df["seat"].map(SEATS.index).to_numpy() if "seat" in df else np.zeros(len(df))
    order = np.lexsort((np.arange(len(df)), seat, vira))
    return df.iloc[order].reset_index(drop=True)


@dataclass(frozen=True)
class TableWrite:
    """One table of a write: its rows, the settings it was built with, {vira: solve
    record}, the build's wall time (seconds) and the ``built_on`` tables it did not read."""

    df: pd.DataFrame
    settings: dict
    viras: dict
    build_seconds: float = 0.0
    unused: tuple = ()


def write_table(name: str, df: pd.DataFrame, settings: dict, viras: dict,
                directory: Optional[Path] = None, build_seconds: float = 0.0,
                unused: Iterable = ()) -> Path:
    """Write one table and its manifest (see :func:`write_tables`); returns the parquet
    path."""
    write_tables({name: TableWrite(df, settings, viras, build_seconds, tuple(unused))},
                 directory)
    return table_paths(name, directory)[0]


def write_tables(tables: dict, directory: Optional[Path] = None) -> None:
    """Write ``tables`` ({name: :class:`TableWrite`}), each as ``<name>.parquet`` and its
    manifest, as one family, under the data folder's lock.

    Each manifest records the content hash of its parquet and of its family's other
    parquets, and :func:`load_table` checks both: a write interrupted at any point leaves
    the old tables, the new ones, or tables that refuse to load (naming their rebuild
    command), never a mixture that loads.
    """
    directory = data_dir() if directory is None else Path(directory)
    with data_lock(directory):
        blobs = {}
        for name, t in tables.items():
            validate_before_write(name, t)
            buffer = io.BytesIO()
            t.df.to_parquet(buffer, index=False, compression="zstd")
            blobs[name] = buffer.getvalue()
        hashes = {name: content_hash(blob) for name, blob in blobs.items()}
        manifests = {name: _manifest(name, t, hashes, directory) for name, t in tables.items()}
        for name, blob in blobs.items():
            write_atomic(table_paths(name, directory)[0], blob)
        for name, manifest in manifests.items():
            write_atomic(table_paths(name, directory)[1], json.dumps(manifest, indent=2) + "\n")


def validate_before_write(name: str, t: TableWrite) -> None:
    """Refuse to write a table that would not load (a bug in its builder, never a user's)."""
    try:
        validate(name, t.df.reset_index(drop=True),
                 {"settings": t.settings, "rows": len(t.df), "viras": t.viras})
    except TableError as exc:
        raise RuntimeError(f"refusing to write table {name!r}: {exc}") from None


def _manifest(name: str, t: TableWrite, hashes: dict, directory: Path) -> dict:
    spec = spec_of(name)
    ordered = {v: t.viras[v] for v in sorted(t.viras, key=RANKS.index)}
    return {
        "table": name,
        "schema": spec.schema,
        "rules_version": RULES_VERSION,
        "settings": t.settings,
        "fingerprint": fingerprint(name, t.settings),
        "code": code_hash(spec.sources),
        "built_on": {dep: UNUSED if dep in t.unused else h
                     for dep, h in built_on_hashes(name, directory).items()},
        "rows": int(len(t.df)),
        "columns": list(t.df.columns),
        "sha256": hashes[name],
        "family": {other: h for other, h in hashes.items() if other != name},
        "viras": ordered,
        "iterations": sum(info["iterations"] for info in ordered.values()),
        "exploitability": max((info["exploitability"] for info in ordered.values()),
                              default=None),
        "built": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "build_seconds": round(t.build_seconds, 3),
        "rebuild": spec.rebuild,
    }


# ---------------------------------------------------------------- match equity


def eleven_rows(score: tuple[int, int], solutions) -> pd.DataFrame:
    """The ``mao_de_onze`` rows of one score from its per-vira :class:`ElevenSolution` s."""
    frames = []
    for sol in solutions:
        hc = hand_classes(sol.vira)
        frames.append(pd.DataFrame({
            "vira": sol.vira, "score": f"{score[0]},{score[1]}", "seat": SEATS[sol.holder],
            "hand": list(hc.labels), "accept": sol.accept, "value": sol.holder_value,
            "weight": hc.weight, "exploitability": sol.exploitability,
        }))
    return pd.concat(frames, ignore_index=True)


def build_match_tables(viras: Optional[Iterable] = None, settings: Optional[dict] = None,
                       solve: Optional[Callable] = None, progress: bool = False,
                       jobs: int = 1, directory: Optional[Path] = None) -> dict:
    """Backward induction over every score, solving the mão de onze of each vira exactly;
    writes ``match_equity`` and ``mao_de_onze``. Normal scores use the full game's
    outcome distribution (``full_summary``) when it holds all ten viras, else the
    card-play model on ``cardplay_summary``.

    Always all ten viras (the match averages over them); ``viras`` and ``solve`` are
    accepted for the common builder signature and must be left as None.
    """
    from concurrent.futures import ProcessPoolExecutor

    from tqdm import tqdm

    from .match import CardplayModel, FullGameModel, match_equity

    if viras is not None or solve is not None:
        raise ValueError("the match tables are built over all ten viras at once")
    settings = dict(MATCH_SETTINGS if settings is None else settings)
    summary = load_table("cardplay_summary", settings=settings["cardplay"],
                         directory=directory)
    start = time.time()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=solver_processes()) if jobs > 1 \
        else None
    try:
        try:
            full = load_table("full_summary", directory=directory)
        except TableError:
            full = None  # the full game is not solved for every vira yet
        target = settings["eleven_target_exploitability"]
        model = CardplayModel(summary, pool, target) if full is None else \
            FullGameModel(summary, full, pool, target)
        with tqdm(total=144, desc="match scores", unit="score", disable=not progress) as bar:
            me = match_equity(model, progress=bar)
    finally:
        if pool is not None:
            pool.shutdown()
    eleven = _in_vira_order(pd.concat([eleven_rows(score, sols) for score, sols
                                       in sorted(model.eleven_solutions.items())],
                                      ignore_index=True))
    built_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    per_vira = {}
    for v in RANKS:
        rows = eleven[eleven["vira"] == v]
        per_vira[v] = {"iterations": int(sum(s.iterations for sols in
                                             model.eleven_solutions.values()
                                             for s in sols if s.vira == v)),
                       "exploitability": float(rows["exploitability"].max()),
                       "built": built_at}
    out = {"match_equity": me, "mao_de_onze": eleven}
    unused = ("full_summary",) if full is None else ()
    write_tables({name: TableWrite(df, settings, per_vira, time.time() - start, unused)
                  for name, df in out.items()}, directory)
    return out


BUILDERS = {"cardplay": build_cardplay_tables, "match": build_match_tables}
"""Table group -> function that solves and writes every table of the group."""


def build_table(name: str, viras: Optional[Iterable] = None, settings: Optional[dict] = None,
                solve: Optional[Callable] = None, progress: bool = False, jobs: int = 1,
                directory: Optional[Path] = None) -> pd.DataFrame:
    """Rebuild table ``name`` (and the other tables of its group) and return it."""
    spec = spec_of(name)
    tables = BUILDERS[spec.group](viras=viras, settings=settings, solve=solve,
                                  progress=progress, jobs=jobs, directory=directory)
    return tables[name]
