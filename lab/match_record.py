"""Match records: played matches in a file, one hand per JSON line (``docs/match_records.md``).

A record file (``.jsonl``) holds the hands of one or more matches, each hand on its own
line, every line carrying the format's version (:data:`FORMAT`). A hand says under which
rules it was played, the vira, who sat mão and pé, the score before it, the cards each seat
held (``null`` for a seat whose cards are unknown: at least one seat's are known), every
action in ``lab replay``'s tokens, and what it gave (``result``).

Reading checks everything a hand claims by replaying it with :mod:`lab.rules` under its
rules (:func:`replay_record`); the cards of an unknown seat are stand-ins, as
:func:`lab.advice.build_position` builds them for the opponent, replaced by the real card
each time that seat plays one face up. Consecutive hands of a match are checked against
each other (numbered in order, the players swap seats, each hand starts from the score the
one before it left). Anything wrong is one :class:`lab.errors.InputError` line,
``FILE:LINE: problem``, never a traceback.

Writers: :func:`write_records` (the whole file, written atomically) and
:func:`append_record` (one hand added at the end); both refuse a record that would not
read back.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Optional

from .cards import DECK, Card, CardError, check_distinct, parse_card
from .errors import InputError
from .rules import (COVER, ELEVEN, MAO, PE, PLAY, PRESETS, RULE_CHOICES, SEAT_NAMES,
                    Action, HandState, RuleSet, check_score, new_hand, parse_action, rule_set)
from .store import write_atomic

FORMAT_NAME = "truco-lab/match-record"
MAJOR, MINOR = 1, 0
FORMAT = f"{FORMAT_NAME}/{MAJOR}"
"""The version string every line carries under ``format``; a reader takes any minor
version of its major (``truco-lab/match-record/1`` or ``.../1.N``) and refuses another
major."""

_FORMAT_RE = re.compile(r"^truco-lab/match-record/(\d{1,6})(?:\.(\d{1,6}))?$")

FIELDS = ("format", "match", "hand", "rules", "vira", "players", "score", "cards", "actions",
          "result")
"""The keys of a line, in the order they are written; ``result`` is optional."""

REQUIRED = FIELDS[:-1]

MAX_NAME = 200
"""The longest match id or player name, in characters."""

MAX_ACTIONS = 64
"""More actions than any hand can hold (6 cards, a ladder of 4 raises and their answers)."""


def _seat_key(seat: int) -> str:
    return SEAT_NAMES[seat]


def action_token(action: Action) -> str:
    """The ``lab replay`` token of ``action``; a cover whose card is unknown is ``cover``."""
    if action.kind == COVER and action.card is None:
        return "cover"
    return str(action)


def rules_json(rules: RuleSet) -> dict:
    """``{"preset": NAME, "changes": {...}}``: the preset the rules are, else ``paulista``
    with every rule that differs from it."""
    if rules.name != "custom":
        return {"preset": rules.name, "changes": {}}
    base = PRESETS["paulista"].items()
    return {"preset": "paulista",
            "changes": {k: v for k, v in rules.items().items() if v != base[k]}}


@dataclass(frozen=True)
class HandRecord:
    """One hand of a played match.

    ``match``: the match's id in its file; ``hand``: its number in the match (1-based);
    ``rules``: the :class:`RuleSet` it was played under; ``players``: (mão's name, pé's
    name), two different names; ``score``: (mão's, pé's) points before the hand; ``cards``:
    (mão's three cards, pé's three cards), None for a seat whose cards are unknown;
    ``actions``: every action in order (a cover by a seat whose cards are unknown is
    ``Action("cover")``, without its card); ``result``: (winning seat, or None for a hand
    that scored nothing; points), or None when not recorded.
    """

    match: str
    hand: int
    rules: RuleSet
    vira: Card
    players: tuple[str, str]
    score: tuple[int, int]
    cards: tuple[Optional[tuple[Card, ...]], Optional[tuple[Card, ...]]]
    actions: tuple[Action, ...]
    result: Optional[tuple[Optional[int], int]] = None

    @classmethod
    def of_hand(cls, match: str, hand: int, players, cards, state: HandState) -> "HandRecord":
        """The record of a finished ``state`` dealt ``cards`` ((mão's, pé's); None where
        unknown), its actions from the state's history and its result."""
        if not state.over:
            raise InputError("the hand is not over; only a finished hand is recorded")
        cards = tuple(None if c is None else tuple(c) for c in cards)
        actions = tuple(state.history)
        if None in cards:  # a cover by a seat whose cards are unknown loses its card
            dealt = [tuple(p.card for p in state.plays if p.seat == s) + state.hands[s]
                     for s in (MAO, PE)]
            again = new_hand(state.vira, dealt[MAO], dealt[PE], state.score, state.rules)
            hidden = []
            for action in actions:
                seat = again.to_act
                again = again.apply(action)
                hidden.append(Action(COVER) if action.kind == COVER and cards[seat] is None
                              else action)
            actions = tuple(hidden)
        return cls(match=match, hand=hand, rules=state.rules, vira=state.vira,
                   players=(players[0], players[1]), score=(state.score[0], state.score[1]),
                   cards=(cards[0], cards[1]), actions=actions,
                   result=(state.winner, state.points))

    def to_dict(self) -> dict:
        """The line's JSON object, keys in :data:`FIELDS` order."""
        obj = {
            "format": FORMAT,
            "match": self.match,
            "hand": self.hand,
            "rules": rules_json(self.rules),
            "vira": str(self.vira),
            "players": {"mao": self.players[MAO], "pe": self.players[PE]},
            "score": [self.score[MAO], self.score[PE]],
            "cards": {_seat_key(s): None if self.cards[s] is None else
                      [str(c) for c in self.cards[s]] for s in (MAO, PE)},
            "actions": [action_token(a) for a in self.actions],
        }
        if self.result is not None:
            winner, points = self.result
            obj["result"] = {"winner": None if winner is None else SEAT_NAMES[winner],
                             "points": points}
        return obj

    def to_json(self) -> str:
        """The record as one line of JSON (no newline)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, allow_nan=False)

    @classmethod
    def from_dict(cls, obj) -> "HandRecord":
        """Read and check a line's JSON object (its hand replayed: :func:`replay_record`);
        InputError with the problem otherwise."""
        record = _parse(obj)
        replay_record(record)
        return record

    @classmethod
    def from_json(cls, text: str) -> "HandRecord":
        """Read and check one line (:meth:`from_dict`)."""
        return cls.from_dict(_load_json(text))


# ---------------------------------------------------------------- reading one line


def _no_constant(name):
    raise InputError(f"not JSON: {name} is not a number JSON allows")


def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise InputError(f"key {key!r} appears twice")
        obj[key] = value
    return obj


def _load_json(text) -> dict:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text") from None
    try:
        obj = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise InputError("not JSON (nested too deeply)") from None
    return obj


def _short(value) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _integer(value, what: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{what} {_short(value)}: write a whole number")
    if value < low:
        raise InputError(f"{what} {value}: must be at least {low}")
    return value


def _name(value, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{what} {_short(value)}: write a non-empty string")
    if len(value) > MAX_NAME:
        raise InputError(f"{what} {_short(value)}: at most {MAX_NAME} characters")
    return value


def _object(value, what: str, keys: tuple) -> dict:
    if not isinstance(value, dict):
        raise InputError(f"{what} {_short(value)}: write an object with keys "
                         f"{', '.join(keys)}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise InputError(f"{what}: missing key {missing[0]!r}")
    extra = [k for k in value if k not in keys]
    if extra:
        raise InputError(f"{what}: unknown key {extra[0]!r} (the keys are {', '.join(keys)})")
    return value


def _card(value, what: str) -> Card:
    try:
        return parse_card(value)
    except CardError as exc:
        raise InputError(f"{what}: {exc}") from None


def _check_format(obj: dict) -> bool:
    """Whether the line is of a later minor version than this reader's (its unknown keys
    are then ignored); InputError for a missing or unknown format."""
    if "format" not in obj:
        raise InputError(f"missing field 'format' (this reader reads {FORMAT})")
    value = obj["format"]
    match = _FORMAT_RE.match(value) if isinstance(value, str) else None
    if match is None:
        raise InputError(f"format {_short(value)}: not a match record (this reader reads "
                         f"{FORMAT})")
    major, minor = int(match.group(1)), int(match.group(2) or 0)
    if major != MAJOR:
        raise InputError(f"format {value!r}: major version {major} is unknown to this reader "
                         f"(it reads {FORMAT}); use a lab that reads it")
    return minor > MINOR


def _parse(obj) -> HandRecord:
    """A HandRecord from a line's JSON object, every field checked (not yet replayed)."""
    if not isinstance(obj, dict):
        raise InputError(f"a line is one JSON object, not {type(obj).__name__}")
    later_minor = _check_format(obj)
    for key in REQUIRED:
        if key not in obj:
            raise InputError(f"missing field {key!r}")
    if not later_minor:
        extra = [k for k in obj if k not in FIELDS]
        if extra:
            raise InputError(f"unknown field {extra[0]!r} (the fields are "
                             f"{', '.join(FIELDS)})")
    match = _name(obj["match"], "match")
    hand = _integer(obj["hand"], "hand", 1)

    rules_obj = _object(obj["rules"], "rules", ("preset", "changes"))
    preset = rules_obj["preset"]
    if not isinstance(preset, str) or preset not in PRESETS:
        raise InputError(f"rules.preset {_short(preset)}: unknown rule set (choose one of "
                         f"{', '.join(PRESETS)})")
    changes = rules_obj["changes"]
    if not isinstance(changes, dict):
        raise InputError(f"rules.changes {_short(changes)}: write an object of RULE: VALUE")
    for key, value in changes.items():
        if key not in RULE_CHOICES:
            raise InputError(f"rules.changes: unknown rule {key!r} (the rules are "
                             f"{', '.join(RULE_CHOICES)})")
        if value not in RULE_CHOICES[key]:
            raise InputError(f"rules.changes: {key} {_short(value)}: choose one of "
                             f"{', '.join(RULE_CHOICES[key])}")
    rules = rule_set(preset, [f"{k}={v}" for k, v in changes.items()])

    vira = _card(obj["vira"], "vira")
    players_obj = _object(obj["players"], "players", ("mao", "pe"))
    players = (_name(players_obj["mao"], "players.mao"), _name(players_obj["pe"], "players.pe"))
    if players[MAO] == players[PE]:
        raise InputError(f"players: both seats are named {players[MAO]!r}; a record names "
                         "two different players (a bot against itself: NAME-a, NAME-b)")

    score = obj["score"]
    if not isinstance(score, list) or len(score) != 2:
        raise InputError(f"score {_short(score)}: write [mão's points, pé's points]")
    score = (_integer(score[0], "score"), _integer(score[1], "score"))
    try:
        check_score(score)
    except InputError as exc:
        raise InputError(f"score {exc}") from None

    cards_obj = _object(obj["cards"], "cards", ("mao", "pe"))
    cards = []
    for seat in (MAO, PE):
        what = f"cards.{_seat_key(seat)}"
        held = cards_obj[_seat_key(seat)]
        if held is None:
            cards.append(None)
            continue
        if not isinstance(held, list) or len(held) != 3:
            raise InputError(f"{what} {_short(held)}: write three cards such as "
                             "[\"Ah\", \"3c\", \"4d\"], or null when unknown")
        cards.append(tuple(_card(c, what) for c in held))
    if cards[MAO] is None and cards[PE] is None:
        raise InputError("cards: both seats' cards are unknown; a record knows at least one "
                         "seat's")
    known = [c for held in cards if held is not None for c in held]
    if vira in known:
        raise InputError(f"cards: {vira} is the vira; it cannot be in a hand")
    try:
        check_distinct(known)
    except CardError as exc:
        raise InputError(f"cards: {exc}") from None

    actions_obj = obj["actions"]
    if not isinstance(actions_obj, list):
        raise InputError(f"actions {_short(actions_obj)}: write a list of tokens")
    if len(actions_obj) > MAX_ACTIONS:
        raise InputError(f"actions: {len(actions_obj)} of them; no hand has more than "
                         f"{MAX_ACTIONS}")
    actions = []
    for n, token in enumerate(actions_obj, 1):
        if not isinstance(token, str):
            raise InputError(f"action {n} {_short(token)}: write a token (CARD, cover:CARD, "
                             "cover, raise, accept, run, surrender)")
        if token.strip().lower() == "cover":
            actions.append(Action(COVER))
            continue
        try:
            actions.append(parse_action(token))
        except CardError as exc:
            raise InputError(f"action {n}: {exc}") from None

    result = None
    if obj.get("result") is not None:
        result_obj = _object(obj["result"], "result", ("winner", "points"))
        winner = result_obj["winner"]
        if winner not in (None, "mao", "pe"):
            raise InputError(f"result.winner {_short(winner)}: write \"mao\", \"pe\" or null")
        points = _integer(result_obj["points"], "result.points")
        result = (None if winner is None else SEAT_NAMES.index(winner), points)
    return HandRecord(match, hand, rules, vira, players, score, (cards[0], cards[1]),
                      tuple(actions), result)


# ---------------------------------------------------------------- replaying a hand


def replay_record(record: HandRecord) -> HandState:
    """The hand replayed under its rules to its end: the final :class:`HandState` (the
    cards of a seat whose cards are unknown are stand-ins, each replaced by the real card
    as that seat plays it face up). InputError, with ``lab replay``'s message for an illegal
    action, when the actions break the rules, stop before the hand is over, or give another
    result than the one recorded."""
    vira, cards = record.vira, record.cards
    known = [c for held in cards if held is not None for c in held]
    named = {a.card for a in record.actions if a.card is not None}
    stand_ins = iter(c for c in DECK if c != vira and c not in known and c not in named)
    hands = [held if held is not None else tuple(next(stand_ins) for _ in range(3))
             for held in cards]
    state = new_hand(vira, hands[MAO], hands[PE], record.score, record.rules)
    shown: set = set()
    for n, action in enumerate(record.actions, 1):
        what = f"action {n}"
        seat = state.to_act
        if seat is None:
            raise InputError(f"{what} ({action_token(action)}): the hand is already over "
                             f"after action {n - 1}")
        who = SEAT_NAMES[seat]
        unknown = cards[seat] is None
        if action.kind == COVER and action.card is None:
            if not unknown:
                raise InputError(f"{what} (cover): the {who}'s cards are known; name the card "
                                 "it covers (cover:CARD)")
            if state.hands[seat]:
                action = Action(COVER, state.hands[seat][0])  # a stand-in for the rules
        elif unknown and action.kind in (PLAY, COVER) and state.pending is None:
            state = _show(state, seat, action.card, record, shown, what)
        reason = state.why_illegal(action)
        if reason is not None:  # lab replay's message, with the record's token
            raise InputError(f"{what}: {action_token(record.actions[n - 1])}: {reason}")
        state = state.apply(action)
    if not state.over:
        legal = " ".join(action_token(a) for a in state.legal_actions())
        raise InputError(f"the actions stop before the hand is over (the "
                         f"{SEAT_NAMES[state.to_act]} is to act: {legal})")
    if record.result is not None:
        winner, points = record.result
        if (winner, points) != (state.winner, state.points):
            def said(w, p):
                return f"{'nobody' if w is None else 'the ' + SEAT_NAMES[w]} scores {p}"
            raise InputError(f"result: the record says {said(winner, points)}; the actions "
                             f"give: {said(state.winner, state.points)} ({state.how})")
    return state


def _show(state: HandState, seat: int, card: Card, record: HandRecord, shown: set,
          what: str) -> HandState:
    """Put ``card`` in the hand of ``seat`` (whose cards are unknown) before it plays it."""
    who = SEAT_NAMES[seat]
    if state.kind == ELEVEN and not state.eleven_decided:
        return state  # the rules refuse the play; keep their reason
    if card == record.vira:
        raise InputError(f"{what} ({card}): {card} is the vira; the {who} cannot hold it")
    owner = record.cards[1 - seat]
    if owner is not None and card in owner:
        raise InputError(f"{what} ({card}): {card} is in the {SEAT_NAMES[1 - seat]}'s hand; "
                         f"the {who} cannot hold it")
    if card in shown:
        raise InputError(f"{what} ({card}): the {who} already played {card}")
    held = list(state.hands[seat])
    if not held:
        return state
    shown.add(card)
    held[0] = card
    hands = list(state.hands)
    hands[seat] = tuple(held)
    return replace(state, hands=(hands[0], hands[1]))


# ---------------------------------------------------------------- many hands


def _check_follows(previous: Optional[tuple[HandRecord, HandState]], record: HandRecord,
                   finished: set) -> None:
    """InputError unless ``record`` may follow ``previous`` (the line before it and its
    replay) in a file; ``finished`` holds the ids of the matches already left behind."""
    if previous is not None and previous[0].match == record.match:
        before, state = previous
        if record.hand != before.hand + 1:
            raise InputError(f"hand {record.hand} of match {record.match!r} follows its hand "
                             f"{before.hand}; a match's hands are numbered in order")
        if record.rules != before.rules:
            raise InputError(f"rules: match {record.match!r} changes its rules from hand "
                             f"{before.hand} to {record.hand}")
        if record.players != (before.players[PE], before.players[MAO]):
            raise InputError(f"players: in hand {before.hand} the mão was "
                             f"{before.players[MAO]!r} and the pé {before.players[PE]!r}; "
                             "the next hand swaps them")
        expected = (state.final_score[PE], state.final_score[MAO])
        if record.score != expected:
            raise InputError(f"score {record.score[MAO]},{record.score[PE]}: hand "
                             f"{before.hand} left the score at {expected[0]},{expected[1]} "
                             "(mão, pé of this hand)")
        return
    if previous is not None:
        finished.add(previous[0].match)
    if record.match in finished:
        raise InputError(f"match {record.match!r} appears again after other lines; a "
                         "match's hands are written together")


def records_from_lines(lines: Iterable, source: str = "<records>") -> list[HandRecord]:
    """Read the lines of a record file (str or bytes, with or without their newline; blank
    lines are skipped); InputError ``SOURCE:LINE: problem`` at the first bad one."""
    records: list[HandRecord] = []
    previous, finished = None, set()
    for number, line in enumerate(lines, 1):
        try:
            if isinstance(line, bytes):
                try:
                    line = line.decode("utf-8")
                except UnicodeDecodeError:
                    raise InputError("not UTF-8 text") from None
            if not line.strip():
                continue
            record = _parse(_load_json(line))
            state = replay_record(record)
            _check_follows(previous, record, finished)
        except InputError as exc:
            raise InputError(f"{source}:{number}: {exc}") from None
        records.append(record)
        previous = (record, state)
    return records


def read_records(path) -> list[HandRecord]:
    """Every hand of the record file at ``path``, checked (:func:`records_from_lines`);
    InputError ``PATH:LINE: problem``, or ``PATH: problem`` when it cannot be read."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror or type(exc).__name__})") \
            from None
    return records_from_lines(data.split(b"\n"), str(path))


def _lines(records) -> str:
    records = list(records)
    for k, record in enumerate(records, 1):
        if not isinstance(record, HandRecord):
            raise InputError(f"record {k}: {type(record).__name__} is not a HandRecord")
    text = "".join(r.to_json() + "\n" for r in records)
    records_from_lines(text.split("\n"), "record")   # what is written reads back
    return text


def write_records(path, records: Iterable[HandRecord]) -> None:
    """Write ``records`` to ``path`` (the whole file, atomically: the old bytes or the
    new ones); InputError, before anything is written, for a record that would not read
    back."""
    write_atomic(Path(path), _lines(records))


def append_record(path, record: HandRecord) -> None:
    """Add ``record`` as the last line of ``path`` (created if missing), flushed to disk;
    InputError for a record that does not read back on its own, or a file whose last line
    was cut short (it would be glued to the new one)."""
    line = _lines([record]).encode()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            raise InputError(f"{path}: its last line is cut short (no newline at its end); "
                             "repair or remove it before adding a hand")
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)
