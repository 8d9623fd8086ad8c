"""The card-play tables (``cardplay``, ``cardplay_summary``): one solve per vira, its
rows, and the build that writes both tables."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

import numpy as np
import pandas as pd

from ..cards import RANKS, level_name
from ..classes import hand_classes, vira_rank_of
from ..solver.games.double_dummy import double_dummy_equity, double_dummy_value
from .manifests import check_mergeable, write_merged
from .registry import CARDPLAY_SETTINGS, SEATS, SUMMARY_COLUMNS



@dataclass(frozen=True)
class ViraSolution:
    """What the tables keep of a card-play solve (win probabilities; seconds of wall time)."""

    vira: str
    equity: np.ndarray       # (2, n) per seat (0 = mão, 1 = pé) and class
    value: float             # the mão's win probability
    exploitability: float
    iterations: int
    seconds: float


def solve_vira(vira: str, settings: dict, progress: bool = False) -> ViraSolution:
    """Solve the card-play game of one vira with the public-tree CFR solver."""
    from ..solver.games.cardplay import solve_cardplay  # numba: imported only when solving

    sol = solve_cardplay(vira, target_exploitability=settings["target_exploitability"],
                         max_iterations=settings["max_iterations"], progress=progress)
    return ViraSolution(RANKS[vira_rank_of(vira)], np.asarray(sol.equity), float(sol.value),
                        float(sol.exploitability), int(sol.iterations), float(sol.seconds))


def resolve_vira(vira: str, target: float, max_iterations: int, step: int = 32):
    """Solve the card-play game of one vira again, ``step`` iterations at a time: yields
    ``(iterations, exploitability)`` after each step (win probability) and, last, the
    :class:`ViraSolution`. For a dashboard that shows the solve as it goes."""
    from ..solver.games.cardplay import cardplay_solver  # numba: imported only when solving

    start = time.perf_counter()
    solver = cardplay_solver(vira)
    solver.allocate()
    while True:
        solver.solve(target, max_iterations=min(solver.iterations + step, max_iterations),
                     check_every=8)
        reached = solver.final_exploitability
        yield solver.iterations, reached
        if reached <= target or solver.iterations >= max_iterations:
            break
    yield ViraSolution(RANKS[vira_rank_of(vira)], np.asarray(solver.hand_values()),
                       float(solver.value()), float(reached), int(solver.iterations),
                       time.perf_counter() - start)


def cardplay_rows(vira, solution) -> pd.DataFrame:
    """The ``cardplay`` rows of one vira from a card-play solution (tidy, 2 x n rows)."""
    vira_rank = vira_rank_of(vira)
    hc = hand_classes(vira_rank)
    equity = np.asarray(solution.equity, dtype=np.float64)
    if equity.shape != (2, hc.n):
        raise ValueError(f"solution equity has shape {equity.shape}, expected (2, {hc.n})")
    # float32 strategies can put a certain win a few 1e-8 above 1: keep probabilities in [0, 1]
    equity = np.clip(equity, 0.0, 1.0)
    dd = double_dummy_equity(vira_rank)
    names = [[level_name(int(lv), vira_rank) for lv in row] for row in hc.levels]
    frames = []
    for seat, seat_name in enumerate(SEATS):
        frames.append(pd.DataFrame({
            "vira": RANKS[vira_rank],
            "seat": seat_name,
            "hand": list(hc.labels),
            "best": [n[0] for n in names],
            "second": [n[1] for n in names],
            "third": [n[2] for n in names],
            "equity": equity[seat],
            "double_dummy": dd[seat],
            "weight": hc.weight,
            "exploitability": float(solution.exploitability),
        }))
    return pd.concat(frames, ignore_index=True)


def summary_row(vira, solution) -> dict:
    """The ``cardplay_summary`` row of one vira."""
    vira_rank = vira_rank_of(vira)
    return {"vira": RANKS[vira_rank], "value_mao": float(solution.value),
            "double_dummy_mao": double_dummy_value(vira_rank),
            "exploitability": float(solution.exploitability),
            "iterations": int(solution.iterations), "seconds": float(solution.seconds)}


def solver_processes():
    """The multiprocessing context for solver workers: spawned, since forking a process
    whose numba kernels already ran on OpenMP threads is unsafe."""
    import multiprocessing

    return multiprocessing.get_context("spawn")


def _solve_one(args):
    solve, vira, settings, progress = args
    return vira, solve(vira, settings, progress)


def solve_viras(viras: Iterable, settings: dict, solve: Optional[Callable] = None,
                progress: bool = False, jobs: int = 1) -> dict:
    """{vira rank char: solution} for each vira, solved in ``jobs`` processes.

    A tqdm bar over the viras goes to stderr when ``progress``; a single process also
    shows the solver's own bar of iterations.
    """
    from tqdm import tqdm

    solve = solve_vira if solve is None else solve
    chars = [RANKS[vira_rank_of(v)] for v in viras]
    bar = tqdm(total=len(chars), desc="viras", unit="vira", disable=not progress)
    out = {}
    try:
        if jobs <= 1 or len(chars) <= 1:
            for v in chars:
                bar.set_postfix_str(f"vira {v}")
                out[v] = solve(v, settings, progress)
                bar.update()
        else:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(max_workers=min(jobs, len(chars)),
                                     mp_context=solver_processes()) as pool:
                for v, sol in pool.map(_solve_one, [(solve, v, settings, False) for v in chars]):
                    out[v] = sol
                    bar.set_postfix_str(f"vira {v}")
                    bar.update()
    finally:
        bar.close()
    return out


def build_cardplay_tables(viras: Optional[Iterable] = None, settings: Optional[dict] = None,
                          solve: Optional[Callable] = None, progress: bool = False,
                          jobs: int = 1, directory: Optional[Path] = None,
                          replace: bool = False) -> dict:
    """Solve ``viras`` (default: all ten) and write the ``cardplay`` and ``cardplay_summary``
    tables with their manifests; returns {table name: DataFrame}.

    Rows of viras not solved now are kept from the tables on disk when those were built
    with the same rules version and settings, so the tables can grow one vira at a time;
    tables on disk that cannot be kept while they hold other viras are refused before the
    solves (TableError), unless ``replace`` (only the viras solved now are written).
    """
    settings = dict(CARDPLAY_SETTINGS if settings is None else settings)
    chars = [RANKS[vira_rank_of(v)] for v in (RANKS if viras is None else viras)]
    if not replace:
        check_mergeable(("cardplay", "cardplay_summary"), settings, chars, directory)
    start = time.time()
    solutions = solve_viras(chars, settings, solve, progress, jobs)
    built_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    fresh = {
        "cardplay": pd.concat([cardplay_rows(v, s) for v, s in solutions.items()],
                              ignore_index=True),
        "cardplay_summary": pd.DataFrame([summary_row(v, s) for v, s in solutions.items()],
                                         columns=list(SUMMARY_COLUMNS)),
    }
    per_vira = {v: {"iterations": int(s.iterations), "exploitability": float(s.exploitability),
                    "seconds": float(s.seconds), "built": built_at}
                for v, s in solutions.items()}
    return write_merged(fresh, settings, per_vira, directory, time.time() - start, replace)


