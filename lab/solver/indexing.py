"""Array indexing without numba's negative-index wraparound, for the modules that ask for it.

Numba compiles every array index of a signed integer type with a wraparound: a negative
index counts from the end, so each access pays a shift, a mask and an add, and a loop whose
index is computed (``RI[d, base + k * n + i]``) keeps them inside and does not vectorise.
LLVM removes them only where it can prove the index non-negative (a plain ``range`` index).
The solvers' kernels index with computed offsets everywhere and never with a negative
number; without the wraparound a full-game iteration takes two thirds of the time and a
card-play one about 15 % less (the same bits; ``benchmarks/full.md``, ``cardplay.md``).

A module opts in with :func:`without_wraparound` (its own ``__name__``) before any of its
functions compile. Only functions compiled from those modules change: every other numba
function keeps Python's semantics. A ``prange`` loop's body is compiled apart, under a
generated name, and keeps the wraparound: such a loop should call a function of the module
for its work. A negative index in an opted-in module would read outside the array, so the
tests run those modules' walks once with numba's bounds checks on, which then reject any
negative index.

This replaces numba's ``numba.np.arrayobj.fix_integer_index`` (numba is pinned in
``pyproject.toml``); where that function is not the one expected, nothing is changed and
the kernels keep the wraparound (slower, the same numbers).
"""

from __future__ import annotations

import inspect

import numba.np.arrayobj as _arrayobj
from numba.core import types

_PARAMETERS = ["context", "builder", "idxty", "idx", "size"]
_MARKS: set[str] = set()
_numba_fix = _arrayobj.fix_integer_index


def _mangled(module: str) -> str:
    """The prefix numba's mangled names give a module's functions (``3lab6solver...``)."""
    return "".join(f"{len(part)}{part}" for part in module.split("."))


def _fix_integer_index(context, builder, idxty, idx, size):
    """numba's index fix-up, without the wraparound in the opted-in modules' functions."""
    if idxty.signed:
        name = builder.function.name
        if any(mark in name for mark in _MARKS):
            return context.cast(builder, idx, idxty, types.intp)
    return _numba_fix(context, builder, idxty, idx, size)


def supported() -> bool:
    """Whether this numba's index fix-up is the function this module replaces."""
    return list(inspect.signature(_numba_fix).parameters) == _PARAMETERS


def without_wraparound(module: str) -> bool:
    """Compile module ``module``'s functions without the negative-index wraparound;
    returns whether that is in force (False: numba is not the expected one)."""
    if not supported():
        return False
    _MARKS.add(_mangled(module))
    _arrayobj.fix_integer_index = _fix_integer_index
    return True


def active(module: str) -> bool:
    """Whether ``module``'s functions compile without the wraparound."""
    return _mangled(module) in _MARKS and _arrayobj.fix_integer_index is _fix_integer_index
