"""The dashboard server (lab/dashboards/server.py): the Host check, and kernels culled once
their pages close while the kernel of an open page stays."""

from __future__ import annotations

import http.client
import os
import time
from pathlib import Path

import psutil
import pytest

from lab.bench_dashboards import CHROMIUM_ARGS, READY, VoilaServer, chromium_path
from conftest import in_ci

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = "equity_by_vira"


@pytest.fixture(scope="module")
def server():
    env = dict(os.environ, LAB_CULL_IDLE_SECONDS="20", LAB_ALLOWED_HOSTS="dashboards.example")
    with VoilaServer(env=env) as s:
        yield s


def status_for_host(server, host: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request("GET", "/", headers={"Host": host})
    return connection.getresponse().status


def test_the_host_header_is_checked(server):
    """A page reached under a foreign name (DNS rebinding) is refused; loopback names
    and the names in LAB_ALLOWED_HOSTS are served."""
    assert status_for_host(server, "attacker.example") == 403
    assert status_for_host(server, f"attacker.example:{server.port}") == 403
    for host in (f"127.0.0.1:{server.port}", f"localhost:{server.port}",
                 "dashboards.example"):
        assert status_for_host(server, host) == 200, host


def kernels(server) -> list[psutil.Process]:
    """The kernel processes the server has started and not shut down."""
    return [p for p in psutil.Process(server.process.pid).children(recursive=True)
            if "ipykernel" in " ".join(p.cmdline())]


def test_closed_pages_lose_their_kernels_and_open_ones_keep_theirs(server):
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    if not Path(path).exists():
        message = f"chromium not found at {path}"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        context = browser.new_context()
        context.route("**/cdn.jsdelivr.net/**", lambda route: route.abort())  # no internet
        try:
            kept = context.new_page()
            kept.goto(server.url(PAGE), timeout=240_000, wait_until="commit")
            kept.wait_for_selector(READY, timeout=240_000)
            for _ in range(3):
                page = context.new_page()
                page.goto(server.url(PAGE), timeout=240_000, wait_until="commit")
                page.wait_for_selector(READY, timeout=240_000)
                page.close()
            assert len(kernels(server)) >= 2    # the closed pages' kernels are not gone yet
            deadline = time.monotonic() + 90
            while len(kernels(server)) > 1 and time.monotonic() < deadline:
                time.sleep(1)
            assert len(kernels(server)) == 1     # only the open page's kernel is left
            assert kept.locator(READY).count() >= 1
        finally:
            browser.close()
