"""Play at one score of the match: how much the points strategy leaks, and what score-aware
play changes.

The full game's solution (:mod:`lab.solver.fullgame.solver`) maximises points per hand. In a match
a hand is worth what it does to the match-win probability: at score ``(m, p)`` (the
next hand's mão has ``m``, the pé ``p``, both below 11) a hand that ends with the mão
scoring ``v`` is worth ``after_hand(ME, (m, p), MAO, v)`` to the mão, where ``ME`` is the
``match_equity`` table. With these payoffs:

* the **leak** of the points strategy is each seat's best-response gain against it, in
  match-win probability (:func:`measure_leak`): what an opponent who knows the score could win
  from a player who plays for points;
* a **score-aware re-solve** (:func:`resolve`) continues Discounted CFR from the points
  solution's regrets with the match payoffs, and reports the exploitability it reaches
  (match-win probability) and how the first decisions change.

Both need the points solution itself (regrets and strategy sums), which lives in the
checkpoints of ``lab solve full --checkpoints DIR``, not in ``data/``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ..cards import RANKS
from ..classes import same_game_vira, vira_rank_of
from ..match import ELEVEN, after_hand
from ..rules import MAO, PE
from ..solver.cfr import predicted_gap
from ..solver.fullgame.game import LADDER
from ..errors import InputError
from .registry import RESOLVE_STORAGE


def score_payoffs(me: np.ndarray, score: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``(mao_scores, pe_scores)``: the mão's match-win probability after the mão (resp.
    the pé) scores each ladder value at ``score``; ``me`` is the (12, 12) match equity."""
    m, p = score
    if not (0 <= m < ELEVEN and 0 <= p < ELEVEN):
        raise InputError(f"score {m},{p}: the truco ladder is played only while both "
                         "players are below 11")
    mao = np.array([after_hand(me, score, MAO, v) for v in LADDER])
    pe = np.array([after_hand(me, score, PE, v) for v in LADDER])
    return mao, pe


def resolve_solver(vira, threads: int = 1, toy_cap=None):
    """An empty solver of a score-aware re-solve of ``vira``: the points solve's game and
    schedule in :data:`RESOLVE_STORAGE` (it loads a re-solve's checkpoint)."""
    from .full import points_solver

    return points_solver(vira, threads, toy_cap=toy_cap, storage=RESOLVE_STORAGE)


def has_points_solution(root, vira) -> bool:
    """Whether ``lab solve full --checkpoints root`` left the points solution of ``vira``."""
    from ..solver.fullgame.solver import has_checkpoint
    from .full import points_checkpoint

    return has_checkpoint(points_checkpoint(root, vira))


def points_solution_vira(root, vira):
    """The vira whose points solution under ``root`` serves ``vira``: its own, else the
    first vira of its game's (:func:`lab.classes.same_game_vira`: ``lab solve full``
    solves viras 2 and 3 once, as vira 2); None when neither is there."""
    for v in dict.fromkeys((RANKS[vira_rank_of(vira)], RANKS[same_game_vira(vira)])):
        if has_points_solution(root, v):
            return v
    return None


def points_solution_sources(root, viras) -> dict:
    """{vira: :func:`points_solution_vira`} of ``viras``; InputError naming the command
    that solves the first vira without one."""
    sources = {v: points_solution_vira(root, v) for v in viras}
    missing = [v for v in viras if sources[v] is None]
    if missing:
        raise InputError(f"no points solution for vira {', '.join(missing)} in {root}: run "
                         f"`lab solve full --vira {missing[0]} --checkpoints {root}` first "
                         "(about half an hour per vira)")
    return sources


def load_points_solution(root, vira, threads: int = 1):
    """The points solution of ``vira`` (a :class:`FullSolver` on ``threads`` numba threads)
    from its checkpoint."""
    from .full import points_checkpoint, points_solver

    return points_solver(vira, threads).load_checkpoint(points_checkpoint(root, vira))


@dataclass(frozen=True)
class PointsLeak:
    """The points strategy at one score of one vira, in match-win probability: the mão's
    value when both play it, each seat's best-response gain against it, and their mean,
    the ``exploitability`` of the points strategy in the match (the table's ``leak``)."""

    score: tuple[int, int]
    value_mao: float
    gain_mao: float
    gain_pe: float

    @property
    def exploitability(self) -> float:
        return 0.5 * (self.gain_mao + self.gain_pe)


def measure_leak(solver, me: np.ndarray, score: tuple[int, int], payoffs=None) -> PointsLeak:
    """How much ``solver``'s average strategy (a points solution) leaks at ``score``, with
    the match payoffs of :func:`score_payoffs` (or ``payoffs``, a (mão, pé) pair of arrays
    over the ladder, when given)."""
    return measure_leaks(solver, me, [score], None if payoffs is None else [payoffs])[0]


def measure_leaks(solver, me: np.ndarray, scores, payoffs=None) -> list[PointsLeak]:
    """:func:`measure_leak` at each of ``scores`` (with ``payoffs[i]`` for ``scores[i]``
    when given), batched (:meth:`FullSolver.batch_values`): one traversal for the outcome
    distribution and one best-response traversal per seat for all the scores. The solver is
    left as it was.

    The value when both play the points strategy is linear in the payoffs: one batched
    traversal gives the probability of each outcome (the mão or the pé scores each ladder
    value) and every score's value is that distribution priced at its payoffs."""
    if not len(scores):
        return []
    pairs = [score_payoffs(me, s) for s in scores] if payoffs is None else list(payoffs)
    mao = np.array([np.asarray(a, dtype=np.float64) for a, _ in pairs])
    pe = np.array([np.asarray(b, dtype=np.float64) for _, b in pairs])
    n = len(solver.ladder)
    outcome = solver.outcome_probabilities()   # P(mão scores k), then P(pé scores k)
    value = mao @ outcome[:n] + pe @ outcome[n:]
    best = solver.batch_values(mao, pe)
    # zero-sum form: the pé is paid minus the mão's match-win probability
    return [PointsLeak(tuple(s), float(v), float(bm - v), float(bp + v))
            for s, v, (bm, bp) in zip(scores, value, best)]


def first_moves(solver) -> dict:
    """Deal-weighted frequencies of the first decisions under the average strategy:
    ``truco_mao`` (the mão opens with a truco), ``accept_pe`` / ``run_pe`` / ``raise_pe``
    (the pé's answer to it, weighted by the deal and the mão's truco), and the per-class
    tables ``{class: p}`` behind them (``by_class_truco_mao``, ``by_class_accept_pe``,
    ``by_class_run_pe``, ``by_class_raise_pe``)."""
    from .full import first_decisions
    from ..policy.full import FullPolicy

    mao_first, pe_vs, _ = first_decisions(FullPolicy.average_of(solver))
    weight = solver.weights[0].sum(axis=1)   # P(the mão is dealt each class)
    truco = {c: d.get("truco", 0.0) for c, d in mao_first.items()}
    out = {"truco_mao": float(sum(weight[c] * p for c, p in truco.items())
                              / sum(weight[c] for c in truco))}
    # the pé's classes reach the answer with the deal weight times the mão's truco
    W = solver.weights[1]    # [pé class, mão class]
    reach_truco = np.zeros(W.shape[1])
    for c, p in truco.items():
        reach_truco[c] = p
    reach = W @ reach_truco
    total = sum(reach[c] for c in pe_vs)
    for answer in ("accept", "run", "raise"):
        out[f"{answer}_pe"] = float(sum(reach[c] * d.get(answer, 0.0) for c, d in pe_vs.items())
                                    / total) if total > 0 else float("nan")
    out["by_class_truco_mao"] = truco
    for answer in ("accept", "run", "raise"):
        out[f"by_class_{answer}_pe"] = {c: d.get(answer, 0.0) for c, d in pe_vs.items()}
    return out


@dataclass
class Resolve:
    """A score-aware re-solve: iterations run, the exploitability reached and
    the mão's value (match-win probability), the first moves before and after, and the
    checks made on the way (``history``: (iterations, seconds, exploitability in match-win
    probability), with a target only)."""

    score: tuple[int, int]
    iterations: int
    seconds: float
    exploitability: float
    value_mao: float
    before: dict
    after: dict
    history: list = field(default_factory=list)

    def biggest_changes(self, key: str, labels, n: int = 5) -> list:
        """The ``n`` classes whose ``by_class_<key>`` probability moved most."""
        a, b = self.before[f"by_class_{key}"], self.after[f"by_class_{key}"]
        moved = sorted(a, key=lambda c: -abs(b.get(c, 0.0) - a[c]))[:n]
        return [{"hand": labels[c], "points": round(a[c], 4), "score": round(b.get(c, 0.0), 4)}
                for c in moved]


def payoff_scale(mao, pe) -> tuple[float, float]:
    """(centre, half swing) of the match payoffs of one score (match-win probability):
    a re-solve plays ``(payoff - centre) / half swing``, "points at this score" where a
    1-point hand swings 2, so that the payoffs are on the regrets' scale."""
    return 0.5 * (mao[0] + pe[0]), 0.5 * (mao[0] - pe[0])


FIRST_RATE = 0.8
"""The power law's rate assumed after a re-solve's first check (exploitability against
iterations): the slowest measured between the first two checks (10 and 20 iterations)
of the re-solves started from another vira's re-solve of the same score, 0.77-0.94."""


def check_gap(history, target: float, check_every: int) -> int:
    """Iterations from a re-solve's last check (``history``: ``(iterations, seconds,
    exploitability)``) to its next one (:func:`~lab.solver.cfr.predicted_gap`)."""
    return predicted_gap([(h[0], h[2]) for h in history], target, check_every,
                         rate=FIRST_RATE)


def resolve(solver, me: np.ndarray, score: tuple[int, int], minutes: float = 5.0,
            max_iterations: int | None = None, progress: bool = False,
            target: float | None = None, check_every: int = 10,
            before: dict | None = None, resume: list | None = None, save=None) -> Resolve:
    """Continue DCFR from ``solver``'s points solution with the match payoffs at ``score``
    for ``minutes`` (or ``max_iterations``), then measure it. With ``target`` (match-win
    probability) the exploitability is checked (below) and the re-solve stops at the first
    check at or below it (or at the limits above). ``before``:
    the points play's first moves (:func:`first_moves`), when ``solver`` holds another
    score's re-solve rather than the points solution (default: ``solver``'s own).

    The first check comes after ``check_every`` iterations, each later one when the power
    law through the last two checks (after the first: an assumed rate,
    :data:`FIRST_RATE`) says the target is reached, at most ``check_every`` iterations on
    (:func:`check_gap`).

    ``resume``: the checks of an interrupted re-solve of this score whose checkpoint
    ``solver`` was loaded from (its payoffs and strategy sums are kept; the iterations and
    checks continue from the last one). ``save(solver, history)``: called after each check
    and at the end, with the match payoffs still set (to keep a checkpoint).

    Warm start: the points solution's regrets seed the iterates and the average strategy
    restarts (:meth:`FullSolver.restart_average`), so the result averages score-aware
    iterates only. The payoffs are rescaled to "points at this score" (the swing of a
    1-point hand counts 2) so that they are on the regrets' scale; the figures are
    reported back in match-win probability. ``solver`` is changed in place.
    """
    mao, pe = score_payoffs(me, score)
    centre, half_swing = payoff_scale(mao, pe)
    scaled = ((mao - centre) / half_swing, (pe - centre) / half_swing)
    if not half_swing > 0:
        raise InputError(f"score {score}: winning a point does not help the mão")
    before = first_moves(solver) if before is None else before
    if resume is None:
        solver.set_payoffs(*scaled)
        solver.restart_average()
    elif solver.payoffs is None or not np.allclose(
            solver.payoffs, scaled, rtol=0, atol=1e-12):
        raise InputError(f"score {score}: the checkpoint to resume was solved with other payoffs")
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=max_iterations, unit="it", leave=False,
                   desc=f"re-solve {solver.config.vira} at {score[0]},{score[1]}")
    history = [tuple(h) for h in (resume or [])]
    done, spent = (history[-1][0], history[-1][1]) if history else (0, 0.0)
    start, best = time.perf_counter() - spent, None
    if history and target is not None and history[-1][2] <= target:
        max_iterations = done     # resumed after the check that met the target
    next_check = done + (check_gap(history, target, check_every) if history else check_every)
    try:
        while (max_iterations is None or done < max_iterations) and \
                (time.perf_counter() - start < 60.0 * minutes or done == 0):
            solver.iterate(1)
            done += 1
            best = None
            if bar is not None:
                bar.update(1)
            if target is not None and done >= next_check:
                best = solver.best_response_values()
                expl = 0.5 * (best[0] + best[1]) * half_swing
                history.append((done, round(time.perf_counter() - start, 2), expl))
                if bar is not None:
                    bar.set_postfix(exploitability=f"{expl:.5f}")
                if expl <= target:
                    break
                next_check = done + check_gap(history, target, check_every)
                if save is not None:
                    save(solver, history)
        seconds = time.perf_counter() - start
        best_mao, best_pe = solver.best_response_values() if best is None else best
        value = solver.value()
        if save is not None:
            if not history or history[-1][0] != done:
                history.append((done, round(seconds, 2),
                                0.5 * (best_mao + best_pe) * half_swing))
            save(solver, history)
    finally:
        if bar is not None:
            bar.close()
        solver.set_payoffs(None, None)   # the solver now holds the score-aware solution
    after = first_moves(solver)
    return Resolve(tuple(score), done, seconds,
                   0.5 * (best_mao + best_pe) * half_swing, centre + value * half_swing,
                   before, after, history)


# ---------------------------------------------------------------- the score_leak table

def points_play_leak(vira, score: tuple[int, int], directory=None) -> float | None:
    """How much the full game's points play leaks at ``score`` on ``vira`` (match-win
    probability: the mean of both seats' best-response gains against it with the match
    payoffs), as the ``score_leak`` table holds it; None where the table does not."""
    from .. import tables as T

    v = RANKS[vira_rank_of(vira)]
    try:
        table = T.load_table("score_leak", viras=[v], directory=directory)
    except (ValueError, KeyError, OSError):   # missing, stale or without this vira
        return None
    rows = table[(table["vira"] == v) & (table["score_mao"] == score[0])
                 & (table["score_pe"] == score[1])]
    return None if rows.empty else float(rows["leak"].iloc[0])


def table_row(vira: str, lk: PointsLeak, points_exploitability: float, points_iterations: int,
              rs: Resolve | None = None) -> dict:
    """One ``score_leak`` row of ``vira`` (match-win probabilities; the points solve's
    exploitability in points per hand); the re-solve columns are NaN without a re-solve."""
    nan = float("nan")
    row = {"vira": RANKS[vira_rank_of(vira)], "score_mao": lk.score[0], "score_pe": lk.score[1],
           "value_mao": lk.value_mao, "gain_mao": lk.gain_mao, "gain_pe": lk.gain_pe,
           "leak": lk.exploitability, "points_exploitability": float(points_exploitability),
           "points_iterations": int(points_iterations),
           "resolve_iterations": 0 if rs is None else rs.iterations,
           "resolve_exploitability": nan if rs is None else rs.exploitability,
           "resolve_value_mao": nan if rs is None else rs.value_mao}
    for key in ("truco_mao", "run_pe"):
        row[f"{key}_points"] = nan if rs is None else rs.before[key]
        row[f"{key}_score"] = nan if rs is None else rs.after[key]
    return row


def write_rows(rows: list[dict], directory=None, replace: bool = False,
               covers=()) -> "pd.DataFrame":
    """Merge ``rows`` into the ``score_leak`` table (a row per vira and score; new rows
    replace old ones of the same vira and score); returns the table written. A table on
    disk that cannot be kept (damaged, stale, other settings) is dropped only where all it
    holds is measured again by this run (``covers``: the viras whose every score it
    measures) or with ``replace`` (only ``rows`` are written), else refused (TableError).
    The read, merge and write run under the data folder's lock with Ctrl-C held off."""
    import pandas as pd

    from .. import tables as T
    from ..interrupts import interrupts_held
    from ..store import data_lock

    fresh = pd.DataFrame(rows)
    settings = T.spec_of("score_leak").settings
    with data_lock(T.data_dir() if directory is None else directory), interrupts_held():
        old = None if replace else leaks_to_merge(settings, directory, covers)
        return _merge(fresh, old, settings, directory)


def leaks_to_merge(settings, directory=None, covers=()):
    """The ``score_leak`` rows on disk to merge new rows into (None when there are none,
    or when they cannot be kept and all the viras they hold are in ``covers``, measured
    again at every score); TableError (:func:`lab.tables.manifests.refused_merge`) when
    they cannot be kept and rows of other viras would be lost."""
    from .. import tables as T
    from .manifests import listed_viras, refused_merge

    parquet, manifest_path = T.table_paths("score_leak", directory)
    if not parquet.exists() and not manifest_path.exists():
        return None
    try:
        manifest = T.read_manifest("score_leak", directory)
        T.check_manifest("score_leak", manifest, settings, viras=[], directory=directory)
        return T.load_table("score_leak", viras=list(manifest["viras"]), directory=directory)
    except (T.TableError, OSError, KeyError, ValueError, TypeError, AttributeError) as exc:
        covered = {RANKS[vira_rank_of(v)] for v in covers}
        held = listed_viras("score_leak", directory)
        if covered >= set(RANKS) or (held is not None and held <= covered):
            print(f"note: score_leak starts again, the rows on disk cannot be kept and this "
                  f"run measures all of them again ({' '.join(str(exc).split())})",
                  file=sys.stderr)
            return None
        lost = "" if held is None else ", ".join(v for v in RANKS if v in held - covered)
        raise refused_merge("score_leak", exc, f"the rows of vira {lost}" if lost else
                            "the rows it holds") from None


def check_leaks_mergeable(covers=(), directory=None) -> None:
    """Raise the refusal :func:`write_rows` would meet, before the work."""
    from .. import tables as T

    leaks_to_merge(T.spec_of("score_leak").settings, directory, covers)


def _merge(fresh, old, settings, directory):
    import pandas as pd

    from .. import tables as T

    if old is None:
        df = fresh
    else:
        key = ["vira", "score_mao", "score_pe"]
        replaced = old.set_index(key).index.isin(fresh.set_index(key).index)
        df = pd.concat([old[~replaced], fresh], ignore_index=True)
    df["_v"] = df["vira"].map(RANKS.index)
    df = df.sort_values(["score_mao", "score_pe", "_v"]).drop(columns="_v").reset_index(drop=True)
    viras = {v: {"iterations": int(g["points_iterations"].max()),
                 "exploitability": float(g["leak"].max()),
                 "scores": int(len(g))}
             for v, g in df.groupby("vira")}
    T.write_table("score_leak", df, settings, viras, directory)
    return df
