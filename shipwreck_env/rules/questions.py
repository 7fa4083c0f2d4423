"""The question powers' answers, decided once for the engines and the agents.

A question power asks whether the kept fate, as conditions read it this turn (Shadows'
+1 included), has some property. :func:`holds` is that property for every question;
:func:`yes_values` lists the real values answering yes; :data:`HOLDS` and
:data:`SHACKLES_HOLDS` are the same answers as tables for array code. The reference
engine (:mod:`shipwreck_env.rules.powers`), the batched engine and the agents that reason
about answers all read this module, so they cannot disagree. Nothing here changes state.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS

__all__ = [
    "HOLDS",
    "QUESTIONS",
    "QUESTION_SETS",
    "SHACKLES_HOLDS",
    "holds",
    "yes_values",
]

QUESTION_SETS: dict[str, frozenset[int]] = {
    "secrets": frozenset({1, 2, 3}),
    "songs": frozenset({1, 4, 7}),
    "spires": frozenset({3, 4, 5}),
    "swords": frozenset({5, 6, 7}),
    "scythes": frozenset({2, 6}),
}
"""The questions about a fixed set of values: is the kept fate one of these?"""

QUESTIONS: tuple[str, ...] = (*QUESTION_SETS, "saints", "storms", "shackles")
"""Every question power."""


def holds(power: str, arg: int | None, kept: int) -> bool:
    """The answer of question ``power`` about a kept fate read as ``kept`` (1..8).

    ``arg`` is Saints' X ("higher than X?"), Storms' value ("exactly this value?") or,
    for Shackles, the value just played ("within 2 of it?"); None for the set questions.

    Raises:
        ValueError: ``power`` is not a question power.
    """
    group = QUESTION_SETS.get(power)
    if group is not None:
        return kept in group
    if power == "saints":
        return kept > arg
    if power == "storms":
        return kept == arg
    if power == "shackles":
        return abs(kept - arg) <= 2
    raise ValueError(f"power {power!r} asks no question; question powers: {list(QUESTIONS)}")


def yes_values(power: str, arg: int | None, shadows: bool = False) -> tuple[int, ...]:
    """Real values 1..7 of the kept fate for which the answer is yes (with Shadows this
    turn, a fate is read one higher)."""
    return tuple(v for v in range(1, 8) if holds(power, arg, v + shadows))


def _holds_table() -> np.ndarray:
    """bool[NUM_ACTIONS, 9]: ``[action, kept]``, the yes of a question action whose
    argument is in the action (the set questions, Saints, Storms) about a fate read as
    ``kept`` (index 0 unused); all False for other actions (Shackles reads the play)."""
    table = np.zeros((NUM_ACTIONS, 9), bool)
    for a in ACTIONS:
        if a.kind == "power" and a.power in QUESTIONS and a.power != "shackles":
            table[a.index, 1:] = [holds(a.power, a.value, k) for k in range(1, 9)]
    return table


HOLDS = _holds_table()
SHACKLES_HOLDS = np.array(
    [[p > 0 and k > 0 and holds("shackles", p, k) for k in range(9)] for p in range(8)], bool
)
"""bool[8, 9]: ``[played, kept]``, Shackles' yes after ``played`` (index 0 unused)."""
