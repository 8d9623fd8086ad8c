"""``lab bench serve --visitors N``: N visitors on one dashboard server at once.

Starts one Voila server (as ``scripts/serve.sh`` does, with its kernel limit raised to N
so that no visitor is refused for the limit alone; a closed page's kernel is culled after
300 s idle as there, ``--cull-seconds``), one Debian chromium, and opens N pages at once
(Playwright's async API, the pages gathered with ``asyncio.gather``). Each visitor

* opens a dashboard: by default the visitors take the dashboards of
  :data:`lab.bench.dashboards.DASHBOARDS` in turn (visitor 1 the first, visitor 2 the
  second, ...), so that every dashboard's kernel is measured under load; ``--dashboard
  NAME`` (repeatable) sends them to the dashboards named, in turn;
* waits for its first chart (or missing-table note): the first-render seconds, from asking
  for the page, kernel start included;
* changes one control (the first change :data:`lab.bench.dashboards.CHANGES` lists for that
  dashboard, the one ``lab bench dashboards`` times first) and waits for the new chart:
  the redraw seconds.

A visitor is dropped when it gets the "server is full" page (503) or another HTTP error,
when Voila's error note for a failed cell shows, when the page or the browser fails, or
when no chart shows within ``--timeout`` seconds (180).

While the pages are open, the resident memory of the server and all its processes
(:func:`lab.bench.dashboards.server_footprint`) is sampled every 0.5 s; once every visitor
has drawn, each kernel's resident memory is read (its kernel found through the page's
kernel id). Then every page is closed as a reader closes a tab, the culling is awaited
(:func:`lab.bench.dashboards.settled_footprint`) and the kernels and memory left are
compared with the baseline: the server alone, measured before the first visitor.

Targets (the issue): peak <= 12 GiB with 20 visitors, none dropped, every kernel <= 400 MB
after drawing, no kernel left once the pages are closed. The memory left is printed against
the baseline too; the server's first visit alone adds about 15 MB for good (what it loads
to render a page), so it is not back to the baseline to the megabyte. Percentiles are
nearest-rank (p95 of 20 figures: the 19th). "kernel peak" is the most a kernel held in
the samples while its page was open.
"""

from __future__ import annotations

import asyncio
import math
import os
import statistics
import threading
import time

from ..errors import InputError
from ..options import Parser, bounded, integer
from .dashboards import (CHANGES, CHART, CHROMIUM_ARGS, DASHBOARDS, READY, VoilaServer,
                         chromium_path, server_footprint, settled_footprint)

CULL_SECONDS = 300
"""Idle seconds before the kernel of a closed page is culled, in this bench: the server's
own (``scripts/serve.sh``), not 5 s as in ``lab bench dashboards --visits``. The culler
cannot tell a closed page from one that has not connected yet, and with 20 pages opening
at once on the 2-core machine, chromium connected to some kernels more than 60 s after
Voila had run their notebooks: with 60 s, 4 of 20 kernels were culled in that gap and
their pages never showed a chart ("Kernel does not exist" in the server's log)."""
SAMPLE_SECONDS = 0.5
"""Seconds between two samples of the server's memory."""
PEAK_TARGET_MB = 12 * 1024
"""The server's peak with 20 visitors (12 GB)."""
KERNEL_TARGET_MB = 400
"""One kernel after drawing any dashboard."""
VOILA_ERROR = "There was an error when executing cell"
"""Voila's note in place of a failed cell's output (tracebacks off)."""


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile ``p`` (0-100) of ``values``; nan when there are none."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def anonymous_mb(pid: int) -> float:
    """MB of the process's resident anonymous memory (``RssAnon``: its own, not pages of
    files it maps, such as the policies and values mapped from the disk cache); 0 when
    unknown."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def server_anonymous_mb(server: VoilaServer) -> float:
    """MB of resident anonymous memory of the server and all its processes."""
    import psutil

    root = psutil.Process(server.process.pid)
    return sum(anonymous_mb(p.pid) for p in [root, *root.children(recursive=True)])


def kernel_memory(server: VoilaServer, anonymous: bool = False) -> dict[str, float]:
    """Kernel id -> MB resident (only the anonymous memory when ``anonymous``), for every
    kernel of the server (read from the connection file ``kernel-<id>.json`` on the
    kernel's command line)."""
    import psutil

    found = {}
    for process in psutil.Process(server.process.pid).children(recursive=True):
        try:
            cmdline = process.cmdline()
            if not any("ipykernel" in part for part in cmdline):
                continue
            name = next((os.path.basename(part) for part in cmdline
                         if os.path.basename(part).startswith("kernel-")), None)
            if name:
                found[name[len("kernel-"):].removesuffix(".json")] = (
                    anonymous_mb(process.pid) if anonymous
                    else process.memory_info().rss / 2**20)
        except psutil.NoSuchProcess:
            continue
    return found


class Sampler(threading.Thread):
    """Samples :func:`server_footprint` every SAMPLE_SECONDS until stopped: the peak MB,
    the kernels alive then, the most kernels seen and each kernel's own peak."""

    def __init__(self, server: VoilaServer):
        super().__init__(daemon=True)
        self.server, self.done = server, threading.Event()
        self.peak_mb, self.peak_kernels, self.max_kernels, self.samples = 0.0, 0, 0, 0
        self.kernel_peaks: dict[str, float] = {}   # kernel id -> its peak MB
        self.peak_anonymous_mb = 0.0

    def run(self) -> None:
        while not self.done.is_set():
            try:
                kernels, mb = server_footprint(self.server)
                self.peak_anonymous_mb = max(self.peak_anonymous_mb,
                                             server_anonymous_mb(self.server))
                for kernel, kernel_mb in kernel_memory(self.server).items():
                    self.kernel_peaks[kernel] = max(kernel_mb,
                                                    self.kernel_peaks.get(kernel, 0.0))
            except Exception:   # the server went away: nothing more to sample
                return
            self.samples += 1
            self.max_kernels = max(self.max_kernels, kernels)
            if mb > self.peak_mb:
                self.peak_mb, self.peak_kernels = mb, kernels
            self.done.wait(SAMPLE_SECONDS)

    def stop(self) -> None:
        self.done.set()
        self.join()


async def chart_src(page, index: int = 0) -> str:
    return await page.locator(CHART).nth(index).get_attribute("src") or ""


async def visit(browser, server: VoilaServer, name: str, timeout_s: float) -> dict:
    """One visitor: open ``name``, wait for its first chart, change one control, wait for
    the new chart. The page is left open (in ``result["page"]``)."""
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    result = {"name": name, "first": None, "redraw": None, "missing": False,
              "dropped": None, "kernel": None, "page": None}
    start = time.perf_counter()
    deadline = start + timeout_s

    def left_ms() -> float:
        return max(1.0, (deadline - time.perf_counter()) * 1000)

    try:
        page = await browser.new_page(viewport={"width": 1300, "height": 1000})
        result["page"] = page
        await page.route("**/cdn.jsdelivr.net/**", lambda route: route.abort())
        start = time.perf_counter()
        response = await page.goto(server.url(name), timeout=left_ms())
        if response is not None and response.status == 503:
            result["dropped"] = "server full (503)"
            return result
        if response is not None and response.status >= 400:
            result["dropped"] = f"HTTP {response.status}"
            return result
        await page.wait_for_function(
            """([ready, note]) => document.querySelector(ready)
                                  || document.body.innerText.includes(note)""",
            arg=[READY, VOILA_ERROR], timeout=left_ms(), polling=50)
        result["first"] = time.perf_counter() - start
        result["kernel"] = await page.evaluate(
            "() => JSON.parse(document.getElementById('jupyter-config-data')"
            ".textContent).kernelId")
        if await page.locator(CHART).count() == 0:
            if VOILA_ERROR in await page.inner_text("body"):
                result["dropped"] = "error in a cell"
            else:
                result["missing"] = True      # a missing-table note: nothing to redraw
            return result
        changes = CHANGES.get(name, [])
        if changes:
            old = await chart_src(page)
            start = time.perf_counter()
            await changes[0][1](page)
            await page.wait_for_function(
                """([sel, old]) => { const img = document.querySelector(sel);
                                     return img && img.src !== old && img.complete; }""",
                arg=[CHART, old], timeout=left_ms(), polling=20)
            result["redraw"] = time.perf_counter() - start
        if VOILA_ERROR in await page.inner_text("body"):
            result["dropped"] = "error in a cell"
    except PlaywrightTimeout:
        result["dropped"] = (f"no chart within {timeout_s:.0f} s" if result["first"] is None
                             else f"no redraw within {timeout_s:.0f} s of the request")
        if result["page"] is None:
            return result
        try:
            shown = " ".join((await result["page"].inner_text("body", timeout=5_000)).split())
            result["dropped"] += f"; the page shows: {shown[:100]!r}"
        except PlaywrightError:
            pass
    except PlaywrightError as error:
        result["dropped"] = f"error: {str(error).splitlines()[0][:80]}"
    return result


async def visit_all(server: VoilaServer, names: list[str], timeout_s: float) -> tuple:
    """Open every visitor's page at once; (results, kernel MB after drawing, browser
    version). Every page is closed before returning."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(),
                                                   args=CHROMIUM_ARGS, headless=True)
        try:
            results = await asyncio.gather(*(visit(browser, server, name, timeout_s)
                                             for name in names))
            kernels = kernel_memory(server)       # every visitor has drawn, pages open
            anonymous = kernel_memory(server, anonymous=True)
            for result in results:
                if result["page"] is not None:
                    await result["page"].close()  # as a tab is closed: no shutdown asked
            return results, kernels, anonymous, browser.version
        finally:
            await browser.close()


def log_digest(server: VoilaServer, most: int = 8) -> list[str]:
    """The server's error and warning lines, each message once with its count (the first
    ``most``)."""
    import collections
    import re

    counts: collections.Counter = collections.Counter()
    for line in server.log_tail(10**7).splitlines():
        match = re.match(r"\[([EWC]) [^\]]*\]\s*(.*)", line)
        if match:
            message = re.sub(r"\b\d+\b", "N", re.sub(r"[0-9a-f-]{36}", "<id>", match[2]))
            counts[f"{match[1]} {message[:150]}"] += 1
        elif re.match(r"(\w+\.)*\w*(Error|Exception|Exit)\b", line):
            counts[re.sub(r'[0-9a-f-]{36}', '<id>', line)[:150]] += 1
    return [f"{count:4d} x {message}" for message, count in counts.most_common(most)]


def row(label: str, results: list[dict], kernels: dict[str, float],
        peaks: dict[str, float]) -> str:
    firsts = [r["first"] for r in results if r["first"] is not None and not r["dropped"]]
    redraws = [r["redraw"] for r in results if r["redraw"] is not None and not r["dropped"]]
    mbs = [kernels[r["kernel"]] for r in results if r["kernel"] in kernels]
    peak = max((peaks[r["kernel"]] for r in results if r["kernel"] in peaks),
               default=math.nan)
    dropped = sum(bool(r["dropped"]) for r in results)

    def cell(value: float, digits: int = 1) -> str:
        return "-" if math.isnan(value) else f"{value:.{digits}f}"

    return (f"{label:18s}{len(results):>9}{dropped:>8}"
            f"{cell(percentile(firsts, 50)):>13}{cell(percentile(firsts, 95)):>13}"
            f"{cell(percentile(redraws, 95), 2):>14}"
            f"{cell(max(mbs) if mbs else math.nan, 0):>15}"
            f"{cell(statistics.median(mbs) if mbs else math.nan, 0):>15}"
            f"{cell(peak, 0):>16}")


def verdict(ok: bool) -> str:
    return "ok" if ok else "over target"


def main(argv) -> int:
    from ..dashboards.capacity import available_memory_bytes, kernels_that_fit

    parser = Parser(prog="lab bench serve",
                    description="N visitors at once on one dashboard server: first render, "
                                "redraw, the server's memory, culling.")
    parser.add_argument("--visitors", type=bounded(1, 200), default=20, metavar="N",
                        help="pages opened at once (default 20)")
    parser.add_argument("--dashboard", choices=DASHBOARDS, action="append", default=None,
                        help="send the visitors to this dashboard (repeatable: they take the "
                             "ones named in turn; default: every dashboard in turn)")
    parser.add_argument("--max-kernels", type=integer, default=None, metavar="K",
                        help="the server's kernel limit (default N, so that none is refused "
                             "for the limit)")
    parser.add_argument("--timeout", type=bounded(5, 3600), default=180, metavar="S",
                        help="seconds a visitor waits for a chart before it counts as "
                             "dropped (default 180)")
    parser.add_argument("--cull-seconds", type=bounded(1, 3600), default=CULL_SECONDS,
                        metavar="S", help=f"idle seconds before a closed page's kernel is "
                        f"culled (default {CULL_SECONDS}; fewer risks culling a kernel "
                        f"whose page has not connected yet)")
    parser.add_argument("--log", metavar="FILE", default=None,
                        help="write the server's whole log to FILE at the end")
    args = parser.parse_args(argv)
    limit = args.visitors if args.max_kernels is None else args.max_kernels
    if limit < 1:
        raise InputError(f"--max-kernels {limit}: must be at least 1")
    if not os.path.exists(chromium_path()):
        raise InputError(f"{chromium_path()}: chromium not found (install Debian's chromium "
                         f"or set CHROMIUM)")
    chosen = list(dict.fromkeys(args.dashboard or DASHBOARDS))
    names = [chosen[i % len(chosen)] for i in range(args.visitors)]

    available = available_memory_bytes()
    default = kernels_that_fit(available)
    refused = max(0, args.visitors - default)
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
          f"{(available or 0) / 2**30:.1f} GiB available")
    env = dict(os.environ, LAB_MAX_KERNELS=str(limit),
               LAB_CULL_IDLE_SECONDS=str(args.cull_seconds))
    with VoilaServer(env=env) as server:
        baseline_kernels, baseline = server_footprint(server)
        spread = (chosen[0] if len(chosen) == 1 or args.visitors == 1 else
                  f"{min(len(chosen), args.visitors)} dashboards in turn")
        print(f"voila on {server.base}: {args.visitors} visitors at once on {spread}; kernel "
              f"limit {limit} (the default here, {default}, would refuse "
              f"{refused} of {args.visitors} with the 503 page); closed pages' kernels "
              f"culled after {args.cull_seconds} s idle")
        print(f"baseline, before the first visitor: {baseline_kernels} kernels, "
              f"{baseline:.0f} MB")
        sampler = Sampler(server)
        sampler.start()
        start = time.perf_counter()
        try:
            results, kernel_mb, kernel_anonymous, version = asyncio.run(
                visit_all(server, names, float(args.timeout)))
        finally:
            sampler.stop()
        wall = time.perf_counter() - start
        for kernel, mb in kernel_mb.items():   # the reading after drawing is a sample too
            sampler.kernel_peaks[kernel] = max(mb, sampler.kernel_peaks.get(kernel, 0.0))
        print(f"chromium {version}: every page opened, drawn and closed in {wall:.1f} s; "
              f"{sampler.samples} memory samples")
        print(f"{'dashboard':18s}{'visitors':>9}{'dropped':>8}{'first p50 s':>13}"
              f"{'first p95 s':>13}{'redraw p95 s':>14}{'kernel max MB':>15}"
              f"{'kernel med MB':>15}{'kernel peak MB':>16}")
        for name in dict.fromkeys(names):
            print(row(name, [r for r in results if r["name"] == name], kernel_mb,
                      sampler.kernel_peaks))
        print(row("all", results, kernel_mb, sampler.kernel_peaks))
        for i, r in enumerate(results, 1):
            if r["dropped"]:
                print(f"dropped: visitor {i} ({r['name']}): {r['dropped']}")
        if any(r["dropped"] for r in results):
            print("server log, errors and warnings:")
            for line in log_digest(server):
                print(f"  {line}")
        missing = sorted({r["name"] for r in results if r["missing"]})
        if missing:
            print(f"table missing (message shown, no redraw): {', '.join(missing)}")
        no_change = sorted({n for n in names if not CHANGES.get(n)})
        if no_change:
            print(f"no known control, no redraw: {', '.join(no_change)}")
        settle_start = time.perf_counter()
        left, settled = settled_footprint(server, timeout=60 + 2 * args.cull_seconds)
        settle = time.perf_counter() - settle_start
        if args.log:
            with open(args.log, "w", encoding="utf-8") as log:
                log.write(server.log_tail(10**9))
    dropped = sum(bool(r["dropped"]) for r in results)
    largest = max(kernel_mb.values(), default=math.nan)
    largest_anonymous = max(kernel_anonymous.values(), default=math.nan)
    highest = max(sampler.kernel_peaks.values(), default=math.nan)
    growth = settled / baseline - 1
    print(f"server peak {sampler.peak_mb:.0f} MB resident with {sampler.peak_kernels} "
          f"kernels (most kernels at once {sampler.max_kernels}; target <= 12 GiB: "
          f"{verdict(sampler.peak_mb <= PEAK_TARGET_MB)}); peak of its anonymous memory "
          f"{sampler.peak_anonymous_mb:.0f} MB (the rest: file pages, counted once per "
          f"process mapping them)")
    print(f"{len(kernel_mb)} kernels after drawing: largest {largest:.0f} MB resident "
          f"(target <= {KERNEL_TARGET_MB} MB: {verdict(largest <= KERNEL_TARGET_MB)}), "
          f"largest anonymous {largest_anonymous:.0f} MB; highest kernel peak "
          f"{highest:.0f} MB resident")
    print(f"dropped {dropped} of {args.visitors} ({verdict(dropped == 0)})")
    print(f"after the pages closed: {left} kernels left after {settle:.0f} s "
          f"({verdict(left == 0)}: back to the baseline's {baseline_kernels}); "
          f"{settled:.0f} MB, {settled - baseline:+.0f} MB ({100 * growth:+.1f} %) against "
          f"the baseline")
    print(f"machine load after: {os.getloadavg()[0]:.1f}")
    return 0
