"""The ``Play`` and ``Predict`` ids as Gymnasium vector environments over the batched engine.

| | |
|---|---|
| Make | ``gymnasium.make_vec("ShipwreckArcana-Play-v0", num_envs=N, vectorization_mode="vector_entry_point", partner=...)`` (``-Predict-v0`` alike) |
| Class | :class:`ShipwreckRoleVectorEnv` |
| Action space | ``MultiDiscrete([259] * N)`` (``single_action_space = Discrete(259)``) |
| Observation space | ``Box(0, 100, (N, D), float32)``, as the single env's |
| Autoreset | ``AutoresetMode.SAME_STEP`` |
| Version history | v0: first release |

### Description
``N`` games of ``ShipwreckArcana-Play-v0`` (the learner takes every decision of the
active player: plays, The Thief, Shells/Sinners, ...; the partner takes every other
player's) or ``ShipwreckArcana-Predict-v0`` (the learner takes the group's decisions:
reveals, powers, predictions, votes, ...; the partner plays), stepped at once by one
:class:`~shipwreck_env.vector.game.VectorGame`. Sub-environment ``i`` behaves like the
single env :class:`~shipwreck_env.envs.gym_env.ShipwreckGymEnv` of the same role: only the
learner's decisions are steps, the partner's are taken inside :meth:`step` (and inside
:meth:`reset`, before the learner's first decision), and the same game with the same
deterministic partner gives the same observations, masks, rewards and ends
(``tests/shipwreck_env/envs/test_gym_vector_roles.py`` checks it game for game). Chance comes from the
batched engine's per-game streams, so a seed deals other games than the single env's.

### Partners
``partner`` decides for the others, as in the single env: a
:class:`~shipwreck_env.envs.policy.Policy` or a plain callable ``partner(observation, view,
rng) -> action``; default: uniformly random legal actions. A policy that offers a
batched twin (:meth:`~shipwreck_env.envs.policy.Policy.batched`; in ``shipwreck_agents``:
``heuristic`` and ``bayes``, see ``agents/scripted/twins.py``) decides in every game at
once in compiled code. Any other partner is asked game by game through
:func:`~shipwreck_env.envs.policy.decide`, on the reference state converted from the batch
(:meth:`~shipwreck_env.vector.game.VectorGame.to_states`): correct, and about as slow
as the single env. A partner that keeps memory (its class overrides ``reset``) is copied
once per game place (``copy.deepcopy``) and reset whenever its place deals a new game.

### Action Space, Observation Space
As :class:`~shipwreck_env.envs.gym_vector.ShipwreckVectorEnv`'s: ``Discrete(259)`` per
game; :meth:`ShipwreckRoleVectorEnv.action_masks` gives ``bool[N, 259]``, the learner's
legal actions, never an empty row (every game waits for the learner after ``reset`` and
``step``). An action of the wrong shape or dtype, out of range or illegal in any game
raises ``ValueError`` and no game changes. Row ``i`` of the observation is what the
player the learner acts for sees (:attr:`ShipwreckRoleVectorEnv.decider`).

### Rewards
The team's, float32, summed over the learner's decision and the partner's decisions
that follow it, as the single env sums them: ``"win_loss"`` (+1 won, -1 lost) or
``"score_doom"`` (+1 per point, -1 per doom).

### Episode End / autoreset
As :class:`~shipwreck_env.envs.gym_vector.ShipwreckVectorEnv`'s: a game ends
(``terminations[i]`` won or lost, ``truncations[i]`` at ``max_turns``) after the
learner's decision or a partner decision after it; the new game is dealt in the same
step, its partner decisions are taken up to the learner's first one, and ``infos``
holds ``final_obs`` (the ended game seen by the player of the learner's last decision,
as the single env returns it) and ``final_info`` (``score``, ``doom``, ``won``) with
their masks; every ``reset`` and ``step`` also holds the per-game ``score``, ``doom``,
``won`` and ``action_mask`` of the games in play, as ``ShipwreckVectorEnv`` does. A dealt game that ends before the learner's first decision is dealt again
(the single env would hand the learner a finished game).

### Arguments
``num_envs``, ``role`` (``"play"`` or ``"predict"``: the id's registered default),
``partner``, ``seed``, ``reward``, ``belief``, ``render_mode`` (only ``None``) and every
:class:`~shipwreck_env.rules.config.GameConfig` field. ``illegal_action`` and reset options
are not taken (an illegal action raises; use the single env for those).

### Seeding
``reset(seed=s)`` restarts every game's stream from ``s`` and the partner's generator
from ``[s, 1]``: the same seed and actions give the same trajectory. The first reset
without a seed uses the constructor's.

### Example
A masked random learner playing with the Bayesian group:

```python
import gymnasium
import numpy as np

import shipwreck_env  # registers the ids
from shipwreck_agents.registry import make_policy

envs = gymnasium.make_vec(
    "ShipwreckArcana-Play-v0",
    num_envs=16,
    vectorization_mode="vector_entry_point",
    partner=make_policy("bayes"),
    num_players=3,
)
rng = np.random.default_rng(0)
obs, infos = envs.reset(seed=42)
games = 0
for _ in range(100):
    mask = envs.action_masks()  # bool[16, 259], never an empty row
    actions = (rng.random(mask.shape) * mask).argmax(axis=1)  # your policy here
    obs, rewards, terminations, truncations, infos = envs.step(actions)
    games += int((terminations | truncations).sum())
envs.close()
```
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from shipwreck_env.envs.gym_vector import ShipwreckVectorEnv
from shipwreck_env.envs.policy import (
    BatchedPartner,
    Policy,
    decide,
    keeps_memory,
    observation_layouts,
)
from shipwreck_env.rules.actions import NUM_ACTIONS, describe
from shipwreck_env.rules.engine import IllegalActionError
from shipwreck_env.vector import jit as _jit
from shipwreck_env.vector.engine import count_illegal, legal_masks, step_rewarded
from shipwreck_env.vector.game import VectorGame
from shipwreck_env.vector.jit import njit, pack, rules_for

__all__ = ["ROLES", "ShipwreckRoleVectorEnv"]

ROLES = ("play", "predict")
"""The roles this env takes (``self``: :mod:`shipwreck_env.envs.gym_vector`)."""
_PARTNER_DECIDES = {"play": "group", "predict": "play"}
"""Role of the learner -> the decisions the partner takes (``Policy.batched``'s words)."""
_MAX_DEALS = 100
"""Deals in a row of one place that may end before the learner decides (a guard)."""

# The kernel below calls the batched rules: its cached code must go stale when they or
# this file change (numba alone checks only this file).
_jit.stamp_cache(__file__)


@njit
def step_games_of(s, r, games, actions, score_doom, reward) -> None:
    """Apply ``actions[i]`` in game ``games[i]`` (legal, in live games; the other games
    are untouched) and add the team reward of each decision to ``reward[games[i]]``,
    as ``engine.step_games`` counts it (no restart)."""
    for i in range(len(games)):
        g = games[i]
        reward[g] += step_rewarded(s, r, g, actions[i], score_doom)


class _Seeded:
    """A partner of this module: draws from the env's partner generator ``rng`` (set by
    the env at each seeded reset)."""

    rng: np.random.Generator


class _Uniform(_Seeded):
    """The default partner: a uniformly random legal action per game."""

    def restart(self, games: np.ndarray) -> None:
        """No memory."""

    def act(self, game: VectorGame, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return VectorGame.random_legal(mask[games], self.rng)


class _PerGame(_Seeded):
    """Any other partner, asked game by game through :func:`decide` on reference states
    (one copy per game place when it keeps memory)."""

    def __init__(self, policy: Policy, num_games: int, game: VectorGame) -> None:
        self.policies = [
            copy.deepcopy(policy) if keeps_memory(policy) else policy for _ in range(num_games)
        ]
        self.layouts = observation_layouts(game.config)

    def restart(self, games: np.ndarray) -> None:
        for g in games:
            self.policies[int(g)].reset()

    def act(self, game: VectorGame, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = np.empty(len(games), np.int64)
        for i, (g, s) in enumerate(zip(games, game.to_states(games.tolist()), strict=True)):
            out[i] = decide(self.policies[int(g)], s, self.layouts, self.rng).action
        return out


def _partner_twin(
    partner: Policy | Callable | None, num_games: int, game: VectorGame, role: str, belief: bool
) -> BatchedPartner:
    """What takes the partner's decisions in every game (see the module docstring)."""
    from shipwreck_env.envs.gym_env import CallablePartner, random_partner

    if partner is None or partner is random_partner:
        return _Uniform()
    if not callable(partner):
        raise ValueError(
            f"partner {partner!r} is not allowed; allowed: None, a shipwreck_env.envs.policy."
            "Policy or a callable partner(observation, view, rng) -> action"
        )
    if isinstance(partner, Policy):
        twin = partner.batched(num_games, game.config, _PARTNER_DECIDES[role])
        if twin is not None:
            return twin
        return _PerGame(partner, num_games, game)
    return _PerGame(CallablePartner(partner, belief), num_games, game)


class ShipwreckRoleVectorEnv(ShipwreckVectorEnv):
    """``num_envs`` games with one learner role and a partner; see the module docstring.

    Args:
        num_envs: how many games run side by side (>= 1).
        role: ``"play"`` or ``"predict"``.
        partner: the others' policy (``None``: uniformly random).
        seed: seed of the games and of the partner's generator at the first unseeded
            ``reset()`` (``None``: from the operating system).
        reward: ``"win_loss"`` or ``"score_doom"``.
        belief: append the literal belief block to observations.
        render_mode: only ``None``.
        **config: every :class:`~shipwreck_env.rules.config.GameConfig` field.

    Raises:
        ValueError: a bad argument, another role, or a partner that is not callable.
    """

    roles: ClassVar[tuple[str, ...]] = ROLES

    def __init__(
        self,
        num_envs: int,
        *,
        role: str = "play",
        partner: Policy | Callable | None = None,
        seed: int | None = None,
        reward: str = "win_loss",
        belief: bool = False,
        render_mode: str | None = None,
        **config: Any,
    ) -> None:
        super().__init__(
            num_envs,
            seed=seed,
            reward=reward,
            belief=belief,
            role=role,
            render_mode=render_mode,
            **config,
        )
        game = self.game
        self.partner = partner
        self._twin = _partner_twin(partner, self.num_envs, game, role, belief)
        # The env steps chosen games only (the partner's, then the learner's), which
        # VectorGame.step does not do: it holds its own handles on the same arrays.
        self._state = pack(game.arrays)
        self._rules = rules_for(game.config, game.cards)
        self._score_doom = game.reward_kind == "score_doom"
        self._mask = np.zeros((self.num_envs, NUM_ACTIONS), bool)
        self._everyone = np.arange(self.num_envs, dtype=np.int64)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal new games in every sub-environment and take the partner's decisions up
        to the learner's first (arguments and errors as
        :meth:`ShipwreckVectorEnv.reset`).

        Returns:
            ``(obs, infos)``: float32 ``[N, D]`` observations and the per-game infos.
        """
        first = not self._reset_once
        seed = self._reset_seed(seed, options)
        if isinstance(self._twin, _Seeded) and (seed is not None or first):
            self._twin.rng = np.random.default_rng(None if seed is None else [seed, 1])
        self.game.reset(seed)
        self._deal(self._everyone, restarted=False)
        return self.game.observe().copy(), self._step_infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner decision in every game, then the partner's until the learner
        decides again; finished games restart in the same step.

        Args:
            actions: int ``[N]``, one legal action per game.

        Returns:
            ``(obs, rewards, terminations, truncations, infos)`` as
            :meth:`ShipwreckVectorEnv.step` returns them.

        Raises:
            ValueError: ``actions`` has the wrong shape or dtype, or an action is out of
                range or illegal in some game; then no game changes.
            RuntimeError: ``step`` before the first ``reset``.
            IllegalActionError: the partner chose an illegal action.
        """
        if not self._reset_once:
            raise RuntimeError("step() called before reset(); call reset() first")
        actions = self._check_actions(actions)
        decider = self.game.decider  # every game waits for the learner here
        rewards = np.zeros(self.num_envs, np.float32)
        step_games_of(self._state, self._rules, self._everyone, actions, self._score_doom, rewards)
        self._partners_decide(rewards)
        a = self.game.arrays
        ended = a.over.copy()
        truncations = ended & a.truncated
        infos: dict[str, Any] = {}
        if ended.any():
            infos = self._final_infos(ended, decider)
            self._deal(np.flatnonzero(ended), restarted=True)
        infos.update(self._step_infos())
        return self.game.observe().copy(), rewards, ended & ~truncations, truncations, infos

    def action_masks(self) -> np.ndarray:
        """bool ``[N, 259]``: the learner's legal actions in each game now (a copy)."""
        return self._mask.copy()

    # --- helpers ------------------------------------------------------------------------

    def _deal(self, games: np.ndarray, restarted: bool) -> None:
        """New games in places ``games`` (``restarted``: their streams go on), each
        played by the partner up to the learner's first decision; a game that ends
        before it is dealt again. Rewards of these decisions belong to no step."""
        for _ in range(_MAX_DEALS):
            if restarted:
                self.game.restart(games)
            self._twin.restart(games)
            self._partners_decide(np.zeros(self.num_envs, np.float32))
            games = games[self.game.arrays.over[games]]
            if not games.size:
                return
            restarted = True
        raise RuntimeError(
            f"games {games.tolist()} ended before the learner's first decision "
            f"{_MAX_DEALS} deals in a row; the learner's role {self.role!r} has no decision "
            f"in them ({self.config})"
        )

    def _partners_decide(self, rewards: np.ndarray) -> None:
        """Let the partner decide in every live game that waits for it, until none does;
        adds the team rewards to ``rewards`` and leaves the learner's masks in ``_mask``."""
        a = self.game.arrays
        players = self.config.num_players
        while True:
            legal_masks(self._state, self._rules, self._mask)
            decider = a.decider.astype(np.int64)
            active = decider == a.active.astype(np.int64) % players
            waiting = (decider >= 0) & (~active if self.role == "play" else active)
            games = np.flatnonzero(waiting)
            if not games.size:
                return
            chosen = np.asarray(self._twin.act(self.game, games, self._mask), np.int64)
            bad = ~self._mask[games, chosen]
            if bad.any():
                g, action = int(games[bad][0]), int(chosen[bad][0])
                raise IllegalActionError(
                    f"the partner failed: it chose action {action} in game {g}, which is "
                    f"not legal; legal: {np.flatnonzero(self._mask[g]).tolist()}"
                )
            step_games_of(self._state, self._rules, games, chosen, self._score_doom, rewards)

    def _check_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as int64 ``[N]`` if each is legal in its game, else ValueError."""
        arr = np.asarray(actions)
        if arr.shape != (self.num_envs,) or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(
                f"actions of shape {arr.shape} and dtype {arr.dtype} are not allowed; "
                f"allowed: integers of shape ({self.num_envs},), one action per game"
            )
        arr = arr.astype(np.int64)
        if not count_illegal(self._mask, arr, self.game.arrays.over):
            return arr
        g = int(
            np.flatnonzero(
                (arr < 0) | (arr >= NUM_ACTIONS) | ~self._mask[self._everyone, arr % NUM_ACTIONS]
            )[0]
        )
        shown = describe(int(arr[g])) if 0 <= arr[g] < NUM_ACTIONS else "not an action number"
        raise ValueError(
            f"action {int(arr[g])} [{shown}] in game {g} is not legal, no game changed; "
            f"legal: {np.flatnonzero(self._mask[g]).tolist()}"
        )
