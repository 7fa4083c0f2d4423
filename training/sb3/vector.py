"""Stable-Baselines3 on the batched engine: one ``VecEnv`` over ``VectorGame``.

:class:`BatchedVecEnv` presents ``num_games`` games of the batched engine
(:class:`shipwreck_training.common.games.Games`, split evenly over the difficulty mix)
as SB3's ``num_envs`` environments, all stepped by one call in one process: MaskablePPO
reads :meth:`BatchedVecEnv.action_masks`, and on a game's end the info carries SB3's
``terminal_observation`` (the last decider's view of the finished game),
``TimeLimit.truncated`` (cut at ``max_turns``) and ``episode`` (return, length,
seconds), before the place restarts.

Roles, as the Gymnasium ids name them: ``self`` (every decision is the learner's),
``play`` (the active player's) and ``predict`` (every other decision). The batched engine
steps every game at once, so a game waiting for the scripted partner cannot sit out a
step: a partner's decision is a step of the sequence in which the mask allows exactly
the partner's choice (made through ``shipwreck_env.envs.policy.decide``). The learner then
takes it with probability 1: its log-probability is 0 whatever the weights, so the step
gives no policy gradient and no entropy, and trains only the value, as in the fast
trainer. SB3's step counter counts those steps too.

With ``belief="policy"`` (self-play only) the group's observations carry the fast
trainer's policy-conditioned belief (:class:`shipwreck_training.common.policy_belief_batched.
PolicyBelief`): at each turn's first play the env asks the network given by
:meth:`BatchedVecEnv.use_model` (the trainer hands it the model's current policy,
:class:`PolicyLogits`) how likely the play was with every hand the active seat might
hold, and writes the posterior over the kept fate into the turn's group decisions.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
import torch
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from shipwreck_agents.learned.actor_critic import MASKED
from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_training.common.config import GameSettings
from shipwreck_training.common.games import Games, ScriptedRole, learner_decides
from shipwreck_training.common.policy_belief_batched import PolicyBelief

__all__ = ["BatchedVecEnv", "PolicyLogits"]


class PolicyLogits:
    """An SB3 ``MaskableActorCriticPolicy`` seen as the belief's network: ``logits(obs,
    mask)`` are its action logits with :data:`~shipwreck_agents.learned.actor_critic.MASKED` on
    illegal actions (the softmax over them is the policy's masked distribution)."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    def logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        p = self.policy
        latent = p.mlp_extractor.forward_actor(p.extract_features(obs, p.pi_features_extractor))
        illegal = ~mask if mask.dtype == torch.bool else mask == 0
        return p.action_net(latent).masked_fill(illegal, MASKED)


_REGIME = {"self": "selfplay", "play": "play", "predict": "predict"}


class BatchedVecEnv(VecEnv):
    """``num_games`` batched games as an SB3 ``VecEnv`` (see the module docstring).

    Args:
        env: the game section (literal or no belief block).
        num_games: games side by side (a multiple of the number of difficulties).
        seed: seeds the games and the partner's generator.
        role: ``self``, ``play`` or ``predict``.
        partner: registry spec of the scripted partner (``play`` and ``predict``).

    Raises:
        ValueError: a bad role, a missing partner, or games the engine refuses.
    """

    def __init__(
        self,
        env: GameSettings,
        num_games: int,
        seed: int,
        role: str = "self",
        partner: str | None = None,
    ) -> None:
        if role not in _REGIME:
            raise ValueError(f"role {role!r} is not allowed; allowed: {sorted(_REGIME)}")
        if (role == "self") != (not partner):
            raise ValueError(
                f"partner {partner!r} is not allowed with role {role!r}; allowed: none for "
                "self, a registry spec for play and predict"
            )
        allowed = ("none", "literal", "policy") if role == "self" else ("none", "literal")
        if env.belief not in allowed:
            raise ValueError(
                f"env.belief {env.belief!r} is not allowed with role {role!r}; allowed: "
                + ", ".join(map(repr, allowed))
            )
        self.games = Games(env, num_games, seed, autoreset=False)
        self.belief = PolicyBelief(self.games) if env.belief == "policy" else None
        self._model: Callable[[], Any] | None = None
        self.regime = _REGIME[role]
        self.scripted = ScriptedRole(partner, num_games, seed) if partner else None
        size = self.games.layout.size
        self.render_mode = None  # SB3 asks the envs for it
        super().__init__(
            num_games,
            gymnasium.spaces.Box(-np.inf, np.inf, (size,), np.float32),
            gymnasium.spaces.Discrete(NUM_ACTIONS),
        )
        self._mask = np.zeros((num_games, NUM_ACTIONS), bool)
        self._actions = np.zeros(num_games, np.int64)
        self._return = np.zeros(num_games, np.float64)
        self._length = np.zeros(num_games, np.int64)
        self._start = np.full(num_games, time.time())
        self.learner_steps = 0
        """Decisions the learner took (SB3's counter also counts the partner's)."""

    # --- SB3's VecEnv ---------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """The games as they are (dealt at construction, restarted as they end)."""
        self._return[:] = 0
        self._length[:] = 0
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        g = self.games
        decider = g.decider
        if self.belief is not None:  # the turn's first plays, judged by the current policy
            self.belief.record(g, self._obs, self._mask, self._actions, self._network())
        self.learner_steps += int(self._learn.sum())
        reward, terminated, truncated, final = g.step(self._actions)
        self._return += reward
        self._length += 1
        done = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(done)
        if ended.size:
            self._finish(ended, decider[ended], terminated, final, infos)
        return self._observe(), reward.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        """bool[num_envs, 259]: what each game's decider may do now (for a partner's
        decision, only the partner's choice)."""
        return self._mask

    def close(self) -> None:
        pass

    def use_model(self, source: Callable[[], Any]) -> None:
        """Where the policy-conditioned belief gets its network: ``source()`` returns an
        object with ``logits(obs, mask)`` (:class:`PolicyLogits`), asked at every step."""
        self._model = source

    def _network(self) -> Any:
        if self._model is None:
            raise RuntimeError(
                "belief 'policy' needs a network: call use_model() (the SB3 trainer does)"
            )
        return self._model()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def env_method(
        self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any
    ) -> list[Any]:
        if method_name == "action_masks":  # MaskablePPO asks every env for its row
            return list(self._mask[self._indices(indices)])
        result = getattr(self, method_name)(*args, **kwargs)
        return [result] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    # --- helpers --------------------------------------------------------------------

    def _indices(self, indices: Any) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else list(indices)

    def _observe(self) -> np.ndarray:
        g = self.games
        obs = g.observe()  # a new array (Games concatenates the parts)
        self._mask = g.legal_mask().copy()
        if self.belief is not None:  # self-play only: every mask is the real one
            self._obs = obs.copy()
            self.belief.fill(obs, g)
        self._learn = learner_decides(g, self.regime)
        if self.scripted is not None and not self._learn.all():
            which = np.flatnonzero(~self._learn)
            forced = self.scripted.act(g, which)
            self._mask[which] = False
            self._mask[which, forced] = True
        return obs

    def _finish(
        self,
        ended: np.ndarray,
        last_decider: np.ndarray,
        terminated: np.ndarray,
        final: dict[str, np.ndarray],
        infos: list[dict[str, Any]],
    ) -> None:
        g = self.games
        terminal = g.observe_games(ended, last_decider)
        now = time.time()
        for j, (e, difficulty) in enumerate(zip(ended, g.difficulty_of(ended), strict=True)):
            infos[e] = {
                "terminal_observation": terminal[j],
                "TimeLimit.truncated": not terminated[e],
                "episode": {
                    "r": float(self._return[e]),
                    "l": int(self._length[e]),
                    "t": now - self._start[e],
                },
                "won": bool(final["won"][e]),
                "score": int(final["score"][e]),
                "difficulty": difficulty,
            }
        g.restart(ended)
        if self.belief is not None:
            self.belief.restart(ended)
        if self.scripted is not None:
            self.scripted.restart(ended)
        self._return[ended] = 0
        self._length[ended] = 0
        self._start[ended] = now
