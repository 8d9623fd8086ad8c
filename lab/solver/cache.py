"""Built structures kept on disk between processes, named by a hash of the code they
come from: a public or card tree that takes seconds to build loads in a fraction of one.

Nothing here is a result: the files live in ``$LAB_CACHE_DIR`` (else ``.cache/lab`` in the
repository, never ``data/``), may be deleted at any time, and are rebuilt when the code
they hash changes, or when they cannot be read.

A file holds the structure's pickle with its arrays **out of band**: each array's bytes
sit at an aligned offset after the pickle, and loading maps the file into memory
(copy-on-write) and lets the arrays point into it. Loading reads nothing but the pickle;
an array's pages are read when it is used, and every process that maps the same file
shares them (the operating system keeps one copy in its page cache). An array written to
gets private copies of the pages written, never a change in the file.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import pickle
import struct
from pathlib import Path
from typing import Optional

LAB = Path(__file__).resolve().parents[1]
"""The package's folder: ``sources`` are paths under it."""

MAGIC = b"LABMMAP1"
ALIGN = 64
"""Arrays start at multiples of 64 bytes (a cache line; numba takes them as aligned)."""


def cache_dir() -> Path:
    """Where built structures are cached: ``$LAB_CACHE_DIR``, else ``.cache/lab`` in the
    repository."""
    env = os.environ.get("LAB_CACHE_DIR")
    return Path(env) if env else LAB.parent / ".cache" / "lab"


def cache_path(name: str, sources) -> Path:
    """The file of ``name`` built by the code in ``sources`` (paths under ``lab/``)."""
    h = hashlib.sha256(name.encode())
    for src in sources:
        h.update((LAB / src).read_bytes())
    return cache_dir() / f"{name}-{h.hexdigest()[:12]}.map"


def short_name(kind: str, description: str) -> str:
    """A cache name of ``kind`` for a structure described by a long text (its settings and
    payoffs): the kind and a hash of the text, fit for a file name."""
    return f"{kind}-{hashlib.sha256(description.encode()).hexdigest()[:16]}"


def disk_cached(name: str, build, sources, keep: Optional[int] = None):
    """``build()``, kept under :func:`cache_dir` with a name that hashes ``name`` and the
    code it depends on (``sources``, paths under ``lab/``); written atomically, loaded
    memory-mapped (module docstring), and built again (without failing) where the file
    is damaged or the folder is read-only. ``keep``: at most that many files of the
    name's kind (its part before the first ``-``) stay, the most recently used."""
    path = cache_path(name, sources)
    try:
        value = load_mapped(path)
        if keep is not None:
            os.utime(path)   # recently used
        return value
    except (OSError, ValueError, EOFError, pickle.UnpicklingError, AttributeError,
            ImportError, struct.error):
        pass
    value = build()
    try:
        write_mapped(path, value)
    except OSError:
        return value  # a read-only place: build again next time
    if keep is not None:
        _keep_recent(path.parent, name.split("-")[0] + "-", keep)
    try:
        return load_mapped(path)  # the mapped copy: shared with other processes
    except (OSError, ValueError, pickle.UnpicklingError, struct.error):
        return value


def write_mapped(path: Path, value) -> None:
    """Write ``value`` as a mapped cache file (a temporary file, then a rename)."""
    buffers = []
    body = pickle.dumps(value, protocol=5, buffer_callback=buffers.append)
    raws = [b.raw() for b in buffers]
    head = len(MAGIC) + 16 + 16 * len(raws)
    offset = _aligned(head + len(body))
    index = []
    for raw in raws:
        index.append((offset, raw.nbytes))
        offset = _aligned(offset + raw.nbytes)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(MAGIC + struct.pack("<QQ", len(body), len(raws)))
            for off, size in index:
                fh.write(struct.pack("<QQ", off, size))
            fh.write(body)
            for (off, _), raw in zip(index, raws):
                fh.write(b"\0" * (off - fh.tell()))
                fh.write(raw)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def load_mapped(path: Path):
    """The value in a mapped cache file, its arrays in the file's pages (copy-on-write)."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size < len(MAGIC) + 16:
            raise ValueError(f"{path}: too short")
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
    view = memoryview(mm)
    if bytes(view[:len(MAGIC)]) != MAGIC:
        raise ValueError(f"{path}: not a mapped cache file")
    n_body, n_buffers = struct.unpack_from("<QQ", view, len(MAGIC))
    start = len(MAGIC) + 16
    index = [struct.unpack_from("<QQ", view, start + 16 * k) for k in range(n_buffers)]
    body_at = start + 16 * n_buffers
    if body_at + n_body > size or any(off + n > size for off, n in index):
        raise ValueError(f"{path}: cut short")
    buffers = [view[off:off + n] for off, n in index]
    return pickle.loads(view[body_at:body_at + n_body], buffers=buffers)


def _keep_recent(folder: Path, prefix: str, keep: int) -> None:
    """Remove all but the ``keep`` most recently used cache files named ``prefix...``
    (a process that maps one keeps its pages)."""
    files = sorted(folder.glob(f"{prefix}*.map"), key=lambda p: p.stat().st_mtime,
                   reverse=True)
    for old in files[keep:]:
        try:
            old.unlink()
        except OSError:
            pass


def _aligned(offset: int) -> int:
    return -(-offset // ALIGN) * ALIGN
