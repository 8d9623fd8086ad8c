"""The dashboards in a real browser: Voila on a free port of 127.0.0.1, Debian's chromium
driven by Playwright. A changed control must change the chart on screen; a screenshot
of each dashboard goes to tests/artifacts/.

Chromium comes from /usr/bin/chromium (or $CHROMIUM); no browser is ever downloaded.
Under CI (CI=true) a missing chromium fails these tests instead of skipping them.
"""

from pathlib import Path

import pytest

from lab.bench_dashboards import (CHART, CHROMIUM_ARGS, READY, VoilaServer, chart_src,
                                  chromium_path, dropdown, toggle, wait_new_chart)
from conftest import in_ci, require_table

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
FIRST_RENDER_MS = 60_000  # a cold kernel on a busy 2-core machine

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's launch options, with Debian's chromium and quiet flags."""
    path = chromium_path()
    if not Path(path).exists():
        message = f"chromium not found at {path} (apt-get install chromium, or set CHROMIUM)"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)
    return {**browser_type_launch_args, "executable_path": path, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1300, "height": 1000}}


@pytest.fixture(scope="module")
def voila():
    with VoilaServer() as server:
        yield server


@pytest.fixture
def dashboard(page, voila):
    """Open a dashboard and wait until it has rendered; returns the page."""
    page.route("**/cdn.jsdelivr.net/**", lambda route: route.abort())

    def open_(name: str):
        page.goto(voila.url(name))
        page.wait_for_selector(READY, timeout=FIRST_RENDER_MS)
        return page

    return open_


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_equity_by_vira_redraws_in_the_browser(dashboard):
    require_table("cardplay")
    page = dashboard("equity_by_vira")
    assert page.locator(CHART).count() == 1
    before = chart_src(page)
    dropdown(page, "group by").select_option("manilhas held")
    wait_new_chart(page, before)
    after = chart_src(page)
    toggle(page, "pé").click()
    wait_new_chart(page, after)
    assert chart_src(page) not in (before, after)
    assert page.get_by_text("exploitability", exact=False).first.is_visible()
    screenshot(page, "equity_by_vira")


def test_hand_explorer_redraws_and_explains_an_impossible_pick(dashboard):
    require_table("cardplay")
    page = dashboard("hand_explorer")
    assert page.get_by_text("zap 3 K", exact=False).first.is_visible()
    before = chart_src(page)
    dropdown(page, "card 2").select_option("A♠")
    wait_new_chart(page, before)
    assert page.get_by_text("zap A K", exact=False).first.is_visible()
    dropdown(page, "card 3").select_option("4♣")           # the vira
    error = page.locator(".lab-pick-error")
    error.wait_for(timeout=10_000)
    assert "is the vira" in error.inner_text()
    dropdown(page, "card 3").select_option("K♦")
    error.wait_for(state="detached", timeout=10_000)
    screenshot(page, "hand_explorer")


def test_match_equity_dashboard_in_the_browser(dashboard):
    require_table("match_equity")
    require_table("score_leak", solved_only=True)
    page = dashboard("match_equity")
    before = chart_src(page)
    dropdown(page, "mão's points").select_option("9")
    wait_new_chart(page, before)
    after = chart_src(page)
    dropdown(page, "pé's points").select_option("9")
    wait_new_chart(page, after)
    screenshot(page, "match_equity")
    equity = chart_src(page)
    toggle(page, "points play's leak").click()                  # the 11 x 11 leak map
    wait_new_chart(page, equity)
    assert page.get_by_text("re-solve of vira 4", exact=False).first.is_visible()
    screenshot(page, "match_equity_leak")


def test_strategy_explorer_dashboard_in_the_browser(dashboard):
    require_table("full_strategy", solved_only=True)
    page = dashboard("strategy_explorer")
    before = chart_src(page)
    toggle(page, "pé").click()
    wait_new_chart(page, before)
    screenshot(page, "strategy_explorer")
