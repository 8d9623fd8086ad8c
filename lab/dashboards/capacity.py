"""How many dashboards the server keeps open at once, and the page a visitor gets past that.

Every visit of a dashboard starts a kernel (a Python process) that lives until its page is
closed and the kernel has been idle for the culling time (5 minutes); the hand explorer's
kernel holds about 2.0 GB. So that visits cannot exhaust the machine's memory, the server
runs at most a fixed number of kernels at once:

- ``LAB_MAX_KERNELS`` (a whole number, at least 1) when it is set, or the server's
  ``--max_kernels`` option;
- otherwise the memory available when the server starts divided by KERNEL_MEMORY_BYTES
  (the budget of one kernel), at least 1: 11 on a machine with 23 GiB available.

A visit past the limit gets :func:`full_page` with HTTP status 503 (Service Unavailable)
instead of a kernel, and the kernels already running are left alone.
"""

from __future__ import annotations

import html
import os

from ..errors import InputError

KERNEL_MEMORY_BYTES = 2 * 1024**3
"""The memory budget of one dashboard kernel, in bytes (2 GiB: the hand explorer's kernel
measured 2.0 GB, the largest of the dashboards)."""

RETRY_AFTER_SECONDS = 60
"""Seconds a refused visitor is asked to wait (the ``Retry-After`` header)."""

ENVIRONMENT_VARIABLE = "LAB_MAX_KERNELS"


def available_memory_bytes() -> int | None:
    """The memory available to new processes now, in bytes (``MemAvailable`` of Linux's
    ``/proc/meminfo``, else the machine's physical memory), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                name, _, value = line.partition(":")
                if name == "MemAvailable":
                    return int(value.split()[0]) * 1024  # the file counts kB (KiB)
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def kernels_that_fit(memory_bytes: int | None) -> int:
    """How many kernels of KERNEL_MEMORY_BYTES fit in ``memory_bytes``: at least 1 (also
    when the memory is unknown)."""
    if memory_bytes is None:
        return 1
    return max(1, memory_bytes // KERNEL_MEMORY_BYTES)


def parse_max_kernels(text: str, name: str = ENVIRONMENT_VARIABLE) -> int:
    """A kernel limit written as ASCII digits, at least 1; InputError naming ``name``
    otherwise."""
    stripped = text.strip()
    if not (stripped.isascii() and stripped.isdigit()) or int(stripped) < 1:
        raise InputError(f"{name} must be a whole number of kernels, at least 1, "
                         f"not {text!r}")
    return int(stripped)


def default_max_kernels(environ=None) -> int:
    """The kernel limit when no option sets it: ``LAB_MAX_KERNELS`` when set, else the
    kernels that fit in the memory available now."""
    environ = os.environ if environ is None else environ
    text = environ.get(ENVIRONMENT_VARIABLE, "")
    if text.strip():
        return parse_max_kernels(text)
    return kernels_that_fit(available_memory_bytes())


class ServerFull(Exception):
    """A kernel was asked for while ``limit`` kernels (``running``) were already running."""

    def __init__(self, running: int, limit: int):
        super().__init__(f"the server is full: {running} dashboards are open "
                         f"(at most {limit})")
        self.running, self.limit = running, limit


def full_page(full: ServerFull) -> str:
    """The HTML page a visitor gets when the server is full (served with status 503)."""
    dashboards = "dashboard is" if full.running == 1 else "dashboards are"
    message = (f"The server is full: {full.running} {dashboards} open, the most this "
               "server runs at once. A dashboard frees its place a few minutes after "
               "its page is closed: try again in a few minutes.")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">"
            "<title>The truco lab: the server is full</title></head>\n"
            "<body style=\"font-family: sans-serif; max-width: 40em; margin: 3em auto\">\n"
            "<h1>The server is full</h1>\n"
            f"<p>{html.escape(message)}</p>\n</body>\n</html>\n")
