"""A pytest plugin that simulates the suite for xdist's scheduler: each test sleeps a
modelled duration instead of running (no fixture or test body runs), and its worker,
start and end go to a log. It shows how ``tests/conftest.py``'s order and xdist's
chunking share the long tests between the workers, without running the suite.

    rm -f /tmp/sim.log; DRY_LOG=/tmp/sim.log SIM_SCALE=10 PYTHONPATH=tests \\
        .venv/bin/python -m pytest -n 2 -p schedule_sim -q -p no:cacheprovider
    .venv/bin/python tests/schedule_sim.py /tmp/sim.log

``SIM_ORDER=file`` undoes the conftest's slow-first order; ``--dist load`` (or
``--dist load --maxschedchunk 1``) replaces the conftest's choice of ``worksteal``. The model: the four longest tests of the last
session's ``--durations`` list, 90 s for each card-set family, 15 s for every other slow
test (0.3 s in test_aec_env.py), 0.1 s for the rest; all divided by ``SIM_SCALE``.
Not collected (not named ``test_*``)."""

from __future__ import annotations

import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

KNOWN = {
    "tests/shipwreck_env/envs/test_leaks.py::test_no_leak_in_long_sweep": 205.0,
    "tests/project/test_newcomer.py::test_a_fresh_clone_runs_the_main_job": 164.0,
    "tests/agents/test_vector_bayes.py::test_batched_group_equals_python_in_every_difficulty"
    "_player_count_and_card_set": 118.0,
    "tests/agents/test_vector_partner.py::test_batched_heuristic_equals_python_in_every"
    "_difficulty_player_count_and_card_set": 104.0,
}
_ORDER: dict[str, int] = {}


def model(item: pytest.Item) -> float:
    """The modelled duration of ``item`` in seconds, before scaling."""
    if item.nodeid in KNOWN:
        return KNOWN[item.nodeid]
    if "test_every_card_set_agrees_over_many_games" in item.nodeid:
        return 90.0
    if item.get_closest_marker("slow") is not None:
        return 0.3 if "test_aec_env" in item.nodeid else 15.0
    return 0.1


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    _ORDER.update({item.nodeid: i for i, item in enumerate(items)})


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    if os.environ.get("SIM_ORDER") == "file":
        session.items.sort(key=lambda item: _ORDER[item.nodeid])


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    start = time.time()
    time.sleep(model(item) / float(os.environ.get("SIM_SCALE", "10")))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.environ["DRY_LOG"], "a") as log:
        log.write(f"{worker} {start:.3f} {time.time():.3f} {item.nodeid}\n")
    pytest.skip("simulated")


def summary(path: str) -> str:
    """The test phase's length and each worker's busy time from a log."""
    rows = [line.split(maxsplit=3) for line in Path(path).read_text().splitlines()]
    start = min(float(r[1]) for r in rows)
    busy: dict[str, float] = defaultdict(float)
    done: dict[str, float] = defaultdict(float)
    for worker, begin, end, _ in rows:
        busy[worker] += float(end) - float(begin)
        done[worker] = max(done[worker], float(end) - start)
    workers = ", ".join(f"{w}: busy {busy[w]:.1f} s, done at {done[w]:.1f} s" for w in sorted(busy))
    return f"{path}: test phase {max(done.values()):.1f} s; {workers}"


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(summary(path))
