"""The match tables (``match_equity``, ``mao_de_onze``): one backward induction over the
scores, on the card-play and full-game summaries."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Iterable, Optional

import pandas as pd

from ..cards import RANKS
from ..classes import hand_classes
from .cardplay import solver_processes
from .manifests import TableWrite, _in_vira_order, load_table, write_tables
from .registry import MATCH_SETTINGS, SEATS, TableError



def eleven_rows(score: tuple[int, int], solutions) -> pd.DataFrame:
    """The ``mao_de_onze`` rows of one score from its per-vira :class:`ElevenSolution` s."""
    frames = []
    for sol in solutions:
        hc = hand_classes(sol.vira)
        frames.append(pd.DataFrame({
            "vira": sol.vira, "score": f"{score[0]},{score[1]}", "seat": SEATS[sol.holder],
            "hand": list(hc.labels), "accept": sol.accept, "value": sol.holder_value,
            "weight": hc.weight, "exploitability": sol.exploitability,
        }))
    return pd.concat(frames, ignore_index=True)


def build_match_tables(viras: Optional[Iterable] = None, settings: Optional[dict] = None,
                       solve: Optional[Callable] = None, progress: bool = False,
                       jobs: int = 1, directory: Optional[Path] = None) -> dict:
    """Backward induction over every score, solving the mão de onze of each vira exactly;
    writes ``match_equity`` and ``mao_de_onze``. Normal scores use the full game's
    outcome distribution (``full_summary``) when it holds all ten viras, else the
    card-play model on ``cardplay_summary``.

    Always all ten viras (the match averages over them); ``viras`` and ``solve`` are
    accepted for the common builder signature and must be left as None.
    """
    from concurrent.futures import ProcessPoolExecutor

    from tqdm import tqdm

    from ..match import CardplayModel, FullGameModel, match_equity

    if viras is not None or solve is not None:
        raise ValueError("the match tables are built over all ten viras at once")
    settings = dict(MATCH_SETTINGS if settings is None else settings)
    summary = load_table("cardplay_summary", settings=settings["cardplay"],
                         directory=directory)
    start = time.time()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=solver_processes()) if jobs > 1 \
        else None
    try:
        try:
            full = load_table("full_summary", directory=directory)
        except TableError:
            full = None  # the full game is not solved for every vira yet
        target = settings["eleven_target_exploitability"]
        model = CardplayModel(summary, pool, target) if full is None else \
            FullGameModel(summary, full, pool, target)
        with tqdm(total=144, desc="match scores", unit="score", disable=not progress) as bar:
            me = match_equity(model, progress=bar)
    finally:
        if pool is not None:
            pool.shutdown()
    eleven = _in_vira_order(pd.concat([eleven_rows(score, sols) for score, sols
                                       in sorted(model.eleven_solutions.items())],
                                      ignore_index=True))
    built_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    per_vira = {}
    for v in RANKS:
        rows = eleven[eleven["vira"] == v]
        per_vira[v] = {"iterations": int(sum(s.iterations for sols in
                                             model.eleven_solutions.values()
                                             for s in sols if s.vira == v)),
                       "exploitability": float(rows["exploitability"].max()),
                       "built": built_at}
    out = {"match_equity": me, "mao_de_onze": eleven}
    unused = ("full_summary",) if full is None else ()
    write_tables({name: TableWrite(df, settings, per_vira, time.time() - start, unused)
                  for name, df in out.items()}, directory)
    return out


