"""Number lines in the batched engine, for one game: the kept table's row for a card
(which kept values allow a play there), the hands that fit no card (The Hours), the
record of a play on the active seat's lines, and the public constraints on its kept
fate. Mirrors :mod:`shipwreck_env.rules.number_lines` (compiled, see
:mod:`shipwreck_env.vector.jit`).

Functions here read the table but never move fates or change the phase.
"""

from __future__ import annotations

from shipwreck_env.rules.cards import NUM_CARDS
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.jit import rule

__all__ = [
    "ALL",
    "constrain_kept",
    "greater_mask",
    "hours_kept_mask",
    "kept_mask",
    "play_lines",
    "real_mask",
    "record_play",
    "table_row",
    "visible_bits",
]

ALL = 0x7F  # every value 1..7 on a number line
FEAST = t.FEAST


@rule
def visible_bits(tcount, g) -> int:
    """Bit mask of the distinct values in front of the slots."""
    visible = 0
    for slot in range(4):
        for v in range(7):
            if tcount[g, slot, v] > 0:
                visible |= 1 << v
    return visible


@rule
def _visible_sum4(tcount, g) -> int:
    """Sum of the fates in front of the slots, modulo 4 (The Lantern's key)."""
    total = 0
    for slot in range(4):
        for v in range(7):
            total += tcount[g, slot, v] * (v + 1)
    return total & 3


@rule
def table_row(slots, tcount, feast_done, r, g, visible, slot):
    """The row of the kept table for the card of ``slot``: ``(card, key)`` (``card``
    is the row of "no card" for an empty slot, and for The Feast once it was played on
    this turn), as ``number_lines.table_rows``. Each key is computed only for the cards
    that read it, so that a base game pays for none of the expansions' summaries."""
    card = slots[g, slot]
    if card < 0 or (card == FEAST and feast_done[g]):
        card = NUM_CARDS  # the table's row of "no card": nothing allowed
    kind = r.card_kind[card]
    key = 0  # the summary each condition reads (number_lines.CARD_CONTEXT)
    if kind == 1:
        key = visible
    elif kind == 2:
        key = _visible_sum4(tcount, g)
    elif kind == 3:  # the highest fate already in front of the card (Iron)
        for v in range(7):
            if tcount[g, slot, v] > 0:
                key = v + 1
    return card, key


@rule
def kept_mask(slots, tcount, shadows, feast_done, r, g, visible, slot, played) -> int:
    """Mask of real kept values that allow playing ``played`` on the card of ``slot``
    (0 for an empty slot, and for The Feast once it was played on this turn)."""
    card, key = table_row(slots, tcount, feast_done, r, g, visible, slot)
    return r.kept[card, 1 if shadows[g] else 0, key, played - 1]


@rule
def hours_kept_mask(s, r, g, visible, played) -> int:
    """Real kept values ``k`` for which the hand (``played``, ``k``) fits no card
    (``number_lines.hours_kept_mask``)."""
    shadow = 1 if s.shadows[g] else 0
    fits = 0
    for slot in range(4):
        card, key = table_row(s.slots, s.tcount, s.feast_done, r, g, visible, slot)
        fits |= r.kept[card, shadow, key, played - 1]  # play it, keep k
        for k in range(7):  # play k, keep it
            if (r.kept[card, shadow, key, k] >> (played - 1)) & 1:
                fits |= 1 << k
    return ~fits & 0x7F


@rule
def play_lines(tracked, played, condition) -> tuple:
    """(the tracked fate's line, the fresh fate's line) after ``played`` was played under
    ``condition`` with ``tracked`` the tracked fate's line so far: the tracked fate stays
    possible where the play allows it; a fate drawn this turn only if ``played`` could be
    the tracked one. The seat's line is their union. It changes nothing."""
    line_tracked = tracked & condition
    line_fresh = condition if (tracked >> (played - 1)) & 1 else 0
    return line_tracked, line_fresh


@rule
def record_play(s, g, played, condition) -> None:
    """Update the active seat's lines after it played ``played`` under ``condition``
    (mask of real kept values that allowed the play), as ``number_lines.record_play``."""
    line_tracked, line_fresh = play_lines(s.tracked[g], played, condition)
    s.line_tracked[g] = line_tracked
    s.line_fresh[g] = line_fresh
    s.lines[g, s.active[g]] = line_fresh | line_tracked


@rule
def real_mask(s, g, holds) -> int:
    """Mask of real kept values ``k`` whose effective value (Shadows: +1) makes
    ``holds`` true; ``holds`` is indexed by effective value 0..8."""
    shift = 1 if s.shadows[g] else 0
    mask = 0
    for k in range(1, 8):
        if holds[k + shift]:
            mask |= 1 << (k - 1)
    return mask


@rule
def greater_mask(s, g, value) -> int:
    """Mask of real kept values ``k`` whose effective value (Shadows: +1) is greater
    than ``value``."""
    shift = 1 if s.shadows[g] else 0
    mask = 0
    for k in range(1, 8):
        if k + shift > value:
            mask |= 1 << (k - 1)
    return mask


@rule
def constrain_kept(s, g, mask) -> None:
    """A public fact: the active seat's kept fate has a real value in ``mask``."""
    s.line_fresh[g] &= mask
    s.line_tracked[g] &= mask
    s.lines[g, s.active[g]] &= mask
