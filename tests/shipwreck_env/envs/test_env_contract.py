"""The contract both environments keep alike (issue 13): seeding as in PettingZoo and
Gymnasium, pickling, ``reset(options=...)``, one way of handling illegal actions,
``max_turns`` reported as truncation (never termination), and ``render`` for one viewer.

Authority: the module docstrings of ``shipwreck_env/envs/aec_env.py``,
``shipwreck_env/envs/gym_env.py`` and ``shipwreck_env/envs/episodes.py``.
"""

from __future__ import annotations

import pickle

import gymnasium
import numpy as np
import pytest

import shipwreck_env
from shipwreck_agents.registry import make_policy
from shipwreck_env.envs.gym_env import ENDED_ACTION
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import IllegalActionError, new_game
from shipwreck_env.vector.chance import StreamGenerator, game_key

GYM_IDS = ["ShipwreckArcana-v0", "ShipwreckArcana-Play-v0", "ShipwreckArcana-Predict-v0"]


def aec_game(e, rng: np.random.Generator, max_steps: int = 10_000) -> list:
    """Play the AEC env's current game with random legal actions; the observations."""
    out = []
    for _agent in e.agent_iter(max_steps):
        obs, _, term, trunc, _ = e.last()
        out.append(obs["observation"].tolist())
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(len(legal))]))
    return out


def gym_game(env, rng: np.random.Generator) -> list:
    """Play the Gymnasium env's current episode with random legal actions."""
    out = []
    done = False
    while not done:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        obs, reward, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
        info = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items()}
        out.append((obs.tolist(), reward, term, trunc, info))
        done = term or trunc
    return out


# --- seeding ---------------------------------------------------------------------------------


def test_aec_reset_without_seed_continues_the_seeded_generator() -> None:
    """``reset(seed=1); reset()`` gives the same second game, whatever was played in the
    first (PettingZoo and Gymnasium: the seed seeds the env, not only one game)."""
    second_games = []
    for choices in (0, 1):
        e = shipwreck_env.env(num_players=3)
        e.reset(seed=1)
        aec_game(e, np.random.default_rng(choices))
        e.reset()
        second_games.append(e.unwrapped.game_state.copy())
    assert second_games[0] == second_games[1]
    e = shipwreck_env.env(num_players=3)
    e.reset(seed=1)
    assert e.unwrapped.game_state != second_games[0]


def game_generator(version: int, seed: int) -> np.random.Generator:
    """The generator the engine plays the game of ``seed`` with, in AEC env ``version``:
    ``default_rng(seed)`` in v0, the batched engine's stream of game 0 in v1."""
    if version == 0:
        return np.random.default_rng(seed)
    return StreamGenerator(game_key(seed))


@pytest.mark.parametrize("version", [0, 1])
def test_aec_unseeded_resets_play_the_seeds_drawn_from_the_last_seed(version: int) -> None:
    """After ``reset(seed=n)``, each ``reset()`` plays the game of the next draw of
    ``default_rng(n)``; a new ``reset(seed=m)`` starts the draws again from ``m``."""
    config = GameConfig(num_players=3)
    e = shipwreck_env.env(num_players=3, version=version)
    for seed in (3, 8):
        e.reset(seed=seed)
        assert e.unwrapped.game_state == new_game(config, game_generator(version, seed))
        draws = np.random.default_rng(seed)
        for _ in range(3):
            e.reset()
            game_seed = int(draws.integers(2**63))
            assert e.unwrapped.game_state == new_game(config, game_generator(version, game_seed))


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_both_envs_play_the_same_games_for_a_seed_and_after_it(env_id: str) -> None:
    """Seed ``n`` is the engine game ``new_game(config, default_rng(n))`` in the
    Gymnasium env and AEC v0, and an unseeded reset after it gives the same next game in
    both."""
    config = GameConfig(num_players=3)
    aec = shipwreck_env.env(num_players=3, version=0)
    gym = gymnasium.make(env_id, num_players=3)
    aec.reset(seed=5)
    gym.reset(seed=5)
    fresh = new_game(config, np.random.default_rng(5))
    assert aec.unwrapped.game_state.deck == fresh.deck == gym.unwrapped.state.deck
    assert aec.unwrapped.game_state.hands == fresh.hands
    aec.reset()
    gym.reset()
    assert aec.unwrapped.game_state.deck == gym.unwrapped.state.deck


# --- pickling --------------------------------------------------------------------------------


@pytest.mark.parametrize("wrapped", [True, False])
def test_aec_env_pickles_mid_game_and_continues_alike(wrapped: bool) -> None:
    e = shipwreck_env.env(num_players=3) if wrapped else shipwreck_env.raw_env(num_players=3)
    e.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(5):
        obs = e.observe(e.agent_selection)
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(len(legal))]))
    copy = pickle.loads(pickle.dumps(e))
    if wrapped:
        assert aec_game(copy, np.random.default_rng(1)) == aec_game(e, np.random.default_rng(1))
    else:
        assert copy.game_state == e.game_state
        assert copy.observe("player_1")["observation"].tolist() == (
            e.observe("player_1")["observation"].tolist()
        )


@pytest.mark.parametrize("env_id", GYM_IDS)
@pytest.mark.parametrize("partner", [None, "bayes", "heuristic", "oracle"])
def test_gym_env_pickles_mid_episode_and_continues_alike(env_id: str, partner) -> None:
    kwargs = {"partner": make_policy(partner)} if partner else {}
    env = gymnasium.make(env_id, num_players=3, **kwargs)
    env.reset(seed=2)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    copy = pickle.loads(pickle.dumps(env))
    assert gym_game(copy, np.random.default_rng(3)) == gym_game(env, np.random.default_rng(3))


# --- reset options ---------------------------------------------------------------------------


@pytest.mark.parametrize("maker", ["aec", *GYM_IDS])
def test_reset_options_change_the_config_from_that_episode_on(maker: str) -> None:
    if maker == "aec":
        env = shipwreck_env.env(num_players=3)

        def state():
            return env.unwrapped.game_state
    else:
        env = gymnasium.make(maker, num_players=3)

        def state():
            return env.unwrapped.state

    env.reset(seed=0, options={"difficulty": "doomed", "card_sets": "all"})
    assert state().config == GameConfig(num_players=3, difficulty="doomed", card_sets="all")
    assert state().doom == 6
    env.reset(seed=0)  # the change stays
    assert state().config.difficulty == "doomed"
    env.reset(seed=0, options={"difficulty": "easy"})
    assert state().doom == 0
    with pytest.raises(ValueError, match="num_players"):
        env.reset(seed=0, options={"num_players": 4})
    with pytest.raises(ValueError, match="difficulty 'brutal'"):
        env.reset(seed=0, options={"difficulty": "brutal"})
    with pytest.warns(UserWarning, match="dificulty"):
        env.reset(seed=0, options={"dificulty": "hard"})


# --- illegal actions -------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_gym_illegal_action_ends_the_episode(env_id: str) -> None:
    """As in the wrapped AEC env: the illegal action ends the episode (-1, terminated);
    the game cannot be continued afterwards."""
    env = gymnasium.make(env_id, num_players=3)
    env.reset(seed=0)
    before = env.unwrapped.state.copy()
    legal_before = np.flatnonzero(env.unwrapped.action_masks())
    illegal = int(np.flatnonzero(~env.unwrapped.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert "illegal_action" in info
    assert env.unwrapped.state == before
    # an ended episode's mask allows only the action Gymnasium's autoreset ignores
    assert np.flatnonzero(env.unwrapped.action_masks()).tolist() == [ENDED_ACTION]
    with pytest.raises(RuntimeError, match="ended"):
        env.step(int(legal_before[0]))
    env.reset(seed=0)  # a new episode is fine
    assert env.unwrapped.action_masks().any()


def test_aec_illegal_action_ends_the_game_for_everyone() -> None:
    e = shipwreck_env.env(num_players=3)
    e.reset(seed=0)
    agent = e.agent_selection
    illegal = int(np.flatnonzero(e.observe(agent)["action_mask"] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1
    raw = shipwreck_env.raw_env(num_players=3)
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError):
        raw.step(illegal)


# --- truncation ------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", GYM_IDS)
@pytest.mark.parametrize("max_turns", [1, 3])
def test_gym_max_turns_is_truncation_not_termination(env_id: str, max_turns: int) -> None:
    env = gymnasium.make(env_id, num_players=3, difficulty="easy", max_turns=max_turns)
    for seed in range(5):
        env.reset(seed=seed)
        steps = gym_game(env, np.random.default_rng(seed))
        *_, (_, reward, terminated, truncated, info) = steps
        state = env.unwrapped.state
        assert not any(t for _, _, t, _, _ in steps[:-1])
        if state.truncated:
            assert (terminated, truncated) == (False, True)
            assert reward == 0.0 and state.turn == max_turns
            assert set(info) >= {"score", "doom", "won"}
        else:  # the game ended by its rules first
            assert (terminated, truncated) == (True, False)


@pytest.mark.parametrize("max_turns", [1, 3])
def test_aec_max_turns_is_truncation_not_termination(max_turns: int) -> None:
    e = shipwreck_env.env(num_players=3, difficulty="easy", max_turns=max_turns)
    for seed in range(5):
        e.reset(seed=seed)
        ends = []
        for agent in e.agent_iter():
            _, _, term, trunc, _ = e.last()
            if term or trunc:
                ends.append((term, trunc))
                e.step(None)
                continue
            legal = np.flatnonzero(e.observe(agent)["action_mask"])
            e.step(int(legal[0]))
        if e.unwrapped.game_state.truncated:
            assert set(ends) == {(False, True)}
        else:
            assert set(ends) == {(True, False)}


# --- render for one viewer -------------------------------------------------------------------


def test_render_shows_one_viewers_table() -> None:
    e = shipwreck_env.env(num_players=3, render_mode="ansi", version=0)  # the gym env's game
    e.reset(seed=1)
    s = e.unwrapped.game_state
    mine = e.render(viewer="player_1")
    assert mine == e.render(viewer=1)
    assert f"holds {' '.join(map(str, s.hands[1]))}" in mine
    assert f"holds {' '.join(map(str, s.hands[1]))}" not in e.render() or not s.hands[1]
    gym = gymnasium.make("ShipwreckArcana-v0", num_players=3, render_mode="ansi")
    gym.reset(seed=1)
    assert gym.unwrapped.render(viewer=1) == mine
