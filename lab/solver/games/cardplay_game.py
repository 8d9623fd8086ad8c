"""The card-play game of one vira as a public game (see :mod:`lab.solver.game`).

The hand with the stake fixed and no betting: round 1 the mão leads, each
player plays one card per round, covered cards are allowed from round 2, the
round winner leads next (a tie keeps the leader), the tie table of docs/rules.md
decides (:func:`lab.rules.hand_winner`), and the hand stops the moment its
winner is known.

Everything is in strength levels (:mod:`lab.cards`): a hand is a class of
:mod:`lab.classes`, a shown card is its level, a covered card is ``COVER``.

* Public state ``(rounds, leader, table, shown, last)``: round results so far
  (``MAO``, ``PE`` or ``TIE``), the seat leading this round, what lies on the
  table this round, the open levels each seat has shown (counts per level),
  and the last move ``(seat, action)``.
* Private state: an integer naming ``(class, levels still held)``. Before any
  cover the held levels follow from the class and the public plays; after a
  round-2 cover they record which card was kept, which round 3 needs.
* Public action: an open level 0..12, ``COVER``, or ``SHOW`` (round 3, folded).

Round 3. Each player holds one card. Covering it is weakly dominated (the
same card open never does worse), so round-3 covers are pruned unless
``cover_in_round3=True``. With ``fold_round3=True`` (the default) round 3 is
not expanded into public nodes: once round 2 leaves the hand undecided the
node is a *showdown* terminal whose outcome compares the two last cards (the
cards are forced, so no decision is lost). With ``fold_round3=False`` the
shown levels are public actions with one legal choice per private state, and
every terminal outcome is public. Both forms have the same value and the same
strategies in rounds 1-2; tests check it. Folding makes the tree about 60
times smaller in nodes and 8 times in (node, hand) pairs.

Pruning. A private state is dropped from a node when its class cannot lie in
the deck beside the opponent's open cards, using the *structural* copies
(4 per plain level, 1 per manilha) so that one tree serves all ten viras; the
exact deal weights of each vira then give zero weight to anything else its
deck (3 copies of the vira's own rank) rules out.

Outcomes: ``0`` the mão wins the hand, ``1`` the pé wins it, and ``2`` nobody scores
(three tied rounds, only in a game built with ``three_ties=NOBODY``; see
:meth:`lab.rules.RuleSet.three_ties_winner`).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from math import comb

import numpy as np

from ...cards import N_LEVELS, N_PLAIN, level_name
from ...classes import deal_weight_matrix, hand_classes
from ...rules import NOBODY, hand_winner
from ..game import PublicGame

MAO, PE, TIE = 0, 1, 2
"""Round results (a tie is ``TIE`` here, ``None`` in lab.rules)."""

COVER = 13
"""Public action (and table item) of a face-down card; it loses to every open level."""

SHOW = 14
"""Folded round 3: the player shows his last card, whose level only the showdown compares."""

OUTCOME_MAO_WINS, OUTCOME_PE_WINS, OUTCOME_NOBODY = 0, 1, 2

STRUCTURAL_CAP = (4,) * N_PLAIN + (1,) * (N_LEVELS - N_PLAIN)
"""Copies per level used for pruning: the same for every vira, so the tree is shared."""


def round_result(leader: int, lead: int, follow: int) -> int:
    """MAO, PE or TIE for a round: ``lead`` by ``leader``, then ``follow`` (levels or COVER)."""
    if lead == follow:
        return TIE  # equal levels, or two covered cards
    if lead == COVER:
        return 1 - leader
    if follow == COVER:
        return leader
    return leader if lead > follow else 1 - leader


def decided(rounds: tuple[int, ...], three_ties=MAO):
    """The seat that has won the hand after these round results, NOBODY for three tied
    rounds that score nothing (``three_ties=NOBODY``), or None while undecided
    (:func:`lab.rules.hand_winner` decides)."""
    return hand_winner(tuple(None if r == TIE else r for r in rounds), three_ties)


def _outcome(rounds, three_ties) -> int:
    winner = decided(rounds, three_ties)
    return OUTCOME_NOBODY if winner == NOBODY else \
        OUTCOME_MAO_WINS if winner == MAO else OUTCOME_PE_WINS


@lru_cache(maxsize=None)
def private_table(class_levels: tuple) -> tuple:
    """Private states of a list of classes (each a tuple of levels, strongest first).

    Returns ``(state_class, state_held, remove, root)``: for each state id its class and
    held levels; ``remove[id, level]`` the state after giving up one card of ``level``
    (-1 if not held); ``root[c]`` the state of class ``c`` holding all three cards.
    """
    index: dict = {}
    state_class, state_held = [], []
    for c, levels in enumerate(class_levels):
        for size in (3, 2, 1, 0):
            for k in sorted(set(_sub_multisets(levels, size)), reverse=True):
                index[(c, k)] = len(state_class)
                state_class.append(c)
                state_held.append(k)
    remove = np.full((len(state_class), N_LEVELS), -1, dtype=np.int64)
    for s, (c, held) in enumerate(zip(state_class, state_held)):
        for j, lv in enumerate(held):
            remove[s, lv] = index[(c, held[:j] + held[j + 1:])]
    root = np.array([index[(c, tuple(levels))] for c, levels in enumerate(class_levels)])
    return np.array(state_class), tuple(state_held), remove, root


def _sub_multisets(levels, size):
    return [tuple(x) for x in combinations(levels, size)]


def toy_classes(cap) -> tuple[np.ndarray, np.ndarray]:
    """Classes and exact deal weights of a small deck with ``cap[l]`` copies of level ``l``.

    For tests: the same formula as :mod:`lab.classes` on a reduced deck. Returns
    ``(levels (n, 3) strongest first, weights (n, n))``.
    """
    cap = [int(c) for c in cap]
    n_cards = sum(cap)
    rows = [combo for combo in combinations_with_replacement(range(len(cap) - 1, -1, -1), 3)
            if all(combo.count(lv) <= cap[lv] for lv in set(combo))]
    counts = np.array([[combo.count(lv) for lv in range(len(cap))] for combo in rows])
    w = np.zeros((len(rows), len(rows)))
    for i, m in enumerate(counts):
        for j, p in enumerate(counts):
            w[i, j] = np.prod([comb(c, a) * comb(max(c - a, 0), b) for c, a, b in zip(cap, m, p)])
    return np.array(rows, dtype=np.int64), w / (comb(n_cards, 3) * comb(n_cards - 3, 3))


class CardplayGame(PublicGame):
    """The card-play game of one vira rank, in hand classes (403 hands per seat).

    ``toy_cap`` replaces the deck by a small one (copies per level) for tests.
    ``three_ties``: who takes a hand whose three rounds tie (``MAO``, ``PE``, or ``NOBODY``,
    which adds the outcome ``nobody``).
    """

    def __init__(self, vira=None, *, fold_round3: bool = True, cover_in_round3: bool = False,
                 toy_cap=None, three_ties=MAO):
        if three_ties not in (MAO, PE, NOBODY):
            raise ValueError(f"three_ties={three_ties!r}: a seat or NOBODY")
        self.three_ties = three_ties
        self.outcome_names = ("mao_wins", "pe_wins") + (("nobody",) if three_ties == NOBODY
                                                        else ())
        self.fold_round3 = fold_round3
        self.cover_in_round3 = cover_in_round3
        if toy_cap is None:
            classes = hand_classes(vira)
            self.vira_rank = classes.vira_rank
            levels = np.asarray(classes.levels, dtype=np.int64)
            self._weights = deal_weight_matrix(self.vira_rank)
            self.labels = classes.labels
            cap = STRUCTURAL_CAP
            self.name = f"cardplay[{classes.vira}]"
        else:
            self.vira_rank = None
            levels, self._weights = toy_classes(toy_cap)
            self.labels = tuple(" ".join(str(x) for x in row) for row in levels)
            cap = tuple(int(c) for c in toy_cap) + (0,) * (N_LEVELS - len(toy_cap))
            self.name = f"cardplay[toy {list(toy_cap)}]"
        self.name += ("" if fold_round3 else "+round3") + ("+cover3" if cover_in_round3 else "")
        self.name += {MAO: "", PE: "+ties:pe", NOBODY: "+ties:nobody"}[three_ties]
        self.cap = np.array(cap, dtype=np.int64)
        self.class_levels = tuple(tuple(int(x) for x in row) for row in levels)
        self.class_counts = np.array([np.bincount(row, minlength=N_LEVELS) for row in levels])
        self.state_class, self.state_held, self.remove, self.root_state = private_table(
            self.class_levels)
        self.state_last = np.array([h[0] if len(h) == 1 else -1 for h in self.state_held])

    @property
    def n_classes(self) -> int:
        return len(self.class_levels)

    # ---- chance
    def n_hands(self):
        return (self.n_classes, self.n_classes)

    def deal_weights(self):
        return self._weights

    # ---- public states
    def root(self):
        zero = (0,) * N_LEVELS
        return ((), MAO, (), (zero, zero), None)

    def _showdown(self, public) -> bool:
        """A folded round 3 whose last cards are both shown (compared by the showdown)."""
        rounds, _, table, _, _ = public
        if not self.fold_round3 or len(rounds) != 2:
            return False
        return table == (SHOW, SHOW) if self.cover_in_round3 else not table

    def actor(self, public):
        rounds, leader, table, _, _ = public
        if decided(rounds, self.three_ties) is not None or self._showdown(public):
            return None
        return leader if not table else 1 - leader

    def outcomes(self, public):
        rounds = public[0]
        ties = self.three_ties
        if decided(rounds, ties) is None:  # showdown: the last cards decide round 3
            return tuple(_outcome(rounds + (r,), ties) for r in (MAO, TIE, PE))
        return (_outcome(rounds, ties),) * 3

    def strength(self, player, privates):
        return self.state_last[np.asarray(privates)]

    def child(self, public, action):
        rounds, leader, table, shown, _ = public
        seat = leader if not table else 1 - leader
        if action < COVER:
            mine = list(shown[seat])
            mine[action] += 1
            shown = (tuple(mine), shown[1]) if seat == MAO else (shown[0], tuple(mine))
        last = (seat, action)
        if not table:
            return (rounds, leader, (action,), shown, last)
        if action == SHOW and table[0] == SHOW:  # folded round 3 with covers: showdown
            return (rounds, leader, (SHOW, SHOW), shown, last)
        lead, follow = table[0], action
        if SHOW in (lead, follow):  # a shown last card against a covered one
            lead, follow = (0 if lead == SHOW else lead), (0 if follow == SHOW else follow)
        result = round_result(leader, lead, follow)
        return (rounds + (result,), leader if result == TIE else result, (), shown, last)

    # ---- private states
    def root_states(self, player):
        return self.root_state.copy()

    def hand_of(self, player, privates):
        return self.state_class[np.asarray(privates)]

    def moves(self, public, privates):
        privates = np.asarray(privates)
        round_index = len(public[0])
        out = []
        if round_index == 2 and self.fold_round3:
            # the last card stays in the private state: the showdown compares it
            out.append((SHOW, np.arange(len(privates)), privates))
        else:
            for lv in range(N_LEVELS):
                nxt = self.remove[privates, lv]
                idx = np.nonzero(nxt >= 0)[0]
                if len(idx):
                    out.append((lv, idx, nxt[idx]))
        if round_index == 1 or (round_index == 2 and self.cover_in_round3):
            froms, tos = [], []
            for lv in range(N_LEVELS):
                nxt = self.remove[privates, lv]
                idx = np.nonzero(nxt >= 0)[0]
                froms.append(idx)
                tos.append(nxt[idx])
            out.append((COVER, np.concatenate(froms), np.concatenate(tos)))
        return out

    def consistent(self, public, player, privates):
        """The class must fit in the deck beside the opponent's open cards."""
        last = public[4]
        if last is None or last[0] == player or last[1] >= COVER:
            return None  # only a new open card of the opponent can rule a class out
        lv = last[1]
        shown = public[3][1 - player][lv]
        return self.class_counts[self.state_class[np.asarray(privates)], lv] + shown <= self.cap[lv]

    def action_name(self, action):
        if action == COVER:
            return "covered"
        if action == SHOW:
            return "last card"
        if self.vira_rank is None:
            return str(action)
        return level_name(int(action), self.vira_rank)
