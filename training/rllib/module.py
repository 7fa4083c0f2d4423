"""The RLlib RLModule (new API stack) of the RLlib trainer: action masking inside it.

The env's observation is ``{"observation", "action_mask"}`` (the AEC env) or one array,
the observation then the mask (the batched engine's vector env); the module reads both and
puts the logit :data:`~shipwreck_agents.learned.actor_critic.MASKED` (-1e9) on every illegal action
before RLlib builds its categorical distribution, in exploration, inference and
training alike. ``exp(-1e9 - max)`` is exactly 0 in float32, so an illegal action has
probability 0 and is never sampled; the logit is finite, so the all-zero mask of an
agent's final (not acted on) observation gives no NaN. The value head reads the
observation only (``ValueFunctionAPI``, which PPO's GAE calls).

The network is :class:`shipwreck_agents.learned.actor_critic.ActorCritic` (plain torch), held as
``self.net``: the ``rllib:`` loader rebuilds it from the module's saved state without
Ray.
"""

from __future__ import annotations

from typing import Any

import gymnasium
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from shipwreck_agents.learned.actor_critic import ActorCritic

__all__ = ["ShipwreckRLModule"]


class ShipwreckRLModule(TorchRLModule, ValueFunctionAPI):
    """Masked actor-critic; ``model_config``: ``{"hidden": [128, 128]}``."""

    def setup(self) -> None:
        hidden = tuple(self.model_config.get("hidden", (128, 128)))
        actions = int(self.action_space.n)
        self._flat = isinstance(self.observation_space, gymnasium.spaces.Box)
        if self._flat:  # the batched engine's env: observation, then the mask
            obs_dim = self.observation_space.shape[0] - actions
        else:
            obs_dim = self.observation_space["observation"].shape[0]
        self.net = ActorCritic(obs_dim, actions, hidden)

    def _split(self, obs: Any) -> tuple[Any, Any]:
        """(observation, legal mask) of a batch of either observation form."""
        if self._flat:
            return obs[..., : self.net.obs_dim], obs[..., self.net.obs_dim :]
        return obs["observation"], obs["action_mask"]

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self.net.logits(*self._split(batch[Columns.OBS]))}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        return self.net.value(self._split(batch[Columns.OBS])[0])
