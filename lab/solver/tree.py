"""The public tree of a :class:`~lab.solver.game.PublicGame` as flat numpy arrays.

Layout (all indices are positions in these arrays):

* **Nodes**: public histories in breadth-first order, so every node comes
  after its parent and a node's children are contiguous (``node_child_start``,
  ``node_child_count``). ``node_actor`` is the player to move, -1 at a
  terminal; a terminal's ``node_outcomes`` are its outcome when player 0's
  showdown strength is higher, equal, lower (three equal entries when the
  outcome is public).
* **Pairs**: one per (node, player, private state still possible there). A
  node's pairs are contiguous: ``node_pair_start[n]`` begins player 0's
  ``node_pair_count[n, 0]`` pairs, player 1's follow. Every pair but the
  root's has one ``pair_parent``: the same private state one node up for the
  player who did not move, or the state it moved from for the player who did.
  ``pair_hand`` is the dealt hand behind the pair (for the deal weights) and
  ``pair_strength`` its showdown strength.
* **Information sets and edges**: an information set is a pair of the player
  to move that has two or more moves; each move is an *edge* to the child pair
  it creates (``edge_pair``). An information set's edges are contiguous
  (``infoset_edge_start``, ``infoset_edge_count``) and ``pair_edge`` maps a
  child pair back to its edge (-1 for a pair reached without a choice: the
  mover's only move, or the other player's unchanged state).

A cover is one public action, but a hand that covers chooses which card goes
face down; each choice is its own edge and its own private state in the same
child node. Because every pair has exactly one parent, and a pair's children
are either all edges of its information set or all choice-free, reach flows
down (``reach[i] = reach[parent[i]] * sigma[edge(i)]``) and values flow up
(``value[parent] += sigma * value[i]``, or a max for a best response) in
plain loops over pairs; see :mod:`lab.solver.kernels`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .game import PublicGame


@dataclass(frozen=True, eq=False)
class PublicTree:
    """Flat arrays of a public tree (see the module docstring for the layout).

    Index arrays are int32 (int64 only for a tree too large for it).
    """

    game_name: str
    outcome_names: tuple
    n_hands: tuple
    actions: tuple                  # public action of each action id
    action_names: tuple
    publics: tuple                  # public state of each node
    node_parent: np.ndarray         # (N,) int32, -1 at the root
    node_action: np.ndarray         # (N,) int32 action id that led here, -1 at the root
    node_actor: np.ndarray          # (N,) int8, -1 at a terminal
    node_outcomes: np.ndarray       # (N, 3) int8, -1 unless terminal
    node_depth: np.ndarray          # (N,) int16
    node_child_start: np.ndarray    # (N,) int32
    node_child_count: np.ndarray    # (N,) int32
    node_pair_start: np.ndarray     # (N,) int32
    node_pair_count: np.ndarray     # (N, 2) int32
    pair_parent: np.ndarray         # (P,) int32, -1 at the root
    pair_hand: np.ndarray           # (P,) int32
    pair_strength: np.ndarray       # (P,) int32
    pair_player: np.ndarray         # (P,) int8
    pair_node: np.ndarray           # (P,) int32
    pair_private: np.ndarray        # (P,) int32 the game's private state
    pair_edge: np.ndarray           # (P,) int32, -1 when reached without a choice
    infoset_pair: np.ndarray        # (I,) int32
    infoset_edge_start: np.ndarray  # (I,) int32
    infoset_edge_count: np.ndarray  # (I,) int32
    edge_pair: np.ndarray           # (E,) int32
    terminals: np.ndarray           # (T,) int32 terminal node ids

    @property
    def n_nodes(self) -> int:
        return len(self.node_parent)

    @property
    def n_pairs(self) -> int:
        return len(self.pair_parent)

    @property
    def n_infosets(self) -> int:
        return len(self.infoset_pair)

    @property
    def n_edges(self) -> int:
        return len(self.edge_pair)

    def pairs_of(self, node: int, player: int) -> range:
        """Pair indices of ``player`` at ``node``."""
        start = int(self.node_pair_start[node]) + (int(self.node_pair_count[node, 0]) if player else 0)
        return range(start, start + int(self.node_pair_count[node, player]))

    def children(self, node: int) -> range:
        s = int(self.node_child_start[node])
        return range(s, s + int(self.node_child_count[node]))

    def history(self, node: int) -> tuple:
        """Public actions from the root to ``node``."""
        out = []
        while node > 0:
            out.append(self.actions[self.node_action[node]])
            node = int(self.node_parent[node])
        return tuple(reversed(out))

    def child_by_action(self, node: int, action):
        """The child of ``node`` reached by public ``action``, or None."""
        for c in self.children(node):
            if self.actions[self.node_action[c]] == action:
                return c
        return None

    def node_of(self, history) -> int:
        """The node reached by a sequence of public actions; KeyError if there is none."""
        node = 0
        for step in history:
            nxt = self.child_by_action(node, step)
            if nxt is None:
                raise KeyError(f"no public action {step!r} after {self.history(node)!r}")
            node = nxt
        return node

    def nbytes(self) -> int:
        return sum(v.nbytes for v in vars(self).values() if isinstance(v, np.ndarray))

    def sizes(self) -> dict:
        """Counts of nodes, (node, hand) pairs, information sets, edges and terminals."""
        decision = self.node_actor >= 0
        return {
            "nodes": self.n_nodes,
            "decision_nodes": int(decision.sum()),
            "terminals": len(self.terminals),
            "pairs": self.n_pairs,
            "infosets": self.n_infosets,
            "edges": self.n_edges,
        }


def build_tree(game: PublicGame) -> PublicTree:
    """Expand every public history of ``game`` breadth first into a :class:`PublicTree`.

    A child is created for a public action only when the mover has a move to it and
    both players keep at least one consistent private state there.
    """
    action_id: dict = {}
    publics = []
    node_parent, node_action, node_depth = [], [], []
    node_actor, node_outcomes, node_child_start, node_child_count = [], [], [], []
    node_pair_start, node_pair_count = [], []
    chunks_parent, chunks_private, chunks_player = [], [], []
    n_pairs = 0

    def add_node(parent, action, depth, public, privs, parents):
        nonlocal n_pairs
        publics.append(public)
        node_parent.append(parent)
        node_action.append(action)
        node_depth.append(depth)
        node_pair_start.append(n_pairs)
        node_pair_count.append((len(privs[0]), len(privs[1])))
        for player in (0, 1):
            chunks_parent.append(parents[player])
            chunks_private.append(privs[player])
            chunks_player.append(np.full(len(privs[player]), player, dtype=np.int8))
            n_pairs += len(privs[player])
        node_actor.append(-1)
        node_outcomes.append((-1, -1, -1))
        node_child_start.append(0)
        node_child_count.append(0)
        return len(node_parent) - 1

    roots = [np.asarray(game.root_states(p), dtype=np.int64) for p in (0, 1)]
    add_node(-1, -1, 0, game.root(), roots,
             [np.full(len(roots[0]), -1, dtype=np.int64), np.full(len(roots[1]), -1, dtype=np.int64)])
    frontier = [(0, game.root(), roots)]
    depth = 0
    while frontier:
        next_frontier = []
        for n, public, privs in frontier:
            actor = game.actor(public)
            node_child_start[n] = len(node_parent)
            if actor is None:
                node_outcomes[n] = tuple(game.outcomes(public))
                continue
            node_actor[n] = actor
            other = 1 - actor
            base = [node_pair_start[n], node_pair_start[n] + node_pair_count[n][0]]
            moves = game.moves(public, privs[actor])
            try:
                moves = sorted(moves, key=lambda m: m[0])
            except TypeError:
                pass
            count = 0
            for action, from_index, to_private in moves:
                from_index = np.asarray(from_index, dtype=np.int64)
                to_private = np.asarray(to_private, dtype=np.int64)
                child = game.child(public, action)
                keep = game.consistent(child, actor, to_private)
                if keep is not None:
                    from_index, to_private = from_index[keep], to_private[keep]
                keep_other = game.consistent(child, other, privs[other])
                other_index = np.arange(len(privs[other]), dtype=np.int64)
                if keep_other is not None:
                    other_index = other_index[keep_other]
                if not len(to_private) or not len(other_index):
                    continue
                # edges of one private state stay together, in move order
                order = np.argsort(from_index, kind="stable")
                from_index, to_private = from_index[order], to_private[order]
                a = action_id.setdefault(action, len(action_id))
                child_privs = [None, None]
                parents = [None, None]
                child_privs[actor], parents[actor] = to_private, base[actor] + from_index
                child_privs[other], parents[other] = privs[other][other_index], base[other] + other_index
                c = add_node(n, a, depth + 1, child, child_privs, parents)
                next_frontier.append((c, child, child_privs))
                count += 1
            node_child_count[n] = count
        frontier = next_frontier
        depth += 1

    parent = np.concatenate(chunks_parent).astype(np.int64)
    private = np.concatenate(chunks_private).astype(np.int64)
    player = np.concatenate(chunks_player).astype(np.int8)
    node_pair_count_arr = np.array(node_pair_count, dtype=np.int64).reshape(-1, 2)
    node_pair_start_arr = np.array(node_pair_start, dtype=np.int64)
    node_of_pair = np.repeat(np.arange(len(node_parent), dtype=np.int32), node_pair_count_arr.sum(1))
    actor_of_node = np.array(node_actor, dtype=np.int8)
    hand = np.zeros(len(parent), dtype=np.int32)
    strength = np.zeros(len(parent), dtype=np.int32)
    for p in (0, 1):
        mine = player == p
        hand[mine] = game.hand_of(p, private[mine])
        strength[mine] = game.strength(p, private[mine])

    # A pair is a move of the player who acted at its parent's node; others are copies.
    moved = np.zeros(len(parent), dtype=bool)
    has_parent = parent >= 0
    moved[has_parent] = actor_of_node[node_of_pair[parent[has_parent]]] == player[has_parent]
    movers = np.nonzero(moved)[0]
    n_moves = np.bincount(parent[movers], minlength=len(parent))
    choice = movers[n_moves[parent[movers]] >= 2]
    order = np.argsort(parent[choice], kind="stable")  # edges grouped by information set
    edge_pair = choice[order].astype(np.int64)
    infoset_pair, infoset_edge_start, infoset_edge_count = np.unique(
        parent[edge_pair], return_index=True, return_counts=True)
    pair_edge = np.full(len(parent), -1, dtype=np.int64)
    pair_edge[edge_pair] = np.arange(len(edge_pair), dtype=np.int64)

    actions = tuple(sorted(action_id, key=action_id.get))
    tree = PublicTree(
        game_name=game.name,
        outcome_names=tuple(game.outcome_names),
        n_hands=tuple(int(x) for x in game.n_hands()),
        actions=actions,
        action_names=tuple(game.action_name(a) for a in actions),
        publics=tuple(publics),
        node_parent=np.array(node_parent, dtype=np.int32),
        node_action=np.array(node_action, dtype=np.int32),
        node_actor=actor_of_node,
        node_outcomes=np.array(node_outcomes, dtype=np.int8).reshape(-1, 3),
        node_depth=np.array(node_depth, dtype=np.int16),
        node_child_start=np.array(node_child_start, dtype=np.int64),
        node_child_count=np.array(node_child_count, dtype=np.int32),
        node_pair_start=node_pair_start_arr,
        node_pair_count=node_pair_count_arr,
        pair_parent=parent,
        pair_hand=hand,
        pair_strength=strength,
        pair_player=player,
        pair_node=node_of_pair,
        pair_private=private,
        pair_edge=pair_edge,
        infoset_pair=infoset_pair.astype(np.int64),
        infoset_edge_start=infoset_edge_start.astype(np.int64),
        infoset_edge_count=infoset_edge_count.astype(np.int64),
        edge_pair=edge_pair,
        terminals=np.nonzero(actor_of_node < 0)[0].astype(np.int64),
    )
    return _compact(tree)


def _compact(tree: PublicTree) -> PublicTree:
    """The same tree with its int64 index arrays stored as int32 (when they fit)."""
    if max(tree.n_pairs, tree.n_nodes, tree.n_edges) >= 2**31 - 1:
        return tree
    small = {k: v.astype(np.int32) for k, v in vars(tree).items()
             if isinstance(v, np.ndarray) and v.dtype == np.int64}
    return replace(tree, **small)
