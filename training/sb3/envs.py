"""Environments for training: the Gymnasium roles with partners and mixed difficulty.

Partners are given as policy specs (``shipwreck_agents.registry``) so that worker processes of a
``SubprocVecEnv`` can build them; each environment gets its own seed.
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium
import numpy as np
from sb3_contrib.common.wrappers import ActionMasker

from shipwreck_env.envs.gym_env import ShipwreckGymEnv
from shipwreck_training.common.config import GameSettings

__all__ = ["MixedDifficulty", "make_env_fn", "role_of"]

_ROLE = {"play": "play", "predict": "predict", "selfplay": "self"}


def role_of(regime: str) -> str:
    """The Gymnasium role a single-model regime trains."""
    return _ROLE[regime]


class MixedDifficulty(gymnasium.Wrapper):
    """Each episode at the difficulty the settings' mix draws (seeded by ``reset``)."""

    def __init__(self, env: ShipwreckGymEnv, settings: GameSettings) -> None:
        super().__init__(env)
        self.settings = settings
        self._rng = np.random.default_rng()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng([seed, 7])
        difficulty = self.settings.episode_difficulty(self._rng)
        config = self.settings.game_config(difficulty).to_dict()
        return self.env.reset(seed=seed, options={**config, **(options or {})})

    def action_masks(self) -> np.ndarray:
        """The wrapped env's legal actions (MaskablePPO reads this)."""
        return self.env.unwrapped.action_masks()


def make_env_fn(
    settings: GameSettings, role: str, partner_spec: str | None, seed: int
) -> Callable[[], gymnasium.Env]:
    """A picklable factory of one training environment."""

    def make() -> gymnasium.Env:
        partner = None
        if partner_spec:
            from shipwreck_agents.registry import make_policy

            partner = make_policy(partner_spec)
        env = ShipwreckGymEnv(
            role=role,
            partner=partner,
            reward=settings.reward,
            belief=settings.belief_block,
            **settings.game_config().to_dict(),
        )
        wrapped = MixedDifficulty(env, settings)
        wrapped = ActionMasker(wrapped, lambda e: e.unwrapped.action_masks())
        wrapped.reset(seed=seed)
        return wrapped

    return make
