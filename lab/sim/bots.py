"""Bots: players that choose an action from what their seat may see.

Every bot has one method, ``act(view, rng) -> Action``: ``view`` is a
:class:`lab.sim.view.View` (own cards, vira, score, ladder, public history, legal actions;
never the opponent's cards) and ``rng`` a :class:`random.Random` that is the bot's only
source of chance. The returned action is always one of ``view.legal``.

The fixed bots, in words ("strong" cards are judged on the cards still in hand):

- ``random``: a uniformly random legal action.
- ``cautious``: at mão de onze plays only holding a manilha or a 3; calls truco (1 -> 3)
  only holding a manilha and never raises higher; answers a raise by accepting with a
  manilha or a 3, else runs; plays its weakest card that still wins the round, else its
  weakest card (leading, its weakest card); never covers, never surrenders.
- ``aggressive``: raises whenever it may and holds a card of 2 or better (a 2, a 3 or a
  manilha); answers a raise by re-raising with two manilhas, else accepts unless every
  card it holds is a 4, 5, 6 or 7 (then it runs); plays mão de onze unless every card is
  a 4, 5, 6 or 7; leads its strongest card, follows with the weakest card that wins the
  round, else its weakest; never covers, never surrenders.
- :class:`SolverBot`: plays a strategy given as a callable ``strategy(view) ->
  {Action: probability}`` (the card-play solver's per-vira strategies plug in here).
- ``solver``: a SolverBot playing what the lab has solved (:mod:`lab.sim.solver_bot`): the
  stored full-game policy in normal hands (truco, answers and cards), the solved mão de
  onze and 11 x 11 card play; it never surrenders. It takes the stored policies and
  tables as providers, so it is built where they are read:
  :func:`lab.ranking.command_bot` (``make_bot`` names it but does not build it).

The style bots, for testing how the solver exploits a style. "Live cards" are the cards in
hand plus the bot's own open card on the table in the round being played (a raise may come
after it has led); a card "of 2 or better" is a plain 2, a plain 3 or a manilha, one "of 3
or better" a plain 3 or a manilha. None of them draws on ``rng``, covers a card or
surrenders:

- ``maniac``: raises whenever it may (the truco and 6, 9, 12 on its turn to play, and a
  re-raise when answering a raise); accepts every raise it cannot re-raise (an offer of
  12); plays every mão de onze; card play like ``aggressive`` (leads its strongest card,
  follows with the weakest card that wins the round, else its weakest).
- ``station``: never raises; accepts every raise; plays every mão de onze; card play like
  ``cautious``.
- ``nit``: plays only strong hands, and plays them hard. Strong, on the live cards and the
  rounds won so far (a tied round counts for nobody): ahead in rounds (it won a round, the
  opponent none), a card of 3 or better; level (no round decided, ties only, or one round
  each), a manilha or two cards of 3 or better; behind (the opponent won a round, it none),
  two cards of 3 or better. Strong: raises whenever it may (re-raises included) and
  accepts a raise it cannot re-raise; otherwise never raises and runs from every raise.
  Plays a mão de onze only when strong (judged on its three cards); card play like
  ``cautious``.
- ``bluffer``: bluffs with its weakest hands and slow-plays its strong ones. On the live
  cards: weak (no card of 2 or better: every card a plain 4, 5, 6, 7, Q, J, K or A) it
  raises whenever it may, answers a raise by re-raising when it may, else (an offer of
  12) runs, and runs from a mão de onze; strong (a manilha) it never raises and accepts
  every raise (slow play); medium (a 2 or a 3, no manilha) it never raises and accepts
  every raise; it plays a mão de onze unless weak; card play like ``cautious``.

Under any rule set the bots play the same way; the solver bot's strategies are solved for
the default rules. At a blind 11 x 11 nobody sees his own cards, so no bot is asked there:
:func:`decide` draws the card.
"""

from __future__ import annotations

import random
from typing import Callable, Mapping, Optional

from ..cards import N_PLAIN, RANKS, Card
from ..rules import ACCEPT, PLAY, RAISE, RUN, Action
from .view import View
from ..errors import InputError

RAISE_A, ACCEPT_A, RUN_A = Action(RAISE), Action(ACCEPT), Action(RUN)
WEAK_RANKS = frozenset(RANKS.index(r) for r in "4567")
TWO_OR_BETTER = frozenset(RANKS.index(r) for r in "23")


class Bot:
    """A player: ``act(view, rng)`` returns one of ``view.legal``.

    A bot that learns from its opponent also hears, from whoever runs the match
    (:func:`lab.sim.match.play_match`, ``lab play``): ``begin_match(opponent)`` with the
    opponent's name, ``begin_hand()`` at each deal, ``observe(view, action)`` after each
    move of the opponent (his view, so his cards: what the record of the hand shows),
    ``end_hand(points)`` and ``end_match()``; the fixed bots ignore them."""

    name = "bot"

    def act(self, view: View, rng: random.Random) -> Action:
        raise NotImplementedError

    def begin_match(self, opponent: str) -> None:
        """A match against the player named ``opponent`` starts."""

    def begin_hand(self) -> None:
        """A hand is dealt."""

    def observe(self, view: View, action: Action) -> None:
        """The opponent took ``action`` at ``view`` (his view)."""

    def end_hand(self, points: int) -> None:
        """The hand is over: ``points`` is what this bot scored in it less what the
        opponent scored (0 when nobody scored)."""

    def end_match(self) -> None:
        """The match is over."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class RandomBot(Bot):
    """A uniformly random legal action."""

    name = "random"

    def act(self, view: View, rng: random.Random) -> Action:
        return view.legal[rng.randrange(len(view.legal))]


# ---------------------------------------------------------------- helpers for rule bots


def is_manilha(view: View, card: Card) -> bool:
    return view.level(card) >= N_PLAIN


def manilhas(view: View) -> int:
    """How many manilhas the seat holds."""
    return sum(is_manilha(view, c) for c in view.hand)


def holds_rank(view: View, ranks) -> bool:
    """Whether the seat holds a plain card of one of ``ranks`` (rank indexes)."""
    return any(c.rank in ranks and not is_manilha(view, c) for c in view.hand)


def all_weak(view: View) -> bool:
    """Whether every card in hand is a plain 4, 5, 6 or 7."""
    return all(c.rank in WEAK_RANKS and not is_manilha(view, c) for c in view.hand)


def play_card(view: View, lead_strongest: bool) -> Action:
    """Follow with the weakest card that wins the round, else the weakest card; lead with
    the strongest card (``lead_strongest``) or the weakest. Always face up."""
    by_strength = sorted(view.hand, key=view.level)
    played, theirs = view.opponent_card_on_table()
    if played:
        if theirs is not None:
            for card in by_strength:
                if view.level(card) > view.level(theirs):
                    return Action(PLAY, card)
        return Action(PLAY, by_strength[0])
    return Action(PLAY, by_strength[-1] if lead_strongest else by_strength[0])


class CautiousBot(Bot):
    """Bets only on manilhas (see the module docstring)."""

    name = "cautious"

    def act(self, view: View, rng: random.Random) -> Action:
        strong = manilhas(view) > 0 or holds_rank(view, {RANKS.index("3")})
        if view.deciding_eleven or view.pending is not None:
            return ACCEPT_A if strong else RUN_A
        if view.can_raise and view.value == 1 and manilhas(view) > 0:
            return RAISE_A
        return play_card(view, lead_strongest=False)


class AggressiveBot(Bot):
    """Raises on any card of 2 or better (see the module docstring)."""

    name = "aggressive"

    def act(self, view: View, rng: random.Random) -> Action:
        if view.deciding_eleven:
            return RUN_A if all_weak(view) else ACCEPT_A
        if view.pending is not None:
            if view.can_raise and manilhas(view) >= 2:
                return RAISE_A
            return RUN_A if all_weak(view) else ACCEPT_A
        if view.can_raise and (manilhas(view) > 0 or holds_rank(view, TWO_OR_BETTER)):
            return RAISE_A
        return play_card(view, lead_strongest=True)


# ---------------------------------------------------------------- style bots

THREE = RANKS.index("3")


def live_cards(view: View) -> tuple[Card, ...]:
    """The cards in hand plus the seat's own open card on the table in this round."""
    mine = tuple(card for seat, card in view.table if seat == view.seat and card is not None)
    return tuple(view.hand) + mine


def three_or_better(view: View, cards) -> int:
    """How many of ``cards`` are a plain 3 or a manilha."""
    return sum(is_manilha(view, c) or c.rank == THREE for c in cards)


def two_or_better(view: View, cards) -> int:
    """How many of ``cards`` are a plain 2, a plain 3 or a manilha."""
    return sum(is_manilha(view, c) or c.rank in TWO_OR_BETTER for c in cards)


def nit_strong(view: View) -> bool:
    """The nit's "strong" (see the module docstring): on the live cards and the rounds won
    so far, ahead a card of 3 or better, level a manilha or two cards of 3 or better, behind
    two cards of 3 or better."""
    cards = live_cards(view)
    won = sum(w == view.seat for w in view.rounds)
    lost = sum(w == view.opponent for w in view.rounds)
    top = three_or_better(view, cards)
    if won > lost:
        return top >= 1
    if won == lost:
        return top >= 2 or any(is_manilha(view, c) for c in cards)
    return top >= 2


def bluffer_tier(view: View) -> str:
    """The bluffer's reading of its live cards: ``strong`` (a manilha), ``weak`` (no card
    of 2 or better) or ``medium``."""
    cards = live_cards(view)
    if any(is_manilha(view, c) for c in cards):
        return "strong"
    return "medium" if two_or_better(view, cards) else "weak"


class ManiacBot(Bot):
    """Raises whenever it may, accepts everything else (see the module docstring)."""

    name = "maniac"

    def act(self, view: View, rng: random.Random) -> Action:
        if view.deciding_eleven:
            return ACCEPT_A
        if view.can_raise:
            return RAISE_A
        if view.pending is not None:
            return ACCEPT_A
        return play_card(view, lead_strongest=True)


class StationBot(Bot):
    """Never raises, accepts every raise and every mão de onze (see the module docstring)."""

    name = "station"

    def act(self, view: View, rng: random.Random) -> Action:
        if view.deciding_eleven or view.pending is not None:
            return ACCEPT_A
        return play_card(view, lead_strongest=False)


class NitBot(Bot):
    """Plays only strong hands, and those hard (see the module docstring)."""

    name = "nit"

    def act(self, view: View, rng: random.Random) -> Action:
        strong = nit_strong(view)
        if view.deciding_eleven:
            return ACCEPT_A if strong else RUN_A
        if strong and view.can_raise:
            return RAISE_A
        if view.pending is not None:
            return ACCEPT_A if strong else RUN_A
        return play_card(view, lead_strongest=False)


class BlufferBot(Bot):
    """Bluffs weak hands, slow-plays strong ones (see the module docstring)."""

    name = "bluffer"

    def act(self, view: View, rng: random.Random) -> Action:
        weak = bluffer_tier(view) == "weak"
        if view.deciding_eleven:
            return RUN_A if weak else ACCEPT_A
        if weak and view.can_raise:
            return RAISE_A
        if view.pending is not None:
            return RUN_A if weak else ACCEPT_A
        return play_card(view, lead_strongest=False)


Strategy = Callable[[View], Optional[Mapping[Action, float]]]
"""A strategy: the probability of each legal action at a view (None where it has none)."""


class SolverBot(Bot):
    """Plays ``strategy(view) -> {Action: probability}``; where the strategy returns None
    or an empty mapping (a point it does not cover), the ``fallback`` bot acts instead.

    Probabilities must be non-negative, name only legal actions and sum to 1 (within
    1e-6); anything else raises ValueError, so a broken strategy cannot pass unnoticed.
    """

    name = "solver"

    def __init__(self, strategy: Strategy, fallback: Optional[Bot] = None):
        self.strategy = strategy
        self.fallback = fallback if fallback is not None else RandomBot()

    def act(self, view: View, rng: random.Random) -> Action:
        dist = self.strategy(view)
        if not dist:
            return self.fallback.act(view, rng)
        illegal = [a for a in dist if a not in view.legal]
        if illegal:
            raise ValueError(f"strategy offers illegal actions {[str(a) for a in illegal]}")
        probs = [float(dist.get(a, 0.0)) for a in view.legal]
        if min(probs) < 0 or abs(sum(probs) - 1.0) > 1e-6:
            raise ValueError(f"strategy probabilities {probs} are not a distribution")
        r = rng.random() * sum(probs)
        for action, p in zip(view.legal, probs):
            r -= p
            if r < 0 and p > 0:
                return action
        return next(a for a, p in zip(reversed(view.legal), reversed(probs)) if p > 0)

    def __repr__(self) -> str:
        return f"SolverBot({self.strategy!r})"


def decide(bot: Bot, view: View, rng: random.Random) -> Action:
    """What ``bot`` plays at ``view``. At a blind 11 x 11 the seat cannot see its cards, so
    whatever the bot it plays one of them drawn uniformly with ``rng`` (surrendering there
    would only give up what losing gives up)."""
    if view.blind:
        return Action(PLAY, view.hand[rng.randrange(len(view.hand))])
    return bot.act(view, rng)


RULE_BOTS = {"random": RandomBot, "cautious": CautiousBot, "aggressive": AggressiveBot}
STYLE_BOTS = {"maniac": ManiacBot, "station": StationBot, "nit": NitBot, "bluffer": BlufferBot}
BOTS = {**RULE_BOTS, **STYLE_BOTS}
"""The fixed bots, by name."""

BOT_NAMES = (*RULE_BOTS, "solver", "exploiter", *STYLE_BOTS)
"""Bots that can be named on the command line: the fixed bots, ``solver`` (a SolverBot
playing the stored full-game policies and the solved mão de onze and 11 x 11,
:mod:`lab.sim.solver_bot`) and ``exploiter`` (the solver until it knows its opponent's
habits, then a safe exploit of them: :mod:`lab.exploiter`), the style bots last."""


def check_bot_name(name) -> None:
    """Raise InputError unless ``name`` is one of :data:`BOT_NAMES`."""
    if name not in BOT_NAMES:
        raise InputError(f"{name!r}: unknown bot (choose one of {', '.join(BOT_NAMES)})")


def make_bot(name) -> Bot:
    """A bot from its name (or the bot itself); ValueError naming the choices otherwise."""
    if isinstance(name, Bot):
        return name
    if name in ("solver", "exploiter"):
        build = ("lab.ranking.command_bot('solver')" if name == "solver" else
                 "lab.exploiter.stored_exploiter_bot()")
        raise InputError(f"the {name} bot plays the stored policies and tables: build it "
                         f"with {build}")
    check_bot_name(name)
    return BOTS[name]()
