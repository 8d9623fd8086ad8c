"""The dashboard server (lab/dashboards/server.py): the Host check and the landing page."""

from __future__ import annotations

import http.client
import os

import pytest

from lab.bench.dashboards import VoilaServer

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def server():
    env = dict(os.environ, LAB_ALLOWED_HOSTS="dashboards.example")
    with VoilaServer(env=env) as s:
        yield s


def get(server, path: str, host: str | None = None) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request("GET", path, headers={"Host": host or f"127.0.0.1:{server.port}"})
    return connection.getresponse()


def status_for_host(server, host: str) -> int:
    return get(server, "/voila/tree", host).status


def test_the_host_header_is_checked(server):
    """A page reached under a foreign name (DNS rebinding) is refused; loopback names
    and the names in LAB_ALLOWED_HOSTS are served."""
    assert status_for_host(server, "attacker.example") == 403
    assert status_for_host(server, f"attacker.example:{server.port}") == 403
    for host in (f"127.0.0.1:{server.port}", f"localhost:{server.port}",
                 "dashboards.example"):
        assert status_for_host(server, host) == 200, host



def test_the_root_opens_the_landing_page_under_the_host_check(server):
    response = get(server, "/")
    assert response.status == 302
    assert response.getheader("Location") == "/voila/render/index.ipynb"
    assert get(server, "/", "attacker.example").status == 403
    page = get(server, "/voila/render/index.ipynb")
    body = page.read().decode()
    assert page.status == 200 and "The truco lab" in body
    for name in ("hand_explorer", "strategy_explorer", "equity_by_vira", "match_equity",
                 "house_rules", "tour"):
        assert f'href="{name}.ipynb"' in body  # a link to every dashboard
