"""The one numbered list of every decision a player can make.

Each integer in ``range(NUM_ACTIONS)`` is one action with a readable description. The
list is sized for all 36 cards and 17 faded powers, so it never changes when card sets
are switched on; the engine's legal set says which numbers apply right now. Slots are
numbered 0-3 from the left (The Hours sits left of slot 0); a *visible fate* is named by
its slot and value (two equal fates in front of one card are interchangeable).

| block      | count | meaning                                                          |
|------------|-------|------------------------------------------------------------------|
| play       | 35    | play fate v on slot s (0-3) or on The Hours                      |
| predict    | 7     | predict v -- or, in vote mode, vote for v                       |
| pass       | 1     | decline: no power / no prediction / no vote / keep my fate       |
| reveal     | 1     | discard my held fate face up (rulebook FAQ)                      |
| saints     | 6     | use Saints: "is your fate higher than X?" for X = 1..6           |
| question   | 9     | use secrets, songs, spires, swords, sorrows, shackles, scythes,  |
|            |       | shells, shadows (no argument)                                    |
| sinners    | 28    | use Sinners on the visible fate (slot, v)                        |
| sparrows   | 4     | use Sparrows on slot s                                           |
| skies      | 84    | use Skies: move visible fate (slot a, v) to slot b != a          |
| storms     | 7     | use Storms: "is your fate the same as the visible v?"            |
| scions     | 4     | use Scions: attach it to slot s                                  |
| sails      | 28    | use Sails: exile the visible fate (slot, v)                      |
| cost       | 17    | discard faded power p as the cost of Sails or Scythes            |
| steal      | 28    | The Thief takes the visible fate (slot, v)                       |

When several faded cards offer the same power, using (or paying) that power takes the
card that faded first. This module must not import the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from shipwreck_env.rules.cards import FATE_VALUES, POWER_INDEX, POWERS

__all__ = [
    "ACTIONS",
    "HOURS_TARGET",
    "NUM_ACTIONS",
    "NUM_SLOTS",
    "PASS",
    "REVEAL",
    "ActionSpec",
    "action_table_markdown",
    "cost_action",
    "describe",
    "find_action",
    "play_action",
    "power_action",
    "predict_action",
    "steal_action",
]

NUM_SLOTS = 4
"""Arcana card slots right of The Hours."""
HOURS_TARGET = NUM_SLOTS
"""Play target number of The Hours (slots are 0-3)."""

NO_ARGUMENT_POWERS: tuple[str, ...] = (
    "secrets",
    "songs",
    "spires",
    "swords",
    "sorrows",
    "shackles",
    "scythes",
    "shells",
    "shadows",
)
SAINTS_THRESHOLDS: tuple[int, ...] = (1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class ActionSpec:
    """What one action number means.

    Attributes:
        index: the action number.
        kind: ``play``, ``predict``, ``pass``, ``reveal``, ``power``, ``cost`` or ``steal``.
        power: power id for ``power`` and ``cost`` actions, else ``None``.
        slot: play target (0-3, or 4 for The Hours), the slot of a visible fate, or the
            slot a power acts on; ``None`` when not used.
        value: a fate value, Saints' X, or ``None``.
        to_slot: Skies' destination slot, else ``None``.
        description: readable text.
    """

    index: int
    kind: str
    power: str | None = None
    slot: int | None = None
    value: int | None = None
    to_slot: int | None = None
    description: str = ""


def _target_name(target: int) -> str:
    return "The Hours" if target == HOURS_TARGET else f"slot {target}"


def _build() -> tuple[ActionSpec, ...]:
    specs: list[dict] = []
    for target in range(NUM_SLOTS + 1):
        for v in FATE_VALUES:
            specs.append(
                dict(
                    kind="play",
                    slot=target,
                    value=v,
                    description=f"play fate {v} on {_target_name(target)}",
                )
            )
    for v in FATE_VALUES:
        specs.append(dict(kind="predict", value=v, description=f"predict (or vote) {v}"))
    specs.append(dict(kind="pass", description="pass: decline the current option"))
    specs.append(dict(kind="reveal", description="reveal: discard my held fate face up"))
    for x in SAINTS_THRESHOLDS:
        specs.append(
            dict(
                kind="power",
                power="saints",
                value=x,
                description=f"use saints: is your fate higher than {x}?",
            )
        )
    for pid in NO_ARGUMENT_POWERS:
        title = POWERS[POWER_INDEX[pid]].title
        specs.append(dict(kind="power", power=pid, description=f"use {pid} ({title})"))
    for s in range(NUM_SLOTS):
        for v in FATE_VALUES:
            specs.append(
                dict(
                    kind="power",
                    power="sinners",
                    slot=s,
                    value=v,
                    description=f"use sinners: discard the {v} on slot {s}",
                )
            )
    for s in range(NUM_SLOTS):
        specs.append(
            dict(
                kind="power",
                power="sparrows",
                slot=s,
                description=f"use sparrows: cycle the card on slot {s}",
            )
        )
    for s in range(NUM_SLOTS):
        for v in FATE_VALUES:
            for t in range(NUM_SLOTS):
                if t != s:
                    specs.append(
                        dict(
                            kind="power",
                            power="skies",
                            slot=s,
                            value=v,
                            to_slot=t,
                            description=f"use skies: move the {v} on slot {s} to slot {t}",
                        )
                    )
    for v in FATE_VALUES:
        specs.append(
            dict(
                kind="power",
                power="storms",
                value=v,
                description=f"use storms: is your fate the same as the visible {v}?",
            )
        )
    for s in range(NUM_SLOTS):
        specs.append(
            dict(
                kind="power",
                power="scions",
                slot=s,
                description=f"use scions: attach it to slot {s}",
            )
        )
    for s in range(NUM_SLOTS):
        for v in FATE_VALUES:
            specs.append(
                dict(
                    kind="power",
                    power="sails",
                    slot=s,
                    value=v,
                    description=f"use sails: exile the {v} on slot {s}",
                )
            )
    for power in POWERS:
        specs.append(
            dict(kind="cost", power=power.id, description=f"discard {power.id} as the cost")
        )
    for s in range(NUM_SLOTS):
        for v in FATE_VALUES:
            specs.append(
                dict(
                    kind="steal",
                    slot=s,
                    value=v,
                    description=f"the Thief takes the {v} on slot {s}",
                )
            )
    return tuple(ActionSpec(index=i, **spec) for i, spec in enumerate(specs))


ACTIONS: tuple[ActionSpec, ...] = _build()
"""Every action, indexed by its number."""
NUM_ACTIONS = len(ACTIONS)

_LOOKUP: dict[tuple, int] = {
    (a.kind, a.power, a.slot, a.value, a.to_slot): a.index for a in ACTIONS
}
PASS: int = _LOOKUP[("pass", None, None, None, None)]
REVEAL: int = _LOOKUP[("reveal", None, None, None, None)]


def find_action(
    kind: str,
    power: str | None = None,
    slot: int | None = None,
    value: int | None = None,
    to_slot: int | None = None,
) -> int:
    """The number of the action with these fields.

    Raises:
        ValueError: no action has them.
    """
    try:
        return _LOOKUP[(kind, power, slot, value, to_slot)]
    except KeyError:
        raise ValueError(
            f"no action kind={kind!r} power={power!r} slot={slot!r} value={value!r} "
            f"to_slot={to_slot!r}; see shipwreck_env.rules.actions.ACTIONS for the {NUM_ACTIONS} "
            "actions"
        ) from None


def play_action(value: int, target: int) -> int:
    """Play fate ``value`` on ``target`` (slot 0-3, or ``HOURS_TARGET``)."""
    return find_action("play", slot=target, value=value)


def predict_action(value: int) -> int:
    """Predict (or vote) ``value``."""
    return find_action("predict", value=value)


def power_action(
    power: str, slot: int | None = None, value: int | None = None, to_slot: int | None = None
) -> int:
    """Use faded power ``power`` with its argument (see the module table)."""
    return find_action("power", power, slot, value, to_slot)


def cost_action(power: str) -> int:
    """Discard ``power`` as the cost of Sails or Scythes."""
    return find_action("cost", power)


def steal_action(slot: int, value: int) -> int:
    """The Thief takes the visible ``value`` on ``slot``."""
    return find_action("steal", slot=slot, value=value)


def describe(action: int) -> str:
    """Readable description of action number ``action``."""
    if not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(
            f"action {action!r} is not an action number; allowed: 0..{NUM_ACTIONS - 1}"
        )
    return ACTIONS[action].description


def action_table_markdown() -> str:
    """The full action list as a Markdown table (number, kind, description)."""
    lines = ["| action | kind | description |", "|---:|---|---|"]
    lines += [f"| {a.index} | {a.kind} | {a.description} |" for a in ACTIONS]
    return "\n".join(lines)
