#!/usr/bin/env bash
# Set up .venv (first run only; not the RLlib environment nor the browser, which only the
# tests use) and run the main job: play games at every difficulty and print the table.
set -euo pipefail
cd "$(dirname "$0")"
lab/tools/setup.sh --main
exec .venv/bin/shipwreck-arcana main "$@"
