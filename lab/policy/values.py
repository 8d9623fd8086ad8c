"""Exact action values at a spot of a stored full-game policy, without the whole game.

:meth:`~lab.policy.full.Line.action_values` asks here. A value is that of one
best-response traversal (the seat to act plays a best response from the spot on, the
other seat the policy), in the policy's walk unit, and there are two ways to it that
give the same numbers:

- **The deal and the first card** (card nodes down to depth :data:`KEPT_DEPTH`): one walk
  of a card node's subtree per seat, entered by every betting history that reaches it,
  gives every hand's values at every betting spot of the node (:func:`node_values`).
  They are kept per policy, card node and seat, in memory and in the disk cache (a few
  hundred kB each, 28 per policy), so a machine walks them once (:func:`prepare` does
  all of a policy's: about half a minute for the real game). The deal's walk covers the
  whole game and needs the policy expanded whole (about 1 GB for the real game, for a
  few seconds, on every core).
- **Every later spot**: a walk of its card node's subtree only (masked to the asked hand
  when one is given), on the policy expanded for that subtree alone, whose other pages
  are never touched (:func:`~lab.solver.fullgame.compact.expand` with ``below``). The last
  expansion is kept and serves every spot below it (a hand walked forward stays inside
  it).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

import numpy as np

from ..rules import ACCEPT, RAISE, RUN
from .base import PolicyError
from ..solver.fullgame.tree import END as END_KIND

KEPT_DEPTH = 1
"""Card nodes down to this depth (the deal, the first card) have their values kept
(:func:`node_values`)."""

NODES_KEPT = 4096
"""Card node value files kept in the disk cache (a few hundred kB each, 28 per policy)."""

SOURCES = tuple(f"solver/fullgame/{name}.py" for name in (
    "betting", "compact", "kernels", "last_node", "records", "showdowns", "solver", "storage",
    "tree", "updates")) + ("policy/full.py", "policy/values.py")
"""The code the cached values depend on (its hash names the cache files)."""


def action_values(line: "Line", seat: int, pair: Optional[int] = None) -> tuple[tuple, np.ndarray]:
    """What :meth:`Line.action_values` returns: ``(actions, values [action][pair])`` of
    ``seat`` (the actor) at ``line``'s spot; with ``pair`` only that column is given
    (the others NaN)."""
    pol, spot = line.policy, line.spot
    nu = int(pol.tree.n[spot.card, seat])
    if pair is not None and not 0 <= pair < nu:
        raise PolicyError(f"private state {pair} of seat {seat}: there are {nu} here")
    if int(pol.tree.depth[spot.card]) <= KEPT_DEPTH:
        acts, out = node_values(pol, spot.card, seat)[(spot.history, spot.node)]
        out = np.array(out)
    else:
        solver = _subtree_solver(pol, spot.card)
        walk_values(pol, solver, line, seat, pair)
        acts, out = read_values(pol, solver, line, seat)
    if pair is not None:   # the other states' values were not worked out
        out[:, np.arange(nu) != pair] = np.nan
    return acts, out


# ---------------------------------------------------------------- one walk, its values


def action_order(action):
    """Card moves first (the strongest first), then a raise."""
    return (0 if action[0] == "card" else 1, -action[1])


def walk_values(pol: "FullPolicy", solver, lines, u: int, pair: Optional[int] = None) -> None:
    """One best-response walk for seat ``u`` of the subtree of one card node on ``solver``
    (a solver holding ``pol``, whole or for that subtree), entered by the betting history
    of each of ``lines`` (lines into that card node, one per history; one line alone is
    taken as a list of one); with ``pair`` only that private state's subtrees. The values
    of every betting node of the card node are left in ``solver.work``
    (:func:`read_values`)."""
    from ..solver.fullgame import kernels as K
    from ..solver.fullgame.records import BEST

    lines = [lines] if hasattr(lines, "spot") else list(lines)
    t = pol.tree
    c = lines[0].spot.card
    d = int(t.depth[c])
    H = max(line.spot.history for line in lines) + 1
    n0, n1 = int(t.n[c, 0]), int(t.n[c, 1])
    b = solver.work
    b.ENT[d, :H * (n0 + n1)] = 0.0
    for line in lines:
        h = line.spot.history
        b.ENT[d, h * n0:(h + 1) * n0] = line.entry[0]
        b.ENT[d, H * n0 + h * n1:H * n0 + (h + 1) * n1] = line.entry[1]
    b.ES[d, :H] = pol.entering(c)[:H]
    lad, win, lose = solver.seat_payoffs(u)
    nu = int(t.n[c, u])
    if pair is not None:
        if not 0 <= pair < nu:
            raise PolicyError(f"private state {pair} of seat {u}: there are {nu} here")
        b.MK[d, :nu] = 0
        b.MK[d, pair] = 1
    step = solver.step(u, BEST, win=win, lose=lose, ladder=lad, masked=pair is not None,
                       apart=False)   # the values of every betting node are read after
    if c == 0 and pair is None:   # the whole hand: on all the solver's threads (the same values)
        solver.walk(step)
    else:
        K._visit(c, d, H, solver.shape, solver.store(), b, step)


def read_values(pol: "FullPolicy", solver, line: "Line", u: int) -> tuple[tuple, np.ndarray]:
    """``(actions, values [action][pair])`` of seat ``u`` (the actor) at ``line``'s spot,
    from the betting node values a :func:`walk_values` of its card node left in
    ``solver.work`` (see :meth:`Line.action_values`; NaN where a hand cannot be here)."""
    t, tm = pol.tree, pol.templates
    spot = line.spot
    c = spot.card
    d = int(t.depth[c])
    nu = int(t.n[c, u])
    lad, win, lose = solver.seat_payoffs(u)
    b = solver.work
    _, _, k = pol._locate(spot)
    KI, EV, VI = b.KI, b.EV, b.VI
    so = int(KI[d, k, 4])
    sl = t.pairs(c, u)
    hands = t.pair_hand[sl].astype(np.int64)
    W = solver.weights[u]
    opp = line.reach[1 - u]
    osl = t.pairs(c, 1 - u)
    norm = W[hands][:, t.pair_hand[osl].astype(np.int64)] @ opp
    gid = spot.node
    if tm.kind[gid] == 1:
        n_ans = 3 if tm.child_b[gid] >= 0 else 2
        acts = (ACCEPT, RUN, RAISE)[:n_ans]
        h0 = int(KI[d, k, 7])
        vals = np.empty((n_ans, nu))
        vals[0] = VI[d, (h0 + int(tm.child_a[gid])) * nu + np.arange(nu)]
        kv = int(tm.value[gid])
        raiser = 1 - int(tm.answerer[gid])
        run = win[kv] * lad[kv] if raiser == u else -lose[kv] * lad[kv]   # u's payoff
        vals[1] = run * norm
        if n_ans == 3:
            vals[2] = VI[d, (h0 + int(tm.child_b[gid])) * nu + np.arange(nu)]
    else:
        edges = pol.edge_actions(c)
        E = int(t.n_edges[c])
        can_raise = tm.child_a[gid] >= 0
        acts = tuple(sorted(set(edges), key=action_order)) + ((RAISE,) if can_raise else ())
        index = {a: j for j, a in enumerate(acts)}
        vals = np.full((len(acts), nu), np.nan)
        es = t.pair_edge_start[sl]
        ec = t.pair_edge_count[sl]
        for i in range(nu):
            for e in range(int(es[i]), int(es[i] + ec[i])):
                vals[index[edges[e]], i] = EV[d, so + e]
            if can_raise:
                vals[index[RAISE], i] = EV[d, so + E + i]
    with np.errstate(invalid="ignore", divide="ignore"):
        return acts, np.where(norm > 0, vals / norm, np.nan)


# ---------------------------------------------------------------- kept card nodes


def betting_spots(start: "Line") -> list:
    """A line to every betting spot of ``start``'s card node and betting history (the
    raises and answers before its card is played), in the order they are reached."""
    pol = start.policy
    lines, todo = [], [start]
    while todo:
        line = todo.pop(0)
        lines.append(line)
        for action in ((ACCEPT, RAISE) if pol.is_answer(line.spot) else (RAISE,)):
            try:
                nxt = line.then(action)
            except PolicyError:
                continue   # no raise here
            if not nxt.over and nxt.spot.card == line.spot.card:
                todo.append(nxt)
    return lines


def entering_lines(pol: "FullPolicy", c: int) -> list:
    """A line into card node ``c`` (the deal or a first card) by each betting history
    that enters it."""
    if c == 0:
        return [pol.start()]
    if int(pol.tree.depth[c]) != 1:
        raise ValueError(f"card node {c}: only the deal and the first card are kept")
    lv = int(pol.tree.action[c])
    move = "cover" if lv == 13 else ("card", lv)
    out = {}
    for line in betting_spots(pol.start()):
        if not pol.is_answer(line.spot):
            child = line.then(move)
            out.setdefault(child.spot.history, child)
    return [out[h] for h in sorted(out)]


def kept_nodes(pol: "FullPolicy") -> list:
    """The card nodes whose values are kept: the deal's and the first card's."""
    return [0, *(int(c) for c in pol.tree.children(0) if int(pol.tree.kind[c]) != END_KIND)]


def node_values(pol: "FullPolicy", c: int, seat: int) -> dict:
    """``{(history, template node): (actions, values [action][pair])}`` at every betting
    spot of card node ``c`` where ``seat`` acts, every pair's column worked out: kept in
    memory, and in the disk cache when the policy is a stored one (named by its file's
    hash)."""
    kept = pol.__dict__.setdefault("_node_values", {})
    if (c, seat) in kept:
        return kept[(c, seat)]
    sha = pol.meta.get("sha256")
    if not sha:
        values = _node(pol, c, seat)
    else:
        from ..solver.cache import disk_cached

        base = pol.meta.get("base_sha256") if pol.meta.get("difference") else None
        name = f"node_values-{sha}" + (f"-on-{base}" if base else "") + f"-{c}-{seat}"
        values = disk_cached(name, lambda: _node(pol, c, seat), SOURCES, keep=NODES_KEPT)
    kept[(c, seat)] = values
    return values


def _node(pol: "FullPolicy", c: int, seat: int) -> dict:
    lines = entering_lines(pol, c)
    solver = _whole_solver(pol) if c == 0 else _subtree_solver(pol, c)
    walk_values(pol, solver, lines, seat)
    return {(line.spot.history, line.spot.node): read_values(pol, solver, line, seat)
            for start in lines for line in betting_spots(start)
            if pol.actor(line.spot) == seat}


def _whole_solver(pol: "FullPolicy"):
    """A solver holding ``pol`` expanded whole, on every core (not kept: 1 GB)."""
    import numba

    return _holding(pol, numba.config.NUMBA_NUM_THREADS)


def _holding(pol: "FullPolicy", threads: int, below: Optional[int] = None):
    """A solver on ``threads`` threads holding ``pol`` in its slot layout, 16 bits a slot
    (only card node ``below``'s subtree when given), with the policy's payoffs."""
    from ..solver.fullgame.compact import expand
    from ..solver.fullgame.solver import FullSolver

    solver = FullSolver(replace(pol.config, storage="float32"), threads=threads)
    solver.use_policy(expand(pol.keys, pol.tree, pol.layout, pol.templates, pol.q,
                             below=below, dtype=np.uint16))
    if pol.payoffs is not None:
        solver.set_payoffs(*pol.payoffs)
    return solver


# ---------------------------------------------------------------- later spots


class _Expansion:
    """The policy expanded below one card node, on a one-thread solver."""

    policy = None
    inside = np.zeros(0, dtype=bool)
    solver = None


_LAST = _Expansion()


def _subtree_solver(pol: "FullPolicy", c: int):
    """A one-thread solver holding ``pol`` expanded for a subtree that holds card node
    ``c`` (the last one, when ``c`` is inside it)."""
    from ..solver.fullgame.compact import subtree_mask

    last = _LAST
    if last.policy is pol and last.inside[c]:
        return last.solver
    last.policy = last.solver = None   # its pages go before the next ones are written
    solver = _holding(pol, 1, below=c)
    last.policy, last.inside, last.solver = pol, subtree_mask(pol.tree, c), solver
    return solver


# ---------------------------------------------------------------- preparing a policy


def prepare(pol: "FullPolicy", progress=None) -> int:
    """Work out (or find in the disk cache) the kept values of ``pol`` (every kept card
    node, both seats); ``progress(n)`` after each. Returns how many there are."""
    nodes = kept_nodes(pol)
    for c in nodes:
        for seat in (0, 1):
            node_values(pol, c, seat)
            if progress is not None:
                progress(1)
    return 2 * len(nodes)
