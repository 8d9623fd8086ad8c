"""One hand's numbers (``lab.hand``), with its first decisions from the advice service.

:func:`lab.tables.tidy.hand_measures` reads the solved tables: the card play, the match
equity, the full game's points value and its first decisions per hand class. Where a
score-aware policy is stored for the vira at the score (the hand re-solved for the
match), the lab advises with that policy (:mod:`lab.advice`), so the first decisions
here are that policy's, asked of the same service ``lab advise`` asks: the mão's first
move (``first: ...``) and the pé's answer to the mão's truco (``vs truco: ...``), model
``full-game-score-aware``, probabilities. The score sweep's own re-solve's first
decisions (``score-aware first: truco``, another solve) and the points play's are then left
out (the pé's move after the mão's first card depends on that card, so it has no single
row there); ``points_ev`` stays, as the points value of the hand. A page that shows the
points play beside the answer, titled a comparison, asks :func:`compared_summary`, which
keeps the points play's renamed ``points play first: ...``.

:func:`answering_model` names the model the advice service answers with at a score, so a
page can say once which model its numbers follow.
"""

from __future__ import annotations

import pandas as pd

from .advice import AdviceError, advice_for, build_position
from .match import ELEVEN_ELEVEN_MODEL, ELEVEN_MODEL, FULL_MODEL, SCORE_AWARE_MODEL
from .rules import ELEVEN, MAO, NORMAL, PLAY, RAISE, SURRENDER, Action, hand_kind
from .tables.tidy import (PROBABILITY, SCORE_AWARE_MEASURES, SEATS, checked_hand_arguments,
                          hand_measures)

POINTS_DECISIONS = ("first: ", "after a card: ", "vs truco: ")
"""The prefixes of the points play's first-decision measures."""

SWEPT_DECISIONS = tuple(name for measures in SCORE_AWARE_MEASURES.values()
                        for name, _ in measures)
"""The first decisions of the score sweep's re-solve (``score-aware first: truco``...):
where a score-aware policy is stored, the advice service answers with it, and these,
from another solve, are left out so that one model answers."""

POINTS_PLAY = "points play "
"""The prefix of the points play's first decisions kept for comparison where the advice
service answers with a score-aware policy (``points play first: truco``)."""


def answering_model(vira, score) -> str:
    """The model the advice service (:func:`lab.advice.advice_for`) answers with for a hand
    of ``vira`` (a card or a rank) at ``score`` (mão's, pé's points before the hand): the
    mão de onze or 11 x 11 model, the stored score-aware policy where one is stored, else
    the points play."""
    from .tables.score_policies import score_policy_info

    kind, _ = hand_kind(tuple(score))
    if kind == ELEVEN:
        return ELEVEN_MODEL
    if kind != NORMAL:
        return ELEVEN_ELEVEN_MODEL
    return SCORE_AWARE_MODEL if score_policy_info(vira, score) is not None else FULL_MODEL


def hand_summary(vira, cards, seat: str = "mao", score=(0, 0)) -> pd.DataFrame:
    """What the lab says about one hand, one row per measure: columns ``measure``,
    ``value``, ``unit``, ``exploitability`` (in the unit of the row's model) and ``model``.
    ``vira`` and ``cards`` in card notation, ``seat`` ``"mao"`` or ``"pe"``, ``score``
    (mão's points, pé's points) before the hand. The measures are those of
    :func:`lab.tables.tidy.hand_measures`, with the first decisions of the advice service
    where it advises with a score-aware policy (module docstring)."""
    return summary(vira, cards, seat, score, points_play=False)


def compared_summary(vira, cards, seat: str = "mao", score=(0, 0)) -> pd.DataFrame:
    """:func:`hand_summary`, keeping the points play's first decisions where the advice
    service answers with a score-aware policy, as ``points play ...`` rows (what a page
    shows beside the answer, titled a comparison)."""
    return summary(vira, cards, seat, score, points_play=True)


def summary(vira, cards, seat: str, score, points_play: bool) -> pd.DataFrame:
    """The rows of :func:`hand_summary` (with the points play's first decisions renamed
    and kept where ``points_play``)."""
    out = hand_measures(vira, cards, seat, score)
    card, held, seat_name, score = checked_hand_arguments(vira, cards, seat, score)
    if answering_model(card, score) != SCORE_AWARE_MODEL:
        return out
    rows = first_decisions(card, held, SEATS[seat_name], score)
    points = out["measure"].str.startswith(POINTS_DECISIONS)
    swept = out["measure"].isin(SWEPT_DECISIONS)   # another re-solve's answer: not the lab's
    parts = [out[~points & ~swept], pd.DataFrame(rows, columns=out.columns)]
    if points_play:
        parts.append(out[points].assign(measure=POINTS_PLAY + out.loc[points, "measure"]))
    merged = pd.concat(parts, ignore_index=True)
    merged.attrs.update(out.attrs)
    return merged


def first_decisions(vira, hand, seat: int, score) -> list[tuple]:
    """The advice service's first decision of ``seat``: the mão's first move, or the pé's
    answer to the mão's opening truco; rows of :func:`hand_summary` (probabilities)."""
    history = [] if seat == MAO else [Action(RAISE)]
    prefix = "first" if seat == MAO else "vs truco"
    try:
        advice = advice_for(build_position(vira, hand, seat, score, history), values=False)
    except AdviceError:
        return []
    rows = []
    for action, p in zip(advice.legal, advice.strategy):
        if action.kind == PLAY:
            name = f"play {action.card}"
        elif action.kind == RAISE:
            name = "truco" if seat == MAO else "raise"
        else:
            name = action.kind
        if action.kind != SURRENDER:
            rows.append((f"{prefix}: {name}", float(p), PROBABILITY, advice.exploitability,
                         advice.model))
    return rows
