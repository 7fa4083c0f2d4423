"""What a scripted player can work out from its view: number lines after a play, the
literal posterior over a hidden fate, and which cards are about to fade.

Everything here reads only an :class:`~shipwreck_env.rules.view.AgentView` and the card
rules; nothing touches a game state.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.actions import HOURS_TARGET
from shipwreck_env.rules.cards import CARD_INDEX, fate_hours
from shipwreck_env.rules.conditions import KEPT_MASKS, summary_key
from shipwreck_env.rules.view import AgentView

__all__ = [
    "ALL_VALUES",
    "condition_mask",
    "doom_of_fades",
    "entropy",
    "fading_slots",
    "group_counts",
    "line_after_play",
    "literal_posterior",
    "mask_to_array",
]

ALL_VALUES = 0b1111111
_VALUES = np.arange(1, 8)


def mask_to_array(mask: int) -> np.ndarray:
    """7 booleans: value ``v`` possible at index ``v - 1``."""
    return (mask >> np.arange(7)) & 1 == 1


def literal_posterior(line: int, counts: np.ndarray | list[int]) -> np.ndarray:
    """P(value) proportional to (value on the number line) x (unseen copies of value).

    Falls back to the number line alone if no counted copy is left on it.
    """
    weights = mask_to_array(line) * np.maximum(np.asarray(counts, dtype=float), 0.0)
    total = weights.sum()
    if total <= 0:
        weights = mask_to_array(line).astype(float)
        total = weights.sum()
    return weights / total if total > 0 else np.full(7, 1 / 7)


def entropy(p: np.ndarray) -> float:
    """Shannon entropy in bits."""
    q = p[p > 0]
    return float(-(q * np.log2(q)).sum())


def group_counts(view: AgentView) -> np.ndarray:
    """Copies of each value that the group could still think the active player holds.

    For an observer in the group this is its own unseen count. For the active player it
    is its unseen count plus every fate in its own hands: the group sees none of them.
    """
    counts = np.array(view.unseen, dtype=float)
    if view.is_active:
        for hand in view.my_hands:
            for v in hand:
                counts[v - 1] += 1
    return counts


def _context(view: AgentView, slot: int) -> tuple[list[int], list[int]]:
    return list(view.visible), list(view.table[slot])


def condition_mask(view: AgentView, played: int, target: int) -> int:
    """Real kept values that would allow playing ``played`` on ``target`` now (The Hours:
    the kept values with which the hand could go nowhere else)."""
    shadows = 1 if view.shadows else 0
    if target != HOURS_TARGET:
        card = view.slots[target]
        visible, on_card = _context(view, target)
        key = summary_key(card, visible, on_card)
        return KEPT_MASKS[CARD_INDEX[card]][shadows][key][played - 1]
    rows = []
    for slot, card in enumerate(view.slots):
        if card is None or (card == "feast" and view.feast_done):
            continue
        visible, on_card = _context(view, slot)
        rows.append(KEPT_MASKS[CARD_INDEX[card]][shadows][summary_key(card, visible, on_card)])
    mask = 0
    for k in range(1, 8):
        if all(
            not (row[played - 1] >> (k - 1) & 1) and not (row[k - 1] >> (played - 1) & 1)
            for row in rows
        ):
            mask |= 1 << (k - 1)
    return mask


def line_after_play(view: AgentView, played: int, target: int, tracked: int) -> int:
    """The active seat's public number line after playing ``played`` on ``target``.

    ``tracked`` is the line of the fate that may have been carried (``ALL_VALUES`` when
    the player carried nothing): if the played value could be that fate, the kept one
    may be a fresh draw.
    """
    condition = condition_mask(view, played, target)
    fresh = condition if tracked >> (played - 1) & 1 else 0
    return fresh | (tracked & condition)


def tracked_line(view: AgentView) -> int:
    """The ``tracked`` argument of :func:`line_after_play` for the play about to happen:
    the active seat's line before it plays (all values when it carried nothing)."""
    return view.lines[view.active_seat]


def _hours(view: AgentView, slot: int, extra: tuple[int, ...] = ()) -> int:
    fates = view.table[slot] + extra
    if "scions" in view.attached[slot]:
        return len(fates)
    if view.slots[slot] == "imago":
        return sum(1 if v == 7 else fate_hours(v) for v in fates)
    return sum(fate_hours(v) for v in fates)


def fading_slots(view: AgentView, extra: dict[int, tuple[int, ...]] | None = None) -> list[int]:
    """Slots whose card fades at the end of this turn if nothing else changes (hours at
    or over moons; The Ash after a low play; The Fall as announced). ``extra`` adds
    hypothetical fates to slots."""
    extra = extra or {}
    low_played = any(value <= 2 for value, _, _ in view.plays)
    out = []
    for slot, card in enumerate(view.slots):
        if card is None:
            continue
        if card == "ash":
            if low_played or any(v <= 2 for v in extra.get(slot, ())):
                out.append(slot)
        elif card == "fall":
            if view.fall_fading:
                out.append(slot)
        elif _hours(view, slot, extra.get(slot, ())) >= (view.moons[slot] or 99):
            out.append(slot)
    return out


def doom_of_fades(view: AgentView, slots: list[int]) -> int:
    """Doom those fades cost without a correct prediction (Blind Man free; Sands +1)."""
    amplified = any("sands" in view.attached[slot] for slot in slots)
    return sum(0 if view.slots[slot] == "blind_man" else 2 + amplified for slot in slots)
