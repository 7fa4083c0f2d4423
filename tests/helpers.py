"""Helpers shared by several test modules (imported as ``helpers``: pytest puts the
tests folder on the path)."""

from __future__ import annotations

import itertools

import numpy as np

from shipwreck_env.config import DIFFICULTIES
from shipwreck_env.engine import step
from shipwreck_env.rules import visible_mask
from shipwreck_env.state import State


def config_matrix() -> list[dict]:
    """Keyword sets of every combination of the switches that change the rules: 2-5
    players x difficulty x group decision x reveal x card sets, plus the 2-player
    challenge mode."""
    out = []
    for players, difficulty, group, reveal, sets in itertools.product(
        (2, 3, 4, 5), DIFFICULTIES, ("leader", "vote"), (True, False), ("base", "all")
    ):
        out.append(
            dict(
                num_players=players,
                difficulty=difficulty,
                group_decision=group,
                reveal=reveal,
                card_sets=sets,
            )
        )
    for difficulty, group, reveal, sets in itertools.product(
        DIFFICULTIES, ("leader", "vote"), (True, False), ("base", "all")
    ):
        out.append(
            dict(
                num_players=2,
                challenge_mode=True,
                difficulty=difficulty,
                group_decision=group,
                reveal=reveal,
                card_sets=sets,
            )
        )
    return out


def mask(*values: int) -> int:
    """Number line mask with exactly ``values`` possible (``rules.visible_mask``)."""
    return visible_mask(values)


def run(s: State, *actions: int, seed: int = 0) -> State:
    """Apply ``actions`` in order with one seeded generator; return the final state."""
    rng = np.random.default_rng(seed)
    for a in actions:
        s = step(s, a, rng)
    return s
