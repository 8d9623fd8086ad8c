"""The situation (:mod:`lab.situations`) of every private state at every card node: the
standing in rounds of its seat and the class of its live cards, in the levels the card
tree speaks.

A card node's public state (the rounds so far, the leader, the table) is the card
game's, replayed from the root along the tree's actions; a pair's live cards are the
levels its private state still holds plus its seat's own open card on the table (the
round's lead, when that seat led it). One tree serves every vira; which levels are 3 or
better, manilhas or plain 2s depends on the vira, so the answer is per vira.
"""

from __future__ import annotations

import numpy as np

from ...situations import LIVE, level_kinds, live_class, standing
from ..games.cardplay_game import COVER, MAO, PE


def node_publics(tree, cards) -> list:
    """The card game's public state at each card node of ``tree`` (built from ``cards``,
    breadth first: every parent before its children)."""
    parent = np.full(tree.n_nodes, -1, dtype=np.int64)
    for c in np.flatnonzero(tree.child_count):
        s = int(tree.child_start[c])
        parent[s:s + int(tree.child_count[c])] = c
    publics = [cards.root()]
    for k in range(1, tree.n_nodes):
        publics.append(cards.child(publics[parent[k]], int(tree.action[k])))
    return publics


def pair_situations(tree, cards, vira_rank: int) -> np.ndarray:
    """The index in :data:`lab.situations.SITUATIONS` of every pair of ``tree`` (its seat
    at its card node, holding its private state), under a vira of rank index
    ``vira_rank``."""
    kinds = np.array(level_kinds(vira_rank), dtype=np.int64)      # [level, (top, m, 2)]
    n_states = len(cards.state_held)
    per_state = np.zeros((n_states, 3), dtype=np.int64)             # tops, manilhas, 2s
    for s, held in enumerate(cards.state_held):
        if held:
            per_state[s] = kinds[list(held)].sum(axis=0)
    publics = node_publics(tree, cards)
    stand = np.zeros((tree.n_nodes, 2), dtype=np.int64)
    own = np.full((tree.n_nodes, 2), -1, dtype=np.int64)            # own open card's level
    for c, (rounds, leader, table, _, _) in enumerate(publics):
        for seat in (MAO, PE):
            stand[c, seat] = standing(rounds, seat)
        if len(table) == 1 and table[0] != COVER:
            own[c, leader] = table[0]
    counts = tree.n.sum(axis=1)
    node = np.repeat(np.arange(tree.n_nodes), counts)
    seat = (np.arange(tree.n_pairs) - tree.pair_start[node] >= tree.n[node, 0]).astype(np.int64)
    feats = per_state[tree.pair_state]
    table_level = own[node, seat]
    on_table = table_level >= 0
    feats[on_table] += kinds[table_level[on_table]]
    table = np.array([[[live_class(t, bool(m), bool(d)) for d in range(2)] for m in range(2)]
                      for t in range(4)], dtype=np.int64)              # [tops, manilha, 2]
    cls = table[np.minimum(feats[:, 0], 3), np.minimum(feats[:, 1], 1), np.minimum(feats[:, 2], 1)]
    return (stand[node, seat] * len(LIVE) + cls).astype(np.int8)


__all__ = ["node_publics", "pair_situations"]
