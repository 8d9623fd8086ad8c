"""The lab's public Python API, re-exported by ``import lab``.

``lab.load(name)``
    Every solved table by name (:data:`TABLE_NAMES`) as a tidy DataFrame, with the unit of
    each number column in ``attrs["units"]`` and the manifest in ``attrs["manifest"]``.
``lab.hand(vira, cards, seat="mao", score=(0, 0))``
    One hand's numbers, one row per measure: ``measure``, ``value``, ``unit``,
    ``exploitability``, ``model``; its first decisions are the advice service's where the
    lab advises with a score-aware policy (:mod:`lab.hand_summary`).
``lab.advise(vira, cards, seat="mao", score=(0, 0), actions=())``
    The advice for one position, the object ``lab advise --json`` prints: the legal moves,
    the solver's strategy, each move's exact value, the model, the unit and the
    exploitability (see :mod:`lab.advice`). ``actions``: the moves so far in ``lab
    replay`` tokens (a list, or one string separated by spaces or commas; the opponent's
    covered card is ``cover``).
``lab.match_equity()``
    The mão's match-win probability at every score, a 12 x 12 frame (mão's points down,
    pé's points across).
``lab.review(records, player=None)``
    One player's decisions in a match record file (a path, or a list of
    :class:`lab.match_record.HandRecord`) graded by the advice service: one row per
    decision with its kind, the move taken, the solver's strategy and values, the loss
    (in the row's ``unit``) and its mark (:mod:`lab.match_review`, ``docs/review.md``).
``lab.profile(records, player)``
    The player's frequency of each move per spot and hand-strength bucket beside the
    solver's, with 95% intervals and verdicts (:mod:`lab.player_profile`); ``records`` a path, a
    list of paths (record files or saved profiles) or a list of match records.

Bad input raises ValueError with a one-line message: a value that is not what the function
takes (a card that is not a card, a bool or a float for a point, a huge number, None, a
wrong type) and a call it cannot take (an argument missing, one too many, an unknown
name) alike. See :mod:`lab.tables.tidy` for the details.
"""

from __future__ import annotations

import functools
import inspect

from .errors import InputError
from .tables import tidy
from .tables.tidy import TABLE_NAMES
from .hand_summary import hand_summary


def _public(name: str, function):
    """``function`` as ``lab.<name>``: a call that does not fit its signature raises
    InputError (a ValueError) with one line, as a bad value does, not TypeError."""
    signature = inspect.signature(function)
    plain = signature.replace(parameters=[p.replace(annotation=p.empty)
                                          for p in signature.parameters.values()],
                              return_annotation=signature.empty)

    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise InputError(f"lab.{name}{plain}: {exc}") from None
        return function(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def advise(vira, cards, seat="mao", score=(0, 0), actions=()) -> dict:
    """The advice for one position (:func:`lab.advice.advise`), as ``lab advise --json``
    prints it; ValueError, one line, for a bad argument or an illegal sequence."""
    from .advice import advise as advice_object, build_position, parse_tokens

    vira, hand, seat_name, score = tidy.checked_hand_arguments(vira, cards, seat, score)
    if isinstance(actions, str):
        actions = actions.replace(",", " ").split()
    if not isinstance(actions, (list, tuple)) or not all(isinstance(a, str) for a in actions):
        raise InputError("actions: a list of lab replay tokens, or one string of them")
    if len(actions) > MOST_ACTIONS:
        raise InputError(f"{len(actions)} actions: a hand has at most {MOST_ACTIONS}")
    seat_index = tidy.SEATS[seat_name]
    return advice_object(build_position(vira, hand, seat_index, score, parse_tokens(actions)))


def review(records, player=None):
    """``player``'s graded decisions in ``records`` (:func:`lab.match_review.review_frame`): a
    DataFrame, one row per decision, units in ``attrs``; ValueError, one line, for a bad
    file, an unknown player or a bad argument."""
    from .match_review import review as reviewed, review_frame, summary

    _check_source(records)
    if player is not None and (not isinstance(player, str) or not player):
        raise InputError(f"player {player!r}: a player's name (a non-empty string) or None")
    result = reviewed(records, player, progress=False)
    frame = review_frame(result.decisions)
    frame.attrs.update(player=result.player, hands=result.hands,
                       skipped=len(result.skipped), summary=summary(result))
    return frame


def profile(records, player):
    """``player``'s profile over ``records`` (:func:`lab.player_profile.profile_frame`): a
    DataFrame, one row per spot x bucket x move; ValueError, one line, for bad input."""
    from .player_profile import build, profile_frame

    if isinstance(records, (list, tuple)):
        for item in records:
            _check_source(item, inner=True)
    else:
        _check_source(records)
    if not isinstance(player, str) or not player:
        raise InputError(f"player {player!r}: a player's name (a non-empty string)")
    return profile_frame(build(records, player, progress=False))


def _check_source(source, inner: bool = False) -> None:
    from pathlib import Path

    from .match_record import HandRecord

    if isinstance(source, (str, Path)) or (inner and isinstance(source, HandRecord)):
        return
    if not inner and isinstance(source, (list, tuple)):
        return
    raise InputError(f"{type(source).__name__}: give a record file's path or a list of match "
                     "records")


MOST_ACTIONS = 32
"""More actions than any hand holds (six cards, the raises and their answers)."""

load = _public("load", tidy.load)
hand = _public("hand", hand_summary)
advise = _public("advise", advise)
match_equity = _public("match_equity", tidy.match_grid)
review = _public("review", review)
profile = _public("profile", profile)

__all__ = ["TABLE_NAMES", "advise", "hand", "load", "match_equity", "profile", "review"]
