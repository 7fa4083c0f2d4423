"""What arcana cards do beyond their condition and their moons, in the batched engine,
for one game: one home per card text. Mirrors :mod:`shipwreck_env.rules.arcana` (compiled,
see :mod:`shipwreck_env.vector.jit`).

* **The Ash** notes a 1 or 2 played while it is in play (:func:`note_play`) and then
  fades at the turn's end, even with nothing in front of it.
* **The Fall** fades when the fates in front of it reach twice the kept fate; whether it
  will is announced (:func:`announce_fall`) and said again when the answer changes.
* **The Imago** counts a 7 in front of it as 1 hour (:func:`imago_hours`).
* **The Blind Man** fades without doom: the table ``card_free_fade`` (built from
  ``arcana.FADES_WITHOUT_DOOM`` in ``vector.tables``) says so, and the end of the turn
  (:mod:`shipwreck_env.vector.fading`) reads it.

The faded powers, attached ones included, are in :mod:`shipwreck_env.vector.powers`.
"""

from __future__ import annotations

from shipwreck_env.vector import tables as t
from shipwreck_env.vector.jit import rule
from shipwreck_env.vector.number_lines import constrain_kept
from shipwreck_env.vector.ops import FALL_EVENT, event, slot_of, table_sum

__all__ = [
    "announce_fall",
    "fades_by_text",
    "fades_by_text_after",
    "fades_without_fates",
    "fall_announcement_after",
    "imago_hours",
    "imago_hours_of",
    "note_play",
]

ASH, FALL, IMAGO = t.ASH, t.FALL, t.IMAGO


# --- The Ash ------------------------------------------------------------------------


@rule
def _ash_notes(value) -> bool:
    """Does a fate of ``value`` played while The Ash is in play make it fade (a 1 or 2)?"""
    return value <= 2


@rule
def note_play(s, g, value) -> None:
    """A fate of ``value`` was just played: The Ash, if in play, notes a 1 or 2
    (``arcana.note_play``)."""
    if _ash_notes(value) and slot_of(s, g, ASH) >= 0:
        s.ash_trigger[g] = True


# --- The Fall -----------------------------------------------------------------------


@rule
def _fall_reached(total, kept) -> bool:
    """Do fates worth ``total`` in front of The Fall reach twice the kept fate ``kept``?"""
    return total >= 2 * kept


@rule
def fall_announcement_after(s, g, value, landed, kept) -> int:
    """The Fall's "fades this turn" (1 yes, 0 no, -1: not in play) if a fate of
    ``value`` landed in front of slot ``landed`` (-1 none) and the plays ended keeping
    ``kept`` (as conditions read it), on the table as it stands; it changes nothing
    (``arcana.fall_announcement`` on the fates after that play)."""
    slot = slot_of(s, g, FALL)
    if slot < 0:
        return -1
    total = table_sum(s, g, slot) + (value if landed == slot else 0)
    return 1 if _fall_reached(total, kept) else 0


@rule
def announce_fall(s, r, g) -> None:
    """The Fall (``arcana.announce_fall``): whether it fades this turn, said again
    whenever the answer changes; while no prediction was made it tells about the kept
    fate."""
    kept = s.fall_kept[g]
    if kept == 0:
        return
    slot = slot_of(s, g, FALL)
    if slot < 0:
        return
    total = table_sum(s, g, slot)
    fading = 1 if _fall_reached(total, kept) else 0
    if fading != s.fall_fading[g]:
        s.fall_fading[g] = fading
        event(s, g, FALL_EVENT, fading, -1, -1, -1)
    if s.pred_len[g] == 0:
        shift = 1 if s.shadows[g] else 0
        mask = 0
        for k in range(1, 8):
            if _fall_reached(total, k + shift) == (fading == 1):
                mask |= 1 << (k - 1)
        constrain_kept(s, g, mask)


# --- The Imago ----------------------------------------------------------------------


@rule
def imago_hours_of(card, sevens, hours) -> int:
    """Hours of fates in front of ``card`` that count ``hours`` elsewhere and hold
    ``sevens`` 7s: in front of The Imago each 7 counts 1 hour, not 3
    (``arcana.imago_hours``)."""
    if card == IMAGO:
        return hours - 2 * sevens
    return hours


@rule
def imago_hours(s, g, slot, hours) -> int:
    """Hours in front of ``slot`` from the ``hours`` its fates count elsewhere
    (:func:`imago_hours_of` on the slot's card and its 7s)."""
    return imago_hours_of(s.slots[g, slot], s.tcount[g, slot, 6], hours)


# --- how a card fades by its own text -------------------------------------------------


@rule
def fades_without_fates(card) -> bool:
    """May ``card`` fade with no fate in front of it (``arcana.FADES_WITHOUT_FATES``)?"""
    return card == ASH


@rule
def fades_by_text(s, g, slot) -> int:
    """Does the card on ``slot`` fade at this turn's end by its own text
    (``arcana.FADES_BY_TEXT``)? 1 yes, 0 no, -1: it fades by its hours instead."""
    card = s.slots[g, slot]
    if card == ASH:
        return 1 if s.ash_trigger[g] else 0
    if card == FALL:
        kept = s.fall_kept[g]
        return 1 if kept > 0 and _fall_reached(table_sum(s, g, slot), kept) else 0
    return -1


@rule
def fades_by_text_after(card, played, fall) -> int:
    """Does ``card`` fade by its own text when the turn ends after one play of
    ``played`` (made while it was in play) and The Fall's announcement ``fall`` (1 / 0
    / -1 none)? 1 yes, 0 no, -1: it fades by its hours instead
    (``arcana.fades_by_text_after``)."""
    if card == ASH:
        return 1 if _ash_notes(played) else 0
    if card == FALL:
        return 1 if fall == 1 else 0
    return -1
