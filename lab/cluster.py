"""Dask clusters for the lab's fan-out work: a local cluster, or a scheduler reached by
address with a bounded, checked handshake.

A local cluster's worker processes are started with Ctrl-C ignored: a Ctrl-C at the
terminal reaches every process of the foreground group, and the workers would each print a
``KeyboardInterrupt`` traceback; this way only the command itself stops (one ``error:
interrupted`` line) and closes its workers.

Connecting to an address where no dask scheduler listens must fail in seconds with one
line: a plain ``Client(address)`` waits for ever on a silent peer and, on a peer that
answers something else (an HTTP server), reads its reply as a frame length and tries to
allocate exabytes. So the address is first probed in a child process with a time and
memory bound; only an address that answered as a dask scheduler is connected to here.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import threading

from .errors import InputError

CONNECT_SECONDS = 10
"""How long a scheduler may take to answer (seconds)."""

_PROBE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
from distributed import Client
client = Client(sys.argv[1], timeout=int(sys.argv[2]))
print(len(client.scheduler_info().get("workers", {})))
client.close()
"""


def check_scheduler(address: str, option: str = "--scheduler") -> int:
    """The number of workers of the dask scheduler at ``address`` (-1 for one in this
    process, ``inproc://``); InputError (one line)
    when nothing answers there as a dask scheduler within CONNECT_SECONDS."""
    if not address or not isinstance(address, str) or address.strip() != address:
        raise InputError(f"{option} {address!r}: give a scheduler address like "
                         "tcp://HOST:8786")
    if address.startswith("inproc://"):
        return -1  # a scheduler in this process: nothing foreign can listen there
    try:
        out = subprocess.run([sys.executable, "-c", _PROBE, address, str(CONNECT_SECONDS)],
                             capture_output=True, text=True, timeout=CONNECT_SECONDS + 20)
    except subprocess.TimeoutExpired:
        out = None
    if out is None or out.returncode != 0 or not out.stdout.strip().isdigit():
        raise InputError(f"{option} {address}: no dask scheduler answered there within "
                         f"{CONNECT_SECONDS} s")
    return int(out.stdout.strip())


def connect(address: str, option: str = "--scheduler"):
    """A ``distributed.Client`` of the checked scheduler at ``address``."""
    from distributed import Client

    check_scheduler(address, option)
    try:
        return Client(address, timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError) as exc:
        raise InputError(f"{option} {address}: cannot connect ({type(exc).__name__})") \
            from None


def local_cluster(workers: int, processes: bool = True, **options):
    """A ``distributed.LocalCluster`` of ``workers`` one-thread workers (processes unless
    ``processes=False``) whose processes ignore Ctrl-C (see the module's docstring)."""
    from distributed import LocalCluster

    # dashboard_address ":0": any free port for the scheduler's web server (8787 may be taken);
    # logs only at CRITICAL: a task's failure reaches the caller as its exception, and on
    # Ctrl-C a loaded machine may close the scheduler before a worker's next heartbeat,
    # which a worker logs as an ERROR with a traceback
    options = {"dashboard_address": ":0", "silence_logs": logging.CRITICAL, **options}
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main and processes else None
    try:  # a spawned worker keeps SIGINT ignored; Python installs no handler over it
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                            **options)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
