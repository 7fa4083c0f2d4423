"""The AEC env ``shipwreck_arcana_v1`` (compiled engine, :mod:`shipwreck_env.vector.single`)
against the reference engine, and what every version keeps.

* Differential: over random games of every rule switch (2-5 players, difficulties,
  leader or vote, reveal, all card sets, challenge mode, belief, both rewards, a small
  ``max_turns``), the env and the reference engine replaying the same seed
  (``new_game(config, StreamGenerator(game_key(seed)))``) agree after every step on
  every agent's observation and mask, the deciding agent, rewards, ends, infos and the
  whole reference ``State``.
* Infos hold ``score``, ``doom`` and ``won`` from ``reset()`` on, in both versions
  (TorchRL builds its info spec from the reset infos), and no action mask (TorchRL reads
  the observation's and fails on a second one in the info).
* v0 stays importable with its own name and seeding; v1 pickles, loads a state, and
  raises the engine's error for an illegal action without changing anything.

Authority: the module docstring of ``shipwreck_env/envs/aec_env.py``.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from helpers import config_matrix

import shipwreck_env
from shipwreck_env.envs.aec_env import raw_env, raw_env_v0
from shipwreck_env.rules.actions import NUM_ACTIONS, PASS, predict_action
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import IllegalActionError, legal_actions, new_game, step_inplace
from shipwreck_env.rules.observation import ObservationLayout, encode
from shipwreck_env.rules.rewards import team_reward
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.vector.chance import StreamGenerator, game_key, game_keys

RULE_KEYS = ("reward", "belief")


def pick(s: State, legal: list[int], rng: np.random.Generator) -> int:
    """A random legal action that often predicts right and passes reveals, so that games
    last and reach powers, votes and later turns."""
    hand = s.hands[s.active]
    r = rng.random()
    if s.phase in (Phase.GROUP, Phase.VOTE) and len(hand) == 1:
        right = predict_action(hand[0])
        if right in legal and r < 0.6:
            return right
    if s.phase == Phase.REVEAL and r < 0.8 and PASS in legal:
        return PASS
    return legal[int(rng.integers(len(legal)))]


def expected_mask(s: State, player: int) -> list[int]:
    mask = [0] * NUM_ACTIONS
    if s.decider == player:
        for a in legal_actions(s):
            mask[a] = 1
    return mask


def compare(e: raw_env, s: State, layout: ObservationLayout, where: str) -> None:
    """Everything the env shows now equals what the reference state ``s`` gives."""
    assert e.game_state == s, where
    for agent in e.agents:
        p = e.agent_name_mapping[agent]
        obs = e.observe(agent)
        want = encode(s, p, layout)
        assert obs["observation"].dtype == np.float32, where
        assert obs["observation"].tobytes() == want.tobytes(), f"{where} {agent} observation"
        mask = expected_mask(s, p)
        assert obs["action_mask"].dtype == np.int8, where
        assert obs["action_mask"].tolist() == mask, f"{where} {agent} mask"
        info = e.infos[agent]
        assert set(info) == {"score", "doom", "won"}, where
        assert (info["score"], info["doom"], info["won"]) == (s.score, s.doom, s.won), where
    if s.decider >= 0:
        assert e.agent_selection == f"player_{s.decider}", where
    if s.over:
        assert all(e.truncations.values()) == s.truncated, where
        assert all(e.terminations.values()) == (not s.truncated), where
    else:
        assert not any(e.terminations.values()) and not any(e.truncations.values()), where


def play_against_reference(kwargs: dict, seed: int, games: int) -> int:
    """Play ``games`` games (the first seeded, the rest unseeded resets) in the v1 raw
    env and the reference engine side by side; returns the decisions compared."""
    game_kwargs = {k: v for k, v in kwargs.items() if k not in RULE_KEYS}
    config = GameConfig(**game_kwargs)
    e = raw_env(**kwargs)
    layout = e.observation_layout
    choice = np.random.default_rng(seed + 1000)
    draws = np.random.default_rng(seed)
    decisions = 0
    for game in range(games):
        game_seed = seed if game == 0 else int(draws.integers(2**63))
        e.reset(seed=seed if game == 0 else None)
        gen = StreamGenerator(game_key(game_seed))
        s = new_game(config, gen)
        compare(e, s, layout, f"seed {seed} game {game} start")
        while not s.over:
            action = pick(s, legal_actions(s), choice)
            score, doom = s.score, s.doom
            step_inplace(s, action, gen)
            e.step(action)
            reward = team_reward(e.reward_kind, s, score, doom)
            assert set(e.rewards.values()) == {reward}, f"seed {seed} step {decisions}"
            decisions += 1
            compare(e, s, layout, f"seed {seed} game {game} step {decisions}")
    return decisions


QUICK = [
    dict(num_players=3),
    dict(num_players=2, card_sets="all", difficulty="hard"),
    dict(num_players=4, group_decision="vote", card_sets="all", reward="score_doom"),
    dict(num_players=5, card_sets="all", reveal=False, belief=True, difficulty="doomed"),
    dict(num_players=2, challenge_mode=True, card_sets="all", group_decision="vote"),
    dict(num_players=3, card_sets="all", max_turns=3, belief=True),
]


@pytest.mark.parametrize("kwargs", QUICK, ids=[str(k) for k in QUICK])
def test_v1_equals_reference_engine_on_random_games(kwargs: dict) -> None:
    assert play_against_reference(kwargs, seed=7, games=25) > 100


@pytest.mark.slow
@pytest.mark.parametrize("kwargs", config_matrix(), ids=lambda k: str(sorted(k.items())))
def test_v1_equals_reference_engine_on_every_rule_switch(kwargs: dict) -> None:
    extra = {"belief": True, "reward": "score_doom"} if kwargs["num_players"] % 2 else {}
    play_against_reference({**kwargs, **extra}, seed=len(str(kwargs)), games=12)


@pytest.mark.parametrize("version", [0, 1])
@pytest.mark.parametrize("players", [2, 5])
def test_infos_hold_score_doom_won_from_reset(version: int, players: int) -> None:
    """Every agent's info has the three keys from ``reset()`` on, with their values then,
    and keeps them (no mask: it is the observation's)."""
    e = shipwreck_env.env(num_players=players, difficulty="hard", version=version)
    e.reset(seed=3)
    s = e.unwrapped.game_state
    for agent in e.possible_agents:
        info = e.infos[agent]
        assert info == {"score": 0, "doom": s.doom, "won": False}
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        assert set(info) == {"score", "doom", "won"}
        if term or trunc:
            assert info["won"] == e.unwrapped.game_state.won
            e.step(None)
            continue
        assert info["score"] == e.unwrapped.game_state.score
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(len(legal))]))


def test_versions_have_their_names_and_v0_its_seeding() -> None:
    assert shipwreck_env.env().metadata["name"] == "shipwreck_arcana_v1"
    assert shipwreck_env.env(version=0).metadata["name"] == "shipwreck_arcana_v0"
    assert raw_env_v0.metadata["name"] == "shipwreck_arcana_v0"
    e = shipwreck_env.env(version=0)
    e.reset(seed=5)
    assert e.unwrapped.game_state == new_game(GameConfig(), np.random.default_rng(5))
    with pytest.raises(ValueError, match=r"version 2 .*allowed: \[1, 0\]"):
        shipwreck_env.env(version=2)


def test_v1_illegal_action_raises_the_engines_error_and_changes_nothing() -> None:
    e = raw_env(num_players=3, card_sets="all")
    e.reset(seed=2)
    before = e.game_state.copy()
    observed = e.observe(e.agent_selection)["observation"].tolist()
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    for bad in (illegal, -1, NUM_ACTIONS, "x"):
        with pytest.raises(IllegalActionError):
            e.step(bad)
    assert e.game_state == before
    assert e.observe(e.agent_selection)["observation"].tolist() == observed


def test_v1_pickles_and_continues_with_the_same_draws() -> None:
    e = raw_env(num_players=4, card_sets="all")
    e.reset(seed=9)
    rng = np.random.default_rng(1)
    for _ in range(20):
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(legal[rng.integers(len(legal))]))
        if e.game_state.over:
            e.reset()
    copy = pickle.loads(pickle.dumps(e))
    for env in (copy, e):
        env._trace = []
        choice = np.random.default_rng(2)
        for _ in range(200):
            if env.game_state.over:
                env.reset()
            obs = env.observe(env.agent_selection)
            env._trace.append((obs["observation"].tobytes(), env.agent_selection))
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[choice.integers(len(legal))]))
    assert copy._trace == e._trace


def test_v1_continues_in_the_reference_engine_from_its_stream() -> None:
    """``engine.step(env.game_state, action, env.stream())`` plays what the env plays."""
    e = raw_env(num_players=3)
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(30):
        if e.game_state.over:
            e.reset()
        s, gen = e.game_state.copy(), e.stream()
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        step_inplace(s, action, gen)
        e.step(action)
        assert e.game_state == s


def test_v1_loads_a_state_and_observes_it() -> None:
    """Assigning ``state_`` points the env at another state of its configuration."""
    config = GameConfig(num_players=3, card_sets="all")
    gen = np.random.default_rng(0)
    s = new_game(config, gen)
    for _ in range(6):
        step_inplace(s, legal_actions(s)[-1], gen)
    e = raw_env(num_players=3, card_sets="all")
    e.reset(seed=1)
    e.state_ = s
    e._after_change()
    compare(e, s, e.observation_layout, "loaded")


@pytest.mark.parametrize("seed", [0, 1, 5, 2**63, 2**64 - 1, 12_345_678_901])
def test_game_key_equals_the_batched_engines_key(seed: int) -> None:
    assert game_key(seed) == int(game_keys(seed, 1)[0])


def test_game_key_refuses_a_negative_seed() -> None:
    with pytest.raises(ValueError, match=r"seed -1 is not allowed; allowed: an integer >= 0"):
        game_key(-1)
