"""Tests of ``shipwreck_env.vector.observe.encode_batch``: every row equals the reference
``observation.encode`` of that game and observer, for every state of random games over
every base-set configuration, both layouts (with and without ``belief``), every
observer -- and for a few tables random play never reaches (empty deck, empty slot,
doom past 7, a wrong value predicted twice).

The games come from ``test_vector_convert.collect_games`` (shared, built once).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_vector_convert import collect_games, scramble

from shipwreck_env.rules import observation
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.vector.convert import from_states
from shipwreck_env.vector.observe import encode_batch


def _field_at(layout: ObservationLayout, column: int) -> str:
    for field in layout.fields:
        if field.offset <= column < field.offset + field.size:
            return f"{field.name}[{column - field.offset}]"
    raise AssertionError(column)


def assert_rows_equal(
    states: list[State], observers: np.ndarray, layout: ObservationLayout, got: np.ndarray
) -> None:
    """``got[g] == observation.encode(states[g], observers[g], layout)`` for every game;
    otherwise fail naming the first differing game, observer and field."""
    want = np.stack(
        [observation.encode(s, int(p), layout) for s, p in zip(states, observers, strict=True)]
    )
    assert got.shape == want.shape and got.dtype == np.float32
    if np.array_equal(got, want):
        return
    g, column = np.argwhere(got != want)[0]
    s = states[g]
    fields = sorted({_field_at(layout, c) for c in np.flatnonzero(got[g] != want[g])})
    pytest.fail(
        f"game {g} (observer {observers[g]}, phase {s.phase}, belief {layout.belief}): "
        f"first difference in {_field_at(layout, column)}: encode_batch {got[g, column]} "
        f"!= reference {want[g, column]}; all differing: {fields}; "
        f"config {s.config}; events {s.events}"
    )


def check_every_observer(states: list[State], config: GameConfig) -> None:
    """Every state seen by every player, both layouts; the arrays scrambled where the
    contract leaves them free (deck ring start, padding)."""
    arr = from_states(states)
    scramble(arr, np.random.default_rng(len(states)))
    n, players = len(states), config.num_players
    for belief in (False, True):
        layout = ObservationLayout.for_config(config, belief)
        for shift in range(players):
            observers = (np.arange(n) + shift) % players
            assert_rows_equal(states, observers, layout, encode_batch(arr, layout, observers))


def test_every_state_and_observer_matches_the_reference() -> None:
    for config, states in collect_games():
        check_every_observer(list(states), config)


def _unusual(states: tuple[State, ...]) -> list[State]:
    """States changed into tables that random play does not reach but the encoder must
    read like the reference: no deck, an empty slot (the fates left in front of it are
    neither shown nor counted as seen), doom and score past 7, a value wrongly predicted
    twice."""
    out = []
    for i, s in enumerate(states[::5]):
        s = s.copy()
        if i % 2:
            s.deck = []
        slot = i % 4
        if i % 3 == 0 and s.table[slot]:
            s.slots[slot] = -1
        if i % 7 == 0:
            s.doom, s.score = 9 + i % 3, 8
        if s.phase in (Phase.GROUP, Phase.VOTE) and i % 2 == 0:
            s.predictions = [4, 4]
            s.correct = False
        out.append(s)
    return out


def test_unusual_tables_match_the_reference() -> None:
    seen = {"no deck": 0, "fates before an empty slot": 0, "doom past 7": 0, "twice": 0}
    for config, states in collect_games()[::3]:
        unusual = _unusual(states)
        check_every_observer(unusual, config)
        for s in unusual:
            seen["no deck"] += not s.deck
            seen["fates before an empty slot"] += any(
                card < 0 and fates for card, fates in zip(s.slots, s.table, strict=True)
            )
            seen["doom past 7"] += s.doom > 7
            seen["twice"] += s.predictions == [4, 4]
    assert all(seen.values()), seen


def test_out_is_filled_and_returned() -> None:
    config, states = collect_games()[20]
    arr = from_states(states)
    layout = ObservationLayout.for_config(config, belief=True)
    observers = np.zeros(len(states), np.int64)
    out = np.full((len(states), layout.size), np.nan, np.float32)
    assert encode_batch(arr, layout, observers, out) is out
    assert_rows_equal(list(states), observers, layout, out)
    again = encode_batch(arr, layout, observers.astype(np.int8))  # buffers are reused
    assert np.array_equal(again, out)


def test_bad_arguments_are_refused() -> None:
    config, states = collect_games()[20]
    arr = from_states(states[:4])
    layout = ObservationLayout.for_config(config)
    other = ObservationLayout(config.num_players + 1)
    with pytest.raises(ValueError, match="layout"):
        encode_batch(arr, other, np.zeros(4, int))
    with pytest.raises(ValueError, match="observer"):
        encode_batch(arr, layout, np.zeros(3, int))
    with pytest.raises(ValueError, match="observer"):
        encode_batch(arr, layout, np.zeros(4))
    with pytest.raises(ValueError, match="observer"):
        encode_batch(arr, layout, np.full(4, config.num_players))
    with pytest.raises(ValueError, match="out"):
        encode_batch(arr, layout, np.zeros(4, int), np.zeros((4, layout.size)))


def test_a_batch_too_big_for_the_cache_streams_the_same_observations() -> None:
    """Above ``STREAM_BYTES`` the encoder builds rows in a small buffer and stores them
    past the cache (aligned runs of eight floats, then the rest one by one); every row,
    at every alignment, equals the one a small batch encodes row by row."""
    from shipwreck_env.vector import VectorGame
    from shipwreck_env.vector.jit import MAX_OBSERVATION
    from shipwreck_env.vector.observe import STREAM_BYTES

    widest = ObservationLayout.for_config(GameConfig(num_players=5), belief=True).size
    assert widest <= MAX_OBSERVATION
    rng = np.random.default_rng(3)
    for players, belief in ((3, False), (5, True)):
        layout = ObservationLayout.for_config(GameConfig(num_players=players), belief=belief)
        n = STREAM_BYTES // (4 * layout.size) + 37  # a last block of fewer rows
        vg = VectorGame(n, seed=11, num_players=players, belief=belief)
        for _ in range(6):
            vg.step(vg.random_legal(vg.legal_mask(), rng))
        big = vg.observe().copy()
        assert big.nbytes > STREAM_BYTES
        for first in range(0, n, 1000):
            games = np.arange(first, min(n, first + 1000))
            np.testing.assert_array_equal(vg.observe(games), big[games])
        observers = rng.integers(0, players, n)
        others = vg.observe(np.arange(n), observers)
        assert others.nbytes > STREAM_BYTES
        for first in range(0, n, 1000):
            games = np.arange(first, min(n, first + 1000))
            np.testing.assert_array_equal(vg.observe(games, observers[games]), others[games])
