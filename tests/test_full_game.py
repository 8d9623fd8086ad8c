"""The reference form of the full hand game (lab.solver.fullgame.game): its terminals agree with
lab.rules, and the pruned moves (surrender, round-3 covers) leave the game value unchanged."""

from __future__ import annotations

import pytest

from lab.cards import DECK, level, parse_card
from lab.rules import RAISE, ACCEPT, RUN, SURRENDER, Action, new_hand
from lab.solver.games.cardplay_game import COVER
from lab.solver.cfr import CFRSolver
from lab.solver.fullgame.game import FullGame
from lab.solver.tree import build_tree

TOY = (2, 2, 2, 1)
"""A 7-card deck: levels 0..3 with 2, 2, 2, 1 copies (one card stays out of the deal)."""

VIRA = parse_card("4c")


def concrete_cards(cap):
    """Real cards standing for the toy levels: level ``l`` is a plain rank whose level for
    the vira 4c is ``l`` (so the order of strength is the toy's)."""
    cards = {}
    for lv, copies in enumerate(cap):
        pool = [c for c in DECK if c != VIRA and level(c, VIRA) == lv + 1]
        assert len(pool) >= copies
        cards[lv] = pool[:copies]
    return cards


def ancestry(tree, pair):
    """Private state of ``pair``'s seat at each node on the path from the root."""
    states = {}
    while pair >= 0:
        states[int(tree.pair_node[pair])] = int(tree.pair_private[pair])
        pair = int(tree.pair_parent[pair])
    return states


@pytest.fixture(scope="module")
def game136():
    game = FullGame(toy_cap=TOY, ladder=(1, 3, 6))
    return game, build_tree(game)


def test_every_terminal_agrees_with_lab_rules(game136):
    """Replay each terminal's public history through lab.rules with concrete cards of a
    deal that reaches it: same winner and same points."""
    game, tree = game136
    w = game.deal_weights()
    pay = game.payoffs()
    held = game.cards.state_held
    levels = game.cards.class_levels
    pool = concrete_cards(TOY)
    checked = 0
    for t in tree.terminals:
        t = int(t)
        p0, p1 = tree.pairs_of(t, 0), tree.pairs_of(t, 1)
        deal = next(((a, b) for a in p0 for b in p1
                     if w[tree.pair_hand[a], tree.pair_hand[b]] > 0), None)
        if deal is None:
            continue
        hands, used = [], {lv: 0 for lv in pool}
        for pair in deal:
            cards = []
            for lv in levels[tree.pair_hand[pair]]:
                cards.append(pool[lv][used[lv]])
                used[lv] += 1
            hands.append(cards)
        paths = [ancestry(tree, pair) for pair in deal]
        state = new_hand(VIRA, hands[0], hands[1])
        node = 0
        for step in tree.history(t):
            seat = state.to_act
            child = tree.child_by_action(node, step)
            if isinstance(step, tuple):
                before = list(held[paths[seat][node]])
                after = list(held[paths[seat][child]])
                for lv in after:
                    before.remove(lv)
                lv = before[0]
                card = next(c for c in state.hands[seat] if level(c, VIRA) == lv + 1)
                kind = "cover" if step[1] == COVER else "play"
                action = Action(kind, card)
            else:
                action = Action({"raise": RAISE, "accept": ACCEPT, "run": RUN,
                                 "surrender": SURRENDER}[step])
            assert action in state.legal_actions(), (tree.history(t), action)
            state = state.apply(action)
            node = child
        assert state.over, tree.history(t)
        outcome = tree.node_outcomes[t, 0]
        points = pay[outcome]
        assert state.winner == (0 if points > 0 else 1)
        assert state.points == abs(points)
        checked += 1
    assert checked > 1000


def test_the_tree_offers_the_betting_moves_up_the_whole_ladder(game136):
    """Raise, accept and run are the only betting moves; with ladder 1-3-6 at most two raises
    happen in a hand, and some hands see both."""
    _, tree = game136
    names = {a for n in range(tree.n_nodes) for c in tree.children(n)
             for a in [tree.actions[tree.node_action[c]]] if not isinstance(a, tuple)}
    assert names == {"raise", "accept", "run"}
    raises = [sum(1 for a in tree.history(int(t)) if a == "raise") for t in tree.terminals]
    assert max(raises) == 2


def test_betting_template_of_an_opening_turn():
    """The betting tree of one card turn, full ladder, from value 1 (nobody raised yet).

    Counted by hand with T(v, last raiser) = 1 + Q(v + 1, me) when I may raise, and
    Q(p, raiser) = 1 + T(p, raiser) [accept] + Q(p + 1, other) [re-raise, if p < 12]:
    Q(12, .) = 2; T(9, me) = 1, Q(9, me) = 4; T(6, other) = 5, Q(6, other) = 10;
    Q(3, me) = 1 + T(3, me) + Q(6, other) = 12; T(1) = 13 nodes: 6 Q nodes (one per
    raise of the chains 3, 6, 9, 12 and 9, 12 again after my raise at 6) and 7 T nodes
    (the opening, and one per accepted raise)."""
    from lab.solver.fullgame.tree import T_NODE, build_templates, state_id

    tm = build_templates((1, 3, 6, 9, 12))
    s = state_id(0, -1)
    for actor in (0, 1):
        start, size = tm.start[actor, s], tm.size[actor, s]
        assert size == 13
        kinds = tm.kind[start:start + size]
        assert (kinds == T_NODE).sum() == 7 == tm.count_t[actor, s]
        assert tm.count_q[actor, s] == 6
        # the top of the ladder is reached twice: by re-raises, and by my raise at 6 re-raised
        assert (tm.value[start:start + size][kinds == T_NODE] == 4).sum() == 2


def _solve(game, target=5e-4):
    tree = build_tree(game)
    solver = CFRSolver(tree, game.deal_weights(), game.payoffs())
    solver.solve(target, 5000, check_every=25)
    b0, b1 = solver.best_response_values()
    # the game value lies between what the mão guarantees and what the pé concedes
    return -b1, b0, solver


@pytest.mark.parametrize("extra", [{"with_surrender": True}, {"cover_in_round3": True}])
def test_pruned_moves_do_not_change_the_value(extra):
    """Same game value (within the solves' certified intervals) with and without the move."""
    lo, hi, _ = _solve(FullGame(toy_cap=TOY, ladder=(1, 3)))
    lo_x, hi_x, solver = _solve(FullGame(toy_cap=TOY, ladder=(1, 3), **extra))
    assert hi - lo < 2e-3 and hi_x - lo_x < 2e-3
    assert max(lo, lo_x) <= min(hi, hi_x) + 1e-9, ((lo, hi), (lo_x, hi_x))
    # and the extra move really is in the bigger tree
    assert solver.tree.n_nodes > build_tree(FullGame(toy_cap=TOY, ladder=(1, 3))).n_nodes
