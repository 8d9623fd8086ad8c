"""Reading command-line options: a parser whose errors are one line, and strict value types.

Every ``lab`` command and benchmark parses with :class:`Parser`, so a bad option is an
:class:`UsageError` (one ``error:`` line, exit status 2) and never an argparse usage block.
Numbers are read strictly: an integer is ASCII digits with an optional minus sign (``int``
alone would also take ``1_0`` and non-ASCII digits), a number is a finite decimal.
"""

from __future__ import annotations

import argparse
import math
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


def integer(text: str) -> int:
    """An integer written in ASCII digits (an optional leading minus)."""
    text = str(text).strip()
    if not _INTEGER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer")
    return int(text)


def count(text: str) -> int:
    """An integer of at least 1."""
    value = integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give at least 1")
    return value


def natural(text: str) -> int:
    """An integer of at least 0."""
    value = integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give 0 or more")
    return value


def number(text: str) -> float:
    """A finite decimal number (``inf`` and ``nan`` are refused)."""
    text = str(text).strip()
    if not _NUMBER.fullmatch(text) or not math.isfinite(float(text)):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return float(text)


def positive(text: str) -> float:
    """A finite number above 0."""
    value = number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive number")
    return value


def integers(text: str) -> tuple[int, ...]:
    """Comma-separated integers, e.g. ``2,2,2,1``."""
    parts = str(text).split(",")
    try:
        return tuple(integer(p) for p in parts)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r}: write integers separated by commas") \
            from None


def read_integer(text, option: str) -> int:
    """:func:`integer` for an option read by hand; UsageError naming ``option``."""
    try:
        return integer(text)
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"{option} {exc}") from None

