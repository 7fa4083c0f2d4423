"""SIGINT in the fast trainer's processes: the main process handles it once, every
process it starts ignores it.

A terminal's Ctrl-C reaches every process of the group; a job manager's ``kill -INT``
only the main one. Either way the main process stops its workers itself (and keeps
its last checkpoint), so a worker must never die of SIGINT: one dying mid-start, or
while it fetches shared memory through ``multiprocessing``'s resource-sharer thread,
prints a traceback in both processes.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

__all__ = ["children_ignore_sigint", "ignore_sigint"]


@contextlib.contextmanager
def children_ignore_sigint() -> Iterator[None]:
    """Processes started inside never see SIGINT, and this process sees it once.

    Ctrl-C in a terminal reaches every process of the group (``kill -INT`` only this
    one); a child that dies of it mid-start, or while it fetches shared memory from
    this process's resource-sharer thread, prints a traceback from both sides. So for
    the time of the block SIGINT is blocked in this thread (a child inherits the mask
    across fork and exec: it starts with SIGINT blocked and its target calls
    :func:`ignore_sigint`), and a SIGINT arriving meanwhile is held and raised here as
    the block ends (``KeyboardInterrupt`` with Python's default handler), not lost.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return
    held: list[int] = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a pending SIGINT lands in held
        signal.signal(signal.SIGINT, old)
    if held:
        signal.raise_signal(signal.SIGINT)  # as the process's own handler would have


def ignore_sigint() -> None:
    """In a child started by :func:`children_ignore_sigint`: ignore SIGINT for good
    (the process that started it stops it) and drop one held since the start."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
