#!/usr/bin/env bash
# Set up (if needed) and serve the dashboards in notebooks/ with Voila on 127.0.0.1:${PORT:-8866}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-$PWD/.cache/numba}"
echo "dashboards: http://127.0.0.1:${PORT:-8866}/"
exec .venv/bin/voila notebooks/ --no-browser --port="${PORT:-8866}" --Voila.ip=127.0.0.1 \
    --strip_sources=True --show_tracebacks=False \
    --MappingKernelManager.cull_idle_timeout=600 --MappingKernelManager.cull_interval=60
