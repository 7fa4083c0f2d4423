#!/usr/bin/env bash
# Set up what a command needs, once (later runs only check):
#   lab/tools/setup.sh --main   .venv only: the project with its train, dev, play, docs and bench extras
#                             (what ./run.sh, the main job, needs)
#   lab/tools/setup.sh          also the libraries of tests/test_lib_*.py in .venv
#                             (lab/tools/requirements-libs.txt), .venv-rllib (RLlib's own
#                             environment), .venv-agilerl (AgileRL's) and Debian's chromium
#                             (the browser tests drive it through Playwright): what ./test.sh needs
# torch==2.13.0 goes first: it is the CPU build on these machines, and the project's
# own torch range accepts it, so pip never fetches a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/../.."
# setuptools warns on every editable install that a folder named like its package may take
# precedence on import; here the folders are the packages (pyproject's package-dir), so the
# warning only looks like an error in the log.
export PYTHONWARNINGS="ignore:Editable installation"
case "${1:-}" in
    --main) ONLY_MAIN=1 ;;
    "") ONLY_MAIN=0 ;;
    *) echo "setup.sh: unknown option '$1'; allowed: --main (only .venv) or nothing (everything)" >&2; exit 2 ;;
esac
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.installed-$(cat pyproject.toml | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet torch==2.13.0
    .venv/bin/python -m pip install --quiet -e ".[train,dev,play,docs,bench]"
    rm -f .venv/.installed-*
    touch "$stamp"
fi
if [ "$ONLY_MAIN" = 1 ]; then
    exit 0
fi
# The libraries users wrap the environment with (tests/test_lib_*.py): added to .venv,
# where pip install --dry-run shows they replace nothing; their own stamp, so a change of
# the file installs them again.
lstamp=.venv/.libs-$(sha256sum lab/tools/requirements-libs.txt | cut -c1-16)
if [ ! -f "$lstamp" ]; then
    .venv/bin/python -m pip install --quiet -r lab/tools/requirements-libs.txt
    rm -f .venv/.libs-*
    touch "$lstamp"
fi
# RLlib (the distributed extra) gets its own virtualenv, .venv-rllib: ray[rllib] 2.60 pins
# gymnasium==1.2.2 and .venv runs 1.4 (README, "Training on a Ray cluster"). torch==2.13.0
# first here too (pip install --dry-run: ray[rllib] then changes no torch). SKIP_RLLIB=1 skips it.
if [ "${SKIP_RLLIB:-0}" != 1 ]; then
    if [ ! -x .venv-rllib/bin/python ]; then
        "$PYTHON" -m venv .venv-rllib
    fi
    rstamp=.venv-rllib/.installed-$(cat pyproject.toml | sha256sum | cut -c1-16)
    if [ ! -f "$rstamp" ]; then
        .venv-rllib/bin/python -m pip install --quiet --upgrade pip
        .venv-rllib/bin/python -m pip install --quiet torch==2.13.0
        .venv-rllib/bin/python -m pip install --quiet -e ".[distributed,dev]"
        rm -f .venv-rllib/.installed-*
        touch "$rstamp"
    fi
fi
# AgileRL gets its own virtualenv, .venv-agilerl: agilerl 2.58 pins pettingzoo<1.27 and
# tensordict==0.13.0 (.venv: pettingzoo 1.27, torchrl 0.14 with tensordict 0.14). The
# project goes in without extras (the train extra's torchrl would want tensordict 0.14).
# torch==2.13.0 first (pip install --dry-run: agilerl then changes no torch). It holds
# 2.5 GB; building it took 307 s with pip's cache warm on this 2-core machine, under load
# (the same commands into a fresh folder). SKIP_AGILERL=1 skips it.
if [ "${SKIP_AGILERL:-0}" != 1 ]; then
    if [ ! -x .venv-agilerl/bin/python ]; then
        "$PYTHON" -m venv .venv-agilerl
    fi
    astamp=.venv-agilerl/.installed-$(cat pyproject.toml lab/tools/requirements-agilerl.txt | sha256sum | cut -c1-16)
    if [ ! -f "$astamp" ]; then
        .venv-agilerl/bin/python -m pip install --quiet --upgrade pip
        .venv-agilerl/bin/python -m pip install --quiet torch==2.13.0
        .venv-agilerl/bin/python -m pip install --quiet -r lab/tools/requirements-agilerl.txt
        .venv-agilerl/bin/python -m pip install --quiet -e .
        rm -f .venv-agilerl/.installed-*
        touch "$astamp"
    fi
fi
if [ ! -x /usr/bin/chromium ]; then
    # Playwright's own browser download does not work here: the tests launch this one.
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo DEBIAN_FRONTEND=noninteractive apt-get update -q
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
    else
        echo "setup: /usr/bin/chromium is missing and this user cannot install it;" >&2
        echo "setup: run 'apt-get install -y chromium' as root, the browser tests fail without it." >&2
    fi
fi
