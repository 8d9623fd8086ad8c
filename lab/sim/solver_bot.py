"""The solver bot: a :class:`~lab.sim.bots.SolverBot` that plays what the lab has solved.

What it plays, and where each part comes from:

- **Normal hands: the stored full-game policy of the hand's vira**, in full: the truco
  and every raise, the answers to a raise (accept, run, re-raise) and the cards, open or
  covered, exactly as solved (:class:`~lab.policy.full.FullPolicy`, the hand game with
  the truco ladder, points per hand; its exploitability is in its manifest). The policy
  comes from a provider ``policies(vira) -> FullPolicy`` given to the bot (the lab's
  commands pass :func:`lab.tables.policies.load_full_policy`). At each turn the bot follows the
  hand on the policy (:func:`lab.policy.line.follow`) with its own dealt cards (the
  cards in hand, its open cards and the cards it covered, ``View.covered``), looks up
  the strategy of its private state at that public state and samples it.
  A vira without a stored policy is an error (the provider's TableError names the
  command that builds it); there is no fallback.
- **Score-aware where stored.** Given a second provider ``score_policies(vira, score) ->
  FullPolicy or None`` (the lab's commands pass
  :func:`lab.tables.score_policies.load_score_policy`), a normal hand at a score with a
  stored score-aware policy (the hand re-solved with match-win payoffs) plays that policy
  instead, the same way; at other scores, the points policy.
- **Outside the solved game.** Surrender and covering in round 3 are not in the solved
  game (weakly dominated, :mod:`lab.solver.fullgame.game`): the bot never takes them. If the
  opponent surrenders, the hand is over. If the opponent *leads round 3 face down*, any
  open card wins that round and with it the hand, so the bot raises whenever it may,
  accepts or re-raises every raise, and plays its last card face up: the most points it
  can win, and it wins them for sure.
- **Mão de onze.** The game solved is :func:`lab.solver.games.eleven.solve_eleven` for this vira
  and score: the holder accepts or runs, then card play worth 3, with match-win payoffs
  from the match equity (:func:`lab.solver.games.payoffs.eleven_payoffs`). The holder's
  decision: accept with probability ``accept[class]`` of its dealt class, read from the
  ``mao_de_onze`` table through the provider ``eleven_accept(vira, score) -> accept``
  when the bot is given one (the lab's commands pass :func:`lab.ranking.eleven_accept`;
  nothing is solved for it), else from a solve here. After "accept" both seats play the
  card-play strategy of that same game (public histories after ``"accept"``: the
  non-holder plays against the range that accepted). The table does not store that card
  play, so it is solved here, once per process per (vira, score), to the table's target.
- **11 x 11**: the exact card-play equilibrium of the hand's vira
  (:func:`lab.solver.games.cardplay.solve_cardplay`, win-probability payoffs). Every such hand
  is worth 3 and decides the match, so this is also its match-win equilibrium. Raises are
  locked there and at mão de onze.

Round 3 of the card-play games needs no lookup: one card is left and the solver's game
plays it face up (covering the last card is weakly dominated and pruned).

The match equities for the mão de onze payoffs come from the provider
``match_equity() -> (12, 12) p_mao`` (the lab's commands pass
:func:`lab.ranking.match_equity`). The bot reads no file: whatever it plays comes from
its providers or its own solves.

Card-play solves are lazy and kept once per machine (:mod:`lab.policy.cardplay`: one per
vira, one mão de onze solve per (vira, score), each solved the first time it is met, the
same solves the advice service values). The bot imports no solver: it reads policies. The bot object
holds only its settings and providers (it pickles small when they are module-level
functions).

Units: strategies are probabilities; full-game values are points per hand; ``equity`` is
win probability; mão de onze payoffs are match-win probabilities.
"""

from __future__ import annotations

import sys
from typing import Callable, Optional

import numpy as np

from ..cards import level
from ..classes import hand_classes, vira_rank_of
from ..rules import ACCEPT, COVER, ELEVEN, NORMAL, PLAY, RAISE, RUN, Action
from ..errors import InputError
from ..policy.cardplay import (CARDPLAY_TARGET, COVERED, ELEVEN_TARGET, CardplayPolicy,
                               ElevenPolicy, cardplay_policy, eleven_policy)
from .bots import SolverBot
from .view import View

ACCEPT_A, RUN_A, RAISE_A = Action(ACCEPT), Action(RUN), Action(RAISE)


DESCRIPTION = ("solver bot plays the stored full-game policy of each vira (truco, raises, "
               "answers and cards as solved, in points per hand, or for the match at the "
               "scores where a score-aware re-solve is stored), the solved mão de onze "
               "and the card-play equilibrium at 11 x 11, all solved for the default rules; "
               "it never surrenders")
"""The bot in one line (``lab play`` prints it after "The ")."""


# ---------------------------------------------------------------- from a view to the solvers


def cardplay_history(view: View) -> tuple:
    """The card-play public history of a view: each card as its level, a covered card as
    COVER (13); raises and their answers (and the mão de onze accept) are left out."""
    out = []
    for _, action in view.history:
        if action.kind == PLAY:
            out.append(level(action.card, view.vira))
        elif action.kind == COVER:
            out.append(COVERED)
    return tuple(out)


def dealt_cards(view: View) -> tuple:
    """The seat's three cards as dealt: in hand, played face up, and covered."""
    shown = tuple(a.card for seat, a in view.history if seat == view.seat and a.kind == PLAY)
    return tuple(view.hand) + shown + tuple(view.covered)


def dealt_levels(view: View) -> tuple:
    """Levels of the seat's cards as dealt, strongest first."""
    return tuple(sorted((view.level(c) for c in dealt_cards(view)), reverse=True))


def class_of(view: View) -> int:
    """Hand class of the seat's dealt cards."""
    return hand_classes(view.vira.rank).index_of(dealt_levels(view))


def own_history(view: View) -> list:
    """The public history with this seat's own covers naming their cards (it knows them)."""
    covered = iter(view.covered)
    return [(seat, Action(COVER, next(covered)) if seat == view.seat and a.kind == COVER
             else a) for seat, a in view.history]


def opponent_led_round3_covered(view: View) -> bool:
    """Whether the opponent led round 3 face down (outside the solved game; any open card
    of this seat now wins the round and the hand)."""
    return view.round_index == 2 and any(seat == view.opponent and card is None
                                         for seat, card in view.table)


def sure_win(view: View) -> Action:
    """The play of a hand this seat wins for sure: raise while it may (re-raising a pending
    raise), else accept a pending raise, else play the last card face up."""
    if view.can_raise:
        return RAISE_A
    if view.pending is not None:
        return ACCEPT_A
    return Action(PLAY, view.hand[0])


FullPolicies = Callable[[object], object]
"""``policies(vira) -> FullPolicy``: the stored full-game policy of a vira (TableError when
there is none)."""
ScorePolicies = Callable[[object, tuple], object]
"""``score_policies(vira, score) -> FullPolicy or None``: the stored score-aware policy of a
vira at a score (mão's, pé's points), or None where there is none."""
ElevenAccept = Callable[[object, tuple], np.ndarray]
"""``eleven_accept(vira, score) -> accept[class]``: the mão de onze holder's probability of
accepting with each hand class (:mod:`lab.classes` order)."""


class SolverStrategy:
    """``strategy(view) -> {Action: probability}`` for :class:`~lab.sim.bots.SolverBot`
    (see the module docstring for what it plays).

    ``policies``: the full-game policy provider (normal hands need it; a bot built without
    one refuses normal hands with a ValueError saying so). ``eleven_accept``: the mão de
    onze decision provider (None: solved here). ``match_equity``: ``() -> (12, 12)
    p_mao`` for the mão de onze payoffs (a bot without it refuses a mão de onze).
    ``cardplay_target`` / ``eleven_target``: target exploitability of the card-play solves
    (win probability / match-win probability); tests use looser targets.
    ``progress``: solver progress bars on stderr (None: only when stderr is a terminal).
    ``score_policies``: the score-aware policy provider (None: points play at every score).
    """

    def __init__(self, policies: Optional[FullPolicies] = None,
                 eleven_accept: Optional[ElevenAccept] = None,
                 match_equity: Optional[Callable[[], np.ndarray]] = None,
                 cardplay_target: float = CARDPLAY_TARGET, eleven_target: float = ELEVEN_TARGET,
                 max_iterations: int = 2000, progress: Optional[bool] = None,
                 score_policies: Optional[ScorePolicies] = None):
        self.policies = policies
        self.score_policies = score_policies
        self.eleven_accept = eleven_accept
        self.match_equity = match_equity
        self.cardplay_target = float(cardplay_target)
        self.eleven_target = float(eleven_target)
        self.max_iterations = int(max_iterations)
        self.progress = progress

    def _progress(self) -> bool:
        if self.progress is not None:
            return bool(self.progress)
        return sys.stderr.isatty()

    # ------------------------------------------------------------ the three games
    def cardplay(self, view: View) -> CardplayPolicy:
        return cardplay_policy(view.vira.rank, self.cardplay_target, self.max_iterations,
                               self._progress())

    def eleven(self, view: View) -> ElevenPolicy:
        if self.match_equity is None:
            raise InputError("this solver bot was built without the match equity, so it "
                             "cannot play a mão de onze; build it with "
                             "solver_bot(match_equity=lab.ranking.match_equity)")
        equity = self.match_equity()
        return eleven_policy(view.vira.rank, tuple(view.score), self.eleven_target,
                             self.max_iterations, self._progress(), equity)

    def full_policy(self, view: View):
        """The stored full-game policy of the view's vira at its score: the score-aware one
        where stored, else the points policy (the provider's error if none)."""
        if self.score_policies is not None:
            aware = self.score_policies(view.vira, tuple(view.score))
            if aware is not None:
                return aware
        if self.policies is None:
            raise InputError("this solver bot was built without full-game policies, so it "
                             "cannot play a normal hand; build it with "
                             "solver_bot(policies=lab.tables.policies.load_full_policy)")
        return self.policies(view.vira)

    # ------------------------------------------------------------ one turn
    def __call__(self, view: View) -> dict:
        if view.deciding_eleven:
            if self.eleven_accept is not None:
                accept = self.eleven_accept(view.vira, tuple(view.score))
            else:
                accept = self.eleven(view).accept
            p = float(np.clip(accept[class_of(view)], 0.0, 1.0))
            return {ACCEPT_A: p, RUN_A: 1.0 - p}
        if view.kind == NORMAL:
            return self.full_game(view)
        if len(view.hand) == 1:  # round 3: the last card, face up
            return {Action(PLAY, view.hand[0]): 1.0}
        policy = self.eleven(view).policy if view.kind == ELEVEN else self.cardplay(view)
        held = tuple(sorted((view.level(c) for c in view.hand), reverse=True))
        moves = policy.strategy(cardplay_history(view), view.seat,
                                hand_classes(view.vira.rank).index_of(dealt_levels(view)), held)
        return to_actions(moves, view)

    def full_game(self, view: View) -> dict:
        """The stored policy's strategy at this turn of a normal hand, as rules actions."""
        from ..policy.line import follow, rules_action

        policy = self.full_policy(view)
        if opponent_led_round3_covered(view):
            return {sure_win(view): 1.0}
        followed = follow(policy, view.vira, own_history(view), {view.seat: dealt_cards(view)})
        line = followed.line
        if followed.over or policy.actor(line.spot) != view.seat:
            raise ValueError("the policy's hand is not at this seat's turn")  # a bug, not input
        out: dict = {}
        for move, p in policy.strategy(line.spot, followed.states[view.seat]).items():
            if p > 0.0:
                action = rules_action(move, view.hand, view.vira)
                out[action] = out.get(action, 0.0) + p
        total = sum(out.values())
        return {a: p / total for a, p in out.items()}

    def __repr__(self) -> str:
        name = getattr(self.policies, "__name__", None) if self.policies else None
        return (f"SolverStrategy(policies={name}, cardplay_target={self.cardplay_target:g}, "
                f"eleven_target={self.eleven_target:g})")


def to_actions(moves: dict, view: View) -> dict:
    """Card-play solver moves ``("play"|"cover", level)`` as rules actions on cards in hand
    (of two cards of one level, the first in hand stands for both: they are equivalent)."""
    card_of = {}
    for card in view.hand:
        card_of.setdefault(view.level(card), card)
    out: dict = {}
    for (kind, lv), p in moves.items():
        if p <= 0.0:
            continue
        action = Action(PLAY if kind == "play" else COVER, card_of[lv])
        out[action] = out.get(action, 0.0) + p
    total = sum(out.values())
    return {a: p / total for a, p in out.items()}


def solver_bot(policies: Optional[FullPolicies] = None,
               eleven_accept: Optional[ElevenAccept] = None,
               match_equity: Optional[Callable[[], np.ndarray]] = None,
               cardplay_target: float = CARDPLAY_TARGET, eleven_target: float = ELEVEN_TARGET,
               max_iterations: int = 2000, progress: Optional[bool] = None,
               score_policies: Optional[ScorePolicies] = None) -> SolverBot:
    """A :class:`SolverBot` playing :class:`SolverStrategy` (no fallback is ever needed:
    the strategy answers every view or raises)."""
    return SolverBot(SolverStrategy(policies, eleven_accept, match_equity, cardplay_target,
                                    eleven_target, max_iterations, progress, score_policies))
