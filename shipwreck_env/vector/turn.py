"""The start and the end of a turn in the batched engine, for one game: dealing a new
game, drawing fates, the per-turn reset and public snapshot, scoring, fading, refilling
and the end check. Mirrors :mod:`shipwreck_env.turn_start` and
:mod:`shipwreck_env.fading` (compiled, see :mod:`shipwreck_env.vector.jit`)."""

from __future__ import annotations

import numpy as np

from shipwreck_env.cards import FATE_COPIES
from shipwreck_env.state import Phase
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.chance import permutation_at, uniform_at
from shipwreck_env.vector.jit import rule
from shipwreck_env.vector.ops import (
    ALL,
    ATTACH_EVENT,
    DRAW,
    EXILED_TO_BAG,
    FADE_EVENT,
    REFILL_EVENT,
    TABLE_TO_BAG,
    attach,
    copy_row,
    copy_row3,
    deck_top,
    detach_to_deck,
    event,
    fade_card,
    has_attached,
    table_clear,
)

__all__ = ["deal", "draw_fate", "end_turn", "game_over", "slot_hours", "start_turn", "table_sum"]

WIN_SCORE = 7
LOSE_DOOM = 7
ASH, FALL, IMAGO = t.ASH, t.FALL, t.IMAGO
SCIONS, SANDS = t.P["scions"], t.P["sands"]
PLAY_PHASE, OVER_PHASE = Phase.PLAY, Phase.GAME_OVER
C_PLAYERS, C_SEATS, C_MAX_TURNS, C_DOOM = t.C_PLAYERS, t.C_SEATS, t.C_MAX_TURNS, t.C_STARTING_DOOM


@rule
def deal(s, r, g) -> None:
    """Start a new game in ``g`` (as ``engine.new_game``): shuffle the deck from the
    game's stream, deal four cards, let seat 0 draw."""
    cards = r.cards
    m = len(cards)
    perm = r.work_order
    permutation_at(s.key[g], s.draws[g], m, r.work_u, perm)
    s.draws[g] += np.uint64(m)
    for i in range(4):
        s.slots[g, i] = cards[perm[i]]
    s.deck[g, :] = -1
    for i in range(4, m):
        s.deck[g, i - 4] = cards[perm[i]]
    s.deck_head[g] = 0
    s.deck_len[g] = m - 4
    s.table[g] = 0
    s.table_len[g] = 0
    s.tcount[g] = 0
    s.attached[g] = -1
    s.attached_len[g] = 0
    s.sands_waiting[g] = -1
    s.faded[g] = -1
    s.faded_len[g] = 0
    s.fcount[g] = 0
    s.bag[g] = FATE_COPIES
    s.bag_known[g] = 0
    s.exiled[g] = 0
    s.hands[g] = 0
    s.hand_len[g] = 0
    s.lines[g] = ALL
    s.score[g] = 0
    s.doom[g] = r.config[C_DOOM]
    s.turn[g] = 0
    s.over[g] = False
    s.won[g] = False
    s.truncated[g] = False
    s.events_len[g] = 0
    s.events_cur[g] = 0
    start_turn(s, r, g, 0)


@rule
def start_turn(s, r, g, seat) -> None:
    """Make ``seat`` active, reset the turn, draw up to two fates, note the snapshot."""
    s.turn[g] += 1
    _reset_turn(s, r, g, seat)
    drawn = 2 - s.hand_len[g, seat]
    for _ in range(drawn):
        n = s.hand_len[g, seat]
        s.hands[g, seat, n] = draw_fate(s, g)
        s.hand_len[g, seat] = n + 1
    event(s, g, DRAW, seat, drawn, -1, -1)
    _snapshot(s, g)


@rule
def _reset_turn(s, r, g, seat) -> None:
    s.active[g] = seat
    cur = 1 - s.events_cur[g]  # this turn's events go to the other buffer
    s.events_cur[g] = cur
    s.events_len[g, cur] = 0
    s.turn_actions_len[g] = 0
    s.queue_pos[g] = 0
    s.queue_len[g] = 0
    s.power_used[g] = False
    s.shadows[g] = False
    s.feast_done[g] = False
    s.played_old[g] = False
    s.correct[g] = False
    s.plays_len[g] = 0
    s.pred_len[g] = 0
    s.votes_len[g] = 0
    s.preds_left[g] = 1
    s.kept_eff[g] = 0
    s.pending_power[g] = -1
    s.pending_slot[g] = -1
    s.pending_value[g] = 0
    s.fall_kept[g] = 0
    s.fall_fading[g] = -1
    s.ash_trigger[g] = False
    line = ALL
    s.old_fate[g] = 0
    if s.hand_len[g, seat] > 0:
        s.old_fate[g] = s.hands[g, seat, 0]
        line = s.lines[g, seat]
    s.tracked[g] = line
    s.line_fresh[g] = line
    s.line_tracked[g] = line
    s.phase[g] = PLAY_PHASE
    s.decider[g] = seat % r.config[C_PLAYERS]
    s.ann_power[g] = -1
    s.ann_value[g] = 0
    s.ann_slot[g] = -1
    s.ann_answer[g] = -1
    s.ann_chalice[g] = -1
    s.ann_reveal[g] = 0
    s.ann_to_slot[g] = -1
    s.ann_cost[g] = -1
    s.ann_exile_slot[g] = -1
    s.ann_exile_value[g] = 0
    s.ann_steal[g] = -1
    s.ann_steal_slot[g] = -1
    s.ann_steal_value[g] = 0


@rule
def draw_fate(s, g) -> int:
    """One fate from the bag (an empty bag first takes back the table's fates, then --
    if still empty -- the exiled ones), as ``turn_start.draw_fate``."""
    bag = s.bag[g]
    total = 0
    for v in range(7):
        total += bag[v]
    if total == 0:
        back = 0
        for slot in range(4):
            for v in range(7):
                bag[v] += s.tcount[g, slot, v]
                back += s.tcount[g, slot, v]
            table_clear(s, g, slot)
        event(s, g, TABLE_TO_BAG, back, -1, -1, -1)
        if back == 0:
            for v in range(7):
                bag[v] += s.exiled[g, v]
                s.exiled[g, v] = 0
            total = 0
            for v in range(7):
                total += bag[v]
            event(s, g, EXILED_TO_BAG, total, -1, -1, -1)
        total = 0
        for v in range(7):
            total += bag[v]
    s.bag_known[g] = 0
    u = uniform_at(s.key[g], s.draws[g])
    s.draws[g] += np.uint64(1)
    pick = int(u * total)  # as int(rng.random() * total)
    v = 0
    cum = bag[0]
    while cum <= pick:
        v += 1
        cum += bag[v]
    bag[v] -= 1
    return v + 1


@rule
def _snapshot(s, g) -> None:
    """The public table after the draw (``State.turn_start``)."""
    copy_row(s.ts_slots, s.slots, g)
    copy_row3(s.ts_table, s.table, g)
    copy_row(s.ts_table_len, s.table_len, g)
    copy_row3(s.ts_attached, s.attached, g)
    copy_row(s.ts_attached_len, s.attached_len, g)
    copy_row(s.ts_sands, s.sands_waiting, g)
    copy_row(s.ts_faded, s.faded, g)
    s.ts_faded_len[g] = s.faded_len[g]
    s.ts_deck_top[g] = deck_top(s, g)
    s.ts_deck_len[g] = s.deck_len[g]
    copy_row(s.ts_exiled, s.exiled, g)
    copy_row(s.ts_lines, s.lines, g)
    copy_row(s.ts_hand_len, s.hand_len, g)
    s.ts_score[g] = s.score[g]
    s.ts_doom[g] = s.doom[g]
    s.ts_turn[g] = s.turn[g]


@rule
def slot_hours(s, r, g, slot) -> int:
    """Hours in front of ``slot`` (``fading.fates_hours``): Scions attached counts
    each fate 1 hour; in front of The Imago a 7 counts 1 hour, not 3."""
    if s.attached_len[g, slot] > 0 and has_attached(s, r, g, slot, SCIONS):
        return s.table_len[g, slot]
    hours = 0
    for v in range(7):
        hours += s.tcount[g, slot, v] * r.hours_of[v + 1]
    if s.slots[g, slot] == IMAGO:
        hours -= 2 * s.tcount[g, slot, 6]
    return hours


@rule
def _fades(s, r, g, slot) -> bool:
    """Does the card on ``slot`` fade at this turn's end (``fading._fades``)?"""
    card = s.slots[g, slot]
    if card == ASH:  # by its text, even with nothing in front of it
        return s.ash_trigger[g]
    if s.table_len[g, slot] == 0:
        return False
    if card == FALL:
        return s.fall_kept[g] > 0 and table_sum(s, g, slot) >= 2 * s.fall_kept[g]
    return slot_hours(s, r, g, slot) >= r.card_moons[card]


@rule
def table_sum(s, g, slot) -> int:
    """Sum of the fates in front of ``slot``."""
    total = 0
    for v in range(7):
        total += s.tcount[g, slot, v] * (v + 1)
    return total


@rule
def end_turn(s, r, g) -> None:
    """Score or doom, fade, refill, then end the game or start the next seat's turn."""
    fading = 0  # bit per slot
    amplified = False  # Sands sits on a fading card
    for slot in range(4):
        if s.slots[g, slot] >= 0 and _fades(s, r, g, slot):
            fading |= 1 << slot
            if s.attached_len[g, slot] > 0 and has_attached(s, r, g, slot, SANDS):
                amplified = True
    bonus = 1 if amplified else 0
    if s.correct[g]:
        s.score[g] += 1 + bonus
    else:
        doom = 1 if s.pred_len[g] > 0 else 0
        for slot in range(4):
            if (fading >> slot) & 1 and not r.card_free_fade[s.slots[g, slot]]:
                doom += 2 + bonus
        s.doom[g] += doom
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
    if r.card_power[card] == SANDS:
        s.sands_waiting[g, slot] = card
    else:
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
            sands = s.sands_waiting[g, slot]
            if sands >= 0:
                attach(s, g, slot, sands)
                s.sands_waiting[g, slot] = -1
                event(s, g, ATTACH_EVENT, slot, -1, -1, -1)


@rule
def game_over(s, g, won) -> None:
    """End game ``g``."""
    s.over[g] = True
    s.won[g] = won
    s.phase[g] = OVER_PHASE
    s.decider[g] = -1
    s.queue_pos[g] = 0
    s.queue_len[g] = 0
