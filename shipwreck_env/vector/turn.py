"""The start and the end of a turn in the batched engine: dealing new games, drawing
fates, the per-turn reset and public snapshot, scoring, fading, refilling and the end
check. Mirrors :mod:`shipwreck_env.turn_start` and :mod:`shipwreck_env.fading`."""

from __future__ import annotations

import numpy as np

from shipwreck_env.cards import FATE_COPIES
from shipwreck_env.state import ALL_VALUES, Phase
from shipwreck_env.vector import chance
from shipwreck_env.vector.arrays import Arrays
from shipwreck_env.vector.ops import deck_top, event, events_at, table_clear
from shipwreck_env.vector.tables import BLIND_MAN, CARD_MOONS, CARD_POWER_OF, HOURS_OF

__all__ = ["deal", "end_turn", "game_over", "start_turn"]

WIN_SCORE = 7
LOSE_DOOM = 7


def deal(a: Arrays, g: np.ndarray, cards: np.ndarray) -> None:
    """Start new games in ``g`` (as ``engine.new_game``): shuffle ``cards`` (the card
    numbers of the chosen sets, in card order) from each game's stream, deal four,
    let seat 0 draw."""
    m = len(cards)
    perm = chance.permutations(a.key[g], a.draws[g], m)
    a.draws[g] += np.uint64(m)
    deck = cards[perm].astype(np.int8)
    a.slots[g] = deck[:, :4]
    a.deck[g] = -1
    a.deck[g, : m - 4] = deck[:, 4:]
    a.deck_head[g] = 0
    a.deck_len[g] = m - 4
    a.table[g] = 0
    a.table_len[g] = 0
    a.tcount[g] = 0
    a.faded[g] = -1
    a.faded_len[g] = 0
    a.fcount[g] = 0
    a.bag[g] = FATE_COPIES
    a.bag_known[g] = 0
    a.exiled[g] = 0
    a.hands[g] = 0
    a.hand_len[g] = 0
    a.lines[g] = ALL_VALUES
    a.score[g] = 0
    a.doom[g] = a.config.starting_doom
    a.turn[g] = 0
    a.over[g] = a.won[g] = a.truncated[g] = False
    a.events_len[g] = 0
    a.events_cur[g] = 0
    start_turn(a, g, np.zeros(len(g), np.int8))


def start_turn(a: Arrays, g: np.ndarray, seat: np.ndarray) -> None:
    """Make ``seat`` active, reset the turn, draw up to two fates, note the snapshot."""
    a.turn[g] += 1
    _reset_turn(a, g, seat)
    drawn = 2 - a.hand_len[g, seat]
    for k in (1, 2):
        sub = drawn >= k
        if sub.any():
            gs = g[sub]
            value = _draw_fate(a, gs)
            seats = seat[sub]
            n = a.hand_len[gs, seats]
            a.hands[gs, seats, n] = value
            a.hand_len[gs, seats] = n + 1
    event(a, g, "draw", seat, drawn)
    _snapshot(a, g)


def _reset_turn(a: Arrays, g: np.ndarray, seat: np.ndarray) -> None:
    a.active[g] = seat
    cur = 1 - a.events_cur[g]  # this turn's events go to the other buffer
    a.events_cur[g] = cur
    a.events_len[g, cur] = 0
    a.turn_actions_len[g] = 0
    a.queue_pos[g] = 0
    a.queue_len[g] = 0
    for flag in (a.power_used, a.shadows, a.feast_done, a.played_old, a.correct):
        flag[g] = False
    a.plays_len[g] = 0
    a.pred_len[g] = 0
    a.votes_len[g] = 0
    a.preds_left[g] = 1
    a.kept_eff[g] = 0
    holds = a.hand_len[g, seat] > 0
    a.old_fate[g] = np.where(holds, a.hands[g, seat, 0], 0)
    line = np.where(holds, a.lines[g, seat], ALL_VALUES).astype(np.uint8)
    a.tracked[g] = line
    a.line_fresh[g] = line
    a.line_tracked[g] = line
    a.phase[g] = Phase.PLAY
    a.decider[g] = seat % a.config.num_players
    a.ann_power[g] = -1
    a.ann_value[g] = 0
    a.ann_slot[g] = -1
    a.ann_answer[g] = -1
    a.ann_chalice[g] = -1
    a.ann_reveal[g] = 0


def _draw_fate(a: Arrays, g: np.ndarray) -> np.ndarray:
    """One fate from each game's bag (an empty bag first takes back the table's fates,
    then -- if still empty -- the exiled ones), as ``turn_start.draw_fate``."""
    total = a.bag[g].sum(axis=1, dtype=np.int64)
    empty = total == 0
    if empty.any():
        ge = g[empty]
        returned = a.tcount[ge].sum(axis=1)  # [n, 7]
        a.bag[ge] += returned.astype(np.int8)
        back = returned.sum(axis=1)
        for slot in range(4):
            table_clear(a, ge, np.full(len(ge), slot))
        event(a, ge, "table_to_bag", back)
        none = back == 0
        if none.any():
            gn = ge[none]
            a.bag[gn] += a.exiled[gn]
            a.exiled[gn] = 0
            event(a, gn, "exiled_to_bag", a.bag[gn].sum(axis=1))
        total = a.bag[g].sum(axis=1, dtype=np.int64)
    a.bag_known[g] = 0
    u = chance.uniforms(a.key[g], a.draws[g])
    a.draws[g] += np.uint64(1)
    r = (u * total).astype(np.int64)  # as int(rng.random() * total)
    cum = np.cumsum(a.bag[g], axis=1, dtype=np.int64)
    index = np.argmax(cum > r[:, None], axis=1)
    a.bag[g, index] -= 1
    return (index + 1).astype(np.int8)


def _snapshot(a: Arrays, g: np.ndarray) -> None:
    """The public table after the draw (``State.turn_start``)."""
    a.ts_slots[g] = a.slots[g]
    a.ts_table[g] = a.table[g]
    a.ts_table_len[g] = a.table_len[g]
    a.ts_faded[g] = a.faded[g]
    a.ts_faded_len[g] = a.faded_len[g]
    a.ts_deck_top[g] = deck_top(a, g)
    a.ts_deck_len[g] = a.deck_len[g]
    a.ts_exiled[g] = a.exiled[g]
    a.ts_lines[g] = a.lines[g]
    a.ts_hand_len[g] = a.hand_len[g]
    a.ts_score[g] = a.score[g]
    a.ts_doom[g] = a.doom[g]
    a.ts_turn[g] = a.turn[g]


def slot_hours(a: Arrays, g: np.ndarray) -> np.ndarray:
    """Hours in front of every slot, [n, 4] (base cards: the fates' hours)."""
    return (a.tcount[g] * HOURS_OF[None, None, 1:]).sum(axis=2)


def end_turn(a: Arrays, g: np.ndarray) -> None:
    """Score or doom, fade, refill, then end the game or start the next seat's turn."""
    slots = a.slots[g]
    fading = (slots >= 0) & (a.table_len[g] > 0) & (slot_hours(a, g) >= CARD_MOONS[slots])
    correct = a.correct[g]
    a.score[g] += correct.astype(np.int8)
    wrong = ~correct
    doom = (wrong & (a.pred_len[g] > 0)).astype(np.int8)
    doom += 2 * (fading & (slots != BLIND_MAN) & wrong[:, None]).sum(axis=1, dtype=np.int8)
    a.doom[g] += doom
    _fade(a, g, fading)
    _refill(a, g, fading.any(axis=1) | (slots.min(axis=1) < 0))
    won = a.score[g] >= WIN_SCORE
    lost = ~won & (a.doom[g] >= LOSE_DOOM)
    ended = won | lost
    max_turns = a.config.max_turns
    if max_turns is not None:
        cut = ~ended & (a.turn[g] >= max_turns)
        a.truncated[g[cut]] = True
        ended |= cut
    if ended.any():
        game_over(a, g[ended], won[ended])
    going = ~ended
    if going.any():
        gg = g[going]
        start_turn(a, gg, ((a.active[gg] + 1) % a.config.num_seats).astype(np.int8))


def _fade(a: Arrays, g: np.ndarray, fading: np.ndarray) -> None:
    """Fade the cards of ``fading`` ([n, 4]), in slot order."""
    gi, slot = np.nonzero(fading)  # by game, then slot: the reference's order
    if len(gi) == 0:
        return
    counts = a.tcount[g] * fading[:, :, None]  # [n, 4, 7]
    back = counts.sum(axis=1, dtype=np.int8)
    a.bag[g] += back
    a.bag_known[g] += back
    gp = g[gi]
    a.table[gp, slot] = 0
    a.table_len[gp, slot] = 0
    a.tcount[gp, slot] = 0
    card = a.slots[gp, slot]
    a.slots[gp, slot] = -1
    per_game = fading.sum(axis=1, dtype=np.int16)
    rank = (np.cumsum(fading, axis=1) - 1)[gi, slot]  # 0, 1, ... within each game
    a.faded[gp, a.faded_len[gp] + rank] = card
    a.faded_len[g] += per_game.astype(np.int8)
    power = CARD_POWER_OF[card]
    np.add.at(a.fcount, (gp, power), 1)
    events_at(a, gp, rank, "fade", slot, card)
    a.events_len[g, a.events_cur[g]] += per_game


def _refill(a: Arrays, g: np.ndarray, refill: np.ndarray) -> None:
    """Fill empty slots from the top of the deck, left to right, while it has cards."""
    empty = (a.slots[g] < 0) & refill[:, None]
    rank = np.cumsum(empty, axis=1) - 1
    take = empty & (rank < a.deck_len[g, None])
    gi, slot = np.nonzero(take)
    if len(gi) == 0:
        return
    gp = g[gi]
    r = rank[gi, slot]
    card = a.deck[gp, (a.deck_head[gp] + r) % a.num_cards]
    a.slots[gp, slot] = card
    taken = take.sum(axis=1, dtype=np.int16)
    a.deck_head[g] = (a.deck_head[g] + taken) % a.num_cards
    a.deck_len[g] -= taken
    events_at(a, gp, r, "refill", slot, card)
    a.events_len[g, a.events_cur[g]] += taken


def game_over(a: Arrays, g: np.ndarray, won: np.ndarray) -> None:
    """End the games ``g`` (``won`` per game)."""
    a.over[g] = True
    a.won[g] = won
    a.phase[g] = Phase.GAME_OVER
    a.decider[g] = -1
    a.queue_pos[g] = 0
    a.queue_len[g] = 0
