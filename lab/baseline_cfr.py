"""A textbook CFR on the card-play game: the baseline the public-tree solver is timed against.

Vanilla counterfactual regret minimisation (Zinkevich et al. 2007, in the form
of Neller & Lanctot's tutorial): plain Python, one regret table per
*information set*, a full recursive walk of the game tree for every deal of
classes in every iteration.

The game is the card-play game of one vira (stake fixed, no betting): chance
deals class ``i`` to the mão and ``j`` to the pé with the exact weight
``w[i, j]``; then cards are played as in docs/rules.md, covers allowed from round 2.
An information set is (seat, own class, own cards still held, public history);
the public history lists each card shown as ``("play", level)`` and a covered
card as ``("cover",)`` -- which card went face down is known only to its owner,
through the cards he still holds. Utilities are the mão's win probability; the
pé's is one minus it.

This is deliberately the plain method: its cost per iteration is the number of
(deal, history) pairs, about 10^8 for one vira.
"""

from __future__ import annotations

import time

import numpy as np

from .classes import deal_weight_matrix, hand_classes
from .solver.games.double_dummy import COVERED, MAO, TIE, decided_winner, moves, round_result


class InfoSet:
    """Cumulative regrets and strategy weights of one information set."""

    __slots__ = ("regret", "strategy_sum", "current", "iteration")

    def __init__(self, n_actions: int):
        self.regret = [0.0] * n_actions
        self.strategy_sum = [0.0] * n_actions
        self.current: list[float] = []
        self.iteration = -1

    def strategy(self, iteration: int) -> list[float]:
        """This iteration's strategy, fixed at the first visit of the iteration (later visits
        in the same iteration must not see the regrets it has already added)."""
        if self.iteration != iteration:
            self.current = self.regret_matching()
            self.iteration = iteration
        return self.current

    def regret_matching(self) -> list[float]:
        """Positive regrets normalised, uniform when none is positive."""
        positive = [r if r > 0 else 0.0 for r in self.regret]
        total = sum(positive)
        if total > 0:
            return [p / total for p in positive]
        return [1.0 / len(positive)] * len(positive)

    def average_strategy(self) -> list[float]:
        total = sum(self.strategy_sum)
        if total > 0:
            return [s / total for s in self.strategy_sum]
        return [1.0 / len(self.strategy_sum)] * len(self.strategy_sum)


class BaselineCFR:
    """Vanilla CFR over information sets for the card-play game of one vira.

    ``deals`` (default: every pair of classes with positive weight) restricts chance to
    some deals, renormalising their weights: the benchmark times a sample of deals.
    Covering the last card in round 3 is weakly dominated; like the solver's card-play
    game, the baseline leaves it out unless ``cover_in_round3``.
    """

    def __init__(self, vira, deals=None, cover_in_round3: bool = False):
        self.cover_in_round3 = cover_in_round3
        self.classes = hand_classes(vira)
        w = deal_weight_matrix(vira)
        if deals is None:
            deals = [tuple(ij) for ij in np.argwhere(w > 0)]
        total = sum(w[i, j] for i, j in deals)
        if not total > 0:
            raise ValueError("the deals given cannot happen (zero total weight)")
        self.deals = [(int(i), int(j), float(w[i, j] / total)) for i, j in deals]
        self.hands = [tuple(int(x) for x in row) for row in self.classes.levels]
        self.infosets: dict = {}
        self.t = 0  # iterations done

    def iterate(self) -> float:
        """One CFR iteration over every deal; returns the mão's win probability under the
        current strategies (before this iteration's update)."""
        value = 0.0
        for i, j, weight in self.deals:
            value += weight * self.cfr((self.hands[i], self.hands[j]), (i, j), (), (), MAO,
                                       None, weight, weight)
        self.t += 1
        return value

    def moves(self, hand, round_index: int) -> list:
        """(table strength, cards kept) of each move; see lab.solver.games.double_dummy.moves."""
        options = moves(hand, round_index)
        if round_index == 2 and not self.cover_in_round3:
            options = [m for m in options if m[0] != COVERED]
        return options

    def average_value(self) -> float:
        """The mão's win probability when both play their average strategies."""
        return sum(weight * self.evaluate((self.hands[i], self.hands[j]), (i, j), (), (), MAO,
                                          None)
                   for i, j, weight in self.deals)

    def evaluate(self, hands, classes, history, rounds, leader, lead) -> float:
        """The mão's expected win probability from this state under the average strategies."""
        winner = decided_winner(rounds)
        if winner is not None:
            return 1.0 if winner == MAO else 0.0
        player = leader if lead is None else 1 - leader
        options = self.moves(hands[player], len(rounds))
        node = self.infosets.get((player, classes[player], hands[player], history))
        strategy = node.average_strategy() if node else [1.0 / len(options)] * len(options)
        value = 0.0
        for (strength, kept), p in zip(options, strategy):
            if p == 0.0:
                continue
            shown = ("cover",) if strength == COVERED else ("play", strength)
            new_hands = (kept, hands[1]) if player == MAO else (hands[0], kept)
            if lead is None:
                value += p * self.evaluate(new_hands, classes, history + (shown,), rounds,
                                           leader, strength)
            else:
                result = round_result(leader, lead, strength)
                nxt = leader if result == TIE else result
                value += p * self.evaluate(new_hands, classes, history + (shown,),
                                           rounds + (result,), nxt, None)
        return value

    def cfr(self, hands, classes, history, rounds, leader, lead, reach_mao, reach_pe) -> float:
        """The mão's expected win probability from this state; updates regrets on the way.

        ``lead`` is the table strength shown by the leader this round (None before he
        plays); the reaches include the chance weight of the deal.
        """
        winner = decided_winner(rounds)
        if winner is not None:
            return 1.0 if winner == MAO else 0.0
        player = leader if lead is None else 1 - leader
        options = self.moves(hands[player], len(rounds))
        key = (player, classes[player], hands[player], history)
        node = self.infosets.get(key)
        if node is None:
            node = self.infosets[key] = InfoSet(len(options))
        strategy = node.strategy(self.t)
        utils = []
        for (strength, kept), p in zip(options, strategy):
            shown = ("cover",) if strength == COVERED else ("play", strength)
            new_hands = (kept, hands[1]) if player == MAO else (hands[0], kept)
            r_mao = reach_mao * p if player == MAO else reach_mao
            r_pe = reach_pe * p if player != MAO else reach_pe
            if lead is None:
                u = self.cfr(new_hands, classes, history + (shown,), rounds, leader, strength,
                             r_mao, r_pe)
            else:
                result = round_result(leader, lead, strength)
                nxt = leader if result == TIE else result
                u = self.cfr(new_hands, classes, history + (shown,), rounds + (result,), nxt,
                             None, r_mao, r_pe)
            utils.append(u)
        node_util = sum(p * u for p, u in zip(strategy, utils))
        if player == MAO:  # the mão maximises the win probability, the pé minimises it
            opponent, own, sign = reach_pe, reach_mao, 1.0
        else:
            opponent, own, sign = reach_mao, reach_pe, -1.0
        for a, u in enumerate(utils):
            node.regret[a] += sign * opponent * (u - node_util)
            node.strategy_sum[a] += own * strategy[a]
        return node_util


def time_per_iteration(vira, n_deals: int | None = 2000, iterations: int = 2,
                       seed: int = 0, cover_in_round3: bool = False) -> dict:
    """Seconds per vanilla-CFR iteration on one vira.

    With ``n_deals`` a uniform sample of that many deals is walked and the time is scaled
    to all deals (an iteration costs one tree walk per deal, so the cost is linear in the
    deals; the larger tables of the full game only make the real figure slower). The first
    iteration (which creates the information sets) is not timed.
    """
    w = deal_weight_matrix(vira)
    all_deals = [tuple(ij) for ij in np.argwhere(w > 0)]
    if n_deals is None or n_deals >= len(all_deals):
        deals = all_deals
    else:
        pick = np.random.default_rng(seed).choice(len(all_deals), n_deals, replace=False)
        deals = [all_deals[k] for k in sorted(pick)]
    cfr = BaselineCFR(vira, deals, cover_in_round3)
    cfr.iterate()
    start = time.perf_counter()
    for _ in range(iterations):
        cfr.iterate()
    seconds = (time.perf_counter() - start) / iterations
    return {"deals_walked": len(deals), "deals_total": len(all_deals),
            "seconds_walked": seconds,
            "seconds_per_iteration": seconds * len(all_deals) / len(deals),
            "infosets": len(cfr.infosets), "iterations": iterations}
