"""Single-agent Gymnasium views of the game, for one learner and pluggable partners.

Three roles, registered by ``shipwreck_env.__init__``:

| id | the learner decides | partners decide |
|---|---|---|
| ``ShipwreckArcana-v0`` | everything (self-play: whichever player must decide) | nothing |
| ``ShipwreckArcana-Play-v0`` | the active player's decisions (play, Thief, Shells/Sinners, ...) | the group's |
| ``ShipwreckArcana-Predict-v0`` | the group's decisions (reveals, powers, predictions, votes, ...) | the active player's |

### Action space
Discrete(259), the engine's action list; ``action_masks()`` gives the legal ones (the
method sb3-contrib's ``MaskablePPO`` reads) as booleans, and ``info["action_mask"]``
holds the same mask as int8 after every ``reset`` and ``step``: the form Gymnasium's
``Discrete.sample(mask=...)`` takes and AgileRL's algorithms read from the info;
Gymnasium's vector envs stack it into ``int8[N, 259]``. An action
outside the space raises ``ValueError``; ``action_masks()`` before the first ``reset()``
raises ``RuntimeError``.

Once an episode has ended, the mask allows exactly action :data:`ENDED_ACTION` (0) and
nothing else: Gymnasium's vector envs (``make_vec`` in ``"sync"`` and ``"async"`` mode)
reset an ended game on the *next* step and ignore the action given for it, so a masked
sampler is handed a mask with one legal action -- never an empty one -- whose
log-probability is 0 under any masked policy (that step trains nothing). ``step()`` on
an ended episode still raises until ``reset()``.

### Illegal actions
As in the PettingZoo env (``shipwreck_env.env()``): a legal-space action that is
illegal now ends the episode -- ``terminated=True``, reward -1,
``info["illegal_action"]`` names it -- and the game is over for this episode (the next
``step()`` raises until ``reset()``); the state is left as it was. With
``illegal_action="raise"`` it raises :class:`~shipwreck_env.rules.engine.IllegalActionError`
instead and changes nothing (as the unwrapped ``raw_env`` does).

### Observation space
The observation vector of the player the learner acts for (``shipwreck_env.rules.observation``).

### Rewards
The team's: ``"win_loss"`` or ``"score_doom"`` (as in the AEC env), summed over the
partner decisions between two learner decisions.

### Episode end
Win or loss: ``terminated``. ``max_turns`` reached: ``truncated`` (not terminated: the
game did not end by its rules).

### Info
Every ``reset`` and ``step`` returns the same keys (libraries that build their info
layout from the reset info, such as TorchRL, then see them all): ``score``, ``doom``
(the team's counts now), ``won`` (False until a winning end) and ``action_mask``. A step
with an illegal action adds ``illegal_action``.

### Arguments
Every :class:`~shipwreck_env.rules.config.GameConfig` field, ``reward``, ``belief``,
``render_mode``, ``partner`` and ``illegal_action``. ``partner`` decides for the others (a partner that keeps memory between decisions
-- see :func:`~shipwreck_env.envs.policy.keeps_memory` -- is copied, so that the envs
Gymnasium's vector modes make from one set of keyword arguments never share a memory):
a :class:`~shipwreck_env.envs.policy.Policy` (any ``shipwreck_agents.registry`` policy, trained models
and the oracle included), asked through :func:`shipwreck_env.envs.policy.decide` -- so it
gets observations in its own layout and, if it declares ``needs_state``, the state -- or
a plain callable ``partner(observation, view, rng) -> action`` where ``observation`` is
``{"observation", "action_mask"}`` in this env's layout and ``view`` an
:class:`~shipwreck_env.rules.view.AgentView`; default :func:`random_partner`.

### Reset options
``reset(options={...})`` changes :class:`~shipwreck_env.rules.config.GameConfig` fields from
that episode on (``{"difficulty": "hard"}``, ``{"max_turns": 50}``, ...); the fields
that fix the spaces (``num_players``, ``challenge_mode``) cannot change.

### Seeding
``reset(seed=...)`` seeds the game and the partners: the game is
``new_game(config, default_rng(seed))`` of the reference engine (the PettingZoo env's
game for that seed in its version 0; version 1 deals the batched engine's), and the same
seed and actions give the same episode. ``reset()``
without a seed draws the next game's seed from the generator seeded last (Gymnasium's
convention; the PettingZoo env does the same), so ``reset(seed=1); reset()`` always gives
the same second game. The environment pickles (for subprocess vector envs) when its
partner does.

### Rendering
``render()`` shows the public table; ``render(viewer=p)`` shows player ``p``'s table
(their own held fates too).

### Version history
v0: first release.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np

from shipwreck_env.envs.episodes import apply_reset_options, episode_seed
from shipwreck_env.envs.policy import Policy, decide, keeps_memory, let_watch
from shipwreck_env.envs.render import RENDER_MODES, check_render_mode, render_mode_output
from shipwreck_env.rules.actions import NUM_ACTIONS, describe
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import IllegalActionError, legal_actions, new_game, step_inplace
from shipwreck_env.rules.observation import ObservationLayout, encode
from shipwreck_env.rules.rewards import check_reward, end_info, team_reward
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView, make_view

__all__ = [
    "ENDED_ACTION",
    "ROLES",
    "CallablePartner",
    "Partner",
    "ShipwreckGymEnv",
    "random_partner",
]

ROLES = ("self", "play", "predict")
ENDED_ACTION = 0
"""The one action an ended episode's mask allows (a vector env ignores it on the reset step)."""
Partner = Callable[[dict, AgentView, np.random.Generator], int]
"""A plain partner function: ``(observation dict, view, rng) -> legal action``."""


def random_partner(observation: dict, view: AgentView, rng: np.random.Generator) -> int:
    """Uniformly random among the legal actions."""
    legal = np.flatnonzero(observation["action_mask"])
    return int(legal[rng.integers(len(legal))])


class CallablePartner(Policy):
    """A plain partner function as a :class:`~shipwreck_env.envs.policy.Policy`, so that
    every partner is asked through :func:`~shipwreck_env.envs.policy.decide`. It reads the
    environment's own layout (``belief``) and is handed ``{"observation",
    "action_mask"}``; a ``reset`` method of the function's object is called per game."""

    needs_observation = True

    def __init__(self, function: Partner, belief: bool) -> None:
        self.function = function
        self.belief = belief
        self.name = f"partner {getattr(function, '__name__', type(function).__name__)}"

    def reset(self) -> None:
        reset = getattr(self.function, "reset", None)
        if callable(reset):
            reset()

    def act(self, observation, mask, view, rng, state=None) -> int:
        return int(self.function({"observation": observation, "action_mask": mask}, view, rng))


class ShipwreckGymEnv(gymnasium.Env):
    """One learner in a game of Shipwreck Arcana; see the module docstring."""

    metadata: ClassVar[dict] = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        role: str = "self",
        partner: Policy | Partner | None = None,
        reward: str = "win_loss",
        belief: bool = False,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        **config: Any,
    ) -> None:
        if role not in ROLES:
            raise ValueError(f"role {role!r} is not allowed; allowed: {list(ROLES)}")
        check_reward(reward)
        check_render_mode(render_mode)
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action {illegal_action!r} is not allowed; allowed: 'terminate', 'raise'"
            )
        if partner is not None and not callable(partner):
            raise ValueError(f"partner {partner!r} is not callable")
        self.config = GameConfig(**config)
        self.role = role
        if keeps_memory(partner):
            # Gymnasium's sync vector env passes one partner object to every env it makes:
            # a partner with memory shared by several games would mix their memories
            partner = copy.deepcopy(partner)
        self.partner = partner if partner is not None else random_partner
        self._partner_policy = (
            partner if isinstance(partner, Policy) else CallablePartner(self.partner, belief)
        )
        self.reward_kind = reward
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.layout = ObservationLayout.for_config(self.config, belief)
        self._layouts = {
            belief: self.layout,
            not belief: ObservationLayout.for_config(self.config, not belief),
        }
        self.observation_space = gymnasium.spaces.Box(0.0, 100.0, (self.layout.size,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.state: State | None = None
        self._game_rng: np.random.Generator | None = None
        self._partner_rng: np.random.Generator | None = None
        self._legal: list[int] = []
        self._player = 0
        self._ended = True  # no episode before reset()

    def _learner_decides(self, s: State) -> bool:
        if self.role == "self":
            return True
        active_decides = s.decider == s.active_player
        return active_decides if self.role == "play" else not active_decides

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode; ``options`` change config fields (see the module docstring)."""
        self.config = apply_reset_options(self.config, options)
        super().reset(seed=seed)
        game_seed = episode_seed(self.np_random, seed)
        self._game_rng = np.random.default_rng(game_seed)
        self._partner_rng = np.random.default_rng([game_seed, 1])
        self._partner_policy.reset()  # partners with memory start a new game
        self.state = new_game(self.config, self._game_rng)
        self._ended = False
        self._advance()
        return self._obs(), self._info()

    def step(self, action: Any):
        if not self.action_space.contains(action):
            raise ValueError(
                f"action {action!r} is not in the action space; allowed: 0..{NUM_ACTIONS - 1}"
            )
        s = self.state
        if s is None or s.over or self._ended:
            raise RuntimeError("step() called before reset() or after the episode ended")
        action = int(action)
        if action not in self._legal:
            if self.illegal_action == "raise":
                step_inplace(s, action, self._game_rng)  # raises the engine's clear error
            self._ended = True  # the episode ends here, as in the PettingZoo env
            info = self._info()
            info["illegal_action"] = f"{action} ({describe(action)}); legal: {self._legal}"
            return self._obs(), -1.0, True, False, info
        score, doom = s.score, s.doom
        step_inplace(s, action, self._game_rng, check=False)
        let_watch(self._partner_policy, s)
        self._advance()
        reward = team_reward(self.reward_kind, s, score, doom)
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, s.over and not s.truncated, s.truncated, self._info()

    def _advance(self) -> None:
        """Let partners decide until the learner must (or the game ends)."""
        s = self.state
        while True:
            self._legal = legal_actions(s)
            if s.over:
                return
            if self._learner_decides(s):
                self._player = s.decider
                return
            try:
                action = decide(self._partner_policy, s, self._layouts, self._partner_rng).action
            except IllegalActionError as exc:
                raise IllegalActionError(f"the partner failed: {exc}") from None
            step_inplace(s, action, self._game_rng, check=False)
            let_watch(self._partner_policy, s)

    def _obs(self) -> np.ndarray:
        return encode(self.state, self._player, self.layout)

    def _info(self) -> dict:
        """The info every ``reset`` and ``step`` returns (see the module docstring)."""
        info = end_info(self.state)
        info["action_mask"] = self.action_masks().view(np.int8)  # 0/1, as Discrete wants
        return info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now, as booleans (for ``MaskablePPO``); once the
        episode has ended, only :data:`ENDED_ACTION` (see the module docstring).

        Raises:
            RuntimeError: before the first ``reset()``.
        """
        if self.state is None:
            raise RuntimeError("action_masks() called before reset(); call reset() first")
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if self.state.over or self._ended:
            mask[ENDED_ACTION] = True
        else:
            mask[self._legal] = True
        return mask

    def view(self) -> AgentView:
        """What the player the learner acts for may know now.

        Raises:
            RuntimeError: before the first ``reset()``.
        """
        if self.state is None:
            raise RuntimeError("view() called before reset(); call reset() first")
        return make_view(self.state, self._player)

    def render(self, viewer: int | None = None) -> str | None:
        """The table in ``render_mode``: public, or as player ``viewer`` sees it."""
        return render_mode_output(self.state, self.render_mode, viewer)
