"""Settings a test may change for its process and the next tests must not inherit, the
order the suite runs in, and :func:`load_script`, how a test gets a program of the lab
(``lab/``) as a module."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

_THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
# The AEC env compiles its engine in this process when the cache lacks it, instead of
# playing on the reference engine meanwhile (shipwreck_env.vector.single): a differential
# test must compare the compiled rules, never the reference engine with itself. Tests of
# the background compile set it back for their own processes.
os.environ["SHIPWRECK_ARCANA_COMPILE"] = "foreground"
ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "lab"
"""The lab: programs run by path (not a package), in rooms by kind (``lab/README.md``)."""


def lab_program(name: str) -> Path:
    """The path of the lab's program ``name`` (file name without ``.py``), whichever room
    it is in; names are unique across the lab (``tests/lab/test_layout_lab.py``)."""
    found = sorted(LAB.glob(f"*/{name}.py"))
    if len(found) != 1:
        known = sorted(p.stem for p in LAB.glob("*/*.py"))
        raise ValueError(f"lab program {name!r} is not allowed; allowed: {known}")
    return found[0]


def load_script(name: str, *, register: bool = False) -> ModuleType:
    """Run the lab's ``<room>/<name>.py`` once and return it as a fresh module called
    ``name``.

    While the file runs, its folder is first on ``sys.path``, as it is when the
    script is started from the command line, so a script may import a sibling script
    (``from convention_losses import ...``). Each call loads the file again: a test may
    change the module it gets without touching another test's copy.

    Args:
        name: the file name in ``folder`` without ``.py``.
        register: also enter the module in ``sys.modules`` under ``name`` before it
            runs, for code that looks it up by name (worker processes that unpickle one
            of its functions).
    """
    path = lab_program(name)
    where = path.parent
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, name
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[name] = module
    sys.path.insert(0, str(where))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(where))
    return module


def merged(base: dict, extra: dict) -> dict:
    """``base`` with ``extra`` laid over it, one level deep: a dict value updates the
    section of the same name (``ppo={"epochs": 2}`` keeps the other PPO keys), any
    other value replaces it. For the trainers' small test configs."""
    data = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict):
            data[key] = {**data.get(key, {}), **value}
        else:
            data[key] = value
    return data


def pytest_configure(config: pytest.Config) -> None:
    """Under ``-n`` without an explicit ``--dist``, xdist's ``worksteal`` mode instead of
    its ``load`` mode (``-n``'s default). ``load`` hands each worker, at the start, a
    block of an eighth of the collection in order: with the slow tests sorted first
    (below), the second worker's first block held every long test but the AEC env's (all
    of test_leaks', test_newcomer's, test_vector_*'s ...), and it ran them one after the
    other while the first worker ran the short ones. ``worksteal`` splits the collection
    in two halves and lets an idle worker take the back half of the other's queue, so the
    long tests end up shared and a module's tests (and its module fixtures) mostly stay
    on one worker. ``tests/schedule_sim.py`` simulates the choices."""
    if getattr(config.option, "dist", "no") != "load":
        return
    given = [str(arg) for arg in config.invocation_params.args]
    given += os.environ.get("PYTEST_ADDOPTS", "").split() + list(config.getini("addopts"))
    if not any(arg == "-d" or arg.startswith("--dist") for arg in given):
        config.option.dist = "worksteal"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Long tests (marked ``slow``) first, the rest in file order after them: the two
    workers take tests in this order (:func:`pytest_configure`), and a minutes-long test
    reached last would run alone while the other worker sits idle."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def _keep_thread_settings() -> Iterator[None]:
    """The ``shipwreck-arcana`` commands give torch one thread (``apps/cli.py``); a test
    that runs one in this process must not leave the next tests with it."""
    env = {name: os.environ.get(name) for name in _THREAD_VARIABLES}
    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch is not None else None
    yield
    changed = any(os.environ.get(name) != value for name, value in env.items())
    for name, value in env.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    torch = sys.modules.get("torch")
    if torch is None:
        return
    if threads is not None:
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
    elif changed:  # torch was first loaded under the test's setting: give it the default
        torch.set_num_threads(len(os.sched_getaffinity(0)))


@pytest.fixture(autouse=True)
def _keep_sigint_handler(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test must leave the process's SIGINT handler and signal mask as it found them:
    a process started while SIGINT is ignored (or blocked) keeps ignoring (or blocking)
    it, so a later test that starts a run and sends it Ctrl-C would wait for a run that
    never stops. Both are put back, and the test that changed them fails, by name."""
    import signal

    before = signal.getsignal(signal.SIGINT)
    blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    yield
    after = signal.getsignal(signal.SIGINT)
    blocked_after = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    if blocked_after != blocked:
        signal.pthread_sigmask(signal.SIG_BLOCK if blocked else signal.SIG_UNBLOCK, [signal.SIGINT])
        pytest.fail(
            f"{request.node.nodeid} left SIGINT {'un' if blocked else ''}blocked", pytrace=False
        )
    if after is not before:
        if before is not None:
            signal.signal(signal.SIGINT, before)
        pytest.fail(
            f"{request.node.nodeid} left the SIGINT handler {after!r} (it found {before!r})",
            pytrace=False,
        )
