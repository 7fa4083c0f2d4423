"""The background compile a first game waits for without waiting: start it, and tell when
it is over.

:func:`start_background` starts ``python -m shipwreck_env.vector.warm`` (the compile
program, :mod:`shipwreck_env.vector.warm`) in a process of its own, once per process and
not while another process holds the cache folder's lock, and logs :data:`BACKGROUND_NOTICE`;
:func:`background_finished` says when the compile this process relies on is over. The
one-game entry points (:mod:`shipwreck_env.vector.single`) call both with their numba
cache folder.

Must not: import the compiled rules (it runs before they are compiled), or start more
than one background process per process.
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

__all__ = ["BACKGROUND_NOTICE", "background_finished", "lock_path", "start_background"]

BACKGROUND_NOTICE = (
    "shipwreck_env: compiling the engine for this CPU in a background process (once per "
    "machine, about a minute on 2 cores; `shipwreck-arcana warm` does it ahead); until it "
    "is ready, games run on the reference engine: the same games, slower"
)
"""The one line a process logs (logger ``shipwreck_env``, WARNING) when its first game
starts on the reference engine."""
_LOG = logging.getLogger("shipwreck_env")
_child: subprocess.Popen | None = None
_started = False
_last_look = 0.0
LOOK_EVERY = 1.0
"""Seconds between two looks at whether another process's compile has finished."""


def lock_path(cache_dir: str) -> str:
    """The lock file of the background compile, in ``cache_dir``, the folder numba caches
    the one-game entry points in."""
    return os.path.join(cache_dir, "shipwreck-warm.lock")


def _lock_free(cache_dir: str) -> bool:
    """Whether no process holds the compile's lock now."""
    if fcntl is None:
        return True
    try:
        with open(lock_path(cache_dir), "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fh, fcntl.LOCK_UN)
        return True
    except BlockingIOError:
        return False
    except OSError:  # no writable cache folder: nobody can hold the lock
        return True


def start_background(cache_dir: str) -> None:
    """Start the background compile into ``cache_dir`` (unless this process already did,
    or another process is compiling) and log :data:`BACKGROUND_NOTICE`; once per process."""
    global _child, _started
    if _started:
        return
    _started = True
    if _lock_free(cache_dir):
        log = os.path.join(cache_dir, "shipwreck-warm.log")
        with contextlib.ExitStack() as stack:
            try:
                out = stack.enter_context(open(log, "w"))
            except OSError:
                out = subprocess.DEVNULL
            _child = subprocess.Popen(
                [sys.executable, "-m", "shipwreck_env.vector.warm"],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # it finishes (and warms the cache) after we exit
            )
    _LOG.warning(BACKGROUND_NOTICE)


def background_finished(cache_dir: str) -> bool:
    """Whether the background compile this process relies on is over (ours has exited,
    or no process holds the lock in ``cache_dir``); looks at most every
    :data:`LOOK_EVERY` seconds."""
    global _last_look
    if _child is not None:
        return _child.poll() is not None
    now = time.monotonic()
    if now - _last_look < LOOK_EVERY:
        return False
    _last_look = now
    return _lock_free(cache_dir)
