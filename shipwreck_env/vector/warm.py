"""Compiling the one-game entry points (:mod:`shipwreck_env.vector.single`, what the AEC
env plays on) in a background process, so that a first ``env()`` on a machine plays at
once: :func:`start_background` starts it (once per process, and not while another
process holds the cache's lock), :func:`background_finished` says when it is done.

Run as ``python -m shipwreck_env.vector.warm``: compiles into numba's cache, holding
the lock file ``shipwreck-warm.lock`` in the cache folder while it does, at low
priority, and exits (0 also when another process already holds the lock; with
``--wait`` it waits for that process instead, then loads what it left).

Must not: compile anything in the calling process, or start more than one background
process per process.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

import numpy as np

from shipwreck_env.vector import background

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows: no lock, one process per process
    fcntl = None  # type: ignore[assignment]

__all__ = ["lock_path", "main", "play_single"]


def lock_path() -> str:
    """The lock file of the background compile, in the folder numba caches the
    one-game entry points in (:func:`shipwreck_env.vector.background.lock_path`)."""
    from shipwreck_env.vector.single import cache_dir

    return background.lock_path(cache_dir())


def play_single(steps: int = 300) -> None:
    """Play random games on :class:`~shipwreck_env.vector.single.SingleGame`, every card
    set, so every one-game entry point is compiled (or loaded from the cache)."""
    from shipwreck_env.rules.config import GameConfig
    from shipwreck_env.rules.observation import ObservationLayout
    from shipwreck_env.vector.single import SingleGame, compiled_ready

    config = GameConfig(num_players=3, card_sets="all", difficulty="doomed")
    os.environ["SHIPWRECK_ARCANA_COMPILE"] = "foreground"
    game = SingleGame(config, ObservationLayout.for_config(config, False), False)
    rng = np.random.default_rng(0)
    game.reset(0)
    for _ in range(steps):
        if game.status[1]:
            game.reset(int(rng.integers(1 << 30)))
        game.observe(int(game.status[0]))
        game.step(int(rng.choice(np.flatnonzero(game.mask))))
    game.load(game.state())
    assert compiled_ready()


def main(argv: list[str] | None = None) -> int:
    """Compile into the cache while holding the lock; exit at once if another process
    holds it, or with ``--wait`` wait for that process and then load (or compile)."""
    wait = "--wait" in (sys.argv[1:] if argv is None else argv)
    if fcntl is None:
        play_single()
        return 0
    os.makedirs(os.path.dirname(lock_path()), exist_ok=True)
    with open(lock_path(), "a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return 0
        if not wait:
            with contextlib.suppress(OSError):
                os.nice(10)  # the foreground games first
        start = time.perf_counter()
        play_single()
        print(f"compiled in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
