"""Random streams for batched games: one counter-based stream per game.

Game ``g`` of a batch reset with seed ``s`` draws its k-th uniform number as a hash of
(its key, k) (SplitMix64), so a game's chance outcomes depend only on the seed and its
index -- not on how many games run beside it, nor on what they do -- and every game's
next numbers are made in one array operation. :class:`StreamGenerator` plays the same
stream for one game through the two calls the reference engine makes on a numpy
``Generator`` (``random()`` and ``permutation(n)``), so the reference engine can replay
any batched game exactly.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.vector.jit import njit, rule

__all__ = [
    "StreamGenerator",
    "game_key",
    "game_keys",
    "permutation_at",
    "permutations",
    "uniform_at",
    "uniforms",
]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_SCALE = 2.0**-53


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (wrapping uint64 arithmetic)."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> _S30)) * _M1
        z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def game_keys(seed: int | None, num_games: int, first: int = 0) -> np.ndarray:
    """The stream keys of games ``first .. first + num_games - 1`` under ``seed``
    (``None``: a seed from the operating system's entropy)."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (1 << 64))
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed {seed!r} is not allowed; allowed: None or an integer >= 0")
    base = _mix(np.array([int(seed) % (1 << 64)], np.uint64))[0]
    index = np.arange(first, first + num_games, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return _mix(base + (index + np.uint64(1)) * _GOLDEN)


_MASK64 = (1 << 64) - 1


def _mix_int(z: int) -> int:
    """:func:`_mix` on one Python integer (no array round trip: a reset per game)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def game_key(seed: int) -> int:
    """``game_keys(seed, 1)[0]`` as a Python integer, computed without numpy."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed {seed!r} is not allowed; allowed: an integer >= 0")
    base = _mix_int(int(seed) & _MASK64)
    return _mix_int((base + 0x9E3779B97F4A7C15) & _MASK64)


def uniforms(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """Uniform doubles in [0, 1): the ``counters``-th number of each stream ``keys``
    (broadcast together)."""
    with np.errstate(over="ignore"):
        z = _mix(keys + counters.astype(np.uint64) * _GOLDEN)
    return (z >> _S11).astype(np.float64) * _SCALE


def permutations(keys: np.ndarray, counters: np.ndarray, n: int) -> np.ndarray:
    """One shuffle of ``range(n)`` per stream, made of its next ``n`` numbers
    (``counters .. counters + n - 1``): the order that sorts them (stable)."""
    steps = np.arange(n, dtype=np.uint64)
    u = uniforms(keys[:, None], counters.astype(np.uint64)[:, None] + steps)
    return np.argsort(u, axis=1, kind="stable")


@rule
def _bits_at(key: np.uint64, counter: np.uint64) -> np.uint64:
    """The 53 bits of the ``counter``-th number of stream ``key`` (:func:`uniforms`
    before its scaling to [0, 1)), in compiled code."""
    z = np.uint64(key) + np.uint64(counter) * _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    z = z ^ (z >> _S31)
    return z >> _S11


@njit
def uniform_at(key: np.uint64, counter: np.uint64) -> float:
    """The same number as :func:`uniforms` for one stream, in compiled code."""
    return np.float64(_bits_at(key, counter)) * _SCALE


_INDEX_BITS = np.uint64(6)


@njit
def permutation_at(key: np.uint64, counter: np.uint64, n: int, work, order) -> None:
    """The same shuffle as :func:`permutations` for one stream, in compiled code:
    written to ``order[:n]`` (``work``: uint64 work space of ``n`` numbers, ``n <= 64``).

    The stable argsort of the ``n`` uniforms is computed as ranks: each number's 53
    bits (exactly the double it becomes) shifted left by 6, with its index below, give
    keys that are all distinct and order as (number, index) does, so a key's rank is
    how many keys are smaller. No branch depends on the numbers, and it takes a third of
    an insertion sort's time at 24 cards."""
    for i in range(n):
        bits = _bits_at(key, np.uint64(counter) + np.uint64(i))
        work[i] = (bits << _INDEX_BITS) | np.uint64(i)
    for i in range(n):
        mine = work[i]
        rank = 0
        for j in range(n):
            rank += work[j] < mine
        order[rank] = i


class StreamGenerator(np.random.Generator):
    """One game's stream behind the part of ``numpy.random.Generator`` that the reference
    engine uses (``random()`` and ``permutation(n)``; other methods draw from an
    unrelated PCG64 stream and must not be relied on), so that
    ``engine.new_game(config, StreamGenerator(key))`` and ``engine.step(..., rng)``
    make the same draws as the batched game with that key.

    Args:
        key: the game's stream key (``game_keys(seed, n)[g]``).
        counter: numbers already drawn from the stream.
    """

    def __init__(self, key: int, counter: int = 0) -> None:
        super().__init__(np.random.PCG64(0))
        self.key = np.array([key], np.uint64)
        self.counter = int(counter)

    def random(self, *args: object, **kwargs: object) -> float:  # type: ignore[override]
        """The stream's next uniform number in [0, 1) (arguments are not supported)."""
        if args or kwargs:
            raise ValueError("StreamGenerator.random() takes no arguments: one number per call")
        u = uniforms(self.key, np.array([self.counter], np.uint64))[0]
        self.counter += 1
        return float(u)

    def permutation(self, n: int) -> np.ndarray:  # type: ignore[override]
        """A shuffle of ``range(n)`` from the stream's next ``n`` numbers."""
        perm = permutations(self.key, np.array([self.counter], np.uint64), n)[0]
        self.counter += n
        return perm
