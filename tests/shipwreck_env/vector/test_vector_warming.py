"""A first ``VectorGame`` on a machine without the compiled kernels plays at once: while a
background process compiles them, :class:`~shipwreck_env.vector.game.WarmingVectorGame`
plays the same games on the reference engine, then becomes a compiled ``VectorGame``.

* A warming batch and a compiled batch of the same seed and actions agree after every
  step on masks, observations (any observer), deciders, roles, rewards, ends,
  ``final_info``, states and streams, over rule switches, both rewards, the belief
  block, ``autoreset=False``, ``restart`` and ``from_states``; an illegal action gets the
  same error and changes nothing.
* It becomes compiled at the first step after the kernels are ready (inside games) and
  plays on identically; reading ``arrays`` switches it at once.
* :func:`~shipwreck_env.vector.game.batch_signatures` are the kernels a batch really
  compiles (else ``batch_ready`` would never be true and a warming batch never switch).

Authority: issue 50, part 1 (the batched engine's first step).
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

from shipwreck_env.vector import background, game
from shipwreck_env.vector.game import VectorGame, WarmingVectorGame, batch_ready, batch_signatures

SWITCHES = [
    dict(),
    dict(num_players=4, card_sets="all", difficulty="doomed"),
    dict(num_players=2, challenge_mode=True, card_sets="all", max_turns=8),
    dict(num_players=5, group_decision="vote", reveal=False, difficulty="easy"),
    dict(num_players=3, max_turns=2),  # games cut short: truncated ends
]


@pytest.fixture
def finished(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """No background compile starts; it is finished once ``finished[0]`` is set."""
    flag = [False]
    started: list[str] = []
    monkeypatch.setattr(
        background, "start_background", lambda d, part="single": started.append(part)
    )
    monkeypatch.setattr(background, "background_finished", lambda d, part="single": flag[0])
    flag.append(started)  # type: ignore[arg-type]
    return flag


def _pair(num_games: int, seed: int, **kwargs: object) -> tuple[VectorGame, VectorGame]:
    compiled = VectorGame(num_games, seed, **kwargs)
    warming = object.__new__(WarmingVectorGame)
    warming.__init__(num_games, seed, **kwargs)
    return compiled, warming


def _same(a: VectorGame, b: VectorGame) -> None:
    assert np.array_equal(a.legal_mask(), b.legal_mask())
    assert np.array_equal(a.observe(), b.observe())
    assert np.array_equal(a.decider, b.decider)
    for x, y in zip(a.tallies(), b.tallies(), strict=True):
        assert np.array_equal(x, y) and x.dtype == y.dtype
    for x, y in zip(a.roles(), b.roles(), strict=True):
        assert np.array_equal(x, y)
    assert a.to_states() == b.to_states()
    for g in (0, a.num_games - 1):
        sa, sb = a.stream(g), b.stream(g)
        assert (int(sa.key[0]), sa.counter) == (int(sb.key[0]), sb.counter)


def _steps(a: VectorGame, b: VectorGame, steps: int, rng: np.random.Generator) -> int:
    """``steps`` of the same random legal actions in both batches, checked after each;
    how many games ended."""
    ends = 0
    players = a.config.num_players
    for _ in range(steps):
        actions = a.random_legal(a.legal_mask(), rng)
        for x, y in zip(a.step(actions), b.step(actions), strict=True):
            assert np.array_equal(x, y)
        assert a.final_info.keys() == b.final_info.keys()
        for key in a.final_info:
            assert np.array_equal(a.final_info[key], b.final_info[key])
        ends += int(a.final_info["_final"].sum())
        games = np.arange(a.num_games)
        observer = rng.integers(players, size=a.num_games)
        assert np.array_equal(a.observe(games, observer), b.observe(games, observer))
        _same(a, b)
    return ends


@pytest.mark.parametrize("kwargs", SWITCHES)
@pytest.mark.parametrize(
    ("reward", "belief", "autoreset"), [("win_loss", False, True), ("score_doom", True, False)]
)
def test_a_warming_batch_plays_the_compiled_batch_of_each_seed(
    kwargs: dict, reward: str, belief: bool, autoreset: bool, finished: list
) -> None:
    extra = dict(reward=reward, belief=belief, autoreset=autoreset)
    compiled, warming = _pair(12, 11, **kwargs, **extra)
    assert warming.compiled is False and compiled.compiled is True
    _same(compiled, warming)
    rng = np.random.default_rng(3)
    ends = _steps(compiled, warming, 120, rng)
    compiled.restart(np.array([0, 5]))
    warming.restart(np.array([0, 5]))
    _same(compiled, warming)
    compiled.reset()  # no seed: the streams go on
    warming.reset()
    _same(compiled, warming)
    ends += _steps(compiled, warming, 40, rng)
    assert ends > 0  # games ended inside the comparison
    assert type(warming) is WarmingVectorGame  # never switched: the compile was not ready
    assert compiled.memory_per_game() == warming.memory_per_game()


def test_a_warming_batch_refuses_what_the_compiled_one_refuses(finished: list) -> None:
    compiled, warming = _pair(4, 2)
    before = warming.to_states()
    bad = compiled.random_legal(compiled.legal_mask(), np.random.default_rng(0))
    bad[2] = int(np.flatnonzero(~compiled.legal_mask()[2])[0])
    messages = []
    for batch in (compiled, warming):
        with pytest.raises(ValueError) as error:
            batch.step(bad)
        messages.append(str(error.value))
    assert messages[0] == messages[1] and "game 2" in messages[0]
    assert warming.to_states() == before
    with pytest.raises(ValueError, match="not action numbers"):
        warming.step(np.full(4, 999))


def test_from_states_warming_and_compiled_agree(finished: list) -> None:
    source = VectorGame(6, 4, card_sets="all")
    rng = np.random.default_rng(1)
    for _ in range(25):
        source.step(source.random_legal(source.legal_mask(), rng))
    states = source.to_states()
    compiled = VectorGame.from_states(states, seed=9, reward="score_doom")
    warming = object.__new__(WarmingVectorGame)
    warming.config = states[0].config
    warming._setup_common(6, "score_doom", False, True)
    warming._hold(None, states, game.chance.game_keys(9, 6))  # type: ignore[arg-type]
    _same(compiled, warming)
    _steps(compiled, warming, 30, rng)


def test_a_warming_batch_becomes_compiled_at_the_next_step_once_ready(finished: list) -> None:
    compiled, warming = _pair(10, 5, card_sets="all")
    rng = np.random.default_rng(8)
    _steps(compiled, warming, 7, rng)
    finished[0] = True  # ready now: the next step runs on the kernels, inside the games
    assert type(warming) is WarmingVectorGame
    _steps(compiled, warming, 1, rng)
    assert type(warming) is VectorGame and warming.compiled
    _steps(compiled, warming, 60, rng)


def test_reading_the_arrays_of_a_warming_batch_switches_it(finished: list) -> None:
    compiled, warming = _pair(5, 6)
    _steps(compiled, warming, 4, np.random.default_rng(2))
    finished[0] = True
    arrays = warming.arrays
    assert type(warming) is VectorGame
    assert np.array_equal(arrays.key, compiled.arrays.key)
    assert np.array_equal(arrays.draws, compiled.arrays.draws)
    _steps(compiled, warming, 20, np.random.default_rng(2))


def test_reading_the_arrays_says_so_on_one_line_when_it_must_wait(
    finished: list, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A read of ``arrays`` before the compile is done logs one line, waits, then
    switches; a read once it is done logs nothing."""
    compiled, warming = _pair(3, 4)
    looks = []

    def finished_on_third_look(d: str, part: str = "single") -> bool:
        looks.append(part)
        return len(looks) >= 3

    monkeypatch.setattr(background, "background_finished", finished_on_third_look)
    monkeypatch.setattr(background, "LOOK_EVERY", 0.0)
    with caplog.at_level(logging.WARNING, logger="shipwreck_env"):
        arrays = warming.arrays
    assert [r.getMessage() for r in caplog.records] == [background.WAIT_NOTICE]
    assert type(warming) is VectorGame and len(looks) == 3
    assert np.array_equal(arrays.key, compiled.arrays.key)
    caplog.clear()
    _steps(compiled, warming, 5, np.random.default_rng(3))
    _, other = _pair(3, 4)  # the compile is done now: it never waits
    with caplog.at_level(logging.WARNING, logger="shipwreck_env"):
        other.arrays  # noqa: B018  (the read is the test)
    assert not caplog.records


def test_a_batch_built_as_the_compile_finishes_is_a_fresh_compiled_batch(
    finished: list,
) -> None:
    """The kernels became ready between choosing the warming class and dealing the first
    games: the batch switches before any game exists and plays the compiled batch's
    games."""
    finished[0] = True
    compiled, warming = _pair(4, 12, card_sets="all")
    assert type(warming) is VectorGame
    _same(compiled, warming)
    _steps(compiled, warming, 30, np.random.default_rng(5))


def test_a_new_batch_is_warming_only_while_the_kernels_are_missing(
    finished: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert type(VectorGame(2, 0)) is VectorGame  # this suite compiles in the foreground
    monkeypatch.setenv("SHIPWRECK_ARCANA_COMPILE", "background")
    assert type(VectorGame(2, 0)) is VectorGame  # background, but the kernels are ready
    monkeypatch.setattr(game, "_ready", False)
    monkeypatch.setattr(game, "load_cached", lambda f, argtypes: False)
    batch = VectorGame(2, 0)
    assert type(batch) is WarmingVectorGame and finished[1] == ["batch"]


def test_the_batch_signatures_are_the_kernels_a_batch_compiles() -> None:
    batch = VectorGame(3, 0, card_sets="all")
    rng = np.random.default_rng(0)
    for _ in range(5):
        batch.observe()
        batch.observe(np.arange(2), np.zeros(2, np.int64))
        batch.step(batch.random_legal(batch.legal_mask(), rng))
    batch.restart(np.arange(1))
    for function, argtypes in batch_signatures():
        assert tuple(argtypes) in function.overloads, function.py_func.__name__
    assert batch_ready()


def test_the_self_play_vector_env_plays_its_games_on_a_warming_batch(
    finished: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ShipwreckVectorEnv`` (the self-play id's vector entry point) reads only the batch's
    API, so on a machine without the kernels it steps at once, the same trajectory."""
    from shipwreck_env.envs.gym_vector import ShipwreckVectorEnv

    compiled = ShipwreckVectorEnv(6, seed=2, card_sets="all")
    monkeypatch.setenv("SHIPWRECK_ARCANA_COMPILE", "background")
    monkeypatch.setattr(game, "_ready", False)
    monkeypatch.setattr(game, "load_cached", lambda f, argtypes: False)
    warming = ShipwreckVectorEnv(6, seed=2, card_sets="all")
    assert type(warming.game) is WarmingVectorGame
    pairs = [compiled.reset(seed=2), warming.reset(seed=2)]
    rng = np.random.default_rng(4)
    ends = 0
    for _ in range(150):
        (obs_a, info_a), (obs_b, info_b) = [(p[0], p[-1]) for p in pairs]
        assert np.array_equal(obs_a, obs_b)
        assert info_a.keys() == info_b.keys()
        for key in info_a:
            if key != "final_info" and key != "final_obs":
                assert np.array_equal(info_a[key], info_b[key]), key
        if "final_info" in info_a:
            ends += 1
            for key, value in info_a["final_info"].items():
                assert np.array_equal(value, info_b["final_info"][key]), key
        actions = VectorGame.random_legal(info_a["action_mask"].astype(bool), rng)
        pairs = [compiled.step(actions), warming.step(actions)]
        for x, y in zip(pairs[0][1:4], pairs[1][1:4], strict=True):
            assert np.array_equal(x, y)
    assert ends > 0 and type(warming.game) is WarmingVectorGame


def test_the_background_compile_has_one_lock_per_part_and_refuses_others(capsys) -> None:
    from shipwreck_env.vector import warm

    paths = {background.lock_path("/cache", part) for part in background.PARTS}
    assert len(paths) == len(background.PARTS)
    with pytest.raises(ValueError, match="part 'engine' is not allowed; allowed"):
        background.lock_path("/cache", "engine")
    assert warm.main(["--part", "engine"]) == 2
    assert "part 'engine' is not allowed" in capsys.readouterr().err
