"""``lab bench review [--hands N] [--player BOT] [--seed S]``: how fast ``lab review`` grades
a match record file, as a user meets it (a fresh process).

Writes a temporary record file of ``N`` hands (default 1000) played by the ``cautious``
and ``aggressive`` bots (the same code as ``lab simulate --record``: whole matches, the
last one cut at the N-th hand), times ``lab review FILE --player cautious --json`` on it as
a new process, and prints the hands, the decisions graded, wall seconds, decisions per
second and the process's peak resident megabytes. The first review of a vira (and of a
score with its own model) walks the solved game once and keeps it on disk, so a first
run on a machine is slower than the next ones: the figures say which run it was only
through the time; run it twice to see both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..options import Parser, bounded

BOTS = ("cautious", "aggressive")


def record_file(path: Path, hands: int, seed: int) -> int:
    """Write ``hands`` hands of cautious against aggressive to ``path``; how many."""
    import pandas as pd

    from ..commands.simulate import hand_records
    from ..match_record import write_records
    from ..rules import DEFAULT_RULES
    from ..sim.bots import make_bot
    from ..sim.match import play_match

    bots = [make_bot(name) for name in BOTS]
    rows: list = []
    m = 0
    while len(rows) < hands:
        play_match(*bots, seed, m // 2, bool(m % 2), hand_rows=rows, record=True)
        m += 1
    records = hand_records(pd.DataFrame(rows), *BOTS, DEFAULT_RULES)[:hands]
    write_records(path, records)
    return len(records)


def timed_review(path: Path, player: str) -> tuple[float, float, dict]:
    """(wall seconds, peak resident MB, the JSON it printed) of ``lab review`` as a new
    process."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, "-m", "lab", "review", str(path), "--player",
                                 player, "--json"], stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
        if status != 0:
            raise RuntimeError(f"lab review failed: {err.strip()}")
        out.seek(0)
        result = json.loads(out.read())
    return wall, usage.ru_maxrss / 1024, result


def main(argv) -> int:
    parser = Parser(prog="lab bench review", description=__doc__)
    parser.add_argument("--hands", type=bounded(1, 100_000), default=1000, metavar="N",
                        help="hands in the record file (default 1000)")
    parser.add_argument("--player", choices=BOTS, default="cautious",
                        help="the bot reviewed (default cautious)")
    parser.add_argument("--seed", type=bounded(0, 2**32), default=1)
    args = parser.parse_args(argv)
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="lab-bench-review-") as folder:
        path = Path(folder) / "hands.jsonl"
        start = time.perf_counter()
        hands = record_file(path, args.hands, args.seed)
        print(f"record file: {hands} hands of {' vs '.join(BOTS)} written in "
              f"{time.perf_counter() - start:.1f} s ({path.stat().st_size / 1e6:.2f} MB)")
        wall, peak, result = timed_review(path, args.player)
    decisions = result["summary"]["decisions"]
    print(f"{'hands':>7}{'decisions':>11}{'skipped':>9}{'seconds':>9}{'decisions/s':>13}"
          f"{'peak MB':>9}")
    print(f"{result['hands']:>7}{decisions:>11}{result['summary'].get('skipped', 0):>9}"
          f"{wall:>9.1f}{decisions / wall:>13.1f}{peak:>9.0f}")
    print(f"machine load after: {os.getloadavg()[0]:.1f}")
    return 0
