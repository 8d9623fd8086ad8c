"""The hand explorer in a real browser at a mão de onze: the page names the model once, the
hand plays to the end move by move, and nothing runs off the page at 1300 px or at 412 px
(the end of the hand and its first decision's table).
Fixtures (Voila on a free port, Debian's chromium) are those of ``test_browser``."""

import pytest

from lab.bench.dashboards import button, dropdown, wait_new_text
from conftest import require_table
from test_browser import (FIRST_RENDER_MS, STRATEGY, browser_context_args,  # noqa: F401
                          browser_type_launch_args, dashboard, no_horizontal_overflow,
                          require_policy, screenshot, voila)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLAY = ".lab-play"
RESULT = ".lab-play .lab-play-result"


def test_hand_explorer_plays_a_mao_de_onze_to_the_end(dashboard):
    """At 11-4 the mão (the user, holding zap 3 K) decides, then both play the cards, each
    step a click on "let the policy choose", until the hand's result shows."""
    require_table("mao_de_onze")
    require_table("match_equity")
    require_policy("4")
    page = dashboard("hand_explorer")
    page.wait_for_selector(STRATEGY, timeout=FIRST_RENDER_MS)     # the points play's first step
    before = page.locator(STRATEGY).inner_text()
    dropdown(page, "mão's points").select_option("11")
    dropdown(page, "pé's points").select_option("4")
    page.get_by_text("the mão de onze model", exact=False).first.wait_for(timeout=30_000)
    assert page.get_by_text("answers with", exact=False).count() == 1   # said once
    wait_new_text(page, STRATEGY, before)
    table = page.locator(STRATEGY).inner_text()
    assert "play the hand (for 3)" in table and "run (give 1)" in table
    assert "chance to win the match" in table
    for _ in range(12):
        if page.locator(RESULT).count():
            break
        old = page.locator(PLAY).inner_text()
        button(page, "let the policy choose").click()
        wait_new_text(page, PLAY, old)
    result = page.locator(RESULT).inner_text()
    assert result.startswith("You ") and "mão–pé" in result
    assert page.locator(".lab-play-history li").count() >= 1
    assert page.locator(".widget-button", has_text="truco").count() == 0
    assert no_horizontal_overflow(page)
    screenshot(page, "hand_explorer_mao_de_onze")
    page.set_viewport_size({"width": 412, "height": 900})
    page.wait_for_timeout(500)
    assert no_horizontal_overflow(page)
    button(page, "restart").click()                  # the decision's table, on a phone
    page.wait_for_selector(STRATEGY, timeout=30_000)
    page.locator(STRATEGY).scroll_into_view_if_needed()
    assert no_horizontal_overflow(page)
    screenshot(page, "hand_explorer_mao_de_onze_phone")
