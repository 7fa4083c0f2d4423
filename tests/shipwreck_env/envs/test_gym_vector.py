"""The batched self-play vector env (:mod:`shipwreck_env.envs.gym_vector`).

``gymnasium.make_vec("ShipwreckArcana-v0", vectorization_mode="vector_entry_point")``
gives it; spaces as the single env's; each sub-environment follows a ``VectorGame`` of
the same seed step by step (observations, masks, rewards, ends); the SAME_STEP
``final_obs`` / ``final_info`` of finished games agree with the reference engine and
have the keys and masks of Gymnasium's own ``SyncVectorEnv``; seeding; bad actions and
arguments; the Vector API contract checked by hand (Gymnasium has no checker for vector
envs); and the module docstring's example runs.

Authority: the module docstring of ``shipwreck_env/envs/gym_vector.py``.
"""

from __future__ import annotations

import re

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.vector.utils import batch_space

import shipwreck_env  # noqa: F401 -- registers the ids
from shipwreck_env.envs.gym_env import ShipwreckGymEnv
from shipwreck_env.envs.gym_roles import ShipwreckRoleVectorEnv
from shipwreck_env.envs.gym_vector import ShipwreckVectorEnv
from shipwreck_env.rules import engine
from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.observation import encode
from shipwreck_env.vector import VectorGame, gym_vector

N = 8
CONFIGS = [
    dict(max_turns=3),
    dict(num_players=2, challenge_mode=True, reward="score_doom", max_turns=3),
    dict(num_players=5, group_decision="vote", belief=True, difficulty="doomed", max_turns=4),
    dict(num_players=4, reveal=False, difficulty="hard"),
]


def _id(kwargs: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in kwargs.items())


def make(num_envs: int = N, **kwargs) -> ShipwreckVectorEnv:
    env = gymnasium.make_vec(
        "ShipwreckArcana-v0",
        num_envs=num_envs,
        vectorization_mode="vector_entry_point",
        **kwargs,
    )
    assert isinstance(env, ShipwreckVectorEnv)
    return env


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``mask``."""
    assert mask.any(axis=1).all(), "every game has a legal action"
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def check_infos_masks(infos: dict, n: int) -> None:
    """Gymnasium's vector info convention: every key ``k`` has a bool ``[n]`` mask
    ``_k``, recursively, and arrays of length ``n``."""
    for key, value in infos.items():
        if key.startswith("_"):
            assert key[1:] in infos
            assert isinstance(value, np.ndarray) and value.dtype == bool and value.shape == (n,)
            continue
        assert f"_{key}" in infos
        if isinstance(value, dict):
            check_infos_masks(value, n)
        else:
            assert isinstance(value, np.ndarray) and value.shape[0] == n


# --- making it -------------------------------------------------------------------------


def test_make_vec_returns_the_batched_env():
    env = make(num_players=4, max_turns=10)
    assert env.num_envs == N and env.config.num_players == 4 and env.config.max_turns == 10
    assert env.role == "self" and env.spec is not None and env.spec.id == "ShipwreckArcana-v0"
    assert repr(env) == f"ShipwreckVectorEnv(ShipwreckArcana-v0, num_envs={N})"
    # The vector entry point is the default mode of the self-play id ...
    default = gymnasium.make_vec("ShipwreckArcana-v0", num_envs=3)
    assert isinstance(default, ShipwreckVectorEnv) and default.num_envs == 3
    # ... "sync" still vectorizes the single env; the other roles have their own batched
    # env (tests/shipwreck_env/envs/test_gym_vector_roles.py).
    sync = gymnasium.make_vec("ShipwreckArcana-v0", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, SyncVectorEnv) and isinstance(sync.envs[0].unwrapped, ShipwreckGymEnv)
    play = gymnasium.make_vec("ShipwreckArcana-Play-v0", num_envs=2)
    assert isinstance(play, ShipwreckRoleVectorEnv)
    for e in (env, default, sync, play):
        e.close()


@pytest.mark.parametrize("kwargs", CONFIGS, ids=_id)
def test_spaces_match_the_single_env(kwargs):
    env = make(**kwargs)
    single = ShipwreckGymEnv(role="self", **kwargs)
    assert env.single_observation_space == single.observation_space
    assert env.single_observation_space.dtype == np.float32
    assert env.single_action_space == single.action_space == gymnasium.spaces.Discrete(259)
    assert env.observation_space == batch_space(env.single_observation_space, N)
    assert env.observation_space.shape == (N, single.observation_space.shape[0])
    assert env.action_space == gymnasium.spaces.MultiDiscrete([NUM_ACTIONS] * N)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP


# --- stepping --------------------------------------------------------------------------


def assert_step_infos(env, infos: dict) -> None:
    """The per-game keys of every reset and step (the single env's info, stacked as
    SyncVectorEnv stacks it): score, doom, won of the games in play and the mask."""
    a = env.game.arrays
    np.testing.assert_array_equal(infos["score"], a.score)
    np.testing.assert_array_equal(infos["doom"], a.doom)
    np.testing.assert_array_equal(infos["won"], a.won)
    assert infos["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(infos["action_mask"], env.action_masks())
    for key in ("score", "doom", "won", "action_mask"):
        assert infos[f"_{key}"].all() and infos[f"_{key}"].shape == (env.num_envs,)


def test_reset_and_step_shapes_and_dtypes():
    env = make()
    obs, infos = env.reset(seed=0)
    assert_step_infos(env, infos)
    assert obs.dtype == np.float32 and obs.shape == env.observation_space.shape
    assert env.observation_space.contains(obs)
    mask = env.action_masks()
    assert mask.dtype == bool and mask.shape == (N, NUM_ACTIONS)
    out = env.step(random_actions(mask, np.random.default_rng(0)))
    assert isinstance(out, tuple) and len(out) == 5
    obs, rewards, terminations, truncations, infos = out
    assert obs.dtype == np.float32 and obs.shape == (N, env.single_observation_space.shape[0])
    assert rewards.dtype == np.float32 and rewards.shape == (N,)
    assert terminations.dtype == bool and terminations.shape == (N,)
    assert truncations.dtype == bool and truncations.shape == (N,)
    assert isinstance(infos, dict)
    assert env.decider.shape == (N,) and (env.decider >= 0).all()


@pytest.mark.parametrize("kwargs", CONFIGS, ids=_id)
def test_follows_a_vector_game_of_the_same_seed(kwargs):
    """300 random legal steps: every output equals a ``VectorGame`` (autoreset) of the
    same seed given the same actions; rewards and ends are plausible."""
    env = make(**kwargs)
    game = VectorGame(N, seed=11, **kwargs)
    reward_kind = kwargs.get("reward", "win_loss")
    obs, _ = env.reset(seed=11)
    rng = np.random.default_rng(1)
    ended_total = terminated_total = truncated_total = 0
    for _ in range(300):
        np.testing.assert_array_equal(obs, game.observe())
        assert env.observation_space.contains(obs)
        mask = env.action_masks()
        np.testing.assert_array_equal(mask, game.legal_mask())
        np.testing.assert_array_equal(mask, env.game.legal_mask())
        np.testing.assert_array_equal(env.decider, game.decider)
        actions = random_actions(mask, rng)
        obs, rewards, terms, truncs, infos = env.step(actions)
        g_rewards, g_terms, g_truncs = game.step(actions)
        np.testing.assert_array_equal(rewards, g_rewards)
        np.testing.assert_array_equal(terms, g_terms)
        np.testing.assert_array_equal(truncs, g_truncs)
        assert not (terms & truncs).any()
        ended = terms | truncs
        if reward_kind == "win_loss":
            assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
            assert (rewards[~terms] == 0).all()
        else:
            assert (rewards == np.round(rewards)).all() and (np.abs(rewards) <= 7).all()
        assert_step_infos(env, infos)
        if not ended.any():
            assert "final_info" not in infos
            continue
        final = infos["final_info"]
        np.testing.assert_array_equal(infos["_final_info"], ended)
        np.testing.assert_array_equal(final["_score"], ended)
        for key in ("score", "doom", "won"):
            np.testing.assert_array_equal(final[key], game.final_info[key])
        assert (final["won"] == (terms & (final["score"] >= 7))).all()
        assert ((final["doom"] >= 7) | (final["score"] >= 7))[terms].all()
        if reward_kind == "win_loss":
            np.testing.assert_array_equal(rewards[terms], np.where(final["won"], 1, -1)[terms])
        ended_total += int(ended.sum())
        terminated_total += int(terms.sum())
        truncated_total += int(truncs.sum())
    assert ended_total > 0 and terminated_total > 0
    if kwargs.get("max_turns", 200) <= 4:
        assert truncated_total > 0


@pytest.mark.parametrize("kwargs", CONFIGS, ids=_id)
def test_final_obs_and_info_agree_with_the_reference_engine(kwargs):
    """Each finished game's ``final_obs`` is the reference engine's observation of the
    end state by the player who made the last decision (as the single env returns it),
    and its ``final_info`` the reference end info; observations of the new games are the
    reference observations of their deciders."""
    env = make(**kwargs)
    env.reset(seed=5)
    layout = env.game.layout
    rng = np.random.default_rng(2)
    checked = 0
    for step in range(200):
        states = env.game.to_states()
        streams = [env.game.stream(g) for g in range(N)]
        decider = env.decider
        actions = random_actions(env.action_masks(), rng)
        obs, _, terms, truncs, infos = env.step(actions)
        ended = terms | truncs
        if step % 20 == 0:
            for g, state in enumerate(env.game.to_states()):
                np.testing.assert_array_equal(obs[g], encode(state, env.decider[g], layout))
        for g in range(N):
            if not ended[g]:
                assert "final_obs" not in infos or infos["final_obs"][g] is None
                continue
            ref = engine.step(states[g], int(actions[g]), streams[g])
            assert ref.over and ref.truncated == truncs[g]
            final_obs = infos["final_obs"][g]
            assert final_obs.dtype == np.float32 and env.single_observation_space.contains(
                final_obs
            )
            np.testing.assert_array_equal(final_obs, encode(ref, int(decider[g]), layout))
            assert infos["final_info"]["score"][g] == ref.score
            assert infos["final_info"]["doom"][g] == ref.doom
            assert infos["final_info"]["won"][g] == ref.won
            checked += 1
    assert checked >= 10


def test_same_seed_same_trajectory_and_different_seeds_differ():
    def trajectory(env: ShipwreckVectorEnv, seed: int | None) -> list[np.ndarray]:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(3)
        out = [obs]
        for _ in range(60):
            obs, rewards, terms, truncs, _ = env.step(random_actions(env.action_masks(), rng))
            out += [obs, rewards, terms, truncs]
        return out

    a = trajectory(make(max_turns=3), 7)
    b = trajectory(make(max_turns=3), 7)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    # The constructor's seed is the first unseeded reset's.
    c = trajectory(make(max_turns=3, seed=7), None)
    for x, y in zip(a, c, strict=True):
        np.testing.assert_array_equal(x, y)
    other = trajectory(make(max_turns=3), 8)
    assert not np.array_equal(a[0], other[0])
    # An unseeded reset deals new games from the streams.
    env = make(max_turns=3)
    first, _ = env.reset(seed=7)
    again, _ = env.reset()
    assert not np.array_equal(first, again)


def test_action_masks_is_a_copy():
    env = make()
    env.reset(seed=0)
    mask = env.action_masks()
    mask[:] = False
    assert env.action_masks().any(axis=1).all()
    np.testing.assert_array_equal(env.action_masks(), env.game.legal_mask())


# --- errors ----------------------------------------------------------------------------


def twin_envs_and_actions(make_env) -> tuple:
    """Two envs made by ``make_env`` and reset with seed 4, legal actions for them, and
    the same actions with game 3's made illegal."""
    env, twin = make_env(), make_env()
    env.reset(seed=4)
    twin.reset(seed=4)
    mask = env.action_masks()
    legal = random_actions(mask, np.random.default_rng(0))
    illegal = legal.copy()
    illegal[3] = int(np.flatnonzero(~mask[3])[0])
    return env, twin, legal, illegal


def test_bad_actions_raise_and_change_nothing():
    env, twin, legal, illegal = twin_envs_and_actions(make)
    before = env.game.to_states()
    for bad in (
        legal[:-1],
        np.concatenate([legal, legal[:1]]),
        legal[None, :],
        legal.astype(np.float64),
        np.where(np.arange(N) == 2, NUM_ACTIONS, legal),
        np.where(np.arange(N) == 2, -1, legal),
        illegal,
    ):
        with pytest.raises(ValueError):
            env.step(bad)
    assert env.game.to_states() == before
    for x, y in zip(env.step(legal)[:4], twin.step(legal)[:4], strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(card_sets="gencon"), "not a playable selection"),
        (dict(role="play"), r"allowed: \['self'\] \(the 'play' / 'predict' roles are Ship"),
        (dict(role="predict"), r"allowed: \['self'\]"),
        (dict(render_mode="ansi"), "render_mode"),
        (dict(reward="points"), "reward"),
        (dict(belief=1), "belief"),
        (dict(partner=None), "unknown"),
        (dict(num_players=7), "num_players"),
    ],
    ids=lambda v: v if isinstance(v, str) else _id(v),
)
def test_bad_arguments_raise_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make(**kwargs)


def test_bad_num_envs_reset_and_order():
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="num_games"):
            ShipwreckVectorEnv(bad)
    env = ShipwreckVectorEnv(2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, np.int64))
    for seed in (-1, 1.5, [1, 2], True):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"reset_mask": np.ones(2, bool)})
    env.reset(seed=np.int64(3), options={})


# --- the Vector API contract -------------------------------------------------------------


def test_vector_api_contract_by_hand():
    """What ``gymnasium.utils.env_checker`` would check for a single env, for the vector
    env: reset/step signatures and types, observations in the space, info masks, seeding
    of ``np_random``, close."""
    env = make(max_turns=3)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.unwrapped is env and env.render_mode is None
    obs, infos = env.reset(seed=0, options=None)
    assert env.observation_space.contains(obs) and "final_info" not in infos
    seed_rng = env.np_random.integers(1 << 30)
    env.reset(seed=0)
    assert env.np_random.integers(1 << 30) == seed_rng
    # A sampled action has the space's shape; it is rarely legal everywhere.
    sample = env.action_space.sample()
    assert sample.shape == (N,) and env.action_space.contains(sample)
    rng = np.random.default_rng(0)
    seen_final = False
    for _ in range(100):
        actions = random_actions(env.action_masks(), rng)
        assert env.action_space.contains(actions)
        obs, _, terms, truncs, infos = env.step(actions)
        assert env.observation_space.contains(obs)
        check_infos_masks(infos, N)
        assert_step_infos(env, infos)
        if "final_info" in infos:
            seen_final = True
            assert {"final_obs", "_final_obs", "final_info", "_final_info"} <= set(infos)
            assert infos["final_obs"].dtype == object
            for g in range(N):
                assert (infos["final_obs"][g] is not None) == bool(terms[g] | truncs[g])
    assert seen_final
    env.close()
    assert env.closed


def test_infos_have_the_keys_and_dtypes_of_gymnasiums_sync_vector_env():
    """The same ``final_obs`` / ``final_info`` structure as
    ``SyncVectorEnv(autoreset_mode=SAME_STEP)`` over the single self-play env when
    episodes end."""
    sync = gymnasium.make_vec(
        "ShipwreckArcana-v0",
        num_envs=4,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
        max_turns=3,
    )
    ours = make(4, max_turns=3)
    rng = np.random.default_rng(0)

    def final_infos(env, masks) -> dict:
        env.reset(seed=1)
        for _ in range(200):
            out = env.step(random_actions(masks(), rng))
            if "final_info" in out[4]:
                return out[4]
        raise AssertionError("no episode ended")

    theirs = final_infos(sync, lambda: np.stack(sync.call("action_masks")))
    mine = final_infos(ours, ours.action_masks)
    # the same keys, the single env's per-step ones (score, doom, won, action_mask)
    # included, with the same dtypes and shapes
    assert set(mine) == set(theirs)
    for key, value in mine.items():
        if isinstance(value, np.ndarray):
            assert (theirs[key].dtype, theirs[key].shape) == (value.dtype, value.shape), key
    assert set(mine["final_info"]) == set(theirs["final_info"])
    for key, value in mine["final_info"].items():
        assert theirs["final_info"][key].dtype == value.dtype, key
        assert theirs["final_info"][key].shape == value.shape, key
    for infos in (mine, theirs):  # an ended game's last mask allows only action 0
        ended = infos["_final_info"]
        masks = infos["final_info"]["action_mask"][ended]
        assert masks[:, 0].all() and masks.sum() == ended.sum()
    assert mine["final_obs"].dtype == theirs["final_obs"].dtype == object
    sample = next(x for x in theirs["final_obs"] if x is not None)
    mine_sample = next(x for x in mine["final_obs"] if x is not None)
    assert mine_sample.dtype == sample.dtype and mine_sample.shape == sample.shape
    sync.close()


def test_gymnasium_vector_wrappers_work_on_it():
    """``RecordEpisodeStatistics`` reads the SAME_STEP metadata: episode returns and
    lengths add up to the steps and rewards seen."""
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(make(max_turns=3))
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    returns = np.zeros(N)
    lengths = np.zeros(N, int)
    episodes = 0
    for _ in range(150):
        mask = env.unwrapped.action_masks()  # vector wrappers do not forward attributes
        _, rewards, terms, truncs, infos = env.step(random_actions(mask, rng))
        returns += rewards
        lengths += 1
        ended = terms | truncs
        if ended.any():
            np.testing.assert_array_equal(infos["_episode"], ended)
            np.testing.assert_allclose(infos["episode"]["r"][ended], returns[ended])
            np.testing.assert_array_equal(infos["episode"]["l"][ended], lengths[ended])
            returns[ended] = 0
            lengths[ended] = 0
            episodes += int(ended.sum())
    assert episodes > 0
    env.close()


def test_docstring_example_runs():
    """The module docstring's example (the batched AEC loop) runs as written."""
    blocks = re.findall(r"```python\n(.*?)```", gym_vector.__doc__, flags=re.DOTALL)
    assert len(blocks) == 1
    namespace: dict = {}
    exec(compile(blocks[0], "gym_vector docstring", "exec"), namespace)
    assert namespace["envs"].closed
    assert namespace["won"] + namespace["lost"] > 0
