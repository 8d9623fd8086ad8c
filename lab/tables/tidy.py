"""Tidy views of the stored tables, and one hand's numbers: what the public API
(:mod:`lab.api`) and the dashboards read.

:func:`load`
    A solved table as a tidy pandas DataFrame: one row per fact, ``vira`` an ordered
    categorical in rank order (4 5 6 7 Q J K A 2 3), scores as integer ``score_mao`` and
    ``score_pe`` columns (the mão's and the pé's points before the hand), rows in vira order.
    The unit of every number column is in ``df.attrs["units"]`` and the table's manifest
    (rules version, solver settings, exploitability, build time) in ``df.attrs["manifest"]``.
    ``full_outcomes`` is ``full_summary``'s outcome distribution in long form; ``whatif``
    and ``whatif_match`` hold house rule sets against the lab's own (``lab whatif``), the
    unit of each ``whatif`` row in its ``unit`` column.
:func:`hand_measures`
    What the tables say about one hand: one row per measure with its ``value``, ``unit``,
    the ``exploitability`` of the solve behind it (in that solve's unit: win probability for
    card play, points per hand for the full game, match-win probability for the match
    models; NaN for double dummy, which is exact, and for the full game's match equity,
    whose leak is ``points_play_leak``) and the ``model``.
:func:`match_grid`
    The mão's match-win probability before a hand, 12 x 12: the mão's points down the
    index, the pé's points across the columns.

Bad input (an unknown table, a card that is not a card, a score past the end of a match)
raises ValueError (:class:`~lab.errors.InputError`) with a one-line message; so does a
table that is missing or stale (the message names the command that rebuilds it).
"""

from __future__ import annotations

from typing import Iterable, Union

import numpy as np
import pandas as pd

from .. import tables
from ..cards import DECK, RANKS, Card, check_distinct, parse_card, parse_cards
from ..classes import hand_classes
from ..errors import InputError
from ..match import ELEVEN_ELEVEN_MODEL, ELEVEN_MODEL, SCORE_AWARE_MODEL
from ..rules import ELEVEN, ELEVEN_ELEVEN, MAO, SEAT_NAMES, TARGET, check_score, hand_kind
from .score_play import score_aware_hand

VIRA_TYPE = pd.CategoricalDtype(list(RANKS), ordered=True)
"""The vira's rank as an ordered categorical, weakest (4) to strongest (3)."""

WIN = "win probability"
MATCH = "match-win probability"
POINTS = "points per hand"
PROBABILITY = "probability"
PER_ROW = "the row's unit column"

UNITS = {
    "cardplay": dict(equity=WIN, double_dummy=WIN, weight=PROBABILITY, exploitability=WIN),
    "cardplay_summary": dict(value_mao=WIN, double_dummy_mao=WIN, exploitability=WIN,
                             iterations="iterations", seconds="seconds"),
    "match_equity": dict(score_mao="points", score_pe="points", p_mao=MATCH, p_pe=MATCH,
                         exploitability=MATCH),
    "mao_de_onze": dict(score_mao="points", score_pe="points", accept=PROBABILITY,
                        value=MATCH, weight=PROBABILITY, exploitability=MATCH),
    "full_ev": dict(weight=PROBABILITY, ev=POINTS, exploitability=POINTS),
    "full_strategy": dict(probability=PROBABILITY),
    "full_summary": dict(value_mao=POINTS, exploitability=POINTS, iterations="iterations",
                         seconds="seconds", bluff_mao=PROBABILITY, bluff_pe=PROBABILITY),
    "full_outcomes": dict(points="points", probability=PROBABILITY),
    "score_leak": dict(score_mao="points", score_pe="points", value_mao=MATCH, gain_mao=MATCH,
                       gain_pe=MATCH, leak=MATCH, points_exploitability=POINTS,
                       points_iterations="iterations", resolve_iterations="iterations",
                       resolve_exploitability=MATCH, resolve_value_mao=MATCH,
                       truco_mao_points=PROBABILITY, truco_mao_score=PROBABILITY,
                       run_pe_points=PROBABILITY, run_pe_score=PROBABILITY),
    "score_play": dict(score_mao="points", score_pe="points", value_mao=MATCH,
                       exploitability=MATCH, iterations="iterations", seconds="seconds",
                       points_value_mao=MATCH, points_leak=MATCH, value_change=MATCH,
                       **{f"{m}{w}": PROBABILITY for m in ("truco_mao", "accept_pe", "run_pe",
                                                           "raise_pe") for w in ("", "_points")},
                       **{f"p_{s}_{v}": PROBABILITY for s in ("mao", "pe")
                          for v in (1, 3, 6, 9, 12)},
                       **{f"pay_{s}_{v}": MATCH for s in ("mao", "pe") for v in (1, 3, 6, 9, 12)}),
    "score_play_hands": dict(score_mao="points", score_pe="points", weight=PROBABILITY,
                             **{f"{m}{w}": PROBABILITY for m in ("truco_mao", "accept_pe",
                                                                 "run_pe", "raise_pe")
                                for w in ("", "_points")}),
    "match_equity_mixed": dict(score_mao="points", score_pe="points", p_mao=MATCH, p_pe=MATCH,
                               exploitability=MATCH, score_aware_viras="viras",
                               p_mao_points=MATCH, difference=MATCH),
    "bot_ranking": dict(exploitability=POINTS, ev_vs_solver=POINTS, ci95_lo=POINTS,
                        ci95_hi=POINTS, hands="hands"),
    "strategy_report": dict(round="round", value=PROBABILITY, base=PROBABILITY),
    "exploit_summary": dict(gain=POINTS, equilibrium_gain=POINTS, exploitability=POINTS,
                            equilibrium_exploitability=POINTS, hold="weight",
                            iterations="iterations"),
    "exploit_report": dict(round="round", value=PROBABILITY, base=PROBABILITY),
    "whatif": dict(score_mao="points", score_pe="points",
                   **{column: PER_ROW for column in ("variant", "default", "difference",
                                                     "variant_exploitability",
                                                     "default_exploitability")}),
    "whatif_match": dict(score_mao="points", score_pe="points", variant=MATCH, default=MATCH,
                         difference=MATCH, variant_exploitability=MATCH,
                         default_exploitability=MATCH),
}
"""The unit of every number column of every public table."""

DERIVED = {"full_outcomes": "full_summary"}
"""Public tables read from another stored table: {public name: stored table}."""

TABLE_NAMES = tuple(UNITS)


def _outcomes(summary: pd.DataFrame) -> pd.DataFrame:
    """The outcome distribution of ``full_summary`` in long form: one row per (vira, seat,
    points), the probability that the hand ends with that seat scoring those points."""
    columns = [c for c in summary.columns if c.startswith("p_")]
    long = summary.melt(id_vars="vira", value_vars=columns, value_name="probability")
    parts = long["variable"].str.split("_", expand=True)
    long = pd.DataFrame({"vira": long["vira"], "seat": parts[1],
                         "points": parts[2].astype("int64"),
                         "probability": long["probability"]})
    return long.sort_values(["seat", "points"], kind="stable").reset_index(drop=True)


def _tidy(name: str, df: pd.DataFrame) -> pd.DataFrame:
    """The stored table ``df`` in its public form (see the module docstring)."""
    if name == "full_outcomes":
        df = _outcomes(df)
    elif name == "full_summary":
        df = df[[c for c in df.columns if not c.startswith("p_")]]
    elif name == "mao_de_onze":
        points = df["score"].str.split(",", expand=True).astype("int64")
        df = df.drop(columns="score")
        df.insert(1, "score_mao", points[0])
        df.insert(2, "score_pe", points[1])
    elif name == "whatif":  # a score only on the mão de onze rows: blank (NA) elsewhere
        points = df["score"].where(df["score"] != "").str.split(",", expand=True)
        at = df.columns.get_loc("score")
        df = df.drop(columns="score")
        df.insert(at, "score_mao", pd.to_numeric(points[0]).astype("Int64"))
        df.insert(at + 1, "score_pe", pd.to_numeric(points[1]).astype("Int64"))
    df = df.copy()
    if "vira" in df:
        df["vira"] = df["vira"].astype(VIRA_TYPE)
        df = df.sort_values("vira", kind="stable").reset_index(drop=True)
    return df


def load(name: str) -> pd.DataFrame:
    """The public table ``name`` (see :data:`TABLE_NAMES`), tidy, with
    ``attrs["units"]`` ({column: unit}) and ``attrs["manifest"]`` (the stored manifest).
    Per-vira tables hold the viras solved so far (``attrs["manifest"]["viras"]``)."""
    if not isinstance(name, str) or name not in UNITS:
        raise InputError(f"{name!r} is not a table; the tables are {', '.join(TABLE_NAMES)}")
    stored = DERIVED.get(name, name)
    if "vira" in tables.columns_of(stored):
        df = tables.load_table(stored, viras=tables.solved_viras(stored))
    else:
        df = tables.load_table(stored)
    df = _tidy(name, df)
    df.attrs["units"] = {c: UNITS[name][c] for c in df.columns if c in UNITS[name]}
    df.attrs["manifest"] = tables.read_manifest(stored)
    return df


def match_grid() -> pd.DataFrame:
    """The mão's match-win probability before a hand at every score: a 12 x 12 frame
    indexed by the mão's points (``score_mao``) with the pé's points (``score_pe``) as
    columns. The pé's is one minus it. The model is the one the lab advises with (the
    ``match_equity_mixed`` table: hands re-solved for the match where they are stored,
    points play elsewhere), as ``lab match`` reports it. ``attrs`` as :func:`load`."""
    table = load("match_equity_mixed")
    grid = table.pivot(index="score_mao", columns="score_pe", values="p_mao")
    grid.attrs["units"] = {"values": MATCH, "index": "points", "columns": "points"}
    grid.attrs["manifest"] = table.attrs["manifest"]
    return grid


# ---------------------------------------------------------------- one hand

SEATS = {"mao": MAO, "mão": MAO, "pe": 1 - MAO, "pé": 1 - MAO}

Cards = Union[str, Iterable[Union[str, Card]]]


def _shown(value, limit: int = 40) -> str:
    """``repr(value)`` cut to about ``limit`` characters, so that a message stays one short
    line whatever was passed (an int of more than 4,300 digits has no repr at all)."""
    try:
        text = repr(value)
    except ValueError:
        text = f"<a {type(value).__name__} too large to show>"
    return text if len(text) <= limit else text[:limit - 10] + "..."


LONGEST_CARDS = 64
"""The longest card string read (three cards with spaces to spare); longer is refused."""


def _card(value, what: str) -> Card:
    """One card: a :class:`Card` of the deck or a string such as ``4c``; InputError else."""
    if isinstance(value, Card):
        if type(value.rank) is int and type(value.suit) is int and value in DECK:
            return value
        raise InputError(f"{what} {_shown(value)}: not one of the 40 cards")
    if not isinstance(value, str) or len(value) > LONGEST_CARDS:
        raise InputError(f"{what} {_shown(value)}: write a card such as 4c or Q♥")
    return parse_card(value)


def _is_integer(value) -> bool:
    """An int or a numpy integer, not a bool (True is not a point)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def checked_hand_arguments(vira, cards, seat, score):
    """The arguments of :func:`hand_measures` checked: (vira card, three cards, seat name,
    (mão's points, pé's points) as ints); InputError, one line, for anything else (a
    non-card, a bool or a float or a huge number for a point, a wrong type)."""
    vira = _card(vira, "vira")
    if isinstance(cards, str):
        if len(cards) > LONGEST_CARDS:
            raise InputError(f"cards {_shown(cards)}: write three cards such as 5c,3h,Kd")
        hand = parse_cards(cards, 3)
    elif isinstance(cards, (list, tuple)):
        if len(cards) != 3:
            raise InputError(f"{len(cards)} cards: a hand is three cards")
        hand = tuple(_card(c, "card") for c in cards)
    else:
        raise InputError(f"cards {_shown(cards)}: give three cards as a string such as "
                         "'5c,3h,Kd' or a list such as ['5c', '3h', 'Kd']")
    check_distinct(hand + (vira,))
    key = seat.strip().lower() if isinstance(seat, str) else None
    if key not in SEATS:
        raise InputError(f"seat {_shown(seat)}: the seat is 'mao' (leads round 1) or 'pe'")
    pair = list(score) if isinstance(score, (list, tuple)) or (
        isinstance(score, np.ndarray) and score.ndim == 1) else None
    if pair is None or len(pair) != 2 or not all(_is_integer(p) for p in pair):
        raise InputError(f"score {_shown(score)}: give the score as two integers (mão's "
                         "points, pé's points), e.g. (9, 10)")
    if not all(-TARGET <= p <= 2 * TARGET for p in pair):  # a huge number is not shown
        raise InputError(f"score {_shown(score)}: each player's points before a hand are 0 "
                         f"to {TARGET - 1}")
    points = (int(pair[0]), int(pair[1]))
    check_score(points)  # negative, or the match over
    return vira, hand, SEAT_NAMES[SEATS[key]], points


def hand_measures(vira, cards: Cards, seat: str = "mao", score=(0, 0)) -> pd.DataFrame:
    """What the solved tables say about one hand, one row per measure.

    ``vira`` and ``cards`` in card notation (``"4c"``, ``"5c,3h,Kd"`` or a list of cards),
    ``seat`` ``"mao"`` or ``"pe"``, ``score`` (mão's points, pé's points) before the hand.
    Columns ``measure``, ``value``, ``unit``, ``exploitability`` (in the unit of the
    model's solve, see the module docstring), ``model``. Measures: ``equity`` and
    ``double_dummy`` (card play, win probability), ``match_equity`` (the seat's match-win
    probability at this score before the deal); at a normal score ``points_ev`` and the
    first decision's strategy of the full game (``first: <action>`` for the mão,
    ``after a card: <action>`` and ``vs truco: <action>`` for the pé), which plays for
    points, and ``points_play_leak``, what that costs at this score (match-win probability,
    from ``score_leak``); where ``lab solve match-play`` re-solved the hand at this score
    for the match, ``score-aware first: truco`` (mão) or ``score-aware vs truco: run`` (pé)
    and ``score_aware_match_equity`` (the seat's match-win probability under it); at a mão de onze the holder's ``accept`` probability and its
    match-win probability with this hand (``eleven_value``); at 11-11 the match-win
    probability of this hand (its card-play win probability: the hand decides the match).
    """
    vira, cards, seat, score = checked_hand_arguments(vira, cards, seat, score)
    rank = RANKS[vira.rank]
    classes = hand_classes(rank)
    label = classes.labels[classes.class_of_cards(cards, vira)]
    kind, holder = hand_kind(score)
    rows = []

    def add(measure, value, unit, exploitability, model):
        rows.append((measure, float(value), unit, float(exploitability), model))

    card = _row(tables.load_table("cardplay", viras=[rank]), seat, label)
    add("equity", card["equity"], WIN, card["exploitability"], "cardplay-1pt")
    add("double_dummy", card["double_dummy"], WIN, np.nan, "double-dummy")
    me = load("match_equity_mixed")   # the model the lab advises with (lab match)
    at = me[(me["score_mao"] == score[0]) & (me["score_pe"] == score[1])].iloc[0]
    add("match_equity", at["p_mao" if seat == "mao" else "p_pe"], MATCH, at["exploitability"],
        at["model"])
    if kind == ELEVEN_ELEVEN:
        add("eleven_value", card["equity"], MATCH, card["exploitability"], ELEVEN_ELEVEN_MODEL)
    elif kind == ELEVEN:
        if SEAT_NAMES[holder] == seat:
            eleven = load("mao_de_onze")
            row = eleven[(eleven["vira"] == rank) & (eleven["score_mao"] == score[0])
                         & (eleven["score_pe"] == score[1]) & (eleven["hand"] == label)].iloc[0]
            add("accept", row["accept"], PROBABILITY, row["exploitability"], ELEVEN_MODEL)
            add("eleven_value", row["value"], MATCH, row["exploitability"], ELEVEN_MODEL)
    else:
        ev = _row(tables.load_table("full_ev", viras=[rank]), seat, label)
        add("points_ev", ev["ev"], POINTS, ev["exploitability"], "full-game-points")
        strategy = tables.load_table("full_strategy", viras=[rank])
        mine = strategy[(strategy["seat"] == seat) & (strategy["hand"] == label)]
        for situation, action, p in zip(mine["situation"], mine["action"], mine["probability"]):
            add(f"{SITUATION_NAMES[situation]}: {action}", p, PROBABILITY,
                ev["exploitability"], "full-game-points")
        leak = _points_leak(rank, score)
        if leak is not None:
            add("points_play_leak", leak, MATCH, np.nan, "full-game-points")
        aware = score_aware_hand(rank, score, label)
        if aware is not None:
            play, hand = aware
            for measure, column in SCORE_AWARE_MEASURES[seat]:
                if pd.notna(hand[column]):
                    add(measure, hand[column], PROBABILITY, play["exploitability"],
                        SCORE_AWARE_MODEL)
            add("score_aware_match_equity", play["value_mao"] if seat == "mao"
                else 1 - play["value_mao"], MATCH, play["exploitability"], SCORE_AWARE_MODEL)
    out = pd.DataFrame(rows, columns=["measure", "value", "unit", "exploitability", "model"])
    out.attrs.update(vira=str(vira), cards=[str(c) for c in cards], hand=label, seat=seat,
                     score=score)
    return out


SITUATION_NAMES = {"first": "first", "vs_truco": "vs truco", "first_after_card": "after a card"}
"""How a measure names a first-decision situation of the ``full_strategy`` table."""


def _points_leak(rank: str, score) -> float | None:
    """What playing for points instead of the match costs at this vira and score (mean of
    both seats' best-response gains, match-win probability), when ``score_leak`` has it."""
    try:
        leaks = tables.load_table("score_leak", viras=[rank])
    except tables.TableError:
        return None
    at = leaks[(leaks["score_mao"] == score[0]) & (leaks["score_pe"] == score[1])]
    return float(at["leak"].iloc[0]) if len(at) else None


SCORE_AWARE_MEASURES = {"mao": [("score-aware first: truco", "truco_mao")],
                        "pe": [("score-aware vs truco: run", "run_pe")]}
"""The first decisions ``score_play_hands`` holds per class, as measures of each seat."""


def _row(table: pd.DataFrame, seat: str, label: str) -> pd.Series:
    return table[(table["seat"] == seat) & (table["hand"] == label)].iloc[0]
