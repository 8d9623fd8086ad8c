"""The dashboard server (lab/dashboards/server.py): the Host check, the landing page and
the kernel limit (lab/dashboards/capacity.py)."""

from __future__ import annotations

import http.client
import http.cookies
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest

from lab.bench.dashboards import VoilaServer
from lab.dashboards.capacity import default_max_kernels, kernels_that_fit

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


def post(server, path: str) -> http.client.HTTPResponse:
    """A POST as a page sends it: with the XSRF cookie the server hands out and its token."""
    cookies = http.cookies.SimpleCookie()
    for header in get(server, "/voila/tree").msg.get_all("Set-Cookie"):
        cookies.load(header)
    token = cookies["_xsrf"].value
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request("POST", path, headers={"Host": f"127.0.0.1:{server.port}",
                                              "Cookie": f"_xsrf={token}",
                                              "X-XSRFToken": token})
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
    for name in ("hand_explorer", "strategy_explorer", "strategy_report", "equity_by_vira",
                 "match_equity", "house_rules", "review", "tour"):
        assert f'href="{name}.ipynb"' in body  # a link to every dashboard


# The kernel limit. A one-cell dashboard keeps each kernel start short.

MARK = "small dashboard drawn"


@pytest.fixture(scope="module")
def small_server(tmp_path_factory):
    """The server on a folder holding one small dashboard, at most two kernels at once."""
    folder = tmp_path_factory.mktemp("dashboards")
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(f"print({MARK!r})")],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}})
    nbformat.write(notebook, folder / "small.ipynb")
    with VoilaServer(folder, env=dict(os.environ, LAB_MAX_KERNELS="2")) as s:
        yield s


def visit(server) -> tuple[int, str]:
    """Open the small dashboard: its status and page (the page read whole)."""
    response = get(server, "/voila/render/small.ipynb")
    return response.status, response.read().decode()


def kernel_of(page: str) -> str:
    return re.search(r'"kernelId": "([0-9a-f-]+)"', page).group(1)


def close_page(server, kernel_id: str) -> None:
    """What a page does when it is closed: ask for its kernel's shutdown."""
    assert post(server, f"/voila/api/shutdown/{kernel_id}").status == 204


def test_a_visit_past_the_kernel_limit_gets_the_server_full_page(small_server):
    """Two visits get their dashboards; the third gets a 503 page saying the server is
    full, the server stays up, and a visit after a page was closed is served again."""
    pages = [visit(small_server) for _ in range(2)]
    assert [status for status, _ in pages] == [200, 200]
    assert all(MARK in page for _, page in pages)

    response = get(small_server, "/voila/render/small.ipynb")
    page = response.read().decode()
    assert response.status == 503
    assert "The server is full: 2 dashboards are open" in page
    assert "try again in a few minutes" in page
    assert MARK not in page
    assert int(response.getheader("Retry-After")) > 0

    assert small_server.process.poll() is None  # the server is still up, and serves
    assert get(small_server, "/voila/tree").status == 200

    close_page(small_server, kernel_of(pages[0][1]))
    status, page = visit(small_server)
    assert status == 200 and MARK in page
    assert visit(small_server)[0] == 503  # full again

    for kernel_id in (kernel_of(pages[1][1]), kernel_of(page)):
        close_page(small_server, kernel_id)


def test_visits_at_the_same_moment_get_no_more_kernels_than_the_limit(small_server):
    """Five visits at once, none running before: two dashboards, three refusals (a kernel
    still starting counts)."""
    with ThreadPoolExecutor(5) as pool:
        results = list(pool.map(lambda _: visit(small_server), range(5)))
    assert sorted(status for status, _ in results) == [200, 200, 503, 503, 503]
    for status, page in results:
        if status == 200:
            close_page(small_server, kernel_of(page))
    assert visit(small_server)[0] == 200


def test_the_default_limit_is_the_kernels_that_fit_in_memory():
    """2 GiB a kernel, at least one; LAB_MAX_KERNELS overrides it."""
    gib = 1024**3
    assert kernels_that_fit(23 * gib) == 11
    assert kernels_that_fit(24 * gib - 1) == 11
    assert kernels_that_fit(gib) == 1
    assert kernels_that_fit(None) == 1
    assert default_max_kernels({"LAB_MAX_KERNELS": "3"}) == 3
    assert default_max_kernels({}) >= 1


@pytest.mark.parametrize("env, args, named", [
    ({"LAB_MAX_KERNELS": "0"}, [], "LAB_MAX_KERNELS"),
    ({"LAB_MAX_KERNELS": "many"}, [], "LAB_MAX_KERNELS"),
    ({}, ["--max_kernels=-1"], "--max_kernels"),
    ({}, ["--max_kernels", "\u0663"], "--max_kernels"),  # an Arabic-Indic three
])
def test_a_bad_kernel_limit_is_one_error_line(env, args, named):
    result = subprocess.run([sys.executable, "-m", "lab.dashboards.server", "notebooks/",
                             "--no-browser", *args], capture_output=True, text=True,
                            timeout=60, env={**os.environ, **env})
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {named} must be a whole number")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
