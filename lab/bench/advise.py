"""``lab bench advise``: how fast and how heavy the advice service is, as its users meet it.

Four figures, side by side in one run:

- **warm**: :func:`lab.advice.advice_for` on random positions of every score kind (normal
  scores, the re-solved end-game scores, mão de onze, 11 x 11; the actions so far drawn
  at random from the legal ones, so on and off the solved path) in one process, after
  one position of each kind has loaded what it needs: p50, p99 and max milliseconds;
- **fresh**: ``lab advise`` as a new process (what a player at the table waits for): wall
  seconds and peak resident megabytes, one run per position kind;
- **resident**: every stored points and score-aware policy loaded in one process, and the
  same in a second process at once: each one's resident, proportional (shared pages
  split between the processes) and private (pages no other process maps: what the
  second process adds to the machine) megabytes;
- the machine's load, since the other figures depend on it.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

import numpy as np

from ..options import Parser, bounded

KINDS = ("normal", "re-solved", "mao-de-onze", "eleven-eleven")
"""Score kinds of the random positions."""

RESOLVED_SCORES = ((9, 9), (9, 10), (10, 9), (10, 10))
"""Scores with a stored score-aware policy for every vira."""


def random_position(rng: random.Random, kind: str, viras=None, scores=RESOLVED_SCORES):
    """A random position of score ``kind``: a random vira (of the ranks ``viras``, default
    any) and deal, a score of that kind (re-solved: one of ``scores``), and random legal
    actions (no surrender) up to a decision of the seat to act, from whose view the
    position is taken (the opponent's covered cards unseen)."""
    return random_deal(rng, kind, viras, scores)[0]


def random_deal(rng: random.Random, kind: str, viras=None, scores=RESOLVED_SCORES,
                eleven_scores=None):
    """``(position, state, history)``: :func:`random_position` with the whole deal's rules
    state and the actions as both seats know their own (covered cards named). The
    re-solved scores are drawn from ``scores``, the mão de onze ones from
    ``eleven_scores`` (None: any)."""
    from ..advice import build_position, legal_moves
    from ..cards import DECK
    from ..rules import COVER, SURRENDER, Action, new_hand

    while True:
        cards = list(DECK)
        rng.shuffle(cards)
        if viras is not None and cards[0].rank_char not in viras:
            continue
        vira, hands = cards[0], (tuple(cards[1:4]), tuple(cards[4:7]))
        if kind == "normal":
            score = (rng.randrange(0, 9), rng.randrange(0, 11))
        elif kind == "re-solved":
            score = rng.choice(scores)
        elif kind == "mao-de-onze":
            score = rng.choice(eleven_scores) if eleven_scores else \
                rng.choice([(11, rng.randrange(0, 11)), (rng.randrange(0, 11), 11)])
        else:
            score = (11, 11)
        state = new_hand(vira, hands[0], hands[1], score)
        history = []
        stop = rng.randrange(0, 8)
        while not state.over and len(history) < stop:
            moves = [a for a in legal_moves(state) if a.kind != SURRENDER]
            action = rng.choice(moves)
            history.append((state.to_act, action))
            state = state.apply(action)
        if state.over:
            continue
        seat = state.to_act
        seen = [a if (who == seat or a.kind != COVER) else Action(COVER)
                for who, a in history]
        try:
            return build_position(vira, hands[seat], seat, score, seen), state, history
        except ValueError:
            continue


def position_tokens(position) -> list[str]:
    """``lab advise`` arguments for ``position``."""
    from ..rules import COVER, SEAT_NAMES

    tokens = ["cover" if a.kind == COVER and a.card is None else str(a)
              for _, a in position.history]
    return ["--vira", str(position.vira), "--hand", ",".join(map(str, position.hand)),
            "--seat", SEAT_NAMES[position.seat].replace("ã", "a").replace("é", "e"),
            "--score", f"{position.score[0]},{position.score[1]}", *tokens]


def memory_mb() -> tuple[float, float, float]:
    """(resident, proportional, private) megabytes of this process (proportional: each
    shared page divided among the processes mapping it; private: the pages no other
    process maps, what this process adds to the machine)."""
    fields = {}
    with open("/proc/self/smaps_rollup") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                fields[parts[0].rstrip(":")] = int(parts[1])
    private = fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)
    return fields.get("Rss", 0) / 1024, fields.get("Pss", 0) / 1024, private / 1024


def warm(n: int, seed: int) -> dict:
    """Milliseconds of :func:`advice_for` on ``n`` random positions (kinds in turn)."""
    from ..advice import AdviceError, advice_for

    rng = random.Random(seed)
    for kind in KINDS:   # load what each kind needs once
        try:
            advice_for(random_position(rng, kind))
        except AdviceError:
            pass
    times, refused = [], 0
    for i in range(n):
        position = random_position(rng, KINDS[i % len(KINDS)])
        start = time.perf_counter()
        try:
            advice_for(position)
        except AdviceError:
            refused += 1
        times.append(time.perf_counter() - start)
    ms = np.array(times) * 1e3
    rss, pss, _ = memory_mb()
    return {"p50": float(np.percentile(ms, 50)), "p99": float(np.percentile(ms, 99)),
            "max": float(ms.max()), "refused": refused, "rss": rss, "pss": pss}


def fresh(position) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of ``lab advise`` on ``position`` as a new process."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "lab", "advise", *position_tokens(position)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024


RESIDENT = """
import sys
from lab.bench.advise import load_every_policy, memory_mb
n = load_every_policy()
rss, pss, private = memory_mb()
print(f"{n} {rss:.0f} {pss:.0f} {private:.0f}", flush=True)
sys.stdin.readline()
"""


def load_every_policy() -> int:
    """Load every stored points and score-aware policy in this process; how many."""
    from ..tables import policies, score_policies

    n = 0
    for v in policies.stored_viras():
        policies.load_full_policy(v)
        n += 1
        for score in score_policies.stored_scores(v):
            score_policies.load_score_policy(v, score)
            n += 1
    return n


def resident() -> list[tuple[int, float, float, float]]:
    """(policies, resident MB, proportional MB, private MB) of two processes holding every
    policy at once."""
    procs, out = [], []
    for _ in range(2):
        procs.append(subprocess.Popen([sys.executable, "-c", RESIDENT], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True))
        line = procs[-1].stdout.readline().split()
        out.append((int(line[0]), *(float(x) for x in line[1:4])))
    for proc in procs:
        proc.communicate("\n")
    return out


def main(argv) -> int:
    parser = Parser(prog="lab bench advise", description=__doc__)
    parser.add_argument("--positions", type=bounded(1, 100_000), default=1000, metavar="N",
                        help="random positions timed in the warm process (default 1000)")
    parser.add_argument("--fresh", type=bounded(0, 100), default=4, metavar="K",
                        help="fresh `lab advise` processes, kinds in turn (default 4)")
    parser.add_argument("--seed", type=bounded(0, 2**32), default=1)
    args = parser.parse_args(argv)
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    rng = random.Random(args.seed)
    print(f"{'fresh process':<16}{'kind':<15}{'wall s':>8}{'peak MB':>9}")
    for i in range(args.fresh):
        kind = KINDS[i % len(KINDS)]
        wall, peak = fresh(random_position(rng, kind))
        print(f"{'':<16}{kind:<15}{wall:8.2f}{peak:9.0f}")
    held = resident()
    for k, (n, rss, pss, private) in enumerate(held):
        print(f"resident: process {k + 1} holding {n} policies: {rss:.0f} MB resident, "
              f"{pss:.0f} MB proportional, {private:.0f} MB private (its own pages: what it "
              "adds to the machine)")
    w = warm(args.positions, args.seed)
    print(f"warm: {args.positions} positions, p50 {w['p50']:.1f} ms, p99 {w['p99']:.1f} ms, "
          f"max {w['max']:.1f} ms ({w['refused']} refused as outside the solved game); the "
          f"process then {w['rss']:.0f} MB resident, {w['pss']:.0f} MB proportional")
    print(f"machine load after: {os.getloadavg()[0]:.1f}")
    return 0
