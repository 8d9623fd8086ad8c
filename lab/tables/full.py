"""Tables of the full hand game (points EV and betting strategy per vira), and their solves.

Three tidy tables, written with :func:`lab.tables.write_table` (parquet + manifest):

``full_ev``
    One row per (vira, seat, hand class): ``vira``, ``seat`` (``mao``/``pe``), ``hand``
    (label such as ``zap 3 K``), ``weight`` (probability of being dealt the class),
    ``ev`` (expected net points per hand for the holder, under the solved strategies)
    and ``exploitability`` (the vira's solve, points per hand).
``full_strategy``
    One row per (vira, seat, hand, situation, action): the average strategy summarised
    per class at the first decisions. Situations: ``first`` (the mão's first move:
    ``truco`` or ``play <card>``), ``vs_truco`` (the pé answering the mão's opening
    truco: ``accept``, ``run``, ``raise``), ``first_after_card`` (the pé's first move
    after the mão opened with a card, averaged over the mão's cards with their
    equilibrium probabilities: ``truco`` or ``play <card>`` / ``cover <card>``).
``full_summary``
    One row per vira: ``value_mao`` (the mão's EV, points per hand), ``exploitability``,
    ``iterations``, ``seconds`` (of iterations and exploitability checks, summed over the
    runs of a resumed solve; this solve's own where it started from another vira's), the
    outcome distribution ``p_mao_1 .. p_pe_12``
    (probability that the hand ends with that seat scoring that value) and the bluff
    frequencies ``bluff_mao`` / ``bluff_pe``: the probability of a truco at the seat's
    first decision for a class whose EV is below the seat's median (by deal weight).

The solves run one task per game, locally or on a dask.distributed cluster
(:func:`solve_viras_full`): vira 3 plays vira 2's game, so asked together they are solved
once, the second vira's rows the same numbers under its own names. A solve saves
checkpoints so that an interrupted run resumes; only these summary tables, never the
regrets, go to ``data/``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Iterable, Optional

import numpy as np
import pandas as pd

from ..cards import RANKS, level_name
from ..classes import hand_classes, same_game_vira, vira_rank_of
from ..rules import DEFAULT_RULES
from ..solver.fullgame.solver import FullSolver, checkpoint_path, config_for, has_checkpoint
from ..solver.fullgame.game import LADDER
from ..policy.full import FullPolicy
from .registry import FULL_SETTINGS

SEATS = ("mao", "pe")


# ---------------------------------------------------------------- summaries of one solve

def _name(action, vira_rank) -> str:
    if action == "raise":
        return "truco"
    kind, lv = action
    label = level_name(int(lv), vira_rank) if vira_rank is not None else str(lv)
    return f"{'play' if kind == 'card' else 'cover'} {label}"


def first_decisions(policy, vira=None):
    """The strategy of a :class:`~lab.policy.full.FullPolicy` at the first decisions, per
    class; cards named for ``vira`` (default: the policy's own), a vira of the same game.

    Returns ``(mao_first, pe_vs_truco, pe_first)``: dicts class -> {action: p}. ``pe_first``
    averages the pé's first move over the mão's opening cards, each weighted by the
    probability (deal and the mão's strategy) of reaching it with that class.
    """
    vira = vira or policy.config.vira
    rank = vira_rank_of(vira) if vira else None
    root = policy.root()
    first = policy.decision(root)
    mao_first = {int(first.hands[i]): {_name(a, rank): p for a, p in first.of_hand(i).items()}
                 for i in range(len(first.hands))}
    answer = policy.decision(policy.child(root, "raise"))
    pe_vs = {int(answer.hands[i]): answer.of_hand(i) for i in range(len(answer.hands))}
    # the pé's first move after each opening card of the mão (no truco before it)
    W = policy.solver_weights(0)
    acc: dict = {}
    tot: dict = {}
    for action in first.actions:
        if not isinstance(action, tuple):
            continue
        row_of = first.actions.index(action)
        reach_by_class = np.zeros(W.shape[0])
        reach_by_class[first.hands] = np.nan_to_num(first.strategy[row_of])
        weight_pe = reach_by_class @ W  # per pé class: P(deal and the mão opens this card)
        then = policy.decision(policy.child(root, action))
        for j in range(len(then.hands)):
            c = int(then.hands[j])
            w = weight_pe[c]
            if w <= 0 or not then.stored[j]:
                continue
            tot[c] = tot.get(c, 0.0) + w
            row = acc.setdefault(c, {})
            for a, p in then.of_hand(j).items():
                key = _name(a, rank)
                row[key] = row.get(key, 0.0) + w * p
    pe_first = {c: {a: v / tot[c] for a, v in row.items()} for c, row in acc.items()}
    return mao_first, pe_vs, pe_first


def summarise(solver: FullSolver, seconds: float, vira=None) -> dict:
    """The table rows of one solved vira: ``{"full_ev": df, "full_strategy": df,
    "full_summary": row dict}``; ``vira``: rows for another vira of the same game
    (:func:`lab.classes.same_game_vira`), its hands and cards named for it."""
    cfg = solver.config
    named = None if cfg.vira is None else vira or cfg.vira   # whose names the cards take
    if named is not None:
        hc = hand_classes(named)
        labels, weights = hc.labels, hc.weight
    else:
        labels = solver.cards.labels
        weights = solver.weights[0].sum(axis=1)
    vira = RANKS[vira_rank_of(vira)] if vira else cfg.vira or "toy"
    expl = float(solver.final_exploitability)
    ev = solver.hand_values()
    rows = []
    for s, seat in enumerate(SEATS):
        for c, label in enumerate(labels):
            rows.append({"vira": vira, "seat": seat, "hand": label, "weight": float(weights[c]),
                         "ev": float(ev[s, c]), "exploitability": expl})
    ev_df = pd.DataFrame(rows)
    mao_first, pe_vs, pe_first = first_decisions(FullPolicy.average_of(solver), named)
    srows = []
    for seat, situation, table in (("mao", "first", mao_first), ("pe", "vs_truco", pe_vs),
                                   ("pe", "first_after_card", pe_first)):
        for c in sorted(table):
            for action, p in sorted(table[c].items()):
                srows.append({"vira": vira, "seat": seat, "hand": labels[c],
                              "situation": situation, "action": action, "probability": float(p)})
    strat_df = pd.DataFrame(srows)
    dist = solver.outcome_distribution()
    summary = {"vira": vira, "value_mao": solver.value(), "exploitability": expl,
               "iterations": int(solver.own_iterations), "seconds": float(seconds),
               "storage": cfg.storage}
    for (seat, v), p in dist.items():
        summary[f"p_{seat}_{v}"] = p
    for s, (seat, first) in enumerate((("mao", mao_first), ("pe", pe_first))):
        summary[f"bluff_{seat}"] = bluff_frequency(ev[s], weights, first)
    return {"full_ev": ev_df, "full_strategy": strat_df, "full_summary": summary}


def bluff_frequency(ev_row, weights, first: dict) -> float:
    """P(truco at the first decision | the class's EV is below the seat's weighted median)."""
    classes = [c for c in first if np.isfinite(ev_row[c])]
    if not classes:
        return float("nan")
    order = sorted(classes, key=lambda c: ev_row[c])
    w = np.array([weights[c] for c in order], dtype=float)
    cum = np.cumsum(w) / w.sum()
    below = [c for c, q in zip(order, cum) if q <= 0.5]
    if not below:
        return 0.0
    wb = np.array([weights[c] for c in below])
    pb = np.array([first[c].get("truco", 0.0) for c in below])
    return float((wb * pb).sum() / wb.sum())


# ---------------------------------------------------------------- solves

def solve_vira_full(vira, settings: Optional[dict] = None, checkpoint_root=None,
                    progress: bool = False, toy_cap=None, log=None, threads: int = 1) -> dict:
    """Solve one vira (or a toy deck) and return its table rows (see :func:`summarise`).

    Stops at ``settings['target_exploitability']`` (points per hand), after
    ``time_budget_minutes`` or ``max_iterations``; checkpoints under ``checkpoint_root``.
    ``settings['three_ties']`` (a house rule: ``nobody`` or ``pe``) solves the game where
    three tied rounds do not go to the mão.
    ``threads``: numba threads of the solve (the same iterates, faster on idle cores).
    """
    return solve_game_full([vira], settings, checkpoint_root, progress, toy_cap, log,
                           threads)[vira]


def solve_config(vira, settings: dict, toy_cap=None):
    """The solver configuration of ``vira`` (or of a toy deck) under ``settings``."""
    return config_for(None if toy_cap is not None else vira, toy_cap=toy_cap,
                      ladder=tuple(settings.get("ladder", LADDER)),
                      storage=settings.get("storage", "int16"),
                      three_ties=settings.get("three_ties", DEFAULT_RULES.three_ties))


def points_solver(vira, threads: int = 1, settings: Optional[dict] = None,
                  toy_cap=None, storage: Optional[str] = None) -> FullSolver:
    """An empty solver of ``vira``'s points game as ``lab solve full`` solves it under
    ``settings`` (default FULL_SETTINGS): its configuration (ladder, storage, rules) and
    Discounted CFR schedule, so that it loads that solve's checkpoint and every re-solve or
    policy built on it sees the same game; ``storage``: another storage than the solve's
    (a re-solve's)."""
    s = dict(FULL_SETTINGS if settings is None else settings)
    if storage is not None:
        s["storage"] = storage
    return FullSolver(solve_config(vira, s, toy_cap), threads=threads,
                      schedule=s.get("schedule", "dcfr"))


def points_checkpoint(checkpoint_root, vira, settings: Optional[dict] = None,
                      toy_cap=None) -> Path:
    """Where ``lab solve full --checkpoints checkpoint_root`` keeps ``vira``'s solve under
    ``settings`` (default FULL_SETTINGS)."""
    return checkpoint_path(checkpoint_root, solve_config(
        vira, dict(FULL_SETTINGS if settings is None else settings), toy_cap))


def solve_game_full(viras: list, settings: Optional[dict] = None, checkpoint_root=None,
                    progress: bool = False, toy_cap=None, log=None, threads: int = 1,
                    start=None) -> dict:
    """Solve the game of ``viras`` (viras that play one game,
    :func:`lab.classes.same_game_vira`) once, as the first of them (see
    :func:`solve_vira_full`); returns ``{vira: rows}``, the others' rows the same numbers
    with their own names and no seconds of their own.

    ``start``: the checkpoint folder of another vira's solve to start from
    (:meth:`FullSolver.warm_start`) unless this solve has a checkpoint of its own to
    resume; the rows then count this solve's iterations and seconds only, and
    ``rows["start"]`` names the source (vira, iterations, exploitability)."""
    s = dict(FULL_SETTINGS if settings is None else settings)
    first = viras[0]
    solver = points_solver(first, threads, s, toy_cap)
    ck = None if checkpoint_root is None else points_checkpoint(checkpoint_root, first, s,
                                                                toy_cap)
    if start is not None and not (ck is not None and has_checkpoint(ck)):
        solver.warm_start(start)
    solver.solve(s["target_exploitability"], int(s.get("max_iterations", 1_000_000)),
                 time_budget=60.0 * float(s["time_budget_minutes"]),
                 check_every=int(s.get("check_every", 10)), progress=progress,
                 checkpoint_dir=ck,
                 checkpoint_seconds=60.0 * float(s.get("checkpoint_minutes", 10)),
                 log=log)
    out = {first: summarise(solver, solver.seconds + solver.check_seconds)}
    for v in viras[1:]:
        out[v] = summarise(solver, 0.0, vira=v)
    for v in viras:
        out[v]["start"] = solver.start
    return out


def solve_viras_full(viras: Iterable, settings: Optional[dict] = None,
                     scheduler: Optional[str] = None,
                     checkpoint_root=None, toy_cap=None, local_workers: int = 1,
                     processes: bool = True, threads: int = 1,
                     start_vira: Optional[str] = None) -> dict:
    """Solve several viras, one dask task per game (vira 3 plays vira 2's game, solved
    once for both: :func:`solve_game_full`); returns ``{vira: rows}``.

    ``scheduler``: the address of a dask.distributed scheduler; without it a local
    cluster is started (``local_workers`` workers of one dask thread, processes unless
    ``processes=False``); each solve runs on ``threads`` numba threads.
    ``start_vira``: every other game without a checkpoint of its own starts from this
    vira's solve under ``checkpoint_root`` (:meth:`FullSolver.warm_start`); when it is one
    of ``viras`` its game is solved first.
    """
    from dask.distributed import Client

    from ..cluster import connect, local_cluster

    games: dict = {}
    for v in viras:
        games.setdefault(same_game_vira(v), []).append(v)
    stages, source = [list(games.values())], None
    if start_vira is not None:
        if toy_cap is not None or checkpoint_root is None:
            raise ValueError("start_vira needs the checkpoints of real viras")
        source_game = same_game_vira(start_vira)
        stages = [[g for k, g in games.items() if k == source_game],
                  [g for k, g in games.items() if k != source_game]]
        source = points_checkpoint(checkpoint_root, start_vira, settings)
    cluster = None
    if scheduler is None:
        cluster = local_cluster(local_workers, processes=processes)
        client = Client(cluster)
    else:
        client = connect(scheduler)
    try:
        out = {}
        for stage, start in zip(stages, (None, source)):
            futures = [client.submit(solve_game_full, group, settings, checkpoint_root, False,
                                     toy_cap, None, threads, start,
                                     key=f"full-{'-'.join(group)}-{time.time_ns()}",
                                     pure=False)
                       for group in stage]
            for f in futures:
                out.update(f.result())
        return {v: out[v] for v in viras}
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


FULL_TABLES = ("full_ev", "full_strategy", "full_summary")


def write_full_tables(results: dict, settings: Optional[dict] = None, directory=None,
                      replace: bool = False) -> dict:
    """Write (merging with the viras already on disk, or with ``replace`` only these) the
    three full-game tables; TableError when the tables on disk cannot be kept while they
    hold other viras (:func:`lab.tables.manifests.write_merged`)."""
    from .. import tables as T

    settings = dict(FULL_SETTINGS if settings is None else settings)
    per_vira = {RANKS[vira_rank_of(v)]: {"iterations": r["full_summary"]["iterations"],
                                         "exploitability": r["full_summary"]["exploitability"],
                                         "seconds": r["full_summary"]["seconds"],
                                         "built": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                                         **({"start": r["start"]} if r.get("start") else {})}
                for v, r in results.items()}
    fresh = {"full_ev": pd.concat([r["full_ev"] for r in results.values()], ignore_index=True),
             "full_strategy": pd.concat([r["full_strategy"] for r in results.values()],
                                        ignore_index=True),
             "full_summary": pd.DataFrame([r["full_summary"] for r in results.values()])}
    return T.write_merged(fresh, settings, per_vira, directory, replace=replace)


def load_full(name: str, vira, directory=None) -> pd.DataFrame:
    """Rows of one vira from a full-game table (TableError naming the rebuild command)."""
    from .. import tables as T

    v = RANKS[vira_rank_of(vira)]
    settings = T.read_manifest(name, directory).get("settings")
    if not isinstance(settings, dict) or settings.get("ladder") != list(LADDER):
        raise T.TableError(f"table {name!r} was not built for the ladder {list(LADDER)}; "
                           f"rebuild it with `{T.spec_of(name).rebuild}`")
    return T.load_table(name, viras=[v], settings=settings, directory=directory)
