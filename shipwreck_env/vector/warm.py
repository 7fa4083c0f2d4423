"""Compiling the engine in a background process, so that a first ``env()`` or a first
``VectorGame`` on a machine plays at once (:mod:`shipwreck_env.vector.background` starts
it and says when it is done). Two parts: ``single``, the one-game entry points
(:mod:`shipwreck_env.vector.single`, what the AEC env plays on), and ``batch``, the
kernels :class:`~shipwreck_env.vector.game.VectorGame` steps with.

Run as ``python -m shipwreck_env.vector.warm [--part single|batch]`` (default
``single``): compiles the part into numba's cache, holding its lock file
(``background.lock_path``) in the cache folder while it does, at low priority, and exits
(0 also when another process already holds the lock; with ``--wait`` it waits for that
process instead, then loads what it left).

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

__all__ = ["lock_path", "main", "play_batch", "play_single"]


def lock_path(part: str = "single") -> str:
    """The lock file of ``part``'s background compile, in the folder numba caches the
    entry points in (:func:`shipwreck_env.vector.background.lock_path`)."""
    from shipwreck_env.vector.single import cache_dir

    return background.lock_path(cache_dir(), part)


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


def play_batch(steps: int = 40) -> None:
    """Play random games on :class:`~shipwreck_env.vector.game.VectorGame`, every card
    set, through every call of its API, so every kernel it calls is compiled (or loaded
    from the cache)."""
    from shipwreck_env.vector.game import VectorGame, batch_ready

    os.environ["SHIPWRECK_ARCANA_COMPILE"] = "foreground"
    game = VectorGame(64, 0, card_sets="all", difficulty="doomed")
    rng = np.random.default_rng(0)
    for _ in range(steps):
        game.observe()
        game.observe(np.arange(3), np.zeros(3, np.int64))
        game.step(game.random_legal(game.legal_mask(), rng))
    game.restart(np.arange(2))
    game.reset()
    assert batch_ready()


PLAYS = {"single": play_single, "batch": play_batch}


def main(argv: list[str] | None = None) -> int:
    """Compile a part into the cache while holding its lock; exit at once if another
    process holds it, or with ``--wait`` wait for that process and then load (or
    compile)."""
    args = sys.argv[1:] if argv is None else argv
    wait = "--wait" in args
    part = args[args.index("--part") + 1] if "--part" in args[:-1] else "single"
    if part not in PLAYS:
        print(f"part {part!r} is not allowed; allowed: {list(PLAYS)}", file=sys.stderr)
        return 2
    if fcntl is None:
        PLAYS[part]()
        return 0
    os.makedirs(os.path.dirname(lock_path(part)), exist_ok=True)
    with open(lock_path(part), "a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return 0
        if not wait:
            with contextlib.suppress(OSError):
                os.nice(10)  # the foreground games first
        start = time.perf_counter()
        PLAYS[part]()
        print(f"compiled in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
