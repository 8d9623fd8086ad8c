"""The dashboard server: Voila with a Host check and kernels culled when pages close.

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
- collects the garbage after each kernel shutdown: a page visit leaves its kernel's
  manager, its websocket connection and its rendering in reference cycles, which only a
  full garbage collection frees; Python starts one by itself only once tens of thousands
  of objects have piled up, so without this the server grows by about 0.3 MB a visit.
  The objects made before serving, which last as long as the server, are frozen out of
  these collections (``gc.freeze``), so each takes milliseconds instead of 0.2 s.

``python -m lab.dashboards.server notebooks/ [voila options]`` takes Voila's options.
"""

from __future__ import annotations

import gc
import os
import sys

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
    from voila.app import Voila

    class LabKernelManager(AsyncMappingKernelManager):
        """Voila's default kernel manager, collecting the garbage after each shutdown."""

        async def shutdown_kernel(self, kernel_id, now=False, restart=False):
            await super().shutdown_kernel(kernel_id, now=now, restart=restart)
            gc.collect()

    class LabVoila(Voila):
        """Voila whose handlers check the Host header (jupyter_server's own check, which
        plain Voila turns off), whose root is the landing page and whose kernel manager
        frees what a shut-down kernel leaves behind."""

        def init_settings(self):
            self.voila_configuration.multi_kernel_manager_class = LabKernelManager
            settings = super().init_settings()
            settings["allow_remote_access"] = False
            settings["local_hostnames"] = allowed_hostnames()
            return settings

        def init_handlers(self):
            from jupyter_server.base.handlers import JupyterHandler
            from jupyter_server.utils import url_path_join

            handlers = super().init_handlers()
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


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    server_class().launch_instance(argv=[*culling_options(), *argv])
    return 0


if __name__ == "__main__":
    sys.exit(main())
