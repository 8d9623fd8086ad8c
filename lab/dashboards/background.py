"""Slow work for a dashboard (loading a policy, exact action values), off the kernel's
main thread.

A dashboard must draw its first state at once and fill in what takes seconds afterwards:
a Voila page shows nothing until its notebook's cells have run, and a kernel busy in a
cell answers no widget. :class:`Background` runs such work on one worker thread, started
after the code that asks for it has returned, and hands the result back on the kernel's
event loop, the only place that touches widgets. Jobs have a *kind*; a job not started
yet is replaced by a newer one of its kind (the user moved on), and jobs run one at a
time in the order they were queued.

Outside a kernel (plain Python, the tests) the work runs at once, in the caller, even
where another library runs an event loop.

Numba kernels hold the interpreter lock while they run, so while an exact-values
traversal runs (seconds at the start of a hand) the kernel answers no click; the clicks
wait and are handled in order afterwards. Work that is heavy in memory and not asked for
often can run in a child process (:func:`in_child`), which gives it all back when done.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import threading
import weakref
from collections import OrderedDict

_ALL: "weakref.WeakSet[Background]" = weakref.WeakSet()


def _in_kernel() -> bool:
    """Whether this code runs in a Jupyter kernel (Voila's, or a notebook's)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class Background:
    """One worker thread for a dashboard's slow jobs (see the module docstring)."""

    def __init__(self, threaded: bool | None = None):
        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        if threaded is None:  # another library's loop (a test's browser) is not a kernel
            threaded = self.loop is not None and _in_kernel()
        self.threaded = threaded
        self._lock = threading.Lock()
        self._pending: OrderedDict = OrderedDict()
        self._running = False
        self._unfinished: dict = {}   # kind: jobs asked for whose callback has not run yet
        self._timers: dict = {}       # kind: the loop's handle of a job not queued yet
        _ALL.add(self)

    def idle(self, kinds=None) -> bool:
        """No job (of ``kinds``, default any) waiting, running, or waiting to hand its
        result back."""
        with self._lock:
            return not any(n for k, n in self._unfinished.items() if kinds is None or k in kinds)

    def submit(self, kind: str, work, done, failed=None, delay: float = 0.0) -> None:
        """Run ``work()``, then ``done(result)`` (or ``failed(exception)``) where widgets
        may be touched. A job of ``kind`` not started yet is dropped for this one.

        In a kernel the job starts once the code asking for it has returned (a cell's
        output goes out first), and no sooner than ``delay`` seconds: asked for again
        within that time (the user clicks on), it waits again."""
        if not self.threaded:
            self._finish(work, done, failed)
            return
        timer = self._timers.pop(kind, None)
        if timer is not None:
            timer.cancel()
            self._dropped(kind)
        with self._lock:
            self._unfinished[kind] = self._unfinished.get(kind, 0) + 1
        self._timers[kind] = self.loop.call_later(delay, self._enqueue, kind,
                                                  (work, done, failed))

    def _dropped(self, kind: str) -> None:
        with self._lock:
            self._unfinished[kind] -= 1    # a dropped job never calls back

    def _enqueue(self, kind: str, job) -> None:
        self._timers.pop(kind, None)
        with self._lock:
            if kind in self._pending:
                self._unfinished[kind] -= 1
                del self._pending[kind]
            self._pending[kind] = job
            if self._running:
                return
            self._running = True
        threading.Thread(target=self._drain, name="lab-dashboard-work", daemon=True).start()

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._pending:
                    self._running = False
                    break
                kind, (work, done, failed) = self._pending.popitem(last=False)
            try:
                outcome = (True, work())
            except Exception as exc:  # handed to ``failed`` on the loop
                outcome = (False, exc)
            self.loop.call_soon_threadsafe(self._deliver, kind, outcome, done, failed)
        give_back_memory()

    def _deliver(self, kind, outcome, done, failed) -> None:
        ok, value = outcome
        try:
            if ok:
                done(value)
            elif failed is not None:
                failed(value)
        finally:
            with self._lock:
                self._unfinished[kind] -= 1

    def _finish(self, work, done, failed) -> None:
        try:
            value = work()
        except Exception as exc:
            if failed is None:
                raise
            failed(exc)
            return
        done(value)


def in_child(function, *args, step=None):
    """``function(*args, step=...)`` run in a new Python process, its result returned
    here (its exception raised here); each ``step(*values)`` the child calls is called
    here too, in order. For work that maps policies and walks them (hundreds of MB): the
    memory is the child's, and all of it goes back to the system when the child ends, so
    the kernel stays small. ``function`` must be importable by name (a module's
    top-level function), its arguments and result picklable."""
    import multiprocessing
    import queue as queues

    context = multiprocessing.get_context("spawn")   # a clean process, no kernel threads
    channel = context.Queue()
    child = context.Process(target=_child_main, args=(channel, function, args), daemon=True)
    child.start()
    try:
        while True:
            try:
                kind, payload = channel.get(timeout=1.0)
            except queues.Empty:
                if not child.is_alive():
                    raise RuntimeError(f"the worker process stopped without an answer (exit "
                                       f"status {child.exitcode})") from None
                continue
            if kind == "step":
                if step is not None:
                    step(*payload)
            elif kind == "done":
                return payload
            else:
                raise payload
    finally:
        child.join(timeout=10)
        if child.is_alive():
            child.kill()
            child.join()


def _child_main(channel, function, args) -> None:
    try:
        result = function(*args, step=lambda *values: channel.put(("step", values)))
    except Exception as exc:
        channel.put(("error", exc))
    else:
        channel.put(("done", result))


def give_back_memory() -> None:
    """Collect the garbage the jobs left and hand the memory freed back to the system
    (glibc keeps freed memory in the process otherwise: a review's grading leaves about
    30 MB behind). Run when the worker has no job left."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):   # not glibc: nothing to trim
        pass


async def settle(timeout: float = 300.0, kinds=None) -> bool:
    """Wait (in a kernel, letting the event loop run) until every dashboard's background
    work (of ``kinds``, default any) is done; False if ``timeout`` seconds pass first.
    For notebooks run headless: ``await settle()`` in a last cell."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if all(b.idle(kinds) for b in list(_ALL)):
            return True
        await asyncio.sleep(0.1)
    return False
