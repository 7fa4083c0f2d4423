"""Shipwreck Arcana as an RLlib ``MultiAgentEnv`` (new API stack), registered by name.

The workers build the environment themselves: :func:`env_creator` is a module-level
function (it pickles by reference) that Ray's registry hands to every env runner under
:data:`ENV_NAME` (:func:`register`). On a cluster every node imports it from the
installed package (``pip install -e ".[distributed]"`` there, or a ``runtime_env``).

It wraps the unwrapped PettingZoo AEC env (:class:`shipwreck_env.raw_env`) the way
RLlib's ``PettingZooEnv`` does -- each step returns the observation of the one agent that
decides next, with the team reward it accumulated since it last acted; at the end every
agent gets its final observation and reward -- with three differences: the raw env, so
an illegal action raises :class:`~shipwreck_env.rules.engine.IllegalActionError` instead of
quietly ending the game (the RLModule masks them, and a training that samples one fails
loudly); one difficulty per episode drawn by the game section's mix
(:meth:`~shipwreck_training.common.config.GameSettings.episode_difficulty`); and no
reset at construction.

RLlib's multi-agent env runner vectorises only by a Python loop over copies of this env
(``num_envs_per_env_runner``, ``SyncVectorMultiAgentEnv``): the batched engine
(``shipwreck_env.vector``) does not fit under its ``MultiAgentEnv`` interface, and runs
under the single-agent runner instead (``engine: batched``,
:mod:`shipwreck_training.rllib.vector_env`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from shipwreck_env.envs.aec_env import raw_env
from shipwreck_training.common.config import GameSettings, validate

__all__ = [
    "BATCHED_ENV_NAME",
    "ENV_NAME",
    "ShipwreckMultiAgentEnv",
    "batched_env_creator",
    "env_creator",
    "register",
]

ENV_NAME = "shipwreck_arcana"
"""The name the environment is registered under in Ray (``config.environment(ENV_NAME)``)."""
BATCHED_ENV_NAME = "shipwreck_arcana_batched"
"""The batched engine's vector env (:mod:`shipwreck_training.rllib.vector_env`) in Ray's
registry, for the single-agent runner with ``gym_env_vectorize_mode=VECTOR_ENTRY_POINT``."""


class ShipwreckMultiAgentEnv(MultiAgentEnv):
    """The game for RLlib: agents ``player_0`` ... ``player_{n-1}``, observations
    ``{"observation", "action_mask"}`` as in the AEC env, ``Discrete(259)`` actions.

    Args:
        **game: the fields of :class:`~shipwreck_training.common.config.GameSettings`
            (``num_players``, ``difficulties``, ``card_sets``, ``reward``, ``belief``, ...).

    Raises:
        ValueError: a bad field, named with its value and what is allowed.
    """

    def __init__(self, **game: Any):
        super().__init__()
        self.settings = validate(GameSettings, game)
        s = self.settings
        self.game = raw_env(reward=s.reward, belief=s.belief_block, **s.game_config().to_dict())
        self.possible_agents = list(self.game.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.game.observation_space(a) for a in self.agents}
        self.action_spaces = {a: self.game.action_space(a) for a in self.agents}
        self._pick = np.random.default_rng()

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, dict], dict[str, dict]]:
        if seed is not None:
            self._pick = np.random.default_rng(seed)
        difficulty = self.settings.episode_difficulty(self._pick)
        self.game.reset(seed=seed, options={"difficulty": difficulty, **(options or {})})
        self.agents = list(self.possible_agents)
        agent = self.game.agent_selection
        return {agent: self.game.observe(agent)}, {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        game = self.game
        game.step(int(action_dict[game.agent_selection]))
        # the AEC fields, not game.state_ (which v1 rebuilds from the compiled game on
        # every read); at the end every agent is terminated, or every agent truncated
        agent = game.agent_selection
        terminated, truncated = game.terminations[agent], game.truncations[agent]
        if not (terminated or truncated):
            return (
                {agent: game.observe(agent)},
                {agent: float(game._cumulative_rewards[agent])},
                {"__all__": False},
                {"__all__": False},
                {},
            )
        agents = self.possible_agents
        self.agents = []
        return (
            {a: game.observe(a) for a in agents},
            {a: float(game._cumulative_rewards[a]) for a in agents},
            {**dict.fromkeys(agents, terminated), "__all__": terminated},
            {**dict.fromkeys(agents, truncated), "__all__": truncated},
            {a: dict(game.infos[a]) for a in agents},
        )


def env_creator(env_config: dict) -> ShipwreckMultiAgentEnv:
    """Build the environment from RLlib's ``env_config`` (the fields of
    :class:`~shipwreck_training.common.config.GameSettings`); picklable, as Ray's registry needs."""
    return ShipwreckMultiAgentEnv(**dict(env_config))


def batched_env_creator(env_config: dict):
    """The batched vector env of RLlib's ``env_config`` plus the ``num_envs`` the runner
    adds (:class:`~shipwreck_training.rllib.vector_env.ShipwreckVectorEnv`)."""
    from shipwreck_training.rllib.vector_env import ShipwreckVectorEnv

    game = dict(env_config)
    return ShipwreckVectorEnv(int(game.pop("num_envs", 1)), **game)


def register() -> str:
    """Register :func:`env_creator` under :data:`ENV_NAME` and :func:`batched_env_creator`
    under :data:`BATCHED_ENV_NAME` in Ray's registry (the driver's registration reaches
    every worker of the cluster); returns :data:`ENV_NAME`."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, env_creator)
    register_env(BATCHED_ENV_NAME, batched_env_creator)
    return ENV_NAME
