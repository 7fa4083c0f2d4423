"""The policy interface, a team of two policies, and the one function that asks them.

A :class:`Policy` chooses one legal action from what one player may know: the
observation vector, the action mask and the read-only :class:`AgentView`. Randomness
comes only from the generator passed in, so a game replays exactly. A policy may keep
memory within a game; :meth:`Policy.reset` starts a new game.

A :class:`Team` routes each decision by role: the active player's decisions (play,
The Thief, Shells/Sinners, ...) to ``play``, every other decision (reveals, the group's
powers, predictions, votes, costs, Sails) to ``group``.

:func:`decide` is the only place where a policy is asked for a decision: the evaluator,
imitation recording and the Gymnasium partners all call it. It builds the decider's view
and legal mask, encodes an observation only for a policy that reads one -- in the
policy's own layout (``policy.belief``) -- hands the full state only to a policy that
declares ``needs_state`` (it cheats), and checks the answer is legal.

:meth:`Policy.watch` is the other channel: at a real table everyone sees every public
action, not only the ones taken while they decide. A policy that wants those moments
overrides it, and :func:`let_watch` (called by the drivers that seat such policies: the
evaluator, the play table, the single-agent Gymnasium env) hands it the view of each of
its players who does not decide next, after every action. A policy that does not override
it is never asked, and costs nothing.

:meth:`Policy.batched` is the hook through which a policy offers a batched twin (a
:class:`BatchedPartner` deciding in many games of a
:class:`~shipwreck_env.vector.VectorGame` at once, with the same actions); the role
vector envs (:mod:`shipwreck_env.envs.gym_roles`) ask it and fall back to
:func:`decide` game by game when it returns ``None``.

This module belongs to the core: it imports nothing from ``agents`` or ``training``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

from shipwreck_env.rules.actions import NUM_ACTIONS, describe
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import IllegalActionError
from shipwreck_env.rules.observation import ObservationLayout, encode
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView, make_view

if TYPE_CHECKING:  # the batched engine needs numba: only for the annotations
    from shipwreck_env.vector.game import VectorGame

__all__ = [
    "BATCHED_DECISIONS",
    "BatchedPartner",
    "Decision",
    "Policy",
    "Team",
    "active_decides",
    "decide",
    "keeps_memory",
    "let_watch",
    "observation_layouts",
    "watches",
]


def active_decides(view: AgentView) -> bool:
    """Is the decision now the active player's (rather than the group's)?"""
    return view.decider == view.active_player


BATCHED_DECISIONS = ("play", "group")
"""What a batched twin may be asked to decide: the active player's decisions
(``"play"``) or every other player's (``"group"``)."""


class BatchedPartner(Protocol):
    """A policy's batched twin: decides for one role in many game places at once.

    It returns, in every game it is asked about, the action its policy's ``act`` returns
    there (a policy that offers a twin promises this; the twin keeps the per-game memory
    the policy would keep, one row per game place).
    """

    def restart(self, games: np.ndarray) -> None:
        """New games were dealt in the places ``games``: forget the old ones."""

    def act(self, game: VectorGame, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """int64[K]: the action in each game ``games`` (int64[K]) of ``game``, whose
        legal actions are ``mask`` (bool[N, 259]); ``game`` is only read."""


class Policy(ABC):
    """Chooses actions for one role or both.

    Attributes:
        name: short name used in tables.
        cheating: True when the policy reads hidden information (the oracle); such
            results are upper bounds and are flagged wherever they are shown.
        needs_observation: False when the policy reads only the view (saves encoding).
        needs_state: True when the policy must be handed the full state (cheating).
        belief: the observation layout the policy reads has the belief block (a
            trained model says how it was trained).
    """

    name: str = "policy"
    cheating: bool = False
    needs_observation: bool = False
    needs_state: bool = False
    belief: bool = False

    def reset(self) -> None:  # noqa: B027  (optional hook: most policies are stateless)
        """Forget everything about the previous game."""

    def batched(self, num_games: int, config: GameConfig, decisions: str) -> BatchedPartner | None:
        """A batched twin of this policy taking ``decisions`` (``"play"`` or ``"group"``,
        see :data:`BATCHED_DECISIONS`) in ``num_games`` game places of ``config``, or
        ``None`` when there is none (the default): callers then ask :func:`decide`
        game by game."""
        return None

    def watch(self, view: AgentView) -> None:  # noqa: B027  (optional hook)
        """See the table between this policy's decisions: ``view`` is what one of its
        players knows right after an action that player will not answer (by default,
        nothing is done). Only public facts and that player's own hand are in it, as in
        :meth:`act`; a policy keeps what it learns per player (``view.player``)."""

    @abstractmethod
    def act(
        self,
        observation: np.ndarray | None,
        mask: np.ndarray,
        view: AgentView,
        rng: np.random.Generator,
        state: State | None = None,
    ) -> int:
        """A legal action for ``view.player``.

        Args:
            observation: the player's observation vector in the policy's layout
                (``None`` if ``needs_observation`` is False).
            mask: legal actions (1 = legal), length ``NUM_ACTIONS``.
            view: what the player may know.
            rng: the only source of randomness.
            state: the full state, given only to policies with ``needs_state``.
        """

    def __call__(self, observation: dict, view: AgentView, rng: np.random.Generator) -> int:
        """Plain-callable partner form: ``observation`` is ``{"observation", "action_mask"}``.

        The Gymnasium environments do not use it (they call :func:`decide`, which gives
        the policy its own layout and, if it asks, the state); it stays for callers that
        hold an observation dict already.
        """
        return self.act(observation["observation"], observation["action_mask"], view, rng)


class Team:
    """A play policy and a group policy (see the module docstring)."""

    def __init__(self, play: Policy, group: Policy) -> None:
        self.play = play
        self.group = group

    @property
    def name(self) -> str:
        """``play+group``."""
        return f"{self.play.name}+{self.group.name}"

    @property
    def cheating(self) -> bool:
        """Either policy reads hidden information."""
        return self.play.cheating or self.group.cheating

    def reset(self) -> None:
        """Start a new game for both policies."""
        self.play.reset()
        if self.group is not self.play:
            self.group.reset()

    def policy_for(self, view: AgentView) -> Policy:
        """The policy that takes the decision ``view`` is waiting for."""
        return self.play if active_decides(view) else self.group

    def watchers(self, player: int) -> list[Policy]:
        """The policies of ``player`` that :func:`watches` (each once)."""
        policies = [self.play] if self.group is self.play else [self.play, self.group]
        return [p for p in policies if watches(p)]


class Decision(NamedTuple):
    """One decision: the action, and the decider's view and legal mask it was taken on."""

    action: int
    view: AgentView
    mask: np.ndarray


def observation_layouts(config: GameConfig) -> dict[bool, ObservationLayout]:
    """The observation layouts of ``config`` without and with the belief block
    (``layouts[policy.belief]`` is the one a policy reads)."""
    return {flag: ObservationLayout.for_config(config, flag) for flag in (False, True)}


def keeps_memory(partner: object) -> bool:
    """Whether ``partner`` (a :class:`Policy` or a plain partner function) remembers
    something between decisions: its class overrides :meth:`Policy.reset`, or the
    function object has a ``reset`` method. Such a partner must not be shared by two
    games at once (each environment or game place keeps its own copy)."""
    if isinstance(partner, Policy):
        return type(partner).reset is not Policy.reset
    return callable(getattr(partner, "reset", None))


def watches(policy: object) -> bool:
    """Whether ``policy`` overrides :meth:`Policy.watch` (plain partner functions and
    policies that keep the default do not watch)."""
    return isinstance(policy, Policy) and type(policy).watch is not Policy.watch


def let_watch(who: Policy | Team, s: State, players: Iterable[int] | None = None) -> None:
    """Hand each player of ``who`` who watches (:func:`watches`) its view of ``s``: every
    player in ``players`` (all by default) except the one deciding next, who is shown the
    table by :func:`decide`. Call it after each action."""
    if players is None:
        players = range(s.config.num_players)
    alone = [who] if watches(who) else []  # one policy for every player
    for player in players:
        if player == s.decider:
            continue
        policies = who.watchers(player) if isinstance(who, Team) else alone
        if policies:
            view = make_view(s, player)
            for policy in policies:
                policy.watch(view)


def decide(
    who: Policy | Team,
    s: State,
    layouts: dict[bool, ObservationLayout],
    rng: np.random.Generator,
) -> Decision:
    """The action ``who`` takes for the player deciding in ``s`` (a :class:`Team` hands
    the decision to its play or group policy), with that player's view and mask.

    Args:
        who: a policy, or a team that routes the decision by role.
        s: a state where someone must decide (``not s.over``).
        layouts: :func:`observation_layouts` of ``s.config``.
        rng: the policy's generator.

    Raises:
        IllegalActionError: the policy chose an action that is not legal now.
    """
    player = s.decider
    view = make_view(s, player)
    policy = who.policy_for(view) if isinstance(who, Team) else who
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[list(view.legal)] = 1
    observation = None
    if policy.needs_observation:
        observation = encode(s, player, layouts[bool(getattr(policy, "belief", False))])
    action = policy.act(observation, mask, view, rng, s if policy.needs_state else None)
    if action not in view.legal:
        shown = describe(action) if isinstance(action, int) and 0 <= action < NUM_ACTIONS else "?"
        raise IllegalActionError(
            f"policy {policy.name} chose action {action!r} ({shown}), which is not legal; "
            f"legal: {list(view.legal)}"
        )
    return Decision(int(action), view, mask)
