"""Where numba keeps its compiled kernels: a folder named by a hash of the lab's own code.

Numba re-validates a cached function only against the file that defines it. A kernel that
inlines or calls a helper from another module (the batched walks call the full-game
kernels' helpers), or reads another module's constant, would keep running the old machine
code after that module changed, and give wrong numbers without a word. Naming the cache
folder by a hash of the code a kernel can see makes such a change start from an empty
folder instead: every module that imports numba, and every lab module those import at
module level, at any depth (a kernel sees only its module's globals; an import inside a
function runs in Python). A change elsewhere (a dashboard, a command, the tables) keeps
the compiled kernels.

This module uses the standard library only: :mod:`lab` calls :func:`key_numba_cache`
before anything imports numba. The folder is ``$NUMBA_CACHE_DIR/lab-<hash>`` (else
``.cache/numba/lab-<hash>`` in the repository); nothing in it is a result, and any of it
may be deleted at any time.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

LAB = Path(__file__).resolve().parent
"""The package's folder: the sources under it that kernels can see are hashed."""

PREFIX = "lab-"

USES_NUMBA = re.compile(rb"^\s*(?:import|from)\s+numba\b", re.M)
FROM_IMPORT = re.compile(rb"^from\s+(\.*[\w.]*)\s+import\s+(\([^)]*\)|[^\n]*)", re.M)
PLAIN_IMPORT = re.compile(rb"^import\s+([\w., ]+)", re.M)
"""Module-level imports (unindented): a kernel sees only its module's globals, so an
import inside a function (run by Python, not compiled) brings it nothing."""


def _module(parts: tuple, sources: dict):
    """The source of module ``parts`` (a package: its ``__init__``), or None."""
    for key in (parts, parts + ("__init__",)):
        if key in sources:
            return key
    return None


def _imported(key: tuple, text: bytes, sources: dict) -> set:
    """The lab sources that ``text`` (the source ``key``) imports, with the packages
    they sit in."""
    package = key[:-1]
    found = set()

    def add(parts):
        for k in range(1, len(parts) + 1):
            m = _module(tuple(parts[:k]), sources)
            if m is not None:
                found.add(m)

    for origin, names in FROM_IMPORT.findall(text):
        origin = origin.decode()
        dots = len(origin) - len(origin.lstrip("."))
        rest = [p for p in origin[dots:].split(".") if p]
        if dots:
            base = list(package[:len(package) - dots + 1])
        elif rest[:1] == ["lab"]:
            base, rest = [], rest[1:]
        else:
            continue
        add(base + rest)
        for name in re.findall(rb"\w+", names.split(b"#")[0]):
            add(base + rest + [name.decode()])
    for names in PLAIN_IMPORT.findall(text):
        for name in names.decode().split(","):
            parts = name.strip().split(" ")[0].split(".")
            if parts[0] == "lab":
                add(parts[1:])
    return found


def kernel_sources() -> list:
    """The sources under ``lab/`` a compiled kernel can see: those that import numba and,
    at any depth, the lab modules they import at module level and the packages these sit
    in (relative paths, sorted)."""
    sources = {path.relative_to(LAB).with_suffix("").parts: path.read_bytes()
               for path in LAB.rglob("*.py") if "__pycache__" not in path.parts}
    todo = [key for key, text in sources.items() if USES_NUMBA.search(text)]
    seen = set(todo)
    while todo:
        key = todo.pop()
        packages = {_module(key[:k], sources) for k in range(1, len(key))} - {None}
        for other in (_imported(key, sources[key], sources) | packages) - seen:
            seen.add(other)
            todo.append(other)
    return sorted((key, sources[key]) for key in seen)


def source_key() -> str:
    """A short hash of :func:`kernel_sources`: their names and contents."""
    h = hashlib.sha256()
    for key, text in kernel_sources():
        h.update("/".join(key).encode())
        h.update(b"\0")
        h.update(text)
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
