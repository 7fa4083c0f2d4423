"""The background compile a first game waits for without waiting: start it, and tell when
it is over.

:func:`start_background` starts ``python -m shipwreck_env.vector.warm --part PART`` (the
compile program, :mod:`shipwreck_env.vector.warm`) in a process of its own, once per
process and part and not while another process holds that part's lock in the cache
folder, and logs the part's notice (:data:`NOTICES`); :func:`background_finished` says
when the compile this process relies on is over. Two parts: ``single``, the one-game
entry points the AEC env plays on (:mod:`shipwreck_env.vector.single`), and ``batch``,
the kernels :class:`~shipwreck_env.vector.game.VectorGame` steps with
(:mod:`shipwreck_env.vector.game`). Each calls both with its numba cache folder.

Must not: import the compiled rules (it runs before they are compiled), or start more
than one background process per process and part.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
import time

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows: no lock, one process per process
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "BACKGROUND_NOTICE",
    "BATCH_NOTICE",
    "NOTICES",
    "PARTS",
    "WAIT_NOTICE",
    "background_finished",
    "lock_path",
    "start_background",
]

BACKGROUND_NOTICE = (
    "shipwreck_env: compiling the engine for this CPU in a background process (once per "
    "machine, about a minute on 2 cores; `shipwreck-arcana warm` does it ahead); until it "
    "is ready, games run on the reference engine: the same games, slower"
)
"""The one line a process logs (logger ``shipwreck_env``, WARNING) when its first game
starts on the reference engine."""
BATCH_NOTICE = (
    "shipwreck_env: compiling the batched engine for this CPU in a background process "
    "(once per machine, about a minute on 2 cores; `shipwreck-arcana warm` does it ahead); "
    "until it is ready, VectorGame plays its games on the reference engine: the same "
    "games, slower"
)
"""The one line a process logs when its first :class:`VectorGame` starts on the
reference engine."""
WAIT_NOTICE = (
    "shipwreck_env: reading VectorGame.arrays needs the compiled batched engine: waiting "
    "for the background compile to finish (about a minute on 2 cores, once per machine)"
)
"""The line a process logs when a read of a warming batch's arrays has to wait."""
PARTS = ("single", "batch")
"""What a background compile compiles: the one-game entry points, or the batched kernels."""
NOTICES = {"single": BACKGROUND_NOTICE, "batch": BATCH_NOTICE}
_LOG = logging.getLogger("shipwreck_env")
_children: dict[str, subprocess.Popen] = {}
_started: set[str] = set()
_last_look: dict[str, float] = {}
LOOK_EVERY = 1.0
"""Seconds between two looks at whether another process's compile has finished."""


def _check_part(part: str) -> None:
    if part not in PARTS:
        raise ValueError(f"part {part!r} is not allowed; allowed: {list(PARTS)}")


def lock_path(cache_dir: str, part: str = "single") -> str:
    """The lock file of ``part``'s background compile, in ``cache_dir``, the folder numba
    caches the compiled entry points in."""
    _check_part(part)
    name = "shipwreck-warm.lock" if part == "single" else f"shipwreck-warm-{part}.lock"
    return os.path.join(cache_dir, name)


def _lock_free(cache_dir: str, part: str) -> bool:
    """Whether no process holds ``part``'s compile lock now."""
    if fcntl is None:
        return True
    try:
        with open(lock_path(cache_dir, part), "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fh, fcntl.LOCK_UN)
        return True
    except BlockingIOError:
        return False
    except OSError:  # no writable cache folder: nobody can hold the lock
        return True


def start_background(cache_dir: str, part: str = "single") -> None:
    """Start ``part``'s background compile into ``cache_dir`` (unless this process already
    did, or another process is compiling it) and log the part's notice; once per process
    and part."""
    _check_part(part)
    if part in _started:
        return
    _started.add(part)
    if _lock_free(cache_dir, part):
        suffix = "" if part == "single" else f"-{part}"
        log = os.path.join(cache_dir, f"shipwreck-warm{suffix}.log")
        with contextlib.ExitStack() as stack:
            try:
                out = stack.enter_context(open(log, "w"))
            except OSError:
                out = subprocess.DEVNULL
            _children[part] = subprocess.Popen(
                [sys.executable, "-m", "shipwreck_env.vector.warm", "--part", part],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # it finishes (and warms the cache) after we exit
            )
    _LOG.warning(NOTICES[part])


def background_finished(cache_dir: str, part: str = "single") -> bool:
    """Whether ``part``'s background compile this process relies on is over (ours has
    exited, or no process holds the part's lock in ``cache_dir``); looks at most every
    :data:`LOOK_EVERY` seconds."""
    _check_part(part)
    child = _children.get(part)
    if child is not None:
        return child.poll() is not None
    now = time.monotonic()
    if now - _last_look.get(part, 0.0) < LOOK_EVERY:
        return False
    _last_look[part] = now
    return _lock_free(cache_dir, part)
