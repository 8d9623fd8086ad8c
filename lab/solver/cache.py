"""Built structures kept on disk between processes, named by a hash of the code they
come from: a public or card tree that takes seconds to build loads in a fraction of one.

Nothing here is a result: the files live in ``$LAB_CACHE_DIR`` (else ``.cache/lab`` in the
repository, never ``data/``), may be deleted at any time, and are rebuilt when the code
they hash changes, or when they cannot be read.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

LAB = Path(__file__).resolve().parents[1]
"""The package's folder: ``sources`` are paths under it."""


def cache_dir() -> Path:
    """Where built structures are cached: ``$LAB_CACHE_DIR``, else ``.cache/lab`` in the
    repository."""
    env = os.environ.get("LAB_CACHE_DIR")
    return Path(env) if env else LAB.parent / ".cache" / "lab"


def disk_cached(name: str, build, sources):
    """``build()``, pickled under :func:`cache_dir` with a name that hashes ``name`` and the
    code it depends on (``sources``, paths under ``lab/``); written atomically, and built
    again (without failing) where the folder is read-only."""
    h = hashlib.sha256(name.encode())
    for src in sources:
        h.update((LAB / src).read_bytes())
    path = cache_dir() / f"{name}-{h.hexdigest()[:12]}.pkl"
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError):
        pass
    value = build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            pickle.dump(value, fh, protocol=5)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only place: build again next time
    return value
