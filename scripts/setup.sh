#!/usr/bin/env bash
# Create .venv inside the repo and install the lab with its pinned dependencies.
# Idempotent: reinstalls only when pyproject.toml changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null || PYTHON=python3
if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
    rm -rf .venv  # missing, or left half-made by a failed attempt
    if ! "$PYTHON" -m venv .venv >/dev/null 2>&1; then
        rm -rf .venv
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
            "$PYTHON" -m venv .venv
        else
            echo "error: $PYTHON cannot create a virtual environment; install python3-venv" >&2
            exit 1
        fi
    fi
fi
stamp=.venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)
if [ ! -f "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".[test]"
    rm -f .venv/.installed-*
    touch "$stamp"
fi
