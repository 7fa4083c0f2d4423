"""The policy interface every agent implements, and a team of two policies.

A :class:`Policy` chooses one legal action from what one player may know: the
observation vector, the action mask and the read-only :class:`AgentView`. Randomness
comes only from the generator passed in, so a game replays exactly. A policy may keep
memory within a game; :meth:`Policy.reset` starts a new game.

A :class:`Team` routes each decision by role: the active player's decisions (play,
The Thief, Shells/Sinners, ...) to ``play``, every other decision (reveals, the group's
powers, predictions, votes, costs, Sails) to ``group``.

Policies are also valid Gymnasium partners (``partner(observation, view, rng)``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from shipwreck_env.state import State
from shipwreck_env.view import AgentView

__all__ = ["Policy", "Team", "active_decides"]


def active_decides(view: AgentView) -> bool:
    """Is the decision now the active player's (rather than the group's)?"""
    return view.decider == view.active_player


class Policy(ABC):
    """Chooses actions for one role or both.

    Attributes:
        name: short name used in tables.
        cheating: True when the policy reads hidden information (the oracle); such
            results are upper bounds and are flagged wherever they are shown.
        needs_observation: False when the policy reads only the view (saves encoding).
        needs_state: True when the policy must be handed the full state (cheating).
    """

    name: str = "policy"
    cheating: bool = False
    needs_observation: bool = False
    needs_state: bool = False

    def reset(self) -> None:  # noqa: B027  (optional hook: most policies are stateless)
        """Forget everything about the previous game."""

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
            observation: the player's observation vector (``None`` if the caller skipped
                it because ``needs_observation`` is False).
            mask: legal actions (1 = legal), length ``NUM_ACTIONS``.
            view: what the player may know.
            rng: the only source of randomness.
            state: the full state, given only to policies with ``needs_state``.
        """

    def __call__(self, observation: dict, view: AgentView, rng: np.random.Generator) -> int:
        """Gymnasium partner form: ``observation`` is ``{"observation", "action_mask"}``."""
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
