"""The hand and match engine: the executable form of ``docs/rules.md``.

Plain, readable Python; every fast path in the lab is checked against it.

Seats in a hand are ``MAO`` (0, the non-dealer, leads round 1) and ``PE`` (1).
A :class:`HandState` is immutable: :meth:`HandState.apply` returns a new state
and raises :class:`IllegalAction` (naming the action and the rule) for any
action not in :meth:`HandState.legal_actions`. Points are match points (tentos).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

from .cards import Card, CardError, check_distinct, level, parse_card
from .errors import InputError

MAO, PE = 0, 1
SEAT_NAMES = ("mao", "pe")
NOBODY = "nobody"
"""The winner of a hand that scores nothing (three tied rounds, where the rules say so)."""
LADDER = (1, 3, 6, 9, 12)
"""Hand values: starts at 1; truco offers 3; then 6, 9, 12."""
TARGET = 12
"""Points that win the match; the score stops there."""
ELEVEN_VALUE = 3
"""Value of a hand at mão de onze (accepted), and at 11 x 11 under the default rules."""

NORMAL, ELEVEN, ELEVEN_ELEVEN = "normal", "mao_de_onze", "eleven_eleven"


# ---------------------------------------------------------------- rule sets

SEED = "000_7669bc4c9b2f417f"
"""The seed text that ``docs/rules.md`` follows: the default rules."""

RULE_CHOICES = {
    "three_ties": ("mao", "nobody", "pe"),
    "eleven_eleven": ("three", "one", "blind"),
    "eleven_tie_gives_three": ("no", "yes"),
    "surrender": ("any_turn", "answer_only"),
}
"""Every rule a table may change, with its spellings (the first is the default's)."""


@dataclass(frozen=True)
class RuleSet:
    """The rules a hand and a match are played under; the default is seed ``000`` (see
    ``docs/rules.md``, section "House rules", for what each choice means).

    - ``three_ties``: who takes a hand whose three rounds are all tied: ``mao``,
      ``nobody`` (the hand scores nothing) or ``pe``;
    - ``eleven_eleven``: the hand at 11 x 11 is worth 3 (``three``) or 1 (``one``) with
      the cards seen, or 3 played ``blind`` (nobody sees his own cards, so nobody covers);
    - ``eleven_tie_gives_three``: ``yes`` when a mão de onze whose three rounds tie gives
      3 points to the side not on 11;
    - ``surrender``: give up the hand on any of one's turns (``any_turn``) or only as the
      answer to a raise (``answer_only``).
    """

    three_ties: str = "mao"
    eleven_eleven: str = "three"
    eleven_tie_gives_three: str = "no"
    surrender: str = "any_turn"

    def __post_init__(self):
        for key, choices in RULE_CHOICES.items():
            if getattr(self, key) not in choices:
                raise InputError(f"rule {key}={getattr(self, key)}: choose one of "
                                 f"{', '.join(choices)}")

    def items(self) -> dict:
        """``{key: value}`` in the ``--rule KEY=VALUE`` spelling."""
        return {key: getattr(self, key) for key in RULE_CHOICES}

    @property
    def name(self) -> str:
        """The preset these rules are, or ``custom``."""
        return next((n for n, r in PRESETS.items() if r == self), "custom")

    @property
    def version(self) -> str:
        """What the rules are, for manifests: the seed, then each rule that differs
        from it (``000_7669bc4c9b2f417f`` for the default itself)."""
        default = RuleSet().items()
        changed = [f"{k}={v}" for k, v in self.items().items() if v != default[k]]
        return SEED + ("" if not changed else "+" + ",".join(changed))

    @property
    def eleven_eleven_value(self) -> int:
        """Points of the hand at 11 x 11."""
        return 1 if self.eleven_eleven == "one" else ELEVEN_VALUE

    def three_ties_winner(self, kind: str, holder: Optional[int]):
        """Who takes a hand of this kind whose three rounds all tied: a seat or NOBODY."""
        if kind == ELEVEN and self.eleven_tie_gives_three == "yes":
            return other(holder)
        return {"mao": MAO, "pe": PE, "nobody": NOBODY}[self.three_ties]

    @property
    def tied_hand_winner(self):
        """Who takes a normal hand whose three rounds all tied: a seat or NOBODY (the card
        games' ``three_ties``)."""
        return self.three_ties_winner(NORMAL, None)


PRESETS = {
    "paulista": RuleSet(),
    "buteco": RuleSet(three_ties="nobody", eleven_eleven="one"),
    "fpt": RuleSet(eleven_tie_gives_three="yes"),
}
"""Named rule sets: ``paulista`` is seed ``000_7669bc4c9b2f417f`` (the default);
``buteco`` the site's rules of seeds ``001_28521f8d0982197f`` and ``004_c7ade5efb87e5e4a``
(three tied rounds score nothing, 11 x 11 is worth 1); ``fpt`` the default with the
Federação Paulista de Truco's rule quoted in seed ``003_5ef704abf4ee64f4`` (a mão de onze
tied three times gives the side not on 11 three points)."""

DEFAULT_RULES = PRESETS["paulista"]

RULES_VERSION = DEFAULT_RULES.version
"""The rules every stored table of the lab is exact for (seed ``000``); recorded in every
table's manifest."""


def rule_set(name: str = "paulista", rules=()) -> RuleSet:
    """The preset ``name`` with each ``KEY=VALUE`` of ``rules`` applied after it;
    InputError (one line) for an unknown preset, key or value, a malformed item, or the
    same key given two different values."""
    if name not in PRESETS:
        raise InputError(f"--rules {name!r}: unknown rule set; choose one of "
                         f"{', '.join(PRESETS)}")
    chosen: dict = {}
    for item in rules:
        key, sep, value = str(item).partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise InputError(f"--rule {item!r}: write KEY=VALUE (keys: "
                             f"{', '.join(RULE_CHOICES)})")
        if key not in RULE_CHOICES:
            raise InputError(f"--rule {item!r}: unknown rule {key!r}; the rules are "
                             f"{', '.join(RULE_CHOICES)}")
        if value not in RULE_CHOICES[key]:
            raise InputError(f"--rule {item!r}: {key} is one of "
                             f"{', '.join(RULE_CHOICES[key])}")
        if chosen.get(key, value) != value:
            raise InputError(f"--rule {key}: given both {chosen[key]} and {value}; "
                             "choose one")
        chosen[key] = value
    return replace(PRESETS[name], **chosen)


class IllegalAction(InputError):
    """An action the rules forbid at this point; the message names it and the rule."""


def other(seat: int) -> int:
    return 1 - seat


def next_value(value: int) -> int:
    """The next step of the ladder above ``value`` (1 -> 3 -> 6 -> 9 -> 12)."""
    return LADDER[LADDER.index(value) + 1]


# ---------------------------------------------------------------- actions

PLAY, COVER, RAISE, ACCEPT, RUN, SURRENDER = "play", "cover", "raise", "accept", "run", "surrender"


@dataclass(frozen=True)
class Action:
    """A move: ``play``/``cover`` a card, or ``raise``, ``accept``, ``run``, ``surrender``."""

    kind: str
    card: Optional[Card] = None

    def __str__(self) -> str:
        if self.kind == PLAY:
            return str(self.card)
        if self.kind == COVER:
            return f"cover:{self.card}"
        return self.kind


def parse_action(token: str) -> Action:
    """Read an action token: ``4c``, ``cover:4c``, ``raise`` (or ``truco``), ``accept``,
    ``run``, ``surrender``. Raises CardError for an unreadable card or token."""
    text = token.strip()
    low = text.lower()
    if low in ("raise", "truco"):
        return Action(RAISE)
    if low in (ACCEPT, RUN, SURRENDER):
        return Action(low)
    if low.startswith("cover:"):
        return Action(COVER, parse_card(text[len("cover:"):]))
    try:
        return Action(PLAY, parse_card(text))
    except CardError:
        raise CardError(
            f"{token!r}: unknown action (a card such as 4c, cover:CARD, raise, truco, "
            "accept, run or surrender)"
        ) from None


# ---------------------------------------------------------------- the hand


@dataclass(frozen=True)
class Play:
    """One card put on the table: by ``seat``, face down when ``covered``."""

    seat: int
    card: Card
    covered: bool = False


def round_winner(first: Play, second: Play, vira: Card) -> Optional[int]:
    """Seat winning a round, or None for a tie. Covered loses to open; two covered tie."""
    if first.covered and second.covered:
        return None
    if first.covered:
        return second.seat
    if second.covered:
        return first.seat
    a, b = level(first.card, vira), level(second.card, vira)
    if a == b:
        return None
    return first.seat if a > b else second.seat


def hand_winner(rounds: tuple[Optional[int], ...], three_ties=MAO):
    """Winner decided by the round results so far (None = tie), or None if undecided.

    Two wins take the hand; one win plus one tie (either order) ends it for the
    win; 1-1 with round 3 tied goes to the first non-tied round's winner; three
    ties go to ``three_ties`` (the mão by default; a seat, or NOBODY for a hand that
    scores nothing: see :meth:`RuleSet.three_ties_winner`).
    """
    wins = [r for r in rounds if r is not None]
    for seat in (MAO, PE):
        if wins.count(seat) >= 2:
            return seat
    if len(rounds) >= 2 and len(wins) == 1 and rounds[:2].count(None) == 1:
        return wins[0]  # a win and a tie in the first two rounds
    if len(rounds) == 3:
        return wins[0] if wins else three_ties
    return None


@dataclass(frozen=True)
class HandState:
    """One hand, from the deal to its end. Build it with :func:`new_hand`.

    ``score`` is (mão's points, pé's points) before the hand. ``value`` is the
    accepted value of the hand in points; ``pending`` the value offered by an
    unanswered raise by ``raiser``. When the hand is over, ``winner`` is the seat that
    scores ``points`` (None for a hand that scores nothing, under rules where three tied
    rounds do that). ``rules``: the :class:`RuleSet` it is played under.
    """

    vira: Card
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    score: tuple[int, int] = (0, 0)
    kind: str = NORMAL
    eleven_holder: Optional[int] = None
    eleven_decided: bool = False
    value: int = 1
    pending: Optional[int] = None
    last_raiser: Optional[int] = None
    leader: int = MAO
    table: tuple[Play, ...] = ()
    rounds: tuple[Optional[int], ...] = ()
    plays: tuple[Play, ...] = ()
    winner: Optional[int] = None
    points: int = 0
    how: Optional[str] = None
    history: tuple[Action, ...] = field(default=(), compare=False)
    rules: RuleSet = DEFAULT_RULES

    # ---- derived facts

    @property
    def over(self) -> bool:
        return self.how is not None

    @property
    def raises_locked(self) -> bool:
        return self.kind != NORMAL

    @property
    def round_index(self) -> int:
        """0, 1 or 2: the round being played."""
        return len(self.rounds)

    @property
    def to_act(self) -> Optional[int]:
        """Seat that must act now, or None when the hand is over."""
        if self.over:
            return None
        if self.kind == ELEVEN and not self.eleven_decided:
            return self.eleven_holder
        if self.pending is not None:
            return other(self.raiser)
        return self.leader if not self.table else other(self.leader)

    def net_points(self, seat: int) -> int:
        """Points ``seat`` scored in the (ended) hand less what the other seat scored: 0
        when nobody scored."""
        if self.winner is None:
            return 0
        return self.points if self.winner == seat else -self.points

    @property
    def raiser(self) -> Optional[int]:
        """Seat whose raise is waiting for an answer (None when nothing is pending)."""
        return self.last_raiser if self.pending is not None else None

    def can_raise(self, seat: int) -> bool:
        return not self.raises_locked and self.last_raiser != seat and self.value < TARGET and (
            self.pending is None or self.pending < TARGET
        )

    def legal_actions(self) -> list[Action]:
        """Every action the player to act may take, in a fixed order."""
        seat = self.to_act
        if seat is None:
            return []
        if self.kind == ELEVEN and not self.eleven_decided:
            return [Action(ACCEPT), Action(RUN)]
        if self.pending is not None:
            acts = [Action(ACCEPT), Action(RUN)]
            if self.can_raise(seat):
                acts.append(Action(RAISE))
            acts.append(Action(SURRENDER))
            return acts
        cards = self.hands[seat]
        acts = [Action(PLAY, c) for c in cards]
        if self.round_index >= 1 and not self.blind:
            acts += [Action(COVER, c) for c in cards]
        if self.can_raise(seat):
            acts.append(Action(RAISE))
        if self.rules.surrender == "any_turn":
            acts.append(Action(SURRENDER))
        return acts

    @property
    def blind(self) -> bool:
        """An 11 x 11 played blind: nobody sees his own cards, so nobody covers one."""
        return self.kind == ELEVEN_ELEVEN and self.rules.eleven_eleven == "blind"

    # ---- transitions

    def why_illegal(self, action: Action) -> Optional[str]:
        """The rule ``action`` breaks here, or None when it is legal."""
        seat = self.to_act
        if seat is None:
            return "the hand is over"
        who = SEAT_NAMES[seat]
        if self.kind == ELEVEN and not self.eleven_decided:
            if action.kind in (ACCEPT, RUN):
                return None
            return (f"at mão de onze the {SEAT_NAMES[self.eleven_holder]} (11 points) must "
                    "first accept or run")
        if action.kind in (PLAY, COVER):
            if self.pending is not None:
                return f"a raise to {self.pending} must be answered first (accept, run or raise)"
            if action.card not in self.hands[seat]:
                return f"not in the {who}'s hand"
            if action.kind == COVER and self.round_index == 0:
                return "a card may be covered only from round 2"
            if action.kind == COVER and self.blind:
                return "nobody covers at a blind 11 x 11 (nobody sees his own cards)"
            return None
        if action.kind == RAISE:
            if self.raises_locked:
                what = "mão de onze" if self.kind == ELEVEN else "11 x 11"
                return f"raises are locked at {what}"
            if self.last_raiser == seat:
                return f"the {who} made the last raise; raises alternate"
            if (self.pending or self.value) >= TARGET:
                return "12 is the top of the ladder; no raise above 12"
            return None
        if action.kind in (ACCEPT, RUN):
            if self.pending is None:
                return "there is no raise to answer"
            return None
        if action.kind == SURRENDER:
            if self.pending is None and self.rules.surrender == "answer_only":
                return "under these rules one gives up only as the answer to a raise"
            return None
        return "unknown action"

    def apply(self, action: Action) -> "HandState":
        """The state after ``action`` by the player to act; IllegalAction if forbidden."""
        reason = self.why_illegal(action)
        if reason is not None:
            raise IllegalAction(f"{action}: {reason}")
        seat = self.to_act
        hist = self.history + (action,)
        if self.kind == ELEVEN and not self.eleven_decided:
            if action.kind == ACCEPT:
                return replace(self, eleven_decided=True, history=hist)
            return self._end(other(seat), 1, "eleven_run", hist)
        if action.kind == SURRENDER:
            return self._end(other(seat), self.value, "surrender", hist)
        if action.kind == RUN:
            return self._end(other(seat), self.value, "run", hist)
        if action.kind == ACCEPT:
            return replace(self, value=self.pending, pending=None, history=hist)
        if action.kind == RAISE:
            if self.pending is not None:  # a re-raise accepts the pending value first
                return replace(self, value=self.pending, pending=next_value(self.pending),
                               last_raiser=seat, history=hist)
            return replace(self, pending=next_value(self.value), last_raiser=seat, history=hist)
        return self._play(seat, action, hist)

    def _play(self, seat: int, action: Action, hist) -> "HandState":
        play = Play(seat, action.card, action.kind == COVER)
        hands = list(self.hands)
        hands[seat] = tuple(c for c in hands[seat] if c != action.card)
        state = replace(self, hands=tuple(hands), table=self.table + (play,),
                        plays=self.plays + (play,), history=hist)
        if len(state.table) < 2:
            return state
        result = round_winner(state.table[0], state.table[1], self.vira)
        rounds = state.rounds + (result,)
        leader = self.leader if result is None else result
        state = replace(state, table=(), rounds=rounds, leader=leader)
        winner = hand_winner(rounds, self.rules.three_ties_winner(self.kind, self.eleven_holder))
        if winner == NOBODY:
            return state._end(None, 0, "cards", hist)
        if winner is not None:
            return state._end(winner, state.value, "cards", hist)
        return state

    def _end(self, winner: Optional[int], points: int, how: str, hist) -> "HandState":
        return replace(self, winner=winner, points=points, how=how, pending=None, history=hist)

    # ---- results

    @property
    def final_score(self) -> tuple[int, int]:
        """(mão, pé) points after the hand, capped at 12 (the score before while not over,
        or after a hand that scores nothing)."""
        if self.winner is None:
            return self.score
        s = list(self.score)
        s[self.winner] = min(TARGET, s[self.winner] + self.points)
        return (s[0], s[1])

    def round_names(self) -> list[str]:
        return ["tie" if r is None else SEAT_NAMES[r] for r in self.rounds]


def hand_kind(score: tuple[int, int]) -> tuple[str, Optional[int]]:
    """The kind of hand played at (mão, pé) ``score``, and the mão de onze holder."""
    a, b = score
    if a == b == TARGET - 1:
        return ELEVEN_ELEVEN, None
    if a == TARGET - 1:
        return ELEVEN, MAO
    if b == TARGET - 1:
        return ELEVEN, PE
    return NORMAL, None


def hand_results(score: tuple[int, int],
                 rules: RuleSet = DEFAULT_RULES) -> list[tuple[Optional[int], int, str]]:
    """Every way the hand at (mão, pé) ``score`` can end: (winner seat, points, how).

    A normal hand gives either seat 1, 3, 6, 9 or 12 (the value it reached, by the cards,
    a run from a raise or a surrender); a mão de onze gives either seat 3 when the holder
    plays it, or the holder's opponent 1 when the holder runs; 11 x 11 gives either seat 3
    (1 where the rules say so). Where three tied rounds score nothing, ``(None, 0,
    "nobody scores")`` too.
    """
    kind, holder = hand_kind(score)
    if kind == NORMAL:
        out = [(seat, value, "hand won") for seat in (MAO, PE) for value in LADDER]
    else:
        value = ELEVEN_VALUE if kind == ELEVEN else rules.eleven_eleven_value
        out = [(seat, value, "hand played") for seat in (MAO, PE)]
        if kind == ELEVEN:
            out.append((1 - holder, 1, "the holder runs"))
    if rules.three_ties_winner(kind, holder) == NOBODY:
        out.append((None, 0, "nobody scores"))
    return out


def check_score(score: tuple[int, int]) -> None:
    """Raise ValueError unless ``score`` is a score before a hand of an unfinished match."""
    a, b = score
    if min(a, b) < 0:
        raise InputError(f"{a},{b}: a score cannot be negative")
    if max(a, b) >= TARGET:
        raise InputError(f"{a},{b}: the match is over at {TARGET} points; no hand follows")


def parse_score(text: str) -> tuple[int, int]:
    """Read ``M,P`` (the mão's and the pé's points); ValueError unless it is two integers
    written in ASCII digits."""
    parts = [p.strip() for p in text.split(",")]
    try:
        if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
            raise ValueError  # int() would also read "1_0" and non-ASCII digits
        return int(parts[0]), int(parts[1])
    except ValueError:
        raise InputError(f"--score {text!r}: write the score as M,P (two integers)") from None


def new_hand(vira: Card, mao_cards, pe_cards, score: tuple[int, int] = (0, 0),
             rules: RuleSet = DEFAULT_RULES) -> HandState:
    """A fresh hand: 3 cards each, the vira, and the (mão, pé) score before it, played
    under ``rules``."""
    mao_cards, pe_cards = tuple(mao_cards), tuple(pe_cards)
    for name, cards in (("mao", mao_cards), ("pe", pe_cards)):
        if len(cards) != 3:
            raise CardError(f"the {name} must hold 3 cards, not {len(cards)}")
    if vira in mao_cards + pe_cards:
        raise CardError(f"{vira}: the vira is out of play; it cannot be in a hand")
    check_distinct((vira,) + mao_cards + pe_cards)
    check_score(score)
    kind, holder = hand_kind(score)
    value = {NORMAL: 1, ELEVEN: ELEVEN_VALUE, ELEVEN_ELEVEN: rules.eleven_eleven_value}[kind]
    return HandState(vira=vira, hands=(mao_cards, pe_cards), score=tuple(score), kind=kind,
                     eleven_holder=holder, value=value, rules=rules)


# ---------------------------------------------------------------- the match


@dataclass(frozen=True)
class MatchState:
    """A match between players 0 and 1: ``scores`` in points, ``mao`` = player who is
    mão in the next hand (it alternates), played under ``rules``."""

    scores: tuple[int, int] = (0, 0)
    mao: int = 0
    hands_played: int = 0
    rules: RuleSet = DEFAULT_RULES

    @property
    def over(self) -> bool:
        return max(self.scores) >= TARGET

    @property
    def winner(self) -> Optional[int]:
        if not self.over:
            return None
        return 0 if self.scores[0] >= TARGET else 1

    def hand_score(self) -> tuple[int, int]:
        """(mão's, pé's) points before the next hand."""
        return (self.scores[self.mao], self.scores[other(self.mao)])

    def deal(self, vira: Card, mao_cards, pe_cards) -> HandState:
        """The next hand with these cards (the mão's cards first)."""
        if self.over:
            raise ValueError("the match is over")
        return new_hand(vira, mao_cards, pe_cards, self.hand_score(), self.rules)

    def after(self, hand: HandState) -> "MatchState":
        """The match after a finished ``hand`` (the score unchanged after one that scores
        nothing); the mão passes to the other player."""
        if not hand.over:
            raise ValueError("the hand is not over")
        final = hand.final_score
        scores = [0, 0]
        scores[self.mao], scores[other(self.mao)] = final
        return MatchState((scores[0], scores[1]), other(self.mao), self.hands_played + 1,
                          self.rules)
