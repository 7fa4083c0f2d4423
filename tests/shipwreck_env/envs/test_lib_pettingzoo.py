"""First contact with PettingZoo's own tools and SuperSuit's wrappers.

PettingZoo's conversions (``aec_to_parallel`` refuses a turn-based env that does not declare
itself parallelizable; ``turn_based_aec_to_parallel`` is the one that applies), and the
SuperSuit wrappers that work on a ``Dict`` observation (rewards and actions) beside the
ones that refuse it with their own error (they need a ``Box``).

PettingZoo's ``api_test`` and ``seed_test`` run over every configuration switch in
``tests/shipwreck_env/envs/test_aec_env.py``.

Versions tested: pettingzoo 1.27, supersuit 3.11 (``.venv``; SuperSuit from
``lab/tools/requirements-libs.txt``). Docs page: ``docs/libraries/pettingzoo.md``.
"""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel

import shipwreck_env

ss = pytest.importorskip("supersuit", reason="SuperSuit comes from requirements-libs.txt")

KWARGS = {"num_players": 3, "difficulty": "easy"}


def _ended_by_the_rules(info: dict) -> bool:
    """Won (seven points) or lost (seven doom or more), not ended by an illegal move."""
    return info["won"] == (info["score"] >= 7) and (info["score"] >= 7 or info["doom"] >= 7)


def _play_games(env, games: int) -> list[dict]:
    """Masked random games on an AEC env; the end info of each (``score``, ``doom``,
    ``won``). Fails if a game ends otherwise than by the rules (an illegal move)."""
    rng = np.random.default_rng(0)
    ends = []
    for game in range(games):
        env.reset(seed=game)
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
        ends.append(info)
        assert _ended_by_the_rules(info), info
    return ends


def test_aec_to_parallel_refuses_a_turn_based_env() -> None:
    """The env declares ``is_parallelizable: False``: decisions alternate irregularly,
    so the generic conversion (and what needs it: BenchMARL's PettingZoo tasks, parallel
    vector wrappers) does not apply. The refusal is PettingZoo's own assertion."""
    with pytest.raises(AssertionError, match="not generally safe"):
        aec_to_parallel(shipwreck_env.env(**KWARGS))


def test_turn_based_aec_to_parallel_plays_whole_games() -> None:
    """The turn-based conversion: every agent observes each step, only the one whose
    mask allows something acts (the others' actions are ignored)."""
    par = turn_based_aec_to_parallel(shipwreck_env.env(**KWARGS))
    rng = np.random.default_rng(1)
    for game in range(5):
        obs, infos = par.reset(seed=game)
        while par.agents:
            actions = {}
            for agent in par.agents:
                legal = np.flatnonzero(obs[agent]["action_mask"])
                actions[agent] = int(rng.choice(legal)) if legal.size else 0
            assert sum(obs[a]["action_mask"].any() for a in par.agents) == 1
            obs, rewards, _, _, infos = par.step(actions)
        assert set(rewards.values()) <= {-1.0, 1.0}
        assert all(_ended_by_the_rules(i) for i in infos.values())


@pytest.mark.parametrize(
    "wrap",
    [
        lambda e: ss.clip_reward_v0(e, lower_bound=-1, upper_bound=1),
        lambda e: ss.reward_lambda_v0(e, lambda reward: 10 * reward),
        lambda e: ss.action_lambda_v1(e, lambda action, space: action, lambda space: space),
        ss.pad_action_space_v0,
    ],
    ids=["clip_reward_v0", "reward_lambda_v0", "action_lambda_v1", "pad_action_space_v0"],
)
def test_supersuit_wrappers_of_rewards_and_actions_apply(wrap) -> None:
    """They leave the ``Dict`` observation and its mask alone: whole games end by the
    rules, as the same games do unwrapped."""
    wrapped = _play_games(wrap(shipwreck_env.env(**KWARGS)), games=10)
    plain = _play_games(shipwreck_env.env(**KWARGS), games=10)
    assert [(i["score"], i["doom"]) for i in wrapped] == [(i["score"], i["doom"]) for i in plain]


@pytest.mark.parametrize(
    ("wrap", "error"),
    [
        (lambda e: ss.frame_stack_v1(e, 2), AssertionError),
        (lambda e: ss.agent_indicator_v0(e), AssertionError),
        (ss.pad_observations_v0, AssertionError),
        (lambda e: ss.dtype_v0(e, np.float32), AttributeError),
        (ss.flatten_v0, AttributeError),
        (ss.normalize_obs_v0, AttributeError),
    ],
    ids=[
        "frame_stack_v1",
        "agent_indicator_v0",
        "pad_observations_v0",
        "dtype_v0",
        "flatten_v0",
        "normalize_obs_v0",
    ],
)
def test_supersuit_observation_wrappers_need_a_box(wrap, error) -> None:
    """SuperSuit's observation wrappers read ``space.low``: on the ``Dict`` observation
    they fail at construction or reset (the docs page says so and shows the
    alternative: flatten ``obs["observation"]`` yourself, keep the mask beside it)."""
    with pytest.raises(error):
        env = wrap(shipwreck_env.env(**KWARGS))
        env.reset(seed=0)
        env.last()
