"""The mão de onze and the 11 x 11 hand, solved with payoffs in match-win probability.

Mão de onze: exactly one player (the *holder*) has 11 points. He sees his hand
and alone decides, before any card: **accept** (card play worth 3, raises
locked) or **run** (the opponent scores 1). His choice is public, so the
opponent then plays against the range that accepted. Every outcome leads to a
known score, so every payoff is a match-win probability of the hand's mão
(:class:`~lab.solver.games.payoffs.ElevenPayoffs`): the game is the card-play game of
:mod:`lab.solver.games.cardplay` with a root decision, solved exactly per vira and
score. Exploitability is reported in match-win probability.

11 x 11: card play worth 3 with no decision; whoever wins the hand wins the
match, so the mão's match-win probability is his card-play win probability.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import permutations, product
from typing import Optional

import numpy as np

from ...cards import RANKS
from ...classes import deal_weight_matrix, hand_classes, vira_rank_of
from ...rules import MAO, NOBODY, hand_winner
from .cardplay import CardplaySolution, solve_cardplay
from .cardplay_game import CardplayGame

ACCEPT, RUN = "accept", "run"



@dataclass(frozen=True)
class ElevenSolution:
    """A solved mão de onze for one vira and score.

    ``value_mao``: the mão's match-win probability; ``exploitability``: mean
    best-response gain, match-win probability; ``accept[c]``: probability that
    the holder accepts with class ``c``; ``holder_value[c]``: the holder's
    match-win probability holding class ``c``; ``p_nobody``: probability that the hand
    scores nothing (three tied rounds, under rules where that scores nothing).
    """

    vira: str
    holder: int
    value_mao: float
    exploitability: float
    iterations: int
    accept: np.ndarray
    holder_value: np.ndarray
    cardplay: Optional[CardplaySolution] = field(default=None, repr=False, compare=False)
    """The underlying solution (for strategy queries), kept only when asked for."""
    p_nobody: float = 0.0


def accept_probabilities(solution: CardplaySolution, holder: int) -> np.ndarray:
    """(403,) probability that the holder accepts with each class (average strategy)."""
    roots = CardplayGame(solution.vira, three_ties=solution.three_ties).root_state
    accept = np.empty(len(roots))
    for c, private in enumerate(roots):
        moves = {action: p for action, _, p in solution.solver.strategy_of(0, holder, int(private))}
        accept[c] = moves[ACCEPT]
    return accept


def solve_eleven(vira, holder: int, mao_wins: float, pe_wins: float, holder_runs: float,
                 target_exploitability: float = 1e-5, max_iterations: int = 2000,
                 keep_solution: bool = False, three_ties=MAO,
                 nobody: float = float("nan")) -> ElevenSolution:
    """Solve the mão de onze of ``vira`` where ``holder`` (0 = mão, 1 = pé) has 11 points.

    The three payoffs are the mão's match-win probabilities when the mão wins the
    hand, when the pé wins it, and when the holder runs. ``three_ties`` says who takes a
    hand of three tied rounds (:meth:`lab.rules.RuleSet.three_ties_winner`); where it is
    ``NOBODY``, ``nobody`` is the mão's match-win probability when the hand scores nothing.
    ``keep_solution`` keeps the card-play solution (large) for strategy queries, e.g. by
    the simulator's solver bot: its public histories start with the holder's ``"accept"``.
    """
    rank = vira_rank_of(vira)
    payoff = (mao_wins, pe_wins) + ((nobody,) if three_ties == NOBODY else ())
    sol = solve_cardplay(rank, target_exploitability=target_exploitability,
                         max_iterations=max_iterations, payoff=payoff, total=1.0,
                         decision=(holder, holder_runs), three_ties=three_ties)
    return ElevenSolution(
        vira=RANKS[rank],
        holder=holder,
        value_mao=float(sol.value),
        exploitability=float(sol.exploitability),
        iterations=int(sol.iterations),
        accept=np.clip(accept_probabilities(sol, holder), 0.0, 1.0),
        holder_value=np.clip(sol.equity[holder, : hand_classes(rank).n], 0.0, 1.0),
        cardplay=sol if keep_solution else None,
        p_nobody=float(sol.solver.outcome_probabilities()[2]) if three_ties == NOBODY else 0.0,
    )


def blind_outcomes(levels, weights, three_ties=MAO) -> tuple[float, float]:
    """The blind 11 x 11 counted exactly: (probability the mão wins, probability the hand
    scores nothing) over all deals.

    Nobody sees his own cards, so nobody can choose: each player's three cards come out in
    a uniformly random order (the six orders equally likely) and round ``k`` compares the
    two ``k``-th cards; covers are not allowed. ``levels`` (n, 3) are the classes' levels,
    ``weights`` (n, n) the exact deal weights (mão's class, pé's class), summing to 1.
    """
    levels = np.asarray(levels)
    orders = list(permutations(range(3)))
    # every way three round results can come out, decided by the reference tie table
    result_code = {r: hand_winner(tuple(None if x == 2 else x for x in r), three_ties)
                   for r in product((0, 1, 2), repeat=3)}
    win = np.zeros(weights.shape)
    nobody = np.zeros(weights.shape)
    for om, op in product(orders, orders):
        a = levels[:, om][:, None, :]  # mão's cards in this order, per class
        b = levels[:, op][None, :, :]
        rounds = np.where(a > b, 0, np.where(a < b, 1, 2))  # (n, n, 3): 0 mão, 1 pé, 2 tie
        code = rounds[..., 0] * 9 + rounds[..., 1] * 3 + rounds[..., 2]
        for r, winner in result_code.items():
            hit = code == r[0] * 9 + r[1] * 3 + r[2]
            if winner == MAO:
                win += hit
            elif winner == NOBODY:
                nobody += hit
    n = len(orders) ** 2
    return float((weights * win).sum() / n), float((weights * nobody).sum() / n)


@lru_cache(maxsize=64)
def blind_eleven_eleven(vira, three_ties=MAO) -> tuple[float, float]:
    """:func:`blind_outcomes` for the real deck of ``vira`` (cached: the match asks for it
    again at each re-solve of the 11 x 11)."""
    rank = vira_rank_of(vira)
    return blind_outcomes(hand_classes(rank).levels, deal_weight_matrix(rank), three_ties)
