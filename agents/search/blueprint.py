"""Test-time search over any blueprint team the reference engine can play:
``search:convention``, ``search[OPTIONS]:SPEC``.

:class:`BlueprintSearch` wraps a *blueprint* team (a registry spec: the convention,
``heuristic+bayes``, ...) and plays as it does, except at the decisions it searches:

1. **Where.** By default the leader's group decisions (``phases="group"``) on turns
   whose kept fate the blueprint's own reading leaves uncertain (its most likely value
   below ``uncertain``) and that start at doom ``doom`` or more. A group decision the
   blueprint is sure of is not searched: a sure reading has nothing to gain.
2. **Worlds from the blueprint's belief.** The active seat's kept fate is drawn from the
   blueprint's reading of the turn (``posterior(view)``: for the convention, the group's
   Bayesian reading of the public code, i.e. the hands the code maps to the line seen),
   or from the number line times the unseen copies for a blueprint with no reading; the
   other hidden fates and the deck are drawn as :func:`~shipwreck_agents.search.worlds.sample_worlds`
   draws them (worlds that do not reproduce every public event are dropped). Only the
   view is read: the search never asks for the real game's state.
3. **Rollouts on the reference engine.** For every candidate action and world, a copy of
   the world plays the action and then the blueprint plays every seat to the end of the
   game. Each rollout gets a fresh blueprint holding only the memory that is public
   (:func:`rollout_blueprint`): for the convention, the likelihoods of carried fates that
   the public code of earlier turns gave, which every teammate computes alike. All the
   actions of one world share one chance stream (common random numbers), so their
   difference is the action's. A prediction that no drawn world makes right is not
   rolled out (it is sure to be wrong in every world drawn).
4. **Choice.** An action's value is its share of rollouts won; the best is played if it
   beats the blueprint's choice by ``margin``, else the blueprint's choice is played.

Changing a group decision leaves the team's code intact: the active player's signal and
the memory both sides keep are read from public facts, whatever the group then does.
The active player's first play (``phases`` with ``play``) is searched only for a
blueprint that keeps no memory (``heuristic+literal``): the convention remembers what its
chosen line signals, and playing another line would leave the player and its group
remembering different things.
"""

from __future__ import annotations

import time

import numpy as np

from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.scripted.knowledge import literal_posterior
from shipwreck_agents.search.sparta import SearchStats
from shipwreck_agents.search.worlds import sample_worlds
from shipwreck_env.envs.policy import Policy, Team, decide, keeps_memory, observation_layouts
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import step_inplace
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView

__all__ = [
    "BLUEPRINT_PHASES",
    "BlueprintSearch",
    "candidate_actions",
    "parse_blueprint_spec",
    "rollout_blueprint",
    "rollout_values",
]

BLUEPRINT_PHASES = ("play", "group")
"""Decisions the search can consider: ``play`` is the active player's first play of the
turn, ``group`` the leader's group decision."""

_OPTIONS = (
    "samples=N (an integer from 0 to 1000), margin=M (a number >= 0, inf: never change), "
    "uncertain=U (0 < U <= 1), doom=D (an integer from 0 to 20), phases=P+Q "
    f"(from {'+'.join(BLUEPRINT_PHASES)})"
)


def _refuse(name: str, value: object) -> ValueError:
    return ValueError(f"blueprint search {name}={value!r} is not allowed; allowed: {_OPTIONS}")


def _check(samples: int, margin: float, uncertain: float, doom: int, phases) -> tuple[str, ...]:
    """Refuse settings out of range; the phases in :data:`BLUEPRINT_PHASES` order."""
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)):
        raise _refuse("samples", samples)
    if not 0 <= samples <= 1000:
        raise _refuse("samples", samples)
    if not margin >= 0:  # also refuses NaN; inf means: never change the blueprint's choice
        raise _refuse("margin", margin)
    if not 0 < uncertain <= 1:
        raise _refuse("uncertain", uncertain)
    if isinstance(doom, bool) or not isinstance(doom, (int, np.integer)) or not 0 <= doom <= 20:
        raise _refuse("doom", doom)
    names = list(phases)
    if not names or any(p not in BLUEPRINT_PHASES for p in names):
        raise _refuse("phases", "+".join(names))
    return tuple(p for p in BLUEPRINT_PHASES if p in names)


def parse_blueprint_spec(options: str) -> dict:
    """``samples=N,margin=M,uncertain=U,doom=D,phases=P+Q`` (any of them, comma
    separated) -> keyword options of :class:`BlueprintSearch`.

    Raises:
        ValueError: an unknown option or a bad value, naming what is allowed.
    """
    kinds = {
        "samples": int,
        "margin": float,
        "uncertain": float,
        "doom": int,
        "phases": lambda t: tuple(t.split("+")),
    }
    out: dict = {}
    for part in filter(None, options.split(",")):
        key, _, value = part.partition("=")
        if key not in kinds or len(value) > 20:
            raise ValueError(
                f"blueprint search option {part[:60]!r} is not known; allowed: {_OPTIONS}"
            )
        try:
            out[key] = kinds[key](value)
        except ValueError:
            raise _refuse(key, value) from None
    defaults = {"samples": 8, "margin": 0.05, "uncertain": 1.0, "doom": 0, "phases": ("group",)}
    _check(**{**defaults, **out})
    return out


def rollout_blueprint(blueprint: Policy, view: AgentView, config: GameConfig) -> Policy:
    """A fresh copy of ``blueprint`` for one rollout, holding only public memory.

    A policy that keeps no memory is used as it is. The convention gets a new
    :class:`ConventionPolicy` of the same settings whose carried-fate likelihoods are the
    deciding player's own (they are computed from public facts only, so every teammate
    holds the same ones), copied to every player; its private plans (the lines it chose
    for its own hands) are not copied.

    Raises:
        ValueError: a blueprint whose memory the search cannot carry into rollouts.
    """
    _check_blueprint(blueprint)
    if not isinstance(blueprint, ConventionPolicy):
        return blueprint
    fresh = ConventionPolicy(blueprint.settings)
    own = {k[1:]: v for k, v in blueprint._carry.items() if k[0] == view.player}
    fresh._carry = {
        (player, *key): like for player in range(config.num_players) for key, like in own.items()
    }
    return fresh


def _check_blueprint(policy: Policy) -> None:
    """Refuse a blueprint whose memory the search cannot carry into its rollouts."""
    if keeps_memory(policy) and not isinstance(policy, ConventionPolicy):
        raise ValueError(
            f"blueprint {policy.name!r} keeps memory that the search cannot carry into its "
            "rollouts; allowed: the convention or a policy with no memory (random, literal, "
            "heuristic; a learned network has its own search: search:PATH)"
        )


def rollout_values(
    worlds: list[State],
    actions: list[int],
    make_team,
    seed: int,
    max_steps: int = 5000,
) -> np.ndarray:
    """float[len(actions)]: the share of rollouts won after each action, over ``worlds``.

    Args:
        worlds: states at the decision (the same decider and legal actions).
        actions: the candidate actions.
        make_team: a callable giving a fresh blueprint :class:`Team` for one rollout.
        seed: seeds the chance streams; world ``k`` has the same stream for every action.
        max_steps: a guard on a rollout's length (decisions).

    Raises:
        RuntimeError: a rollout did not end within ``max_steps`` decisions.
    """
    if not worlds:
        raise ValueError("rollout_values needs at least one world; allowed: a non-empty list")
    layouts = observation_layouts(worlds[0].config)
    streams = np.random.SeedSequence(seed).spawn(len(worlds))
    won = np.zeros((len(actions), len(worlds)))
    for k, world in enumerate(worlds):
        for j, action in enumerate(actions):
            game_rng, policy_rng = (np.random.default_rng(s) for s in streams[k].spawn(2))
            s = world.copy()
            team = make_team()
            step_inplace(s, action, game_rng, check=True)
            for _ in range(max_steps):
                if s.over:
                    break
                step_inplace(s, decide(team, s, layouts, policy_rng).action, game_rng, check=False)
            else:
                raise RuntimeError(f"a rollout did not end within {max_steps} decisions")
            won[j, k] = s.won
    return won.mean(1)


def candidate_actions(
    legal: list[int], worlds: list[State], seat: int, blueprint: int
) -> list[int]:
    """The actions worth a rollout: every legal action but a prediction of a value that
    is the kept fate of ``seat`` in none of ``worlds`` (sure to be wrong in each); the
    blueprint's own choice always."""
    kept = {w.hands[seat][0] for w in worlds if len(w.hands[seat]) == 1}
    out = []
    for a in legal:
        spec = ACTIONS[a]
        if a == blueprint or spec.kind != "predict" or spec.value in kept:
            out.append(a)
    return out


class BlueprintSearch(Policy):
    """A blueprint team with test-time search (see the module docstring).

    Args:
        blueprint: the blueprint team (both roles; one object or two).
        samples: worlds drawn per searched decision (0: never search).
        margin: how much more often an action must win than the blueprint's choice to
            be played instead (``inf``: never).
        uncertain: search only where the blueprint's most likely kept fate has a
            probability below this (1.0: whenever it is not sure).
        doom: search only on turns that start at this doom or more.
        phases: the decisions searched, from :data:`BLUEPRINT_PHASES`.
        name: the name in tables.

    Raises:
        ValueError: a setting out of range, or ``play`` searched for a blueprint that
            keeps memory, naming what is allowed.
    """

    def __init__(
        self,
        blueprint: Team,
        samples: int = 8,
        margin: float = 0.05,
        uncertain: float = 1.0,
        doom: int = 0,
        phases: tuple[str, ...] = ("group",),
        name: str | None = None,
    ) -> None:
        self.phases = _check(samples, margin, uncertain, doom, phases)
        self.blueprint = blueprint
        self.samples, self.margin, self.uncertain, self.doom = samples, margin, uncertain, doom
        roles = (blueprint.play, blueprint.group)
        for policy in roles:
            _check_blueprint(policy)
        memory = sorted({p.name for p in roles if keeps_memory(p)})
        if "play" in self.phases and memory:
            raise ValueError(
                f"blueprint search phases=play: {memory} remember the line they play, so "
                "another line would leave player and group remembering different things; "
                "allowed: phases=group for a blueprint with memory"
            )
        self.needs_observation = any(p.needs_observation for p in roles)
        self.belief = bool(getattr(blueprint.play, "belief", False))
        self.name = name or f"search:{blueprint.name}"
        self.stats = SearchStats()

    def reset(self) -> None:
        self.blueprint.reset()
        self.stats = SearchStats()

    def act(
        self,
        observation: np.ndarray | None,
        mask: np.ndarray,
        view: AgentView,
        rng: np.random.Generator,
        state: State | None = None,
    ) -> int:
        policy = self.blueprint.policy_for(view)
        obs = observation if policy.needs_observation else None
        choice = int(policy.act(obs, mask, view, rng))
        self.stats.decisions += 1
        legal = [int(a) for a in np.flatnonzero(np.asarray(mask))]
        if (
            self.samples == 0
            or len(legal) < 2
            or self._phase(view) not in self.phases
            or view.turn_start.doom < self.doom
        ):
            return choice
        belief = self._kept_belief(policy, view)
        if view.phase == "group" and belief.max() >= self.uncertain * belief.sum():
            return choice
        start = time.perf_counter()
        # a child stream: the game's own stream goes on as if no search were made, so
        # the blueprint's later draws do not depend on whether it searched here
        rng = rng.spawn(1)[0]
        worlds = sample_worlds(view, belief, rng, self.samples)
        self.stats.worlds.append(len(worlds))
        if not worlds:
            return choice
        actions = candidate_actions(legal, worlds, view.active_seat, choice)
        if len(actions) < 2:
            return choice
        config = view.config
        values = rollout_values(
            worlds,
            actions,
            lambda: self._rollout_team(view, config),
            int(rng.integers(2**31)),
        )
        self.stats.searched += 1
        self.stats.seconds += time.perf_counter() - start
        best = int(np.argmax(values))
        if values[best] >= values[actions.index(choice)] + self.margin and actions[best] != choice:
            self.stats.changed += 1
            return actions[best]
        return choice

    def _rollout_team(self, view: AgentView, config: GameConfig) -> Team:
        play = rollout_blueprint(self.blueprint.play, view, config)
        if self.blueprint.group is self.blueprint.play:
            return Team(play, play)
        return Team(play, rollout_blueprint(self.blueprint.group, view, config))

    @staticmethod
    def _phase(view: AgentView) -> str | None:
        """The name in :data:`BLUEPRINT_PHASES` of this decision, or None."""
        if view.phase == "group":
            return "group" if view.decider == view.leader else None
        if view.phase == "play" and view.is_active and not view.turn_actions:
            return "play"
        return None

    @staticmethod
    def _kept_belief(policy: Policy, view: AgentView) -> np.ndarray:
        """float[7] over the active seat's kept fate: the blueprint's reading
        (``posterior(view)``) where it has one and the seat holds one fate, else the
        number line times the unseen copies."""
        seat = view.active_seat
        reading = getattr(policy, "posterior", None)
        if reading is not None and view.holding[seat] == 1 and not view.is_active:
            belief = np.asarray(reading(view), np.float64)
            if belief.sum() > 0:
                return belief
        return np.asarray(literal_posterior(view.lines[seat], view.unseen), np.float64)
