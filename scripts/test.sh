#!/usr/bin/env bash
# Set up (if needed), install Debian's chromium when missing and running as root,
# compile the numba kernels, then run the whole test suite on two worker processes
# (LAB_TEST_WORKERS to change; each test file runs whole on one worker, so its fixtures
# are built once).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if ! command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null
fi
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-$PWD/.cache/numba}"
# compile the kernels once, in two processes side by side, before the workers need them
.venv/bin/python -m lab prepare --kernels
exec .venv/bin/python -m pytest -n "${LAB_TEST_WORKERS:-2}" --dist loadfile "$@"
