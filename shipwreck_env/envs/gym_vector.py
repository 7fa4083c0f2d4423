"""Self-play Shipwreck Arcana as a Gymnasium vector environment over the batched engine.

| | |
|---|---|
| Make | ``gymnasium.make_vec("ShipwreckArcana-v0", num_envs=N, vectorization_mode="vector_entry_point")`` |
| Class | :class:`ShipwreckVectorEnv` |
| Action space | ``MultiDiscrete([259] * N)`` (``single_action_space = Discrete(259)``) |
| Observation space | ``Box(0, 100, (N, D), float32)`` (``single_observation_space = Box(0, 100, (D,), float32)``) |
| Autoreset | ``AutoresetMode.SAME_STEP`` |
| Version history | v0: first release |

### Description
``N`` games of ``ShipwreckArcana-v0`` (self-play: the learner decides for whichever
player must decide in each game) stepped at once by one
:class:`~shipwreck_env.vector.game.VectorGame`. Sub-environment ``i`` behaves like the
single env :class:`~shipwreck_env.envs.gym_env.ShipwreckGymEnv` with ``role="self"`` (same
rules, observation vector, rewards and end info); its chance outcomes come from the
batched engine's per-game random stream, so a seed gives other games than the single
env's seed does. Every card set is covered, as by the batched engine.

### Action Space
``Discrete(259)`` per game, the engine's action list (:mod:`shipwreck_env.rules.actions`).
:meth:`ShipwreckVectorEnv.action_masks` gives ``bool[N, 259]``, the legal actions of
each game's decider (the method sb3-contrib's ``MaskablePPO`` reads). An action of the
wrong shape or dtype, out of range or illegal in any game raises ``ValueError`` and no
game changes (there is no "terminate on illegal action" mode, unlike the single env).

### Observation Space
Row ``i`` is the observation vector (:mod:`shipwreck_env.rules.observation`) of the player who
must decide next in game ``i`` (:attr:`ShipwreckVectorEnv.decider`), exactly as the AEC
env / the single env gives it to that player; bounds and dtype as the single env's.
``belief=True`` appends the literal belief block.

### Rewards
The team's, per game, float32: ``"win_loss"`` (+1 won, -1 lost, 0 otherwise, also at a
truncation) or ``"score_doom"`` (+1 per point, -1 per doom, as they happen).

### Episode End / autoreset
A game terminates when it is won or lost and is truncated after ``max_turns`` turns.
Finished games restart in the same ``step`` (Gymnasium's ``SAME_STEP`` autoreset, as
``metadata["autoreset_mode"]`` says): that step returns the final reward and
``terminations[i]`` / ``truncations[i]``, and ``obs[i]`` / ``action_masks()[i]`` already
belong to the new game. Then ``infos`` holds, as Gymnasium's ``SyncVectorEnv`` does:

* ``infos["final_obs"]``: object array ``[N]``, the finished game's last observation (a
  float32 ``[D]`` array, seen by the player who made the final decision, as the single
  env returns it) where ``infos["_final_obs"]`` is True, ``None`` elsewhere;
* ``infos["final_info"]``: ``{"score": int64[N], "doom": int64[N], "won": bool[N],
  "action_mask": int8[N, 259]}`` (the single env's last info: the mask of an ended game
  allows only action 0), each with its mask (``"_score"``, ...), and
  ``infos["_final_info"]``: bool ``[N]``, the games that ended.

Every ``reset`` and ``step`` also returns, for every game (as ``SyncVectorEnv`` stacks
the single env's info, each key with its ``"_key"`` mask, all True): ``score``,
``doom`` (int64 ``[N]``, the games in play now, so a restarted game's), ``won`` (bool
``[N]``) and ``action_mask`` (int8 ``[N, 259]``, what :meth:`ShipwreckVectorEnv.action_masks`
gives), the keys the single env's info holds; code written for
``vectorization_mode="sync"`` reads them the same way here.

### Arguments
``num_envs`` (games, >= 1), ``seed`` (the first ``reset()`` without a seed uses it; game
``i``'s chance depends only on the seed and ``i``), ``reward`` (``"win_loss"`` or
``"score_doom"``), ``belief`` (bool), ``role`` (only ``"self"``: the id's registered
default; the ``Play`` / ``Predict`` ids have :mod:`shipwreck_env.envs.gym_roles`),
``render_mode`` (only ``None``) and every field of
:class:`~shipwreck_env.rules.config.GameConfig` (``num_players``, ``difficulty``,
``card_sets``, ``group_decision``, ``challenge_mode``, ``reveal``, ``max_turns``).

### Seeding
``reset(seed=s)`` starts every game's stream from ``s``: the same seed and actions give
the same trajectory, and the observations equal a ``VectorGame(N, seed=s)`` stepped with
the same actions. ``reset()`` without a seed deals new games that follow from the
earlier streams.

### Example
The batched counterpart of the AEC loop, a masked random policy:

```python
import gymnasium
import numpy as np

import shipwreck_env  # registers the ids

envs = gymnasium.make_vec(
    "ShipwreckArcana-v0", num_envs=8, vectorization_mode="vector_entry_point", num_players=3
)
rng = np.random.default_rng(0)
obs, infos = envs.reset(seed=42)
won = lost = 0
for _ in range(200):
    mask = envs.action_masks()  # bool[8, 259]
    actions = (rng.random(mask.shape) * mask).argmax(axis=1)  # your policy here
    obs, rewards, terminations, truncations, infos = envs.step(actions)
    if "final_info" in infos:  # games that ended in this step (already restarted)
        ended = infos["_final_info"]
        won += int(infos["final_info"]["won"][ended].sum())
        lost += int((ended & ~infos["final_info"]["won"]).sum())
envs.close()
```
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from shipwreck_env.envs.gym_env import ENDED_ACTION
from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.vector.game import VectorGame

__all__ = ["ROLES", "ShipwreckVectorEnv"]

ROLES = ("self",)
"""The roles this env takes (``play`` / ``predict``: :mod:`shipwreck_env.envs.gym_roles`)."""


class ShipwreckVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` self-play games of Shipwreck Arcana; see the module docstring.

    Args:
        num_envs: how many games run side by side (>= 1).
        seed: seed of the games dealt at construction and by the first ``reset()``
            without a seed (``None``: from the operating system).
        reward: ``"win_loss"`` or ``"score_doom"``.
        belief: append the literal belief block to observations.
        role: only ``"self"`` (accepted because ``make_vec`` passes the id's default).
        render_mode: only ``None`` (no rendering).
        **config: every :class:`~shipwreck_env.rules.config.GameConfig` field.

    Raises:
        ValueError: a bad argument, another role, or card sets the batched engine does
            not cover.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": [],
    }
    roles: ClassVar[tuple[str, ...]] = ROLES
    """The roles this class takes."""

    def __init__(
        self,
        num_envs: int,
        *,
        seed: int | None = None,
        reward: str = "win_loss",
        belief: bool = False,
        role: str = "self",
        render_mode: str | None = None,
        **config: Any,
    ) -> None:
        if role not in self.roles:
            raise ValueError(
                f"role {role!r} is not allowed; allowed: {list(self.roles)} (the "
                "'play' / 'predict' roles are ShipwreckRoleVectorEnv's, made by "
                "gymnasium.make_vec on their ids)"
            )
        if render_mode is not None:
            raise ValueError(f"render_mode {render_mode!r} is not allowed; allowed: None")
        # We restart finished games ourselves, after reading their final observation.
        self.game = VectorGame(
            num_envs, seed, reward=reward, belief=belief, autoreset=False, **config
        )
        self.config = self.game.config
        self.num_envs = self.game.num_games
        self.role = role
        self.render_mode = None
        self._seed = seed
        self._reset_once = False
        self.single_observation_space = gymnasium.spaces.Box(
            0.0, 100.0, (self.game.layout.size,), np.float32
        )
        self.single_action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal new games in every sub-environment.

        Args:
            seed: restart every game's random stream from it (an integer >= 0); without
                one the first reset uses the constructor's seed and later ones go on
                with the streams.
            options: no options are supported (``None`` or ``{}``).

        Returns:
            ``(obs, infos)``: float32 ``[N, D]`` observations and the per-game infos.

        Raises:
            ValueError: a bad seed or any option.
        """
        self.game.reset(self._reset_seed(seed, options))
        return self.game.observe().copy(), self._step_infos()

    def _reset_seed(self, seed: Any, options: dict[str, Any] | None) -> int | None:
        """The seed the games restart from (``None``: their streams go on), after the
        arguments of :meth:`reset` are checked and ``np_random`` is seeded."""
        if options:
            raise ValueError(f"reset options {sorted(options)!r} are not allowed; allowed: none")
        if seed is not None and (
            not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0
        ):
            raise ValueError(
                f"seed {seed!r} is not allowed; allowed: None or an integer >= 0 "
                "(one seed for all games; game i's chance depends on the seed and i)"
            )
        seed = None if seed is None else int(seed)
        super().reset(seed=seed)  # seeds self.np_random (unused by the games)
        if seed is None and not self._reset_once:
            seed = self._seed
        self._reset_once = True
        return seed

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision in every game; finished games restart in the same step.

        Args:
            actions: int ``[N]``, one legal action per game.

        Returns:
            ``(obs, rewards, terminations, truncations, infos)``: float32 ``[N, D]``,
            float32 ``[N]``, bool ``[N]``, bool ``[N]`` and the info dict described in the
            module docstring (``final_obs`` / ``final_info`` of the games that ended).

        Raises:
            ValueError: ``actions`` has the wrong shape or dtype, or an action is out of
                range or illegal in some game; then no game changes.
            RuntimeError: ``step`` before the first ``reset``.
        """
        if not self._reset_once:
            raise RuntimeError("step() called before reset(); call reset() first")
        game = self.game
        decider = game.decider  # every game is live here: finished ones were restarted
        rewards, terminations, truncations = game.step(actions)
        ended = terminations | truncations
        infos: dict[str, Any] = {}
        if ended.any():
            infos = self._final_infos(ended, decider)
            game.restart(np.flatnonzero(ended))  # as VectorGame's own autoreset
        infos.update(self._step_infos())
        return game.observe().copy(), rewards, terminations, truncations, infos

    def _step_infos(self) -> dict[str, Any]:
        """The per-game keys every ``reset`` and ``step`` returns (module docstring), of
        the games in play now."""
        score, doom, won = self.game.tallies()
        everyone = np.ones(self.num_envs, bool)
        infos: dict[str, Any] = {
            "score": score,
            "doom": doom,
            "won": won,
            "action_mask": self.action_masks().view(np.int8),
        }
        for key in list(infos):
            infos[f"_{key}"] = everyone
        return infos

    def _final_infos(self, ended: np.ndarray, decider: np.ndarray) -> dict[str, Any]:
        """SyncVectorEnv's SAME_STEP infos for the games that just ``ended`` (their last
        decision was by ``decider``), read before they restart."""
        games = np.flatnonzero(ended)
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i, row in zip(games, self.game.observe(games, decider[games]), strict=True):
            final_obs[i] = row
        tallies = self.game.tallies()  # the ended games are over, not yet restarted
        final_info: dict[str, np.ndarray] = {}
        for key, values in zip(("score", "doom", "won"), tallies, strict=True):
            final_info[key] = np.where(ended, values, 0).astype(values.dtype)
            final_info[f"_{key}"] = ended.copy()
        # as the single env's last info: an ended game allows only ENDED_ACTION
        final_info["action_mask"] = np.zeros((self.num_envs, NUM_ACTIONS), np.int8)
        final_info["action_mask"][games, ENDED_ACTION] = 1
        final_info["_action_mask"] = ended.copy()
        return {
            "final_obs": final_obs,
            "_final_obs": ended.copy(),
            "final_info": final_info,
            "_final_info": ended.copy(),
        }

    def action_masks(self) -> np.ndarray:
        """bool ``[N, 259]``: the legal actions of each game's decider now (a copy)."""
        return np.array(self.game.legal_mask(), dtype=bool, copy=True)

    @property
    def decider(self) -> np.ndarray:
        """int64 ``[N]``: the player each row of the latest observation belongs to."""
        return self.game.decider
