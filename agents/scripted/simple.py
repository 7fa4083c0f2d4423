"""Baselines without conventions: random, literal, and the cheating oracle.

* :class:`RandomPolicy` -- uniform over legal actions; when passing is an option in a
  group decision it passes with probability ``pass_prob`` and otherwise picks uniformly
  among the rest.
* :class:`LiteralPolicy` -- plays uniformly among legal plays (no powers); the group
  predicts only when the active seat's number line leaves a single value, or, with
  ``threshold`` set, when the literal posterior's best value reaches it. The
  "no conventions" baseline.
* :class:`OracleGroup` -- CHEATS: reads the active player's hidden fate and predicts
  it. An upper bound, never a baseline to beat.
"""

from __future__ import annotations

import numpy as np

from shipwreck_agents.base import Policy, active_decides
from shipwreck_agents.scripted.knowledge import group_counts, literal_posterior
from shipwreck_env.rules.actions import ACTIONS, PASS, predict_action
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView

__all__ = ["LiteralPolicy", "OracleGroup", "RandomPolicy"]


def _legal(mask: np.ndarray, view: AgentView) -> tuple[int, ...]:
    return view.legal or tuple(int(a) for a in np.flatnonzero(mask))


class RandomPolicy(Policy):
    """Uniform over legal actions; see the module docstring."""

    name = "random"

    def __init__(self, pass_prob: float = 0.5) -> None:
        if not 0.0 <= pass_prob <= 1.0:
            raise ValueError(f"pass_prob {pass_prob!r} is not allowed; allowed: 0 to 1")
        self.pass_prob = pass_prob

    def act(self, observation, mask, view, rng, state=None) -> int:
        legal = _legal(mask, view)
        if not active_decides(view) and PASS in legal and len(legal) > 1:
            if rng.random() < self.pass_prob:
                return PASS
            legal = tuple(a for a in legal if a != PASS)
        return int(legal[int(rng.integers(len(legal)))])


class LiteralPolicy(Policy):
    """Random legal plays; predicts only what the number line (or the literal posterior,
    with ``threshold``) makes certain enough. Never uses powers or reveals."""

    name = "literal"

    def __init__(self, threshold: float | None = None) -> None:
        if threshold is not None and not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold {threshold!r} is not allowed; allowed: None or (0, 1]")
        self.threshold = threshold

    def act(self, observation, mask, view, rng, state=None) -> int:
        legal = _legal(mask, view)
        if view.phase == "play":
            plays = [a for a in legal if ACTIONS[a].kind == "play"]
            return int(plays[int(rng.integers(len(plays)))])
        if view.phase == "steal":
            steals = [a for a in legal if ACTIONS[a].kind == "steal"]
            return int(steals[int(rng.integers(len(steals)))]) if steals else PASS
        if view.phase in ("group", "vote"):
            guess = self._guess(view)
            if guess and predict_action(guess) in legal:
                return predict_action(guess)
            return PASS
        if view.phase == "cost":
            return int(legal[0])
        return PASS if PASS in legal else int(legal[0])

    def _guess(self, view: AgentView) -> int:
        line = view.lines[view.active_seat]
        for v in view.predictions:  # never repeat a wrong guess
            line &= ~(1 << (v - 1))
        if line and line & (line - 1) == 0:
            return line.bit_length()
        if self.threshold is None:
            return 0
        posterior = literal_posterior(line, group_counts(view))
        best = int(np.argmax(posterior))
        return best + 1 if posterior[best] >= self.threshold else 0


class OracleGroup(Policy):
    """CHEATS (upper bound): predicts the active player's real hidden fate."""

    name = "oracle"
    cheating = True
    needs_state = True

    def act(self, observation, mask, view, rng, state: State | None = None) -> int:
        legal = _legal(mask, view)
        if state is None:
            raise ValueError("the oracle needs the full state (it cheats by design)")
        if view.phase == "group" and not view.correct:
            hand = state.hands[state.active]
            if len(hand) == 1 and predict_action(hand[0]) in legal:
                return predict_action(hand[0])
        if view.phase == "vote":
            hand = state.hands[state.active]
            return predict_action(hand[0])
        return PASS if PASS in legal else int(legal[0])
