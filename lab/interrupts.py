"""Ctrl-C and SIGTERM held off while something must not be left half-done.

An interrupt that lands inside the thread pool compressing a checkpoint can leave the
pool's lock released twice (``RuntimeError: cannot release un-acquired lock``) instead
of stopping the command cleanly, and one that lands between the renames of a table write
leaves tables that refuse to load. Checkpoint writes and every table's read-merge-write
(:mod:`lab.tables.manifests`) run inside :func:`interrupts_held`, which nests: there the
two signals are only noted; the block runs to its end, then the first one noted is raised
again, so it is taken by whatever handler was in place before (a ``KeyboardInterrupt``
under the lab's command line).
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

HELD = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def interrupts_held():
    """Run the block to its end even if Ctrl-C or SIGTERM arrives, then deliver the first
    signal that arrived. Outside the main thread (where handlers cannot be set) the
    block runs unprotected."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted = []
    previous = {signum: signal.signal(signum, lambda signum, frame: noted.append(signum))
                for signum in HELD}
    try:
        yield
    finally:
        for signum, handler in previous.items():   # None: one set outside Python
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
    if noted:
        signal.raise_signal(noted[0])


def broken_by_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while a ``KeyboardInterrupt`` was being handled: clean-up
    code the interrupt broke (a thread pool's lock released twice), so the command was
    interrupted rather than faulty."""
    seen = exc.__context__
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__context__
    return False
