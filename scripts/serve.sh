#!/usr/bin/env bash
# Set up (if needed) and serve the dashboards in notebooks/ on 127.0.0.1:${PORT:-8866}
# (Voila with a Host check and kernels culled when pages close: lab/dashboards/server.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-$PWD/.cache/numba}"
echo "dashboards: http://127.0.0.1:${PORT:-8866}/"
exec .venv/bin/python -m lab.dashboards.server notebooks/ --no-browser --port="${PORT:-8866}" \
    --Voila.ip=127.0.0.1 --strip_sources=True --show_tracebacks=False
