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
    """A player: ``act(view, rng)`` returns one of ``view.legal``."""

    name = "bot"

    def act(self, view: View, rng: random.Random) -> Action:
        raise NotImplementedError

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


BOTS = {"random": RandomBot, "cautious": CautiousBot, "aggressive": AggressiveBot}
"""The fixed bots, by name."""

BOT_NAMES = (*BOTS, "solver")
"""Bots that can be named on the command line: the fixed bots and ``solver`` (a SolverBot
playing the stored full-game policies and the solved mão de onze and 11 x 11,
:mod:`lab.sim.solver_bot`)."""


def check_bot_name(name) -> None:
    """Raise InputError unless ``name`` is one of :data:`BOT_NAMES`."""
    if name not in BOT_NAMES:
        raise InputError(f"{name!r}: unknown bot (choose one of {', '.join(BOT_NAMES)})")


def make_bot(name) -> Bot:
    """A bot from its name (or the bot itself); ValueError naming the choices otherwise."""
    if isinstance(name, Bot):
        return name
    if name == "solver":
        raise InputError("the solver bot plays the stored policies and tables: build it with "
                         "lab.ranking.command_bot('solver')")
    check_bot_name(name)
    return BOTS[name]()
