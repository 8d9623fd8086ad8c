"""The dashboard server (lab/dashboards/server.py): the Host check."""

from __future__ import annotations

import http.client
import os

import pytest

from lab.bench_dashboards import VoilaServer

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def server():
    env = dict(os.environ, LAB_ALLOWED_HOSTS="dashboards.example")
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

