"""A mão de onze or 11 x 11 hand played forward move by move, on the solved card-play model.

At a mão de onze (one side at 11) the holder sees his cards and plays the hand for 3 or
runs (the other side scores 1); then both play the cards, nobody may raise. At 11 x 11
both play the cards at once, nobody may raise, and whoever wins the hand wins the match.
The lab answers both with an exact card-play model solved for the match
(:func:`lab.advice.cardplay_model`); this module plays a hand on it:

- **your side** shows what the advice service says (:func:`lab.advice.advice_for`): the
  solved strategy of your hand and the exact value of each move, as your **match-win
  probability**; where your own earlier moves leave the solved path the strategy is the
  best response, labelled so, as the service labels it;
- **his side** plays the same solve (:func:`solved_hand`, the one the solver bot plays):
  his moves are drawn from the solved strategy averaged over the hands he may hold, each
  weighted by how likely the deal gives it to him against your cards and by how likely
  the solved strategy makes the moves he has made (:meth:`ElevenPlay.opponent_mix`). His
  cards stay hidden until he plays them.
"""

from __future__ import annotations

import html
import random
from dataclasses import dataclass
from functools import cached_property
from typing import Optional

import numpy as np

from .. import charts
from ..advice import (Advice, advice_for, build_position, cardplay_game_solve,
                      cardplay_model)
from ..cards import Card, level
from ..classes import deal_weight_matrix, hand_classes
from ..policy.cardplay import COVERED, CardplayPolicy
from ..rules import (ACCEPT, COVER, ELEVEN, ELEVEN_ELEVEN, MAO, PLAY, RUN, SURRENDER, TARGET,
                     Action, hand_kind)
from ..widgets import card_label
from .shown_cards import card_text, history_html, unseen

SEAT_WORDS = ("mão", "pé")

CARD_PLAY_ROUNDS = 4
"""Cards played in rounds 1 and 2: the solved game's strategy covers them; round 3 is
each side's last card, face up, with no choice."""


# ------------------------------------------------------------------ the solve


@dataclass(frozen=True)
class SolvedHand:
    """The solve that answers a mão de onze or 11 x 11 hand of one vira at one score:
    the card-play ``policy`` (probabilities per private state), the mão de onze
    ``holder`` (None at 11 x 11) and his probability of playing each hand class
    (``accept``; None at 11 x 11)."""

    kind: str
    holder: Optional[int]
    accept: Optional[np.ndarray]
    policy: CardplayPolicy


def solved_hand(vira: Card, score: tuple) -> SolvedHand:
    """The solve the advice service values at ``score`` (a mão de onze or 11 x 11), read
    as a policy (:func:`lab.advice.cardplay_game_solve`; the first call in a process
    loads it and works out its values: about a second once ``lab prepare`` has run)."""
    score = (int(score[0]), int(score[1]))
    kind, _ = hand_kind(score)
    cardplay_model(vira, score)          # the advice service's model of this hand, kept
    solved = cardplay_game_solve(vira, score, progress=False)
    if kind == ELEVEN:
        return SolvedHand(kind, solved.holder, np.asarray(solved.accept), solved.policy)
    return SolvedHand(kind, None, None, solved)


# ------------------------------------------------------------------ the hand


class ElevenPlay:
    """A mão de onze or 11 x 11 hand walked from the deal: the user holds ``hand`` (three
    Cards) in ``seat`` (0 mão, 1 pé) with ``vira`` at ``score``; ``moves`` are ``(seat,
    lab.rules.Action)`` pairs, the opponent's covered cards without their card.
    Immutable: :meth:`then` and :meth:`back` return new hands."""

    def __init__(self, solved: SolvedHand, vira: Card, hand, seat: int, score, moves=()):
        self.solved, self.vira, self.hand = solved, vira, tuple(hand)
        self.seat, self.score, self.moves = int(seat), tuple(score), tuple(moves)
        self.position = build_position(vira, self.hand, self.seat, self.score,
                                       [action for _, action in self.moves])
        self.state = self.position.state

    # ---------------------------------------------------------------- where it stands
    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def actor(self) -> Optional[int]:
        return self.state.to_act

    @property
    def your_turn(self) -> bool:
        return self.actor == self.seat

    @property
    def opponent(self) -> int:
        return 1 - self.seat

    @property
    def deciding(self) -> bool:
        """Whether the mão de onze holder has still to play the hand or run."""
        return self.state.kind == ELEVEN and not self.state.eleven_decided

    def unseen(self) -> list[Card]:
        """Cards the opponent may still show (:func:`~.shown_cards.unseen`)."""
        return unseen(self.vira, self.hand, self.seat, self.moves)

    # ---------------------------------------------------------------- moving on
    def then(self, action: Action) -> "ElevenPlay":
        return ElevenPlay(self.solved, self.vira, self.hand, self.seat, self.score,
                          self.moves + ((self.actor, action),))

    def back(self) -> "ElevenPlay":
        return ElevenPlay(self.solved, self.vira, self.hand, self.seat, self.score,
                          self.moves[:-1])

    def restart(self) -> "ElevenPlay":
        return ElevenPlay(self.solved, self.vira, self.hand, self.seat, self.score)

    # ---------------------------------------------------------------- your side
    @cached_property
    def advice(self) -> Advice:
        """The advice service's answer for the user's hand here (his turn only)."""
        return advice_for(self.position)

    # ---------------------------------------------------------------- his side
    def card_history(self) -> tuple:
        """The card play so far as the solved game sees it: each card's level, a covered
        card as COVERED."""
        return tuple(COVERED if a.kind == COVER else level(a.card, self.vira)
                     for _, a in self.moves if a.kind in (PLAY, COVER))

    @cached_property
    def opponent_range(self) -> dict:
        """``{(class, levels he holds): weight}``: the opponent's hands here, weighted by
        how likely the deal gives him the class against the user's cards (exact, by card
        counting) times the probability that the solved strategy makes his moves so far
        with it (his accept at a mão de onze included)."""
        classes = hand_classes(self.vira.rank)
        mine = classes.class_of_cards(self.hand, self.vira)
        deal = deal_weight_matrix(self.vira.rank)
        against = deal[mine] if self.seat == MAO else deal[:, mine]
        hands = {(c, tuple(int(x) for x in classes.levels[c])): float(w)
                 for c, w in enumerate(against) if w > 0}
        policy, cards = self.solved.policy, []
        for who, action in self.moves:
            if who == self.opponent and action.kind in (ACCEPT, RUN):
                accept = self.solved.accept
                hands = {(c, held): w * (accept[c] if action.kind == ACCEPT else 1 - accept[c])
                         for (c, held), w in hands.items()}
            elif action.kind in (PLAY, COVER):
                if who == self.opponent:
                    hands = self._after_card(hands, tuple(cards), action)
                cards.append(COVERED if action.kind == COVER else level(action.card, self.vira))
        return {h: w for h, w in hands.items() if w > 0}

    def _after_card(self, hands: dict, history: tuple, action: Action) -> dict:
        """The opponent's range after he plays ``action`` at the card play ``history``."""
        out: dict = {}
        for (c, held), w in hands.items():
            if len(history) < CARD_PLAY_ROUNDS:
                mix = self.solved.policy.strategy(history, self.opponent, c, held)
            else:   # round 3: his last card, face up
                mix = {("play", held[0]): 1.0}
            for (kind, lv), p in mix.items():
                shown = level(action.card, self.vira) if action.kind == PLAY else None
                if p > 0 and kind == action.kind and (shown is None or lv == shown):
                    rest = list(held)
                    rest.remove(lv)
                    key = (c, tuple(rest))
                    out[key] = out.get(key, 0.0) + w * p
        return out

    def opponent_mix(self) -> dict:
        """``{public move: probability}`` of the opponent's next move under the solved
        strategy, averaged over :attr:`opponent_range`: ``"accept"`` / ``"run"`` (his
        mão de onze decision), ``("play", level)`` or ``"cover"``."""
        hands = self.opponent_range
        total = sum(hands.values())
        mix: dict = {}
        history = self.card_history()
        for (c, held), w in hands.items():
            if self.deciding:
                p = float(self.solved.accept[c])
                moves = {"accept": p, "run": 1.0 - p}
            elif len(history) < CARD_PLAY_ROUNDS:
                moves = {}
                for (kind, lv), p in self.solved.policy.strategy(history, self.opponent, c,
                                                                 held).items():
                    move = "cover" if kind == "cover" else ("play", lv)
                    moves[move] = moves.get(move, 0.0) + p
            else:
                moves = {("play", held[0]): 1.0}
            for move, p in moves.items():
                mix[move] = mix.get(move, 0.0) + w * p / total
        return {m: p for m, p in mix.items() if p > 0}

    def opponent_action(self, move) -> Action:
        """The rules action of a public move of the opponent (a card of that level that
        nobody has seen yet; a covered card stays unknown)."""
        if move in ("accept", "run"):
            return Action(move)
        if move == "cover":
            return Action(COVER)
        card = next(c for c in self.unseen() if level(c, self.vira) == move[1])
        return Action(PLAY, card)

    # ---------------------------------------------------------------- the choices
    def options(self) -> list[tuple[Action, float, Optional[float], str]]:
        """``(rules action, probability, value, button text)`` of each move the player
        to act may take: the user's from the advice service (value: his match-win
        probability after it), the opponent's that his solved strategy makes (no value)."""
        if self.over:
            return []
        if self.your_turn:
            a = self.advice
            return [(action, p, v, self.move_text(action))
                    for action, p, v in zip(a.legal, a.strategy, a.ev)]
        actions = [(self.opponent_action(move), p)
                   for move, p in sorted(self.opponent_mix().items(), key=move_order)]
        return [(action, p, None, self.move_text(action)) for action, p in actions]

    def move_text(self, action: Action) -> str:
        """``play 5♣ (zap)``, ``run``; the opponent's as he does it: ``plays 3♥``."""
        yours = self.your_turn
        if action.kind == PLAY:
            return f"{'play' if yours else 'plays'} {card_text(action.card, self.vira)}"
        if action.kind == COVER:
            return (f"cover {card_text(action.card, self.vira)}" if yours
                    else "covers a card")
        words = {ACCEPT: ("play the hand (for 3)", "plays the hand (for 3)"),
                 RUN: ("run (give 1)", "runs (gives you 1)"),
                 SURRENDER: ("give up the hand", "gives up the hand")}
        return words[action.kind][0 if yours else 1]

    def policy_choice(self, rng: random.Random) -> Optional[Action]:
        """A move drawn from the solved strategy: the advice's on the user's turn (off the
        solved path, its best response), the opponent's averaged strategy on his."""
        options = [(action, p) for action, p, _, _ in self.options() if p > 0]
        if not options:
            return None
        weights = [p for _, p in options]
        return rng.choices([a for a, _ in options], weights=weights)[0]

    # ---------------------------------------------------------------- words
    def history(self) -> list[tuple[int, str]]:
        """``(seat, words)`` of each move so far."""
        out = []
        for who, action in self.moves:
            mine = who == self.seat
            if action.kind == PLAY:
                words = f"plays {card_text(action.card, self.vira)}"
            elif action.kind == COVER:
                words = (f"covers {card_text(action.card, self.vira)} (face down)" if mine
                         else "covers a card (face down)")
            else:
                words = {ACCEPT: "plays the hand (for 3)", RUN: "runs",
                         SURRENDER: "gives up the hand"}[action.kind]
            out.append((who, words))
        return out

    def path_values(self) -> list[tuple[str, float, bool]]:
        """``(where, value, on the solved path)`` at each of the user's decisions so far
        (the current one included): his match-win probability there under the advice,
        the solved strategy's mix of its moves' values, or off the solved path the best
        response's value."""
        out = []
        for k in range(len(self.moves) + 1):
            step = self if k == len(self.moves) else ElevenPlay(
                self.solved, self.vira, self.hand, self.seat, self.score, self.moves[:k])
            if step.over or not step.your_turn:
                continue
            a = step.advice
            value = (sum(p * v for p, v in zip(a.strategy, a.ev)) if a.on_path
                     else a.ev[a.best])
            out.append(("now" if step is self else f"move {k + 1}", float(value), a.on_path))
        return out


def move_order(item) -> tuple:
    """The opponent's moves in a fixed order: accept, run, cards strongest first, cover."""
    move, _ = item
    if move in ("accept", "run"):
        return (0, move != "accept")
    if move == "cover":
        return (2, 0)
    return (1, -move[1])


# ------------------------------------------------------------------ the page


def kind_note_html(score: tuple) -> str:
    """What kind of hand the score makes, and what the play below follows."""
    kind, holder = hand_kind(tuple(score))
    at = f"At {score[0]}–{score[1]}"
    if kind == ELEVEN:
        who = SEAT_WORDS[holder]
        return (f"<p class='lab-play-note'>{at} the hand is a <b>mão de onze</b>: the {who} "
                "holds 11, sees his cards and plays the hand for 3 or runs (the other side "
                "scores 1); then the card play, where nobody may raise (the truco ladder "
                "does not apply).</p>")
    return (f"<p class='lab-play-note'>{at} the hand is <b>11 x 11</b>: worth 3, nobody may "
            "raise (the truco ladder does not apply), and whoever wins it wins the "
            "match.</p>")


def step_html(play: ElevenPlay) -> str:
    """The current step: the hand, the moves so far, whose turn, the table of the moves
    (yours with the advice's strategy and values; his with how often he makes each)."""
    from ..widgets import TABLE_STYLE

    you, other = SEAT_WORDS[play.seat], SEAT_WORDS[play.opponent]
    cards = " ".join(card_label(c) for c in play.hand)
    label = hand_classes(play.vira.rank).labels[
        hand_classes(play.vira.rank).class_of_cards(play.hand, play.vira)]
    parts = [kind_note_html(play.score),
             f"<p>You are the <b>{you}</b> with {cards} ({html.escape(label)}), vira "
             f"{card_label(play.vira)}.</p>"]
    parts.append(history_html(play.history(), play.seat, you, other))
    parts.append(f"<p class='lab-play-turn'><b>{turn_text(play)}</b></p>")
    if play.over:
        parts.append(result_html(play))
    elif play.your_turn:
        parts.append(your_table(play))
    else:
        parts.append(opponent_table(play))
    parts.append(path_html(play))
    return TABLE_STYLE + "".join(parts)


def turn_text(play: ElevenPlay) -> str:
    if play.over:
        return "Over."
    who = "Your" if play.your_turn else f"The {SEAT_WORDS[play.actor]}'s"
    if play.deciding:
        return f"{who} decision: play the hand for 3, or run."
    return f"{who} turn: round {play.state.round_index + 1}."


def result_html(play: ElevenPlay) -> str:
    """How the hand ended: the points, and the match where they end it."""
    state = play.state
    if state.winner is None:
        return "<p class='lab-play-result'>Nobody scores.</p>"
    won, points, after = state.winner == play.seat, state.points, state.final_score
    text = f"You {'win' if won else 'lose'} <b>{points}</b> point{'s' if points != 1 else ''}"
    if max(after) >= TARGET:
        text += f": {'you win' if won else 'he wins'} the match"
    return (f"<p class='lab-play-result'>{text} ({after[0]}–{after[1]}, mão–pé).</p>")


def value_text(x: float) -> str:
    """A match-win probability as a percentage with one decimal."""
    return f"{100 * x:.1f}%"


def your_table(play: ElevenPlay) -> str:
    advice = play.advice
    best = advice.best
    rows = []
    for i, (_, p, v, text) in enumerate(play.options()):
        shown = value_text(v)
        if i == best:
            shown = f"<b>{shown}</b>"
        rows.append(f"<tr><td style='text-align:left'>{html.escape(text)}</td>"
                    f"<td>{charts.percent(p)}</td><td>{shown}</td></tr>")
    if advice.on_path:
        column, note = "the strategy plays it", ""
    else:
        column = "best response"
        note = ("<p class='lab-off-path'><i>Off the solved path (best response): the solved "
                "game never gets here with your hand (your own earlier moves are ones it does "
                "not make), so it gives no probabilities here; the move shown at 100% is the "
                "best against its play.</i></p>")
    return ("<table class='lab-table lab-strategy'><tr><th style='text-align:left'>your move"
            f"</th><th>{column}</th><th>chance to win the match</th></tr>" + "".join(rows)
            + "</table>" + note +
            "<p><small>Chance to win the match: your side's match-win probability after this "
            "move, playing your best from then on while the other side plays the solved "
            "strategy; his hands weighted by how likely he holds each given your cards and "
            "his moves so far. Exact (the advice service's numbers).</small></p>")


def opponent_table(play: ElevenPlay) -> str:
    rows = "".join(f"<tr><td style='text-align:left'>{html.escape(text)}</td>"
                   f"<td>{charts.percent(p)}</td></tr>" for _, p, _, text in play.options())
    return ("<table class='lab-table lab-strategy'><tr><th style='text-align:left'>his move"
            "</th><th>how often</th></tr>" + rows + "</table><p><small>How often: his solved "
            "strategy averaged over the hands he can hold, each weighted by how likely he "
            "holds it given your cards and his moves so far.</small></p>")


def path_html(play: ElevenPlay) -> str:
    values = play.path_values()
    if not values:
        return ""
    items = " · ".join(f"{html.escape(where)} {value_text(v)}"
                       f"{'' if on_path else ' (off the solved path: best response)'}"
                       for where, v, on_path in values)
    return (f"<p class='lab-play-value'>Value so far (your chance to win the match at each of "
            f"your moves): {items}</p>")


__all__ = ["ElevenPlay", "SolvedHand", "solved_hand", "step_html", "kind_note_html"]
