"""Shipwreck Arcana as a PettingZoo AEC environment.

| | |
|---|---|
| Import | `from shipwreck_env import env, raw_env` |
| Actions | Discrete(259): `shipwreck_env.rules.actions` (play, predict/vote, pass, reveal, powers with their arguments, costs, The Thief) |
| Agents | `player_0` ... `player_{n-1}` (2-5); in challenge mode each agent plays two seats |
| Observation | `{"observation": Box(float32), "action_mask": Box(int8, 259)}` |
| Action mask | the engine's legal set for the agent that must decide; all zeros for the others |
| Rewards | shared by every agent: `"win_loss"` (+1 / -1 at the end) or `"score_doom"` (+1 per point, -1 per doom, as they happen) |
| Version history | v1: the compiled engine, new seeding, infos from reset; v0: first release (see below) |

### Description
A cooperative deduction game: the active player holds two hidden fates, plays one in
front of an arcana card whose condition it satisfies, and the others try to predict the
one still hidden. Seven correct predictions win; seven doom lose. Decisions alternate
irregularly (the active player plays, other players may reveal, the leader -- or every
voter -- decides for the group), so ``agent_selection`` moves to whoever must decide.

### Observation
One flat float32 vector; seats and players ordered relative to the observer. Its slices
are listed by ``raw_env.observation_layout.markdown()`` (and in the README);
``shipwreck_env.rules.observation.to_text`` reads a vector back as text. With ``belief=True``
a 7-value literal posterior over the active player's hidden fate is appended.

### Arguments
Every field of :class:`~shipwreck_env.rules.config.GameConfig` (``num_players``,
``difficulty``, ``card_sets``, ``group_decision``, ``challenge_mode``, ``reveal``,
``max_turns``), plus ``reward`` (``"win_loss"`` or ``"score_doom"``), ``render_mode``
(``"ansi"`` or ``"human"``) and ``belief`` (bool).

### Episode end
Terminated for every agent when score reaches 7 or doom reaches 7; truncated (not
terminated) after ``max_turns`` turns.

### Infos
From ``reset()`` on, every agent's info holds ``score``, ``doom`` and ``won`` (their
values now: ``won`` is False until a game is won), for libraries that build their info
spec from the reset infos (TorchRL's ``PettingZooWrapper``). The info dicts are updated
in place. The action mask lives in the observation only: TorchRL reads it there and
fails on a second copy in the info, and no library tested reads an AEC env's mask from
the info (the single-agent Gymnasium env does carry it there; see
``shipwreck_env.envs.gym_env``).

### Illegal actions
:func:`env` (the usual way): an action outside the mask ends the game for every agent
(terminated and truncated, as PettingZoo's ``TerminateIllegalWrapper``), -1 to the
agent that chose it. The Gymnasium env does the same by default. The unwrapped
``raw_env`` raises :class:`~shipwreck_env.rules.engine.IllegalActionError` and changes
nothing (as the Gymnasium env with ``illegal_action="raise"``).

### Reset options
``reset(options={...})`` changes :class:`~shipwreck_env.rules.config.GameConfig` fields from
that game on (``{"difficulty": "hard"}``); ``num_players`` and ``challenge_mode`` fix the
agents and spaces and cannot change.

### Seeding
As in PettingZoo and Gymnasium: ``reset(seed=n)`` plays the game of seed ``n``;
``reset()`` draws the next game's seed from ``default_rng`` seeded by the last seeded
reset (``reset(seed=1); reset()`` always gives the same second game). The same seed and
actions give the same game. The game of seed ``n`` is, in v1, the batched engine's game 0
of ``VectorGame(1, seed=n)``, that is ``engine.new_game(config, g)`` continued with
``g = vector.chance.StreamGenerator(vector.chance.game_key(n))``; in v0,
``engine.new_game(config, default_rng(n))`` continued with that generator (as the
Gymnasium env). ``raw_env.stream()`` gives a generator that continues the current game's
chance outcomes in the reference engine. The environment pickles.

### State
``game_state`` (also ``state_``) is the reference :class:`~shipwreck_env.rules.state.State`,
hidden fates included, for analysis and debugging. In v1 it is rebuilt from the compiled
game when first read after a change (changing it changes nothing); assigning ``state_``
loads a state of the same configuration (then call ``_after_change()``).

### Version history
* v1 (``shipwreck_arcana_v1``, the default): the rules, observations and masks run on
  the compiled engine (``shipwreck_env.vector.single``), faster per step (the
  benchmark's AEC rows); a seed now names another game (see Seeding); infos hold ``score``, ``doom`` and
  ``won`` from ``reset()`` on. Rules, observation layout, masks and
  rewards are unchanged (a differential test compares them with the reference engine).
* v0 (``shipwreck_arcana_v0``, ``env(version=0)`` or ``raw_env_v0``): the pure-Python
  reference engine with v0's seeding; since v1 it has the same infos.

### Rendering
``render()`` shows the public table; ``render(viewer="player_1")`` (or ``1``) shows that
player's table, their own held fates included.
"""

from __future__ import annotations

import operator
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from shipwreck_env.envs.episodes import apply_reset_options, episode_seed
from shipwreck_env.envs.render import RENDER_MODES, check_render_mode, render_mode_output
from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import step_inplace
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.rules.reference_game import ReferenceGame
from shipwreck_env.rules.rewards import REWARDS, check_reward
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView, make_view
from shipwreck_env.vector.single import SingleGame

__all__ = ["REWARDS", "VERSIONS", "ShipwreckWrapper", "env", "raw_env", "raw_env_v0"]
_INT8 = np.dtype(np.int8)


def env(standard_wrappers: bool = False, version: int = 1, **kwargs: Any) -> AECEnv:
    """The environment with the usual classic-game wrapping: an action outside the
    space fails an assertion, an illegal action ends the game with -1 for the agent that
    made it, and calls out of order are errors.

    ``version`` picks ``shipwreck_arcana_v1`` (default: the compiled engine) or
    ``shipwreck_arcana_v0`` (the reference engine, v0's seeding); see the module
    docstring's version history.

    By default one :class:`ShipwreckWrapper` layer does the work of PettingZoo's
    ``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper`` (the test suite checks they behave the same); three
    stacked wrappers forward every attribute through three ``__getattr__`` calls, which
    costs more than a whole game step. ``standard_wrappers=True`` stacks PettingZoo's
    own three instead.
    """
    if version not in VERSIONS:
        raise ValueError(f"version {version!r} is not allowed; allowed: {list(VERSIONS)}")
    raw = VERSIONS[version](**kwargs)
    if not standard_wrappers:
        return ShipwreckWrapper(raw)
    wrapped: AECEnv = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):  # PettingZoo names the unwrapped class raw_env
    """The unwrapped environment (``shipwreck_arcana_v1``); see the module docstring.
    An illegal action raises :class:`~shipwreck_env.rules.engine.IllegalActionError` and
    changes nothing."""

    metadata: ClassVar[dict] = {
        "name": "shipwreck_arcana_v1",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 1,
    }
    _game_class: ClassVar[type] = SingleGame

    def __init__(
        self,
        num_players: int = 3,
        difficulty: str = "normal",
        card_sets: Any = "base",
        group_decision: str = "leader",
        challenge_mode: bool = False,
        reveal: bool = True,
        max_turns: int | None = 200,
        reward: str = "win_loss",
        render_mode: str | None = None,
        belief: bool = False,
    ) -> None:
        super().__init__()
        self.config = GameConfig(
            num_players=num_players,
            difficulty=difficulty,
            card_sets=card_sets,
            group_decision=group_decision,
            challenge_mode=challenge_mode,
            reveal=reveal,
            max_turns=max_turns,
        )
        check_reward(reward)
        check_render_mode(render_mode)
        if not isinstance(belief, bool):
            raise ValueError(f"belief {belief!r} is not allowed; allowed: True, False")
        self.reward_kind = reward
        self.render_mode = render_mode
        self.observation_layout = ObservationLayout.for_config(self.config, belief)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {name: i for i, name in enumerate(self.possible_agents)}
        size = self.observation_layout.size
        obs_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(0.0, 100.0, (size,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents
        }
        self._game = self._new_game(self.config)
        self._decider = -1  # the player deciding now (-1: nobody, before reset or at the end)
        self._state: State | None = None  # the reference State, built when first asked for
        # The generator that draws an unseeded reset's game seed, made from the last
        # reset(seed=...) only when an unseeded reset needs it: building a generator
        # hashes its seed, which costs about as much as dealing a new game.
        self._seeding_rng: np.random.Generator | None = None
        self._seeding_seed: int | None = None

    def _new_game(self, config: GameConfig) -> SingleGame | ReferenceGame:
        return self._game_class(config, self.observation_layout, self.reward_kind == "score_doom")

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # --- episode ----------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a game; ``options`` change config fields (see the module docstring)."""
        if options:
            self.config = apply_reset_options(self.config, options)
            if self.config != self._game.config:
                self._game = self._new_game(self.config)
        if seed is not None:
            self._seeding_rng, self._seeding_seed = None, seed
        elif self._seeding_rng is None:
            self._seeding_rng = np.random.default_rng(self._seeding_seed)
        self._game.reset(episode_seed(self._seeding_rng, seed))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._decider = -1
        self._after_change()

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if not self._is_legal(action):
            # the reference engine raises its clear error; a copy of the game takes it
            game = self._game
            step_inplace(game.state().copy(), action, game.stream())
            raise AssertionError(f"action {action!r} is outside the mask but the engine took it")
        self._step_legal(agent, int(action))

    def _is_legal(self, action: Any) -> bool:
        try:
            index = operator.index(action)
        except TypeError:
            return False
        return 0 <= index < NUM_ACTIONS and bool(self._game.mask[index])

    def _step_legal(self, agent: str, action: int) -> None:
        """Apply ``action``, legal for the deciding ``agent``, and update the AEC fields."""
        reward = self._game.step(action)
        self.rewards = dict.fromkeys(self.agents, reward)
        self._cumulative_rewards[agent] = 0.0
        if reward:  # adding 0.0 to the (float) cumulative rewards would change nothing
            self._accumulate_rewards()
        self._after_change()
        if self.render_mode == "human":
            self.render()

    def _after_change(self) -> None:
        """Read the game's status after a reset, a step or a loaded state: the deciding
        agent, the ends, and every agent's info (kept in place: see the module docstring)."""
        self._state = None
        decider, over, truncated, won, score, doom = self._game.status.tolist()
        infos = getattr(self, "infos", None)
        if self._decider < 0 or infos is None or set(infos) != set(self.agents):
            self.infos = infos = {
                a: {"score": score, "doom": doom, "won": False} for a in self.agents
            }
        else:
            first = infos[self.agents[0]]
            if first["score"] != score or first["doom"] != doom:
                for info in infos.values():
                    info["score"], info["doom"] = score, doom
        self._decider = decider
        if decider >= 0:
            self.agent_selection = self.possible_agents[decider]
        if over:
            for info in infos.values():
                info["won"] = bool(won)
            done = dict.fromkeys(self.agents, True)
            if truncated:
                self.truncations = done
            else:
                self.terminations = done
        # at the end, agent_selection stays; PettingZoo's dead-step loop removes agents

    # --- what agents see ----------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = self.agent_name_mapping[agent]
        game = self._game
        return {
            "observation": game.observe(player),
            "action_mask": game.mask.copy()
            if player == self._decider
            else np.zeros(NUM_ACTIONS, _INT8),
        }

    def view(self, agent: str) -> AgentView:
        """Read-only structured view of what ``agent`` may know (for scripted agents)."""
        return make_view(self.game_state, self.agent_name_mapping[agent])

    @property
    def game_state(self) -> State:
        """The engine state, hidden fates included: for debugging and analysis only --
        agents must use :meth:`observe` or :meth:`view`. In v1 a reference ``State``
        built from the compiled game when first asked for after a change (changing it
        changes nothing; assign ``state_`` to load a state); in v0 the engine's own."""
        if self._state is None:
            self._state = self._game.state()
        return self._state

    @property
    def state_(self) -> State:
        """The same as :attr:`game_state`."""
        return self.game_state

    @state_.setter
    def state_(self, state: State) -> None:
        # Load another state of this configuration (tests point the env at states);
        # call _after_change() then, as after any change.
        self._game.load(state)
        self._state = None
        self._decider = -1  # _after_change() then builds the infos afresh

    def stream(self) -> np.random.Generator:
        """A generator that continues this game's chance outcomes:
        ``engine.step(env.game_state, action, env.stream())`` plays what the env would."""
        return self._game.stream()

    def render(self, viewer: str | int | None = None) -> str | None:
        """The table in ``render_mode``: public, or as ``viewer`` (an agent name or a
        player number) sees it."""
        if isinstance(viewer, str):
            viewer = self.agent_name_mapping[viewer]
        return render_mode_output(self.game_state, self.render_mode, viewer)

    def close(self) -> None:
        pass


class raw_env_v0(raw_env):
    """``shipwreck_arcana_v0``: the reference engine under v0's seeding (seed ``n`` is
    ``engine.new_game(config, default_rng(n))``, as the Gymnasium env)."""

    metadata: ClassVar[dict] = {**raw_env.metadata, "name": "shipwreck_arcana_v0"}
    _game_class: ClassVar[type] = ReferenceGame


VERSIONS: dict[int, type[raw_env]] = {1: raw_env, 0: raw_env_v0}
"""The raw env of each version (``env(version=...)``)."""


def _forward(name: str, check_reset: bool = True) -> property:
    def get(self: ShipwreckWrapper) -> Any:
        if check_reset and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    get.__doc__ = f"The wrapped environment's ``{name}``."
    return property(get)


class ShipwreckWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's three classic wrappers in one layer (see :func:`env`).

    As ``OrderEnforcingWrapper``: errors for calls before ``reset``. As
    ``AssertOutOfBoundsWrapper``: an action outside ``Discrete(259)`` fails an assertion
    naming it. As ``TerminateIllegalWrapper(illegal_reward=-1)``: an action outside the
    mask ends the game for everyone, -1 to the agent that chose it.
    """

    def __init__(self, env: raw_env, illegal_reward: float = -1.0) -> None:
        super().__init__(env)
        self._raw = env
        self._illegal_reward = float(illegal_reward)

    agent_selection = _forward("agent_selection")
    agents = _forward("agents")
    rewards = _forward("rewards")
    terminations = _forward("terminations")
    truncations = _forward("truncations")
    infos = _forward("infos")
    _cumulative_rewards = _forward("_cumulative_rewards", check_reset=False)
    possible_agents = _forward("possible_agents", check_reset=False)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last`` reading the raw env directly (no forwarding per attribute)."""
        if not self._has_reset:
            return super().last(observe)  # fails like the standard wrappers
        raw = self._raw
        agent = raw.agent_selection
        assert agent is not None
        observation = raw.observe(agent) if observe else None
        return (
            observation,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)

    def step(self, action: Any) -> None:
        raw = self._raw
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        # The bounds check comes first, as in the standard stack; plain ints take the
        # fast path, anything else (numpy scalars, 0-d arrays) Discrete.contains decides.
        assert (action is None and dead) or (
            (0 <= action < NUM_ACTIONS)
            if type(action) is int
            else type(action) is not bool and raw.action_space(agent).contains(action)
        ), f"action {action!r} is not in the action space Discrete({NUM_ACTIONS})"
        if dead:
            raw._was_dead_step(action)
            return
        if raw._game.mask[action]:  # checked once here: the raw env need not check again
            raw._step_legal(agent, int(action))
            return
        EnvLogger.warn_on_illegal_move()
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.agents, 0)
        raw.rewards[agent] = self._illegal_reward
        raw._accumulate_rewards()
        raw._deads_step_first()

    def render(self, viewer: str | int | None = None) -> str | None:
        """The raw env's ``render`` (public, or one ``viewer``'s table)."""
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return self._raw.render(viewer)

    def __str__(self) -> str:
        return str(self._raw)


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator, reading the raw env directly."""

    def __next__(self) -> str:
        env = self.env
        raw = env._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        agent = raw.agent_selection
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return agent
