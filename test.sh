#!/usr/bin/env bash
# Set up (first run only) and run the whole test suite on both cores; without arguments,
# then the RLlib tests in .venv-rllib (SKIP_RLLIB=1: not those) and the AgileRL tests in
# .venv-agilerl (SKIP_AGILERL=1: not those). Every part runs even when an earlier one
# fails; a summary at the end names each part's result, and the exit code is nonzero if
# any part failed.
set -euo pipefail
cd "$(dirname "$0")"
lab/tools/setup.sh
# The batched kernels compile into their caches first (minutes cold, seconds warm), on
# both cores at once, instead of inside the first test that needs each.
.venv/bin/python lab/tools/warm_kernels.py
if [ $# -gt 0 ]; then
    exec .venv/bin/python -m pytest -n 2 "$@"
fi
summary=()
failed=0
part() {
    # part NAME COMMAND...: run one part, remember how it ended, never stop the script
    local name=$1
    shift
    echo "=== test.sh: $name"
    local code=0
    "$@" || code=$?
    if [ "$code" = 0 ]; then
        summary+=("$name: passed")
    else
        summary+=("$name: FAILED (exit $code)")
        failed=1
    fi
}
part "main suite (.venv)" .venv/bin/python -m pytest -n 2
if [ "${SKIP_RLLIB:-0}" != 1 ]; then
    # The RLlib tests (a real local Ray) in RLlib's own environment (gymnasium 1.2.2), and
    # the AEC env's tests, which RLlib's env wraps, on 1.2.2 too.
    part "RLlib (.venv-rllib)" .venv-rllib/bin/python -m pytest -p no:cacheprovider \
        tests/training/test_rllib.py tests/training/test_rllib_runner.py tests/training/test_rllib_policy.py \
        tests/shipwreck_env/envs/test_aec_env.py tests/shipwreck_env/envs/test_env_contract.py
fi
if [ "${SKIP_AGILERL:-0}" != 1 ]; then
    # AgileRL's own environment (pettingzoo 1.26, tensordict 0.13)
    part "AgileRL (.venv-agilerl)" .venv-agilerl/bin/python -m pytest -p no:cacheprovider \
        tests/shipwreck_env/envs/test_lib_agilerl.py
fi
echo "=== test.sh: summary"
printf '  %s\n' "${summary[@]}"
exit "$failed"
