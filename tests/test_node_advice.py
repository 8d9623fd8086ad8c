"""Every hand at a node of the full game (lab.advice.node_advice) and the strategy
explorer's hand grid drawn from it: a hand's cell says what ``advice_for`` says for that
hand at the same position, a node compared with itself differs nowhere, and a score with
a score-aware strategy is shown in match-win probability."""

import re

import numpy as np
import pytest

from lab.advice import MATCH_WIN, POINTS, AdviceError, advice_for, build_position, node_advice
from lab.cards import DECK, level, parse_card
from lab.rules import COVER, PLAY, Action
from conftest import in_ci

VIRA = parse_card("4c")
MAO_WON_ROUND_1_TRUCO = (("card", 7), ("card", 1), ("card", 4), "raise")
"""Vira 4: the mão plays a 2, the pé a 6, the mão a J, the pé calls truco: the mão
answers (round 2, the mão won round 1)."""

pytestmark = pytest.mark.slow


def explorer():
    from lab.dashboards.strategy_explorer import StrategyExplorer
    from lab.tables import TableError
    from lab.tables.policies import load_full_policy

    try:
        load_full_policy("4")
    except TableError as exc:
        if in_ci():
            pytest.fail(f"stored policy needed: {exc}")
        pytest.skip(f"stored policy needed: {exc}")
    return StrategyExplorer()


def walk_to(explorer, actions):
    """Walk the explorer's own way to ``actions`` (its move buttons do the same)."""
    explorer.restart()
    for action in actions:
        explorer.walk(action)


def cards_of(levels, taken) -> list:
    """Cards of the strength ``levels`` under vira 4c, none of ``taken``."""
    out = []
    for lv in levels:
        card = next(c for c in DECK if c != VIRA and c not in taken and c not in out
                    and level(c, VIRA) == lv)
        out.append(card)
    return out


def position_of(levels, score):
    """The mão's position at MAO_WON_ROUND_1_TRUCO holding a hand of ``levels`` that
    played the 2 and the J (levels 7 and 4), written as a player writes it."""
    table = [parse_card("6h")]                          # the pé's open card (level 1)
    hand = cards_of(sorted(levels, reverse=True), table)
    two = next(c for c in hand if level(c, VIRA) == 7)
    jack = next(c for c in hand if level(c, VIRA) == 4)
    actions = [Action(PLAY, two), Action(PLAY, table[0]), Action(PLAY, jack), Action("raise")]
    return build_position(VIRA, hand, 0, score, actions)


def by_level(advice):
    """advice_for's strategy and values per move of the policy (a level's cards summed)."""
    strategy, values = {}, {}
    for action, p, v in zip(advice.legal, advice.strategy, advice.ev):
        if action.kind in (PLAY, COVER):
            move = ("card" if action.kind == PLAY else "cover", level(action.card, VIRA))
        else:
            move = action.kind
        strategy[move] = strategy.get(move, 0.0) + p
        values[move] = v
    return strategy, values


def chip_text(grid_html: str, hand: str) -> str:
    found = re.search(rf"data-hand='{re.escape(hand)}'[^>]*><span>([^<]*)</span>", grid_html)
    assert found, hand
    return found.group(1)


def test_a_hands_cell_in_the_grid_says_what_advice_for_says():
    """On the path and off it (best response), to 1e-9; the chip shows the hand's value
    and the detail each move's."""
    from lab.dashboards.hand_grid import value_text

    e = explorer()
    walk_to(e, MAO_WON_ROUND_1_TRUCO)
    node = e.node
    assert node.actions == MAO_WON_ROUND_1_TRUCO and node.seat == 0 and node.unit == POINTS
    on = node.hands[node.hands["on_path"]]
    off = node.hands[~node.hands["on_path"]]
    assert len(on) and len(off)
    for row in (on.iloc[0], off.iloc[0]):
        advice = advice_for(position_of(row["levels"], (0, 0)))
        strategy, values = by_level(advice)
        assert advice.on_path == row["on_path"]
        assert set(strategy) == set(row["strategy"])
        for move in strategy:
            assert row["strategy"][move] == pytest.approx(strategy[move], abs=1e-9)
            assert row["values"][move] == pytest.approx(values[move], abs=1e-9)
        mix_value = float(np.dot(advice.strategy, advice.ev))
        assert row["value"] == pytest.approx(mix_value, abs=1e-9)
        assert chip_text(e.grid.value, row["hand"]).endswith(value_text(mix_value, POINTS))
        e.hand.value = (row["levels"], row["holds"])
        shown = e.detail.value
        for move, v in values.items():
            assert value_text(v, POINTS, precise=True) in shown
        if not row["on_path"]:
            assert "Off the solved path" in shown and "lab-off" in e.grid.value


def test_node_likelihoods_are_the_spot_shares():
    """How likely each hand is here (node_advice) agrees with the strategy chart's shares
    (spots.class_strategy, worked out on its own from the line)."""
    from lab.dashboards import spots

    e = explorer()
    walk_to(e, (("card", 8),))
    frame = spots.class_strategy(e.policy, e.line)
    node = node_advice("4", (0, 0), (("card", 8),))
    share = node.hands.groupby("class")["likelihood"].sum()
    for cls, expected in zip(frame["class"], frame["share"]):
        assert share[cls] == pytest.approx(expected, abs=1e-12)
    assert node.opponent["likelihood"].sum() == pytest.approx(1.0)
    assert (node.opponent["holds"].map(len) == 2).all()     # the mão played a card


def test_a_node_compared_with_itself_shows_no_difference():
    from lab.dashboards.hand_grid import compare_frame, compare_html

    e = explorer()
    walk_to(e, ("raise",))
    node = e.node
    frame = compare_frame(node, node, e.group_of)
    assert len(frame) == len(node.hands) > 0
    assert (frame["mix_difference"] == 0).all() and (frame["value_difference"] == 0).all()
    shown = compare_html(frame, "vira 4", "vira 4", node, node, e.names)
    assert f"for 0 of {len(frame)} hands" in shown and "rgba(" not in shown


def test_another_vira_compares_hand_by_hand():
    e = explorer()
    if "7" not in e.viras:
        pytest.skip("needs the stored policy of vira 7")
    walk_to(e, ())
    e.compare.value = "7"
    assert "vira 7 against vira 4" in e.compared.value
    assert "rgba(" in e.compared.value                      # the viras play differently
    assert "Only the default rules have a solved full game" in e.compared.value


def test_a_score_aware_score_is_shown_in_match_win_probability():
    from lab.dashboards.hand_grid import value_text
    from lab.tables.score_policies import stored_scores

    e = explorer()
    if (10, 9) not in stored_scores("4"):
        pytest.skip("needs the score-aware policy of vira 4 at 10-9")
    e.mao_points.value, e.pe_points.value = 10, 9
    walk_to(e, MAO_WON_ROUND_1_TRUCO)
    assert e.game.score_aware and e.node.unit == MATCH_WIN
    assert "the score-aware strategy" in e.stage.children[0].value
    assert "match-win probability" in e.stage.children[0].value
    row = e.node.hands[e.node.hands["on_path"]].iloc[0]
    advice = advice_for(position_of(row["levels"], (10, 9)))
    assert advice.unit == MATCH_WIN and advice.model == e.node.model
    value = float(np.dot(advice.strategy, advice.ev))
    assert row["value"] == pytest.approx(value, abs=1e-9)
    assert chip_text(e.grid.value, row["hand"]).endswith(value_text(value, MATCH_WIN))
    e.compare.value = "points"                               # against the points play
    assert "points play against score-aware, vira 4" in e.compared.value
    assert "different units" in e.compared.value
    e.pe_points.value = 3                                    # no score-aware policy at 10-3
    assert not e.game.score_aware and e.node.unit == POINTS
    assert "the points play" in e.stage.children[0].value and "leak" in e.stage.children[0].value
    assert e.node.actions == MAO_WON_ROUND_1_TRUCO           # the same moves, kept


def test_mao_de_onze_is_not_a_node_of_the_full_game():
    e = explorer()
    e.mao_points.value = 11
    assert "hand_explorer.ipynb" in e.stage.children[0].value
    assert "mão de onze" in e.stage.children[0].value
    assert e.hands_box.layout.display == "none"
    with pytest.raises(AdviceError, match="not a node of the full game"):
        node_advice("4", (11, 11), ())
    e.mao_points.value = 0
    assert e.node is not None and e.node.score == (0, 0)
