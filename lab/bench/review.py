"""``lab bench review [--hands N] [--bots A,B] [--seed S]``: how fast ``lab review`` grades a
match record file, as a user meets it (a fresh process), and what it finds.

Writes a temporary record file of ``N`` hands (default 1000) played by two bots (default
``cautious`` and ``aggressive``; the same code as ``lab simulate --record``: whole
matches, the last one cut at the N-th hand), times ``lab review FILE --player A --json``
on it as a new process, and prints the hands, the decisions graded, wall seconds,
decisions per second and the process's peak resident megabytes, then A's mean loss per
decision in each unit. With ``--bots solver,solver`` the solver bot reviews itself: its
mean loss per decision is the gap between the values of its own moves, which it draws
from the stored strategy, and of that strategy's mix, and stays within the policies'
exploitability (printed beside it). The first review of a vira (and of a
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


def record_file(path: Path, hands: int, seed: int, bots=BOTS) -> int:
    """Write ``hands`` hands of the two ``bots`` (names) to ``path``; how many."""
    import pandas as pd

    from ..commands.simulate import hand_records
    from ..match_record import write_records
    from ..ranking import command_bot
    from ..rules import DEFAULT_RULES
    from ..sim.bots import make_bot
    from ..sim.match import play_match

    players = [command_bot(name) if name == "solver" else make_bot(name) for name in bots]
    rows: list = []
    m = 0
    while len(rows) < hands:
        play_match(*players, seed, m // 2, bool(m % 2), hand_rows=rows, record=True)
        m += 1
    records = hand_records(pd.DataFrame(rows), *bots, DEFAULT_RULES)[:hands]
    write_records(path, records)
    return len(records)


def parse_bots(text: str) -> tuple[str, str]:
    """``A,B``: two bot names (InputError otherwise)."""
    from ..errors import InputError
    from ..sim.bots import check_bot_name

    names = tuple(part.strip() for part in str(text).split(","))
    if len(names) != 2:
        raise InputError(f"--bots {text!r}: name two bots, A,B")
    for name in names:
        check_bot_name(name)
    return names


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
    parser.add_argument("--bots", type=parse_bots, default=BOTS, metavar="A,B",
                        help="the two bots that play (default cautious,aggressive); A is "
                             "reviewed")
    parser.add_argument("--seed", type=bounded(0, 2**32), default=1)
    args = parser.parse_args(argv)
    from ..commands.simulate import player_names

    player = player_names(*args.bots)[0]
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="lab-bench-review-") as folder:
        path = Path(folder) / "hands.jsonl"
        start = time.perf_counter()
        hands = record_file(path, args.hands, args.seed, args.bots)
        print(f"record file: {hands} hands of {' vs '.join(args.bots)} written in "
              f"{time.perf_counter() - start:.1f} s ({path.stat().st_size / 1e6:.2f} MB)")
        wall, peak, result = timed_review(path, player)
    decisions = result["summary"]["decisions"]
    print(f"{'hands':>7}{'decisions':>11}{'skipped':>9}{'seconds':>9}{'decisions/s':>13}"
          f"{'peak MB':>9}")
    print(f"{result['hands']:>7}{decisions:>11}{result['summary'].get('skipped', 0):>9}"
          f"{wall:>9.1f}{decisions / wall:>13.1f}{peak:>9.0f}")
    for unit, loss in mean_losses(result).items():
        print(f"{player}: mean loss per decision {loss:.5f} {unit}")
    if "solver" in args.bots[0]:
        from ..tables.policies import policy_info, stored_viras

        worst = max(policy_info(v)["exploitability"] for v in stored_viras())
        print(f"the points policies' exploitability: at most {worst:.4f} points per hand")
    print(f"machine load after: {os.getloadavg()[0]:.1f}")
    return 0


def mean_losses(result: dict) -> dict:
    """``{unit: mean loss per graded decision}`` of a ``lab review --json`` object."""
    totals: dict = {}
    for d in result["decisions"]:
        total, count = totals.get(d["unit"], (0.0, 0))
        totals[d["unit"]] = (total + float(d["loss"]), count + 1)
    return {unit: total / count for unit, (total, count) in totals.items()}
