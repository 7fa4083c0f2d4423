"""How the batched engine's compiled rules reach their arrays, for speed: without
numba's reference counting, through a plain pointer (``vector.jit.Ref``), with their
work space in each batch's rules instead of allocated per call. What could go wrong
there is not a rule (the differential tests cover those) but ownership and sharing:
arrays freed while a batch still points at them, arrays never freed, or two batches
overwriting each other's work space."""

from __future__ import annotations

import gc
import weakref

import numpy as np

from shipwreck_apps.bench import sample_legal
from shipwreck_env.vector import VectorGame


def _play(vg: VectorGame, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    obs = vg.observe().copy()
    reward, _, _ = vg.step(sample_legal(vg.legal_mask(), rng))
    return obs, reward


def test_two_batches_stepped_in_turn_play_as_each_alone() -> None:
    """Each batch has its own work space (shuffles, observation counts), sized for its
    own deck: stepping two batches of different decks alternately gives each the games
    it gives alone."""
    configs = (dict(num_players=3), dict(num_players=5, card_sets="all"))
    alone = []
    for i, config in enumerate(configs):
        vg, rng = VectorGame(16, seed=i, **config), np.random.default_rng(i)
        alone.append([_play(vg, rng) for _ in range(60)])
    batches = [VectorGame(16, seed=i, **config) for i, config in enumerate(configs)]
    rngs = [np.random.default_rng(i) for i in range(len(configs))]
    for t in range(60):
        for i, vg in enumerate(batches):
            obs, reward = _play(vg, rngs[i])
            assert np.array_equal(obs, alone[i][t][0]), f"batch {i} step {t}: observation"
            assert np.array_equal(reward, alone[i][t][1]), f"batch {i} step {t}: reward"


def test_a_batch_keeps_its_arrays_alive_and_lets_them_go() -> None:
    """The compiled rules hold no reference of their own: the batch keeps its arrays
    alive while it lives (they are not freed under the rules), and once the batch is
    gone nothing else holds them."""
    vg = VectorGame(8, seed=0, num_players=3)
    rng = np.random.default_rng(0)
    arrays = weakref.ref(vg.arrays)
    slots = weakref.ref(vg.arrays.slots)
    for _ in range(20):
        _play(vg, rng)
        gc.collect()
        assert arrays() is not None and slots() is not None
    expected = vg.to_states()
    assert vg.to_states() == expected
    del vg
    gc.collect()
    assert arrays() is None
    assert slots() is None, "a game array outlived its batch: a reference leaked"


def test_a_batch_given_new_arrays_plays_on_them() -> None:
    """Replacing a batch's arrays (as ``from_states`` does) points the compiled rules
    at the new buffers, and the old ones are freed."""
    vg = VectorGame(8, seed=0, num_players=3)
    rng = np.random.default_rng(0)
    for _ in range(10):
        _play(vg, rng)
    old = weakref.ref(vg.arrays.slots)
    twin = VectorGame.from_states(vg.to_states(), seed=5)
    vg.arrays = twin.arrays.subset(np.arange(8))
    gc.collect()
    assert old() is None
    for _ in range(10):
        actions = sample_legal(vg.legal_mask(), rng)
        assert np.array_equal(vg.legal_mask(), twin.legal_mask())
        assert np.array_equal(vg.observe(), twin.observe())
        assert np.array_equal(vg.step(actions)[0], twin.step(actions)[0])
    assert vg.to_states() == twin.to_states()
