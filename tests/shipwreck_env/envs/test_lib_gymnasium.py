"""First contact with Gymnasium, the way its documentation says.

``gymnasium.utils.env_checker.check_env`` on each id, ``gymnasium.make_vec`` in every
vectorization mode (``"sync"`` and ``"async"``, which autoreset on the *next* step, and
``"vector_entry_point"``, the batched engine) driven by a CleanRL-style masked random
sampler that must never be handed an empty mask, ``RecordEpisodeStatistics`` (the
per-env wrapper and the vector one) and ``RecordVideo`` (needs ``rgb_array`` and
moviepy, installed from ``lab/tools/requirements-libs.txt``).

Versions tested: gymnasium 1.4, moviepy 2.2 (``.venv``). Docs page:
``docs/libraries/gymnasium.md``. Authority: issue 38 (problems 2 and 4, and the
``render_mode="rgb_array"`` item).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import RecordEpisodeStatistics, RecordVideo
from gymnasium.wrappers.vector import RecordEpisodeStatistics as VectorEpisodeStatistics

import shipwreck_env  # noqa: F401  (registers the ids)
from shipwreck_agents.registry import make_policy

IDS = ("ShipwreckArcana-v0", "ShipwreckArcana-Play-v0", "ShipwreckArcana-Predict-v0")
MODES = ("sync", "async", "vector_entry_point")
KWARGS = {"num_players": 3, "difficulty": "easy"}


def _kwargs(env_id: str) -> dict:
    """Each id's arguments; the role ids get a scripted partner (the batched one where
    the vector entry point has it)."""
    if env_id.endswith("Play-v0"):
        return {**KWARGS, "partner": make_policy("bayes")}
    if env_id.endswith("Predict-v0"):
        return {**KWARGS, "partner": make_policy("heuristic")}
    return dict(KWARGS)


def _masks(envs: gymnasium.vector.VectorEnv) -> np.ndarray:
    """The learner's legal actions in every sub-env, as a masked sampler asks for them:
    the batched env's own ``action_masks()``, else each sub-env's through ``call``."""
    if hasattr(envs, "action_masks"):
        return np.asarray(envs.action_masks())
    return np.stack(envs.call("action_masks"))


def _masked_random_run(envs, steps: int, seed: int) -> tuple[int, np.ndarray]:
    """CleanRL's loop with a uniformly random masked policy: ``steps`` vector steps;
    returns the number of ended games and a trace of the observations. Fails as soon
    as a sub-env hands out an empty mask or the info's mask disagrees with it."""
    rng = np.random.default_rng(seed)
    obs, infos = envs.reset(seed=seed)
    ended, trace = 0, [obs]
    for _ in range(steps):
        masks = _masks(envs)
        assert masks.shape == (envs.num_envs, 259) and masks.dtype == bool
        empty = np.flatnonzero(~masks.any(axis=1))
        assert empty.size == 0, f"sub-envs {empty.tolist()} handed an empty mask"
        if "action_mask" in infos:  # sync / async stack every sub-env's info
            np.testing.assert_array_equal(infos["action_mask"].astype(bool), masks)
        # the sampler draws only among the legal actions: an empty row has nothing
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        obs, _rewards, terminations, truncations, infos = envs.step(actions)
        ended += int((terminations | truncations).sum())
        trace.append(obs)
    return ended, np.stack(trace)


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes_without_a_warning(env_id: str) -> None:
    """Gymnasium's checker, every warning an error, with and without ``rgb_array``."""
    for render_mode in (None, "rgb_array"):
        env = gymnasium.make(env_id, render_mode=render_mode, **_kwargs(env_id)).unwrapped
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env)


def test_an_unsupported_render_mode_warns_as_gymnasium_does() -> None:
    """Gymnasium itself only warns on a mode outside ``metadata["render_modes"]``; the
    env should not raise there (SB3 falls back only on ``TypeError``)."""
    with pytest.warns(UserWarning, match="render_mode"):
        env = gymnasium.make(IDS[1], render_mode="rgb_array_list_of_nothing", **KWARGS)
    env.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_never_hands_a_masked_sampler_an_empty_mask(env_id: str, mode: str) -> None:
    """Issue 38, problem 2: ``sync`` and ``async`` autoreset on the next step, when the
    ended game's mask is asked for; it must allow the action the reset ignores."""
    envs = gymnasium.make_vec(env_id, num_envs=3, vectorization_mode=mode, **_kwargs(env_id))
    try:
        ended, _ = _masked_random_run(envs, steps=150, seed=0)
    finally:
        envs.close()
    assert ended >= 1  # the run crossed at least one autoreset


def _trace(env_id: str, mode: str, seed: int) -> np.ndarray:
    """The observations of 60 masked random steps of two games, seeded with ``seed``."""
    envs = gymnasium.make_vec(env_id, num_envs=2, vectorization_mode=mode, **_kwargs(env_id))
    try:
        return _masked_random_run(envs, steps=60, seed=seed)[1]
    finally:
        envs.close()


@pytest.mark.parametrize("mode", MODES)
def test_make_vec_is_reproducible_in_every_mode(mode: str) -> None:
    """Same seed and sampler, same observations, in each mode."""
    np.testing.assert_array_equal(_trace(IDS[1], mode, 4), _trace(IDS[1], mode, 4))


def test_sync_and_async_give_the_same_games() -> None:
    """The worker processes of ``async`` play the games ``sync`` plays."""
    np.testing.assert_array_equal(_trace(IDS[2], "sync", 2), _trace(IDS[2], "async", 2))


def test_record_episode_statistics_on_the_single_env() -> None:
    """The per-env wrapper (CleanRL's ``wrappers=[...]`` path) reports each episode."""
    env = RecordEpisodeStatistics(gymnasium.make(IDS[1], **_kwargs(IDS[1])))
    _obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    total, steps = 0.0, 0
    while True:
        action = rng.choice(np.flatnonzero(info["action_mask"]))
        _obs, reward, terminated, truncated, info = env.step(action)
        total, steps = total + reward, steps + 1
        if terminated or truncated:
            break
    assert info["episode"]["r"] == pytest.approx(total) and info["episode"]["l"] == steps
    assert {"score", "doom", "won"} <= info.keys()


@pytest.mark.parametrize("mode", MODES)
def test_vector_record_episode_statistics_in_every_mode(mode: str) -> None:
    """``gymnasium.wrappers.vector.RecordEpisodeStatistics`` over each mode: every
    ended game gives an episode return of +-1 (``win_loss``) and a positive length."""
    envs = VectorEpisodeStatistics(
        gymnasium.make_vec(IDS[1], num_envs=3, vectorization_mode=mode, **_kwargs(IDS[1]))
    )
    rng = np.random.default_rng(1)
    envs.reset(seed=1)
    returns: list[float] = []
    try:
        for _ in range(150):
            masks = _masks(envs.unwrapped)
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
            *_, infos = envs.step(actions)
            if "episode" in infos:
                done = infos["_episode"]
                returns += infos["episode"]["r"][done].tolist()
                assert (infos["episode"]["l"][done] > 0).all()
    finally:
        envs.close()
    assert returns and set(returns) <= {-1.0, 1.0}


def test_record_video_writes_an_episode(tmp_path: Path) -> None:
    """``RecordVideo`` over ``render_mode="rgb_array"`` writes the first episode as a
    video file (moviepy encodes it)."""
    pytest.importorskip("moviepy", reason="RecordVideo needs moviepy (requirements-libs.txt)")
    env = RecordVideo(
        gymnasium.make(IDS[1], render_mode="rgb_array", **_kwargs(IDS[1])),
        video_folder=str(tmp_path),
        episode_trigger=lambda episode: episode == 0,
        disable_logger=True,
    )
    _obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(400):
        _obs, _, terminated, truncated, info = env.step(
            rng.choice(np.flatnonzero(info["action_mask"]))
        )
        if terminated or truncated:
            break
    env.close()
    videos = sorted(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1_000


@pytest.mark.parametrize("env_id", IDS)
def test_the_info_mask_feeds_gymnasiums_own_masked_sample(env_id: str) -> None:
    """Gymnasium's documented masked sampling, ``action_space.sample(mask=...)``, wants
    an ``int8`` mask of 1/0; the info's mask is handed to it as it is (AgileRL computes
    ``1 - mask`` on it too, see tests/shipwreck_env/envs/test_lib_agilerl.py)."""
    env = gymnasium.make(env_id, **_kwargs(env_id))
    env.action_space.seed(0)
    _obs, info = env.reset(seed=0)
    for _ in range(50):
        action = env.action_space.sample(mask=info["action_mask"])
        assert env.unwrapped.action_masks()[action]
        _obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            _obs, info = env.reset()
    env.close()
