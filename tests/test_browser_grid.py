"""The strategy explorer's hand grid in a real browser (the fixtures of test_browser.py):
a hand found in the grid at a node shows the mix and values `lab advise` gives at the same
position, at 1300 px; at 412 px nothing runs off the page (the grid scrolls in its box)."""

import json
import subprocess
import sys

import pytest

from lab.bench.dashboards import dropdown
from test_browser import (browser_context_args, browser_type_launch_args,  # noqa: F401
                          dashboard, no_horizontal_overflow, require_policy, screenshot,
                          voila)   # the fixtures, imported to be used here

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SITUATION = "round 2: the mão answers a truco after winning round 1"


def lab_advise(*arguments) -> dict:
    """What `lab advise --json` prints."""
    done = subprocess.run([sys.executable, "-m", "lab", "advise", *arguments, "--json"],
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)


def test_a_hand_in_the_grid_shows_what_lab_advise_says(dashboard):
    from lab.advice import POINTS, node_advice, node_position
    from lab.cards import level, parse_card
    from lab.charts import percent
    from lab.dashboards import spots
    from lab.dashboards.hand_grid import value_text
    from lab.tables.policies import load_full_policy

    require_policy("4")
    preset = next(steps for name, steps in spots.PRESETS if name == SITUATION)
    actions = spots.preset_line(load_full_policy("4"), preset).actions
    row = node_advice("4", (0, 0), actions).hands.iloc[0]     # the strongest hand here
    position = node_position("4", (0, 0), actions, row["levels"], row["holds"])
    tokens = ["cover" if a.kind == "cover" and a.card is None else str(a)
              for _, a in position.history]
    advice = lab_advise("--vira", str(position.vira),
                        "--hand", ",".join(str(c) for c in position.hand),
                        "--seat", "mao", "--score", "0,0", *tokens)
    vira = parse_card(str(position.vira))
    often, value = {}, {}
    for token in advice["legal"]:
        key = token if token in ("raise", "accept", "run", "surrender") else \
            (f"cover:{level(parse_card(token[6:]), vira)}" if token.startswith("cover:")
             else f"card:{level(parse_card(token), vira)}")
        often[key] = often.get(key, 0.0) + advice["strategy"][token]
        value[key] = advice["ev"][token]
    mix_value = sum(advice["strategy"][t] * advice["ev"][t] for t in advice["legal"])
    assert advice["unit"] == POINTS

    page = dashboard("strategy_explorer")
    dropdown(page, "situation").select_option(SITUATION)
    page.wait_for_function(   # the node drawn, its grid in
        """() => [...document.querySelectorAll('.lab-spot')].some(
                     e => e.innerText.includes('the mão answers a truco'))
                 && document.querySelector('.lab-chip')
                 && !document.querySelector('.lab-computing')""", timeout=60_000)
    chip = page.locator(f".lab-chip[data-hand='{row['hand']}']")
    assert chip.inner_text().strip().endswith(value_text(mix_value, POINTS))
    picker = dropdown(page, "your hand")
    label = next(o for o in picker.locator("option").all_inner_texts()
                 if o.replace("\xa0", " ").startswith(row["hand"]))
    picker.select_option(label=label)
    page.wait_for_function(
        "hand => (document.querySelector('.lab-hand-detail') || {}).innerText"
        "?.startsWith(hand + ' ')", arg=row["hand"], timeout=30_000)
    assert page.locator(f".lab-picked[data-hand='{row['hand']}']").count() == 1
    detail = page.locator(".lab-hand-detail")
    moves = detail.locator("tr.lab-move")
    shown = {}
    for k in range(moves.count()):
        cells = moves.nth(k).locator("td").all_inner_texts()
        shown[moves.nth(k).get_attribute("data-move")] = (cells[1], cells[2])
    assert shown == {key: (percent(often[key]), value_text(value[key], POINTS, precise=True))
                     for key in often}
    assert value_text(mix_value, POINTS, precise=True) in detail.inner_text()
    assert "points per hand" in detail.inner_text()
    assert no_horizontal_overflow(page)
    screenshot(page, "strategy_explorer_grid")

    page.set_viewport_size({"width": 412, "height": 900})
    page.wait_for_timeout(500)
    assert no_horizontal_overflow(page)
    box = page.locator(".lab-grid-box").first.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 412
    for label in ("vira", "mão's points", "pé's points", "situation", "your hand",
                  "compare with"):
        field = dropdown(page, label).first.bounding_box()   # "vira": the first named so
        assert field is not None and field["x"] + field["width"] <= 412, label
    screenshot(page, "strategy_explorer_grid_phone")
