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

__all__ = ["children_ignore_sigint", "ignore_sigint", "sigint_held"]


@contextlib.contextmanager
def sigint_held() -> Iterator[None]:
    """A SIGINT arriving inside the block is held and raised as it ends, not lost.

    For the time of the block SIGINT is blocked in this thread and Python's handler only
    records it; as the block ends the old handler is put back and a held SIGINT is raised
    to it (``KeyboardInterrupt`` with Python's default handler). Two uses: a message
    between processes is read or written whole (an interrupt cutting one in half leaves
    the pipe out of step, and the next read waits forever), and processes started inside
    inherit the mask (see :func:`children_ignore_sigint`). Outside the main thread it does
    nothing (signal handlers belong to the main thread).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
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


@contextlib.contextmanager
def children_ignore_sigint() -> Iterator[None]:
    """Processes started inside never see SIGINT, and this process sees it once.

    Ctrl-C in a terminal reaches every process of the group (``kill -INT`` only this
    one); a child that dies of it mid-start, or while it fetches shared memory from
    this process's resource-sharer thread, prints a traceback from both sides. So the
    block holds SIGINT (:func:`sigint_held`): a child inherits the blocked mask across
    fork and exec, starts with SIGINT blocked and its target calls
    :func:`ignore_sigint`; a SIGINT arriving meanwhile is raised here as the block ends.
    """
    with sigint_held():
        yield


def ignore_sigint() -> None:
    """In a child started by :func:`children_ignore_sigint`: ignore SIGINT for good
    (the process that started it stops it) and drop one held since the start."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
