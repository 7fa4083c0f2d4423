"""Observations of a batch of games: :func:`encode_batch` fills row ``i`` with exactly
what :func:`shipwreck_env.rules.observation.encode` gives for game ``i`` of an
:class:`~shipwreck_env.vector.arrays.Arrays` and its observer.

The encoder is compiled scalar code over one game (see
:mod:`shipwreck_env.vector.jit`), written field by field in the reference's order; the
layout's offsets come from :class:`~shipwreck_env.rules.observation.ObservationLayout` (one
source of truth). What is read: the counts ``tcount`` and ``fcount`` (never the
ordered lists), the announcement arrays ``ann_*`` (never the event rows), the deck
ring at ``deck_head``, and the ordered arrays only below their lengths. Every card set
is covered (attachments, The Thief, The Fall, costs, pending powers, Sails' exile).
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.cards import NUM_CARDS, POWER_INDEX
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.rules.state import Phase
from shipwreck_env.vector.arrays import Arrays
from shipwreck_env.vector.fading import slot_hours
from shipwreck_env.vector.jit import (
    STREAM_BLOCK,
    njit,
    pack,
    rule,
    rules_for,
    store_fence,
    stream8,
)

__all__ = ["encode_batch", "encode_rows", "layout_offsets"]

EMPTY = NUM_CARDS  # one-hot index of "no card"
SPARROWS = POWER_INDEX["sparrows"]
SAILS, SCIONS, SANDS = POWER_INDEX["sails"], POWER_INDEX["scions"], POWER_INDEX["sands"]
# the layout's fields the encoder writes, in the order of ``layout_offsets``
_FIELDS = [
    "phase",
    "decider",
    "active_seat",
    "leader",
    "score",
    "doom",
    "turn",
    "own_hand",
    "own_carried",
    "slot_card",
    "slot_fates",
    "slot_hours",
    "slot_moons",
    "slot_scions",
    "slot_sands",
    "deck_top",
    "deck_size",
    "faded_powers",
    "unseen",
    "exiled",
    "number_lines",
    "holding",
    "play_value",
    "play_target",
    "play_landed",
    "feast_done",
    "power_used",
    "power_value",
    "power_slot",
    "power_to_slot",
    "power_answer",
    "shadows",
    "cost_paid",
    "pending",
    "steal",
    "chalice",
    "fall",
    "reveals",
    "votes",
    "wrong_predictions",
    "predictions_left",
    "correct",
    "belief",
]
(
    PHASE, DECIDER, ACTIVE, LEADER, SCORE, DOOM, TURN, OWN, CARRIED, CARD,
    FATES, HOURS, MOONS, SCIONS_AT, SANDS_AT, TOP, DECK, FADED, UNSEEN, EXILED,
    LINES, HOLDING, PLAY_V, PLAY_T, PLAY_L, FEAST, POWER,
    VALUE, SLOT, TO, ANSWER, SHADOWS, COST, PENDING, STEAL, CHALICE, FALL, REVEALS, VOTES,
    WRONG, LEFT, CORRECT, BELIEF, PLAYERS, SEATS, OWN_SEATS,
) = range(len(_FIELDS) + 3)  # fmt: skip
PLAY_PHASE = Phase.PLAY


def layout_offsets(layout: ObservationLayout) -> np.ndarray:
    """int64: the offsets of the encoder's fields in ``layout`` (-1 for a field it does
    not have: ``belief``), then the numbers of players, seats and own seats."""
    o = layout.offsets
    return np.array(
        [o.get(name, -1) for name in _FIELDS]
        + [layout.num_players, layout.num_seats, layout.own_seats],
        np.int64,
    )


@rule
def _mod(x, n):
    """``x % n`` for ``x > -n`` (seats and players counted round the table), without
    the division: an observation takes a dozen of them, and with ``%`` the encoder took
    273 ns a game at N = 1,024 against 216 with this (one machine, same process)."""
    if x < 0:
        return x + n
    while x >= n:
        x -= n
    return x


@rule
def _encode(s, r, o, g, observer, b, unseen) -> None:
    """Fill ``b`` (one zeroed float32 row) with what ``observer`` sees of game ``g``
    (``unseen``: int64[7] work space).

    The arrays and offsets read in loops are named once at the top: LLVM cannot tell
    that the row's stores leave the structure and the offsets unchanged, so it would
    read them again after every store (measured: a third of the encoder's time)."""
    P, S = o[PLAYERS], o[SEATS]
    active, decider, phase = s.active[g], s.decider[g], s.phase[g]
    hands, hand_len, lines = s.hands[g], s.hand_len[g], s.lines[g]
    tcount, exiled, bag_known, fcount = s.tcount[g], s.exiled[g], s.bag_known[g], s.fcount[g]
    slots, attached, attached_len = s.slots[g], s.attached[g], s.attached_len[g]
    card_power, card_moons = r.card_power, r.card_moons
    o_own, o_exiled, o_card, o_fates = o[OWN], o[EXILED], o[CARD], o[FATES]
    o_lines, o_holding, o_faded, o_unseen = o[LINES], o[HOLDING], o[FADED], o[UNSEEN]
    b[o[PHASE] + phase] = 1
    b[o[ACTIVE] + _mod(active - observer, S)] = 1
    b[o[LEADER] + _mod(_mod(active + 1, P) - observer, P)] = 1
    b[o[SCORE] + min(s.score[g], 7)] = 1
    b[o[DOOM] + min(s.doom[g], 7)] = 1
    if decider >= 0:
        b[o[DECIDER] + _mod(decider - observer, P)] = 1
    unseen[:] = 3
    for k in range(o[OWN_SEATS]):
        seat = observer + k * P
        for i in range(hand_len[seat]):
            v = hands[seat, i]
            b[o_own + 7 * k + v - 1] += 1
            unseen[v - 1] -= 1
    if s.old_fate[g] and _mod(active, P) == observer and not s.over[g]:
        b[o[CARRIED] + s.old_fate[g] - 1] = 1
    for v in range(7):
        unseen[v] -= exiled[v] + bag_known[v]
        b[o_exiled + v] = exiled[v]
    # the table: cards, fates, hours, moons; deck top and size; faded powers
    for slot in range(4):
        card = slots[slot]
        base = o_card + (EMPTY + 1) * slot
        for i in range(attached_len[slot]):
            power = card_power[attached[slot, i]]
            if power == SCIONS:
                b[o[SCIONS_AT] + slot] += 1
            elif power == SANDS:
                b[o[SANDS_AT] + slot] += 1
        if card < 0:
            b[base + EMPTY] = 1
            continue
        b[base + card] = 1
        b[o[MOONS] + slot] = card_moons[card]
        for v in range(7):
            n = tcount[slot, v]
            b[o_fates + 7 * slot + v] = n
            unseen[v] -= n
        b[o[HOURS] + slot] = slot_hours(s, r, g, slot)
    top = EMPTY
    if s.deck_len[g] > 0:
        top = s.deck[g, _mod(s.deck_head[g], s.deck.shape[1])]
    b[o[TOP] + top] = 1
    for p in range(len(fcount)):
        b[o_faded + p] = fcount[p]
    for v in range(7):
        b[o_unseen + v] = unseen[v]
    for rel in range(S):  # seats from the observer's on
        seat = _mod(observer + rel, S)
        line = lines[seat]
        for v in range(7):
            b[o_lines + 7 * rel + v] = (line >> v) & 1
        b[o_holding + rel] = hand_len[seat]
    if s.plays_len[g] or s.power_used[g] or s.shadows[g]:
        _encode_turn(s, o, g, observer, b)
    b[o[TURN]] = s.turn[g] / 100.0  # a double quotient rounded to float32 once
    b[o[DECK]] = s.deck_len[g] / 36.0
    if o[BELIEF] >= 0:
        _encode_belief(s, o, g, observer, unseen, b)


@rule
def _encode_turn(s, o, g, observer, b) -> None:
    """This turn's plays, powers, announcements, predictions and votes (public)."""
    P, S = o[PLAYERS], o[SEATS]
    for i in range(min(2, s.plays_len[g])):
        b[o[PLAY_V] + 7 * i + s.plays[g, i, 0] - 1] = 1
        b[o[PLAY_T] + 5 * i + s.plays[g, i, 1]] = 1
        if s.plays[g, i, 2] >= 0:
            b[o[PLAY_L] + 4 * i + s.plays[g, i, 2]] = 1
    if s.feast_done[g]:
        b[o[FEAST]] = 1
    if s.shadows[g]:
        b[o[SHADOWS]] = 1
    power = s.ann_power[g]
    if power >= 0:
        b[o[POWER] + power] += 1
        if power == SPARROWS:  # its "answer" is the (old, new) card pair: truthy
            b[o[ANSWER]] += 1
        elif s.ann_answer[g] >= 0:
            b[o[ANSWER] + (0 if s.ann_answer[g] == 1 else 1)] += 1
        if s.ann_value[g] > 0:
            b[o[VALUE] + s.ann_value[g] - 1] += 1
        if s.ann_slot[g] >= 0:
            b[o[SLOT] + s.ann_slot[g]] += 1
        if s.ann_to_slot[g] >= 0:
            b[o[TO] + s.ann_to_slot[g]] += 1
    if s.ann_steal[g] == 0:
        b[o[STEAL] + 11] += 1
    elif s.ann_steal[g] == 1:
        b[o[STEAL] + s.ann_steal_value[g] - 1] += 1
        b[o[STEAL] + 7 + s.ann_steal_slot[g]] += 1
    if s.ann_chalice[g] >= 0:
        b[o[CHALICE] + (0 if s.ann_chalice[g] == 1 else 1)] += 1
    if s.ann_cost[g] >= 0:
        b[o[COST] + s.ann_cost[g]] += 1
    if s.ann_exile_slot[g] >= 0:  # Sails' exile: its slot and value
        b[o[SLOT] + s.ann_exile_slot[g]] += 1
        b[o[VALUE] + s.ann_exile_value[g] - 1] += 1
    if s.fall_fading[g] >= 0:
        b[o[FALL] + (0 if s.fall_fading[g] == 1 else 1)] += 1
    if s.pending_power[g] >= 0:
        b[o[PENDING] + (0 if s.pending_power[g] == SAILS else 1)] = 1
    for seat in range(S):
        v = s.ann_reveal[g, seat]
        if v > 0:
            b[o[REVEALS] + 7 * _mod(seat - observer, S) + v - 1] += 1
    n = s.pred_len[g]
    for i in range(n):
        if i < n - 1 or not s.correct[g]:
            b[o[WRONG] + s.predictions[g, i] - 1] += 1  # a value may be predicted twice
    if n and s.correct[g]:
        b[o[CORRECT]] = 1
    if 4 <= s.phase[g] <= 6:  # group, vote, cost: the group may still predict
        b[o[LEFT]] = s.preds_left[g]
    for k in range(s.votes_len[g]):
        player = _mod(s.active[g] + 1 + k, P)  # votes run clockwise from the leader
        vote = s.votes[g, k]
        b[o[VOTES] + 8 * _mod(player - observer, P) + (vote - 1 if vote else 7)] += 1


@rule
def _encode_belief(s, o, g, observer, unseen, b) -> None:
    """The literal posterior over the active seat's kept fate (see the layout)."""
    active = s.active[g]
    if s.hand_len[g, active] != 1 or s.phase[g] == PLAY_PHASE or s.correct[g]:
        return
    own = s.hands[g, active, 0] - 1 if _mod(active, o[PLAYERS]) == observer else -1
    line = s.lines[g, active]
    total = 0
    for v in range(7):  # the unseen copies, and the kept fate seen by its owner
        if (line >> v) & 1:
            total += unseen[v] + (v == own)
    if total > 0:
        for v in range(7):
            if (line >> v) & 1:
                b[o[BELIEF] + v] = (unseen[v] + (v == own)) / total


STREAM_BYTES = 4 * 2**20
"""Observations bigger than this are written past the cache (see :func:`encode_rows`).
Measured in one process, the encoder alternating both ways between random steps (3
players): written through the cache, the rows of 2,048 games (3.8 MiB) cost the same,
and from 3,072 games (5.8 MiB) streaming was faster (the whole step, mask and
observation 1,470 against 1,412 ns a game; at 4,096 games 987 against 860 on a quieter
run), because rows written through the cache push the games' state out of it."""


@njit
def encode_rows(s, r, o, games, observers, out) -> None:
    """``out[i]`` = the observation of game ``games[i]`` by ``observers[i]``.

    Observations bigger than :data:`STREAM_BYTES` together (from some 2,100 games of 3
    players) crowd the games' state out of the cache, and each row written would first
    be read from memory; those are built ``STREAM_BLOCK`` at a time in a small buffer
    that stays in the cache and stored from it past the cache, which writes the memory
    once."""
    unseen = r.work_unseen
    n = len(games)
    if out.size * 4 < STREAM_BYTES:
        for i in range(n):
            row = out[i]
            row[:] = 0.0
            _encode(s, r, o, games[i], observers[i], row, unseen)
        return
    width = out.shape[1]
    flat = out.reshape(out.size)
    block = r.work_rows
    for first in range(0, n, STREAM_BLOCK):
        k = min(STREAM_BLOCK, n - first)
        for j in range(k):
            row = block[j * width : (j + 1) * width]
            row[:] = 0.0
            _encode(s, r, o, games[first + j], observers[first + j], row, unseen)
        _stream(flat, first * width, block, k * width)
    store_fence()


@rule
def _stream(dst, start, src, count) -> None:
    """``dst[start : start + count] = src[:count]``, past the cache where aligned."""
    j = 0
    while j < count and (dst.ctypes.data + 4 * (start + j)) % 32:
        dst[start + j] = src[j]
        j += 1
    while j + 8 <= count:
        stream8(dst, start + j, src, j)
        j += 8
    while j < count:
        dst[start + j] = src[j]
        j += 1


def encode_batch(
    arr: Arrays,
    layout: ObservationLayout,
    observer: np.ndarray,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """The observations of every game: float32 ``[N, layout.size]`` whose row ``g`` equals
    ``observation.encode(state_g, observer[g], layout)``.

    Args:
        arr: the games.
        layout: the observation layout of the games' configuration.
        observer: integer array ``[N]``, the observing player (0..P-1) of each game.
        out: optional float32 ``[N, layout.size]`` array to write into (returned).

    Raises:
        ValueError: the layout does not fit the games' configuration, or ``observer`` / ``out`` have the wrong shape, type or
            values.
    """
    cfg = arr.config
    if layout.num_players != cfg.num_players or layout.num_seats != cfg.num_seats:
        raise ValueError(
            f"layout for {layout.num_players} players / {layout.num_seats} seats is not "
            f"allowed; allowed: the games' {cfg.num_players} players / {cfg.num_seats} seats"
        )
    n = arr.num_games
    obs = np.asarray(observer)
    if obs.shape != (n,) or obs.dtype.kind not in "iu":
        raise ValueError(
            f"observer of shape {obs.shape} and dtype {obs.dtype} is not allowed; allowed: "
            f"an integer array of shape ({n},)"
        )
    obs = obs.astype(np.int64, copy=False)
    players = cfg.num_players
    if n and (int(obs.min()) < 0 or int(obs.max()) >= players):
        raise ValueError(f"observer values outside 0..{players - 1} are not allowed")
    if out is None:
        out = np.empty((n, layout.size), np.float32)
    elif out.shape != (n, layout.size) or out.dtype != np.float32 or not out.flags.c_contiguous:
        raise ValueError(
            f"out of shape {out.shape} and dtype {out.dtype} is not allowed; allowed: "
            f"a C-contiguous float32 array of shape ({n}, {layout.size})"
        )
    rules = rules_for(cfg, np.zeros(0, np.int8))
    encode_rows(pack(arr), rules, layout_offsets(layout), np.arange(n), obs, out)
    return out
