"""The score-aware sweep: re-solve the hands of many (vira, score) with match-win payoffs,
in an order that keeps the payoffs consistent, one dask task each, resumable.

**Order.** A hand at score ``(m, p)`` leads only to scores with more points in all, so the
sweep runs in *waves* of equal ``m + p``, from the highest down. Before a wave, the match
equity is rebuilt on every re-solve so far (:func:`lab.tables.score_play.mixed_equity`),
and the wave's payoffs come from it: the scores a hand can lead to are final by then
(re-solved, or points play priced at final successors). The hands of one wave do not
depend on each other, so they run side by side; within a wave the highest points-play
leak goes first.

**Warm start.** A re-solve starts from the nearest re-solved score of the same vira when
one lies within ``NEAR`` points (``|dm| + |dp|``), else from the points solution
(measured in ``benchmarks/score.md``: 9-10 reached 0.002 1.6x faster from 10-10's
re-solve than from points play).

**Solved again.** A re-solve is only as good as its payoffs: when a score it leads to is
re-solved after it (another vira's, in a sweep that did not run all viras wave by wave), the
match equity moves under it. Every payoff then moves by at most the largest difference
between the payoffs it was solved with and the current ones (its drift,
:func:`lab.match.payoff_drift`), so its exploitability grows by at most twice the drift. A
finished re-solve whose exploitability plus twice its drift exceeds the target (and whose
drift exceeds :data:`MIN_DRIFT`) is *stale*: the sweep solves it again with the current
payoffs, warm-started from its own strategies (its ``start`` is then its own score).

**One game, two viras.** Vira 3 plays vira 2's game (:func:`lab.classes.same_game_vira`):
the sweep re-solves vira 2 and copies its rows for vira 3, hands named for vira 3, ``start``
``vira 2`` and no seconds of their own; asking for vira 3 alone re-solves vira 2 too.

**Files.** Under the points solutions' folder ``DIR`` (``lab solve full --checkpoints
DIR``), each re-solve keeps ``DIR/score/<solve>/<m>-<p>/``: ``solution`` (the checkpoint
of the re-solved strategies, with their payoffs), ``progress.json`` (the checks so far,
for a re-solve under way) and ``result.json`` (the finished rows). A killed sweep started
again skips finished re-solves and resumes a half-done one from its last check (at most
``check_every`` iterations are lost). A score that ``score_play`` holds but whose files are
gone (another machine's checkpoints) counts as finished too, unless stale. A solution
takes about 0.4 GB on disk (2.2 GB in memory); a sweep that keeps one per score
(``keep_all=False``, ``lab solve match-play --keep one``) deletes each later vira's once
its result is written, and keeps the first, which starts the other viras' re-solves of
that score.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..cards import RANKS
from ..classes import hand_classes, same_game_vira, vira_rank_of
from ..store import write_atomic

NEAR = 2
"""A warm start from another score of the vira within this many points (``|dm| + |dp|``)."""

MIN_DRIFT = 1e-4
"""A finished re-solve is solved again only when its payoffs moved by more than this
(match-win probability; see the module doc)."""


@dataclass(frozen=True)
class Task:
    """One re-solve: ``vira`` at ``score`` with payoffs from the match equity ``me``
    ((12, 12) nested lists, match-win probability), warm-started from the re-solve of
    ``start`` (a score of the same vira, or of ``start_vira`` when given) or, when None,
    from the points solution in
    ``checkpoints``; until ``target`` match-win probability (checked at most
    ``check_every`` iterations apart, :func:`~lab.tables.score.resolve`), ``minutes`` or ``max_iterations``; on ``threads`` numba
    threads. ``toy_cap``: a reduced deck (tests)."""

    vira: str
    score: tuple
    me: tuple
    checkpoints: str
    start: tuple | None = None
    target: float = 0.002
    minutes: float = 30.0
    threads: int = 1
    check_every: int = 10
    toy_cap: tuple | None = None
    max_iterations: int | None = None
    again: bool = False
    start_vira: str | None = None


def score_dir(checkpoints, vira, score, toy_cap=None) -> Path:
    """Where the re-solve of ``vira`` at ``score`` keeps its files."""
    from .full import points_checkpoint

    points = points_checkpoint(checkpoints, vira, toy_cap=toy_cap)
    # the reduced deck stands in for every vira, each with its own re-solves
    base = Path(checkpoints) / "score" / points.name
    return (base if toy_cap is None else base / RANKS[vira_rank_of(vira)]) / \
        f"{score[0]}-{score[1]}"


def finished(checkpoints, vira, score, toy_cap=None) -> dict | None:
    """The rows of a finished re-solve ({"row", "hands"}), or None."""
    path = score_dir(checkpoints, vira, score, toy_cap) / "result.json"
    return json.loads(path.read_text()) if path.exists() else None


def nearest_start(checkpoints, vira, score, toy_cap=None, skip=()) -> tuple | None:
    """The nearest finished re-solve of ``vira`` within NEAR points of ``score`` whose
    strategies are kept, or None; not one of the scores ``skip`` (being solved again)."""
    from ..solver.fullgame.solver import has_checkpoint

    base = score_dir(checkpoints, vira, score, toy_cap).parent
    done = []
    for d in base.glob("*-*") if base.exists() else ():
        m, _, p = d.name.partition("-")
        if ((d / "result.json").exists() and has_checkpoint(d / "solution") and m.isdigit()
                and p.isdigit()):
            s = (int(m), int(p))
            if s in skip:
                continue
            dist = abs(s[0] - score[0]) + abs(s[1] - score[1])
            if 0 < dist <= NEAR:
                done.append((dist, -s[0] - s[1], s))
    return min(done)[2] if done else None


def other_vira_start(checkpoints, vira, score, toy_cap=None, skip=()) -> str | None:
    """Another vira whose finished re-solve of ``score`` keeps its strategies (the nearest
    in rank order), or None; not one of the viras ``skip`` (being solved now). Measured in
    ``benchmarks/score.md``: a re-solve from another vira's at the same score needs about
    half the iterations of one from the nearest score of its own vira."""
    from ..solver.fullgame.solver import has_checkpoint

    here = vira_rank_of(vira)
    found = [(abs(RANKS.index(v) - here), RANKS.index(v), v) for v in RANKS
             if v != RANKS[here] and v not in skip and same_game_vira(v) == RANKS.index(v)
             and finished(checkpoints, v, score, toy_cap) is not None
             and has_checkpoint(score_dir(checkpoints, v, score, toy_cap) / "solution")]
    return min(found)[2] if found else None


def keep_one(checkpoints, vira, score, toy_cap=None) -> bool:
    """Delete the solution of ``vira``'s finished re-solve at ``score`` when another vira's
    of the same score is kept (the one that starts the others: never deleted, so a
    re-solve planned to start from it finds it); True if it was deleted. A sweep that
    keeps one solution per score needs one a score instead of one a vira and score."""
    from ..solver.fullgame.solver import has_checkpoint

    here = score_dir(checkpoints, vira, score, toy_cap)
    if not (here / "result.json").exists() or not has_checkpoint(here / "solution") or \
            other_vira_start(checkpoints, vira, score, toy_cap) is None:
        return False
    for d in (here / "solution", here / "solution.old"):
        shutil.rmtree(d, ignore_errors=True)
    return True


def run_task(task: Task) -> dict:
    """Run one re-solve (or finish an interrupted one); returns {"row", "hands"}: its
    ``score_play`` row and ``score_play_hands`` rows. A finished one is read back."""
    from ..solver.fullgame.solver import has_checkpoint
    from .full import points_checkpoint, points_solver
    from .score import (RESOLVE_STORAGE, first_moves, measure_leak, resolve, resolve_solver,
                        score_payoffs)
    from .score_play import hand_rows, play_row

    here = score_dir(task.checkpoints, task.vira, task.score, task.toy_cap)
    done = None if task.again else finished(task.checkpoints, task.vira, task.score,
                                            task.toy_cap)
    if done is not None:
        return done
    here.mkdir(parents=True, exist_ok=True)
    me = np.array(task.me, dtype=np.float64)
    # the points play at the same payoffs: its value, leak and first moves
    points = points_solver(task.vira, task.threads, toy_cap=task.toy_cap).load_checkpoint(
        points_checkpoint(task.checkpoints, task.vira, toy_cap=task.toy_cap))
    leak, before = measure_leak(points, me, task.score), first_moves(points)
    payoffs = score_payoffs(me, task.score)
    progress_file, solution = here / "progress.json", here / "solution"
    progress = json.loads(progress_file.read_text()) if progress_file.exists() else None
    if progress is not None and (not np.allclose(progress["payoffs"], payoffs, atol=1e-12)
                                 or not has_checkpoint(solution)):
        progress = None      # solved with other payoffs (or never saved): start again
    history, first, source = None, task.start, task.start_vira or task.vira
    if progress is None and first is None:
        solver = points.in_storage(RESOLVE_STORAGE)   # the points solver itself, or a copy
    elif points.config.storage == RESOLVE_STORAGE:
        solver = points   # its memory is reused
    else:
        solver = resolve_solver(task.vira, task.threads, task.toy_cap)  # allocated on loading
    del points
    if progress is not None:   # it goes on from where it started, whatever is nearest now
        first = tuple(progress["start"]) or None
        source = progress.get("start_vira") or task.vira
        solver = solver.load_checkpoint(solution)
        # the progress is written before the checkpoint: a kill between the two leaves it
        # one check ahead, and the checks the checkpoint does not hold are dropped
        done = solver.iterations - progress["base"]
        history = [h for h in progress["history"] if h[0] <= done]
        if done != (history[-1][0] if history else 0):
            raise RuntimeError(f"{here}: the checkpoint holds {done} iterations of the "
                               "re-solve, which no check recorded; delete the folder to "
                               "start it again")
    elif first is not None:
        solver = solver.load_checkpoint(
            score_dir(task.checkpoints, source, first, task.toy_cap) / "solution",
            any_vira=True)
    start = "points" if first is None else f"{first[0]},{first[1]}"
    if first is not None and source != task.vira:
        start = f"{source} {start}"   # another vira's re-solve
    base = solver.iterations if progress is None else progress["base"]

    def save(s, checks):
        write_atomic(progress_file, json.dumps({"start": list(first or ()),
                                                "start_vira": source,
                                                "payoffs": [list(p) for p in payoffs],
                                                "base": base, "history": checks}))
        s.save_checkpoint(solution)

    rs = resolve(solver, me, task.score, minutes=task.minutes, target=task.target,
                 check_every=task.check_every, max_iterations=task.max_iterations,
                 before=before, save=save,
                 resume=history)
    result = {"row": play_row(task.vira, leak, rs, solver.outcome_distribution(), payoffs,
                              start),
              "hands": hand_rows(task.vira, rs), "checks": [list(h) for h in rs.history]}
    write_atomic(here / "result.json", json.dumps(result))
    progress_file.unlink(missing_ok=True)
    return result


def check_row(checkpoints, row: dict, threads: int = 1, toy_cap=None) -> tuple[float, float]:
    """(mão's value, exploitability), match-win probability, of the re-solve a
    ``score_play`` row describes, measured again from its checkpoint."""
    from .score import payoff_scale, resolve_solver

    score = (int(row["score_mao"]), int(row["score_pe"]))
    solver = resolve_solver(row["vira"], threads, toy_cap).load_checkpoint(
        score_dir(checkpoints, row["vira"], score, toy_cap) / "solution")
    centre, half_swing = payoff_scale([row["pay_mao_1"]], [row["pay_pe_1"]])
    best = solver.best_response_values()
    return centre + solver.value() * half_swing, 0.5 * (best[0] + best[1]) * half_swing


# ---------------------------------------------------------------- the sweep

def drift(row: dict, me) -> float:
    """How far (match-win probability) the payoffs a ``score_play`` row was solved with lie
    from those of the match equity ``me`` ((12, 12)) now (:func:`lab.match.payoff_drift`)."""
    from ..match import payoff_drift
    from ..solver.fullgame.game import LADDER
    from .registry import SEATS
    from .score import score_payoffs

    now = score_payoffs(np.asarray(me, dtype=np.float64),
                        (int(row["score_mao"]), int(row["score_pe"])))
    then = tuple(np.array([float(row[f"pay_{seat}_{v}"]) for v in LADDER]) for seat in SEATS)
    return payoff_drift(then, now)


def table_row(plays, vira, score) -> dict | None:
    """The ``score_play`` row of ``vira`` at ``score`` in ``plays``, or None."""
    if not len(plays):
        return None
    at = plays[(plays["vira"] == RANKS[vira_rank_of(vira)]) & (plays["score_mao"] == score[0])
               & (plays["score_pe"] == score[1])]
    return at.iloc[0].to_dict() if len(at) else None


def is_stale(row: dict, me, target: float) -> bool:
    """Whether a finished re-solve (its ``score_play`` row) must be solved again under the
    match equity ``me``: its exploitability may have grown past ``target`` (match-win
    probability; see the module doc)."""
    moved = drift(row, me)
    return moved > MIN_DRIFT and float(row["exploitability"]) + 2 * moved > target


def standing(checkpoints, plays, vira, score, me, target: float, toy_cap=None):
    """(state, row, drift) of ``vira`` at ``score`` before a sweep: state "new" (not
    re-solved), "finished" (its files under ``checkpoints`` say so), "kept" (``plays``, the
    ``score_play`` table, holds it; its files are elsewhere) or "again" (stale under the
    match equity ``me`` for ``target``); its ``score_play`` row and payoff drift (match-win
    probability) where it is re-solved."""
    done = finished(checkpoints, vira, score, toy_cap)
    row = done["row"] if done is not None else table_row(plays, vira, score)
    if row is None:
        return "new", None, None
    if is_stale(row, me, target):
        return "again", row, drift(row, me)
    return ("finished" if done is not None else "kept"), row, drift(row, me)


def waves(cells) -> list[list]:
    """``cells`` ((vira, score, leak) triples) grouped by ``m + p``, highest first; each
    wave sorted by leak, highest first."""
    by_total: dict = {}
    for vira, score, leak in cells:
        by_total.setdefault(score[0] + score[1], []).append((vira, tuple(score), leak))
    return [sorted(by_total[t], key=leak_order) for t in sorted(by_total, reverse=True)]


def leak_order(cell) -> tuple:
    """The order of the cells of a wave: highest leak first, then by vira and score."""
    vira, score, leak = cell
    return -leak, RANKS.index(vira), score


def sweep(cells, checkpoints, target: float = 0.002, minutes: float = 30.0, threads: int = 1,
          nearest: bool = True, client=None, toy_cap=None, directory=None, say=print,
          save: bool = True, keep_all: bool = True, again=(),
          replace: bool = False) -> list[dict]:
    """Re-solve every (vira, score, leak) of ``cells`` wave by wave (see the module doc),
    writing each finished re-solve to ``score_play`` and rebuilding ``match_equity_mixed``
    after each (unless ``save`` is False); ``client`` a dask client (None: in this
    process); ``keep_all`` False: one solution per score (:func:`keep_one`). ``again``:
    (vira, score) pairs solved again even where finished, and their solutions kept (for
    ``lab solve policy --score``, which stores a re-solve's strategies from its solution).
    ``replace``: the first re-solve written starts the tables again (the rows on disk
    dropped, their keys left to rebuild), instead of a damaged table being refused.
    Returns the results in the order they finished."""
    from ..match import equity_array
    from ..solver.fullgame.solver import has_checkpoint
    from .score_play import mixed_equity, plays_to_build_on, write_mixed_equity, write_plays

    results = []
    fresh_start = [replace]   # the first write of a --replace run drops the rows on disk

    def write(row, hands):
        write_plays([row], hands, directory, replace=fresh_start[0])
        fresh_start[0] = False
        write_mixed_equity(directory)

    for wave in waves(cells):
        wave, copies = solved_and_copied(wave)
        plays, hands = plays_to_build_on(directory)
        if results and not save:   # nothing on disk: the re-solves of this run
            import pandas as pd
            plays = pd.DataFrame([r["row"] for r in results])
        me = equity_array(mixed_equity(plays, directory))
        me = tuple(tuple(float(x) for x in row) for row in me)
        state = {}
        for vira, score, leak in wave:
            how, row, moved = standing(checkpoints, plays, vira, score, me, target, toy_cap)
            if how in ("finished", "kept") and (vira, score) in again:
                how = "again"
                say(f"vira {vira} at {score[0]},{score[1]}: solving it again as asked "
                    "(its solution kept)")
            state[vira, score] = how
            if how == "again" and (vira, score) not in again:
                say(f"vira {vira} at {score[0]},{score[1]}: its payoffs moved by "
                    f"{moved:.5f} match-win probability since it was re-solved "
                    f"(exploitability {row['exploitability']:.5f}, target {target}): "
                    "solving it again")

        def task(vira, score, start, source=None):
            return Task(RANKS[vira_rank_of(vira)], score, me, str(checkpoints), start, target,
                        minutes, threads, toy_cap=toy_cap, again=state[vira, score] == "again",
                        start_vira=source)

        def name(t):
            how = state[t.vira, t.score]
            return (f"{t.vira} {t.score[0]}-{t.score[1]}" + ("" if how == "new" else f" {how}")
                    + (f" from {t.start_vira}'s" if t.start_vira else ""))

        runs = [c for c in wave if state[c[0], c[1]] != "kept"]
        solving = {(v, s) for v, s, _ in runs if state[v, s] in ("new", "again")}
        first, later = [], []
        for vira, score, leak in runs:
            how = state[vira, score]
            skip = {s for (v, s), h in state.items() if v == vira and h == "again"}
            others = {v for v, s in solving if s == score and v != vira}
            if how == "again" and has_checkpoint(
                    score_dir(checkpoints, vira, score, toy_cap) / "solution"):
                first.append(task(vira, score, score))   # from its own strategies
            elif not nearest or how == "finished":
                first.append(task(vira, score, None))
            elif (source := other_vira_start(checkpoints, vira, score, toy_cap,
                                             others)) is not None:
                first.append(task(vira, score, score, source))
            elif others & {t.vira for t in first if t.score == score}:
                later.append((vira, score))   # from another vira's re-solve of this wave
            else:
                first.append(task(vira, score,
                                  nearest_start(checkpoints, vira, score, toy_cap, skip)))
        total = wave[0][1][0] + wave[0][1][1]
        kept = sum(1 for h in state.values() if h == "kept")
        parts = [name(t) for t in first]
        if later:
            parts.append(f"then {', '.join(f'{v} {s[0]}-{s[1]}' for v, s in later)} from "
                         "another vira's re-solve of the same score")
        say(f"wave {total} points: {len(solving)} re-solve{'' if len(solving) == 1 else 's'}"
            + (f" ({', '.join(parts)})" if parts else "")
            + (f"; {kept} kept as score_play holds {'it' if kept == 1 else 'them'}"
               if kept else ""))
        for tasks in (first, None):
            if tasks is None:   # the second stage: starts from the first stage's re-solves
                tasks = []
                for v, s in later:
                    source = other_vira_start(checkpoints, v, s, toy_cap)
                    tasks.append(task(v, s, s, source) if source is not None else
                                 task(v, s, nearest_start(checkpoints, v, s, toy_cap)))
                if tasks:
                    say(f"wave {total} points, then: {', '.join(map(name, tasks))}")
            for _, result in _run(tasks, client, CheckWatcher(tasks, say)):
                row = result["row"]
                results.append(result)
                if save:
                    write(row, result["hands"])
                here = (row["vira"], (row["score_mao"], row["score_pe"]))
                if not keep_all and here not in again and keep_one(checkpoints, row["vira"],
                                             (row["score_mao"], row["score_pe"]), toy_cap):
                    say(f"vira {row['vira']} at {row['score_mao']},{row['score_pe']}: its "
                        "solution deleted (another vira's of this score is kept)")
                say(f"vira {row['vira']} at {row['score_mao']},{row['score_pe']}: "
                    f"{row['iterations']} iterations from {row['start']} in "
                    f"{row['seconds']:.0f} s, exploitability {row['exploitability']:.5f}, "
                    f"mão {row['value_mao']:.4f} (points play {row['points_value_mao']:.4f}, "
                    f"leak {row['points_leak']:.4f}) match-win probability")
        for vira, score in copies:
            solved = RANKS[same_game_vira(vira)]
            source = next((r for r in reversed(results) if r["row"]["vira"] == solved
                           and (r["row"]["score_mao"], r["row"]["score_pe"]) == score), None)
            source = (source or finished(checkpoints, solved, score, toy_cap)
                      or kept_result(plays, hands, solved, score))
            copy = same_game_result(source, vira)
            held = table_row(plays, vira, score)
            if held is not None and all(held[k] == x or x != x and held[k] != held[k]
                                        for k, x in copy["row"].items()):   # NaN is NaN
                continue
            results.append(copy)
            if save:
                write(copy["row"], copy["hands"])
            say(f"vira {vira} at {score[0]},{score[1]}: the game of vira {solved}, its re-solve "
                f"copied (exploitability {copy['row']['exploitability']:.5f}, "
                f"mão {copy['row']['value_mao']:.4f} match-win probability)")
    return results


def solved_and_copied(wave) -> tuple[list, list]:
    """(cells to re-solve, (vira, score) to copy) of a wave: a vira that plays another
    vira's game (:func:`lab.classes.same_game_vira`) takes that vira's re-solve, which is
    added to the wave when it is not there (with the same leak)."""
    solved, copies = {}, []
    for vira, score, leak in wave:
        first = RANKS[same_game_vira(vira)]
        if first != vira:
            copies.append((vira, score))
        solved.setdefault((first, score), leak)
    return sorted(((v, s, leak) for (v, s), leak in solved.items()), key=leak_order), copies


def kept_result(plays, hands, vira, score) -> dict:
    """{"row", "hands"} of ``vira`` at ``score`` as the ``score_play`` tables hold them."""
    at = hands[(hands["vira"] == vira) & (hands["score_mao"] == score[0])
               & (hands["score_pe"] == score[1])]
    return {"row": table_row(plays, vira, score), "hands": at.to_dict("records"),
            "checks": []}


def same_game_result(source: dict, vira) -> dict:
    """The rows of a re-solve ``source`` ({"row", "hands"}) for ``vira``, a vira that plays
    the same game: the same numbers, the hands named for ``vira``, ``start`` naming the
    vira solved and no seconds of its own."""
    solved = source["row"]["vira"]
    names = dict(zip(hand_classes(solved).labels, hand_classes(vira).labels))
    name = RANKS[vira_rank_of(vira)]
    row = dict(source["row"], vira=name, seconds=0.0, start=f"vira {solved}")
    return {"row": row, "hands": [dict(h, vira=name, hand=names[h["hand"]])
                                  for h in source["hands"]],
            "checks": source.get("checks", [])}


class CheckWatcher:
    """Says each new check of the re-solves under way (read from their ``progress.json``):
    a sweep's progress while its tasks run elsewhere."""

    def __init__(self, tasks, say):
        self.tasks, self.say, self.seen = list(tasks), say, {}

    def __call__(self) -> None:
        for t in self.tasks:
            path = score_dir(t.checkpoints, t.vira, t.score, t.toy_cap) / "progress.json"
            try:
                checks = json.loads(path.read_text())["history"]
            except (OSError, ValueError, KeyError):
                continue
            key = (t.vira, t.score)
            for done, seconds, expl in checks[self.seen.get(key, 0):]:
                self.say(f"vira {t.vira} at {t.score[0]},{t.score[1]}: {done} iterations, "
                         f"{seconds:.0f} s, exploitability {expl:.5f} match-win probability "
                         f"(target {t.target})")
            self.seen[key] = len(checks)


def _run(tasks, client, watch=None, every: float = 20.0):
    """(task, result) pairs as they finish: dask futures (calling ``watch`` every
    ``every`` seconds while they run), or in this process in order."""
    if client is None:
        for t in tasks:
            yield t, run_task(t)
        return
    from dask.distributed import wait

    futures = {client.submit(run_task, t, key=f"score-{t.vira}-{t.score[0]}-{t.score[1]}-"
                                              f"{time.time_ns()}", pure=False): t
               for t in tasks}
    pending = set(futures)
    while pending:
        try:
            done, pending = wait(list(pending), timeout=every, return_when="FIRST_COMPLETED")
        except TimeoutError:
            done = set()
        if watch is not None:
            watch()
        for future in done:
            yield futures[future], future.result()
