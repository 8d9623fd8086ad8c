"""The dashboard server: Voila with a Host check, a bounded number of kernels, culled when
pages close.

Plain Voila answers whatever ``Host`` a request names (so a page on another site can
reach a server on 127.0.0.1 through DNS rebinding) and, with its defaults, keeps the
kernel of every page visit alive for good. This server:

- refuses (403) requests whose ``Host`` is not a loopback address, ``localhost``, or a name
  listed in ``LAB_ALLOWED_HOSTS`` (comma-separated: the names a reverse proxy in front of it
  will forward, when the dashboards are published beyond this machine);
- opens on the landing page: ``/`` redirects to ``LANDING`` (the notebook that explains the
  lab and links every dashboard) instead of Voila's bare file list, which stays at
  ``/voila/tree``;
- culls the kernel of a page that is closed: a kernel with no open page and no work for
  CULL_IDLE_SECONDS (300, or ``LAB_CULL_IDLE_SECONDS``) is shut down (checked every
  CULL_INTERVAL_SECONDS); the kernel of an open page is kept however long the page stays
  open;
- runs at most ``--max_kernels`` kernels at once (default ``LAB_MAX_KERNELS``, else as many
  as the available memory holds at 2 GiB each: :mod:`lab.dashboards.capacity`); a visit
  that would start one more gets the "server is full" page with status 503 instead, and
  the server and its open pages carry on. Kernels still starting count, and so would
  Voila's pre-heated kernels (off here);
- collects the garbage after each kernel shutdown: a page visit leaves its kernel's
  manager, its websocket connection and its rendering in reference cycles, which only a
  full garbage collection frees; Python starts one by itself only once tens of thousands
  of objects have piled up, so without this the server grows by about 0.3 MB a visit.
  The objects made before serving, which last as long as the server, are frozen out of
  these collections (``gc.freeze``), so each takes milliseconds instead of 0.2 s.

``python -m lab.dashboards.server notebooks/ [--max_kernels=N] [voila options]`` takes
Voila's options; a bad kernel limit is one ``error:`` line, exit status 2.
"""

from __future__ import annotations

import gc
import os
import sys
import uuid

from ..errors import InputError
from .capacity import (RETRY_AFTER_SECONDS, ServerFull, default_max_kernels, full_page,
                       parse_max_kernels)

CULL_IDLE_SECONDS = int(os.environ.get("LAB_CULL_IDLE_SECONDS", "300"))
CULL_INTERVAL_SECONDS = max(1, min(15, CULL_IDLE_SECONDS // 4))
LOCAL_HOSTNAMES = ("localhost",)
LANDING = "index.ipynb"


def allowed_hostnames() -> list[str]:
    """Host names served besides loopback addresses (``LAB_ALLOWED_HOSTS`` added)."""
    extra = os.environ.get("LAB_ALLOWED_HOSTS", "")
    return [*LOCAL_HOSTNAMES, *(h.strip() for h in extra.split(",") if h.strip())]


def server_class():
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
    from traitlets import Integer
    from voila.app import Voila
    from voila.tornado.handler import TornadoVoilaHandler

    class LabKernelManager(AsyncMappingKernelManager):
        """Voila's default kernel manager, refusing a kernel past ``max_kernels`` and
        collecting the garbage after each shutdown."""

        max_kernels = Integer(default_max_kernels(), min=1, config=True,
                              help="The most kernels (open dashboards) run at once; "
                              "default LAB_MAX_KERNELS, else the kernels of 2 GiB that fit "
                              "in the memory available at start.")

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.starting: set[str] = set()  # ids of kernels whose start is under way
            self.log.info("Kernel limit: %d open dashboards at once.", self.max_kernels)

        def running(self) -> int:
            """Kernels running or starting."""
            return len(self.starting.union(self.list_kernel_ids()))

        async def start_kernel(self, *, kernel_id=None, **kwargs):
            """Start a kernel, or raise ServerFull when ``max_kernels`` already run."""
            if kernel_id is not None and kernel_id in self:
                return await super().start_kernel(kernel_id=kernel_id, **kwargs)
            running = self.running()
            if running >= self.max_kernels:
                self.log.warning("Server full: %d kernels running; a visit was refused.",
                                 running)
                raise ServerFull(running, self.max_kernels)
            kernel_id = kernel_id or str(uuid.uuid4())
            self.starting.add(kernel_id)  # counted from here on, with no wait before
            try:
                return await super().start_kernel(kernel_id=kernel_id, **kwargs)
            finally:
                self.starting.discard(kernel_id)

        async def shutdown_kernel(self, kernel_id, now=False, restart=False):
            await super().shutdown_kernel(kernel_id, now=now, restart=restart)
            gc.collect()

    class LabRenderHandler(TornadoVoilaHandler):
        """Voila's dashboard page, or the "server is full" page (503) when no kernel is
        left to start (nothing of the dashboard is sent before its kernel starts)."""

        async def get(self, path=None):
            try:
                await super().get(path=path)
            except ServerFull as full:
                if self._headers_written:
                    raise
                self.clear()
                self.set_status(503)
                self.set_header("Retry-After", str(RETRY_AFTER_SECONDS))
                self.set_header("Cache-Control", "no-store")
                self.finish(full_page(full))

    class LabVoila(Voila):
        """Voila whose handlers check the Host header (jupyter_server's own check, which
        plain Voila turns off), whose root is the landing page and whose kernel manager
        runs at most ``max_kernels`` kernels and frees what a shut-down kernel leaves
        behind."""

        aliases = {**Voila.aliases, "max_kernels": "LabKernelManager.max_kernels"}
        classes = [*Voila.classes, LabKernelManager]

        def init_settings(self):
            self.voila_configuration.multi_kernel_manager_class = LabKernelManager
            settings = super().init_settings()
            settings["allow_remote_access"] = False
            settings["local_hostnames"] = allowed_hostnames()
            return settings

        def init_handlers(self):
            from jupyter_server.base.handlers import JupyterHandler
            from jupyter_server.utils import url_path_join

            handlers = [(h[0], LabRenderHandler, *h[2:]) if h[1] is TornadoVoilaHandler else h
                        for h in super().init_handlers()]
            if self.notebook_path or not os.path.exists(os.path.join(self.root_dir, LANDING)):
                return handlers
            landing = url_path_join(self.server_url, "voila/render", LANDING)

            class LandingRedirect(JupyterHandler):
                """``/`` to the landing page (a Jupyter handler: the Host check applies)."""

                def get(self):
                    self.redirect(landing, permanent=False)

            return [(url_path_join(self.server_url, "/?"), LandingRedirect), *handlers]

        def listen(self):
            """Serve until stopped, the objects made so far frozen out of collections."""
            gc.collect()
            gc.freeze()
            super().listen()

    return LabVoila


def culling_options() -> list[str]:
    return [f"--MappingKernelManager.cull_idle_timeout={CULL_IDLE_SECONDS}",
            f"--MappingKernelManager.cull_interval={CULL_INTERVAL_SECONDS}",
            "--MappingKernelManager.cull_connected=False"]


def check_max_kernels(argv: list[str]) -> None:
    """Refuse a kernel limit that is not a whole number of at least 1 (from
    ``LAB_MAX_KERNELS`` or the options) before the server starts: InputError."""
    default_max_kernels()
    for i, arg in enumerate(argv):
        name, equals, value = arg.partition("=")
        if arg.startswith("-") and name.lstrip("-") in ("max_kernels",
                                                         "LabKernelManager.max_kernels"):
            if not equals:
                value = argv[i + 1] if i + 1 < len(argv) else ""
            parse_max_kernels(value, name)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        check_max_kernels(argv)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    server_class().launch_instance(argv=[*culling_options(), *argv])
    return 0


if __name__ == "__main__":
    sys.exit(main())
