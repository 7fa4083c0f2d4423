"""The active player's part of a turn in the batched engine: the legal plays, the play
itself (with The Hours' slide and The Chalice's tell), and the active player's powers
(Sparrows before the play; Shells and Sinners after it). Mirrors
:mod:`shipwreck_env.plays` and the active player's rules of :mod:`shipwreck_env.powers`.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.actions import HOURS_TARGET, PASS
from shipwreck_env.state import Phase
from shipwreck_env.vector.arrays import Arrays
from shipwreck_env.vector.ops import (
    Pending,
    constrain_kept,
    deck_append,
    deck_pop,
    event,
    real_mask,
    table_append,
    table_remove,
    take_power,
)
from shipwreck_env.vector.tables import (
    ACTION_SLOT,
    ACTION_VALUE,
    BIT,
    CARD_KIND,
    CHALICE,
    KEPT,
    PLAY_ACTION,
    SINGLE_ACTION,
    SINNERS_ACTION,
    SPARROWS_ACTION,
    P,
)

__all__ = ["after_play_legal", "apply_after_play", "apply_play_phase", "play_legal"]

SHELLS, SINNERS, SPARROWS = P["shells"], P["sinners"], P["sparrows"]
_VALUE_RANGE = np.arange(1, 8)
_EFFECTIVE = np.arange(9)  # effective kept values 0..8 (Shadows may add 1 to a 7)


def _visible_mask(a: Arrays, g: np.ndarray) -> np.ndarray:
    """Bit mask of the distinct visible values of each game."""
    seen = a.tcount[g].sum(axis=1) > 0  # [n, 7]
    return (seen * BIT[None, :]).sum(axis=1, dtype=np.int64)


def _kept_rows(a: Arrays, g: np.ndarray) -> np.ndarray:
    """[n, 4, 7] masks: ``rows[i, slot, played - 1]`` = real kept values that allow
    playing ``played`` on the card of ``slot`` (0 for an empty slot)."""
    slots = a.slots[g]  # [n, 4]
    key = np.where(CARD_KIND[slots] == 1, _visible_mask(a, g)[:, None], 0)
    return KEPT[slots, a.shadows[g, None].astype(np.int64), key]


def play_legal(a: Arrays, g: np.ndarray, mask: np.ndarray) -> None:
    """Set the legal plays of the active seats of ``g`` in ``mask`` (rows of ``g``)."""
    rows = _kept_rows(a, g)
    hand = a.hands[g, a.active[g]].astype(np.int64)  # [n, 2]
    x, y = hand[:, 0], hand[:, 1]
    n = len(g)
    i = np.arange(n)
    first = (rows[i, :, x - 1] >> (y - 1)[:, None]) & 1  # play x, keep y: [n, 4]
    second = ((rows[i, :, y - 1] >> (x - 1)[:, None]) & 1) * (x != y)[:, None]
    slots = np.arange(4)
    mask[g[:, None], PLAY_ACTION[slots[None, :], x[:, None]]] |= first.astype(bool)
    mask[g[:, None], PLAY_ACTION[slots[None, :], y[:, None]]] |= second.astype(bool)
    stuck = ~(first.any(axis=1) | second.any(axis=1))
    if stuck.any():
        gs = g[stuck]
        mask[gs, PLAY_ACTION[HOURS_TARGET, x[stuck]]] = True
        mask[gs, PLAY_ACTION[HOURS_TARGET, y[stuck]]] = True
    _sparrows_legal(a, g, mask)


def _sparrows_legal(a: Arrays, g: np.ndarray, mask: np.ndarray) -> None:
    ok = (a.fcount[g, SPARROWS] > 0) & ~a.power_used[g] & (a.deck_len[g] > 0)
    if ok.any():
        go = g[ok]
        free = (a.slots[go] >= 0) & (a.table_len[go] == 0)
        mask[go[:, None], SPARROWS_ACTION[None, :]] = free


def apply_play_phase(a: Arrays, g: np.ndarray, action: np.ndarray, todo: Pending) -> None:
    """Apply play-phase actions: Sparrows or a play."""
    sparrows = action >= SPARROWS_ACTION[0]
    if sparrows.any():
        _apply_sparrows(a, g[sparrows], ACTION_SLOT[action[sparrows]])
    play = ~sparrows
    if play.any():
        _play(a, g[play], ACTION_VALUE[action[play]], ACTION_SLOT[action[play]], todo)


def _hours_kept_mask(rows: np.ndarray, played: np.ndarray) -> np.ndarray:
    """Real kept values ``k`` for which the hand (``played``, ``k``) fits no card."""
    i = np.arange(len(played))
    direct = np.bitwise_or.reduce(rows[i, :, played - 1], axis=1)  # play it, keep k
    other = ((rows >> (played - 1)[:, None, None]) & 1).any(axis=1)  # play k, keep it
    other_mask = (other * BIT[None, :]).sum(axis=1, dtype=np.uint8)
    return (~(direct | other_mask)) & 0x7F


def _play(a: Arrays, g: np.ndarray, value: np.ndarray, target: np.ndarray, todo: Pending) -> None:
    n = len(g)
    i = np.arange(n)
    rows = _kept_rows(a, g)
    v64 = value.astype(np.int64)
    hours = target == HOURS_TARGET
    direct = rows[i, np.minimum(target, 3), v64 - 1]
    condition = np.where(hours, _hours_kept_mask(rows, v64), direct).astype(np.uint8)
    seat = a.active[g]
    hand = a.hands[g, seat]  # [n, 2]
    other = np.where(hand[:, 0] == value, hand[:, 1], hand[:, 0])
    old = a.old_fate[g]
    played_old = (old != 0) & (value == old) & (other != value)
    a.played_old[g] = played_old
    a.old_fate[g] = np.where(played_old, 0, old)
    a.hands[g, seat, 0] = other
    a.hands[g, seat, 1] = 0
    a.hand_len[g, seat] = 1
    # number lines (number_lines.record_play)
    tracked = a.tracked[g]
    line_tracked = tracked & condition
    line_fresh = np.where((tracked >> (v64 - 1)) & 1, condition, 0).astype(np.uint8)
    a.line_tracked[g] = line_tracked
    a.line_fresh[g] = line_fresh
    a.lines[g, seat] = line_fresh | line_tracked
    # where the fate lands: The Hours slides it to the first card in play
    occupied = a.slots[g] >= 0
    first_card = np.where(occupied.any(axis=1), np.argmax(occupied, axis=1), -1)
    landed = np.where(hours, first_card, target).astype(np.int8)
    on_table = landed >= 0
    if on_table.all():
        table_append(a, g, landed, value)
    else:
        table_append(a, g[on_table], landed[on_table], value[on_table])
        gb, vb = g[~on_table], value[~on_table] - 1
        a.bag[gb, vb] += 1
        a.bag_known[gb, vb] += 1
    k = a.plays_len[g]
    a.plays[g, k, 0] = value
    a.plays[g, k, 1] = target
    a.plays[g, k, 2] = landed
    a.plays_len[g] = k + 1
    event(a, g, "play", value, target, landed)
    # the plays are over (no Feast in the covered sets): the kept fate is known
    kept_eff = (other + a.shadows[g]).astype(np.int8)
    a.kept_eff[g] = kept_eff
    card = np.where(hours, -1, a.slots[g, np.minimum(target, 3)])
    chalice = card == CHALICE
    if chalice.any():
        gc, vc = g[chalice], v64[chalice]
        higher = kept_eff[chalice] > vc
        holds = _EFFECTIVE[None, :] > vc[:, None]
        holds = holds == higher[:, None]
        constrain_kept(a, gc, real_mask(a, gc, holds))
        event(a, gc, "chalice", higher)
        a.ann_chalice[gc] = higher
    after = ~a.power_used[g] & ((a.fcount[g, SHELLS] > 0) | (a.fcount[g, SINNERS] > 0))
    if after.any():
        ga = g[after]
        a.phase[ga] = Phase.AFTER_PLAY
        a.decider[ga] = a.active[ga] % a.config.num_players
    todo.reveal[g[~after]] = True


def _apply_sparrows(a: Arrays, g: np.ndarray, slot: np.ndarray) -> None:
    card = take_power(a, g, np.full(len(g), SPARROWS))
    a.power_used[g] = True
    old = a.slots[g, slot]
    new = deck_pop(a, g)
    deck_append(a, g, old)
    a.slots[g, slot] = new
    deck_append(a, g, card)
    event(a, g, "power", SPARROWS, slot, old, new)
    a.ann_power[g] = SPARROWS
    a.ann_slot[g] = slot


def after_play_legal(a: Arrays, g: np.ndarray, mask: np.ndarray) -> None:
    """Pass, Shells, and Sinners on a visible fate lower than the kept fate."""
    mask[g, PASS] = True
    free = ~a.power_used[g]
    mask[g, SINGLE_ACTION["shells"]] = free & (a.fcount[g, SHELLS] > 0)
    sinners = free & (a.fcount[g, SINNERS] > 0)
    if sinners.any():
        gs = g[sinners]
        lower = _VALUE_RANGE[None, None, :] < a.kept_eff[gs, None, None]  # [n, 1, 7]
        mask[gs[:, None, None], SINNERS_ACTION[None, :, 1:]] = (a.tcount[gs] > 0) & lower


def apply_after_play(a: Arrays, g: np.ndarray, action: np.ndarray, todo: Pending) -> None:
    """Shells, Sinners or pass; then the reveals."""
    shells = action == SINGLE_ACTION["shells"]
    if shells.any():
        _apply_shells(a, g[shells])
    sinners = (action != PASS) & ~shells
    if sinners.any():
        _apply_sinners(a, g[sinners], ACTION_SLOT[action[sinners]], ACTION_VALUE[action[sinners]])
    todo.reveal[g] = True


def _use(a: Arrays, g: np.ndarray, power: int) -> None:
    """Take the earliest faded card of ``power`` to the deck bottom; the turn's power
    is used."""
    card = take_power(a, g, np.full(len(g), power))
    deck_append(a, g, card)
    a.power_used[g] = True
    a.ann_power[g] = power


def _apply_shells(a: Arrays, g: np.ndarray) -> None:
    _use(a, g, SHELLS)
    answer = a.played_old[g]
    line = np.where(answer, a.line_fresh[g], a.line_tracked[g])
    a.line_fresh[g] = line
    a.line_tracked[g] = line
    a.lines[g, a.active[g]] = line
    played = a.plays[g, a.plays_len[g] - 1, 0]
    event(a, g, "power", SHELLS, played, -1, answer)
    a.ann_answer[g] = answer


def _apply_sinners(a: Arrays, g: np.ndarray, slot: np.ndarray, value: np.ndarray) -> None:
    _use(a, g, SINNERS)
    table_remove(a, g, slot, value)
    a.bag[g, value - 1] += 1
    a.bag_known[g, value - 1] += 1
    holds = _EFFECTIVE[None, :] > value[:, None]
    constrain_kept(a, g, real_mask(a, g, holds))
    event(a, g, "power", SINNERS, slot, value, -1)
    a.ann_value[g] = value
    a.ann_slot[g] = slot
