"""Many matches between two bots: in this process, or spread over a dask cluster.

:func:`run_matches` plays matches ``0 .. n - 1`` (mirrored pairs, see :mod:`lab.sim.match`)
and returns them as a DataFrame. Small batches run here; large ones go to
``dask.distributed`` in chunks of whole pairs: a :class:`~distributed.LocalCluster` by
default, or the scheduler at ``scheduler`` (an address such as ``tcp://host:8786``). The
results are identical either way, since every match draws from its own seeded streams.
A tqdm bar on stderr counts finished matches.
"""

from __future__ import annotations

import itertools
import os
import sys
from dataclasses import dataclass

import pandas as pd
from tqdm import tqdm

from ..rules import DEFAULT_RULES, RuleSet, check_score
from .bots import Bot, make_bot
from .match import FIRST_CHOICES, play_matches
from .stats import matches_frame
from ..errors import InputError

DASK_FROM = 4000
"""With ``workers`` left to choose (0), batches of this many matches or more use dask."""

IN_FLIGHT = 4
"""Chunks per dask worker sent ahead; the rest are sent one by one as chunks come back."""


@dataclass(frozen=True)
class Batch:
    """What to play: bots (names or Bot objects that pickle), the seed, how many matches,
    who is mão first (FIRST_CHOICES), the (A, B) points at the start and the rules;
    ``record``: the hand rows carry each hand's cards and actions."""

    a: object
    b: object
    matches: int
    seed: int
    first: str = "alternate"
    start: tuple[int, int] = (0, 0)
    with_hands: bool = False
    rules: RuleSet = DEFAULT_RULES
    record: bool = False


MAX_MATCHES = 2_000_000
"""The most matches one run plays: a run keeps a row of about 100 bytes per match (and its
work list) in memory, and two million matches measure a win rate to +-0.0007 (95 %);
for more, run several seeds and pool them."""


def check_matches(matches) -> int:
    """The number of matches as a positive int up to MAX_MATCHES; InputError otherwise."""
    if isinstance(matches, bool) or not isinstance(matches, int) or matches < 1:
        raise InputError(f"{matches!r}: the number of matches must be a positive integer")
    if matches > MAX_MATCHES:
        raise InputError(f"{matches}: at most {MAX_MATCHES:,} matches per run (a run keeps "
                         "one row per match in memory, and that many already measure a win "
                         "rate to +-0.0007); run several seeds and pool them")
    return matches


def play_chunk(batch: Batch, lo: int, hi: int) -> tuple[list[dict], list[dict]]:
    """Matches ``lo .. hi - 1`` of ``batch`` (a top-level function, so workers can run it)."""
    return play_matches(make_bot(batch.a), make_bot(batch.b), batch.seed, lo, hi,
                        batch.first, batch.start, batch.with_hands, rules=batch.rules,
                        record=batch.record)


def chunks(matches: int, size: int) -> list[tuple[int, int]]:
    """Ranges of whole pairs (even sizes) covering ``0 .. matches - 1``."""
    size = max(2, size - size % 2)
    return [(lo, min(lo + size, matches)) for lo in range(0, matches, size)]


def _run_here(batch: Batch, bar) -> tuple[list, list]:
    return play_matches(make_bot(batch.a), make_bot(batch.b), batch.seed, 0, batch.matches,
                        batch.first, batch.start, batch.with_hands, progress=bar.update,
                        rules=batch.rules, record=batch.record)


def _run_on_dask(batch: Batch, workers: int, scheduler: str | None, bar) -> tuple[list, list]:
    from distributed import Client, as_completed

    from ..cluster import connect, local_cluster

    if scheduler:
        client, cluster = connect(scheduler), None
    else:
        cluster = local_cluster(workers, processes=workers > 1)
        client = Client(cluster)
    try:
        n_workers = max(1, len(client.scheduler_info().get("workers", {})) or workers)
        size = max(2, min(500, batch.matches // (8 * n_workers) + 1))
        # streamed: a few chunks per worker in flight, the next one sent as one comes back
        todo = iter(chunks(batch.matches, size))
        sizes = {}  # future -> matches in its chunk

        def send(count: int) -> list:
            sent = []
            for lo, hi in itertools.islice(todo, count):
                sent.append(client.submit(play_chunk, batch, lo, hi, pure=False))
                sizes[sent[-1]] = hi - lo
            return sent

        pending = as_completed(send(IN_FLIGHT * n_workers))
        records, hands = [], []
        for future in pending:
            r, h = future.result()
            records += r
            hands += h
            bar.update(sizes.pop(future))
            for more in send(1):
                pending.add(more)
        return records, hands
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_matches(a, b, matches: int, seed: int, *, first: str = "alternate",
                start: tuple[int, int] = (0, 0), workers: int = 0,
                scheduler: str | None = None, use_dask: bool | None = None,
                with_hands: bool = False, progress: bool = True,
                rules: RuleSet = DEFAULT_RULES,
                record: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play ``matches`` matches of bot ``a`` against bot ``b`` under ``rules``; return
    (matches, hands) frames.

    ``workers``: 1 plays here; 2 or more start a LocalCluster of that many processes; 0
    chooses (here below DASK_FROM matches, else a LocalCluster with one process per core).
    ``use_dask=True`` forces dask even for one worker (a LocalCluster with a single worker
    thread in this process). ``scheduler`` sends the work to an existing dask cluster
    instead. The hands frame is empty unless ``with_hands`` or ``record`` (which adds each
    hand's cards and actions to it: :func:`lab.sim.match.play_match`); it is in match
    order (pair, mirror, hand) however the matches were run.
    """
    check_matches(matches)
    if first not in FIRST_CHOICES:
        raise InputError(f"{first!r}: first must be one of {', '.join(FIRST_CHOICES)}")
    for bot in (a, b):
        if not isinstance(bot, Bot):
            make_bot(bot)  # a bad name fails here, before any work starts
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise InputError(f"{workers!r}: workers must be 0 (choose), 1 (here) or more")
    check_score(tuple(start))
    if not isinstance(rules, RuleSet):
        raise InputError(f"{rules!r}: rules must be a lab.rules.RuleSet (lab.rules.rule_set)")
    batch = Batch(a, b, matches, int(seed), first, tuple(start), with_hands or record, rules,
                  record)
    if workers == 0:
        workers = 1 if matches < DASK_FROM else max(1, os.cpu_count() or 1)
    with tqdm(total=matches, unit="match", file=sys.stderr, disable=not progress,
              leave=False) as bar:
        if scheduler or (workers > 1 if use_dask is None else use_dask):
            records, hands = _run_on_dask(batch, workers, scheduler, bar)
        else:
            records, hands = _run_here(batch, bar)
    hands_frame = pd.DataFrame.from_records(hands)
    if len(hands_frame):
        hands_frame = hands_frame.sort_values(["pair", "mirror", "hand"],
                                              kind="stable").reset_index(drop=True)
    return matches_frame(records), hands_frame
