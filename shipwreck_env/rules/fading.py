"""The end of a turn: score or doom, fading cards, refilling slots, the end check.

Also the hour count in front of a card, which the plays and the powers re-check during
the turn. What a card's own text changes (The Ash, The Fall, The Imago, The Blind Man)
is in :mod:`shipwreck_env.rules.arcana`; what an attached power changes (Scions, Sands) in
:mod:`shipwreck_env.rules.powers`. Part of the rules engine (see :mod:`shipwreck_env.rules.engine`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shipwreck_env.rules import powers
from shipwreck_env.rules.arcana import (
    FADES_BY_TEXT,
    FADES_WITHOUT_DOOM,
    FADES_WITHOUT_FATES,
    IMAGO,
    announce_fall,
    imago_hours,
)
from shipwreck_env.rules.cards import CARDS, fate_hours
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.turn_start import start_turn

__all__ = [
    "CARD_MOONS",
    "DOOM_PER_FADE",
    "IMAGO",
    "announce_fall",
    "end_turn",
    "fade_cost",
    "fades_by_hours",
    "fading_slots",
    "fates_hours",
    "game_over",
    "slot_hours",
]

CARD_MOONS: list[int | None] = [card.moons for card in CARDS]
HOURS_OF: list[int] = [0] + [fate_hours(v) for v in range(1, 8)]
WIN_SCORE = 7
LOSE_DOOM = 7
DOOM_PER_FADE = 2


def slot_hours(s: State, slot: int) -> int:
    """Hours in front of the card on ``slot`` (Scions: 1 per fate; Imago: a 7 is 1)."""
    return fates_hours(s.slots[slot], s.attached[slot], s.table[slot])


def fates_hours(card: int, attached: Sequence[int], fates: Sequence[int]) -> int:
    """Hours that ``fates`` count in front of ``card`` with the cards ``attached`` to it."""
    if attached and powers.scions_among(attached):
        return powers.scions_hours(fates)
    hours = 0
    for v in fates:
        hours += HOURS_OF[v]
    if card == IMAGO:
        hours = imago_hours(fates, hours)
    return hours


def fades_by_hours(card: int, attached: Sequence[int], fates: Sequence[int]) -> bool:
    """Do ``fates`` in front of ``card`` (with ``attached``) reach its moons? Always
    False for a card without moons (it fades by its own text)."""
    moons = CARD_MOONS[card]
    return moons is not None and fates_hours(card, attached, fates) >= moons


def fade_cost(card: int, amplified: bool) -> int:
    """Doom that ``card`` fading costs without a correct prediction (``amplified``: Sands
    sits on a card fading this turn)."""
    return 0 if card in FADES_WITHOUT_DOOM else DOOM_PER_FADE + amplified


# --- end of turn: score, fade, refill, next seat ----------------------------------


def _fades(s: State, slot: int) -> bool:
    card = s.slots[slot]
    by_text = FADES_BY_TEXT.get(card)
    if by_text is not None:
        return by_text(s, slot)
    return fades_by_hours(card, s.attached[slot], s.table[slot])


def fading_slots(s: State) -> list[int]:
    """The slots whose card fades if the turn ends now (what :func:`end_turn` fades)."""
    slots, table = s.slots, s.table
    fading = []
    for slot in range(4):
        card = slots[slot]
        # A card with nothing in front can only fade by its own text (The Ash).
        if card >= 0 and (table[slot] or card in FADES_WITHOUT_FATES) and _fades(s, slot):
            fading.append(slot)
    return fading


def end_turn(s: State, rng: np.random.Generator) -> None:
    slots = s.slots
    fading = fading_slots(s)
    bonus = 1 if fading and powers.sands_amplifies(s, fading) else 0
    if s.correct:
        s.score += 1 + bonus
    else:
        if s.predictions:
            s.doom += 1
        for slot in fading:
            s.doom += fade_cost(slots[slot], bool(bonus))
    if fading:
        for slot in fading:
            _fade(s, slot)
        _refill(s)
    elif min(slots) < 0:  # a slot may still wait for a card (the deck ran out before)
        _refill(s)
    if s.score >= WIN_SCORE:
        game_over(s, won=True)
    elif s.doom >= LOSE_DOOM:
        game_over(s, won=False)
    elif s.config.max_turns is not None and s.turn >= s.config.max_turns:
        s.truncated = True
        game_over(s, won=False)
    else:
        start_turn(s, (s.active + 1) % len(s.hands), rng)


def _fade(s: State, slot: int) -> None:
    for v in s.table[slot]:
        s.bag[v - 1] += 1
        s.bag_known[v - 1] += 1
    s.table[slot] = []
    s.deck.extend(s.attached[slot])
    s.attached[slot] = []
    card = s.slots[slot]
    s.slots[slot] = -1
    if not powers.sands_waits(s, slot, card):
        s.faded.append(card)
    s.events.append(("fade", slot, CARDS[card].id))


def _refill(s: State) -> None:
    for slot in range(4):
        if s.slots[slot] >= 0 or not s.deck:
            continue
        card = s.deck.pop(0)
        s.slots[slot] = card
        s.events.append(("refill", slot, CARDS[card].id))
        powers.sands_attach(s, slot)


def game_over(s: State, *, won: bool) -> None:
    s.over = True
    s.won = won
    s.phase = Phase.GAME_OVER
    s.decider = -1
    s.queue = []
