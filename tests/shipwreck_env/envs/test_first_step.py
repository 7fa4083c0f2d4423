"""The first game on a machine without compiled code plays at once: while a background
process compiles the one-game entry points, :class:`~shipwreck_env.vector.single.WarmingGame`
plays the same games on the reference engine, then turns into the compiled
:class:`~shipwreck_env.vector.single.SingleGame` at a reset; a compile in the process
says so on one line.

* A warming game and a compiled game of the same seed and actions agree after every
  step on masks, status, rewards, every player's observation, the ``State`` and the
  stream (over rule switches, both rewards and the belief block).
* It becomes compiled at the first reset after the compile is ready, not before, and
  plays on identically; a pickle crosses from one kind to the other.
* :func:`~shipwreck_env.vector.jit.load_cached` never compiles; the compile notice is
  logged once per process, at a real compile only.

The wheel test (``tests/test_wheel.py``) runs the first ``env()`` with an empty cache in a
fresh install. Authority: issue 50, part 1.
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys

import numba
import numpy as np
import pytest

from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.vector import background, jit, single
from shipwreck_env.vector.single import SingleGame, WarmingGame

SWITCHES = [
    dict(num_players=3, card_sets="all", difficulty="easy"),
    dict(num_players=4, group_decision="vote", reveal=False, difficulty="hard"),
    dict(num_players=2, challenge_mode=True, card_sets="all", max_turns=8),
    dict(num_players=5, card_sets="all", difficulty="easy"),
]


def _pair(kwargs: dict, score_doom: bool, belief: bool) -> tuple[SingleGame, SingleGame]:
    config = GameConfig(**kwargs)
    layout = ObservationLayout.for_config(config, belief)
    compiled = SingleGame(config, layout, score_doom)
    warming = object.__new__(WarmingGame)
    warming.__init__(config, layout, score_doom)
    return compiled, warming


def _same(a: SingleGame, b: SingleGame, players: int) -> None:
    assert np.array_equal(a.mask, b.mask)
    assert np.array_equal(a.status, b.status)
    for p in range(players):
        assert np.array_equal(a.observe(p), b.observe(p))
    assert a.state() == b.state()
    sa, sb = a.stream(), b.stream()
    assert (int(sa.key[0]), sa.counter) == (int(sb.key[0]), sb.counter)


def _play_both(a: SingleGame, b: SingleGame, steps: int) -> None:
    """Up to ``steps`` of the same last legal action in both games, checked after each."""
    for _ in range(steps):
        if a.status[single.OVER]:
            return
        action = int(np.flatnonzero(a.mask)[-1])
        assert a.step(action) == b.step(action)
        _same(a, b, a.config.num_players)


@pytest.fixture
def never_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    """The background compile never finishes (and none is started)."""
    monkeypatch.setattr(background, "start_background", lambda cache_dir: None)
    monkeypatch.setattr(background, "background_finished", lambda cache_dir: False)


@pytest.mark.parametrize("kwargs", SWITCHES)
@pytest.mark.parametrize(("score_doom", "belief"), [(False, False), (True, True)])
def test_a_warming_game_plays_the_compiled_game_of_each_seed(
    kwargs: dict, score_doom: bool, belief: bool, never_ready: None
) -> None:
    compiled, warming = _pair(kwargs, score_doom, belief)
    assert warming.compiled is False and compiled.compiled is True
    rng = np.random.default_rng(7)
    players = compiled.config.num_players
    steps = 0
    for seed in range(12):
        compiled.reset(seed)
        warming.reset(seed)
        _same(compiled, warming, players)
        while not compiled.status[single.OVER]:
            action = int(rng.choice(np.flatnonzero(compiled.mask)))
            assert compiled.step(action) == warming.step(action)
            _same(compiled, warming, players)
            steps += 1
    assert type(warming) is WarmingGame  # it never switched: the compile was not ready
    assert steps > 100  # games long enough to reach powers and later turns


def test_a_warming_game_becomes_compiled_at_the_next_reset_once_ready(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(background, "start_background", lambda cache_dir: None)
    finished = [False]
    monkeypatch.setattr(background, "background_finished", lambda cache_dir: finished[0])
    compiled, warming = _pair(SWITCHES[0], False, False)
    compiled.reset(5)
    warming.reset(5)
    _play_both(compiled, warming, 3)
    finished[0] = True  # ready now: the game in play stays on the reference engine
    assert type(warming) is WarmingGame
    compiled.reset(6)
    warming.reset(6)
    assert type(warming) is SingleGame and warming.compiled
    _play_both(compiled, warming, 30)


def test_a_pickle_crosses_between_warming_and_compiled(never_ready: None) -> None:
    compiled, warming = _pair(SWITCHES[1], False, False)
    compiled.reset(3)
    warming.reset(3)
    _play_both(compiled, warming, 6)
    # this process has the compiled rules: the warming game's pickle loads compiled
    loaded = pickle.loads(pickle.dumps(warming))
    assert type(loaded) is SingleGame
    _same(compiled, loaded, 4)
    _play_both(compiled, loaded, 20)


def test_load_cached_never_compiles() -> None:
    @numba.njit(cache=False)
    def never_called(x):
        return x + 1

    assert not jit.load_cached(never_called, (numba.types.int64,))
    assert never_called.signatures == []
    assert single.compiled_ready()  # the suite's own games compiled or loaded them


def test_a_compile_is_announced_once_per_process(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(jit, "_noticed", False)

    def first(x):
        return x + 1

    def second(x):
        return x * 2

    for function in (first, second):
        function.__module__ = "shipwreck_env.vector.probe"
    with caplog.at_level(logging.WARNING, logger="shipwreck_env"):
        assert not jit.load_cached(numba.njit(first), (numba.types.int64,))
        assert caplog.messages == []  # looking in the cache is no compile
        assert numba.njit(first)(1) == 2
        assert numba.njit(second)(2) == 4
    assert caplog.messages == [jit.COMPILE_NOTICE]


def test_the_warm_command_runs_and_leaves_the_one_game_entry_points_ready() -> None:
    """With this suite's cache (warm), ``shipwreck-arcana warm --only engine`` loads and
    plays every entry point in seconds."""
    from shipwreck_apps.cli import main

    assert main(["warm", "--only", "engine"]) == 0
    assert single.compiled_ready()
    from shipwreck_env.vector.game import batch_ready

    assert batch_ready()  # and a first VectorGame's kernels


@pytest.mark.slow
def test_warm_on_an_empty_cache_leaves_what_a_first_env_needs(tmp_path) -> None:
    """After ``shipwreck-arcana warm --only engine`` on an empty cache, a new process's
    first ``env()`` plays on the compiled rules at once and prints nothing."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "SHIPWRECK_ARCANA_COMPILE": "background"}
    python = [sys.executable, "-c"]
    warmed = subprocess.run(
        [*python, "from shipwreck_apps.cli import main; main(['warm', '--only', 'engine'])"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "engine ready" in warmed.stdout
    first = "import shipwreck_env; e = shipwreck_env.env(); e.reset(seed=1); print(e.unwrapped._game.compiled)"
    done = subprocess.run([*python, first], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True"] and done.stderr == ""
