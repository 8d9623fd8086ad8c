"""The manifest store: reading a table checked against its manifest (rules version,
settings, schema, content hash, the tables it was built on and written with), and writing
tables with their manifests atomically under the data folder's lock.

A table built on others records, for each, the hash of that table's numbers
(``numbers_sha256``: every column but the wall-clock ones, :data:`WALL_CLOCK`), so solving
the same numbers again leaves what is built on them fresh. A write that merges new rows into
a table on disk keeps its other rows, or refuses (:func:`refused_merge`) when that table
cannot be read and rows would be lost; ``replace`` keeps only the new rows. The whole
read-merge-write runs under the data folder's lock with Ctrl-C and SIGTERM held off."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

import numpy as np

from ..cards import RANKS
from ..classes import vira_rank_of
from ..interrupts import interrupts_held
from ..rules import RULES_VERSION
from ..store import content_hash, data_lock, write_atomic
from .registry import (CARDPLAY_SOURCES, SEATS, TableError, columns_of, data_dir, spec_of,
                       table_paths)

if TYPE_CHECKING:      # pandas and pyarrow are imported where a table is read or written
    import pandas as pd

# ---------------------------------------------------------------- parquet

# Tables are read and written on the calling thread, the file closed before the rows are
# returned. A parquet read through pandas leaves the file to a task of Arrow's thread pool;
# when that task lets go of it while the interpreter exits, the process aborts ("terminate
# called without an active exception", exit status 134) after the command has printed its
# answer. The tables are small: the pools buy nothing.


def parquet_frame(source, columns=None) -> pd.DataFrame:
    """The rows of a parquet file, given as its path or its bytes (``columns``: only
    those)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if isinstance(source, (bytes, bytearray, memoryview)):
        source = pa.BufferReader(source)
    with pq.ParquetFile(source, pre_buffer=False) as parquet:
        table = parquet.read(columns=None if columns is None else list(columns),
                             use_threads=False)
    return table.to_pandas(use_threads=False)


def parquet_bytes(df: pd.DataFrame) -> bytes:
    """``df`` (without its index) as a zstd-compressed parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False, nthreads=1), sink,
                   compression="zstd")
    return sink.getvalue().to_pybytes()


# ---------------------------------------------------------------- manifests


def fingerprint(name: str, settings: dict) -> str:
    """Hash of what a table's numbers mean: its schema, the rules version and the settings."""
    spec = spec_of(name)
    key = json.dumps({"table": name, "schema": spec.schema, "rules_version": RULES_VERSION,
                      "settings": settings}, sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def code_hash(sources=CARDPLAY_SOURCES) -> str:
    """Hash of the source code of ``sources`` (recorded for provenance, not checked on load)."""
    root = Path(__file__).resolve().parents[2]
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


WALL_CLOCK = ("seconds",)
"""Columns that hold how long a solve took, not a number of the game: left out of a
table's numbers hash."""

SAME_NUMBERS_KEPT = 8
"""Earlier file hashes with the same numbers that a manifest keeps (``same_numbers_as``)."""


def numbers_hash(df: pd.DataFrame) -> str:
    """Short (16 hex digits) SHA-256 of a table's numbers: its column names and kinds and
    every value in row order, the wall-clock columns (:data:`WALL_CLOCK`) left out."""
    import pandas as pd

    kept = df[[c for c in df.columns if c not in WALL_CLOCK]].reset_index(drop=True)
    h = hashlib.sha256(json.dumps([[str(c), str(t)] for c, t in kept.dtypes.items()]).encode())
    if len(kept.columns):
        h.update(pd.util.hash_pandas_object(kept, index=False).to_numpy().tobytes())
    return h.hexdigest()[:16]


def upstream_hashes(dep: str, directory: Optional[Path] = None) -> tuple:
    """(hash to record, hashes that stand for the same numbers) of table ``dep`` on disk:
    its numbers hash when its manifest describes the file there (else the file's content
    hash), and with it the file's content hash and the earlier files its manifest lists as
    holding the same numbers. (None, ()) when the file is missing."""
    parquet, manifest_path = table_paths(dep, directory)
    if not parquet.exists():
        return None, ()
    now = content_hash(parquet)
    try:
        manifest = json.loads(manifest_path.read_text())
        described = isinstance(manifest, dict) and manifest.get("sha256") == now
    except (OSError, UnicodeDecodeError, ValueError):
        described = False
    numbers = manifest.get("numbers_sha256") if described else None
    if not isinstance(numbers, str):
        return now, (now,)
    earlier = manifest.get("same_numbers_as", [])
    earlier = [h for h in earlier if isinstance(h, str)] if isinstance(earlier, list) else []
    return numbers, (numbers, now, *earlier)


def built_on_hashes(name: str, directory: Optional[Path] = None) -> dict:
    """{table it is computed from: hash of that table's numbers now (its file's content
    hash where its manifest gives none; None if missing)}: :func:`upstream_hashes`."""
    return {dep: upstream_hashes(dep, directory)[0] for dep in spec_of(name).built_on}


def same_upstream(dep: str, recorded, directory: Optional[Path] = None) -> bool:
    """Whether ``recorded`` (a ``built_on`` entry) names the numbers of table ``dep`` on
    disk now: its numbers hash, its file's content hash or an earlier file of the same
    numbers; a missing table matches a missing one."""
    recorded_now, same = upstream_hashes(dep, directory)
    return recorded == recorded_now or recorded in same


def check_manifest(name: str, manifest: dict, settings: Optional[dict] = None,
                   viras: Optional[Iterable] = None, directory: Optional[Path] = None,
                   upstream: bool = True) -> None:
    """Raise TableError unless ``manifest`` matches the current rules version, schema and
    ``settings`` (default: the table's own), covers ``viras`` (default: all ten) and, with
    ``upstream``, was computed from the tables now on disk that it is built on."""
    spec = spec_of(name)
    settings = spec.settings if settings is None else settings
    try:
        why = _stale_because(name, manifest, settings, viras, directory, upstream)
    except (TypeError, AttributeError, KeyError) as exc:
        raise corrupt(name, f"its manifest is malformed ({type(exc).__name__}: {exc})") from None
    if why is not None:
        raise TableError(f"table {name!r} is stale: {why}; rebuild it with `{spec.rebuild}`")


def _stale_because(name, manifest, settings, viras, directory, upstream=True) -> Optional[str]:
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
        for dep in (spec_of(name).built_on if upstream else ()):
            recorded = manifest.get("built_on", {}).get(dep)
            if why is None and recorded != UNUSED and not same_upstream(dep, recorded,
                                                                        directory):
                why = f"it was computed from another {dep!r} table than the one on disk"
    return why


def load_table(name: str, viras: Optional[Iterable] = None, settings: Optional[dict] = None,
               directory: Optional[Path] = None, upstream: bool = True) -> pd.DataFrame:
    """The table ``name`` from ``data/``, checked against its manifest.

    ``viras`` (default: all ten) must all be present; the rows of those viras are
    returned. Raises TableError, with the command that rebuilds the table, when it is
    missing, unreadable, stale or corrupt (see :func:`validate`); without ``upstream``, a
    table computed from other versions of the tables it is built on is returned as it is
    (for rows that do not depend on them).
    """
    ask = (name, None if viras is None else tuple(str(v) for v in viras),
           json.dumps(settings, sort_keys=True, default=str),
           str(table_paths(name, directory)[0]), bool(upstream))
    seen = _unchanged.get(ask)
    if seen is not None and seen[0] == files_signature(seen[1]):
        return _rows_of(seen[2], viras)
    manifest, data = checked_files(name, viras, settings, directory, upstream)
    parquet, _ = table_paths(name, directory)
    key = (name, manifest.get("sha256"), manifest.get("rows"),
           json.dumps([manifest.get("settings"), sorted(manifest.get("viras", {}))],
                      sort_keys=True))
    df = _validated.pop(key, None)
    if df is None:
        try:
            df = parquet_frame(data)
        except Exception as exc:  # pyarrow raises several kinds for a damaged file
            raise TableError(f"table {name!r}: unreadable {parquet} ({exc}); "
                             f"rebuild it with `{spec_of(name).rebuild}`") from None
        validate(name, df, manifest)
    _validated[key] = df   # the most recently read last
    while len(_validated) > VALIDATED_KEPT:
        del _validated[next(iter(_validated))]
    watched = watched_files(name, manifest, directory)
    _unchanged[ask] = (files_signature(watched), watched, df)
    while len(_unchanged) > VALIDATED_KEPT:
        del _unchanged[next(iter(_unchanged))]
    return _rows_of(df, viras)


def _rows_of(df: pd.DataFrame, viras) -> pd.DataFrame:
    """A copy of the rows of ``viras`` (all when None)."""
    if viras is None:
        return df.copy()
    keep = [RANKS[vira_rank_of(v)] for v in viras]
    return df[df["vira"].isin(keep)].reset_index(drop=True)


def watched_files(name: str, manifest: dict, directory: Optional[Path] = None) -> tuple:
    """Every file whose content the checks of table ``name`` read: its own two, the
    manifests of the tables it is built on and of its family."""
    family = manifest.get("family", {})
    others = list(spec_of(name).built_on) + (list(family) if isinstance(family, dict) else [])
    return (*table_paths(name, directory), *(table_paths(o, directory)[1] for o in others))


def files_signature(paths) -> tuple:
    """Each file's (inode, modification time in ns, size), or None where it is missing:
    a file replaced (the writers rename a new one in) or changed gets another."""
    out = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_ino, st.st_mtime_ns, st.st_size))
    return tuple(out)


def checked_files(name: str, viras: Optional[Iterable] = None, settings: Optional[dict] = None,
                  directory: Optional[Path] = None, upstream: bool = True) -> tuple[dict, bytes]:
    """(manifest, parquet bytes) of table ``name`` once its manifest is current
    (:func:`check_manifest`), the file is the one the manifest describes and the tables
    written with it are still there; TableError otherwise. The rows are not parsed."""
    manifest = read_manifest(name, directory)
    check_manifest(name, manifest, settings, viras, directory, upstream)
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
    return manifest, data


VALIDATED_KEPT = 16
"""Tables kept parsed and validated in memory, the most recently read ones."""

_validated: dict = {}
"""(name, content hash, rows, settings and viras of its manifest) -> the table as parsed
and validated: a file read again with the same content and manifest skips the parse and
the checks of every row (the manifest itself and the content hash are checked on every
read)."""


_unchanged: dict = {}
"""(name, viras, settings, folder, upstream) of a :func:`load_table` call -> (the
signature of the files its checks read, those files, the validated table): a call whose
files are all as they were returns the table without reading or checking anything."""


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
    import pandas as pd

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



def write_merged(tables: dict, settings: dict, per_vira: dict,
                 directory: Optional[Path] = None, build_seconds: float = 0.0,
                 replace: bool = False) -> dict:
    """Write ``tables`` ({name: rows of the viras in ``per_vira``}) together, each keeping
    the rows of other viras from its table on disk when that was built with the same rules
    version and settings (so tables can grow one vira at a time); returns {name: table
    written}. A table on disk that cannot be kept while it holds other viras is refused
    (:func:`refused_merge`); ``replace``: only the new rows are written. The read and the
    write happen under the data folder's lock, with Ctrl-C and SIGTERM held off."""
    import pandas as pd

    directory = data_dir() if directory is None else Path(directory)
    with data_lock(directory), interrupts_held():
        merged = {}
        for name, df in tables.items():
            old = None if replace else rows_to_merge(name, settings, directory, per_vira)
            old_viras = {}
            if old is not None:
                old_rows, manifest = old
                old_rows = old_rows[~old_rows["vira"].isin(per_vira)]
                old_viras = {v: info for v, info in manifest["viras"].items()
                             if v not in per_vira}
                df = pd.concat([old_rows, df], ignore_index=True)
            merged[name] = (_in_vira_order(df), {**old_viras, **per_vira})
        write_tables({name: TableWrite(df, settings, viras, build_seconds)
                      for name, (df, viras) in merged.items()}, directory)
    return {name: df for name, (df, _) in merged.items()}


def rows_to_merge(name: str, settings: dict, directory: Path, per_vira) -> Optional[tuple]:
    """(rows, manifest) of table ``name`` on disk, to merge the viras ``per_vira`` into;
    None when there is none, or when all it may hold is written again now (every vira,
    or the viras its manifest lists). TableError (:func:`refused_merge`) when it is there
    but cannot be kept (damaged, stale, other settings) and would lose other viras' rows."""
    parquet, manifest_path = table_paths(name, directory)
    if not parquet.exists() and not manifest_path.exists():
        return None
    try:
        manifest = read_manifest(name, directory)
        check_manifest(name, manifest, settings, viras=[], directory=directory)
        old = load_table(name, viras=list(manifest["viras"]), settings=settings,
                         directory=directory)
        return old, manifest
    except (TableError, OSError, KeyError, ValueError, TypeError, AttributeError) as exc:
        held = listed_viras(name, directory)
        if set(RANKS) <= set(per_vira) or (held is not None and held <= set(per_vira)):
            return None   # nothing on disk that is not written again now
        lost = "" if held is None else ", ".join(v for v in RANKS if v in held - set(per_vira))
        raise refused_merge(name, exc, f"the rows of vira {lost}" if lost else
                            "the rows of the viras it holds") from None


def check_mergeable(names: Iterable, settings: dict, viras: Iterable,
                    directory: Optional[Path] = None) -> None:
    """Raise the refusal (:func:`refused_merge`) that writing rows of ``viras`` into the
    tables ``names`` would meet, before the work that computes them starts."""
    directory = data_dir() if directory is None else Path(directory)
    chars = {RANKS[vira_rank_of(v)] for v in viras}
    for name in names:
        rows_to_merge(name, settings, directory, chars)


def table_damage(name: str, directory: Optional[Path] = None) -> Optional[TableError]:
    """The error of table ``name`` when its files on disk are damaged (a manifest that
    cannot be read, a file other than the one it describes, rows that break its schema, a
    table written with another family member), None when they are whole or absent;
    whether it is stale (other settings, other tables built on) is not looked at."""
    parquet, manifest_path = table_paths(name, directory)
    if not parquet.exists() and not manifest_path.exists():
        return None
    try:
        manifest = read_manifest(name, directory)
        data = parquet.read_bytes()
        if content_hash(data) != manifest.get("sha256"):
            raise corrupt(name, f"{parquet.name} is not the file its manifest describes")
        check_family(name, manifest, directory)
        validate(name, parquet_frame(data), manifest)
    except TableError as exc:
        return exc
    except Exception as exc:   # pyarrow and a malformed manifest raise several kinds
        return corrupt(name, f"unreadable {parquet.name} or manifest "
                             f"({type(exc).__name__}: {exc})")
    return None


def listed_viras(name: str, directory: Optional[Path] = None) -> Optional[set]:
    """The viras the manifest of table ``name`` lists, read as it is (None when it cannot
    be read): which rows a write that does not keep the table would lose."""
    try:
        viras = json.loads(table_paths(name, directory)[1].read_text())["viras"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        return None
    return set(viras) if isinstance(viras, dict) else None


def refused_merge(name: str, exc: BaseException, lost: str) -> TableError:
    """The one-line refusal of a write that would lose ``lost`` (words) of table ``name``
    because its files on disk cannot be kept (``exc`` says why): the two ways on are
    rebuilding it whole with its command, or ``--replace`` to keep only the new rows."""
    why = " ".join(str(exc).split())
    why = re.sub(r"; (re)?build it with `[^`]*`$", "", why)
    if not why.startswith("table "):
        why = f"table {name!r}: {why}"
    return TableError(f"{why}; writing the new rows would drop {lost}: rebuild it whole "
                      f"with `{spec_of(name).rebuild}`, or pass --replace to keep only the "
                      "new rows")


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
    record}, the build's wall time (seconds), the ``built_on`` tables it did not read and
    ``to_rebuild``: the keys of rows the table held before a rebuild with other settings
    dropped them, not written again yet (recorded in the manifest while any are left);
    ``parts_built_on``: for a table whose parts are computed at different times (the
    what-if's rule sets), {part: its ``built_on`` record, None for the tables on disk now};
    the table is computed from the tables on disk only while every part is."""

    df: pd.DataFrame
    settings: dict
    viras: dict
    build_seconds: float = 0.0
    unused: tuple = ()
    to_rebuild: tuple = ()
    parts_built_on: Optional[dict] = None


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
    with data_lock(directory), interrupts_held():
        blobs = {}
        for name, t in tables.items():
            validate_before_write(name, t)
            blobs[name] = parquet_bytes(t.df)
        hashes = {name: content_hash(blob) for name, blob in blobs.items()}
        numbers = {name: numbers_hash(parquet_frame(blob)) for name, blob in blobs.items()}
        manifests = {name: _manifest(name, t, hashes, numbers[name],
                                     same_numbers_as(name, numbers[name], hashes[name],
                                                     directory), directory)
                     for name, t in tables.items()}
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


def same_numbers_as(name: str, numbers: str, new_hash: str, directory: Path) -> list:
    """The content hashes of earlier files of table ``name`` that held the same numbers
    (hash ``numbers``) as the one written now: the file on disk when its manifest describes
    it and its numbers are these, with the earlier ones its manifest lists (the most recent
    first, at most :data:`SAME_NUMBERS_KEPT`); what was built on any of them stays fresh."""
    parquet, manifest_path = table_paths(name, directory)
    try:
        manifest = json.loads(manifest_path.read_text())
        data = parquet.read_bytes()
        if not isinstance(manifest, dict) or manifest.get("sha256") != content_hash(data):
            return []
        was = manifest.get("numbers_sha256")
        if not isinstance(was, str):
            was = numbers_hash(parquet_frame(data))
    except Exception:   # missing, unreadable or damaged: no earlier file to name
        return []
    if was != numbers:
        return []
    earlier = manifest.get("same_numbers_as", [])
    earlier = [h for h in earlier if isinstance(h, str)] if isinstance(earlier, list) else []
    kept = [h for h in dict.fromkeys([manifest["sha256"], *earlier]) if h != new_hash]
    return kept[:SAME_NUMBERS_KEPT]


def _manifest(name: str, t: TableWrite, hashes: dict, numbers: str, same_as: list,
              directory: Path) -> dict:
    spec = spec_of(name)
    ordered = {v: t.viras[v] for v in sorted(t.viras, key=RANKS.index)}
    built_on = {dep: UNUSED if dep in t.unused else h
                for dep, h in built_on_hashes(name, directory).items()}
    parts = None
    if t.parts_built_on is not None:
        parts = {part: dict(built_on) if record is None else record
                 for part, record in t.parts_built_on.items()}
        for record in parts.values():   # a part computed from other tables: all of it stale
            for dep in built_on:
                recorded = record.get(dep) if isinstance(record, dict) else None
                if UNUSED not in (recorded, built_on[dep]) and not same_upstream(
                        dep, recorded, directory):
                    built_on[dep] = recorded
    return {
        "table": name,
        "schema": spec.schema,
        "rules_version": RULES_VERSION,
        "settings": t.settings,
        "fingerprint": fingerprint(name, t.settings),
        "code": code_hash(spec.sources),
        "built_on": built_on,
        **({"parts_built_on": parts} if parts is not None else {}),
        "rows": int(len(t.df)),
        "columns": list(t.df.columns),
        "sha256": hashes[name],
        "numbers_sha256": numbers,
        **({"same_numbers_as": same_as} if same_as else {}),
        "family": {other: h for other, h in hashes.items() if other != name},
        "viras": ordered,
        "iterations": sum(info["iterations"] for info in ordered.values()),
        "exploitability": max((info["exploitability"] for info in ordered.values()),
                              default=None),
        "built": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "build_seconds": round(t.build_seconds, 3),
        "rebuild": spec.rebuild,
        **({"to_rebuild": [list(key) for key in t.to_rebuild]} if t.to_rebuild else {}),
    }


