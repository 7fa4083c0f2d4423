"""The end of a turn: score or doom, fading cards, refilling slots, the end check.

Also the hour count in front of a card and The Fall's fade test, which the plays and
the powers re-check during the turn. Part of the rules engine (see
:mod:`shipwreck_env.engine`).
"""

from __future__ import annotations

import numpy as np

from shipwreck_env import powers
from shipwreck_env.cards import CARD_INDEX, CARDS, POWER_INDEX, fate_hours
from shipwreck_env.number_lines import constrain_kept, real_mask
from shipwreck_env.state import Phase, State
from shipwreck_env.turn_start import start_turn

FALL = CARD_INDEX["fall"]
ASH = CARD_INDEX["ash"]
IMAGO = CARD_INDEX["imago"]
BLIND_MAN = CARD_INDEX["blind_man"]
SANDS = POWER_INDEX["sands"]
SCIONS = POWER_INDEX["scions"]
CARD_MOONS: list[int | None] = [card.moons for card in CARDS]
HOURS_OF: list[int] = [0] + [fate_hours(v) for v in range(1, 8)]
WIN_SCORE = 7
LOSE_DOOM = 7


def slot_hours(s: State, slot: int) -> int:
    """Hours in front of the card on ``slot`` (Scions: 1 per fate; Imago: a 7 is 1)."""
    fates = s.table[slot]
    if s.attached[slot]:
        for card in s.attached[slot]:
            if powers.CARD_POWER[card] == SCIONS:
                return len(fates)
    hours = 0
    for v in fates:
        hours += HOURS_OF[v]
    if s.slots[slot] == IMAGO:
        hours -= 2 * fates.count(7)  # a 7 counts 1 hour there, not 3
    return hours


def fall_fades(s: State, slot: int) -> bool:
    return sum(s.table[slot]) >= 2 * s.fall_kept


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


# --- end of turn: score, fade, refill, next seat ----------------------------------


def _fades(s: State, slot: int) -> bool:
    card = s.slots[slot]
    if card == ASH:
        return s.ash_trigger
    if card == FALL:
        return s.fall_kept > 0 and fall_fades(s, slot)
    return slot_hours(s, slot) >= CARD_MOONS[card]


def end_turn(s: State, rng: np.random.Generator) -> None:
    slots, table = s.slots, s.table
    fading = []
    for slot in range(4):
        card = slots[slot]
        # A card with nothing in front can only fade by its own text (The Ash).
        if card >= 0 and (table[slot] or card == ASH) and _fades(s, slot):
            fading.append(slot)
    bonus = 1 if fading and _amplified(s, fading) else 0
    if s.correct:
        s.score += 1 + bonus
    else:
        if s.predictions:
            s.doom += 1
        for slot in fading:
            if slots[slot] != BLIND_MAN:
                s.doom += 2 + bonus
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


def _amplified(s: State, fading: list[int]) -> bool:
    """Does Sands sit on a fading card (its fade costs or scores one more)?"""
    card_power = powers.CARD_POWER
    return any(card_power[card] == SANDS for slot in fading for card in s.attached[slot])


def _fade(s: State, slot: int) -> None:
    for v in s.table[slot]:
        s.bag[v - 1] += 1
        s.bag_known[v - 1] += 1
    s.table[slot] = []
    s.deck.extend(s.attached[slot])
    s.attached[slot] = []
    card = s.slots[slot]
    s.slots[slot] = -1
    if powers.CARD_POWER[card] == SANDS:
        s.sands_waiting[slot] = card
    else:
        s.faded.append(card)
    s.events.append(("fade", slot, CARDS[card].id))


def _refill(s: State) -> None:
    for slot in range(4):
        if s.slots[slot] >= 0 or not s.deck:
            continue
        card = s.deck.pop(0)
        s.slots[slot] = card
        s.events.append(("refill", slot, CARDS[card].id))
        if s.sands_waiting[slot] >= 0:
            s.attached[slot].append(s.sands_waiting[slot])
            s.sands_waiting[slot] = -1
            s.events.append(("attach", "sands", slot))


def game_over(s: State, *, won: bool) -> None:
    s.over = True
    s.won = won
    s.phase = Phase.GAME_OVER
    s.decider = -1
    s.queue = []
