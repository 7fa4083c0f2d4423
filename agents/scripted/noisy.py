"""A noisy version of any policy: the active player's decisions are, with probability
``epsilon``, uniformly random legal actions.

A stranger of the ad-hoc benchmark (:mod:`shipwreck_agents.evaluation.adhoc`): a partner who mostly
plays by its own rules and sometimes does something its team would not. Only the active
player's decisions (its plays, The Thief, its powers after the play) are noisy; the
group's decisions stay the wrapped policy's, so the noise is in what a play tells, not in
wild predictions.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.envs.policy import Policy, active_decides
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView

__all__ = ["NoisyPolicy"]


class NoisyPolicy(Policy):
    """``inner``, with the active player's decisions replaced by uniform legal ones with
    probability ``epsilon`` (drawn from the decision's own generator, so games replay).

    Args:
        inner: the wrapped policy.
        epsilon: the chance of a random decision, from 0 to 1.

    Raises:
        ValueError: ``epsilon`` outside [0, 1].
    """

    def __init__(self, inner: Policy, epsilon: float) -> None:
        if not 0.0 <= epsilon <= 1.0:  # also refuses NaN
            raise ValueError(f"noise epsilon {epsilon!r} is not allowed; allowed: 0 to 1")
        self.inner = inner
        self.epsilon = float(epsilon)
        self.name = f"noisy{epsilon:g}:{inner.name}"
        self.cheating = inner.cheating
        self.needs_observation = inner.needs_observation
        self.needs_state = inner.needs_state
        self.belief = inner.belief
        if hasattr(inner, "meta"):
            self.meta = inner.meta
        if hasattr(inner, "layout"):
            self.layout = inner.layout

    def reset(self) -> None:
        self.inner.reset()

    def act(
        self,
        observation: np.ndarray | None,
        mask: np.ndarray,
        view: AgentView,
        rng: np.random.Generator,
        state: State | None = None,
    ) -> int:
        # The wrapped policy always decides first, so a policy with memory (a learned
        # team reading its own plays) sees every decision of the game.
        chosen = self.inner.act(observation, mask, view, rng, state)
        if active_decides(view) and self.epsilon > 0 and rng.random() < self.epsilon:
            legal = view.legal or tuple(int(a) for a in np.flatnonzero(mask))
            return int(legal[int(rng.integers(len(legal)))])
        return chosen
