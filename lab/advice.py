"""Advice for one seat in one hand: the solver's strategy and each action's exact value.

A :class:`Position` is what one player knows at the table: the vira, his own three cards
as dealt, his seat, the score before the hand and the actions so far, the opponent's
cards as they were played (a card the opponent covered is only "a cover": its identity
is never needed). :func:`build_position` replays the actions with :mod:`lab.rules`, so
every illegal sequence and every clash of cards is refused the way ``lab replay``
refuses it.

:func:`advise` answers for that position with one of three objects:

- the hand is over: ``{"over": true, winner, points, score, rounds, how}`` as ``lab
  replay`` prints it;
- the other seat acts: ``{"to_act": ..., "waiting": true}``;
- the seat acts: ``{"to_act", "legal", "strategy", "ev", "on_path", "model", "unit",
  "exploitability"}`` (and at normal scores ``"points_play_leak"``, see below). ``legal``
  are the seat's moves in ``lab replay`` tokens;
  ``strategy`` the solver's probability of each; ``ev`` the exact expected value of
  each for this hand, when the seat plays a best response afterwards and the opponent
  plays the solved strategy, given everything public so far (the opponent's hands
  weighted by the deal and by his own reach under the solved strategy); ``on_path``
  whether the seat's own earlier actions are ones the solved strategy takes with this
  hand (its own reach is above zero). Off the path the solved strategy says nothing
  for this hand, so ``strategy`` is the best response: probability 1 on the action
  with the highest ``ev`` (ties: the first in ``legal``).

:func:`node_advice` answers a whole public node of the full game at once, for every hand
the player to act can hold there (its mix, each move's value, how likely it is there, the
opponent's range), from the same model and the same value walk as :func:`advice_for`
(:func:`full_game_model` chooses the model for both), so a grid of hands and ``lab
advise`` never disagree.

Conventions (the same for every model):

- Two cards of one strength level are the same move to the solver: each gets half of
  the level's probability and both get the level's value.
- **Surrender** is listed whenever the rules allow it, with probability 0 and its
  exact value: it pays the accepted value to the opponent now. It is not part of the
  solved games (it is weakly dominated, see :mod:`lab.solver.fullgame.game`).
- **Covering the last card in round 3** is left out of ``legal``: the solved games do
  not hold it, and it never does better than playing the card face up (it loses the
  round to an open card). ``lab replay`` lists it; the adviser does not.

Models and units, by the score before the hand:

- normal scores: the stored full-game policy of the vira
  (:func:`lab.tables.policies.load_full_policy`), model ``full-game-points``, values in
  **points per hand** (net, for the asking seat); ``exploitability`` is the stored
  policy's (points per hand). The policy plays for points, the same at every normal
  score; ``points_play_leak`` says what that costs at this score: the points play's leak
  in **match-win probability** (what a player who plays for the match could win from it,
  from the ``score_leak`` table), or null where the table does not hold it. Where ``lab
  solve match-play`` re-solved the vira's hand at this score with match-win payoffs,
  ``score_aware`` gives what that re-solve does with this hand class at the first decisions
  (``truco_mao``: the mão opens with a truco; ``run_pe``: the pé runs from it; each beside
  its ``_points`` play, probability), the seat's match-win probability under it and its
  exploitability (match-win probability); null where it did not (the advice is then the
  points play's, and the leak above says what that costs). Where that re-solve's policy is
  stored (:mod:`lab.tables.score_policies`), the advice is that policy's instead, at every
  decision of the hand: model ``full-game-score-aware``, values in **match-win
  probability** of the asking seat (exact, against the stored policy, with the re-solve's
  payoffs), ``exploitability`` the stored policy's (match-win probability), and no
  ``points_play_leak``.
- mão de onze (exactly one player at 11): model ``mao-de-onze-exact``, the game of
  :func:`lab.solver.games.eleven.solve_eleven` with the match payoffs of the ``match_equity``
  table, solved now to the target of the ``mao_de_onze`` table (its accept
  probabilities are that table's); values in **match-win probability** of the asking
  seat.
- 11 x 11: model ``eleven-eleven-exact``, the card-play equilibrium of the vira
  (:func:`lab.solver.games.cardplay.solve_cardplay` with the ``cardplay`` table's settings);
  whoever wins the hand wins the match, so values are **match-win probability**.
  ``exploitability`` is the solve's, in match-win probability.

Bad input, and positions the solved game cannot value (the opponent's own actions have
probability zero under it for every hand he may hold), raise ValueError with a message
that names the problem.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np

from .cards import DECK, Card, CardError, check_distinct, level
from .classes import hand_classes
from .rules import (ACCEPT, COVER, ELEVEN, ELEVEN_ELEVEN, MAO, NORMAL, PLAY, RUN, SEAT_NAMES,
                    SURRENDER, Action, HandState, IllegalAction, new_hand, parse_action,
                    parse_score)
from .errors import InputError

POINTS, MATCH_WIN = "points per hand", "match-win probability"

SEATS = {"mao": 0, "mão": 0, "pe": 1, "pé": 1}


class AdviceError(InputError):
    """A position the adviser cannot value (the message says why)."""


# ---------------------------------------------------------------- the position


@dataclass(frozen=True)
class Position:
    """What the asking ``seat`` knows: the ``vira``, its dealt ``hand``, the ``score``
    (mão's, pé's points) before the hand, and ``history``: ``(seat, Action)`` pairs from
    the deal, the opponent's covered cards without their card (``Action("cover")``).
    ``state`` is the rules state after them (the opponent's unplayed and covered cards are
    stand-ins: only his open cards are real)."""

    vira: Card
    hand: tuple
    seat: int
    score: tuple
    history: tuple
    state: HandState


def parse_seat(text: str) -> int:
    seat = SEATS.get(str(text).strip().lower())
    if seat is None:
        raise InputError(f"--seat {text!r}: the seat is mao or pe")
    return seat


def parse_tokens(tokens) -> list:
    """The actions in ``lab replay`` notation; a plain ``cover`` is the opponent's
    covered card (an Action without its card)."""
    out = []
    for token in tokens:
        if token.strip().lower() == "cover":
            out.append(Action(COVER))
        else:
            out.append(parse_action(token))
    return out


def build_position(vira: Card, hand, seat: int, score, actions) -> Position:
    """Replay ``actions`` (rules Actions in order, for whoever is to act) from the deal of
    ``hand`` to ``seat``; ValueError for bad cards, a bad score or an illegal sequence."""
    hand = tuple(hand)
    if len(hand) != 3:
        raise CardError(f"the hand must hold 3 cards, not {len(hand)}")
    if vira in hand:
        raise CardError(f"{vira}: the vira is turned face up and cannot be in the hand")
    check_distinct(hand)
    opp = 1 - seat
    named = {a.card for a in actions if a.card is not None}
    stand_ins = tuple(c for c in DECK if c != vira and c not in hand and c not in named)[:3]
    hands = [None, None]
    hands[seat], hands[opp] = hand, stand_ins
    state = new_hand(vira, hands[0], hands[1], tuple(score))
    history = []
    shown = []
    for n, action in enumerate(actions, 1):
        what = f"action {n} ({'cover' if action == Action(COVER) else action})"
        actor = state.to_act
        if actor is None:
            raise IllegalAction(f"{what}: the hand is over")
        if actor == seat and action.kind == COVER and action.card is None:
            raise InputError(f"{what}: it is the {SEAT_NAMES[seat]}'s turn; name the card "
                             "it covers (cover:CARD)")
        played = action
        if actor == opp and action.kind == PLAY:
            state = _show(state, opp, action.card, vira, hand, shown, what)
        elif actor == opp and action.kind == COVER:
            action = Action(COVER)  # its identity is never needed
            if state.hands[opp]:
                played = Action(COVER, state.hands[opp][0])  # a stand-in for the rules
        reason = state.why_illegal(played)
        if reason is not None:
            raise IllegalAction(f"{what}: {reason}")
        state = state.apply(played)
        history.append((actor, action))
    return Position(vira, hand, seat, tuple(score), tuple(history), state)


def _show(state: HandState, opp: int, card: Card, vira: Card, hand, shown: list,
          what: str) -> HandState:
    """Put the opponent's open ``card`` in his hand (for a stand-in) before he plays it."""
    if state.pending is not None or (state.kind == ELEVEN and not state.eleven_decided):
        return state  # the rules refuse the play; keep their reason
    who = SEAT_NAMES[opp]
    if card == vira:
        raise CardError(f"{what}: {card} is the vira; the {who} cannot hold it")
    if card in hand:
        raise CardError(f"{what}: {card} is in the asking seat's hand; the {who} cannot "
                        "hold it")
    if card in shown:
        raise CardError(f"{what}: the {who} already played {card}")
    shown.append(card)
    held = list(state.hands[opp])
    if not held:
        return state
    held[0] = card
    hands = list(state.hands)
    hands[opp] = tuple(held)
    return replace(state, hands=tuple(hands))


def outcome(state: HandState) -> dict:
    """The ``lab replay`` object of a finished hand."""
    return {"over": True, "winner": SEAT_NAMES[state.winner], "points": state.points,
            "score": list(state.final_score), "rounds": state.round_names(),
            "how": state.how}


# ---------------------------------------------------------------- the answer


@dataclass(frozen=True)
class Advice:
    """The advice for the seat to act (see the module docstring); ``legal`` are rules
    Actions, ``strategy`` and ``ev`` lists in the same order; ``best`` the index of the
    action with the highest value (the first of equals)."""

    seat: int
    legal: tuple
    strategy: tuple
    ev: tuple
    on_path: bool
    model: str
    unit: str
    exploitability: float
    leak: float | None = None   # points play's leak at the score (match-win probability)
    score_aware: dict | None = None   # the score-aware re-solve's first moves (see above)

    @property
    def best(self) -> int:
        return best_index(self.legal, self.ev)

    def as_json(self) -> dict:
        from .match import FULL_MODEL

        tokens = [str(a) for a in self.legal]
        return {"to_act": SEAT_NAMES[self.seat], "legal": tokens,
                "strategy": dict(zip(tokens, self.strategy)),
                "ev": dict(zip(tokens, self.ev)), "on_path": self.on_path,
                "model": self.model, "unit": self.unit,
                "exploitability": self.exploitability,
                **({"points_play_leak": self.leak, "score_aware": self.score_aware}
                   if self.model == FULL_MODEL else {})}


def advise(position: Position, progress=None) -> dict:
    """The contract's JSON object for ``position`` (module docstring). ``progress``:
    one-line notes on stderr for slow steps (None: only when stderr is a terminal)."""
    state = position.state
    if state.over:
        return outcome(state)
    if state.to_act != position.seat:
        return {"to_act": SEAT_NAMES[state.to_act], "waiting": True}
    return advice_for(position, progress).as_json()


def advice_for(position: Position, progress=None, values: bool = True) -> Advice:
    """The :class:`Advice` of the seat to act at ``position`` (it must be the asking
    seat's turn). ``values=False``: the strategy only, on the solved path (``ev`` NaN but
    for surrender; AdviceError off the path, where the strategy is the values' best
    response), without the full game's value traversal."""
    state = position.state
    if state.over or state.to_act != position.seat:
        raise AdviceError("the asking seat is not to act")
    if state.kind == NORMAL:
        return _full_game(position, progress, values)
    return _cardplay_model(position, progress)


def legal_moves(state: HandState) -> list:
    """The rules' legal actions less the covers of a last card in round 3."""
    return [a for a in state.legal_actions()
            if not (a.kind == COVER and len(state.hands[state.to_act]) == 1)]


def _assemble(position: Position, legal, prob_of, value_of, surrender_value, on_path, model,
              unit, exploitability, valueless: bool = False) -> Advice:
    """Advice from the solver's probability and value of each move (``prob_of(action)``
    and ``value_of(action)`` per rules Action; a level's probability is shared by its
    cards); ``valueless``: the values were not worked out (NaN)."""
    vira = position.vira
    key = [_level_key(a, vira) for a in legal]
    same = {k: key.count(k) for k in key}
    ev, strategy = [], []
    for a, k in zip(legal, key):
        if a.kind == SURRENDER:
            ev.append(float(surrender_value))
            strategy.append(0.0)
            continue
        v = value_of(a)
        if v is None or not (np.isfinite(v) or (np.isnan(v) and on_path and valueless)):
            raise AdviceError(f"{a}: the solved game holds no value for it here")
        ev.append(float(v))
        strategy.append(float(prob_of(a)) / same[k] if on_path else 0.0)
    if on_path:
        total = sum(strategy)
        if abs(total - 1.0) > 1e-6:
            raise AdviceError(f"the solved strategy gives the legal moves {total:.6f} in "
                              "all, not 1: it and the rules disagree here")
        strategy = [p / total for p in strategy]
    else:
        best = best_index(legal, ev)
        strategy = [1.0 if i == best else 0.0 for i in range(len(legal))]
    return Advice(position.seat, tuple(legal), tuple(strategy), tuple(ev), bool(on_path),
                  model, unit, float(exploitability))


TIE = 1e-9
"""Values closer than this are equal (the unit of the model)."""


def best_index(legal, ev) -> int:
    """The index of the best action: the highest value, the first of equal ones, and
    never a surrender that another action equals (surrendering gives the hand away).
    ``legal``: rules Actions, or the policy's actions with ``"surrender"``."""
    top = max(ev)
    tied = [i for i, v in enumerate(ev) if v >= top - TIE]
    kept = [i for i in tied if getattr(legal[i], "kind", legal[i]) != SURRENDER]
    return (kept or tied)[0]


def _level_key(action: Action, vira: Card):
    if action.kind in (PLAY, COVER):
        return (action.kind, level(action.card, vira))
    return action.kind


@contextmanager
def note(text: str, progress=None):
    """A transient progress line on stderr while the block runs (only on a terminal
    unless ``progress`` is True): an error line that follows stays the only line."""
    show = sys.stderr.isatty() if progress is None else bool(progress)
    if not show:
        yield
        return
    from tqdm import tqdm

    with tqdm(total=1, desc=text, bar_format="{desc} ({elapsed})", leave=False,
              file=sys.stderr) as bar:
        yield
        bar.update()


# ---------------------------------------------------------------- the full game, points


@dataclass(frozen=True)
class FullGameModel:
    """The stored policy that answers a normal hand of a vira at a score (module
    docstring): the score-aware policy where one is stored at that score, else the
    points policy. ``unit`` is what its values are in (:data:`POINTS` or
    :data:`MATCH_WIN`); ``leak`` the points play's leak at the score (match-win
    probability; None for a score-aware policy or where the ``score_leak`` table does not
    hold it); ``exploitability`` in ``unit``."""

    policy: object
    model: str
    unit: str
    leak: float | None

    @property
    def exploitability(self) -> float:
        return float(self.policy.exploitability)

    @property
    def score_aware(self) -> bool:
        return self.policy.payoffs is not None

    def seat_value(self, seat: int, value):
        """A value of the policy's walks (a number or an array) as ``seat``'s, in
        ``unit``."""
        return self.policy.seat_value(seat, value)

    def surrender_value(self, seat: int, accepted: int) -> float:
        """What ``seat`` gets for giving up a hand worth ``accepted`` points (the
        accepted value): minus those points, or its match-win probability after the
        opponent scores them."""
        if not self.score_aware:
            return -float(accepted)
        info = self.policy.meta
        lost = info["pay_pe"] if seat == MAO else [1.0 - x for x in info["pay_mao"]]
        return float(lost[list(self.policy.ladder).index(accepted)])


def full_game_model(vira, score, progress=None, points: bool = False) -> FullGameModel:
    """The :class:`FullGameModel` of ``vira`` (a card or a rank) at the normal ``score``
    (mão's, pé's points): one choice for :func:`advice_for` and :func:`node_advice`.
    ``points``: the points play even where a score-aware policy is stored (to compare
    the two)."""
    from .match import FULL_MODEL, SCORE_AWARE_MODEL
    from .tables.policies import load_full_policy
    from .tables.score import points_play_leak
    from .tables.score_policies import load_score_policy

    score = (int(score[0]), int(score[1]))
    with note(f"loading the stored full-game policy of vira {vira}", progress):
        aware = None if points else load_score_policy(vira, score)
        if aware is not None:
            return FullGameModel(aware, SCORE_AWARE_MODEL, MATCH_WIN, None)
        policy = load_full_policy(vira)
    return FullGameModel(policy, FULL_MODEL, POINTS, points_play_leak(vira, score))


def _full_game(position: Position, progress, values: bool = True) -> Advice:
    from .policy.line import follow
    from .policy.base import PolicyError

    vira, seat = position.vira, position.seat
    game = full_game_model(vira, position.score, progress)
    policy = game.policy
    try:
        followed = follow(policy, vira, position.history, {seat: position.hand})
    except PolicyError as exc:
        message = str(exc).replace("cover:None", "cover")
        raise AdviceError(f"outside the solved game: {message}") from None
    line = followed.line
    if line.over or policy.actor(line.spot) != seat:
        raise AdviceError("the stored policy and the rules disagree on who acts")
    spot, own = line.spot, followed.states[seat]
    i = policy.pair_of(spot.card, seat, own)
    on_path = bool(line.reach[seat][i] > 0)
    strategy = {}
    if on_path:
        try:
            strategy = policy.strategy(spot, own)
        except PolicyError:
            on_path = False
    if not values:
        if not on_path:
            raise AdviceError("off the solved path: only the values' best response says "
                              "what to do here")
        acts, column = tuple(strategy), np.full(len(strategy), np.nan)
    else:
        slow = int(policy.tree.depth[spot.card]) <= 1   # kept, but walked once per machine
        with note("exact values of each action (a best-response traversal of the rest of "
                  "the hand; `lab prepare` does these once for every policy)",
                  progress if slow else False):
            acts, table = line.action_values(seat, i)
        column = table[:, i]
    if values and not np.isfinite(column).any():
        raise AdviceError("the opponent's actions so far have probability zero under the "
                          f"stored policy of vira {vira} for every hand he may hold: the "
                          "solved game cannot value this position")
    value = dict(zip(acts, game.seat_value(seat, column)))   # in the model's unit
    unknown = None if values else float("nan")   # a move's value where none was worked out

    def move(a):
        if a.kind == PLAY:
            return ("card", level(a.card, vira))
        if a.kind == COVER:
            return ("cover", level(a.card, vira))
        return a.kind

    state = position.state
    advice = _assemble(position, legal_moves(state), lambda a: strategy.get(move(a), 0.0),
                       lambda a: value.get(move(a), unknown),
                       game.surrender_value(seat, state.value), on_path, game.model,
                       game.unit, game.exploitability, not values)
    return replace(advice, leak=game.leak,
                   score_aware=score_aware_moves(vira, position.score, seat, position.hand))


def score_aware_moves(vira: Card, score, seat: int, hand) -> dict | None:
    """What the score-aware re-solve of ``vira`` at ``score`` does with ``hand``'s class
    (see the module docstring), or None where there is none."""
    import pandas as pd

    from .tables.score_play import score_aware_hand

    classes = hand_classes(vira)
    label = classes.labels[classes.class_of_cards(list(hand), vira)]
    found = score_aware_hand(vira, score, label)
    if found is None:
        return None
    play, row = found
    value = float(play["value_mao"]) if seat == MAO else 1 - float(play["value_mao"])
    out = {"hand": label, "exploitability": float(play["exploitability"]),
           "iterations": int(play["iterations"]), "match_win_probability": value}
    for key in ("truco_mao", "truco_mao_points", "run_pe", "run_pe_points"):
        out[key] = None if pd.isna(row[key]) else float(row[key])
    return out


# ---------------------------------------------------------------- every hand at a public node


@dataclass(frozen=True)
class NodeAdvice:
    """The advice at one public node of the full game for every hand of the seat to act
    (:func:`node_advice`), in one model's ``unit``.

    ``hands``: one row per private state of ``seat`` that can be here (his hand as dealt
    and the cards it still holds; two after a card he covered), strongest first: ``hand``
    (the class's name, as dealt), ``class`` (its index in :func:`lab.classes.hand_classes`),
    ``levels`` (its three strength levels as dealt, strongest first), ``holds`` (the levels
    it still holds), ``likelihood`` (the probability that the seat holds it here, given
    the public moves: deal x both seats' reach, normalised over the rows; 0 off the solved
    path), ``on_path`` (the policy plays its earlier moves with it), ``strategy`` and
    ``values`` ({move: probability}, {move: value in ``unit``} over its own moves, the
    moves of :attr:`moves`), ``value`` (the hand's value: its mix's, or its best
    response's off the path) and ``best`` (the move of the highest value). Off the path
    the strategy is the best response, as :func:`advice_for` gives it.

    ``opponent``: the other seat's range here: ``hand``, ``class``, ``holds`` and
    ``likelihood`` (the probability that he holds it, given the public moves; his covered
    card is his own secret, so his hands that covered differently are separate rows), most
    likely first.

    ``moves`` are the policy's actions (``("card", level)``, ``("cover", level)``,
    ``"raise"``, ``"accept"``, ``"run"``) in the adviser's order, and ``"surrender"``
    last (probability 0; it pays the ``accepted`` value to the opponent)."""

    vira: str
    score: tuple
    actions: tuple
    seat: int
    accepted: int
    moves: tuple
    hands: object
    opponent: object
    model: str
    unit: str
    exploitability: float
    leak: float | None

    def row(self, levels, holds=None):
        """The ``hands`` row of the hand dealt ``levels`` (any order) that still holds
        ``holds`` (default: the only state of that hand here); AdviceError when that hand
        cannot be here."""
        rows = self.hands[self.hands["levels"] == _levels(levels)]
        if holds is not None:
            rows = rows[rows["holds"] == _levels(holds)]
        if rows.empty:
            raise AdviceError("that hand cannot be here: the cards on the table rule it out")
        return rows.iloc[0]


NODES_KEPT = 64
"""Nodes whose :class:`NodeAdvice` a process keeps (each a few hundred rows)."""

_NODES: dict = {}


def node_advice(vira, score, actions, progress=None, points: bool = False) -> NodeAdvice:
    """The :class:`NodeAdvice` of every hand of the seat to act after the public
    ``actions`` (the policy's, from the deal: ``("card", level)``, ``"cover"``,
    ``"raise"``, ``"accept"``, ``"run"``) of a hand of ``vira`` (a card or a rank) at the
    normal ``score`` (mão's, pé's points), from the model :func:`advice_for` uses there
    (:func:`full_game_model`; ``points``: the points play there even where a score-aware
    policy is stored) and one value walk for all hands. Kept per (vira, score, moves,
    model) in the process. AdviceError for a score that is not a full-game hand, moves the
    solved game does not hold, a hand that is over, and a node where the opponent's moves
    have probability zero for every hand he may hold."""
    from .cards import RANKS
    from .classes import vira_rank_of
    from .rules import hand_kind

    rank = RANKS[vira_rank_of(vira)]
    score = (int(score[0]), int(score[1]))
    kind, _ = hand_kind(score)
    if kind != NORMAL:
        what = "a mão de onze" if kind == ELEVEN else "an 11 x 11"
        raise AdviceError(f"score {score[0]}-{score[1]}: {what} hand is not a node of the full "
                          "game (nobody calls truco in it); the hand explorer plays it move "
                          "by move")
    actions = tuple(actions)
    game = full_game_model(rank, score, progress, points)
    key = (rank, score, actions, game.model)
    kept = _NODES.get(key)
    if kept is not None and kept[0] is game.policy:
        return kept[1]
    node = _node_advice(rank, score, actions, game)
    if len(_NODES) >= NODES_KEPT:
        _NODES.pop(next(iter(_NODES)))
    _NODES[key] = (game.policy, node)
    return node


def _node_advice(rank: str, score: tuple, actions: tuple, game: FullGameModel) -> NodeAdvice:
    import pandas as pd

    from .policy.base import PolicyError

    policy = game.policy
    line = policy.start()
    for n, action in enumerate(actions, 1):
        try:
            line = line.then(action)
        except PolicyError as exc:
            raise AdviceError(f"outside the solved game: move {n} ({action}): {exc}") from None
    if line.over:
        raise AdviceError("the hand is over here: nobody acts")
    spot, tree = line.spot, policy.tree
    seat = policy.actor(spot)
    decision = policy.decision(spot)
    acts, table = line.action_values(seat)
    table = game.seat_value(seat, table)
    if not np.isfinite(table).any():
        raise AdviceError("the opponent's moves so far have probability zero under the "
                          f"stored policy of vira {rank} for every hand he may hold: the "
                          "solved game cannot value this node")
    mine, theirs = tree.pairs(spot.card, seat), tree.pairs(spot.card, 1 - seat)
    own_hands = tree.pair_hand[mine].astype(np.int64)
    their_hands = tree.pair_hand[theirs].astype(np.int64)
    deal = policy.solver_weights(seat)[np.ix_(own_hands, their_hands)]
    own, other = line.reach[seat], line.reach[1 - seat]
    weight = own * (deal @ other)
    total = weight.sum()
    accepted = int(policy.ladder[policy.value_index(spot)])
    surrender = game.surrender_value(seat, accepted)
    classes = hand_classes(rank)
    held = policy.cards.state_held
    index = {a: k for k, a in enumerate(decision.actions)}
    rows = []
    for i in range(len(own_hands)):
        column = table[:, i]
        finite = np.isfinite(column)
        if not finite.any():
            continue   # no hand of the opponent's that got here leaves this one possible
        moves = [a for a, ok in zip(acts, finite) if ok] + [SURRENDER]
        ev = [float(v) for v in column[finite]] + [surrender]
        on_path = bool(own[i] > 0 and decision.stored[i])
        best = best_index(moves, ev)
        if on_path:
            p = [float(decision.strategy[index[a], i]) if a in index else 0.0
                 for a in moves[:-1]]
            strategy = [x / sum(p) for x in p] + [0.0]
        else:
            strategy = [1.0 if k == best else 0.0 for k in range(len(moves))]
        cls = int(own_hands[i])
        rows.append({"hand": classes.labels[cls], "class": cls,
                     "levels": tuple(int(x) for x in classes.levels[cls]),
                     "holds": _levels(held[int(tree.pair_state[mine.start + i])]),
                     "likelihood": float(weight[i] / total) if total > 0 else 0.0,
                     "on_path": on_path, "strategy": dict(zip(moves, strategy)),
                     "values": dict(zip(moves, ev)),
                     "value": float(np.dot(strategy, ev)),
                     "best": moves[best]})
    hands = pd.DataFrame(rows, columns=["hand", "class", "levels", "holds", "likelihood",
                                        "on_path", "strategy", "values", "value", "best"])
    hands = hands.sort_values(["levels", "holds"], ascending=False, kind="stable") \
        .reset_index(drop=True)
    order = [a for a in acts if any(a in s for s in hands["values"])] + [SURRENDER]
    return NodeAdvice(rank, score, actions, seat, accepted, tuple(order), hands,
                      _opponent_range(policy, line, deal, classes), game.model, game.unit,
                      game.exploitability, game.leak)


def _levels(levels) -> tuple:
    return tuple(sorted((int(x) for x in levels), reverse=True))


def _opponent_range(policy, line, deal: np.ndarray, classes):
    """The other seat's private states at ``line``'s node, weighted by his reach x the
    deal x the seat to act's reach (his reach x the deal alone where the seat to act got
    here off the solved path with every hand), grouped by hand and cards held."""
    import pandas as pd

    spot, tree = line.spot, policy.tree
    seat = policy.actor(spot)
    theirs = tree.pairs(spot.card, 1 - seat)
    own, other = line.reach[seat], line.reach[1 - seat]
    weight = other * (deal.T @ own)
    if not weight.sum() > 0:
        weight = other * deal.sum(axis=0)
    total = weight.sum()
    grouped: dict = {}
    for j in np.flatnonzero(weight > 0):
        cls = int(tree.pair_hand[theirs.start + j])
        holds = _levels(policy.cards.state_held[int(tree.pair_state[theirs.start + j])])
        grouped[(cls, holds)] = grouped.get((cls, holds), 0.0) + float(weight[j] / total)
    rows = [{"hand": classes.labels[cls], "class": cls, "holds": holds, "likelihood": p}
            for (cls, holds), p in grouped.items()]
    frame = pd.DataFrame(rows, columns=["hand", "class", "holds", "likelihood"])
    return frame.sort_values("likelihood", ascending=False, kind="stable") \
        .reset_index(drop=True)


def node_position(vira, score, actions, levels, holds=None) -> Position:
    """The :class:`Position` of the seat to act after the public ``actions`` of
    :func:`node_advice`, dealt a hand of the strength ``levels`` that still holds ``holds``
    (default: all but the cards it played; give it after a card it covered): real cards
    picked for its hand and for the opponent's open cards (the first free suits), so that
    :func:`advice_for` and ``lab advise`` answer for the same hand."""
    from .cards import RANKS, parse_card
    from .classes import vira_rank_of

    vira = vira if isinstance(vira, Card) else parse_card(RANKS[vira_rank_of(vira)] + "c")
    policy = full_game_model(vira, score).policy
    line = policy.start()
    actors = []
    for action in actions:
        actors.append(policy.actor(line.spot))
        line = line.then(action)
    if line.over:
        raise AdviceError("the hand is over here: nobody acts")
    seat = policy.actor(line.spot)
    covers = sum(1 for a, s in zip(actions, actors) if s == seat and a == "cover")
    covered = list(_levels(levels))   # what is left for his covers
    try:
        for a, s in zip(actions, actors):
            if s == seat and isinstance(a, tuple):
                covered.remove(int(a[1]))
        for lv in (holds if holds is not None else ()):
            covered.remove(int(lv))
    except ValueError:
        raise AdviceError("that hand cannot be here: it does not hold the cards played") \
            from None
    covered = covered[len(covered) - covers:] if holds is None else covered   # the weakest
    if len(covered) != covers:
        raise AdviceError("that hand cannot be here: it does not hold the cards it covered")
    used = {vira}

    def card_of(lv):
        card = next((c for c in DECK if c not in used and level(c, vira) == lv), None)
        if card is None:
            raise AdviceError(f"no card of level {lv} is left to deal")
        used.add(card)
        return card

    hand = tuple(card_of(lv) for lv in _levels(levels))
    left = list(hand)

    def own_card(lv):
        card = next(c for c in left if level(c, vira) == lv)
        left.remove(card)
        return card

    rules_actions = []
    for action, actor in zip(actions, actors):
        if actor == seat and isinstance(action, tuple):
            rules_actions.append(Action(PLAY, own_card(action[1])))
        elif actor == seat and action == "cover":
            rules_actions.append(Action(COVER, own_card(covered.pop(0))))
        elif isinstance(action, tuple):
            rules_actions.append(Action(PLAY, card_of(action[1])))
        elif action == "cover":
            rules_actions.append(Action(COVER))
        else:
            rules_actions.append(Action(action))
    return build_position(vira, hand, seat, score, rules_actions)


# ---------------------------------------------------------------- mão de onze and 11 x 11


@dataclass(frozen=True)
class CardplayModel:
    """A solved card-play game as the adviser reads it: the card-play ``tree``
    (:func:`lab.solver.games.cardplay.cardplay_tree` of the ``decision_seat``: the mão de
    onze holder, None at 11 x 11), the solve's average strategy per edge (``average``), and
    for each seat its counterfactual best-response values per pair (``values[seat]``, on the
    solve's scale: the pé's are shifted by ``total``) and the other seat's reach per pair at
    the same time (``reach[seat]``); the deal ``weights`` per seat; the mão's payoff when
    the mão / the pé wins the hand and, at mão de onze, when the holder runs (``run``); the
    ``model`` name and its ``exploitability``."""

    tree: object
    decision_seat: object
    average: np.ndarray
    values: tuple
    reach: tuple
    weights: tuple
    total: float
    mao_wins: float
    pe_wins: float
    run: float
    holder: object
    model: str
    exploitability: float

    def payoff(self, seat: int, winner: int) -> float:
        """``seat``'s match-win probability when ``winner`` wins the hand."""
        mao = self.mao_wins if winner == 0 else self.pe_wins
        return mao if seat == 0 else 1.0 - mao


_MODELS: dict = {}
MODELS_KEPT = 8
"""Card-play models kept in a process (55 MB each: two seats' values and reaches)."""


def cardplay_scores() -> list:
    """Every score whose hand the adviser answers with a card-play model: each mão de onze
    score (one seat at 11, the other at 0-10) and the 11 x 11."""
    return ([(11, other) for other in range(11)] + [(other, 11) for other in range(11)]
            + [(11, 11)])


def cardplay_model(vira: Card, score: tuple, progress=None) -> CardplayModel:
    """The exact model of a mão de onze or 11 x 11 hand: its solve
    (:func:`cardplay_solve`), its values worked out from the solve's average strategy
    when first asked in a process (about 0.1 s)."""
    key, solved = cardplay_solve(vira, score, progress)
    if key not in _MODELS:
        _keep(key, _answers(*solved))
    return _MODELS[key]


def cardplay_solve(vira: Card, score: tuple, progress=None) -> tuple:
    """``(key, solved)`` of the card-play game standing for a mão de onze or 11 x 11 hand
    of ``vira`` at ``score``: the solve of :mod:`lab.policy.cardplay` (once per machine,
    about 2.5 s, kept in the disk cache; the solver bot plays the same one), as the
    arguments of :func:`_answers`, and the key of its model in a process."""
    from .match import ELEVEN_ELEVEN_MODEL, ELEVEN_MODEL
    from .rules import hand_kind

    solved = cardplay_game_solve(vira, score, progress)
    if hand_kind(tuple(score))[0] == ELEVEN:
        from .match import eleven_payoffs
        from .ranking import match_equity

        pay = eleven_payoffs(match_equity(), tuple(score))
        return (vira.rank, tuple(score), pay), (
            vira.rank, solved.policy.average, pay.mao_wins, pay.pe_wins, pay.holder_runs,
            pay.holder, ELEVEN_MODEL, solved.exploitability)
    return (vira.rank, (11, 11)), (vira.rank, solved.average, 1.0, 0.0, float("nan"),
                                   None, ELEVEN_ELEVEN_MODEL, solved.exploitability)


def cardplay_game_solve(vira: Card, score: tuple, progress=None):
    """The solve of :mod:`lab.policy.cardplay` that stands for a mão de onze (an
    ``ElevenPolicy``) or an 11 x 11 hand (a ``CardplayPolicy``) of ``vira`` at ``score``,
    with the lab's settings: the one the advice service values, the solver bot plays and
    the hand explorer plays forward. AdviceError at a normal score."""
    from .policy.cardplay import cardplay_policy, eleven_policy
    from .rules import hand_kind
    from .tables import CARDPLAY_SETTINGS, MATCH_SETTINGS

    show = sys.stderr.isatty() if progress is None else bool(progress)
    kind, _ = hand_kind(tuple(score))
    if kind == ELEVEN:
        from .ranking import match_equity

        return eleven_policy(vira.rank, tuple(score),
                             MATCH_SETTINGS["eleven_target_exploitability"],
                             equity=match_equity(), progress=show)
    if kind == ELEVEN_ELEVEN:
        return cardplay_policy(vira.rank, CARDPLAY_SETTINGS["target_exploitability"],
                               CARDPLAY_SETTINGS["max_iterations"], progress=show)
    raise AdviceError(f"score {score}: a normal hand has no card-play model")


def _keep(key, model: CardplayModel) -> None:
    """Keep ``model`` under ``key``, the oldest dropped past :data:`MODELS_KEPT`."""
    if len(_MODELS) >= MODELS_KEPT:
        _MODELS.pop(next(iter(_MODELS)))
    _MODELS[key] = model


def _answers(vira_rank, average, mao_wins, pe_wins, run, holder, model,
             exploitability) -> CardplayModel:
    """What the adviser reads of a solved card-play game of the vira of rank index
    ``vira_rank`` (its ``average`` strategy per edge; the mão's payoffs when the mão / the
    pé wins and, at mão de onze, when the ``holder`` runs): both seats' best-response
    values and reaches under that strategy, worked out now on the game rebuilt."""
    from .solver.games.cardplay import cardplay_solver

    seat = None if holder is None else int(holder)
    decision = None if seat is None else (seat, float(run))
    solver = cardplay_solver(vira_rank, payoff=(float(mao_wins), float(pe_wins)), total=1.0,
                             decision=decision).allocate()
    with solver._threads():
        values, reach = [], []
        for s in (0, 1):
            values.append(solver._values(s, average, True).copy())
            reach.append(solver.reach.copy())
    return CardplayModel(solver.tree, seat, average, tuple(values), tuple(reach),
                         tuple(np.asarray(w) for w in solver.weights), float(solver.total),
                         float(mao_wins), float(pe_wins), float(run), seat, model,
                         float(exploitability))


def _cardplay_model(position: Position, progress) -> Advice:
    from .solver.games.cardplay import game_state_id
    from .solver.games.cardplay_game import COVER as COVERED
    from .solver.games.cardplay_game import CardplayGame

    vira, seat, state = position.vira, position.seat, position.state
    model = cardplay_model(vira, position.score, progress)
    tree = model.tree
    game = CardplayGame(vira.rank)
    classes = hand_classes(vira.rank)
    own_class = classes.index_of(level(c, vira) for c in position.hand)
    held = tuple(sorted((level(c, vira) for c in state.hands[seat]), reverse=True))
    own = game_state_id(game, own_class, held)

    public = []
    if state.kind == ELEVEN and state.eleven_decided:
        public.append(ACCEPT)
    cards = [COVERED if a.kind == COVER else level(a.card, vira)
             for _, a in position.history if a.kind in (PLAY, COVER)]
    follower_in_round3 = len(cards) == 5
    public += cards[:4]
    try:
        node = tree.node_of(tuple(public))
    except KeyError:
        raise AdviceError("outside the solved game: the card play so far is not in it") \
            from None

    avg, cfv, reach = model.average, model.values[seat], model.reach[seat]
    mine = tree.pairs_of(node, seat)
    found = np.flatnonzero(tree.pair_private[mine.start:mine.stop] == own)
    if not len(found):
        raise AdviceError("that hand cannot be here: the cards on the table rule it out")
    i = mine.start + int(found[0])
    theirs = tree.pairs_of(node, 1 - seat)
    norm = float(model.weights[seat][int(tree.pair_hand[i])][
        tree.pair_hand[theirs.start:theirs.stop]] @ reach[theirs.start:theirs.stop])
    if not norm > 0:
        raise AdviceError("the opponent's actions so far have probability zero under the "
                          f"solved {model.model} strategy for every hand he may hold: the "
                          "solved game cannot value this position")
    on_path = bool(reach[i] > 0)
    shift = model.total if seat == 1 else 0.0

    prob, value = {}, {}
    if tree.node_actor[node] == seat:
        for c in tree.children(node):
            action = tree.actions[tree.node_action[c]]
            kids = tree.pairs_of(c, seat)
            for k in np.flatnonzero(tree.pair_parent[kids.start:kids.stop] == i):
                k = kids.start + int(k)
                if action == COVERED:
                    rest = list(held)
                    for lv in game.state_held[int(tree.pair_private[k])]:
                        rest.remove(lv)
                    move = (COVER, rest[0])
                elif action in (ACCEPT, RUN):
                    move = action
                else:
                    move = (PLAY, int(action))
                e = int(tree.pair_edge[k])
                prob[move] = prob.get(move, 0.0) + (float(avg[e]) if e >= 0 else 1.0)
                value[move] = shift + float(cfv[k]) / norm
    elif tree.node_actor[node] < 0 and len(held) == 1:  # round 3, folded into a showdown
        last = state.hands[seat][0]
        prob[(PLAY, held[0])] = 1.0
        if follower_in_round3:  # the lead is on the table: the rules decide
            end = state.apply(Action(PLAY, last))
            value[(PLAY, held[0])] = model.payoff(seat, end.winner)
        else:
            value[(PLAY, held[0])] = shift + float(cfv[i]) / norm
    else:
        raise AdviceError("the solved card play and the rules disagree on who acts")

    def move(a):
        return (a.kind, level(a.card, vira)) if a.kind in (PLAY, COVER) else a.kind

    surrender = model.payoff(seat, 1 - seat)
    return _assemble(position, legal_moves(state), lambda a: prob.get(move(a), 0.0),
                     lambda a: value.get(move(a)), surrender, on_path, model.model, MATCH_WIN,
                     model.exploitability)


# ---------------------------------------------------------------- once per machine


def prepare(viras=None, progress=None) -> int:
    """Work out once what makes the advice at the start of a hand instant: the kept values
    (:func:`lab.policy.values.prepare`) of the stored points policy and every
    stored score-aware policy of ``viras`` (rank characters or cards; default every vira
    with a stored policy), and the card-play game of each at every mão de onze score and
    at 11 x 11 (:func:`cardplay_scores`). Everything goes to the
    disk cache, so every process of the machine finds it. ``progress``: a bar on stderr
    (None: only on a terminal). Returns how many policies were prepared."""
    from tqdm import tqdm

    from .cards import RANKS, parse_card
    from .classes import vira_rank_of
    from .policy import values
    from .tables.policies import load_full_policy, stored_viras
    from .tables.score_policies import load_score_policy, stored_scores

    held = stored_viras()
    asked = held if viras is None else [RANKS[vira_rank_of(v)] for v in viras]
    lacking = [v for v in asked if v not in held]
    if lacking:
        raise InputError(f"vira {', '.join(lacking)}: no stored full-game policy; build it "
                         "with `lab rebuild`")
    jobs = [(v, None) for v in asked] + [(v, s) for v in asked for s in stored_scores(v)]
    show = sys.stderr.isatty() if progress is None else bool(progress)
    total = len(jobs) * 28 + len(asked) * len(cardplay_scores())
    with tqdm(total=total, desc="preparing the advice", unit="walk", disable=not show,
              file=sys.stderr) as bar:
        for v, score in jobs:
            policy = load_full_policy(v) if score is None else load_score_policy(v, score)
            bar.set_postfix_str(f"vira {v}" + ("" if score is None else f" at {score[0]}-"
                                               f"{score[1]}"))
            values.prepare(policy, bar.update)
        for v in asked:
            bar.set_postfix_str(f"vira {v}: mão de onze and 11 x 11")
            for score in cardplay_scores():      # the solves only: values are per process
                cardplay_solve(parse_card(v + "c"), score, progress=False)
                bar.update()
    return len(jobs)


def request(vira_text: str, hand_text: str, seat_text: str, score_text: str,
            tokens) -> Position:
    """A :class:`Position` from the command-line notation (ValueError on bad input)."""
    from .cards import parse_card, parse_cards

    vira = parse_card(vira_text)
    hand = parse_cards(hand_text, 3)
    seat = parse_seat(seat_text)
    score = parse_score(score_text)
    return build_position(vira, hand, seat, score, parse_tokens(tokens))


__all__ = ["Position", "Advice", "AdviceError", "build_position", "advise", "advice_for",
           "prepare", "FullGameModel", "full_game_model", "NodeAdvice", "node_advice",
           "node_position",
           "request", "parse_score", "parse_seat", "parse_tokens", "legal_moves", "outcome",
           "cardplay_model", "cardplay_solve", "cardplay_game_solve", "cardplay_scores", "POINTS", "MATCH_WIN"]
