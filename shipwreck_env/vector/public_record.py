"""Public facts of a turn for many hypothetical hands of many batched games at once.

The batched twin of :mod:`shipwreck_env.rules.public_record`: :func:`hand_play_masks`
answers "which first plays could the hand ``(x, y)`` make on this public table?" for a
whole batch, by the batched engine's own play rule. Like its reference namesake it reads
only public facts and the hypothesis, never a hidden fate, and must never import
``agents``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.vector.plays import play_legal

__all__ = ["hand_play_masks"]


class _PlayFacts(NamedTuple):
    """The fields the batched play rule reads, one row per hypothetical hand, the hand
    in seat 0."""

    slots: np.ndarray
    tcount: np.ndarray
    shadows: np.ndarray
    feast_done: np.ndarray
    hands: np.ndarray
    active: np.ndarray


def hand_play_masks(
    slots: np.ndarray,
    tcount: np.ndarray,
    shadows: np.ndarray,
    feast_done: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
) -> np.ndarray:
    """bool[n, NUM_ACTIONS]: the legal plays (and nothing else) of the hand
    ``(x[i], y[i])`` on the public table of row ``i`` as the batched engine keeps it
    (``slots`` int[n, 4]; ``tcount`` int[n, 4, 7], the copies of each value in front of
    each slot; this turn's ``shadows`` and ``feast_done`` flags, bool[n]), by the
    batched engine's own play rule (``shipwreck_env.vector.plays.play_legal``): many
    hands of many games in one call. Public facts and the hypothesis only.

    Raises:
        ValueError: the arrays do not have one row per hand, or a fate is not 1..7.
    """
    x, y = np.asarray(x), np.asarray(y)
    n = len(x)
    given = {"slots": slots, "tcount": tcount, "shadows": shadows, "feast_done": feast_done}
    shapes = {"slots": (n, 4), "tcount": (n, 4, 7), "shadows": (n,), "feast_done": (n,)}
    for name, shape in shapes.items():
        if np.shape(given[name]) != shape:
            raise ValueError(f"{name} has shape {np.shape(given[name])}; allowed: {shape}")
    if y.shape != (n,):
        raise ValueError(f"y has shape {y.shape}; allowed: {(n,)} (one fate per fate of x)")
    bad = np.flatnonzero((x < 1) | (x > 7) | (y < 1) | (y > 7))
    if len(bad):
        i = int(bad[0])
        raise ValueError(f"hand {(int(x[i]), int(y[i]))} at row {i}; allowed: fates 1..7")
    # the kernel is compiled for the engine's own dtypes: keep them (no second compile)
    facts = _PlayFacts(
        np.asarray(slots, np.int8),
        np.asarray(tcount, np.int8),
        np.asarray(shadows, np.bool_),
        np.asarray(feast_done, np.bool_),
        np.stack([x, y], axis=1).astype(np.int8)[:, None, :],
        np.zeros(n, np.int8),
    )
    out = np.zeros((n, NUM_ACTIONS), np.bool_)
    play_legal(facts, np.arange(n), out)
    return out
