#!/usr/bin/env bash
# Set up (first run only) and run the main job: play games at every difficulty and
# print the table of results.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
exec .venv/bin/shipwreck-arcana main "$@"
