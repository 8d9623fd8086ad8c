#!/usr/bin/env bash
# Set up (if needed) and serve the dashboards in notebooks/ on 127.0.0.1:${PORT:-8866}
# (Voila with a Host check, a bounded number of kernels, culled when pages close:
# lab/dashboards/server.py). At most LAB_MAX_KERNELS kernels (open dashboards) run at once,
# or, when it is unset, as many as the available memory holds at 2 GiB each; past that a
# visitor gets a "server is full" page (HTTP 503). Extra arguments go to the server
# (e.g. --max_kernels=4). The first time on a machine, `lab prepare` works out in the
# background what makes the advice instant (about half an hour on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-$PWD/.cache/numba}"
# Meanwhile, at low priority: the kernels compiled and the advice's values worked out
# (lab prepare), once per machine; later starts find them cached and it ends at once.
setsid bash -c 'nice -n 10 .venv/bin/python -m lab prepare --kernels &&
                nice -n 10 .venv/bin/python -m lab prepare' >/dev/null 2>&1 &
preparing=$!
trap 'kill -- -"$preparing" 2>/dev/null || true' EXIT
echo "dashboards: http://127.0.0.1:${PORT:-8866}/"
.venv/bin/python -m lab.dashboards.server notebooks/ --no-browser --port="${PORT:-8866}" \
    --Voila.ip=127.0.0.1 --strip_sources=True --show_tracebacks=False "$@"
