"""Review a played match: every decision of one player graded by the advice service.

A match record file (:mod:`lab.match_record`, ``docs/match_records.md``) holds what each
player did; for each hand in which the reviewed player sat, every decision he took is
asked again of :mod:`lab.advice` from his own seat, with what he knew then: the vira, his
three cards as dealt, the score and the actions so far, the opponent's covered cards
without their card. The advice gives the solver's strategy and the exact value of each
legal move (``ev``); the decision's **loss** is the value of the solver's mix (the sum of
strategy times ev) less the value of the move taken, never below 0 (a move worth more
than the mix, which the solved policy's exploitability allows, costs nothing).

The rules of ``docs/review.md`` in one place:

- **kinds** (:data:`KINDS`): the mão de onze accept/run decision is ``mao_de_onze``; a
  decision with a raise to answer is ``answer_truco`` whatever the answer; otherwise the
  move taken names it: a raise at hand value 1 ``open_truco``, one above ``raise``, a card
  face up as the round's first card ``lead``, as its second ``answer_card``, a covered card
  ``cover``; a surrender (no raise to answer) is ``lead`` or ``answer_card`` by whether a
  card of the round is already on the table.
- **marks** (:data:`THRESHOLDS`): ``mistake`` from 0.1 points per hand (0.01 match-win
  probability), ``blunder`` from 0.5 points (0.05 match-win probability), else ``""``.
- **zones** (:data:`ZONES`): ``normal`` (nobody at 9 or more), ``end_game`` (a player at 9
  or 10, nobody at 11), ``mao_de_onze`` (exactly one at 11), ``eleven_eleven``.
- Not graded: the blind 11 x 11 (the rules draw the card: no decision); a last card covered
  in round 3 (the solved games do not hold it) and a position the solved game cannot value
  (the opponent's moves have probability zero under it): both *skipped*, counted with
  their reason.
- Only hands played under the lab's default rules (``paulista``) are graded: the advice
  is solved for them. A file holding another rule set is refused, naming the hand.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from .advice import MATCH_WIN, POINTS, Advice, AdviceError, Position, advice_for, build_position
from .advice_text import RAISE_WORDS, SEAT_WORDS, SHOWN, move_names, percent
from .errors import InputError
from .match_record import HandRecord, read_records
from .rules import (ACCEPT, COVER, DEFAULT_RULES, ELEVEN, RAISE, RUN, SEAT_NAMES, SURRENDER,
                    Action, next_value)

KINDS = ("open_truco", "answer_truco", "raise", "lead", "answer_card", "cover", "mao_de_onze")
"""The kinds of decision (module docstring)."""

ZONES = ("normal", "end_game", "mao_de_onze", "eleven_eleven")
"""Score zones: nobody at 9+; a player at 9 or 10 (nobody at 11); one at 11; 11 x 11."""

ZONE_WORDS = {"normal": "normal scores", "end_game": "end game (9 or 10)",
              "mao_de_onze": "mão de onze", "eleven_eleven": "11 x 11"}

KIND_WORDS = {"open_truco": "opening a truco", "answer_truco": "answering a raise",
              "raise": "raising above truco", "lead": "leading a card",
              "answer_card": "answering a card", "cover": "covering a card",
              "mao_de_onze": "mão de onze: play or run"}

THRESHOLDS = {POINTS: (0.1, 0.5), MATCH_WIN: (0.01, 0.05)}
"""Per unit, the loss from which a decision is a ``mistake`` and a ``blunder``."""

UNIT_ORDER = (POINTS, MATCH_WIN)

TOP = 10
"""Costliest decisions described in words."""

PROGRESS_FROM = 20
"""Files of more hands than this show a progress bar (on a terminal, or when asked)."""


@dataclass(frozen=True)
class Decision:
    """One graded decision. ``hand``: the hand's place in the file (from 1); ``match`` and
    ``hand_in_match`` its match id and number there; ``seat`` the reviewed player's (0
    mão, 1 pé); ``score`` (mão's, pé's) before the hand; ``zone`` (:data:`ZONES`);
    ``kind`` (:data:`KINDS`); ``action`` the move taken (a rules Action) and ``token`` its
    ``lab replay`` token; ``position`` what the player knew; ``advice`` the advice
    service's answer; ``mix`` the value of the solver's strategy, ``taken`` the value of
    the move taken, ``loss`` = max(0, mix - taken), in ``advice.unit``; ``mark``
    ``"blunder"``, ``"mistake"`` or ``""``."""

    hand: int
    match: str
    hand_in_match: int
    seat: int
    score: tuple
    zone: str
    kind: str
    action: Action
    position: Position
    advice: Advice
    mix: float
    taken: float
    loss: float
    mark: str

    @property
    def token(self) -> str:
        return str(self.action)

    @property
    def unit(self) -> str:
        return self.advice.unit

    @property
    def vira(self):
        return self.position.vira

    def as_json(self) -> dict:
        """The decision as ``lab review --json`` prints it."""
        advice = self.advice.as_json()
        return {"hand": self.hand, "match": self.match, "hand_in_match": self.hand_in_match,
                "seat": SEAT_NAMES[self.seat], "score": list(self.score), "zone": self.zone,
                "kind": self.kind, "action": self.token, "strategy": advice["strategy"],
                "ev": advice["ev"], "loss": self.loss, "unit": self.unit,
                "model": self.advice.model, "mark": self.mark}


@dataclass(frozen=True)
class Skipped:
    """A decision the review could not grade: where (``hand``, ``match``,
    ``hand_in_match``), the move (``token``) and why (``reason``)."""

    hand: int
    match: str
    hand_in_match: int
    token: str
    reason: str


@dataclass
class Review:
    """What :func:`review` gives: the ``player``, the ``hands`` he sat in, his graded
    ``decisions`` and the ``skipped`` ones."""

    player: str
    hands: int
    decisions: list = field(default_factory=list)
    skipped: list = field(default_factory=list)


# ---------------------------------------------------------------- reading and choosing


def load(source) -> tuple[list, str]:
    """``(records, name)`` from a path (read and checked: ``FILE:LINE:`` errors) or a list
    of :class:`HandRecord`."""
    if isinstance(source, (str, Path)):
        return read_records(source), str(source)
    try:
        records = list(source)
    except TypeError:
        raise InputError(f"{type(source).__name__}: give a record file's path or a list of "
                         "match records") from None
    for k, record in enumerate(records, 1):
        if not isinstance(record, HandRecord):
            raise InputError(f"record {k}: {type(record).__name__} is not a match record "
                             "(lab.match_record.HandRecord)")
    return records, "the records"


def players_of(records) -> list[str]:
    """The players' names, in the order they first appear."""
    out = []
    for record in records:
        for name in record.players:
            if name not in out:
                out.append(name)
    return out


def choose_player(records, player, source: str = "the records") -> str:
    """The player to review: ``player`` (who must sit in the file), or without it the one
    player whose cards every hand knows where only one seat's are known throughout (the
    record of a match against a hidden opponent); InputError otherwise."""
    names = players_of(records)
    if not records:
        raise InputError(f"{source}: no hands to review")
    listed = ", ".join(repr(n) for n in names)
    if player is not None:
        if not isinstance(player, str) or not player:
            raise InputError(f"player {player!r}: name a player of the file ({listed})")
        if player not in names:
            raise InputError(f"player {player!r} does not play in {source}; its players are "
                             f"{listed}")
        return player
    known = set()
    for record in records:
        seats = [s for s in (0, 1) if record.cards[s] is not None]
        if len(seats) != 1:
            known = None
            break
        known.add(record.players[seats[0]])
    if known is not None and len(known) == 1:
        return known.pop()
    raise InputError(f"{source}: name the player to review with --player (its players are "
                     f"{listed})")


def hand_label(number: int, record: HandRecord) -> str:
    return f"hand {number} (match {record.match!r}, hand {record.hand})"


def check_rules(records, source: str = "the records") -> None:
    """InputError at the first hand not played under the lab's default rules."""
    for number, record in enumerate(records, 1):
        if record.rules != DEFAULT_RULES:
            name = record.rules.name
            raise InputError(f"{source}: {hand_label(number, record)} was played under the "
                             f"{name} rules; the advice is solved for the lab's default rules "
                             f"({DEFAULT_RULES.name}), so it cannot grade it")


# ---------------------------------------------------------------- one decision


def zone_of(score) -> str:
    a, b = score
    if a == b == 11:
        return "eleven_eleven"
    if 11 in (a, b):
        return "mao_de_onze"
    if max(a, b) >= 9:
        return "end_game"
    return "normal"


def kind_of(state, action: Action) -> str:
    """The decision's kind (module docstring) at rules ``state`` (before ``action``)."""
    if state.kind == ELEVEN and not state.eleven_decided:
        return "mao_de_onze"
    if state.pending is not None:
        return "answer_truco"
    if action.kind == RAISE:
        return "open_truco" if state.value == 1 else "raise"
    if action.kind == COVER:
        return "cover"
    return "lead" if not state.table else "answer_card"


def mark_of(loss: float, unit: str) -> str:
    mistake, blunder = THRESHOLDS.get(unit, THRESHOLDS[POINTS])
    if loss >= blunder:
        return "blunder"
    if loss >= mistake:
        return "mistake"
    return ""


def grade(advice: Advice, action: Action) -> tuple[float, float, float]:
    """``(mix, taken, loss)`` of ``action`` under ``advice``."""
    mix = float(sum(p * v for p, v in zip(advice.strategy, advice.ev)))
    taken = float(advice.ev[list(advice.legal).index(action)])
    return mix, taken, max(0.0, mix - taken)


def hand_decisions(number: int, record: HandRecord, seat: int, progress=None):
    """The graded decisions and the skipped ones of ``seat`` in ``record`` (its
    ``number``-th hand in the file)."""
    hand = record.cards[seat]
    seen = []      # the actions as the seat saw them
    decisions, skipped = [], []
    for action in record.actions:
        position = build_position(record.vira, hand, seat, record.score, seen)
        state = position.state
        if state.to_act == seat and not state.blind:
            where = (number, record.match, record.hand)
            try:
                advice = advice_for(position, progress)
            except AdviceError as exc:
                skipped.append(Skipped(*where, str(action), str(exc)))
                advice = None
            if advice is not None and action not in advice.legal:
                skipped.append(Skipped(*where, str(action),
                                       "the last card covered in round 3: the solved games do "
                                       "not hold it"))
                advice = None
            if advice is not None:
                mix, taken, loss = grade(advice, action)
                decisions.append(Decision(number, record.match, record.hand, seat,
                                          tuple(record.score), zone_of(record.score),
                                          kind_of(state, action), action, position, advice,
                                          mix, taken, loss, mark_of(loss, advice.unit)))
        opponent_cover = state.to_act != seat and action.kind == COVER
        seen.append(Action(COVER) if opponent_cover else action)
    return decisions, skipped


# ---------------------------------------------------------------- the review


def review(source, player=None, progress=None, step=None, name=None) -> Review:
    """Review ``player``'s decisions in ``source`` (a record file's path or a list of
    match records): a :class:`Review`. ``progress``: a tqdm bar on stderr (None: only on
    a terminal and for more than :data:`PROGRESS_FROM` hands); ``step(done, total)``
    after each of the player's hands; ``name``: what the messages call the source.
    InputError for an unreadable or malformed file, an unknown player, unknown cards,
    other rules."""
    records, loaded = load(source)
    name = loaded if name is None else name
    player = choose_player(records, player, name)
    check_rules(records, name)
    mine = []
    for number, record in enumerate(records, 1):
        if player not in record.players:
            continue
        seat = record.players.index(player)
        if record.cards[seat] is None:
            raise InputError(f"{name}: {hand_label(number, record)}: {player!r}'s cards are "
                             "unknown in the record; a review needs the cards he held")
        mine.append((number, record, seat))
    result = Review(player, len(mine))
    show = (sys.stderr.isatty() and len(mine) > PROGRESS_FROM) if progress is None \
        else bool(progress)
    bar = None
    if show:
        from tqdm import tqdm

        bar = tqdm(total=len(mine), desc=f"reviewing {player}", unit="hand", file=sys.stderr,
                   leave=False)
    try:
        for done, (number, record, seat) in enumerate(mine, 1):
            decisions, skipped = hand_decisions(number, record, seat,
                                                False if show else None)
            result.decisions += decisions
            result.skipped += skipped
            if bar is not None:
                bar.update()
            if step is not None:
                step(done, len(mine))
    finally:
        if bar is not None:
            bar.close()
    return result


def review_records(records, player=None, progress=None) -> list[Decision]:
    """The graded decisions of ``player`` in ``records`` (see :func:`review`)."""
    return review(records, player, progress).decisions


# ---------------------------------------------------------------- the summary


def units_of(decisions) -> list[str]:
    present = {d.unit for d in decisions}
    return [u for u in UNIT_ORDER if u in present] + sorted(present - set(UNIT_ORDER))


def _loss(decisions, units, per: float = 1.0):
    """The loss of ``decisions`` divided by ``per``: a number where one unit (or none)
    occurs in the review, else ``{unit: loss}`` over every unit of the review."""
    if len(units) <= 1:
        return sum(d.loss for d in decisions) / per
    return {u: sum(d.loss for d in decisions if d.unit == u) / per for u in units}


def summary(result: Review) -> dict:
    """The ``summary`` object of ``lab review --json`` (``docs/review.md``)."""
    decisions = result.decisions
    units = units_of(decisions)
    out = {"decisions": len(decisions),
           "loss_total": _loss(decisions, units),
           "loss_per_hand": _loss(decisions, units, max(result.hands, 1)),
           "unit": units[0] if len(units) == 1 else (units or None),
           "by_kind": {}, "by_zone": {}, "marks": {}, "skipped": len(result.skipped)}
    for kind in KINDS:
        mine = [d for d in decisions if d.kind == kind]
        if mine:
            out["by_kind"][kind] = {"decisions": len(mine), "loss": _loss(mine, units)}
    for zone in ZONES:
        mine = [d for d in decisions if d.zone == zone]
        if mine:
            out["by_zone"][zone] = {"decisions": len(mine), "loss": _loss(mine, units)}
    for mark in ("blunder", "mistake"):
        out["marks"][mark] = sum(d.mark == mark for d in decisions)
    return out


def review_json(result: Review) -> dict:
    """The object ``lab review --json`` prints."""
    return {"player": result.player, "hands": result.hands,
            "decisions": [d.as_json() for d in result.decisions],
            "summary": summary(result)}


def costliest(decisions, k: int = TOP) -> list:
    """The ``k`` decisions of highest loss (a match-win loss before a points loss of the
    same size is not meaningful: each unit is ranked by the loss over its blunder mark)."""
    def scale(d):
        return d.loss / THRESHOLDS.get(d.unit, THRESHOLDS[POINTS])[1]

    ranked = sorted((d for d in decisions if d.loss > 0), key=lambda d: (-scale(d), d.hand))
    return ranked[:k]


# ---------------------------------------------------------------- words


def loss_text(x: float, unit: str) -> str:
    return f"{x:.2f} points" if unit == POINTS else f"{x:.3f} in match-win probability"


def _raise_word(value: int) -> str:
    return RAISE_WORDS.get(value, f"a raise to {value}")


def move_words(decision: Decision) -> str:
    """What the player did, in words: ``you ran from a truco``."""
    state, action = decision.position.state, decision.action
    if decision.kind == "mao_de_onze":
        return "you played the mão de onze" if action.kind == ACCEPT else \
            "you ran from the mão de onze"
    if state.pending is not None:
        offer = _raise_word(state.pending)
        return {ACCEPT: f"you accepted a {offer}", RUN: f"you ran from a {offer}",
                RAISE: f"you raised a {offer} to {_raise_word(next_value(state.pending))}",
                SURRENDER: f"you surrendered to a {offer}"}[action.kind]
    if action.kind == RAISE:
        return "you called truco" if state.value == 1 else \
            f"you raised to {_raise_word(next_value(state.value))}"
    if action.kind == SURRENDER:
        return "you surrendered the hand"
    if action.kind == COVER:
        return f"you covered {action.card}"
    if not state.table:
        return f"you led {action.card}"
    shown = state.table[0]
    theirs = "a covered card" if shown.covered else str(shown.card)
    return f"you answered {theirs} with {action.card}"


def solver_words(decision: Decision) -> str:
    advice = decision.advice
    tokens = [str(a) for a in advice.legal]
    names = move_names(tokens, decision.position)
    if advice.on_path:
        shown = sorted((i for i, p in enumerate(advice.strategy) if p >= SHOWN),
                       key=lambda i: -advice.strategy[i])
        return "the solver: " + ", ".join(f"{names[tokens[i]]} {percent(advice.strategy[i])}"
                                          for i in shown)
    return f"off the solved path, best against the solver: {names[tokens[advice.best]]}"


def decision_text(decision: Decision) -> str:
    """``hand 12, at 10-9 (mão), vira 4c, holding 5c 3h Kd: you ran from a truco; the
    solver: accept 80%, run 20%; lost 0.31 points``."""
    position = decision.position
    held = position.state.hands[decision.seat]
    holding = " ".join(map(str, held))
    if len(held) != len(position.hand):
        dealt = " ".join(map(str, position.hand))
        holding = f"{holding} (dealt {dealt})" if held else f"nothing (dealt {dealt})"
    seat = SEAT_WORDS[SEAT_NAMES[decision.seat]]
    mark = f" ({decision.mark})" if decision.mark else ""
    return (f"hand {decision.hand}, at {decision.score[0]}-{decision.score[1]} ({seat}), "
            f"vira {decision.vira}, holding {holding}: {move_words(decision)}; "
            f"{solver_words(decision)}; lost {loss_text(decision.loss, decision.unit)}{mark}")


def _loss_words(loss, units) -> str:
    if isinstance(loss, dict):
        return ", ".join(loss_text(v, u) for u, v in loss.items())
    return loss_text(loss, units[0]) if units else "0"


def review_text(result: Review, top: int = TOP) -> str:
    """The review in words: the summary, by kind and zone, the costliest decisions."""
    s = summary(result)
    units = units_of(result.decisions)
    lines = [f"Review of {result.player}: {result.hands} hand{'s' * (result.hands != 1)}, "
             f"{s['decisions']} decisions graded"
             + (f" ({s['skipped']} skipped)" if s["skipped"] else "") + "."]
    if not result.decisions:
        return "\n".join(lines)
    lines.append(f"Lost against the solver: {_loss_words(s['loss_total'], units)} in all; "
                 f"{_loss_words(s['loss_per_hand'], units)} per hand. "
                 f"{s['marks']['blunder']} blunders, {s['marks']['mistake']} mistakes.")
    lines.append("By kind:")
    for kind, row in s["by_kind"].items():
        lines.append(f"  {KIND_WORDS[kind]:<26}{row['decisions']:>5} decisions, lost "
                     f"{_loss_words(row['loss'], units)}")
    lines.append("By score:")
    for zone, row in s["by_zone"].items():
        lines.append(f"  {ZONE_WORDS[zone]:<26}{row['decisions']:>5} decisions, lost "
                     f"{_loss_words(row['loss'], units)}")
    worst = costliest(result.decisions, top)
    if worst:
        lines.append("Costliest decisions:")
        lines += [f"  {decision_text(d)}" for d in worst]
    if result.skipped:
        first = result.skipped[0]
        lines.append(f"Skipped {len(result.skipped)} decision(s) the solved game cannot grade, "
                     f"e.g. hand {first.hand}, {first.token}: {first.reason}.")
    return "\n".join(lines)


# ---------------------------------------------------------------- a frame


PER_ROW = "the row's unit column"


def review_frame(decisions) -> "pandas.DataFrame":
    """One row per decision: where (``hand``, ``match``, ``hand_in_match``, ``seat``,
    ``score_mao``, ``score_pe``, ``zone``, ``vira``, ``cards``), what (``kind``,
    ``action``, ``p_action``: the solver's probability of it, ``best``: the move of
    highest value), the numbers (``mix``, ``taken``, ``loss``, ``exploitability``, in the
    row's ``unit``), ``model``, ``on_path``, ``mark``, and the advice's ``strategy`` and
    ``ev`` ({token: number}). ``attrs["units"]``: each number column's unit;
    ``attrs["unit"]``: the units present."""
    import pandas as pd

    rows = []
    for d in decisions:
        advice = d.advice
        tokens = [str(a) for a in advice.legal]
        rows.append({
            "hand": d.hand, "match": d.match, "hand_in_match": d.hand_in_match,
            "seat": SEAT_NAMES[d.seat], "score_mao": d.score[0], "score_pe": d.score[1],
            "zone": d.zone, "vira": str(d.vira), "cards": " ".join(map(str, d.position.hand)),
            "kind": d.kind, "action": d.token,
            "p_action": float(advice.strategy[tokens.index(d.token)]),
            "best": tokens[advice.best], "mix": d.mix, "taken": d.taken, "loss": d.loss,
            "unit": d.unit, "exploitability": advice.exploitability, "model": advice.model,
            "on_path": advice.on_path, "mark": d.mark,
            "strategy": dict(zip(tokens, advice.strategy)), "ev": dict(zip(tokens, advice.ev)),
        })
    columns = ["hand", "match", "hand_in_match", "seat", "score_mao", "score_pe", "zone",
               "vira", "cards", "kind", "action", "p_action", "best", "mix", "taken", "loss",
               "unit", "exploitability", "model", "on_path", "mark", "strategy", "ev"]
    frame = pd.DataFrame(rows, columns=columns)
    frame.attrs["units"] = {"hand": "hand", "hand_in_match": "hand", "score_mao": "points",
                            "score_pe": "points", "p_action": "probability", "mix": PER_ROW,
                            "taken": PER_ROW, "loss": PER_ROW, "exploitability": PER_ROW}
    frame.attrs["unit"] = units_of(decisions)
    return frame


__all__ = ["Decision", "Review", "Skipped", "KINDS", "ZONES", "THRESHOLDS", "review",
           "review_records", "review_frame", "review_json", "review_text", "summary",
           "decision_text", "costliest"]
