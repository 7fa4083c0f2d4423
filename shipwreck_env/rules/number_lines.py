"""Number lines: the public memory of what each held fate can still be.

For every seat the engine keeps a 7-bit mask of the values its held fate may have,
given only public facts: the plays and the conditions they satisfied, power answers,
announcements, and wrong predictions. During the active player's turn two masks are
kept, because the group does not know which fate in hand is the one carried over:
``line_tracked`` (the kept fate is the one carried over, or already tracked before the
last play) and ``line_fresh`` (the kept fate was drawn this turn). The public line is
their union until Shells tells which one holds.

Functions here read the table but never move fates or change the phase.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from shipwreck_env.rules.cards import CARD_INDEX, FATE_VALUES
from shipwreck_env.rules.conditions import CONTEXT_KIND, KEPT_MASKS
from shipwreck_env.rules.state import ALL_VALUES, State

__all__ = [
    "constrain_kept",
    "hours_kept_mask",
    "real_mask",
    "record_play",
    "table_rows",
    "visible_key",
]

FEAST = CARD_INDEX["feast"]
_KIND_CODE = {"hand": 0, "visible": 1, "sum_mod4": 2, "max_on": 3}
CARD_CONTEXT: list[int] = [
    _KIND_CODE[CONTEXT_KIND[c]] for c in sorted(CARD_INDEX, key=CARD_INDEX.get)
]
"""Per card number: which table summary its condition reads (0 hand, 1 visible set,
2 visible sum mod 4, 3 highest fate on the card)."""


def visible_key(slots: Sequence[int], table: Sequence[Sequence[int]]) -> tuple[int, int]:
    """(bit mask of distinct visible values, sum of visible fates mod 4) of the public
    table ``slots`` (card numbers, -1 for none) and ``table`` (the fates per slot)."""
    mask = 0
    total = 0
    for card, fates in zip(slots, table, strict=True):
        if fates and card >= 0:
            for v in fates:
                mask |= 1 << (v - 1)
            total += sum(fates)
    return mask, total & 3


def table_rows(
    slots: Sequence[int],
    table: Sequence[Sequence[int]],
    shadows: bool = False,
    feast_done: bool = False,
) -> list[list[int] | None]:
    """Per slot: ``row[played - 1]`` = mask of kept values that allow the play there on
    the public table ``slots`` (card numbers, -1 for none) and ``table`` (the fates in
    front of each slot), with Shadows used this turn or not and The Feast already played
    on or not (``None`` for an empty slot, and for The Feast once played on): the rows
    :func:`shipwreck_env.rules.plays.first_plays` reads, as the engine's play rule builds them."""
    keys = (0, *visible_key(slots, table))  # the key each kind of condition reads
    lifted = 1 if shadows else 0
    rows: list[list[int] | None] = [None] * len(slots)
    for slot, card in enumerate(slots):
        if card < 0 or (card == FEAST and feast_done):
            continue
        kind = CARD_CONTEXT[card]
        key = keys[kind] if kind < 3 else max(table[slot], default=0)
        rows[slot] = KEPT_MASKS[card][lifted][key]
    return rows


def hours_kept_mask(s: State, played: int) -> int:
    """Real kept values ``k`` for which a hand (``played``, ``k``) could go nowhere but
    The Hours on the current table."""
    rows = [r for r in table_rows(s.slots, s.table, s.shadows, s.feast_done) if r is not None]
    mask = 0
    for k in FATE_VALUES:
        blocked = True
        for row in rows:
            if row[played - 1] >> (k - 1) & 1:
                blocked = False
                break
            # the other order: play k, keep `played` (rows already add Shadows' +1)
            if row[k - 1] >> (played - 1) & 1:
                blocked = False
                break
        if blocked:
            mask |= 1 << (k - 1)
    return mask


def record_play(s: State, played: int, condition: int) -> None:
    """Update the active seat's masks after it played ``played`` under ``condition``
    (mask of real kept values that allowed the play)."""
    tracked = s.tracked
    s.line_tracked = tracked & condition
    s.line_fresh = condition if tracked >> (played - 1) & 1 else 0
    s.lines[s.active] = s.line_fresh | s.line_tracked


def constrain_kept(s: State, mask: int) -> None:
    """A public fact says the active player's kept fate has a real value in ``mask``."""
    s.line_fresh &= mask
    s.line_tracked &= mask
    s.lines[s.active] &= mask


def real_mask(s: State, holds: Callable[[int], bool]) -> int:
    """Mask of real kept values ``k`` for which ``holds(effective value of k)``."""
    bonus = 1 if s.shadows else 0
    mask = 0
    for k in FATE_VALUES:
        if holds(k + bonus):
            mask |= 1 << (k - 1)
    return mask


def reset_line(s: State, seat: int) -> None:
    """The seat holds no fate it could have carried: nothing is known."""
    s.lines[seat] = ALL_VALUES
