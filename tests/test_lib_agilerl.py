"""First contact with AgileRL, where its algorithms look for the action mask.

AgileRL's off-policy loop (``agilerl.training.train_off_policy``) hands DQN
``info.get("action_mask")`` from a Gymnasium vector env (``make_vect_envs``), and DQN
turns it into a mask with ``1 - action_mask``: the mask must be 1/0 integers (as
Gymnasium's own ``Discrete.sample(mask=...)`` wants: ``int8``), not booleans. Its
multi-agent algorithms read ``info[agent]["action_mask"]`` of a PettingZoo *parallel*
env, which a turn-based game is not (``docs/libraries/agilerl.md``).

AgileRL 2.58 pins ``pettingzoo<1.27`` and ``tensordict==0.13.0``, so it lives in its own
virtualenv, ``.venv-agilerl`` (``scripts/setup.sh``, ``scripts/requirements-agilerl.txt``);
``./test.sh`` runs this file there, and ``.venv`` skips it.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import shipwreck_env  # noqa: F401  (registers the ids)

agilerl = pytest.importorskip(
    "agilerl", reason="agilerl is installed only in .venv-agilerl (./test.sh runs this file there)"
)

from agilerl.algorithms import DQN  # noqa: E402
from agilerl.components.replay_buffer import ReplayBuffer  # noqa: E402
from agilerl.training.train_off_policy import train_off_policy  # noqa: E402
from agilerl.utils.utils import make_vect_envs  # noqa: E402

# the module-qualified id: AgileRL's make_vect_envs starts AsyncVectorEnv workers
PLAY = "shipwreck_env:ShipwreckArcana-Play-v0"
KWARGS = {"num_players": 3, "difficulty": "easy"}


def test_dqn_picks_only_actions_the_info_mask_allows() -> None:
    """DQN's ``get_action(obs, epsilon, action_mask=info["action_mask"])``, greedy and
    random alike, on a sync vector env's stacked info."""
    envs = gymnasium.make_vec(PLAY, num_envs=3, vectorization_mode="sync", **KWARGS)
    agent = DQN(envs.single_observation_space, envs.single_action_space)
    obs, info = envs.reset(seed=0)
    for step in range(100):
        mask = info["action_mask"]
        action = agent.get_action(obs, epsilon=0.5 if step % 2 else 0.0, action_mask=mask)
        assert mask[np.arange(3), action].all()
        obs, _, _, _, info = envs.step(action)
    envs.close()


@pytest.mark.slow
def test_train_off_policy_runs_dqn_with_the_mask() -> None:
    """AgileRL's documented loop over ``make_vect_envs`` (async workers) trains a small
    DQN population for a few hundred steps; its fitness is a game result."""
    envs = make_vect_envs(PLAY, num_envs=2, **KWARGS)
    agent = DQN(envs.single_observation_space, envs.single_action_space, batch_size=32)
    population, fitnesses = train_off_policy(
        envs,
        "ShipwreckArcana-Play-v0",
        "DQN",
        [agent],
        ReplayBuffer(max_size=2_000),
        max_steps=400,
        evo_steps=200,
        learning_delay=64,
        verbose=False,
    )
    envs.close()
    assert len(population) == 1 and population[0].steps[-1] >= 400
    assert all(-1.0 <= f <= 1.0 for f in fitnesses)
