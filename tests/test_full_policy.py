"""The stored full-game policy (lab.solver.fullgame.compact, lab.policy.full.FullPolicy) on
reduced decks.

Every expected value comes from somewhere other than the code under test: the solver's
own reading of its strategy sums (FullSolver.intra_nodes / t_strategy / q_strategy), the
reference game lab.solver.fullgame.game.FullGame walked in plain Python, and a brute-force
best response and policy value computed over that reference tree (points per hand).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from lab.solver.fullgame.records import BEST
from lab.solver.fullgame import compact as P
from lab.solver.games.cardplay_game import COVER, decided
from lab.solver.fullgame.solver import FullSolver, SolverStateError, config_for
from lab.solver.fullgame.tree import LAST, T_NODE
from lab.solver.fullgame.game import FullGame
from lab.policy.full import RAISE, FullPolicy, Spot, Terminal
from lab.errors import InputError
from lab.policy.base import PolicyError

TOY = (2, 2, 2, 1)
"""A 7-card deck: levels 0..3 with 2, 2, 2, 1 copies (one card stays out of the deal)."""
SHORT, FULL = (1, 3, 6), (1, 3, 6, 9, 12)
STEP = 1.0 / P.QUANT
"""One quantisation step of a stored probability."""


# ------------------------------------------------------------------ fixtures

def solved(cap, ladder, iterations=30):
    solver = FullSolver(config_for(toy_cap=cap, ladder=ladder)).allocate()
    solver.iterate(iterations)
    return solver


def stored(solver, threshold, merge=True):
    """(policy, stored pairs) of ``solver``'s average strategy."""
    q, keys, kept = P.compact_policy(solver, threshold, merge=merge)
    return FullPolicy(solver.config, q, keys=keys), kept


@pytest.fixture(scope="module")
def toy_solver():
    return solved(TOY, SHORT)


@pytest.fixture(scope="module")
def toy_policy(toy_solver):
    return stored(toy_solver, 0.01)[0]


@pytest.fixture(scope="module")
def toy_game():
    return FullGame(toy_cap=TOY, ladder=SHORT)


# ------------------------------------------------------------------ the reference game

def table_action(action):
    """The policy's public action (what child() and Line.then take) for a reference one."""
    return "cover" if action == ("card", COVER) else action


def strategy_key(game, action, before, after):
    """The policy's strategy action for a reference move of one private state: a cover
    names the level it hides."""
    if action != ("card", COVER):
        return action
    held = list(game.cards.state_held[before])
    for lv in game.cards.state_held[after]:
        held.remove(lv)
    return ("cover", held[0])


def terminal_outcome(game, pub):
    """(winner, points) of a reference terminal."""
    card_pub, bet, end = pub
    if end is not None:
        return end[1], game.ladder[end[2]]
    return decided(card_pub[0]), game.ladder[bet.value]


def advance(game, pub, privs, seat, move):
    """The reference state after ``seat`` makes ``move`` (action, from, to): the public
    state, both private-state lists, and for each seat the positions kept (into ``to`` for
    the mover, into his old list for the other); an open card rules out the other seat's
    classes that no longer fit in the deck, as the policy's card tree does."""
    action, _, to = move
    nxt = game.child(pub, action)
    lists = [np.asarray(privs[0]), np.asarray(privs[1])]
    lists[seat] = np.asarray(to)
    keep = [np.arange(len(lists[0])), np.arange(len(lists[1]))]
    for p in (0, 1):
        ok = game.consistent(nxt, p, lists[p])
        if ok is not None:
            keep[p] = np.flatnonzero(ok)
            lists[p] = lists[p][keep[p]]
    return nxt, lists, keep


def pair_index(policy, decision):
    """{private state: its column in ``decision``}."""
    return {policy.state_of(h, held): i
            for i, (h, held) in enumerate(zip(decision.hands, decision.held))}


def move_probabilities(game, decision, index, privs, move):
    """The stored probability that each state of ``move`` takes it (0 where not stored)."""
    action, fr, to = move
    strat = decision.strategy
    p = np.array([strat[decision.actions.index(strategy_key(game, action, privs[f], t)),
                        index[int(privs[f])]] for f, t in zip(fr, to)])
    return np.where(np.isnan(p), 0.0, p)


def legal_moves(game, pub, privs, seat):
    return [m for m in game.moves(pub, privs[seat]) if len(m[1])]


# ------------------------------------------------------------------ brute force

class Brute:
    """Best responses and the policy's value by plain recursion over the reference tree.

    ``values(pub, spot, privs, reach)`` returns ``(br0, br1, value)``: ``br_u[i]`` is the
    counterfactual best-response value of seat ``u``'s ``i``-th private state below this
    public state (points times the deal weight of the classes times the other seat's
    reach), the other seat playing the policy; ``value`` the mão's points times the
    probability of getting here, both seats playing the policy. The policy is read only
    through FullPolicy.decision and FullPolicy.child.

    With ``record``, ``tables[public actions so far]`` keeps, at every decision state
    below, ``(the actor's states, actions, values [action][state])``: the counterfactual
    value of each action followed by the actor's best response (:meth:`action_table`),
    for the reach the policy gives to that history."""

    def __init__(self, policy, game, record=False):
        self.policy, self.game = policy, game
        self.W = np.asarray(game.deal_weights(), dtype=np.float64)
        self.cls = game.cards.state_class
        self.tables = {} if record else None

    def values(self, pub, spot, privs, reach, history=()):
        game = self.game
        if game.actor(pub) is None:
            assert isinstance(spot, Terminal)
            winner, points = terminal_outcome(game, pub)
            assert (spot.winner, spot.points) == (winner, points)
            pts = float(points if winner == 0 else -points)
            M = self.W[np.ix_(self.cls[privs[0]], self.cls[privs[1]])]
            return pts * (M @ reach[1]), -pts * (M.T @ reach[0]), pts * (reach[0] @ M @ reach[1])
        split = self.split(pub, spot, privs, reach, history)
        if self.tables is not None:
            self.tables[history] = (privs[split[0]], *self.action_table(privs, split))
        return self.combine(privs, split)

    def split(self, pub, spot, privs, reach, history=()):
        """``(actor, decision, [(move, keep, child values)])`` at a decision state: the
        values below each legal move of the actor (see :func:`advance` for ``keep``)."""
        game, policy = self.game, self.policy
        a = game.actor(pub)
        assert isinstance(spot, Spot) and policy.actor(spot) == a
        decision = policy.decision(spot)
        index = pair_index(policy, decision)
        parts = []
        for move in legal_moves(game, pub, privs, a):
            probs = move_probabilities(game, decision, index, privs[a], move)
            nxt, lists, keep = advance(game, pub, privs, a, move)
            r = [reach[0], reach[1]]
            r[a] = reach[a][move[1]] * probs
            r = [r[0][keep[0]], r[1][keep[1]]]
            action = table_action(move[0])
            values = self.values(nxt, policy.child(spot, action), lists, r, history + (action,))
            parts.append((move, keep, values))
        return a, decision, parts

    @staticmethod
    def combine(privs, split):
        """``(br0, br1, value)`` from :meth:`split`: the actor takes his best move, the
        other seat's values and the policy's value add up over the moves."""
        a, _, parts = split
        br = [np.zeros(len(privs[0])), np.zeros(len(privs[1]))]
        br[a][:] = -np.inf
        value = 0.0
        for (_, fr, _), keep, (b0, b1, v) in parts:
            np.maximum.at(br[a], fr[keep[a]], (b0, b1)[a])
            br[1 - a][keep[1 - a]] += (b0, b1)[1 - a]
            value += v
        return br[0], br[1], value

    def action_table(self, privs, split):
        """``(actions, values [action][state])`` of the actor from :meth:`split`: each
        action followed by his best response, counterfactual (NaN where a state cannot
        take the action)."""
        a, decision, parts = split
        out = np.full((len(decision.actions), len(privs[a])), np.nan)
        for (action, fr, to), keep, values in parts:
            for k, j in enumerate(keep[a]):
                key = strategy_key(self.game, action, privs[a][fr[j]], to[j])
                out[decision.actions.index(key), fr[j]] = values[a][k]
        return decision.actions, out


def root_state(game):
    privs = [game.root_states(0), game.root_states(1)]
    return game.root(), privs, [np.ones(len(privs[0])), np.ones(len(privs[1]))]


# ------------------------------------------------------------------ walks

def policy_walk(policy, game, rng):
    """One hand played on the policy: each move is one that some state of the actor with
    positive own reach takes with positive stored probability, and that keeps the public
    history possible (some deal of two such states, both seats' reach positive). Yields
    ``(pub, spot, privs, reach, line)`` before each move and at the end; ``reach`` is each
    seat's own reach over ``privs``, computed here from the stored decisions."""
    W = np.asarray(game.deal_weights(), dtype=np.float64)
    cls = game.cards.state_class
    pub, privs, reach = root_state(game)
    spot, line = policy.root(), policy.start()
    while True:
        yield pub, spot, privs, reach, line
        a = game.actor(pub)
        if a is None:
            return
        decision = policy.decision(spot)
        index = pair_index(policy, decision)
        options = []
        for move in legal_moves(game, pub, privs, a):
            probs = move_probabilities(game, decision, index, privs[a], move)
            nxt, lists, keep = advance(game, pub, privs, a, move)
            r = [reach[0], reach[1]]
            r[a] = reach[a][move[1]] * probs
            r = [r[0][keep[0]], r[1][keep[1]]]
            if r[0] @ W[np.ix_(cls[lists[0]], cls[lists[1]])] @ r[1] > 0:
                options.append((move, nxt, lists, r))
        move, pub, privs, reach = rng.choice(options)
        action = table_action(move[0])
        spot, line = policy.child(spot, action), line.then(action)


# ------------------------------------------------------------------ 1. quantisation

def betting_after(bet, seat, action):
    """(accepted value, pending offer or -1, last raiser or -1) after ``seat``'s action."""
    value, pending, raiser = bet
    if action == "raise":
        return (pending, pending + 1, seat) if pending >= 0 else (value, value + 1, seat)
    if action == "accept":
        return (pending, -1, raiser)
    return bet


def every_spot(policy):
    """``(spot, betting state, cards played, decision)`` of every public decision state,
    from the root by the policy's own actions; the betting state and the number of cards
    played are followed here from the actions."""
    todo, out = [(policy.root(), (0, -1, -1), 0)], []
    while todo:
        spot, bet, cards = todo.pop()
        d = policy.decision(spot)
        out.append((spot, bet, cards, d))
        for action in {("cover" if a[0] == "cover" else a) if isinstance(a, tuple) else a
                       for a in d.actions}:
            nxt = policy.child(spot, action)
            if isinstance(nxt, Spot):
                card = action == "cover" or isinstance(action, tuple)
                todo.append((nxt, betting_after(bet, d.seat, action), cards + card))
    return out


def solver_sums(solver, policy, spot, cache):
    """The solver's strategy sums at ``spot``'s public node, scaled to a common unit:
    ``{pair: {action: sum}}`` (pairs are positions in the actor's list, as in
    FullSolver.t_strategy); None where the node has no slots (a forced card)."""
    c = spot.card
    if c not in cache:
        cache[c] = {(r["h"], r["gid"]): r for r in intra_nodes(solver, c, policy.entering(c))}
    rec = cache[c][(spot.history, spot.node)]
    if rec["n_slots"] == 0:
        return None
    t, slot = solver.tree, rec["slot"]
    x = solver.cum16[slot:slot + rec["n_slots"]].astype(np.float64) * float(
        solver.cscale[rec["node"]])  # this node's slots
    out = {}
    if rec["kind"] == 0:
        sl = t.pairs(c, int(t.actor[c]))
        E = int(t.n_edges[c])
        names = edge_actions(solver, c)
        for i in range(sl.stop - sl.start):
            es = int(t.pair_edge_start[sl.start + i])
            ec = int(t.pair_edge_count[sl.start + i])
            d: dict = {}
            for e in range(es, es + ec):
                d[names[e]] = d.get(names[e], 0.0) + x[e]
            if rec["child_a"] >= 0:
                d["raise"] = x[E + i]
            out[i] = d
    else:
        n = rec["n_ans"]
        for i in range(int(t.n[c, rec["answerer"]])):
            out[i] = {name: x[i * n + j]
                      for j, name in enumerate(("accept", "run", "raise")[:n])}
    return out


def normalised(sums: dict) -> dict:
    """Sums to probabilities; a pair never reached plays uniformly (as the kernels read it)."""
    total = sum(sums.values())
    if total <= 0:
        return {a: 1.0 / len(sums) for a in sums}
    return {a: v / total for a, v in sums.items()}


def thresholded(probs: dict, threshold: float) -> dict:
    """Probabilities below ``threshold`` dropped (the most likely action kept), the rest
    renormalised."""
    best = max(probs.values())
    kept = {a: p for a, p in probs.items() if p >= threshold or p == best}
    total = sum(kept.values())
    return {a: kept.get(a, 0.0) / total for a in probs}


def forced(decision):
    """One card each and no raise: the spot has no slots, nothing is stored there."""
    return decision.actions[0] != "accept" and "raise" not in decision.actions \
        and all(len(h) == 1 for h in decision.held)


@pytest.mark.parametrize("merge, threshold", [(False, 0.0), (True, 0.0), (True, 0.05)])
def test_stored_probabilities_are_the_solver_average_quantised(toy_solver, merge, threshold):
    """At every stored (key, private state) pair the stored probabilities are the solver's
    average strategy (thresholded) within one step of 1/255 and sum to one. Unmerged, a
    key is one public node and the average is the solver's own (FullSolver.t_strategy /
    q_strategy); merged, a key is a card node and a betting state (accepted value and last
    raiser, followed here from the public actions), every public node of the key shows the
    same strategy, and the average is over all of them (their strategy sums added); in
    round 3 also over the deciding seat's states that hold the same last card, which share
    one strategy. The number of stored pairs is what compact_policy reports."""
    policy, kept = stored(toy_solver, threshold, merge)
    cache: dict = {}
    groups: dict = {}
    spots = 0
    for spot, bet, cards, d in every_spot(policy):
        spots += 1
        sums = solver_sums(toy_solver, policy, spot, cache)
        assert (sums is None) == forced(d)
        if sums is None:
            continue
        if not merge:  # this reader agrees with the solver's own
            rec = cache[spot.card][(spot.history, spot.node)]
            own = (t_strategy if rec["kind"] == 0 else q_strategy)(
                toy_solver, spot.card, rec)
            for i, x in sums.items():
                for a, p in normalised(x).items():
                    assert abs(own[i][a] - p) < 1e-12
        key = (spot.card, bet[1] >= 0, bet[0], bet[2]) if merge else spot
        if merge and cards >= 4:  # round 3: one strategy per last card held
            units = {i: d.held[i] for i in sums}
        else:
            units = {i: i for i in sums}
        if key not in groups:
            groups[key] = (d, units, {u: dict.fromkeys(x, 0.0) for u, x in
                                      ((units[i], x) for i, x in sums.items())})
        first, _, total = groups[key]
        np.testing.assert_array_equal(d.strategy, first.strategy)
        for i, x in sums.items():
            for a, v in x.items():
                total[units[i]][a] += v
    pairs = small = shared = 0
    for d, units, sums in groups.values():
        for i in np.flatnonzero(d.stored):
            want = thresholded(normalised(sums[units[int(i)]]), threshold)
            for j in range(int(i)):
                if units[j] == units[int(i)]:  # one strategy for the unit
                    np.testing.assert_array_equal(d.strategy[:, j], d.strategy[:, i])
                    shared += 1
                    break
            assert set(want) == set(d.of_hand(int(i)))
            for action, p in want.items():
                got = d.strategy[d.actions.index(action), i]
                assert abs(got - p) <= STEP + 1e-12, (action, got, p)
                small += 0 < got < 0.05 - STEP
            assert abs(np.nansum(d.strategy[:, i]) - 1) < 1e-12
            pairs += 1
    assert pairs == kept
    assert (small > 0) == (threshold == 0)  # the plain average does hold small probabilities
    if merge:
        assert len(groups) < spots / 3 and shared > 0


# ------------------------------------------------------------------ 2. pruning

@pytest.mark.parametrize("merge", [False, True])
def test_pruning_again_changes_nothing(toy_solver, merge):
    q, keys, kept = P.compact_policy(toy_solver, 0.01, merge=merge)
    again = q.copy()
    assert P.prune_unreached(toy_solver.config, keys, again) == kept
    np.testing.assert_array_equal(again, q)
    # and pruning does prune: the quantised average before it holds more pairs
    raw = P.quantised_average(toy_solver, keys, 0.01)
    assert (raw != 0).sum() > (q != 0).sum()


@pytest.mark.parametrize("merge", [False, True])
def test_stored_where_the_own_reach_is_positive(toy_solver, toy_game, merge):
    """On walks that follow the policy, every state of the actor with positive own reach
    (the product of its own stored probabilities so far, computed here) is stored, and
    Line's reach is that product. Unmerged, a state with own reach zero is not stored;
    merged, its key may hold it for another betting history."""
    policy, _ = stored(toy_solver, 0.01, merge)
    rng = random.Random(7)
    checked = unstored = 0
    for _ in range(150):
        for pub, spot, privs, reach, line in policy_walk(policy, toy_game, rng):
            a = toy_game.actor(pub)
            if a is None:
                break
            d = policy.decision(spot)
            index = pair_index(policy, d)
            mine = np.zeros(len(index))
            for s, r in zip(privs[a], reach[a]):
                mine[index[int(s)]] = r
            np.testing.assert_allclose(line.reach[a], mine, rtol=1e-12, atol=0)
            if forced(d):
                continue
            assert d.stored[mine > 0].all()
            if not merge:
                np.testing.assert_array_equal(d.stored, mine > 0)
            checked += 1
            unstored += int((~d.stored).sum())
    assert checked > 600 and unstored > 0


# ------------------------------------------------------------------ 3. navigation

def test_navigation_agrees_with_the_reference_game(toy_policy, toy_game):
    """Random public walks: the actor, his private states, the legal public actions and
    every terminal's winner and points agree with the reference game; every other action
    is refused with PolicyError."""
    game, policy = toy_game, toy_policy
    rng = random.Random(3)
    every = [("card", lv) for lv in range(len(TOY) + 1)] + ["cover", "raise", "accept", "run"]
    ends = {"cards": 0, "run": 0}
    for walk in range(2000):
        pub, privs, _ = root_state(game)
        spot = policy.root()
        assert spot == policy.start().spot
        while True:
            a = game.actor(pub)
            if a is None:
                assert isinstance(spot, Terminal)
                assert (spot.winner, spot.points) == terminal_outcome(game, pub)
                ends[spot.how] += 1
                break
            assert isinstance(spot, Spot)
            assert policy.actor(spot) == a
            assert policy.is_answer(spot) == (pub[1].pending >= 0)
            d = policy.decision(spot)
            assert d.seat == a
            assert sorted(pair_index(policy, d)) == sorted(int(s) for s in privs[a])
            moves = legal_moves(game, pub, privs, a)
            legal = {table_action(m[0]) for m in moves}
            assert legal == {"cover" if isinstance(x, tuple) and x[0] == "cover" else x
                             for x in d.actions}
            if walk < 200:
                for action in every:
                    if action not in legal:
                        with pytest.raises(PolicyError):
                            policy.child(spot, action)
            move = rng.choice(moves)
            pub, privs, _ = advance(game, pub, privs, a, move)
            spot = policy.child(spot, table_action(move[0]))
    assert ends["cards"] > 500 and ends["run"] > 500


def test_illegal_moves_raise(toy_policy):
    policy = toy_policy
    root = policy.root()
    for action in ("accept", "run", "cover", ("card", 4), ("card", 13), "surrender", ("x", 1)):
        with pytest.raises(PolicyError):
            policy.child(root, action)
    asked = policy.child(root, "raise")  # truco: the pé answers
    assert policy.is_answer(asked) and policy.actor(asked) == 1
    back = policy.child(asked, "accept")  # the mão plays on at 3 and may not raise again
    assert policy.actor(back) == 0 and policy.value_index(back) == 1
    with pytest.raises(PolicyError):
        policy.child(back, "raise")
    with pytest.raises(PolicyError):
        policy.child(back, "accept")
    six = policy.child(asked, "raise")  # the pé re-raises to 6, the top of this ladder
    assert policy.actor(six) == 0 and policy.is_answer(six)
    with pytest.raises(PolicyError):
        policy.child(six, "raise")
    with pytest.raises(PolicyError):
        policy.child(six, ("card", 1))
    assert policy.child(six, "run") == Terminal(1, 3, "run")
    # the one card of level 3 shown by the mão: the pé cannot hold it
    after = policy.child(root, ("card", 3))
    with pytest.raises(PolicyError):
        policy.child(after, ("card", 3))
    with pytest.raises(PolicyError):
        policy.child(after, "cover")
    line = policy.start().then("raise").then("run")
    assert line.over
    with pytest.raises(PolicyError):
        line.then(("card", 0))
    with pytest.raises(PolicyError):
        policy.state_of(0, (3, 3))


# ------------------------------------------------------------------ 4. best response

@pytest.fixture(scope="module")
def toy_brute(toy_policy, toy_game):
    """The brute force over the toy policy's whole tree, recording every decision state's
    action values, and its ``(br0, br1, value)`` at the root."""
    pub, privs, reach = root_state(toy_game)
    brute = Brute(toy_policy, toy_game, record=True)
    return brute, brute.values(pub, toy_policy.root(), privs, reach)


def check_best_responses(policy, br0, br1, value):
    solver = policy.solver()
    v0, v1 = solver.best_response_values()
    assert abs(br0.sum() - v0) < 1e-9 and abs(br1.sum() - v1) < 1e-9
    assert abs(value - solver.value()) < 1e-9
    # each best response gains something against a 30-iteration average
    assert br0.sum() - value > 1e-4 and br1.sum() + value > 1e-4


def test_best_responses_and_value_match_brute_force(toy_policy, toy_brute):
    """Both seats' exact best-response values against the stored policy and the mão's value
    under it, by the solver's kernels on the expanded ``q``, equal a plain recursion over
    the reference game that reads the policy only through FullPolicy.decision."""
    check_best_responses(toy_policy, *toy_brute[1])


def test_a_held_policy_is_walked_by_the_solvers_own_compiled_walks(toy_solver, toy_policy):
    """The stored policy's solver hands the kernels arrays of the same types as a solving
    solver's (16-bit sums), so numba compiles no walk of its own for it; its walks are
    refused as CFR iterations."""
    from numba import typeof

    held = toy_policy.solver(1)
    assert typeof(held.store()) == typeof(toy_solver.store())
    assert held.store().wide is False and held.cum16.dtype == np.uint16
    with pytest.raises(SolverStateError):
        held.iterate(1)


@pytest.mark.parametrize("ladder, merge", [(FULL, True), (SHORT, False)])
def test_best_responses_match_brute_force_on_a_second_deck(ladder, merge):
    """The same on a 7-card deck of two levels (4 and 3 copies): with the real ladder, and
    unmerged."""
    cap = (4, 3)
    policy, _ = stored(solved(cap, ladder), 0.01, merge)
    game = FullGame(toy_cap=cap, ladder=ladder)
    pub, privs, reach = root_state(game)
    check_best_responses(policy, *Brute(policy, game).values(pub, policy.root(), privs, reach))


# ------------------------------------------------------------------ 5. action values

def test_action_values_are_best_response_values_of_each_action(toy_policy, toy_game,
                                                               toy_brute):
    """Line.action_values at every spot of hands played on the policy (the root, after
    cards, answers to raises and re-raises, after accepted raises, all three rounds)
    equals the brute-force value of each action followed by a best response, divided by
    the probability of the other seat's hands (deal weights and his reach, computed by the
    walk) given the actor's class; at the root the best action's value times the class
    marginal is the kernels' best-response value of each root hand."""
    policy, game = toy_policy, toy_game
    brute = toy_brute[0]
    cls = brute.cls
    seen = set()
    rng = random.Random(11)
    for walk in range(100):
        for pub, spot, privs, reach, line in policy_walk(policy, game, rng):
            a = game.actor(pub)
            if a is None:
                break
            seen.add((policy.is_answer(spot), len(pub[0][0]), len(pub[0][2]), pub[1].value))
            states, actions, values = brute.tables[line.actions]
            np.testing.assert_array_equal(states, privs[a])
            W = brute.W if a == 0 else brute.W.T
            norm = W[np.ix_(cls[privs[a]], cls[privs[1 - a]])] @ reach[1 - a]
            with np.errstate(invalid="ignore", divide="ignore"):
                want = np.where(norm > 0, values / norm, np.nan)
            got_actions, got = line.action_values(a)
            assert got_actions == actions
            index = pair_index(policy, policy.decision(spot))
            got = got[:, [index[int(s)] for s in privs[a]]]
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
            if not line.actions:  # the root
                best = policy.solver().traverse(0, BEST)[[index[int(s)] for s in privs[0]]]
                marginal = brute.W.sum(axis=1)[cls[privs[0]]]
                np.testing.assert_allclose(np.nanmax(got, axis=0) * marginal, best,
                                           rtol=1e-9, atol=1e-12)
    # leads and follows in all three rounds, answers, raised values
    assert {k[1:3] for k in seen} == {(r, t) for r in range(3) for t in range(2)}
    assert sum(k[0] for k in seen) >= 6 and {k[3] for k in seen} == {0, 1, 2}


def test_one_states_action_values_walk_only_its_cards(toy_policy, toy_game):
    """Line.action_values(seat, pair) walks only the card subtrees that private state can
    reach: its column is the whole walk's, bit for bit, at every spot of hands played on
    the policy; the other columns are NaN; a state that is not there is refused."""
    rng = random.Random(5)
    checked = 0
    for walk in range(20):
        for pub, spot, privs, reach, line in policy_walk(toy_policy, toy_game, rng):
            a = toy_game.actor(pub)
            if a is None:
                break
            acts, full = line.action_values(a)
            for i in range(full.shape[1]):
                got_acts, got = line.action_values(a, i)
                assert got_acts == acts
                np.testing.assert_array_equal(got[:, i], full[:, i])
                assert np.isnan(np.delete(got, i, axis=1)).all()
                checked += 1
            with pytest.raises(PolicyError, match="private state"):
                line.action_values(a, full.shape[1])
    assert checked > 100


# ------------------------------------------------------------------ 7. encoding

@pytest.mark.parametrize("packing", ["model", "pairs", "slots", "smallest"])
def test_encode_decode_round_trip(toy_policy, toy_solver, packing):
    """decode(encode(q)) is q, byte for byte, in every packing: the toy policy (merged
    keys, round-3 hands sharing a strategy stored once); decode tells the packings apart by
    the file's first bytes, and "smallest" is the smaller of "model" and "pairs". The
    "slots" packing takes any bytes (here random ones on unmerged keys); the others refuse
    bytes whose pairs are not strategies, bytes packed for other keys and (model) bytes cut
    short."""
    policy = toy_policy
    where = (policy.keys, policy.tree, policy.templates)
    blob = P.encode(policy.q, *where, packing=packing)
    if packing == "smallest":
        sizes = {p: len(P.encode(policy.q, *where, packing=p)) for p in ("model", "pairs")}
        assert len(blob) == min(sizes.values()) == sizes[P.packing_of(blob)]
    else:
        assert P.packing_of(blob) == packing
    if P.packing_of(blob) == "model":
        with pytest.raises(ValueError, match="cut short"):
            P.decode(blob[:-3], *where)
    back = P.decode(blob, *where)
    assert back.dtype == np.uint8 and back.shape == policy.q.shape
    np.testing.assert_array_equal(back, policy.q)
    assert len(blob) < policy.q.size // 2  # mostly zeros: it compresses
    _, keys, _ = P.compact_policy(toy_solver, 0.01, merge=False)
    unmerged = (keys, policy.tree, policy.templates)
    noise = np.random.default_rng(0).integers(0, 256, keys.n_slots, dtype=np.uint8)
    if packing == "slots":
        np.testing.assert_array_equal(P.decode(P.encode(noise, *unmerged, packing=packing),
                                               *unmerged), noise)
    else:
        with pytest.raises(ValueError, match="does not sum to 0 or 255"):
            P.encode(noise, *unmerged, packing=packing)
        with pytest.raises(ValueError, match="do not fit its keys"):
            P.decode(blob, *unmerged)
    with pytest.raises(ValueError, match="'pairs' or 'slots'"):
        P.encode(policy.q, *where, packing="bytes")


@pytest.mark.parametrize("packing", ["model", "pairs", "slots"])
def test_a_header_says_what_a_file_holds_and_leaves_its_bytes_as_they_were(toy_policy,
                                                                            packing):
    """with_header puts the fields before the policy's bytes: split_header gives them and
    the bytes back unchanged, decode and packing_of read through it to the same policy,
    a file without one (as stored before headers) reads as before, and a damaged header
    is a ValueError."""
    policy = toy_policy
    where = (policy.keys, policy.tree, policy.templates)
    body = P.encode(policy.q, *where, packing=packing)
    fields = {"vira": "4", "rules": "r", "slots": int(policy.keys.n_slots), "score": None}
    blob = P.with_header(body, fields)
    assert blob.startswith(P.HEADER_MAGIC) and not body.startswith(P.HEADER_MAGIC)
    assert P.split_header(blob) == (fields, body)
    assert P.split_header(body) == (None, body)
    assert P.packing_of(blob) == packing
    np.testing.assert_array_equal(P.decode(blob, *where), policy.q)
    for damaged in (blob[:6], blob[:10], blob[:8] + b"x" * 40 + blob[48:]):
        with pytest.raises(ValueError, match="header"):
            P.split_header(damaged)
    with pytest.raises(ValueError, match="already have a header"):
        P.with_header(blob, fields)


def test_the_pairs_packing_keeps_one_flag_and_all_but_one_byte_per_pair(toy_policy):
    """pack_pairs: a flag per stored pair (held or pruned) and, per held pair, its bytes but
    the last, which is 255 minus their sum: fewer bytes than the stored slots."""
    policy = toy_policy
    where = (policy.keys, policy.tree, policy.templates)
    flags, rest = P.pack_pairs(policy.q, *where)
    assert set(np.unique(flags)) == {0, 1}
    slots = int(P.stored_slots(*where).sum())
    held = int(np.count_nonzero(policy.q[P.stored_slots(*where)]))
    assert flags.size + rest.size < slots and rest.size < held + flags.size
    np.testing.assert_array_equal(P.unpack_pairs(flags, rest, *where)[P.stored_slots(*where)],
                                  policy.q[P.stored_slots(*where)])
    with pytest.raises(ValueError, match="do not fit"):
        P.unpack_pairs(flags, rest[:-1], *where)


@pytest.mark.parametrize("packing", ["model", "pairs", "slots"])
def test_a_policy_stored_as_a_difference_decodes_to_itself(toy_policy, packing):
    """encode(q, base=b) keeps q - b (modulo 256) and decode with the same base gives q back
    byte for byte: here the toy policy against the policy of ten more iterations (a
    score-aware policy is stored against its vira's points policy this way). Where the two
    agree the difference is zero, so it is smaller than the policy itself."""
    policy = toy_policy
    where = (policy.keys, policy.tree, policy.templates)
    later = stored(solved(TOY, SHORT, iterations=40), 0.01)[0].q
    assert (later != policy.q).any()
    blob = P.encode(later, *where, base=policy.q, packing=packing)
    np.testing.assert_array_equal(P.decode(blob, *where, base=policy.q), later)
    try:                                                       # the base is needed
        assert not np.array_equal(P.decode(blob, *where), later)
    except ValueError as e:                          # (pairs, model: they do not fit)
        assert packing != "slots" and "do not fit" in str(e)
    assert len(blob) < len(P.encode(later, *where, packing=packing))


def test_a_score_aware_policy_is_coded_pair_by_pair_the_smaller_way_kept(toy_policy):
    """smaller_encoding: a score-aware policy coded pair by pair (packing "model") on its
    own and as its difference from the points policy; the smaller is kept, and decodes to
    the policy (with the points policy where it is the difference)."""
    from lab.tables.score_policies import smaller_encoding

    policy = toy_policy
    where = (policy.keys, policy.tree, policy.templates)
    later = stored(solved(TOY, SHORT, iterations=40), 0.01)[0].q
    blob, plain, difference = smaller_encoding(later, policy.q, *where)
    assert [P.packing_of(b) for b in (blob, plain, difference)] == ["model"] * 3
    assert len(blob) == min(len(plain), len(difference))
    base = policy.q if blob is difference else None
    np.testing.assert_array_equal(P.decode(blob, *where, base=base), later)
    np.testing.assert_array_equal(P.decode(plain, *where), later)


@pytest.mark.parametrize("tolerance", [0.0, 0.1, 0.3])
def test_snapping_keeps_a_pair_s_own_strategy_only_where_it_moved(toy_policy, tolerance):
    """snap_to(q, base, tolerance): at every decision and private state, a pair ``q``
    stores keeps its own strategy where it is more than ``tolerance`` (total variation)
    from ``base``'s or ``base`` does not store it, and takes ``base``'s otherwise, as
    does every pair ``q`` does not store; read back through FullPolicy, decision by
    decision. Tolerance 1 keeps only the pairs ``base`` does not store."""
    base = toy_policy
    where = (base.keys, base.tree, base.templates)
    later = stored(solved(TOY, SHORT, iterations=40), 0.01)[0]
    snapped = later.q.copy()
    own = P.snap_to(snapped, base.q, *where, tolerance)
    result = FullPolicy(base.config, snapped, keys=base.keys)
    kept = moved = seen = only_own = 0
    for spot, _, _, d in every_spot(result):
        dq, db = later.decision(spot), base.decision(spot)
        for i in range(d.strategy.shape[1]):
            seen += 1
            if not dq.stored[i]:
                want = db
            else:
                tv = (0.5 * np.nansum(np.abs(dq.strategy[:, i] - db.strategy[:, i]))
                      if db.stored[i] else 1.0)
                want = dq if tv > tolerance + 1e-9 or not db.stored[i] else db
                kept += want is dq
                only_own += not db.stored[i]
                moved += tv > 0
            np.testing.assert_array_equal(d.strategy[:, i], want.strategy[:, i])
            assert d.stored[i] == want.stored[i]
    assert seen > 100 and kept > 0 and (kept < moved or tolerance == 0)
    assert 0 < own <= int((snapped != base.q).sum())
    assert only_own > 0
    assert 0 < P.snap_to(later.q.copy(), base.q, *where, 1.0) <= only_own   # keys, spots
    same = base.q.copy()
    assert P.snap_to(same, base.q, *where, 1.0) == 0 and np.array_equal(same, base.q)
    with pytest.raises(InputError):
        P.snap_to(later.q.copy(), base.q, *where, 1.5)
    blob = P.encode(snapped, *where, base=base.q)
    np.testing.assert_array_equal(P.decode(blob, *where, base=base.q), snapped)


def pair_sums(policy, spot, per_slot) -> np.ndarray:
    """Per private state of the actor at ``spot`` (the decision's columns): ``per_slot``
    (one number per key slot) added up over that state's slots of the spot's key."""
    t, tm = policy.tree, policy.templates
    c, slot = spot.card, policy.key_slot(spot)
    d = policy.decision(spot)
    n = d.strategy.shape[1]
    if tm.kind[spot.node] == 1:
        width = 3 if tm.child_b[spot.node] >= 0 else 2
        return per_slot[slot:slot + width * n].reshape(n, width).sum(axis=1)
    sl = t.pairs(c, d.seat)
    es, ec, E = t.pair_edge_start[sl], t.pair_edge_count[sl], int(t.n_edges[c])
    out = np.array([per_slot[slot + es[i]:slot + es[i] + ec[i]].sum() for i in range(n)])
    if tm.child_a[spot.node] >= 0:
        out += per_slot[slot + E:slot + E + n]
    return out


def assert_reached_pairs_stored(config, policy):
    """Every pair ``policy``'s own play reaches (:func:`compact.own_reach` of its bytes) is
    stored, at every decision with slots."""
    reached = P.own_reach(config, policy.keys, policy.q)
    for spot, _, _, d in every_spot(policy):
        if not forced(d):
            assert d.stored[pair_sums(policy, spot, reached) > 0].all()


def test_own_reach_follows_the_policy_s_own_probabilities(toy_solver, toy_policy):
    """own_reach: a pair's slots add up to its seat's own reach, summed over its key's
    histories; zero exactly on the pairs the policy does not hold (pruning dropped them).
    At the root every hand of the mão has reach 1; at the mão's answer to the pé's
    re-raise of its truco, each hand's reach is the probability with which the root
    strategy (read through FullPolicy) calls truco with it."""
    policy = toy_policy
    reach = P.own_reach(toy_solver.config, policy.keys, policy.q)
    assert reach.shape == (policy.keys.n_slots,) and (reach >= 0).all()
    root = policy.root()
    d = policy.decision(root)
    np.testing.assert_allclose(pair_sums(policy, root, reach)[d.stored], 1.0, rtol=1e-6)
    raised = policy.child(policy.child(root, RAISE), RAISE)   # truco, six
    answer = policy.decision(raised)
    assert answer.seat == d.seat == 0
    truco = np.nan_to_num(d.strategy[d.actions.index(RAISE)])
    np.testing.assert_allclose(pair_sums(policy, raised, reach), truco, rtol=1e-5, atol=1e-7)
    assert 0 < truco.max() and (truco == 0).any()
    for spot, _, _, dd in every_spot(policy):
        if not forced(dd):
            assert ((pair_sums(policy, spot, reach) > 0) == dd.stored).all()


@pytest.mark.parametrize("reach_tolerance", [0.0, 0.02, 1e9])
def test_snapping_by_reach_keeps_what_moves_a_reached_pair(toy_solver, toy_policy,
                                                           reach_tolerance):
    """snap_to with own reaches: a pair keeps its own strategy where it moved by more than
    the tolerance *and* its own reach times that move exceeds ``reach_tolerance``, and
    wherever the base holds nothing (however seldom it is reached: a stored policy holds
    every pair its own play reaches); 0 is snapping by distance alone, a huge one gives
    the base back wherever the base holds the pair."""
    base = toy_policy
    where = (base.keys, base.tree, base.templates)
    later = stored(solved(TOY, SHORT, iterations=40), 0.01)[0]
    reach = P.own_reach(toy_solver.config, base.keys, later.q)
    by_distance = later.q.copy()
    P.snap_to(by_distance, base.q, *where, 0.05)
    snapped = later.q.copy()
    own = P.snap_to(snapped, base.q, *where, 0.05, reach, reach_tolerance)
    result = FullPolicy(base.config, snapped, keys=base.keys)
    kept = only_own = 0
    for spot, _, _, d in every_spot(result):
        dq, db = later.decision(spot), base.decision(spot)
        r = pair_sums(later, spot, reach)
        for i in range(d.strategy.shape[1]):
            if not dq.stored[i]:
                want = db
            else:
                tv = (0.5 * np.nansum(np.abs(dq.strategy[:, i] - db.strategy[:, i]))
                      if db.stored[i] else 1.0)
                moved = tv > 0.05 + 1e-9 and r[i] * tv > reach_tolerance
                want = dq if moved or not db.stored[i] else db
                kept += want is dq
                only_own += not db.stored[i]
            np.testing.assert_array_equal(d.strategy[:, i], want.strategy[:, i])
    assert only_own > 0     # the case that matters: pairs the base never reaches
    assert_reached_pairs_stored(toy_solver.config, result)
    if reach_tolerance == 0:
        np.testing.assert_array_equal(snapped, by_distance)
        assert own > 0 and kept > 0
    elif reach_tolerance > 1e6:
        assert kept == only_own and 0 < own <= only_own   # (own counts keys, kept spots)
    else:
        assert 0 < own < P.snap_to(later.q.copy(), base.q, *where, 0.05) and kept > 0
    with pytest.raises(InputError):
        P.snap_to(later.q.copy(), base.q, *where, 0.05, reach, -1.0)


@pytest.mark.parametrize("reach_tolerance", [0.0, 0.02, 1e9])
def test_coarsening_rounds_a_pair_by_its_own_reach(toy_solver, toy_policy, reach_tolerance):
    """coarsen after snap_to: a pair with bytes of its own is rounded to multiples of one
    of STEPS (in 1/QUANT) moving it, in total variation times its own reach, by at most
    ``reach_tolerance``; it plays no move it did not play, stays stored, and a pair that
    is the base's is left alone. 0 rounds nothing; a huge tolerance leaves every own pair
    a pure strategy. The rounded policy still stores every pair its own play reaches."""
    base = toy_policy
    where = (base.keys, base.tree, base.templates)
    later = stored(solved(TOY, SHORT, iterations=40), 0.01)[0]
    reach = P.own_reach(toy_solver.config, base.keys, later.q)
    snapped = later.q.copy()
    P.snap_to(snapped, base.q, *where, 0.0, reach, 0.0)
    rounded = snapped.copy()
    n = P.coarsen(rounded, base.q, *where, reach, reach_tolerance)
    before = FullPolicy(base.config, snapped, keys=base.keys)
    after = FullPolicy(base.config, rounded, keys=base.keys)
    grid = np.append(P.STEPS, 1)
    changed = pure = own_pairs = 0
    for spot, _, _, d in every_spot(after):
        db, dbase = before.decision(spot), base.decision(spot)
        r = pair_sums(before, spot, reach)
        assert (d.stored == db.stored).all()
        for i in np.flatnonzero(db.stored):
            x, y = d.strategy[:, i], db.strategy[:, i]
            if dbase.stored[i] and np.array_equal(y, dbase.strategy[:, i]):
                np.testing.assert_array_equal(x, y)       # the base's: left alone
                continue
            own_pairs += 1
            steps = np.rint(np.nan_to_num(x) * P.QUANT).astype(int)
            assert any((steps % k == 0).all() for k in grid)
            assert (np.nan_to_num(x)[np.nan_to_num(y) == 0] == 0).all()
            tv = 0.5 * np.nansum(np.abs(x - y))
            assert r[i] * tv <= reach_tolerance + 1e-9
            changed += tv > 0
            pure += np.nanmax(x) == 1.0
    assert own_pairs > 0
    if reach_tolerance == 0:
        assert n == 0 and np.array_equal(rounded, snapped)
    else:
        assert n > 0 and changed > 0
    if reach_tolerance > 1e6:
        assert pure == own_pairs
    assert_reached_pairs_stored(toy_solver.config, after)
    with pytest.raises(InputError):
        P.coarsen(rounded, base.q, *where, reach, -1.0)


def test_rebasing_gives_the_new_base_where_the_old_one_was_played(toy_solver, toy_policy):
    """A points policy rounded by own reach (coarsen against no base: a huge tolerance
    leaves every stored pair pure, still storing every pair its own play reaches); then
    rebase(q, old, new): every pair of a score-aware-like policy snapped to the old points
    policy that plays the old one's bytes (stored or not) plays the new one's, every other
    pair keeps its own."""
    base = toy_policy
    where = (base.keys, base.tree, base.templates)
    new = base.q.copy()
    reach = P.own_reach(toy_solver.config, base.keys, base.q)
    assert P.coarsen(new, np.zeros_like(new), *where, reach, 0.0) == 0
    assert P.coarsen(new, np.zeros_like(new), *where, reach, 1e9) > 0
    rounded = FullPolicy(base.config, new, keys=base.keys)
    assert_reached_pairs_stored(toy_solver.config, rounded)
    snapped = stored(solved(TOY, SHORT, iterations=40), 0.01)[0].q.copy()
    P.snap_to(snapped, base.q, *where, 0.05)
    before = FullPolicy(base.config, snapped, keys=base.keys)
    rebased = snapped.copy()
    assert P.rebase(rebased, base.q, new, *where) > 0
    result = FullPolicy(base.config, rebased, keys=base.keys)
    counts = {"new": 0, "own": 0}
    for spot, _, _, d in every_spot(result):
        ds, db, dn = before.decision(spot), base.decision(spot), rounded.decision(spot)
        for i in range(d.strategy.shape[1]):
            assert not dn.stored[i] or np.nanmax(dn.strategy[:, i]) == 1.0
            played_old = ds.stored[i] == db.stored[i] and np.array_equal(
                ds.strategy[:, i], db.strategy[:, i], equal_nan=True)
            want = dn if played_old else ds
            counts["new" if played_old else "own"] += 1
            np.testing.assert_array_equal(d.strategy[:, i], want.strategy[:, i])
            assert d.stored[i] == want.stored[i]
    assert counts["new"] > 0 and counts["own"] > 0


# ---------------------------------------------------------------- the solver's sums, read directly
# A reader of FullSolver's strategy sums written independently of lab.policy.full: it
# numbers each card node's public nodes as the kernels do (``self`` is the solver).

def intra_nodes(self, c: int, entering) -> list:
    """The public nodes of card node ``c``'s turn for the entering betting states
    ``entering`` (in order), as the kernel numbers them: dicts with the template
    node, kind, history, slot offset, public node id and T index."""
    tm, t = self.templates, self.tree
    a = int(t.actor[c])
    na = int(t.n[c, a])
    E = int(t.n_edges[c])
    choice = E > na
    slot, node, tcount = int(self.layout.slot_base[c]), int(self.layout.node_base[c]), 0
    out = []
    for h, s in enumerate(entering):
        st, sz = int(tm.start[a, s]), int(tm.size[a, s])
        base = len(out)
        for g in range(sz):
            gid = st + g
            rec = {"gid": gid, "kind": int(tm.kind[gid]), "h": h, "slot": slot, "node": node,
                   "parent": base + int(tm.parent[gid]) if tm.parent[gid] >= 0 else -1,
                   "child_a": base + int(tm.child_a[gid]) if tm.child_a[gid] >= 0 else -1,
                   "child_b": base + int(tm.child_b[gid]) if tm.child_b[gid] >= 0 else -1,
                   "value": int(tm.value[gid]), "exit": int(tm.exit_state[gid]),
                   "answerer": int(tm.answerer[gid]), "t": -1}
            node += 1
            if tm.kind[gid] == T_NODE:
                rec["t"] = tcount
                tcount += 1
                rec["n_slots"] = (E + na) if tm.child_a[gid] >= 0 else (E if choice else 0)
            else:
                nb = int(t.n[c, tm.answerer[gid]])
                rec["n_ans"] = 3 if tm.child_b[gid] >= 0 else 2
                rec["n_slots"] = rec["n_ans"] * nb
            slot += rec["n_slots"]
            out.append(rec)
    return out

def _avg(self, slots: np.ndarray, node: int) -> np.ndarray:
    if self.config.storage == "float32":
        x = self.cum32[slots].astype(np.float64)
    else:
        x = self.cum16[slots].astype(np.float64)
    return x

def t_strategy(self, c: int, rec: dict) -> dict:
    """Average strategy of the player to play at T node ``rec`` of card node ``c``:
    ``{state: {action: p}}`` with actions ``("card", level)``, ``("cover", child)``,
    ``"raise"``; states are positions in the actor's list at ``c``."""
    t = self.tree
    a = int(t.actor[c])
    sl = t.pairs(c, a)
    na = sl.stop - sl.start
    E = int(t.n_edges[c])
    edge_action = edge_actions(self, c)
    out = {}
    can_raise = rec["child_a"] >= 0
    for i in range(na):
        es = int(t.pair_edge_start[sl.start + i])
        ec = int(t.pair_edge_count[sl.start + i])
        acts = [edge_action[e] for e in range(es, es + ec)]
        slots = list(range(rec["slot"] + es, rec["slot"] + es + ec))
        if can_raise:
            acts.append("raise")
            slots.append(rec["slot"] + E + i)
        if rec["n_slots"] == 0:
            probs = np.ones(len(acts)) / len(acts)
        else:
            x = _avg(self, np.array(slots), rec["node"])
            probs = x / x.sum() if x.sum() > 0 else np.ones(len(acts)) / len(acts)
        d: dict = {}
        for act, p in zip(acts, probs):
            d[act] = d.get(act, 0.0) + float(p)
        out[i] = d
    return out

def q_strategy(self, c: int, rec: dict) -> dict:
    """Average strategy of the answerer at Q node ``rec``: ``{state: {accept, run, raise}}``."""
    t = self.tree
    b = rec["answerer"]
    nb = int(t.n[c, b])
    names = ("accept", "run", "raise")[: rec["n_ans"]]
    out = {}
    for i in range(nb):
        slots = rec["slot"] + i * rec["n_ans"] + np.arange(rec["n_ans"])
        x = _avg(self, slots, rec["node"])
        probs = x / x.sum() if x.sum() > 0 else np.ones(len(names)) / len(names)
        out[i] = dict(zip(names, (float(p) for p in probs)))
    return out

def edge_actions(self, c: int) -> tuple:
    """The public card action of each card edge of ``c``: ``("card", level)`` or
    ``("cover", level covered)``, or ``("card", last level)`` at a LAST node."""
    t = self.tree
    a = int(t.actor[c])
    E = int(t.n_edges[c])
    acts = [None] * E
    if t.kind[c] == LAST:
        sl = t.pairs(c, a)
        return tuple(("card", int(t.pair_level[sl.start + i])) for i in range(E))
    held = self.cards.state_held
    parent_sl = t.pairs(c, a)
    for ch in t.children(c):
        sl = t.pairs(ch, a)
        act = int(t.action[ch])
        for p in range(sl.start, sl.stop):
            e = int(t.pair_edge[p])
            if act == COVER:
                before = list(held[t.pair_state[parent_sl.start + t.pair_parent[p]]])
                for lv in held[t.pair_state[p]]:
                    before.remove(lv)
                acts[e] = ("cover", int(before[0]))
            else:
                acts[e] = ("card", act)
    return tuple(acts)
