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
    never a surrender that another action equals (surrendering gives the hand away)."""
    top = max(ev)
    tied = [i for i, v in enumerate(ev) if v >= top - TIE]
    kept = [i for i in tied if legal[i].kind != SURRENDER]
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


def _full_game(position: Position, progress, values: bool = True) -> Advice:
    from .match import FULL_MODEL, SCORE_AWARE_MODEL
    from .tables.policies import load_full_policy
    from .tables.score import points_play_leak
    from .tables.score_policies import load_score_policy
    from .policy.line import follow
    from .policy.base import PolicyError

    vira, seat = position.vira, position.seat
    with note(f"loading the stored full-game policy of vira {vira}", progress):
        aware = load_score_policy(vira, position.score)
        policy = aware if aware is not None else load_full_policy(vira)
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
    value = dict(zip(acts, column))
    unknown = None if values else float("nan")   # a move's value where none was worked out

    def move(a):
        if a.kind == PLAY:
            return ("card", level(a.card, vira))
        if a.kind == COVER:
            return ("cover", level(a.card, vira))
        return a.kind

    state = position.state
    aware_moves = score_aware_moves(vira, position.score, seat, position.hand)
    if aware is not None:   # the re-solve's payoffs, as the asking seat's match-win probability
        info = aware.meta
        value = {k: aware.seat_value(seat, v) for k, v in value.items()}
        lost = info["pay_pe"] if seat == MAO else [1.0 - x for x in info["pay_mao"]]
        surrender = lost[list(policy.ladder).index(state.value)]
        advice = _assemble(position, legal_moves(state), lambda a: strategy.get(move(a), 0.0),
                           lambda a: value.get(move(a), unknown), surrender, on_path,
                           SCORE_AWARE_MODEL, MATCH_WIN, policy.exploitability, not values)
        return replace(advice, score_aware=aware_moves)
    advice = _assemble(position, legal_moves(state), lambda a: strategy.get(move(a), 0.0),
                       lambda a: value.get(move(a), unknown), -state.value, on_path, FULL_MODEL,
                       POINTS, policy.exploitability, not values)
    return replace(advice, leak=points_play_leak(vira, position.score),
                   score_aware=aware_moves)


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
    from .policy.cardplay import cardplay_policy, eleven_policy
    from .rules import hand_kind
    from .tables import CARDPLAY_SETTINGS, MATCH_SETTINGS

    show = sys.stderr.isatty() if progress is None else bool(progress)
    kind, _ = hand_kind(tuple(score))
    if kind == ELEVEN:
        from .match import eleven_payoffs
        from .ranking import match_equity

        equity = match_equity()
        pay = eleven_payoffs(equity, tuple(score))
        solved = eleven_policy(vira.rank, tuple(score),
                               MATCH_SETTINGS["eleven_target_exploitability"],
                               equity=equity, progress=show)
        return (vira.rank, tuple(score), pay), (
            vira.rank, solved.policy.average, pay.mao_wins, pay.pe_wins, pay.holder_runs,
            pay.holder, ELEVEN_MODEL, solved.exploitability)
    if kind == ELEVEN_ELEVEN:
        solved = cardplay_policy(vira.rank, CARDPLAY_SETTINGS["target_exploitability"],
                                 CARDPLAY_SETTINGS["max_iterations"], progress=show)
        return (vira.rank, (11, 11)), (vira.rank, solved.average, 1.0, 0.0, float("nan"),
                                       None, ELEVEN_ELEVEN_MODEL, solved.exploitability)
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
           "prepare",
           "request", "parse_score", "parse_seat", "parse_tokens", "legal_moves", "outcome",
           "cardplay_model", "cardplay_solve", "cardplay_scores", "POINTS", "MATCH_WIN"]
