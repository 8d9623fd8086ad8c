"""Compact layout of the full hand game: card nodes times betting histories.

The private states a public node allows depend only on its *card* history (the
cards shown and covered), never on its betting history. So the public tree of
the game with the truco ladder is stored in two factors:

Card tree (:class:`CardTree`)
    The card-play public tree with round 3 as the betting game needs it: the
    round-3 lead is a public card, the follower's forced last card is folded
    into a *showdown* (the lead is public, so the outcome depends on his card
    only). Card nodes are ``DECISION`` (the actor plays a card, open or covered),
    ``LAST`` (the round-3 follower: his card is forced, but he may still raise)
    or ``END`` (the hand is decided by the cards: a seat wins it, or, where the rules
    say so, three tied rounds score nothing: :data:`NO_WINNER`). Every card node keeps, per
    seat, the list of private states still possible there (``pair_*``), each
    with its local index in the parent's list; the actor's moves are *card
    edges*, grouped by the state they leave.

Betting templates (:class:`Templates`)
    Within one card turn the betting is a tiny tree that depends only on the
    betting state the turn starts from, ``(accepted value, last raiser)``, and
    on who is to play: ``T`` nodes (the player to play chooses a card or a
    raise) and ``Q`` nodes (a pending raise is answered: accept, run,
    re-raise). An accepted raise leads to a new ``T`` node of the same turn.

A public decision node is (card node, one betting history reaching it), and
the betting histories entering a card node are exactly the ``T`` nodes of its
parent card node (the same list for every child). Nothing per (node, hand)
pair is stored: the solver walks the card tree depth first and keeps the
reach and value vectors of one path only. What is stored per public node is
the regret and strategy-sum of each (private state, action) of its actor
(see :mod:`lab.solver.fullgame.solver`).

Values are points; the ladder (hand values) is configurable for reduced games.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ...rules import NOBODY
from ..games.cardplay_game import CardplayGame, decided, round_result

DECISION, LAST, END = 0, 1, 2

NO_WINNER = 2
"""``winner`` / ``showdown`` code of a hand that scores nothing (three tied rounds, in a card
game built with ``three_ties=NOBODY``): nobody gains or loses its value."""
"""Kinds of card node."""

T_NODE, Q_NODE = 0, 1
"""Kinds of betting template node: the player to play acts / a raise is answered."""


# ------------------------------------------------------------------ betting templates

def state_id(value_index: int, last_raiser: int) -> int:
    """Betting state between card moves: accepted value (ladder index) and last raiser (-1, 0, 1)."""
    return 3 * value_index + last_raiser + 1


@dataclass(frozen=True)
class Templates:
    """The betting tree of one card turn, for every (player to play, entering state).

    Flat arrays over all template nodes; template ``(actor, s)`` occupies nodes
    ``start[actor, s] : start[actor, s] + size[actor, s]`` in pre-order (parents
    first). For node ``g``: ``kind`` (T or Q), ``parent`` (template-local, -1 at
    the root), ``child_a`` (T: its raise's Q node; Q: the accept's T node),
    ``child_b`` (Q: the re-raise's Q node), -1 where absent (local indices).
    T nodes: ``value`` (accepted, ladder index) and ``exit_state`` (the state the
    next card node starts from). Q nodes: ``value`` (accepted, paid on a run),
    ``answerer``, ``raiser``.
    """

    ladder: tuple
    start: np.ndarray
    size: np.ndarray
    kind: np.ndarray
    parent: np.ndarray
    child_a: np.ndarray
    child_b: np.ndarray
    value: np.ndarray
    exit_state: np.ndarray
    answerer: np.ndarray
    raiser: np.ndarray
    n_states: int
    # per template counts: T nodes, T nodes that may raise, Q nodes answered by the
    # player to play (with 2 or 3 answers), Q nodes answered by the other player
    count_t: np.ndarray
    count_t_raise: np.ndarray
    q_actions_actor: np.ndarray
    q_actions_other: np.ndarray
    count_q: np.ndarray
    count_q_actor: np.ndarray  # Q nodes answered by the player to play
    exits: np.ndarray          # (2, S, S) number of T nodes with each exit state


def build_templates(ladder) -> Templates:
    """Enumerate the betting tree of a card turn for each actor and entering state."""
    ladder = tuple(int(v) for v in ladder)
    top = len(ladder) - 1
    n_states = 3 * len(ladder)
    rows = []  # (kind, parent, child_a, child_b, value, exit_state, answerer, raiser)
    start = np.zeros((2, n_states), dtype=np.int64)
    size = np.zeros((2, n_states), dtype=np.int64)
    count_t = np.zeros((2, n_states), dtype=np.int64)
    count_t_raise = np.zeros((2, n_states), dtype=np.int64)
    q_actor = np.zeros((2, n_states), dtype=np.int64)
    q_other = np.zeros((2, n_states), dtype=np.int64)
    count_q = np.zeros((2, n_states), dtype=np.int64)
    count_q_actor = np.zeros((2, n_states), dtype=np.int64)
    exits = np.zeros((2, n_states, n_states), dtype=np.int64)
    for actor in (0, 1):
        for s in range(n_states):
            v0, lr0 = divmod(s, 3)
            lr0 -= 1
            start[actor, s] = len(rows)
            local: list = []

            def add(row):
                local.append(list(row))
                return len(local) - 1

            def t_node(parent, v, lr):
                k = add((T_NODE, parent, -1, -1, v, state_id(v, lr), -1, -1))
                count_t[actor, s] += 1
                exits[actor, s, state_id(v, lr)] += 1
                if lr != actor and v < top:
                    count_t_raise[actor, s] += 1
                    local[k][2] = q_node(k, v + 1, actor, v)
                return k

            def q_node(parent, pending, raiser, v):
                answerer = 1 - raiser
                k = add((Q_NODE, parent, -1, -1, v, -1, answerer, raiser))
                count_q[actor, s] += 1
                n_answers = 3 if pending < top else 2
                if answerer == actor:
                    q_actor[actor, s] += n_answers
                    count_q_actor[actor, s] += 1
                else:
                    q_other[actor, s] += n_answers
                local[k][2] = t_node(k, pending, raiser)          # accept
                if pending < top:                                  # re-raise
                    local[k][3] = q_node(k, pending + 1, answerer, pending)
                return k

            if v0 > top or (v0 == 0 and lr0 != -1) or (v0 > 0 and lr0 == -1):
                size[actor, s] = 0  # not a reachable betting state
                continue
            t_node(-1, v0, lr0)
            rows.extend(local)
            size[actor, s] = len(local)
    arr = np.array(rows, dtype=np.int64).reshape(-1, 8)
    return Templates(
        ladder=ladder, start=start, size=size,
        kind=arr[:, 0].astype(np.int8).copy(), parent=arr[:, 1].copy(),
        child_a=arr[:, 2].copy(), child_b=arr[:, 3].copy(), value=arr[:, 4].copy(),
        exit_state=arr[:, 5].copy(), answerer=arr[:, 6].astype(np.int8).copy(),
        raiser=arr[:, 7].astype(np.int8).copy(), n_states=n_states,
        count_t=count_t, count_t_raise=count_t_raise, q_actions_actor=q_actor,
        q_actions_other=q_other, count_q=count_q, count_q_actor=count_q_actor, exits=exits)


# ------------------------------------------------------------------ card tree

@dataclass(frozen=True, eq=False)
class CardTree:
    """The card tree of the betting game (see the module docstring).

    Per card node: ``kind``, ``actor`` (-1 at END), ``winner`` (END: the seat that
    won the hand, or :data:`NO_WINNER`), ``showdown`` (LAST: the hand's winner, or
    :data:`NO_WINNER`, when the follower's last card is above, equal to, below the
    ``lead`` level), ``depth``, contiguous children,
    ``pair_start`` / ``n`` (per seat) into the pair arrays, ``n_edges`` (card
    edges of the actor). Per pair: ``pair_hand`` (dealt class), ``pair_state``
    (the card game's private state), ``pair_level`` (its last card, -1 if not
    exactly one), ``pair_parent`` (local index in the parent's list of the same
    seat), ``pair_edge`` (a mover's pair: its card edge at the parent, local),
    ``pair_edge_start`` / ``pair_edge_count`` (an actor's pair: its card edges).
    """

    game_name: str
    n_hands: tuple
    kind: np.ndarray
    actor: np.ndarray
    winner: np.ndarray
    showdown: np.ndarray
    lead: np.ndarray
    depth: np.ndarray
    child_start: np.ndarray
    child_count: np.ndarray
    action: np.ndarray
    pair_start: np.ndarray
    n: np.ndarray
    n_edges: np.ndarray
    pair_hand: np.ndarray
    pair_state: np.ndarray
    pair_level: np.ndarray
    pair_parent: np.ndarray
    pair_edge: np.ndarray
    pair_edge_start: np.ndarray
    pair_edge_count: np.ndarray

    @property
    def n_nodes(self) -> int:
        return len(self.kind)

    @property
    def n_pairs(self) -> int:
        return len(self.pair_hand)

    def pairs(self, c: int, seat: int) -> slice:
        s = int(self.pair_start[c]) + (int(self.n[c, 0]) if seat else 0)
        return slice(s, s + int(self.n[c, seat]))

    def children(self, c: int) -> range:
        s = int(self.child_start[c])
        return range(s, s + int(self.child_count[c]))


def build_card_tree(cards: CardplayGame) -> CardTree:
    """Expand the card game (``fold_round3=False``, no round-3 covers) breadth first; who
    takes three tied rounds is the card game's ``three_ties``."""
    if cards.fold_round3 or cards.cover_in_round3:
        raise ValueError("the betting game needs round 3 unfolded and without covers")

    def hand_decided(rounds):
        w = decided(rounds, cards.three_ties)
        return NO_WINNER if w == NOBODY else w
    held = cards.state_held
    publics, kinds, actors, winners, showdowns, depths, actions = [], [], [], [], [], [], []
    leads = []
    child_start, child_count, n_edges = [], [], []
    pair_chunks = []   # per node: (states0, states1, parent0, parent1, edge0, edge1)
    edge_start_chunks = []

    def add(public, privs, parents, edges, depth, action):
        publics.append(public)
        depths.append(depth)
        actions.append(action)
        pair_chunks.append((privs, parents, edges))
        kinds.append(-1)
        actors.append(-1)
        winners.append(-1)
        showdowns.append((-1, -1, -1))
        leads.append(-1)
        child_start.append(0)
        child_count.append(0)
        n_edges.append(0)
        edge_start_chunks.append(None)
        return len(publics) - 1

    root_privs = [np.asarray(cards.root_states(p), dtype=np.int64) for p in (0, 1)]
    minus = [np.full(len(root_privs[p]), -1, dtype=np.int64) for p in (0, 1)]
    add(cards.root(), root_privs, minus, minus, 0, -1)
    frontier = [0]
    while frontier:
        nxt = []
        for c in frontier:
            public = publics[c]
            privs = pair_chunks[c][0]
            rounds, leader, table = public[0], public[1], public[2]
            child_start[c] = len(publics)
            winner = hand_decided(rounds)
            if winner is not None:
                kinds[c], winners[c] = END, winner
                continue
            actor = cards.actor(public)
            actors[c] = actor
            n_actor = len(privs[actor])
            if len(rounds) == 2 and len(table) == 1:
                # round-3 follower: his last card is forced; fold it into a showdown
                kinds[c] = LAST
                lead = table[0]
                leads[c] = lead
                showdowns[c] = tuple(hand_decided(rounds + (round_result(leader, lead, follow),))
                                     for follow in (lead + 1, lead, lead - 1))
                n_edges[c] = n_actor
                edge_start_chunks[c] = (np.arange(n_actor), np.ones(n_actor, dtype=np.int64))
                continue
            kinds[c] = DECISION
            other = 1 - actor
            made = []  # (child id, from_index of the mover's child pairs)
            for action, from_index, to_private in cards.moves(public, privs[actor]):
                from_index = np.asarray(from_index, dtype=np.int64)
                to_private = np.asarray(to_private, dtype=np.int64)
                child = cards.child(public, action)
                keep = cards.consistent(child, actor, to_private)
                if keep is not None:
                    from_index, to_private = from_index[keep], to_private[keep]
                keep_o = cards.consistent(child, other, privs[other])
                other_index = np.arange(len(privs[other]), dtype=np.int64)
                if keep_o is not None:
                    other_index = other_index[keep_o]
                if not len(to_private) or not len(other_index):
                    continue
                order = np.lexsort((to_private, from_index))
                from_index, to_private = from_index[order], to_private[order]
                cp = [None, None]
                par = [None, None]
                cp[actor], par[actor] = to_private, from_index
                cp[other], par[other] = privs[other][other_index], other_index
                k = add(child, cp, par, [None, None], depths[c] + 1, action)
                made.append((k, from_index))
                nxt.append(k)
            child_count[c] = len(made)
            # card edges grouped by the state they leave, children in order within a state
            froms = np.concatenate([f for _, f in made])
            which = np.concatenate([np.full(len(f), j) for j, (_, f) in enumerate(made)])
            pos = np.concatenate([np.arange(len(f)) for _, f in made])
            order = np.lexsort((pos, which, froms))
            edge_of = np.empty(len(froms), dtype=np.int64)
            edge_of[order] = np.arange(len(froms))
            offset = 0
            for j, (k, f) in enumerate(made):
                e = np.full(len(f), -1, dtype=np.int64)
                e[:] = edge_of[offset:offset + len(f)]
                offset += len(f)
                privs_k, par_k, edges_k = pair_chunks[k]
                edges_k[actor] = e
                edges_k[other] = np.full(len(privs_k[other]), -1, dtype=np.int64)
            counts = np.bincount(froms, minlength=n_actor)
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            n_edges[c] = len(froms)
            edge_start_chunks[c] = (starts, counts)
        frontier = nxt

    n_nodes = len(publics)
    n = np.array([[len(ch[0][0]), len(ch[0][1])] for ch in pair_chunks], dtype=np.int64)
    pair_start = np.concatenate([[0], np.cumsum(n.sum(1))[:-1]]).astype(np.int64)
    states = np.concatenate([np.concatenate([ch[0][0], ch[0][1]]) for ch in pair_chunks])
    parents = np.concatenate([np.concatenate([ch[1][0], ch[1][1]]) for ch in pair_chunks])
    edges = np.concatenate([np.concatenate([
        ch[2][0] if ch[2][0] is not None else np.full(len(ch[0][0]), -1),
        ch[2][1] if ch[2][1] is not None else np.full(len(ch[0][1]), -1)]) for ch in pair_chunks])
    e_start = np.full(len(states), -1, dtype=np.int64)
    e_count = np.zeros(len(states), dtype=np.int64)
    for c in range(n_nodes):
        if edge_start_chunks[c] is None:
            continue
        a = actors[c]
        s = pair_start[c] + (n[c, 0] if a else 0)
        st, ct = edge_start_chunks[c]
        e_start[s:s + len(st)] = st
        e_count[s:s + len(ct)] = ct
    level = np.array([h[0] if len(h) == 1 else -1 for h in held], dtype=np.int64)
    hand_of = np.asarray(cards.state_class, dtype=np.int64)
    return CardTree(
        game_name=cards.name,
        n_hands=tuple(int(x) for x in cards.n_hands()),
        kind=np.array(kinds, dtype=np.int8),
        actor=np.array(actors, dtype=np.int8),
        winner=np.array(winners, dtype=np.int8),
        showdown=np.array(showdowns, dtype=np.int8).reshape(-1, 3),
        lead=np.array(leads, dtype=np.int8),
        depth=np.array(depths, dtype=np.int16),
        child_start=np.array(child_start, dtype=np.int64),
        child_count=np.array(child_count, dtype=np.int64),
        action=np.array(actions, dtype=np.int16),
        pair_start=pair_start,
        n=n,
        n_edges=np.array(n_edges, dtype=np.int64),
        pair_hand=hand_of[states].astype(np.int32),
        pair_state=states.astype(np.int64),
        pair_level=level[states].astype(np.int8),
        pair_parent=parents.astype(np.int32),
        pair_edge=edges.astype(np.int32),
        pair_edge_start=e_start.astype(np.int32),
        pair_edge_count=e_count.astype(np.int32),
    )


# ------------------------------------------------------------------ sizes and offsets

@dataclass(frozen=True, eq=False)
class Layout:
    """Sizes and storage offsets of the full game on a card tree.

    ``hist[c, s]``: betting histories entering card node ``c`` in state ``s``.
    Per card node: ``n_enter`` (histories entering), ``n_t`` / ``n_q`` (T / Q
    public nodes of its turn), ``slots`` (regret entries), and the offsets
    ``slot_base`` / ``node_base`` of its first regret entry and first public node.
    """

    hist: np.ndarray
    n_enter: np.ndarray
    n_t: np.ndarray
    n_q: np.ndarray
    slots: np.ndarray
    slot_base: np.ndarray
    node_base: np.ndarray
    n_slots: int
    n_public: int
    public_pairs: int
    terminal_nodes: int
    buffers: dict              # per depth: the largest working buffers one card node needs
    max_n: int                 # most private states of one seat at one card node
    max_node_slots: int        # most regret entries of one public node


def layout(tree: CardTree, tm: Templates) -> Layout:
    """Count betting histories per card node (top down) and lay out the regret storage."""
    N = tree.n_nodes
    S = tm.n_states
    hist = np.zeros((N, S), dtype=np.int64)
    hist[0, state_id(0, -1)] = 1
    # breadth-first ids: parents come before children
    n_t = np.zeros(N, dtype=np.int64)
    n_q = np.zeros(N, dtype=np.int64)
    slots = np.zeros(N, dtype=np.int64)
    intra = np.zeros(N, dtype=np.int64)
    t_slots = np.zeros(N, dtype=np.int64)
    sig = np.zeros(N, dtype=np.int64)
    exits = tm.exits
    for c in range(N):
        k = tree.kind[c]
        if k == END:
            continue
        a = int(tree.actor[c])
        h = hist[c]
        nt = h @ tm.count_t[a]
        ntr = h @ tm.count_t_raise[a]
        n_t[c] = nt
        n_q[c] = h @ tm.count_q[a]
        intra[c] = h @ tm.size[a]
        n_a, n_o = int(tree.n[c, a]), int(tree.n[c, 1 - a])
        e = int(tree.n_edges[c])
        choice = e > n_a  # some state has two card moves
        t_slots[c] = ntr * (e + n_a) + (nt - ntr) * (e if choice else 0)
        slots[c] = t_slots[c] + (h @ tm.q_actions_actor[a]) * n_a + (h @ tm.q_actions_other[a]) * n_o
        qa = h @ tm.count_q_actor[a]
        sig[c] = nt * (e + n_a) + 3 * (qa * n_a + (n_q[c] - qa) * n_o)
        if k == DECISION:
            out = h @ exits[a]
            cs, cc = tree.child_start[c], tree.child_count[c]
            hist[cs:cs + cc] = out
    n_enter = hist.sum(1)
    slot_base = np.concatenate([[0], np.cumsum(slots)[:-1]]).astype(np.int64)
    nodes = n_t + n_q
    node_base = np.concatenate([[0], np.cumsum(nodes)[:-1]]).astype(np.int64)
    pairs_per_card = tree.n.sum(1)
    depth = tree.depth.astype(np.int64)
    D = int(depth.max()) + 2
    nmax = tree.n.max(1)
    buffers = {}
    for name, per_node in (("intra", intra), ("enter", n_enter), ("sig", sig),
                           ("intra_n", intra * nmax), ("enter_n", n_enter * nmax),
                           ("t", n_t)):
        m = np.zeros(D, dtype=np.int64)
        np.maximum.at(m, depth, per_node)
        buffers[name] = m
    terminals = int(n_enter[tree.kind == END].sum() + n_t[tree.kind == LAST].sum() + n_q.sum())
    return Layout(
        hist=hist, n_enter=n_enter, n_t=n_t, n_q=n_q, slots=slots, slot_base=slot_base,
        node_base=node_base, n_slots=int(slots.sum()), n_public=int(nodes.sum()),
        public_pairs=int((nodes * pairs_per_card).sum()), terminal_nodes=terminals,
        buffers=buffers, max_n=int(tree.n.max()),
        max_node_slots=int(max(tree.n_edges.max() + tree.n.max(), 3 * tree.n.max())))


@njit(cache=True)
def _fill_entering(n_enter, enter_start, flat, kind, actor, child_start, child_count,
                   t_start, t_size, t_kind, t_exit):
    """``flat[enter_start[c]:...]``: the betting states entering card node ``c``, in the
    order the kernels number its histories (the T nodes of the parent, in order)."""
    flat[0] = 0  # the root: value index 0, no raiser
    out = np.empty(flat.shape[0] + 1, dtype=np.int64)
    for c in range(kind.shape[0]):
        if kind[c] == END or kind[c] == LAST:
            continue
        a = actor[c]
        m = 0
        for h in range(n_enter[c]):
            s = flat[enter_start[c] + h]
            st = t_start[a, s]
            for g in range(t_size[a, s]):
                if t_kind[st + g] == T_NODE:
                    out[m] = t_exit[st + g]
                    m += 1
        for ch in range(child_start[c], child_start[c] + child_count[c]):
            if n_enter[ch] != m:
                return ch  # the layout disagrees: report the card node
            for x in range(m):
                flat[enter_start[ch] + x] = out[x]
    return -1


def entering_states(tree, layout, templates) -> tuple[np.ndarray, np.ndarray]:
    """``(enter_start, states)``: card node ``c``'s entering betting states are
    ``states[enter_start[c]:enter_start[c + 1]]`` (kernel order)."""
    n_enter = np.ascontiguousarray(layout.n_enter, dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(n_enter)]).astype(np.int64)
    flat = np.zeros(int(start[-1]), dtype=np.int64)
    bad = _fill_entering(n_enter, start, flat, tree.kind, tree.actor, tree.child_start,
                         tree.child_count, templates.start, templates.size, templates.kind,
                         templates.exit_state)
    if bad >= 0:
        raise RuntimeError(f"card node {bad}: entering histories disagree with the layout")
    return start, flat


def subtree_work(tree: CardTree, lay: Layout) -> np.ndarray:
    """Per card node: the (public node, hand) pairs a traversal visits in its subtree, the
    node's own included (a history entering an END node counts as one public node): the
    measure by which the root's subtrees are shared among threads."""
    pairs = tree.n.sum(1)
    work = (lay.n_t + lay.n_q + np.where(tree.kind == END, lay.n_enter, 0)) * pairs
    work = work.astype(np.float64)
    for c in range(tree.n_nodes - 1, -1, -1):      # children come after their parent
        cs, cc = tree.child_start[c], tree.child_count[c]
        if tree.kind[c] == DECISION and cc:
            work[c] += work[cs:cs + cc].sum()
    return work


def share_among_threads(work: np.ndarray, threads: int) -> np.ndarray:
    """The thread of each item (a root subtree) so that the busiest thread's total ``work``
    is as small as can be found: exact for two threads (every split of up to 16 items is
    tried), else the largest item first to the least loaded thread. Ties go to the lower
    thread and the earlier split, so the answer is the same on every run."""
    work = np.asarray(work, dtype=np.float64)
    n = len(work)
    owner = np.zeros(n, dtype=np.int64)
    if threads <= 1 or n == 0:
        return owner
    if threads == 2 and n <= 16:
        subsets = np.arange(2 ** n, dtype=np.int64)
        bits = (subsets[:, None] >> np.arange(n)) & 1
        second = bits @ work
        busiest = np.maximum(second, work.sum() - second)
        return bits[int(np.argmin(busiest))].astype(np.int64)
    load = np.zeros(threads)
    for j in np.argsort(-work, kind="stable"):
        th = int(np.argmin(load))
        owner[j] = th
        load[th] += work[j]
    return owner
