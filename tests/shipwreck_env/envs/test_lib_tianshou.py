"""First contact with Tianshou 2, the way its multi-agent documentation says.

Tianshou wraps a PettingZoo AEC env in its own ``PettingZooEnv`` (observation ``{"obs",
"mask", "agent_id"}``, one reward per agent), gives each agent an algorithm inside
``MultiAgentOffPolicyAlgorithm`` (version 2's multi-agent policy manager) and collects
whole games with a ``Collector`` over ``DummyVectorEnv`` or ``SubprocVectorEnv``. Each
agent here is Tianshou's own masked random algorithm, which picks only among the
actions its mask allows.

Versions tested: tianshou 2.0 (``.venv``, from ``lab/tools/requirements-libs.txt``).
Docs page: ``docs/libraries/tianshou.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

import shipwreck_env

tianshou = pytest.importorskip("tianshou", reason="tianshou comes from requirements-libs.txt")

from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm  # noqa: E402
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv, SubprocVectorEnv  # noqa: E402


def make_env() -> PettingZooEnv:
    """Module level, so that ``SubprocVectorEnv`` can pickle it into its workers."""
    return PettingZooEnv(shipwreck_env.env(num_players=3, difficulty="easy"))


def _algorithm() -> MultiAgentOffPolicyAlgorithm:
    env = make_env()
    return MultiAgentOffPolicyAlgorithm(
        algorithms=[
            MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
            for _ in env.agents
        ],
        env=env,
    )


def _collect(venv_cls, episodes: int, seed: int):
    envs = venv_cls([make_env for _ in range(2)])
    try:
        envs.seed(seed)
        buffer = VectorReplayBuffer(4_000, buffer_num=2)
        np.random.seed(seed)  # Tianshou's random algorithm draws from numpy's global stream
        result = Collector(_algorithm(), envs, buffer).collect(
            n_episode=episodes, reset_before_collect=True
        )
        return result, buffer
    finally:
        envs.close()


def test_pettingzoo_env_hands_tianshou_the_mask() -> None:
    env = make_env()
    obs, info = env.reset(seed=0)
    assert set(obs) == {"agent_id", "obs", "mask"} and obs["agent_id"] in env.agents
    assert sum(obs["mask"]) >= 1 and len(obs["mask"]) == 259
    assert {"score", "doom", "won"} <= info.keys()


@pytest.mark.parametrize("venv_cls", [DummyVectorEnv, SubprocVectorEnv])
def test_a_collector_plays_whole_games(venv_cls) -> None:
    """Every stored step's action is one its mask allowed, and every game ended by the
    rules, with the team's +-1 for every player."""
    result, buffer = _collect(venv_cls, episodes=6, seed=0)
    assert result.n_collected_episodes >= 6
    data = buffer[buffer.sample_indices(0)]  # every stored step (0: all of them)
    assert data.obs.mask[np.arange(len(data)), data.act].all()
    ended = data.done
    assert ended.sum() >= 6
    assert set(np.unique(data.rew[ended])) <= {-1.0, 1.0}
    assert (data.info.won[ended] == (data.info.score[ended] >= 7)).all()


def test_subprocess_and_dummy_collectors_store_the_same_games() -> None:
    """Seeding survives the pickle into ``SubprocVectorEnv``'s workers."""
    (_, dummy), (_, subproc) = (
        _collect(cls, episodes=4, seed=3) for cls in (DummyVectorEnv, SubprocVectorEnv)
    )
    assert len(dummy) == len(subproc)
    a, b = dummy[dummy.sample_indices(0)], subproc[subproc.sample_indices(0)]
    np.testing.assert_array_equal(a.obs.obs, b.obs.obs)
    np.testing.assert_array_equal(a.act, b.act)
