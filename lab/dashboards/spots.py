"""Decision points ("spots") of a stored full-game policy, in a player's words.

A :class:`~lab.policy.full.Line` is a hand walked from the deal by public actions:
``("card", level)`` (a card shown), ``"cover"`` (a card played face down), ``"raise"``,
``"accept"``, ``"run"``. This module says what the spot at its end is (round, who acts,
what the hand is worth), names every action as a player would ("truco", "seis", "plays a
3", "runs") and tells how every hand of the player to act plays there, each weighted by
the probability that he holds it there:

    P(private state i here) = own reach_i x sum_j W[h_i, h_j] x opponent reach_j

``W`` the exact deal weights of the two hand classes (card removal), the reaches the
products of each seat's own action probabilities under the policy (from the Line). The
sum over the states is the probability that a hand reaches the spot at all. Every
probability here is per hand dealt (0..1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..cards import MANILHA_NAMES, level_name
from ..classes import vira_rank_of
from ..policy.full import ACCEPT, RAISE, RUN, FullPolicy, Line, Terminal
from ..policy.base import PolicyError

SEAT_WORDS = ("mão", "pé")
"""Seat 0 and seat 1 as players call them."""

RAISE_WORDS = {3: "truco", 6: "seis", 9: "nove", 12: "doze"}
"""What a player calls out to raise the hand to each value."""

COVER = "cover"
"""The public action of a card played face down (its level is private)."""

CARD_CATEGORIES = ("play the highest card", "play the middle card", "play the lowest card",
                   "play the last card", "cover a card")
"""Card actions as the chart groups them: which of his cards the player plays."""


# ------------------------------------------------------------------ words


def level_namer(policy: FullPolicy, vira=None):
    """``level -> name`` for the deck of ``vira`` (default: the policy's): ``zap``,
    ``3``, ``K`` ...; ``level 2`` for a reduced test deck. (Viras whose decks deal alike
    share one stored policy, so name the levels by the vira shown.)"""
    vira = policy.vira if vira is None else vira
    if vira is None:
        return lambda lv: f"level {lv}"
    rank = vira_rank_of(vira)
    return lambda lv: level_name(int(lv), rank)


def card_phrase(name: str) -> str:
    """A card name with its article: ``the zap`` (one of a kind), ``an A``, ``a 3``."""
    if name in MANILHA_NAMES.values():
        return f"the {name}"
    return f"an {name}" if name[:1] == "A" else f"a {name}"


def raise_word(value: int) -> str:
    """``truco`` / ``seis`` / ``nove`` / ``doze``: the call that asks for ``value`` points."""
    return RAISE_WORDS.get(int(value), f"raise to {value}")


def hand_value(policy: FullPolicy, spot) -> int:
    """Points the hand is worth at ``spot`` (the accepted value)."""
    return int(policy.ladder[policy.value_index(spot)])


def pending_value(policy: FullPolicy, spot) -> int:
    """At an answer spot, the value the waiting raise asks for."""
    return int(policy.ladder[policy.value_index(spot) + 1])


def raise_value(policy: FullPolicy, spot) -> int:
    """The value a raise made at ``spot`` asks for (a re-raise at an answer spot)."""
    step = 2 if policy.is_answer(spot) else 1
    return int(policy.ladder[policy.value_index(spot) + step])


def public_action(action):
    """The table's view of an action: a covered card is ``"cover"`` whatever its level."""
    if isinstance(action, tuple) and action[0] == COVER:
        return COVER
    return action


def action_words(policy: FullPolicy, spot, action, name_level=None) -> str:
    """What the player to act at ``spot`` does with ``action``, third person:
    ``plays a 3``, ``covers a card``, ``truco! (asks for 3 points)``, ``accepts the truco``,
    ``runs from the seis (the mão scores 3)``."""
    name_level = name_level or level_namer(policy)
    if isinstance(action, tuple) and action[0] == "card":
        return f"plays {card_phrase(name_level(action[1]))}"
    if public_action(action) == COVER:
        if isinstance(action, tuple):
            return f"covers {card_phrase(name_level(action[1]))} (plays it face down)"
        return "covers a card (plays it face down)"
    if action == RAISE:
        asked = raise_value(policy, spot)
        if policy.is_answer(spot):
            return (f"{raise_word(asked)}! (accepts {pending_value(policy, spot)} points and "
                    f"asks for {asked})")
        return f"{raise_word(asked)}! (asks for {asked} points)"
    if action == ACCEPT:
        pending = pending_value(policy, spot)
        return f"accepts the {raise_word(pending)} (the hand is worth {pending})"
    if action == RUN:
        raiser = 1 - policy.actor(spot)
        return (f"runs from the {raise_word(pending_value(policy, spot))} (the "
                f"{SEAT_WORDS[raiser]} scores {hand_value(policy, spot)})")
    raise PolicyError(f"{action!r}: not an action of the full game")


def short_words(policy: FullPolicy, spot, action, name_level=None) -> str:
    """:func:`action_words` cut for a button: ``plays a 3``, ``covers a card``,
    ``truco!``, ``accepts``, ``runs``."""
    if action == RAISE:
        return f"{raise_word(raise_value(policy, spot))}!"
    if action in (ACCEPT, RUN):
        return {ACCEPT: "accepts", RUN: "runs"}[action]
    if public_action(action) == COVER and not isinstance(action, tuple):
        return "covers a card"
    return action_words(policy, spot, action, name_level)


def category(policy: FullPolicy, spot, action, held) -> str:
    """The chart's name of ``action`` taken by a hand holding the levels ``held``: which
    of its cards it plays, ``cover a card``, or the call (``truco`` ..., ``accept``,
    ``run``)."""
    if isinstance(action, tuple):
        if action[0] == COVER:
            return "cover a card"
        if len(held) == 1:
            return "play the last card"
        if action[1] == max(held):
            return "play the highest card"
        return "play the lowest card" if action[1] == min(held) else "play the middle card"
    if action == RAISE:
        return raise_word(raise_value(policy, spot))
    return {ACCEPT: "accept", RUN: "run"}[action]


def categories(policy: FullPolicy, spot) -> list[str]:
    """The chart's action names at ``spot``, in a fixed order (cards, then calls)."""
    if policy.is_answer(spot):
        names = ["accept", "run"]
    else:
        names = list(CARD_CATEGORIES)
    d = policy.decision(spot)
    if RAISE in d.actions:
        names.append(raise_word(raise_value(policy, spot)))
    return names


def round_of(policy: FullPolicy, spot) -> tuple[int, bool]:
    """(round 1..3, whether the player to act leads the round) at a card spot."""
    depth = int(policy.tree.depth[spot.card])
    return depth // 2 + 1, depth % 2 == 0


def spot_words(policy: FullPolicy, line: Line) -> str:
    """Where the hand stands: the round, who acts and what for, what it is worth; or how
    it ended."""
    pol, spot = policy, line.spot
    if isinstance(spot, Terminal):
        how = {"run": "the other side ran", "cards": "on the cards"}.get(spot.how, spot.how)
        return (f"The hand is over: the {SEAT_WORDS[spot.winner]} wins {spot.points} "
                f"point{'s' if spot.points != 1 else ''} ({how}).")
    seat = SEAT_WORDS[pol.actor(spot)]
    rnd, leads = round_of(pol, spot)
    if pol.is_answer(spot):
        pending = pending_value(pol, spot)
        return (f"Round {rnd}: the {seat} answers a {raise_word(pending)} (accept: the hand "
                f"is worth {pending}; run: the other side scores {hand_value(pol, spot)}).")
    what = "leads the round" if leads else "answers the card on the table"
    return f"Round {rnd}: the {seat} {what}; the hand is worth {hand_value(pol, spot)}."


def line_words(policy: FullPolicy, actions, name_level=None) -> list[tuple[int, str]]:
    """``(seat, words)`` of each public action of a hand walked from the deal."""
    spot = policy.root()
    out = []
    name_level = name_level or level_namer(policy)
    for action in actions:
        seat = policy.actor(spot)
        out.append((seat, action_words(policy, spot, action, name_level)))
        spot = policy.child(spot, public_action(action))
    return out


def walk(policy: FullPolicy, actions) -> Line:
    """The line of public ``actions`` walked from the deal."""
    line = policy.start()
    for action in actions:
        line = line.then(action)
    return line


def public_actions(decision) -> tuple:
    """The distinct public actions of a :class:`~lab.policy.full.Decision` (covers of
    any level as one ``"cover"``), cards strongest first, then the calls."""
    out = []
    for action in decision.actions:
        a = public_action(action)
        if a not in out:
            out.append(a)
    return tuple(out)


# ------------------------------------------------------------------ who holds what


def deal_weights(policy: FullPolicy, seat: int) -> np.ndarray:
    """``W[h_seat, h_other]``: the probability of each deal of classes (rows: ``seat``'s
    class, columns: the other seat's), card removal exact; sums to 1."""
    w = np.asarray(policy.cards.deal_weights(), dtype=np.float64)
    return w if seat == 0 else w.T


def state_weights(policy: FullPolicy, line: Line) -> np.ndarray:
    """For each private state (pair) of the player to act at ``line``'s spot, the
    probability that a hand is dealt so that he holds it and both seats play the policy
    to here: own reach x sum_j W[h_i, h_j] x opponent reach_j."""
    t, spot = policy.tree, line.spot
    seat = policy.actor(spot)
    mine = t.pair_hand[t.pairs(spot.card, seat)].astype(np.int64)
    theirs = t.pair_hand[t.pairs(spot.card, 1 - seat)].astype(np.int64)
    W = deal_weights(policy, seat)
    return line.reach[seat] * (W[np.ix_(mine, theirs)] @ line.reach[1 - seat])


def reach_probability(policy: FullPolicy, line: Line) -> float:
    """The probability that a hand played by the policy passes through ``line``'s spot."""
    return float(state_weights(policy, line).sum())


def class_strategy(policy: FullPolicy, line: Line, name_level=None) -> pd.DataFrame:
    """How every hand class of the player to act plays at ``line``'s spot.

    One row per class that can be here, weakest first: ``hand`` (the class as dealt),
    ``holds`` (the cards it still holds), ``best`` (its strongest card now), ``share``
    (the probability that the player holds this class, given the spot is reached), and
    one column per action name of :func:`categories` (the probability of taking it).
    A class's private states (several after a covered card) are weighted by
    :func:`state_weights`.
    """
    spot = line.spot
    d = policy.decision(spot)
    weight = state_weights(policy, line)
    names = categories(policy, spot)
    name_level = name_level or level_namer(policy)
    sigma = np.nan_to_num(d.strategy, nan=0.0)
    rows: dict = {}
    for i in np.flatnonzero(weight > 0):
        cls = int(d.hands[i])
        row = rows.get(cls)
        if row is None:
            row = rows[cls] = {"weight": 0.0, "top": -1.0, "held": d.held[i],
                               **{n: 0.0 for n in names}}
        w = float(weight[i])
        row["weight"] += w
        if w > row["top"]:
            row["top"], row["held"] = w, d.held[i]
        for a, action in enumerate(d.actions):
            if sigma[a, i] > 0:
                row[category(policy, spot, action, d.held[i])] += w * sigma[a, i]
    total = sum(r["weight"] for r in rows.values())
    out = []
    for cls, row in rows.items():
        held = tuple(sorted(row["held"], reverse=True))
        out.append({"hand": policy.cards.labels[cls], "class": cls,
                    "holds": " ".join(name_level(lv) for lv in held),
                    "best": name_level(held[0]) if held else "",
                    "strength": held, "share": row["weight"] / total,
                    **{n: row[n] / row["weight"] for n in names}})
    columns = ["hand", "class", "holds", "best", "strength", "share", *names]
    frame = pd.DataFrame(out, columns=columns)
    if frame.empty:
        return frame
    order = sorted(range(len(frame)), key=lambda k: (frame["strength"].iloc[k],
                                                      policy.cards.class_levels[
                                                          frame["class"].iloc[k]]))
    return frame.iloc[order].reset_index(drop=True)


def by_best_card(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`class_strategy` rows grouped by the strongest card held (strongest group
    first): each group's share of the hands here and its share-weighted action
    probabilities."""
    if frame.empty:
        return frame
    names = [c for c in frame.columns if c not in ("hand", "class", "holds", "best",
                                                   "strength", "share")]
    first = {}
    for k, best in enumerate(frame["best"]):
        first.setdefault(best, k)
    out = []
    for best in sorted(first, key=lambda b: -first[b]):
        rows = frame[frame["best"] == best]
        share = rows["share"].sum()
        out.append({"best card": best, "share": share,
                    **{n: float((rows[n] * rows["share"]).sum() / share) for n in names}})
    return pd.DataFrame(out)


def opponent_mix(policy: FullPolicy, line: Line, hand_class: int) -> tuple[dict, bool]:
    """``({public action: probability}, on_path)`` of the player to act, against an
    opponent who holds ``hand_class`` (as dealt): his strategy averaged over his private
    states weighted by own reach x W[his class, hand_class].

    When no state of his is both dealt and reached (earlier moves off the policy's
    path), the deal weights alone weight the states the policy stores and ``on_path`` is
    False; when none is stored either, every public action he can take is equally
    likely."""
    spot = line.spot
    d = policy.decision(spot)
    seat = d.seat
    possible = deal_weights(policy, seat)[d.hands.astype(np.int64), int(hand_class)]
    weight = line.reach[seat] * possible
    on_path = weight.sum() > 0
    if not on_path:
        weight = possible * d.stored
    sigma = np.nan_to_num(d.strategy, nan=0.0)
    mix: dict = {}
    if weight.sum() > 0:
        share = sigma @ weight / weight.sum()
        for action, p in zip(d.actions, share):
            a = public_action(action)
            mix[a] = mix.get(a, 0.0) + float(p)
    else:
        legal = possible_actions(policy, line, hand_class)
        mix = {a: 1.0 / len(legal) for a in legal}
    return mix, bool(on_path)


def possible_actions(policy: FullPolicy, line: Line, hand_class: int) -> tuple:
    """The public actions the player to act can take when his opponent holds
    ``hand_class``: those of some private state of his that the deal allows."""
    d = policy.decision(line.spot)
    possible = deal_weights(policy, d.seat)[d.hands.astype(np.int64), int(hand_class)] > 0
    out = []
    for action in d.actions:
        a = public_action(action)
        if a in out:
            continue
        if any(possible[i] and d.legal_for(i, action) for i in range(len(possible))):
            out.append(a)
    return tuple(out)


def aggregate_mix(policy: FullPolicy, line: Line) -> dict:
    """``{public action: probability}`` of the player to act over all his hands that can
    be here (weighted by :func:`state_weights`); ``{}`` when the spot is never reached."""
    d = policy.decision(line.spot)
    weight = state_weights(policy, line)
    if weight.sum() <= 0:
        return {}
    share = np.nan_to_num(d.strategy, nan=0.0) @ weight / weight.sum()
    mix: dict = {}
    for action, p in zip(d.actions, share):
        a = public_action(action)
        mix[a] = mix.get(a, 0.0) + float(p)
    return mix


# ------------------------------------------------------------------ preset situations

TOP, BELOW, ABOVE, TIE = "top", "below", "above", "tie"
"""Preset steps that pick a card: the actor's most frequent open card here (``top``), or
his most frequent one that loses to (``below``), beats (``above``) or ties (``tie``) the
card on the table."""

PRESETS = (
    ("the mão opens the hand", ()),
    ("the pé answers the mão's opening truco", (RAISE,)),
    ("the mão answers a seis (the pé re-raised the truco)", (RAISE, RAISE)),
    ("the pé's first move after the mão's card", (TOP,)),
    ("round 2: the mão leads after winning round 1", (TOP, BELOW)),
    ("round 2: the pé leads after winning round 1", (TOP, ABOVE)),
    ("round 2: the mão leads again after a tied round 1", (TOP, TIE)),
    ("round 2: the pé answers the card of the mão, who won round 1", (TOP, BELOW, TOP)),
    ("round 2: the mão answers a truco after winning round 1", (TOP, BELOW, TOP, RAISE)),
    ("round 3: the pé leads at one round each", (TOP, BELOW, TOP, ABOVE)),
    ("round 3: the mão answers the pé's last card at one round each",
     (TOP, BELOW, TOP, ABOVE, TOP)),
)
"""Situations a player asks about, as (name, steps from the deal). A step is a public
action or a card pick (:data:`TOP` ...)."""


def preset_line(policy: FullPolicy, steps) -> Line:
    """The line of a preset: its steps walked from the deal, each card pick resolved to
    the most frequent fitting card under the policy. PolicyError when a step has no
    fitting action with a positive probability."""
    line = policy.start()
    for step in steps:
        if line.over:
            raise PolicyError(f"{step}: the hand is already over")
        if step in (TOP, BELOW, ABOVE, TIE):
            step = pick_card(policy, line, step)
        line = line.then(step)
    return line


def pick_card(policy: FullPolicy, line: Line, how: str):
    """The open card action a preset step ``how`` stands for at ``line``'s spot."""
    mix = aggregate_mix(policy, line)
    lead = next((a[1] for a in reversed(line.actions) if isinstance(a, tuple)), None)
    if how != TOP and (lead is None or round_of(policy, line.spot)[1]):
        raise PolicyError(f"{how}: no card on the table to answer")
    fits = {TOP: lambda lv: True, BELOW: lambda lv: lv < lead, ABOVE: lambda lv: lv > lead,
            TIE: lambda lv: lv == lead}[how]
    cards = [(p, a) for a, p in mix.items() if isinstance(a, tuple) and fits(a[1]) and p > 0]
    if not cards:
        raise PolicyError(f"no card that {how} the table's card is played here")
    return max(cards)[1]
