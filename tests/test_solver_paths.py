"""Every public path of the solver's tree replays legally through lab.rules, same winner.

The tree has 29,208 terminals: 16,158 where round 2 decides the hand and 13,050
round-3 showdowns. Expanding each showdown into the last cards shown gives 1,846,666
paths for vira 4 (the count is checked). Replaying all of them through the plain-Python
engine would take minutes, so every round-2 terminal the deck allows is replayed, and every
showdown with two random pairs of last cards: 42,256 paths per vira, for viras 4 and J.
"""

import pytest

from lab.cards import DECK, RANKS, Card, level
from lab.rules import COVER as R_COVER, PLAY, Action, new_hand
from lab.solver.games.cardplay import COVER, public_paths

SUITS_ORDER = range(4)


def concrete_hands(vira: Card, plays):
    """Cards for the mão and the pé that play ``plays`` (levels, covers) for this vira.

    Open cards take a free card of their level; covered and unplayed cards take any
    other free card (their identity is never consulted)."""
    free = [c for c in DECK if c != vira]
    by_level = {}
    for c in free:
        by_level.setdefault(level(c, vira), []).append(c)
    hands = ([], [])
    actions = []
    for seat, a in plays:
        if a == COVER:
            actions.append((seat, None))
            continue
        card = by_level[a].pop()
        free.remove(card)
        hands[seat].append(card)
        actions.append((seat, card))
    out = []
    for seat, card in actions:
        if card is None:
            card = free.pop()
            hands[seat].append(card)
            out.append((seat, Action(R_COVER, card)))
        else:
            out.append((seat, Action(PLAY, card)))
    for seat in (0, 1):
        while len(hands[seat]) < 3:
            hands[seat].append(free.pop())
    return hands, out


def replay(vira: Card, plays):
    hands, actions = concrete_hands(vira, plays)
    state = new_hand(vira, hands[0], hands[1])
    for k, (seat, action) in enumerate(actions):
        assert not state.over, f"the hand ended before move {k} of {plays}"
        assert state.to_act == seat, f"move {k} of {plays}: seat {state.to_act} is to act"
        state = state.apply(action)
    assert state.over, f"the hand goes on after {plays}"
    return state.winner


@pytest.mark.parametrize("vira_rank", ["4", "J"])
def test_public_paths_replay_with_the_same_winner(vira_rank):
    vira = Card(RANKS.index(vira_rank), 3)
    n = 0
    winners = [0, 0]
    for plays, winner in public_paths(vira_rank, per_showdown=2, seed=7):
        assert replay(vira, plays) == winner, plays
        winners[winner] += 1
        n += 1
    assert n == 42_256 and min(winners) > 10_000


def test_path_count_of_vira_4():
    """Round-2 terminals are counted in full; round-3 nodes by their combinations."""
    assert sum(1 for _ in public_paths("4")) == 1_846_666
