"""The end of a turn in the batched engine, for one game: score or doom, fading
cards, refilling slots, the end check; and the hour count in front of a card. Mirrors
:mod:`shipwreck_env.rules.fading` (compiled, see :mod:`shipwreck_env.vector.jit`). What a
card's own text changes (The Ash, The Fall, The Imago) is in
:mod:`~shipwreck_env.vector.arcana`; what an attached power changes (Scions, Sands) in
:mod:`~shipwreck_env.vector.powers`."""

from __future__ import annotations

from shipwreck_env.rules.state import Phase
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.arcana import (
    fades_by_text,
    fades_without_fates,
    imago_hours,
    imago_hours_of,
)
from shipwreck_env.vector.jit import rule
from shipwreck_env.vector.ops import (
    FADE_EVENT,
    REFILL_EVENT,
    detach_to_deck,
    event,
    fade_card,
    table_clear,
)
from shipwreck_env.vector.powers import (
    sands_attach,
    sands_attached,
    sands_waits,
    scions_attached,
    scions_hours,
)
from shipwreck_env.vector.turn_start import start_turn

__all__ = ["end_turn", "fades_doom", "game_over", "slot_hours", "slot_hours_after"]

WIN_SCORE = 7
LOSE_DOOM = 7
OVER_PHASE = Phase.GAME_OVER
C_SEATS, C_MAX_TURNS = t.C_SEATS, t.C_MAX_TURNS


@rule
def slot_hours(s, r, g, slot) -> int:
    """Hours in front of ``slot`` (``fading.fates_hours``): Scions attached counts
    each fate 1 hour (``powers``); in front of The Imago a 7 counts 1 hour, not 3
    (``arcana``)."""
    if scions_attached(s, r, g, slot):
        return scions_hours(s, g, slot)
    hours = 0
    for v in range(7):
        hours += s.tcount[g, slot, v] * r.hours_of[v + 1]
    return imago_hours(s, g, slot, hours)


@rule
def slot_hours_after(s, r, g, slot, value, landed) -> int:
    """Hours in front of ``slot`` once a fate of ``value`` has landed in front of slot
    ``landed`` (-1 none), on the table as it stands; it changes nothing (``fading.fates_hours``
    of the fates after that play)."""
    hours = slot_hours(s, r, g, slot)
    if landed != slot:
        return hours
    if scions_attached(s, r, g, slot):
        return hours + 1  # with Scions the landed fate counts 1 hour too
    return hours + imago_hours_of(s.slots[g, slot], 1 if value == 7 else 0, r.hours_of[value])


@rule
def fades_doom(s, r, g, fading) -> tuple:
    """(the doom the cards of ``fading`` (a bit per slot) cost without a correct
    prediction, whether Sands sits on one of them): 2 a card, 3 when amplified, none
    for a card that fades free (``fading.fade_cost``). It changes nothing."""
    amplified = False
    for slot in range(4):
        if (fading >> slot) & 1 and sands_attached(s, r, g, slot):
            amplified = True
    doom = 0
    for slot in range(4):
        if (fading >> slot) & 1 and not r.card_free_fade[s.slots[g, slot]]:
            doom += 3 if amplified else 2
    return doom, amplified


@rule
def _fades(s, r, g, slot) -> bool:
    """Does the card on ``slot`` fade at this turn's end (``fading._fades``)?"""
    card = s.slots[g, slot]
    # A card with nothing in front can only fade by its own text (The Ash).
    if s.table_len[g, slot] == 0 and not fades_without_fates(card):
        return False
    by_text = fades_by_text(s, g, slot)
    if by_text >= 0:
        return by_text == 1
    return slot_hours(s, r, g, slot) >= r.card_moons[card]


@rule
def end_turn(s, r, g) -> None:
    """Score or doom, fade, refill, then end the game or start the next seat's turn."""
    fading = 0  # bit per slot
    for slot in range(4):
        if s.slots[g, slot] >= 0 and _fades(s, r, g, slot):
            fading |= 1 << slot
    doom, amplified = fades_doom(s, r, g, fading)
    if s.correct[g]:
        s.score[g] += 2 if amplified else 1
    else:
        s.doom[g] += doom + (1 if s.pred_len[g] > 0 else 0)
    refill = False
    for slot in range(4):
        if (fading >> slot) & 1:
            _fade(s, r, g, slot)
        refill |= s.slots[g, slot] < 0  # a faded slot, or one left empty before
    if refill:
        _refill(s, g)
    won = s.score[g] >= WIN_SCORE
    ended = won or s.doom[g] >= LOSE_DOOM
    max_turns = r.config[C_MAX_TURNS]
    if not ended and max_turns >= 0 and s.turn[g] >= max_turns:
        s.truncated[g] = True
        ended = True
    if ended:
        game_over(s, g, won)
    else:
        start_turn(s, r, g, (s.active[g] + 1) % r.config[C_SEATS])


@rule
def _fade(s, r, g, slot) -> None:
    """Fade the card of ``slot``: its fates go back to the bag (known), its attached
    cards under the deck; it becomes a faded card, or (Sands) waits for the slot's
    refill."""
    for v in range(7):
        n = s.tcount[g, slot, v]
        s.bag[g, v] += n
        s.bag_known[g, v] += n
    table_clear(s, g, slot)
    detach_to_deck(s, g, slot)
    card = s.slots[g, slot]
    s.slots[g, slot] = -1
    if not sands_waits(s, r, g, slot, card):
        fade_card(s, r, g, card)
    event(s, g, FADE_EVENT, slot, card, -1, -1)


@rule
def _refill(s, g) -> None:
    """Fill empty slots from the top of the deck, left to right, while it has cards; a
    Sands card waiting for a slot attaches to its new card."""
    m = s.deck.shape[1]
    for slot in range(4):
        if s.slots[g, slot] < 0 and s.deck_len[g] > 0:
            head = s.deck_head[g] % m
            card = s.deck[g, head]
            s.slots[g, slot] = card
            s.deck[g, head] = -1
            s.deck_head[g] = (head + 1) % m
            s.deck_len[g] -= 1
            event(s, g, REFILL_EVENT, slot, card, -1, -1)
            sands_attach(s, g, slot)


@rule
def game_over(s, g, won) -> None:
    """End game ``g``."""
    s.over[g] = True
    s.won[g] = won
    s.phase[g] = OVER_PHASE
    s.decider[g] = -1
    s.queue_pos[g] = 0
    s.queue_len[g] = 0
