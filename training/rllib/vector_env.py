"""The batched engine as a Gymnasium ``VectorEnv`` for RLlib's single-agent env runner.

RLlib 2.60's single-agent runner takes an already-vectorized Gymnasium env
(``env_runners(gym_env_vectorize_mode=VECTOR_ENTRY_POINT)``): :class:`ShipwreckVectorEnv`
is ``num_envs`` games of :class:`shipwreck_training.common.games.Games` (the batched
engine, split evenly over the difficulty mix) stepped by one call. One policy takes every
decision of every seat (self-play; the observation is the decider's, seat-relative), and
each game is one episode whose team reward after each decision forms one sequence, as in
the fast trainer. Observations are the AEC env's ``{"observation", "action_mask"}``, so
the RLModule (:mod:`shipwreck_training.rllib.module`) masks as it does there.

Autoreset is Gymnasium's ``NEXT_STEP``: the step that ends a game returns its final
observation (an empty mask) and ``terminated``/``truncated``; the next step ignores that
game's action, starts a new game in its place and returns the new observation with
reward 0. Needs no Ray (the runner imports it through the registry,
:func:`shipwreck_training.rllib.env.register`).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from shipwreck_env.actions import NUM_ACTIONS
from shipwreck_training.common.config import GameSettings, validate
from shipwreck_training.common.games import Games

__all__ = ["ShipwreckVectorEnv"]


class ShipwreckVectorEnv(VectorEnv):
    """``num_envs`` batched games as a Gymnasium vector env (see the module docstring).

    Args:
        num_envs: games side by side (a multiple of the number of difficulties).
        **game: the fields of :class:`~shipwreck_training.common.config.GameSettings`.

    Raises:
        ValueError: a bad field or count, named with its value and what is allowed.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 (Gymnasium's)

    def __init__(self, num_envs: int = 4, **game: Any) -> None:
        self.settings = validate(GameSettings, game)
        if self.settings.belief not in ("none", "literal"):
            raise ValueError(
                f"belief {self.settings.belief!r} is not allowed here; allowed: 'none', 'literal'"
            )
        self.num_envs = int(num_envs)
        self.games = Games(self.settings, self.num_envs, 0, autoreset=False)
        size = self.games.layout.size
        self.single_observation_space = gymnasium.spaces.Dict(
            {
                "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                "observation": gymnasium.spaces.Box(0.0, 100.0, (size,), np.float32),
            }
        )
        self.single_action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._ended = np.zeros(self.num_envs, bool)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict | None = None
    ) -> tuple[dict[str, np.ndarray], dict]:
        if isinstance(seed, list):
            seed = seed[0]
        if seed is not None:  # new games from the seed; otherwise new deals, streams go on
            self.games = Games(self.settings, self.num_envs, int(seed), autoreset=False)
        else:
            self.games.restart(np.arange(self.num_envs))
        self._ended[:] = False
        return self._observe(), {}

    def step(
        self, actions: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict]:
        actions = np.asarray(actions, np.int64).reshape(self.num_envs)
        reward, terminated, truncated, final = self.games.step(actions)  # over: ignored
        restarted = np.flatnonzero(self._ended)
        if restarted.size:  # NEXT_STEP: the places that ended last step start anew
            self.games.restart(restarted)
            reward[restarted] = 0.0
        self._ended = terminated | truncated
        infos: dict[str, Any] = {}
        if self._ended.any():
            infos = {"won": final["won"], "score": final["score"], "_won": self._ended}
            infos["_score"] = self._ended
        return self._observe(), reward.astype(np.float32), terminated, truncated, infos

    def _observe(self) -> dict[str, np.ndarray]:
        return {
            "action_mask": self.games.legal_mask().astype(np.int8),
            "observation": self.games.observe().copy(),
        }
