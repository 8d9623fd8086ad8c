"""Where numba keeps its compiled kernels: a folder named by a hash of the lab's own code.

Numba re-validates a cached function only against the file that defines it. A kernel that
inlines or calls a helper from another module (the batched walks call the full-game
kernels' helpers) would keep running the helper's old machine code after that module
changed, and give wrong numbers without a word. Naming the cache folder by a hash of every
source file under ``lab/`` makes any change start from an empty folder instead.

This module uses the standard library only: :mod:`lab` calls :func:`key_numba_cache`
before anything imports numba. The folder is ``$NUMBA_CACHE_DIR/lab-<hash>`` (else
``.cache/numba/lab-<hash>`` in the repository); nothing in it is a result, and any of it
may be deleted at any time.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

LAB = Path(__file__).resolve().parent
"""The package's folder: every ``*.py`` under it is hashed."""

PREFIX = "lab-"


def source_key() -> str:
    """A short hash of every Python source under ``lab/``: names and contents."""
    h = hashlib.sha256()
    for path in sorted(LAB.rglob("*.py")):
        h.update(path.relative_to(LAB).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def numba_cache_dir(environ=os.environ) -> Path:
    """The cache folder for this code: under ``$NUMBA_CACHE_DIR`` (or under its parent, if
    it already names a keyed folder, as in a process started by a lab process), else under
    ``.cache/numba`` in the repository."""
    env = environ.get("NUMBA_CACHE_DIR")
    base = Path(env) if env else LAB.parent / ".cache" / "numba"
    if base.name.startswith(PREFIX):
        base = base.parent
    return base / f"{PREFIX}{source_key()}"


def key_numba_cache() -> Path:
    """Point numba (now, and in every process started from this one) at
    :func:`numba_cache_dir`."""
    folder = numba_cache_dir()
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None:          # numba was imported first: it read the old value
        config.CACHE_DIR = str(folder)
    return folder
