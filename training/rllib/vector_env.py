"""The batched engine as a Gymnasium ``VectorEnv`` for RLlib's single-agent env runner.

RLlib 2.60's single-agent runner takes an already-vectorized Gymnasium env
(``env_runners(gym_env_vectorize_mode=VECTOR_ENTRY_POINT)``): :class:`ShipwreckVectorEnv`
is ``num_envs`` games of :class:`shipwreck_training.common.games.Games` (the batched
engine, split evenly over the difficulty mix) stepped by one call. One policy takes every
decision of every seat (self-play; the observation is the decider's, seat-relative), and
each game is one episode whose team reward after each decision forms one sequence, as in
the fast trainer. An observation is one float32 array, the decider's observation followed
by its legal mask as 0/1 (or, with ``flat=False``, the AEC env's ``{"observation",
"action_mask"}``); the RLModule (:mod:`shipwreck_training.rllib.module`) splits it and
masks as it does for the AEC env.

Autoreset is Gymnasium's ``NEXT_STEP``: the step that ends a game returns its final
observation (an empty mask) and ``terminated``/``truncated``; the next step ignores that
game's action, starts a new game in its place and returns the new observation with
reward 0. Needs no Ray (the runner imports it through the registry,
:func:`shipwreck_training.rllib.env.register`).

With ``belief="policy"`` the group's observations carry the policy-conditioned belief of
the fast trainer (:class:`shipwreck_training.common.policy_belief_batched.PolicyBelief`): at each
turn's first play the env asks the network given by :meth:`ShipwreckVectorEnv.use_model`
(in training: the env runner's own RLModule, whose weights RLlib updates in place after
every iteration, :mod:`shipwreck_training.rllib.belief_callback`) how likely the play was with
every hand the active seat might hold, and writes the posterior over the kept fate into
the belief block of the turn's group decisions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_training.common.config import GameSettings, validate
from shipwreck_training.common.games import Games
from shipwreck_training.common.policy_belief_batched import PolicyBelief

__all__ = ["ShipwreckVectorEnv"]


class ShipwreckVectorEnv(VectorEnv):
    """``num_envs`` batched games as a Gymnasium vector env (see the module docstring).

    Args:
        num_envs: games side by side (a multiple of the number of difficulties).
        flat: observations as one float32 array per game, the observation then the
            legal mask (0/1), which RLlib's runner handles with less Python per game
            than the AEC env's ``{"observation", "action_mask"}`` dict (``False``).
        **game: the fields of :class:`~shipwreck_training.common.config.GameSettings`.

    Raises:
        ValueError: a bad field or count, named with its value and what is allowed.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 (Gymnasium's)

    def __init__(self, num_envs: int = 4, flat: bool = True, **game: Any) -> None:
        self.settings = validate(GameSettings, game)
        self.flat = bool(flat)
        if self.settings.belief not in ("none", "literal", "policy"):
            raise ValueError(
                f"belief {self.settings.belief!r} is not allowed here; allowed: 'none', "
                "'literal', 'policy'"
            )
        self.num_envs = int(num_envs)
        self._model: Callable[[], Any] | None = None
        self._new_games(0)
        size = self.games.layout.size
        if self.flat:  # one array: RLlib's per-game bookkeeping walks no dict
            self.single_observation_space = gymnasium.spaces.Box(
                0.0, 100.0, (size + NUM_ACTIONS,), np.float32
            )
        else:
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
            self._new_games(int(seed))
        else:
            self.games.restart(np.arange(self.num_envs))
            if self.belief is not None:
                self.belief.restart(np.arange(self.num_envs))
        self._ended[:] = False
        return self._observe(), {}

    def step(
        self, actions: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict]:
        actions = np.asarray(actions, np.int64).reshape(self.num_envs)
        if self.belief is not None:  # the turn's first plays, judged by the current network
            self.belief.record(self.games, self._obs, self._mask, actions, self._network())
        reward, terminated, truncated, final = self.games.step(actions)  # over: ignored
        restarted = np.flatnonzero(self._ended)
        if restarted.size:  # NEXT_STEP: the places that ended last step start anew
            self.games.restart(restarted)
            if self.belief is not None:
                self.belief.restart(restarted)
            reward[restarted] = 0.0
        self._ended = terminated | truncated
        infos: dict[str, Any] = {}
        if self._ended.any():
            infos = {"won": final["won"], "score": final["score"], "_won": self._ended}
            infos["_score"] = self._ended
        return self._observe(), reward.astype(np.float32), terminated, truncated, infos

    def use_model(self, source: Callable[[], Any]) -> None:
        """Where the policy-conditioned belief gets its network: ``source()`` returns a
        module with ``logits(obs, mask)`` (:class:`shipwreck_agents.learned.actor_critic.
        ActorCritic`), asked anew at every step so that updated weights count at once."""
        self._model = source

    def _network(self) -> Any:
        if self._model is None:
            raise RuntimeError(
                "belief 'policy' needs a network: call use_model() (the RLlib trainer's "
                "callback, shipwreck_training.rllib.belief_callback.BeliefCallback, does)"
            )
        return self._model()

    def _new_games(self, seed: int) -> None:
        self.games = Games(self.settings, self.num_envs, seed, autoreset=False)
        self.belief = PolicyBelief(self.games) if self.settings.belief == "policy" else None

    def _observe(self) -> dict[str, np.ndarray]:
        self._mask = self.games.legal_mask()
        self._obs = self.games.observe()  # a new array (Games concatenates the parts)
        if self.belief is not None:
            self.belief.fill(self._obs, self.games)
        if self.flat:
            return np.concatenate([self._obs, self._mask], axis=1, dtype=np.float32)
        return {"action_mask": self._mask.astype(np.int8), "observation": self._obs}
