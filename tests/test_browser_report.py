"""The strategy report page in a real browser (the fixtures of tests/test_browser.py): a
vira picked redraws the chart and the table, the CSV link carries the stored table's
numbers, and the page fits at 1300 px and at 412 px wide."""

import base64
import re

import pytest

from lab import strategy_report as sr
from playwright.sync_api import expect

from lab.bench.dashboards import CHART, chart_src, dropdown, wait_new_chart
from test_browser import (browser_context_args, browser_type_launch_args,  # noqa: F401
                          dashboard, no_horizontal_overflow, screenshot, voila)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_strategy_report_redraws_and_fits_at_1300_and_412_px(dashboard):
    page = dashboard("strategy_report")
    assert page.locator(CHART).count() == 1
    assert no_horizontal_overflow(page)
    before = chart_src(page)
    dropdown(page, "vira").select_option("vira 4")
    wait_new_chart(page, before)
    page.get_by_text("the pé runs from the other side's truco, round 2").first.wait_for()
    # the link is its own widget: wait for it to change too, not only the chart
    expect(page.locator("a.lab-report-csv")).to_have_attribute(
        "download", "strategy_report_4.csv")
    href = page.locator("a.lab-report-csv").get_attribute("href")
    text = base64.b64decode(re.search(r"base64,(.*)$", href).group(1)).decode()
    shown = sr.read_csv(text)
    assert set(shown["vira"]) == {"4"}
    assert shown["value"].tolist() == pytest.approx(sr.stored_report("4")["value"].tolist(),
                                                    nan_ok=True)   # the stored table's rows
    screenshot(page, "strategy_report")
    page.set_viewport_size({"width": 412, "height": 900})
    page.wait_for_timeout(300)
    assert no_horizontal_overflow(page)
    screenshot(page, "strategy_report_412")
