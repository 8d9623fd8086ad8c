"""``lab bench dashboards``: how fast the Voila dashboards open and redraw in a browser.

Starts Voila on a free port of 127.0.0.1 (as ``scripts/serve.sh`` does: sources stripped,
tracebacks off), opens each dashboard in Debian's chromium through Playwright and prints

* the first render: seconds from asking for the page to the first chart (or the
  missing-table message) on screen, kernel start included (target <= 10 s);
* fully drawn: seconds until background work (a policy loading, the hand explorer's
  exact move values) has filled the page in too; the first run of each dashboard meets
  a server just started (cold), later runs a warm one;
* the redraw: seconds from changing a control to the new chart on screen, for the views
  backed by a table that is built (target <= 1 s), and to the page fully drawn again. A
  view seen for the first time is rendered by matplotlib; a view seen before comes from
  the dashboard's cache.

``--visits N`` measures what the server holds instead: it opens a dashboard N times, each
page closed as a reader closes a tab (nothing asks for its kernel's shutdown), with kernels
of closed pages culled after 5 s, and prints the kernels left and the memory of the server
and its kernels after the first visit and after the last (target: no kernel left, memory
within 10 % of the first figure).

The same helpers start the server and the browser for ``tests/test_browser.py``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from ..errors import InputError
from ..options import integer

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
"""The dashboards' folder (the repository's ``notebooks/``)."""

DASHBOARDS = ("equity_by_vira", "exploit", "hand_explorer", "house_rules", "match_equity",
              "review", "strategy_explorer", "strategy_report")

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
"""Chromium flags that keep it quiet and working as root (see TESTING.md)."""

FIRST_RENDER_TARGET = 10.0
"""Seconds from asking for a dashboard to its first chart."""
REDRAW_TARGET = 1.0
"""Seconds from a control's change to the new chart."""

CHART = "img.widget-image"
"""CSS selector of a dashboard's charts."""
READY = f"{CHART}, .lab-missing"
"""CSS selector of what a rendered dashboard shows first: a chart or a missing-table note."""
PENDING = ".lab-loading, .lab-computing"
"""CSS selector of what a dashboard shows while background work fills it in (a policy
loading, exact values being worked out): a page showing none is fully drawn."""


def chromium_path() -> str:
    """Debian's chromium, or the browser named by the ``CHROMIUM`` variable."""
    name = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    return shutil.which(name) or name


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class VoilaServer:
    """Voila serving ``notebooks`` on 127.0.0.1, as a context manager.

    ``url(name)`` is a dashboard's address. Readiness is probed on
    ``/voila/static/voila.js`` (a notebook page would start a kernel).
    """

    def __init__(self, notebooks: Path = NOTEBOOKS, port: int | None = None,
                 env: dict | None = None, timeout: float = 60.0):
        self.notebooks, self.port = Path(notebooks), port or free_port()
        self.env, self.timeout = env, timeout
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.log = None

    def url(self, name: str) -> str:
        return f"{self.base}/voila/render/{name}.ipynb"

    def __enter__(self) -> "VoilaServer":
        self.log = tempfile.TemporaryFile()
        command = [sys.executable, "-m", "lab.dashboards.server", str(self.notebooks),
                   "--no-browser",
                   f"--port={self.port}", "--Voila.ip=127.0.0.1", "--strip_sources=True",
                   "--show_tracebacks=False"]
        env = dict(os.environ if self.env is None else self.env)
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT,
                                        env=env, cwd=self.notebooks.parent)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"voila exited with status {self.process.returncode}:\n"
                                   + self.log_tail())
            try:
                with urllib.request.urlopen(f"{self.base}/voila/static/voila.js", timeout=2):
                    return self
            except OSError:
                time.sleep(0.2)
        self.__exit__(None, None, None)
        raise RuntimeError(f"voila was not ready after {self.timeout:.0f} s")

    def log_tail(self, chars: int = 3000) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-chars:]

    def __exit__(self, *exc) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.log is not None:
            self.log.close()


def chart_src(page, index: int = 0) -> str:
    """The ``src`` of a dashboard's chart (a new blob URL after every redraw)."""
    return page.locator(CHART).nth(index).get_attribute("src") or ""


def wait_new_chart(page, old_src: str, index: int = 0, timeout_ms: float = 30_000) -> None:
    """Wait until chart ``index`` shows something else than ``old_src``, loaded."""
    page.wait_for_function(
        """([sel, i, old]) => { const img = document.querySelectorAll(sel)[i];
                                return img && img.src !== old && img.complete; }""",
        arg=[CHART, index, old_src], timeout=timeout_ms, polling=20)


def wait_fully_drawn(page, timeout_ms: float = 120_000) -> None:
    """Wait until the page shows a chart and nothing :data:`PENDING` (for a dashboard
    that plays a hand, its play section drawn too)."""
    page.wait_for_function(
        """([chart, pending]) => document.querySelector(chart)
                 && !document.querySelector(pending)
                 && (!document.querySelector('.lab-play')
                     || document.querySelector('.lab-play button'))""",
        arg=[CHART, PENDING], timeout=timeout_ms, polling=20)


def dropdown(page, description: str):
    """The ``<select>`` of the ipywidgets Dropdown whose description is ``description``."""
    return page.locator(".widget-dropdown", has_text=description).locator("select")


def toggle(page, text: str):
    """The ToggleButtons button labelled ``text``."""
    return page.locator(".widget-toggle-buttons button", has_text=text)


def button(page, text: str):
    """The ipywidgets Button whose text is exactly ``text`` (its icon aside)."""
    import re

    exact = re.compile(rf"^\s*{re.escape(text)}\s*$")
    return page.locator("button.widget-button").filter(has_text=exact)


def shutdown_kernel(page) -> int:
    """Shut down the page's kernel, as the page asks Voila to on ``beforeunload``; returns
    the HTTP status (204). The page's own request is refused here (Voila's pages set no
    ``_xsrf`` cookie for it to echo), so a kernel would stay alive, and busy, after its
    page is gone: this sets a cookie and echoes it (the double-submit check passes)."""
    return page.evaluate("""async () => {
        const config = JSON.parse(document.getElementById('jupyter-config-data').textContent);
        const xsrf = () => (document.cookie.split('; ')
                            .find(c => c.startsWith('_xsrf=')) || '').slice(6);
        if (!xsrf()) { document.cookie = '_xsrf=lab; path=/'; }
        const form = new FormData();
        form.append('_xsrf', xsrf());
        const url = config.baseUrl + 'voila/api/shutdown/' + config.kernelId;
        return (await fetch(url, {method: 'POST', body: form})).status; }""")


def wait_new_text(page, selector: str, old: str, timeout_ms: float = 60_000) -> None:
    """Wait until the element ``selector`` shows something else than ``old``."""
    page.wait_for_function(
        """([sel, old]) => { const el = document.querySelector(sel);
                             return el && el.innerText !== old; }""",
        arg=[selector, old], timeout=timeout_ms, polling=50)


def choose(description: str, option: str):
    """A change: pick ``option`` in the Dropdown described ``description``."""
    return lambda page: dropdown(page, description).select_option(option)


CHANGES = {
    "equity_by_vira": [
        ("group by: manilhas held", choose("group by", "manilhas held")),
        ("seat: pé", lambda p: toggle(p, "pé").click()),
        ("show: double dummy − equilibrium", choose("show", "double dummy − equilibrium")),
        ("group by: best two cards", choose("group by", "best two cards")),
        ("group by: best card (seen before)", choose("group by", "best card")),
    ],
    "hand_explorer": [
        ("card 2: A♠", choose("card 2", "A♠")),
        ("vira: 7♦", choose("vira", "7♦")),
        ("seat: pé", lambda p: toggle(p, "pé").click()),
    ],
    "house_rules": [
        ("value: double dummy", lambda p: toggle(p, "double dummy").click()),
        ("rules: fpt", lambda p: toggle(p, "fpt").click()),
        ("value: card play", lambda p: toggle(p, "card play").click()),
        ("rules: buteco", lambda p: toggle(p, "buteco").click()),
    ],
    "match_equity": [
        ("mão's points: 9", choose("mão's points", "9")),
        ("view: points play's leak", lambda p: toggle(p, "points play's leak").click()),
    ],
    "review": [
        ("player: aggressive", choose("player", "aggressive")),
    ],
    "strategy_explorer": [
        ("situation: the pé answers a truco",
         choose("situation", "the pé answers the mão's opening truco")),
        ("situation: round 2, the mão leads",
         choose("situation", "round 2: the mão leads after winning round 1")),
        ("mão's points: 10 (the points play, its leak)", choose("mão's points", "10")),
        ("pé's points: 9 (the score-aware strategy at 10-9)", choose("pé's points", "9")),
    ],
    "strategy_report": [
        ("vira: 4", choose("vira", "vira 4")),
    ],
    "exploit": [
        ("vira: 4", choose("vira", "vira 4")),
    ],
}
"""Per dashboard: (what changes, how) for the redraw timings."""


def launch(playwright):
    """Debian's chromium through Playwright (never a downloaded browser)."""
    path = chromium_path()
    if not Path(path).exists():
        raise InputError(f"{path}: chromium not found (install Debian's chromium or set "
                         f"CHROMIUM)")
    return playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)


def new_page(browser, width: int = 1300, height: int = 1000):
    """A fresh page that never asks the CDN (no internet here)."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.route("**/cdn.jsdelivr.net/**", lambda route: route.abort())
    return page


def measure(server: VoilaServer, browser, name: str, runs: int = 1) -> dict:
    """First-render and redraw seconds of one dashboard."""
    result = {"first": [], "drawn": [], "redraws": [], "missing": False}
    for _ in range(runs):
        page = new_page(browser)
        start = time.perf_counter()
        page.goto(server.url(name), timeout=90_000)
        page.wait_for_selector(READY, timeout=90_000)
        result["first"].append(time.perf_counter() - start)
        if page.locator(CHART).count() == 0:
            result["missing"] = True
            shutdown_kernel(page)
            page.close()
            continue
        wait_fully_drawn(page)
        result["drawn"].append(time.perf_counter() - start)
        for label, change in CHANGES.get(name, []):
            old = chart_src(page)
            start = time.perf_counter()
            change(page)
            wait_new_chart(page, old)
            chart = time.perf_counter() - start
            wait_fully_drawn(page)
            result["redraws"].append((label, chart, time.perf_counter() - start))
        shutdown_kernel(page)
        page.close()
    return result


CULL_SECONDS = 5
"""Idle seconds before the kernel of a closed page is culled, in the ``--visits`` run."""


def server_footprint(server: VoilaServer) -> tuple[int, float]:
    """(kernels alive, MB of resident memory of the server and all its processes)."""
    import psutil

    root = psutil.Process(server.process.pid)
    processes = [root, *root.children(recursive=True)]
    kernels, rss = 0, 0
    for process in processes:
        try:
            rss += process.memory_info().rss
            kernels += any("ipykernel" in part for part in process.cmdline())
        except psutil.NoSuchProcess:
            continue
    return kernels, rss / 2**20


def settled_footprint(server: VoilaServer, timeout: float = 60.0) -> tuple[int, float]:
    """The footprint once no kernel is left (or ``timeout`` seconds have passed)."""
    deadline = time.monotonic() + timeout
    kernels, mb = server_footprint(server)
    while kernels and time.monotonic() < deadline:
        time.sleep(1.0)
        kernels, mb = server_footprint(server)
    return kernels, mb


def visits(name: str, count: int) -> int:
    """Open ``name`` ``count`` times, each page closed without a shutdown; print what the
    server holds after the first visit and after the last."""
    from playwright.sync_api import sync_playwright

    env = dict(os.environ, LAB_CULL_IDLE_SECONDS=str(CULL_SECONDS))
    with VoilaServer(env=env) as server, sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            print(f"voila on {server.base}; {count} visits of {name}; kernels of closed pages "
                  f"culled after {CULL_SECONDS} s idle")
            first = None
            for visit in range(1, count + 1):
                page = new_page(browser)
                page.goto(server.url(name), timeout=90_000)
                page.wait_for_selector(READY, timeout=90_000)
                page.close()
                if visit == 1:
                    first = settled_footprint(server)
                    print(f"after visit 1: {first[0]} kernels, {first[1]:.0f} MB")
                elif visit % 10 == 0 and visit < count:
                    kernels, mb = settled_footprint(server)
                    print(f"after visit {visit}: {kernels} kernels, {mb:.0f} MB")
            kernels, mb = settled_footprint(server)
            growth = mb / first[1] - 1
            ok = kernels == 0 and growth <= 0.10
            print(f"after visit {count}: {kernels} kernels, {mb:.0f} MB "
                  f"({100 * growth:+.1f} % against visit 1; "
                  f"{'ok' if ok else 'over target'}: no kernel left, within 10 %)")
        finally:
            browser.close()
    return 0


def main(argv=None) -> int:
    from ..options import Parser

    parser = Parser(prog="lab bench dashboards",
                    description="How fast the Voila dashboards open and redraw in chromium.")
    parser.add_argument("--runs", type=integer, default=1,
                        help="times each dashboard is opened (default 1)")
    parser.add_argument("--only", action="append", choices=DASHBOARDS, default=None,
                        help="measure only this dashboard (repeatable)")
    parser.add_argument("--visits", type=integer, default=None, metavar="N",
                        help="instead: open the dashboard (the first --only, default "
                             "hand_explorer) N times and print the kernels and memory left")
    args = parser.parse_args(argv or [])
    if args.runs < 1:
        raise InputError(f"--runs {args.runs}: must be at least 1")
    if args.visits is not None:
        if args.visits < 2:
            raise InputError(f"--visits {args.visits}: give at least 2 visits to compare")
        return visits((args.only or ["hand_explorer"])[0], args.visits)
    from playwright.sync_api import sync_playwright

    names = args.only or list(DASHBOARDS)
    with VoilaServer() as server, sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            print(f"voila on {server.base}; chromium {browser.version}; "
                  f"targets: first render <= {FIRST_RENDER_TARGET:g} s, "
                  f"redraw <= {REDRAW_TARGET:g} s")
            worst_first, worst_redraw = 0.0, 0.0
            for name in names:
                result = measure(server, browser, name, args.runs)
                firsts = ", ".join(f"{t:.2f}" for t in result["first"])
                drawn = ", ".join(f"{t:.2f}" for t in result["drawn"])
                note = "  (table missing: message shown)" if result["missing"] else ""
                print(f"{name:18s} first render {firsts} s, fully drawn {drawn} s "
                      f"(the first run on a cold server){note}")
                worst_first = max([worst_first, *result["first"]])
                for label, seconds, whole in result["redraws"]:
                    print(f"{'':18s}   redraw {seconds:5.2f} s, fully drawn {whole:5.2f} s  "
                          f"{label}")
                    worst_redraw = max(worst_redraw, seconds)
            print(f"worst first render {worst_first:.2f} s "
                  f"({'ok' if worst_first <= FIRST_RENDER_TARGET else 'over target'}); "
                  f"worst redraw {worst_redraw:.2f} s "
                  f"({'ok' if worst_redraw <= REDRAW_TARGET else 'over target'})")
        finally:
            browser.close()
    return 0
