"""One hand played forward against the full game's stored policy, move by move.

The user holds three cards in one seat; the other seat's cards stay hidden and are
chosen as he plays them: a card of the level he plays that nobody has seen yet. At every
step the user picks the next move of either seat, or lets the policy pick it: for the
user's hand from its own strategy, for the opponent from his strategy averaged over the
hands he can hold given the user's cards (:func:`lab.dashboards.spots.opponent_mix`).

Shown at each step: whose turn it is, the strategy of the user's hand there (off the
solved path, where the policy never gets there with it, the best response, labelled so as
the advice service labels it), the exact expected points of each of its moves
(:meth:`~lab.policy.full.Line.action_values`, worked out in the background: seconds at
the start of a hand), and the value of the hand at each of its decisions so far.
Points are points per hand for the user's side: won positive, lost negative.

At a score where a score-aware policy of the vira is stored (:mod:`lab.tables.score_policies`)
both sides play it, and the values are the user's side's match-win probability; elsewhere
they play the points policy, and the step says what points play leaks at that score.

A mão de onze or 11 x 11 hand (no truco) plays on the solved card-play model instead, with
the advice service's strategy and values for the user (:mod:`lab.dashboards.eleven_play`).
"""

from __future__ import annotations

import html
import random
import weakref
from collections import OrderedDict
from typing import Optional

import ipywidgets as W
import numpy as np

from .. import charts
from ..advice import best_index
from ..cards import Card, level
from ..rules import COVER, ELEVEN, ELEVEN_ELEVEN, PLAY, Action, hand_kind
from ..policy.line import dealt_state, follow, policy_action, rules_action
from ..policy.full import FullPolicy
from ..policy.base import PolicyError
from ..widgets import LIVE_ONLY, card_label, replace_children
from . import spots
from .background import Background
from .eleven_play import ElevenPlay, kind_note_html
from .eleven_play import step_html as eleven_step_html
from .shown_cards import card_text, history_html, unseen

# ------------------------------------------------------------------ the hand


class HandPlay:
    """A hand walked from the deal: the user holds ``hand`` (three Cards) in ``seat`` (0
    mão, 1 pé) with ``vira``; ``moves`` are ``(seat, lab.rules.Action)`` pairs. Immutable:
    :meth:`then` and :meth:`back` return new hands."""

    def __init__(self, policy: FullPolicy, vira: Card, hand, seat: int, moves=()):
        self.policy, self.vira, self.hand, self.seat = policy, vira, tuple(hand), int(seat)
        self.moves = tuple(moves)
        followed = follow(policy, vira, self.moves, {self.seat: self.hand})
        self.line = followed.line
        self.state = followed.states[self.seat]
        self.hand_class = int(policy.cards.state_class[dealt_state(policy, self.hand, vira)])

    # ---------------------------------------------------------------- where it stands
    @property
    def over(self) -> bool:
        return self.line.over

    @property
    def actor(self) -> Optional[int]:
        return None if self.over else self.policy.actor(self.line.spot)

    @property
    def your_turn(self) -> bool:
        return self.actor == self.seat

    def pair(self) -> int:
        """The user's private state at the current spot (its index in the policy's list)."""
        return self.policy.pair_of(self.line.spot.card, self.seat, self.state)

    @property
    def in_hand(self) -> tuple:
        """The user's cards not played yet."""
        gone = {a.card for s, a in self.moves if s == self.seat and a.kind in (PLAY, COVER)}
        return tuple(c for c in self.hand if c not in gone)

    def unseen(self) -> list[Card]:
        """Cards the opponent may still show (:func:`~.shown_cards.unseen`)."""
        return unseen(self.vira, self.hand, self.seat, self.moves)

    def points(self) -> int:
        """At the end: the points the user's side scores (negative when the other does)."""
        end = self.line.spot
        return end.points if end.winner == self.seat else -end.points

    # ---------------------------------------------------------------- moving on
    def then(self, action: Action) -> "HandPlay":
        return HandPlay(self.policy, self.vira, self.hand, self.seat,
                        self.moves + ((self.actor, action),))

    def back(self) -> "HandPlay":
        return HandPlay(self.policy, self.vira, self.hand, self.seat, self.moves[:-1])

    def restart(self) -> "HandPlay":
        return HandPlay(self.policy, self.vira, self.hand, self.seat)

    # ---------------------------------------------------------------- the choices
    def options(self) -> list[tuple[Action, object, str]]:
        """``(rules action, policy action, button text)`` of each move the player to act
        can make (for the opponent: each public move some hand of his could make)."""
        if self.over:
            return []
        if self.your_turn:
            return self._your_options()
        return self._opponent_options()

    def _your_options(self):
        d = self.policy.decision(self.line.spot)
        i = self.policy.pair_of(self.line.spot.card, self.seat, self.state)
        out = []
        for move in d.actions:
            if not d.legal_for(i, move):
                continue
            if isinstance(move, tuple):
                action = rules_action(move, self.in_hand, self.vira)
                verb = "play" if action.kind == PLAY else "cover"
                out.append((action, move, f"{verb} {card_text(action.card, self.vira)}"))
            else:
                out.append((Action(move), move, self._call_text(move)))
        return out

    def _opponent_options(self):
        out = []
        unseen = self.unseen()
        for move in spots.possible_actions(self.policy, self.line, self.hand_class):
            if isinstance(move, tuple):
                card = next(c for c in unseen if level(c, self.vira) == move[1])
                out.append((Action(PLAY, card), move, f"plays {card_text(card, self.vira)}"))
            elif move == spots.COVER:
                out.append((Action(COVER, unseen[0]), move, "covers a card"))
            else:
                out.append((Action(move), move, self._call_text(move)))
        return out

    def _call_text(self, move) -> str:
        """``truco!`` ...; ``accept`` / ``run`` for the user, ``accepts`` / ``runs`` for
        the opponent."""
        if self.your_turn and move in ("accept", "run"):
            return move
        return spots.short_words(self.policy, self.line.spot, move)

    def strategy(self) -> Optional[dict]:
        """The user's hand's strategy here ``{policy action: probability}``; None off the
        policy's path (its own earlier moves have probability zero under the policy: the
        hand never gets here, as the advice service says, :mod:`lab.advice`)."""
        if not self.line.reach[self.seat][self.pair()] > 0:
            return None
        try:
            return self.policy.strategy(self.line.spot, self.state)
        except PolicyError:
            return None

    def opponent_mix(self) -> tuple[dict, bool]:
        """The opponent's public moves here and their probabilities given the user's cards
        (:func:`lab.dashboards.spots.opponent_mix`)."""
        return spots.opponent_mix(self.policy, self.line, self.hand_class)

    def policy_choice(self, rng: random.Random) -> Optional[Action]:
        """A move drawn from the policy: the hand's strategy on the user's turn (off the
        path its best response, None while the values are not known), the opponent's
        averaged strategy on his."""
        options = self.options()
        if self.your_turn:
            mix = self.strategy()
            if mix is None:
                best = best_response(self, hand_values(self))
                mix = {} if best is None else {best: 1.0}
            by_move = {move: action for action, move, _ in options}
        else:
            mix, _ = self.opponent_mix()
            by_move = {move: action for action, move, _ in options}
        moves = [m for m in mix if mix[m] > 0 and m in by_move]
        if not moves:
            return None
        weights = np.array([mix[m] for m in moves])
        pick = rng.choices(range(len(moves)), weights=weights / weights.sum())[0]
        return by_move[moves[pick]]

    # ---------------------------------------------------------------- words
    def history(self) -> list[tuple[int, str]]:
        """``(seat, words)`` of each move so far, cards named as played."""
        out = []
        spot = self.policy.root()
        for seat, action in self.moves:
            if action.kind == PLAY:
                words = f"plays {card_text(action.card, self.vira)}"
            elif action.kind == COVER:
                words = (f"covers {card_text(action.card, self.vira)} (face down)"
                         if seat == self.seat
                         else "covers a card (face down)")
            else:
                words = spots.action_words(self.policy, spot, action.kind)
            out.append((seat, words))
            spot = self.policy.child(spot, policy_action(action, self.vira))
        return out


# ------------------------------------------------------------------ exact values


_VALUES: dict = {}


def cached_values(policy: FullPolicy, actions: tuple, pair: Optional[int] = None):
    """``(actions, values [action][pair])`` of the actor at the line ``actions`` (for his
    private state ``pair``, or all of them) if worked out already, else None."""
    entry = _VALUES.get(id(policy))
    if entry is None or entry[0]() is not policy:
        return None
    return entry[1].get((tuple(actions), pair))


def compute_values(policy: FullPolicy, line, pair: Optional[int] = None) -> tuple:
    """:meth:`Line.action_values` of the player to act at ``line`` (for his private state
    ``pair`` only, or all of them), remembered per line and pair (the last 256 of the
    policy in use)."""
    found = cached_values(policy, line.actions, pair)
    if found is not None:
        return found
    result = line.action_values(policy.actor(line.spot), pair)
    entry = _VALUES.get(id(policy))
    if entry is None or entry[0]() is not policy:
        _VALUES.clear()   # one policy in memory at a time
        entry = _VALUES[id(policy)] = (weakref.ref(policy), OrderedDict())
    table = entry[1]
    table[(tuple(line.actions), pair)] = result
    while len(table) > 256:
        table.popitem(last=False)
    return result


def hand_values(play: HandPlay) -> Optional[dict]:
    """``{policy action: expected points}`` of the user's hand's moves at ``play``'s spot
    (his turn), or None while not worked out."""
    i = play.pair()
    found = cached_values(play.policy, play.line.actions, i)
    if found is None:
        return None
    acts, vals = found
    return {a: float(v) for a, v in zip(acts, vals[:, i]) if not np.isnan(v)}


def best_response(play: HandPlay, values: Optional[dict]):
    """Off the solved path, the move to play: the user's move with the highest value (the
    first of equal ones, as the advice service's best response), or None while the values
    are not known."""
    if not values:
        return None
    moves = [move for _, move, _ in play.options() if move in values]
    return moves[best_index(moves, [values[m] for m in moves])]


def value_here(strategy: Optional[dict], values: Optional[dict]) -> Optional[float]:
    """The hand's expected points at a spot under the policy: its strategy's mix of the
    moves' values (None off the path or while the values are not known)."""
    if strategy is None or values is None:
        return None
    moves = [m for m, p in strategy.items() if p > 0]
    if any(m not in values for m in moves):
        return None
    total = sum(strategy[m] for m in moves)
    return sum(strategy[m] * values[m] for m in moves) / total


def path_values(play: HandPlay) -> list[tuple[str, str]]:
    """``(where, value)`` at each of the user's decisions on the way to here (the
    current one included): the hand's expected points under the policy there, signed
    (``off the path`` where the policy never gets there with the hand, ``computing…``
    while not worked out)."""
    out = []
    for k in range(len(play.moves) + 1):
        step = play if k == len(play.moves) else HandPlay(play.policy, play.vira, play.hand,
                                                            play.seat, play.moves[:k])
        if step.over or not step.your_turn:
            continue
        rnd, _ = spots.round_of(play.policy, step.line.spot)
        where = "now" if step is play else f"move {k + 1} (round {rnd})"
        strategy, values = step.strategy(), hand_values(step)
        if strategy is None and values is not None:
            text = (value_text(play, values[best_response(step, values)])
                    + " (off the solved path: best response)")
        elif strategy is None:
            text = "off the solved path"
        elif values is None:
            text = "computing…" if step is play else "—"
        else:
            text = value_text(play, value_here(strategy, values))
        out.append((where, text))
    return out


# ------------------------------------------------------------------ the widget

LOADING = '<p class="lab-loading"><i>{}</i></p>'

VALUES_DELAY = 0.3
"""Seconds a step stays on screen before its exact values are worked out, so that quick
clicks go through first: while a values' traversal runs the kernel answers no click, as
numba's kernels keep the interpreter lock. Once ``lab prepare`` has run, the values of
the deal and the first card are read from the disk cache (milliseconds) and later spots
walk only the user's hand's cards (under a second); unprepared, the deal takes seconds."""


def points_text(x: Optional[float]) -> str:
    return "—" if x is None or np.isnan(x) else f"{x:+.2f}"


def value_text(play: HandPlay, x: Optional[float]) -> str:
    """A value of ``play``'s walks for the user's side: expected points (signed), or the
    chance to win the match under a score-aware policy."""
    if play.policy.payoffs is None or x is None or np.isnan(x):
        return points_text(x)
    return charts.percent(float(play.policy.seat_value(play.seat, x)))


def strategy_note_html(policy: FullPolicy, vira: str, score: tuple[int, int]) -> str:
    """Which solved strategy both sides play at this score, and how exact it is: the
    score-aware one where stored, else points play with what it leaks here."""
    from ..tables.score import points_play_leak

    at = f"vira {html.escape(vira)} at {score[0]}–{score[1]}"
    if policy.payoffs is not None:
        return ("<p class='lab-play-strategy'><small>Both sides play the <b>score-aware</b> "
                f"strategy of {at}, solved for winning the match (exploitability "
                f"{charts.significant(policy.exploitability)} match-win probability); values are "
                "your chance to win the match.</small></p>")
    leak = points_play_leak(vira, score)
    said = ("its leak here is not measured" if leak is None else
            f"here it leaks {charts.significant(leak)} match-win probability")
    return ("<p class='lab-play-strategy'><small>Both sides play the full game's strategy "
            f"solved <b>for points</b> (exploitability {charts.significant(policy.exploitability)} "
            f"points per hand): no score-aware strategy is stored for {at}, so play falls back "
            f"to points play; {said}. Values are expected points.</small></p>")


class HandPlayer(W.VBox):
    """The hand explorer's play section: :class:`HandPlay` with buttons (at a mão de onze
    or 11 x 11, :class:`~lab.dashboards.eleven_play.ElevenPlay`). The whole section is
    replaced at once on every change (never half redrawn). ``says_model``: whether each
    step says which solved strategy both sides play (a page that says it once above
    turns it off)."""

    def __init__(self, background: Optional[Background] = None,
                 rng: Optional[random.Random] = None):
        super().__init__()
        self.add_class("lab-play")
        self.add_class(LIVE_ONLY)   # a published page cannot play
        self.background = background or Background()
        self.rng = rng or random.Random()
        self.policy: Optional[FullPolicy] = None
        self.policy_key: Optional[tuple] = None   # (vira, score of a score-aware policy or None)
        self.play: Optional[HandPlay] = None
        self.eleven: Optional[ElevenPlay] = None   # the hand at a mão de onze or 11 x 11
        self.says_model = True
        self.pick = None
        self.failures: dict = {}
        self.stage = W.VBox()
        self.children = [W.HTML("<h3 style='margin:12px 0 4px'>Play the hand forward</h3>"
                                "<small>Pick each move of either side, or let the solved "
                                "strategy pick it; the other side's cards stay hidden and "
                                "show as he plays them.</small>"), self.stage]

    # ---------------------------------------------------------------- from the explorer
    def show(self, vira: Card, hand, seat: int, score: tuple[int, int]) -> None:
        """Start the hand over for these picks (or say why it cannot be played)."""
        self.pick = (vira, tuple(hand), int(seat), tuple(score))  # a late load checks it all
        self.play = self.eleven = None
        kind = hand_kind(score)[0]
        if kind in (ELEVEN, ELEVEN_ELEVEN):
            self._show_eleven()
            return
        from ..tables.policies import load_full_policy
        from ..tables.score_policies import load_score_policy, score_policy_info

        v = vira.rank_char
        aware = score_policy_info(v, score) is not None
        key = (v, tuple(score) if aware else None)
        if self.policy is not None and self.policy_key == key:
            self._start(self.policy)
            return
        self.policy = None   # one policy in memory at a time: let the old one go first
        what = (f"the score-aware strategy of vira {html.escape(v)} at {score[0]}–{score[1]}"
                if aware else f"the solved strategy of vira {html.escape(v)}")
        self._replace([W.HTML(LOADING.format(f"loading {what}…"))])
        pick = self.pick
        self.background.submit("load",
                               (lambda: load_score_policy(v, score)) if aware
                               else (lambda: load_full_policy(v)),
                               lambda policy: pick == self.pick and self._start(policy, key),
                               lambda exc: pick == self.pick and self._missing(exc))

    def _show_eleven(self) -> None:
        """Load the solved model of a mão de onze or 11 x 11 hand, then start it."""
        from .eleven_play import solved_hand

        vira, _, _, score = pick = self.pick
        what = "the solved mão de onze" if hand_kind(score)[0] == ELEVEN else "the solved 11 x 11"
        self._replace([W.HTML(kind_note_html(score) + LOADING.format(f"loading {what}…"))])
        self.background.submit("load", lambda: solved_hand(vira, score),
                               lambda solved: pick == self.pick and self._start_eleven(solved),
                               lambda exc: pick == self.pick and self._eleven_failed(exc))

    def _start_eleven(self, solved) -> None:
        vira, hand, seat, score = self.pick
        self.eleven = ElevenPlay(solved, vira, hand, seat, score)
        self.render()

    def _eleven_failed(self, exc: Exception) -> None:
        self._replace([W.HTML(kind_note_html(self.pick[3]) + eleven_missing_html(exc))])

    def _missing(self, exc: Exception) -> None:
        from ..tables.policies import rebuild_command

        vira = self.pick[0].rank_char
        self._replace([W.HTML(policy_missing_html(exc, rebuild_command(vira)))])

    def _start(self, policy: FullPolicy, key: Optional[tuple] = None) -> None:
        self.policy = policy
        self.policy_key = key or self.policy_key
        self.failures.clear()
        vira, hand, seat, _ = self.pick
        self.play = HandPlay(policy, vira, hand, seat)
        self.render()

    # ---------------------------------------------------------------- moves
    @property
    def hand(self):
        """The hand on screen: the :class:`HandPlay`, or the mão de onze / 11 x 11 one."""
        return self.eleven if self.eleven is not None else self.play

    def _move_to(self, hand) -> None:
        if self.eleven is not None:
            self.eleven = hand
        else:
            self.play = hand
        self.render()

    def act(self, action: Action) -> None:
        self._move_to(self.hand.then(action))

    def policy_moves(self) -> None:
        action = self.hand.policy_choice(self.rng)
        if action is not None:
            self.act(action)

    def back(self) -> None:
        if self.hand.moves:
            self._move_to(self.hand.back())

    def restart(self) -> None:
        self._move_to(self.hand.restart())

    # ---------------------------------------------------------------- drawing
    def render(self) -> None:
        """Draw the current step (with its values when known; asks for them if not)."""
        if self.eleven is not None:
            self._render_eleven()
            return
        play = self.play
        waiting = play.your_turn and hand_values(play) is None
        key = play.line.actions
        if waiting and key not in self.failures:
            self.background.submit(
                "values", lambda: compute_values(play.policy, play.line, play.pair()),
                lambda _: self.play is play and self.render(),
                lambda exc: self._values_failed(play, exc), delay=VALUES_DELAY)
            if hand_values(play) is not None or key in self.failures:
                return   # worked out at once (no kernel): drawn by the callback
        vira, score = self.pick[0].rank_char, self.pick[3]
        note = strategy_note_html(play.policy, vira, score) if self.says_model else ""
        stuck = play.your_turn and play.strategy() is None and hand_values(play) is None
        self._replace([W.HTML(note + step_html(play, self.failures.get(key))),
                       *self._controls([(action, text) for action, _, text in play.options()],
                                       play.over or stuck)])

    def _render_eleven(self) -> None:
        hand = self.eleven
        moves = [(action, text) for action, _, _, text in hand.options()]
        self._replace([W.HTML(eleven_step_html(hand)), *self._controls(moves, hand.over)])

    def _controls(self, moves, no_choice: bool) -> list:
        """The row of move buttons (``(rules action, text)`` each) with "let the policy
        choose" (disabled when ``no_choice``), and the row of back and restart."""
        hand = self.hand
        buttons = []
        for action, text in moves:
            button = W.Button(description=text, layout=W.Layout(width="auto"))
            button.on_click(lambda _, a=action: self.act(a))
            buttons.append(button)
        choose = W.Button(description="let the policy choose", icon="random",
                          button_style="info", layout=W.Layout(width="auto"))
        choose.on_click(lambda _: self.policy_moves())
        choose.disabled = no_choice
        back = W.Button(description="back", icon="undo", layout=W.Layout(width="auto"),
                        disabled=not hand.moves)
        back.on_click(lambda _: self.back())
        restart = W.Button(description="restart", icon="refresh",
                           layout=W.Layout(width="auto"), disabled=not hand.moves)
        restart.on_click(lambda _: self.restart())
        who = "your" if hand.your_turn else "his"
        row = W.HBox([W.Label(f"{who} move:" if not hand.over else ""), *buttons, choose],
                     layout=W.Layout(flex_flow="row wrap", align_items="center"))
        return [row, W.HBox([back, restart])]

    def _values_failed(self, play: HandPlay, exc: Exception) -> None:
        self.failures[play.line.actions] = f"{type(exc).__name__}: {exc}"
        if self.play is play:
            self.render()

    def _replace(self, children) -> None:
        replace_children(self.stage, children)


def eleven_missing_html(exc: Exception) -> str:
    """The solved model of a mão de onze or 11 x 11 could not be had: the message."""
    return ('<div class="lab-missing" style="padding:8px 12px;border-left:4px solid #d98c00;'
            'background:#fff8e6;margin:4px 0"><b>solved card play unavailable</b>: '
            f"{html.escape(str(exc))}</div>")


def policy_missing_html(exc: Exception, fallback: str) -> str:
    """A missing or unreadable stored policy: the command that builds it (from the
    TableError's message) and the message."""
    text = str(exc)
    command = text.split("`")[1] if text.count("`") >= 2 else fallback
    return (f'<div class="lab-missing" style="padding:8px 12px;border-left:4px solid #d98c00;'
            f'background:#fff8e6;margin:4px 0"><b>solved strategy missing</b>: run '
            f"<code>{html.escape(command)}</code><br><small style='color:#666'>"
            f"{html.escape(text)}</small></div>")


def step_html(play: HandPlay, failure: Optional[str] = None) -> str:
    """The current step as HTML: the hand, the moves so far, whose turn, the strategy
    table and the values."""
    you = spots.SEAT_WORDS[play.seat]
    other = spots.SEAT_WORDS[1 - play.seat]
    cards = " ".join(card_label(c) for c in play.hand)
    label = play.policy.cards.labels[play.hand_class]
    parts = [f"<p>You are the <b>{you}</b> with {cards} ({html.escape(label)}), vira "
             f"{card_label(play.vira)}.</p>"]
    parts.append(history_html(play.history(), play.seat, you, other))
    parts.append(f"<p class='lab-play-turn'><b>{turn_text(play)}</b> "
                 f"{html.escape(spots.spot_words(play.policy, play.line))}</p>")
    if play.over:
        points = play.points()
        parts.append(f"<p class='lab-play-result'>You {'win' if points > 0 else 'lose'} "
                     f"<b>{abs(points)}</b> point{'s' if abs(points) != 1 else ''}.</p>")
    elif play.your_turn:
        parts.append(your_table(play, failure))
    else:
        parts.append(opponent_table(play))
    parts.append(path_html(play))
    return charts_style() + "".join(parts)


def turn_text(play: HandPlay) -> str:
    if play.over:
        return "Over."
    return "Your turn." if play.your_turn else f"The {spots.SEAT_WORDS[play.actor]}'s turn."


def your_table(play: HandPlay, failure: Optional[str]) -> str:
    strategy = play.strategy()
    values = hand_values(play)
    best = max(values.values()) if values else None
    if strategy is None:   # off the solved path: the best response, once the values are in
        chosen = best_response(play, values)
        shown_mix = None if chosen is None else {chosen: 1.0}
    else:
        shown_mix = strategy
    rows = []
    for _, move, text in play.options():
        p = "—" if shown_mix is None else charts.percent(shown_mix.get(move, 0.0))
        if values is not None:
            v = values.get(move)
            shown = value_text(play, v)
            if v is not None and best is not None and v >= best - 1e-9:
                shown = f"<b>{shown}</b>"
        elif failure:
            shown = "failed"
        else:
            shown = "<span class='lab-computing'>computing…</span>"
        rows.append(f"<tr><td style='text-align:left'>{html.escape(text)}</td><td>{p}</td>"
                    f"<td>{shown}</td></tr>")
    note, column_mix = "", "the strategy plays it"
    if strategy is None:
        column_mix = "best response"
        note = ("<p class='lab-off-path'><i>Off the solved path (best response): the solved "
                "strategy never gets here with this hand (your own earlier moves are ones it "
                "does not make with it), so it gives no probabilities here; the move at 100% "
                "is the best against its play, once the values are in.</i></p>")
    if failure:
        note += f"<p style='color:#a00'>values failed: {html.escape(failure)}</p>"
    if play.policy.payoffs is None:
        column, what = "expected points", ("Expected points: what the hand scores on average "
                                           "(won +, lost −)")
    else:
        column, what = "chance to win the match", ("Chance to win the match: your side's "
                                                   "match-win probability")
    return ("<table class='lab-table lab-strategy'><tr><th style='text-align:left'>your move"
            f"</th><th>{column_mix}</th><th>{column}</th></tr>"
            + "".join(rows) + "</table>" + note +
            f"<p><small>{what} after this move, playing its best from then on while the other "
            "side plays the solved strategy; his hands weighted by how likely he holds each "
            "given your cards and his moves so far. Exact.</small></p>")


def opponent_table(play: HandPlay) -> str:
    mix, on_path = play.opponent_mix()
    rows = "".join(f"<tr><td style='text-align:left'>{html.escape(text)}</td>"
                   f"<td>{charts.percent(mix.get(move, 0.0))}</td></tr>"
                   for _, move, text in play.options())
    note = ("his strategy averaged over the hands he can hold, each weighted by how likely "
            "he holds it given your cards and his moves so far")
    if not on_path:
        note = ("his moves so far are off the solved strategy's path (no hand of his plays "
                "them): his hands are weighted by the deal only")
    return ("<table class='lab-table lab-strategy'><tr><th style='text-align:left'>his move"
            "</th><th>how often</th></tr>" + rows + f"</table><p><small>How often: {note}."
            "</small></p>")


def path_html(play: HandPlay) -> str:
    values = path_values(play)
    if not values:
        return ""
    items = " · ".join(f"{html.escape(where)} {text}" for where, text in values)
    what = ("expected points of your hand" if play.policy.payoffs is None
            else "your chance to win the match")
    return (f"<p class='lab-play-value'>Value so far ({what} under the solved strategy at "
            f"each of your moves): {items}</p>")


def charts_style() -> str:
    from ..widgets import TABLE_STYLE

    return TABLE_STYLE
