#!/usr/bin/env bash
# Create .venv (if missing) and install the project with its training and test extras.
# torch==2.13.0 goes first: it is the CPU build on these machines, and the project's
# own torch range accepts it, so pip never fetches a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.installed-$(cat pyproject.toml | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet torch==2.13.0
    .venv/bin/python -m pip install --quiet -e ".[train,dev]"
    rm -f .venv/.installed-*
    touch "$stamp"
fi
