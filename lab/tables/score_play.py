"""Score-aware play: the ``score_play`` tables and the match equity built on them.

``score_play`` has one row per (vira, score) re-solved with match-win payoffs by
``lab solve match-play`` (:mod:`lab.tables.score_sweep`): the mão's match-win probability
``value_mao`` under the re-solved strategies and their ``exploitability`` (match-win
probability), the iterations and seconds it took and where it started; the points play at
the same payoffs (``points_value_mao``, its leak ``points_leak``) and ``value_change``
between the two; the first decisions (the mão's truco, the pé's answers to it; ``_points``:
under points play); the outcome distribution ``p_<seat>_<v>`` (the probability that the
hand ends with that seat scoring ``v`` points) and the payoffs it was solved with,
``pay_<seat>_<v>`` (the mão's match-win probability after that outcome).
``score_play_hands`` holds the first decisions by hand class.

``match_equity_mixed`` is the match-equity table of :class:`lab.match.MixedModel`: at
each normal score the score-aware hands where ``score_play`` holds them, points play
elsewhere; its end games are ``match_equity``'s, and ``p_mao_points`` / ``difference``
put the points-play table beside it. ``match_equity`` itself stays the points-play table:
``score_leak`` measures the points play with its payoffs.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ..cards import RANKS
from ..classes import hand_classes, vira_rank_of
from ..solver.fullgame.game import LADDER
from .registry import SCORE_PLAY_SETTINGS, SEATS, TableError, spec_of

PLAYS, HANDS, MIXED = "score_play", "score_play_hands", "match_equity_mixed"
KEY = ["vira", "score_mao", "score_pe"]
MOVES = ("truco_mao", "accept_pe", "run_pe", "raise_pe")


def play_row(vira, points_leak, resolved, outcome: dict, payoffs, start: str) -> dict:
    """The ``score_play`` row of one re-solve: ``points_leak`` the points play at the same
    payoffs (:class:`lab.tables.score.PointsLeak`), ``resolved`` the
    :class:`lab.tables.score.Resolve`, ``outcome`` its outcome distribution
    ({(seat, points): probability}), ``payoffs`` the (mão, pé) arrays it was solved with."""
    row = {"vira": RANKS[vira_rank_of(vira)], "score_mao": int(resolved.score[0]),
           "score_pe": int(resolved.score[1]), "value_mao": float(resolved.value_mao),
           "exploitability": float(resolved.exploitability),
           "iterations": int(resolved.iterations), "seconds": round(float(resolved.seconds), 1),
           "start": start, "points_value_mao": float(points_leak.value_mao),
           "points_leak": float(points_leak.exploitability),
           "value_change": float(resolved.value_mao - points_leak.value_mao)}
    for move in MOVES:
        row[move] = float(resolved.after[move])
        row[f"{move}_points"] = float(resolved.before[move])
    for seat in SEATS:
        for v in LADDER:
            row[f"p_{seat}_{v}"] = float(outcome[(seat, v)])
    for seat, pay in zip(SEATS, payoffs):
        for v, x in zip(LADDER, pay):
            row[f"pay_{seat}_{v}"] = float(x)
    return row


def hand_rows(vira, resolved) -> list[dict]:
    """The ``score_play_hands`` rows of one re-solve: per hand class, the mão's opening
    truco and the pé's answers to it (accept, run, raise) under the re-solved and the
    points play (NaN where the class never meets the decision)."""
    hc = hand_classes(vira)
    nan = float("nan")
    a, b = resolved.after, resolved.before
    rows = []
    for c, label in enumerate(hc.labels):
        row = {"vira": RANKS[vira_rank_of(vira)], "score_mao": int(resolved.score[0]),
               "score_pe": int(resolved.score[1]), "hand": label, "weight": float(hc.weight[c])}
        for move in MOVES:
            row[move] = a[f"by_class_{move}"].get(c, nan)
            row[f"{move}_points"] = b[f"by_class_{move}"].get(c, nan)
        rows.append(row)
    return rows


def load_plays(directory=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(``score_play``, ``score_play_hands``) as on disk, empty when nothing is re-solved
    yet; TableError when they are stale or damaged."""
    from . import manifests as M

    if not M.table_paths(PLAYS, directory)[1].exists():
        return no_plays()
    manifest = M.read_manifest(PLAYS, directory)
    viras = list(manifest.get("viras", {}))
    return (M.load_table(PLAYS, viras=viras, directory=directory),
            M.load_table(HANDS, viras=viras, directory=directory))


def plays_to_build_on(directory=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`load_plays`, or empty tables (with a note on stderr) when the ones on disk
    are stale or damaged: built with other settings (another points solve), their rows
    cannot be kept, and a sweep starts them again."""
    import sys

    try:
        return load_plays(directory)
    except TableError as exc:
        print(f"note: {PLAYS} starts again, the rows on disk cannot be kept ({exc})",
              file=sys.stderr)
        return no_plays()


def play_keys(triples) -> set:
    """{(vira, score_mao, score_pe)} as plain str and ints, of (vira, score_mao, score_pe)
    triples: a manifest's list, or the rows of a frame's key columns."""
    return {(str(v), int(m), int(p)) for v, m, p in triples}


def plays_to_rebuild(directory=None) -> list:
    """The (vira, score_mao, score_pe) keys ``score_play`` must hold again: the rows of a
    table on disk built with other settings (a sweep starting again drops them) and those
    its manifest still lists as dropped, not yet re-solved (``to_rebuild``); in vira order,
    the higher scores first."""
    from . import manifests as M

    try:
        listed = M.read_manifest(PLAYS, directory).get("to_rebuild", [])
        keys = play_keys(listed)
    except (TableError, TypeError, ValueError):
        keys = set()
    try:
        load_plays(directory)
    except TableError:
        try:
            rows = M.parquet_frame(M.table_paths(PLAYS, directory)[0], KEY)
        except Exception:   # missing or damaged: no rows to name
            rows = pd.DataFrame(columns=KEY)
        keys |= play_keys(rows.itertuples(index=False))
    return sorted(keys, key=lambda k: (RANKS.index(k[0]), -k[1], -k[2]))


def no_plays() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(``score_play``, ``score_play_hands``) before anything is re-solved: no rows."""
    return pd.DataFrame(columns=KEY), pd.DataFrame(columns=KEY)


def write_plays(rows: list[dict], hands: list[dict], directory=None,
                replace: bool = False) -> pd.DataFrame:
    """Merge re-solves into ``score_play`` and ``score_play_hands`` (a new row replaces
    the row of the same vira and score); returns the ``score_play`` table written. Rows
    on disk built with other settings or on other tables are dropped with a note, and
    their keys stay in the manifest's ``to_rebuild`` until re-solved
    (:func:`plays_to_rebuild`); damaged tables are refused (:func:`check_plays_whole`)
    unless ``replace`` (only these rows are written, the keys on disk left to rebuild).
    The read, merge and write run under the data folder's lock with Ctrl-C held off."""
    from . import manifests as M
    from ..interrupts import interrupts_held
    from ..store import data_lock

    fresh = pd.DataFrame(rows), pd.DataFrame(hands)
    with data_lock(M.data_dir() if directory is None else directory), interrupts_held():
        wanted = plays_to_rebuild(directory)
        if not replace:
            check_plays_whole(directory)
        old = no_plays() if replace else plays_to_build_on(directory)
        new_keys = fresh[0].set_index(KEY).index
        merged = []
        for before, now in zip(old, fresh):
            kept = before[~before.set_index(KEY).index.isin(new_keys)] if len(before) else None
            df = now if kept is None else pd.concat([kept, now], ignore_index=True)
            df = df.assign(_v=df["vira"].map(RANKS.index))
            merged.append(df.sort_values(["_v", "score_mao", "score_pe"], kind="stable")
                          .drop(columns="_v").reset_index(drop=True))
        plays = merged[0]
        viras = {v: {"iterations": int(g["iterations"].sum()),
                     "exploitability": float(g["exploitability"].max()),
                     "scores": int(len(g))}
                 for v, g in plays.groupby("vira")}
        held = play_keys(plays[KEY].itertuples(index=False))
        left = tuple(key for key in wanted if key not in held)
        M.write_tables({PLAYS: M.TableWrite(plays, SCORE_PLAY_SETTINGS, viras, to_rebuild=left),
                        HANDS: M.TableWrite(merged[1], SCORE_PLAY_SETTINGS, viras)}, directory)
    return plays


def check_plays_whole(directory=None) -> None:
    """TableError (:func:`lab.tables.manifests.refused_merge`) when ``score_play`` or
    ``score_play_hands`` on disk is damaged: a merge would drop its re-solves."""
    from . import manifests as M

    for name in (PLAYS, HANDS):
        damage = M.table_damage(name, directory)
        if damage is not None:
            raise M.refused_merge(name, damage, "the re-solves it holds")


def score_aware_hand(vira, score, hand: str, directory=None):
    """(``score_play`` row, ``score_play_hands`` row of hand class ``hand``) where
    ``lab solve match-play`` re-solved ``vira`` at ``score``; None where it did not (or the
    tables cannot be read: the caller falls back to points play)."""
    try:
        plays, hands = load_plays(directory)
    except TableError:
        return None
    if not len(plays):
        return None
    v = RANKS[vira_rank_of(vira)]
    at = (plays["vira"] == v) & (plays["score_mao"] == score[0]) & (plays["score_pe"] == score[1])
    mine = hands[(hands["vira"] == v) & (hands["score_mao"] == score[0])
                 & (hands["score_pe"] == score[1]) & (hands["hand"] == hand)]
    return (plays[at].iloc[0], mine.iloc[0]) if at.any() and len(mine) else None


def score_aware_hands(plays: pd.DataFrame) -> dict:
    """{(vira, (m, p)): :class:`lab.match.ScoreAwareHand`} of a ``score_play`` table."""
    from ..match import ScoreAwareHand

    def cols(prefix, seat):
        return [f"{prefix}_{seat}_{v}" for v in LADDER]

    out = {}
    for _, r in plays.iterrows():
        out[(r["vira"], (int(r["score_mao"]), int(r["score_pe"])))] = ScoreAwareHand(
            *(r[cols("p", s)].to_numpy(dtype=float) for s in SEATS),
            float(r["exploitability"]), *(r[cols("pay", s)].to_numpy(dtype=float)
                                          for s in SEATS))
    return out


def mixed_equity(plays: pd.DataFrame, directory=None) -> pd.DataFrame:
    """The ``match_equity_mixed`` rows: the backward induction of
    :class:`lab.match.MixedModel` on the points-play ``match_equity``, ``full_summary``,
    ``score_leak`` (the points play's leak per vira and score, where measured) and the
    re-solves ``plays``."""
    from . import manifests as M
    from ..match import MixedModel, match_equity

    points = M.load_table("match_equity", directory=directory)
    full = M.load_table("full_summary", directory=directory)
    try:
        leaks = M.load_table("score_leak", viras=list(
            M.read_manifest("score_leak", directory)["viras"]), directory=directory)
        points_leak = {(v, (int(m), int(p))): float(x) for v, m, p, x in zip(
            leaks["vira"], leaks["score_mao"], leaks["score_pe"], leaks["leak"])}
    except (TableError, OSError, KeyError):
        points_leak = {}
    model = MixedModel(full, points, score_aware_hands(plays), points_leak)
    table = match_equity(model)
    aware = plays.groupby(["score_mao", "score_pe"]).size() if len(plays) else pd.Series(
        dtype=int)
    table["score_aware_viras"] = [int(aware.get((m, p), 0)) for m, p in
                                  zip(table["score_mao"], table["score_pe"])]
    table["p_mao_points"] = points.set_index(["score_mao", "score_pe"]).loc[
        list(zip(table["score_mao"], table["score_pe"])), "p_mao"].to_numpy()
    table["difference"] = table["p_mao"] - table["p_mao_points"]
    return table


def write_mixed_equity(directory=None) -> pd.DataFrame:
    """Rebuild ``match_equity_mixed`` from the tables on disk (seconds); returns it. The
    data folder's lock is held from the read of the tables it is built on to the write, so
    its manifest names the tables it was computed from."""
    from . import manifests as M
    from ..store import data_lock

    with data_lock(M.data_dir() if directory is None else directory):
        return _write_mixed_equity(directory)


def _write_mixed_equity(directory=None) -> pd.DataFrame:
    from . import manifests as M

    start = time.time()
    plays, _ = load_plays(directory)
    table = mixed_equity(plays, directory)
    viras = {v: {"iterations": int(plays.loc[plays["vira"] == v, "iterations"].sum())
                 if len(plays) else 0,
                 "exploitability": float(np.nanmax(table["exploitability"].to_numpy()))
                 if table["exploitability"].notna().any() else 0.0,
                 "score_aware_scores": int((plays["vira"] == v).sum()) if len(plays) else 0}
             for v in RANKS}
    M.write_table(MIXED, table, spec_of(MIXED).settings, viras, directory,
                  time.time() - start)
    return table
