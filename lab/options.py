"""Reading command-line options: a parser whose errors are one line, and strict value types.

Every ``lab`` command and benchmark parses with :class:`Parser`, so a bad option is an
:class:`UsageError` (one ``error:`` line, exit status 2) and never an argparse usage block.
Numbers are read strictly: an integer is ASCII digits with an optional minus sign (``int``
alone would also take ``1_0`` and non-ASCII digits) and at most :data:`MAX_DIGITS` of them, a
number is a finite decimal. Every count has an upper bound, checked while the options are
read, before any work: :data:`MAX_COUNT` for a plain :func:`count`, tighter ones where the
option says (:func:`bounded`, :func:`processes`, :func:`seed`). A value echoed in a message is
shortened (:func:`shown`), so a pasted megabyte stays one short line.
"""

from __future__ import annotations

import argparse
import math
import os
import re

from .errors import InputError


class UsageError(InputError):
    """Bad command-line input: reported as one ``error:`` line, exit 2."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one ``error:`` line and exit status 2.

    argparse reads ``-1,0`` as an unknown option (it only knows ``-1`` is a number), so a
    negative ``--score`` would be reported as "expected one argument" without naming it;
    here any token made of a minus sign and digits or commas is read as a value.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\d[\d,]*$|^-\d*\.\d+$")

    def error(self, message):  # noqa: D102 - argparse hook
        raise UsageError(message)


_INTEGER = re.compile(r"-?[0-9]+")
_NUMBER = re.compile(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")

MAX_DIGITS = 30
"""The most digits an integer is read with; a longer one is refused as too large before it
is converted (Python refuses to convert more than 4,300 digits; the largest seed has 20)."""

MAX_COUNT = 1_000_000_000
"""The largest value of a :func:`count` or a :func:`natural` (iterations, jobs, threads,
lookups ...): more would not end on any machine, or not fit in its memory."""

MAX_SEED = 2**64 - 1
"""The largest seed: seeds are 64-bit (``np.random.SeedSequence`` entropy)."""

MAX_PROCESSES = 4 * (os.cpu_count() or 1)
"""The most worker processes a command starts on this machine: four per core."""


def shown(text, limit: int = 40) -> str:
    """``repr(text)`` cut to about ``limit`` characters, saying how long it was."""
    text = str(text)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit - 10]!r}... ({len(text):,} characters)"


def integer(text: str) -> int:
    """An integer written in ASCII digits (an optional leading minus), at most
    :data:`MAX_DIGITS` of them."""
    text = str(text).strip()
    if not _INTEGER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{shown(text)} is not an integer")
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"{shown(text)}: too large (more than {MAX_DIGITS} "
                                         "digits)")
    return int(text)


def _within(text, value: int, low: int, high: int, unit: str = "") -> int:
    """``value`` when ``low <= value <= high``; ArgumentTypeError naming the bound."""
    if value < low:
        raise argparse.ArgumentTypeError(f"{shown(text)}: give at least {low:,}{unit}"
                                         if low != 0 else f"{shown(text)}: give 0 or more")
    if value > high:
        raise argparse.ArgumentTypeError(f"{shown(text)}: give at most {high:,}{unit}")
    return value


def count(text: str) -> int:
    """An integer from 1 to :data:`MAX_COUNT`."""
    return _within(text, integer(text), 1, MAX_COUNT)


def natural(text: str) -> int:
    """An integer from 0 to :data:`MAX_COUNT`."""
    return _within(text, integer(text), 0, MAX_COUNT)


def bounded(low: int, high: int, unit: str = ""):
    """An option type: an integer from ``low`` to ``high`` (``unit`` follows the bound in
    a message, e.g. ``" seconds"``)."""
    def read(text: str) -> int:
        return _within(text, integer(text), low, high, unit)

    read.__name__ = f"integer {low}..{high}"
    return read


def processes(text: str) -> int:
    """A number of worker processes: 1 to :data:`MAX_PROCESSES`."""
    return _within(text, integer(text), 1, MAX_PROCESSES,
                   " (four per core of this machine)")


def seed(text: str) -> int:
    """A seed: an integer from 0 to :data:`MAX_SEED`."""
    return _within(text, integer(text), 0, MAX_SEED)


def number(text: str) -> float:
    """A finite decimal number (``inf`` and ``nan`` are refused)."""
    text = str(text).strip()
    if not _NUMBER.fullmatch(text) or not math.isfinite(float(text)):
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a finite number")
    return float(text)


def positive(text: str) -> float:
    """A finite number above 0."""
    value = number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{shown(text)}: give a positive number")
    return value


def nonnegative(text: str) -> float:
    """A finite number of 0 or more."""
    value = number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{shown(text)}: give a number of 0 or more")
    return value


def integers(text: str) -> tuple[int, ...]:
    """Comma-separated integers, e.g. ``2,2,2,1``."""
    parts = str(text).split(",")
    try:
        return tuple(integer(p) for p in parts)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{shown(text)}: write integers separated by "
                                         "commas") from None


def read_integer(text, option: str, low: int | None = None, high: int | None = None) -> int:
    """:func:`integer` for an option read by hand, from ``low`` to ``high`` where given;
    UsageError naming ``option``."""
    try:
        value = integer(text)
        if low is not None or high is not None:
            value = _within(text, value, -math.inf if low is None else low,
                            math.inf if high is None else high)
        return value
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"{option} {exc}") from None
