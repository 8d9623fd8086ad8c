"""Files in a data folder, written so that nothing half-done is ever read.

Every writer of a data folder (``data/`` or ``$LAB_DATA_DIR``) holds its exclusive lock
(:func:`data_lock`, a ``.lock`` file in the folder, re-entrant within one thread, so a
writer that holds it may call writers that take it again) from its first read of a table
it merges into to its last rename, so two writers never interleave and no update is lost. A file is
written under a temporary name unique to the writing process and call, flushed to disk,
then renamed over the old one (:func:`write_atomic`): a reader sees the old bytes or the
new ones. Temporaries left by a killed writer are removed by the next writer
(:func:`remove_stale_temporaries`). Tables and their manifests are tied together by the
content hash of each file (:func:`content_hash`), checked on read by :mod:`lab.tables`.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from pathlib import Path

LOCK_NAME = ".lock"
_TEMPORARY = re.compile(r"^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$")
_held: dict = {}
_held_guard = threading.Lock()


def content_hash(data) -> str:
    """Short (16 hex digits) SHA-256 of bytes, or of the bytes of a file given as a Path."""
    if isinstance(data, (str, Path)):
        data = Path(data).read_bytes()
    return hashlib.sha256(data).hexdigest()[:16]


def temporary_name(path: Path) -> Path:
    """A hidden temporary beside ``path``, unique to this process and call."""
    path = Path(path)
    return path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")


def write_atomic(path: Path, data) -> None:
    """Write ``data`` (bytes or str) to ``path`` through a flushed temporary and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_name(path)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def remove_stale_temporaries(directory: Path) -> list[Path]:
    """Remove the temporaries in ``directory`` (and its sub-folders) whose writing process
    is gone; returns them. Call with the folder's lock held."""
    removed = []
    directory = Path(directory)
    if not directory.is_dir():
        return removed
    for path in directory.rglob(".*.tmp"):
        match = _TEMPORARY.match(path.name)
        if match and not _alive(int(match.group(1))):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class data_lock:
    """The exclusive writers' lock of a data folder, held for the ``with`` block.

    Re-entrant within one process (a builder that holds it may call writers that take it
    again); other processes wait. Entering it also removes stale temporaries.
    """

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.key = str(self.directory.resolve())

    def __enter__(self):
        import fcntl

        with _held_guard:
            entry = _held.get(self.key)
            if entry is not None and entry[0] == threading.get_ident():
                _held[self.key] = (entry[0], entry[1], entry[2] + 1)
                return self
        self.directory.mkdir(parents=True, exist_ok=True)
        fh = open(self.directory / LOCK_NAME, "a")
        fcntl.flock(fh, fcntl.LOCK_EX)
        with _held_guard:
            _held[self.key] = (threading.get_ident(), fh, 1)
        remove_stale_temporaries(self.directory)
        return self

    def __exit__(self, *exc):
        import fcntl

        with _held_guard:
            owner, fh, depth = _held[self.key]
            if depth > 1:
                _held[self.key] = (owner, fh, depth - 1)
                return False
            del _held[self.key]
        fcntl.flock(fh, fcntl.LOCK_UN)
        fh.close()
        return False


def check_writable(folder: Path, what: str) -> Path:
    """``folder`` (created if missing) after proving a file can be written in it;
    InputError naming ``what`` otherwise. Called before long work, not after it."""
    from .errors import InputError

    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = temporary_name(folder / "probe")
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise InputError(f"{what} {folder}: cannot write there ({exc.strerror or exc})") \
            from None
    return folder


def check_output_file(path, option: str, suffixes=()) -> Path:
    """``path`` after proving a file can be written there (the probe leaves nothing
    behind); InputError naming ``option`` otherwise. Called before the work, not after."""
    from .errors import InputError

    text = str(path)
    if not text.strip():
        raise InputError(f"{option} {text!r}: name a file")
    if suffixes and not text.endswith(tuple(suffixes)):
        raise InputError(f"{option} {text!r}: write a {' or '.join(suffixes)} file")
    path = Path(text)
    try:
        if path.is_dir():
            raise InputError(f"{option} {text!r}: that is a folder; name a file")
        existed = path.exists()
        with open(path, "ab"):
            pass
    except OSError as exc:
        raise InputError(f"{option} {text!r}: cannot write there "
                         f"({exc.strerror or type(exc).__name__})") from None
    if not existed:
        path.unlink(missing_ok=True)
    return path
