"""The collector process of ``overlap: process``: rollouts collected beside the learner.

The collection (stepping the batched games, the policy-conditioned belief, a network
call per decision) and the PPO update are both Python-heavy, so two threads of one
process take turns on Python's global lock. :class:`CollectorProcess` moves the
collection into a process of its own (spawned, so torch's threads are not forked),
which owns a second copy of the run's games, belief and random streams, started from
the trainer's, and steps them with the *behaviour* network: a copy whose parameters
live in shared memory, written by the trainer before each collection and read in place
by the collector. The rollouts go into two shared buffers in turn, so the learner reads
one while the collector fills the other; nothing is copied through a pipe but the
commands, the step count and the finished games' figures.

Those messages go as plain pickles (:func:`_send` / :func:`_receive`), tensors by value:
a tensor sent through ``Connection.send`` would travel as a file descriptor handed over by
``multiprocessing``'s resource-sharer thread, and a Ctrl-C landing while one process
fetches a descriptor from the other makes that thread print a traceback. Only the
shared parameters and buffers travel as descriptors, once, when the process starts.

The collector runs the trainer's own collection code (a
:class:`~shipwreck_training.fast.ppo.Trainer` without overlap, its state loaded from
the trainer's), so a run gives the same parameters with ``overlap: thread`` and
``overlap: process``. It ignores Ctrl-C (the terminal sends it to every process of the
group); the trainer stops it. This module must not change the games it does not own.
"""

from __future__ import annotations

import contextlib
import multiprocessing.resource_sharer
import pickle
import time
import traceback
from typing import TYPE_CHECKING, Any

import torch

from shipwreck_training.fast.sigint import children_ignore_sigint, ignore_sigint, sigint_held

if TYPE_CHECKING:
    from shipwreck_agents.learned.actor_critic import ActorCritic
    from shipwreck_training.fast.config import FastConfig
    from shipwreck_training.fast.ppo import Rollout

__all__ = ["CollectorProcess"]


def _send(conn, message: Any) -> None:
    """Send ``message`` as a plain pickle: tensors by value, never as descriptors;
    written whole even through a Ctrl-C (raised once it is written)."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    with sigint_held():
        conn.send_bytes(data)


def _receive(conn) -> Any:
    """The next message sent by :func:`_send`, read whole.

    A Ctrl-C while it waits for one leaves it unread (:meth:`Connection.poll` reads
    nothing); one while it reads is raised once the message is read, and the message is
    lost with it. Never half a message: the collection state can be megabytes, read in
    chunks, and a read cut between two chunks left the next read taking the middle of a
    message for its length and waiting forever (a fresh clone's CI hung there).
    """
    conn.poll(None)
    with sigint_held():
        data = conn.recv_bytes()
    return pickle.loads(data)


def _serve(conn, cfg_data: dict, behaviour: ActorCritic, buffers: list, state: bytes) -> None:
    """The collector: answer the trainer's commands until it says ``close``."""
    ignore_sigint()
    try:
        from shipwreck_training.fast.config import from_dict
        from shipwreck_training.fast.ppo import Trainer

        trainer = Trainer(from_dict({**cfg_data, "overlap": "off"}))
        trainer.load_collection_state(pickle.loads(state))
        _send(conn, ("ok", None))
    except Exception:
        _send(conn, ("error", traceback.format_exc()))
        return
    before: dict | None = None
    while True:
        try:
            command, arg = _receive(conn)
        except EOFError:  # the trainer ended without saying close
            break
        if command == "close":
            break
        try:
            if command == "collect":
                before = trainer.collection_state()
                start, cpu = time.perf_counter(), time.process_time()
                trainer.collect(behaviour, out=buffers[arg])
                answer: Any = {
                    "global_step": trainer.global_step,
                    "episodes": list(trainer.episodes),
                    "collect_s": time.perf_counter() - start,
                    "collect_cpu_s": time.process_time() - cpu,
                }
                trainer.episodes.clear()
            elif command == "state":
                answer = {"before": before, "now": trainer.collection_state()}
            elif command == "load":
                trainer.load_collection_state(arg)
                before, answer = None, None
            else:
                raise ValueError(f"unknown command {command!r}")
            _send(conn, ("ok", answer))
        except Exception:
            _send(conn, ("error", traceback.format_exc()))
    trainer.close()


class CollectorProcess:
    """A process collecting rollouts with ``behaviour`` into ``buffers``.

    Args:
        cfg: the run's configuration.
        behaviour: the collecting network, its parameters in shared memory
            (``share_memory()``): the trainer writes them while the collector is idle.
        buffers: rollouts in shared memory, filled by :meth:`start` (by index).
        state: the trainer's collection state (games, streams, memories) to start from.
    """

    def __init__(
        self, cfg: FastConfig, behaviour: ActorCritic, buffers: list[Rollout], state: dict
    ) -> None:
        context = torch.multiprocessing.get_context("spawn")
        self._conn, there = context.Pipe()
        with children_ignore_sigint():
            self._process = context.Process(
                target=_serve,
                args=(there, cfg.to_dict(), behaviour, buffers, pickle.dumps(state)),
                name="collector",
            )
            self._process.start()
        there.close()
        self._owed = True  # an answer the process owes: its start's, or a collection's
        try:
            self._answer()
        except BaseException:  # Ctrl-C while it starts: it still answers, then stops
            self.close()
            raise
        # every descriptor is fetched: no resource-sharer thread left here to serve one
        # (or to print a traceback if a process died while fetching)
        multiprocessing.resource_sharer.stop()

    def _answer(self) -> Any:
        # a Ctrl-C while the answer is awaited leaves it owed; once it is there, it is
        # read whole (a Ctrl-C then is raised after, the answer no longer owed)
        self._conn.poll(None)
        self._owed = False
        try:
            status, value = _receive(self._conn)
        except EOFError:
            raise RuntimeError(
                f"the collector process (pid {self._process.pid}) stopped without answering "
                f"(exit code {self._process.exitcode})"
            ) from None
        if status == "error":
            raise RuntimeError(f"the collector process failed:\n{value}")
        return value

    def _ask(self, command: str, arg: Any = None) -> Any:
        if self._owed:
            raise RuntimeError(f"collector command {command!r} while a collection runs")
        _send(self._conn, (command, arg))
        self._owed = True
        return self._answer()

    def start(self, buffer: int) -> None:
        """Begin collecting one rollout into ``buffers[buffer]`` (returns at once)."""
        if self._owed:
            raise RuntimeError("a collection is already running")
        _send(self._conn, ("collect", buffer))
        self._owed = True

    def result(self) -> dict:
        """Wait for the collection begun by :meth:`start`: the learner steps so far, the
        finished games' figures, and the collection's wall and CPU seconds."""
        return self._answer()

    def states(self) -> tuple[dict | None, dict]:
        """(collection state before the last rollout, collection state now)."""
        answer = self._ask("state")
        return answer["before"], answer["now"]

    def load(self, state: dict) -> None:
        """Replace the collector's games, streams and memories by ``state``."""
        self._ask("load", state)

    def close(self, wait: float = 600.0) -> None:
        """Stop the process, after the answer it owes (its start's, or a collection's:
        stopped sooner, it could die while fetching shared memory from this one), waiting
        ``wait`` seconds at most for it before ending the process."""
        if self._process.is_alive():
            with contextlib.suppress(BrokenPipeError, OSError, RuntimeError):
                if not self._owed or self._conn.poll(wait):  # else it is ended below
                    if self._owed:
                        self._answer()
                    _send(self._conn, ("close", None))
            self._process.join(timeout=30)
            if self._process.is_alive():
                self._process.terminate()
                self._process.join()
        self._conn.close()
