#!/usr/bin/env bash
# Set up (first run only) and run the whole test suite on both cores; without arguments,
# then the RLlib tests in .venv-rllib (SKIP_RLLIB=1: not those).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
# The batched kernels compile into their caches first (minutes cold, seconds warm), on
# both cores at once, instead of inside the first test that needs each.
.venv/bin/python scripts/warm_kernels.py
if [ $# -gt 0 ] || [ "${SKIP_RLLIB:-0}" = 1 ]; then
    exec .venv/bin/python -m pytest -n 2 "$@"
fi
.venv/bin/python -m pytest -n 2
# The RLlib tests (a real local Ray) in RLlib's own environment (gymnasium 1.2.2), and the
# AEC env's tests, which RLlib's env wraps, on 1.2.2 too.
exec .venv-rllib/bin/python -m pytest -p no:cacheprovider tests/test_rllib.py \
    tests/test_rllib_runner.py tests/test_rllib_policy.py tests/test_aec_env.py tests/test_env_contract.py
