"""What arcana cards do beyond their condition and their moons: one home per card text.

The conditions (where a fate may be played) are in :mod:`shipwreck_env.rules.conditions`; faded
powers, attached ones included (Scions, Sands), are in :mod:`shipwreck_env.rules.powers`. The
cards here change how a card fades, counts hours or costs doom:

* **The Ash** -- fades at the end of a turn in which a 1 or 2 was played anywhere while
  it was in play (:func:`note_play`, its entry in :data:`FADES_BY_TEXT`), even with
  nothing in front of it (:data:`FADES_WITHOUT_FATES`).
* **The Fall** -- fades when the fates in front of it add up to at least twice the
  kept fate's value when the plays ended; the engine announces whether it will
  (:func:`announce_fall`), again whenever the answer may change.
* **The Imago** -- a 7 in front of it counts 1 hour instead of 3, however it got there
  (:func:`imago_hours`; docs/rules.md, decision 20).
* **The Blind Man** -- fading costs no doom (:data:`FADES_WITHOUT_DOOM`).

The same texts on public facts alone -- :func:`fall_announcement` and
:func:`fades_by_text_after` -- serve the agents' reasoning about a hypothetical first
play (:mod:`shipwreck_env.rules.public_record`).

The cards that shape the play itself -- The Feast (play, draw, play again), The Wish (one
more prediction), The Chalice (its tell) and The Thief (its steal) -- are the play's
steps, in :mod:`shipwreck_env.rules.plays`. Part of the rules engine (see
:mod:`shipwreck_env.rules.engine`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from shipwreck_env.rules.cards import CARD_INDEX
from shipwreck_env.rules.number_lines import constrain_kept, real_mask
from shipwreck_env.rules.state import State

__all__ = [
    "ASH",
    "BLIND_MAN",
    "FADES_BY_TEXT",
    "FADES_WITHOUT_DOOM",
    "FADES_WITHOUT_FATES",
    "FALL",
    "IMAGO",
    "announce_fall",
    "fades_by_text_after",
    "fall_announcement",
    "fall_fades",
    "imago_hours",
    "note_play",
]

ASH = CARD_INDEX["ash"]
FALL = CARD_INDEX["fall"]
IMAGO = CARD_INDEX["imago"]
BLIND_MAN = CARD_INDEX["blind_man"]


# --- The Ash ------------------------------------------------------------------------


def _ash_notes(value: int) -> bool:
    """Does a fate of ``value`` played while The Ash is in play make it fade (a 1 or 2)?"""
    return value <= 2


def note_play(s: State, value: int) -> None:
    """A fate of ``value`` was just played: The Ash, if in play, notes a 1 or 2."""
    if _ash_notes(value) and ASH in s.slots:
        s.ash_trigger = True


def _ash_fades(s: State, slot: int) -> bool:
    return s.ash_trigger


# --- The Fall -----------------------------------------------------------------------


def fall_fades(s: State, slot: int) -> bool:
    """Do the fates in front of The Fall (on ``slot``) reach twice the kept value?"""
    return _fall_reached(s.table[slot], s.fall_kept)


def _fall_reached(fates: Sequence[int], kept: int) -> bool:
    return sum(fates) >= 2 * kept


def _fall_fades_now(s: State, slot: int) -> bool:
    return s.fall_kept > 0 and fall_fades(s, slot)


def announce_fall(s: State) -> None:
    """The Fall: say whether it fades this turn (again whenever the answer may change)."""
    if FALL not in s.slots or s.fall_kept == 0:
        return
    slot = s.slots.index(FALL)
    fading = fall_fades(s, slot)
    if int(fading) != s.fall_fading:
        s.fall_fading = int(fading)
        s.events.append(("fall", fading))
    if not s.predictions:  # the kept fate is still hidden: the answer is news about it
        total = sum(s.table[slot])
        constrain_kept(s, real_mask(s, lambda e: (total >= 2 * e) == fading))


# --- The Imago ----------------------------------------------------------------------


def imago_hours(fates: Sequence[int], hours: int) -> int:
    """Hours in front of The Imago, from the ``hours`` its ``fates`` count elsewhere:
    each 7 counts 1 hour there, not 3."""
    return hours - 2 * fates.count(7)


# --- how each card fades and what fading costs ------------------------------------------

FADES_BY_TEXT: dict[int, Callable[[State, int], bool]] = {
    ASH: _ash_fades,
    FALL: _fall_fades_now,
}
"""Cards that fade by their own text instead of hours reaching moons:
``FADES_BY_TEXT[card](state, slot)``."""
FADES_WITHOUT_FATES: frozenset[int] = frozenset({ASH})
"""Cards that may fade with no fate in front of them."""
FADES_WITHOUT_DOOM: frozenset[int] = frozenset({BLIND_MAN})
"""Cards whose fade costs no doom."""


# --- the same texts on public facts: a hypothetical first play ----------------------


def fall_announcement(
    slots: Sequence[int], table: Sequence[Sequence[int]], kept: int
) -> bool | None:
    """The Fall's "fades this turn" with the fates ``table`` in front of the cards
    ``slots`` when the plays end keeping ``kept`` (as conditions read it); ``None`` if
    The Fall is not in play."""
    if FALL not in slots:
        return None
    return _fall_reached(table[slots.index(FALL)], kept)


def fades_by_text_after(card: int, played: int, fall: bool | None) -> bool | None:
    """Does ``card`` fade by its own text when the turn ends after one play of
    ``played`` (made while it was in play) and The Fall's announcement ``fall``?
    ``None``: ``card`` fades by its hours instead (the cards of :data:`FADES_BY_TEXT`
    answer, every other card does not)."""
    if card == ASH:
        return _ash_notes(played)
    if card == FALL:
        return bool(fall)
    return None
