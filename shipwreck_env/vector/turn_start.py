"""The start of a turn in the batched engine, for one game: drawing fates, the
per-turn reset and the public snapshot. Mirrors :mod:`shipwreck_env.rules.turn_start`
(compiled, see :mod:`shipwreck_env.vector.jit`); the turn's later steps are in
:mod:`~shipwreck_env.vector.plays`, :mod:`~shipwreck_env.vector.predictions` and
:mod:`~shipwreck_env.vector.fading`, a new game in :mod:`~shipwreck_env.vector.engine`."""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.state import Phase
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.chance import uniform_at
from shipwreck_env.vector.jit import rule
from shipwreck_env.vector.number_lines import ALL
from shipwreck_env.vector.ops import (
    DRAW,
    EXILED_TO_BAG,
    TABLE_TO_BAG,
    copy_row,
    deck_top,
    event,
    table_clear,
)

__all__ = ["draw_fate", "public_snapshot", "reset_turn", "start_turn"]

PLAY_PHASE = Phase.PLAY
C_PLAYERS = t.C_PLAYERS


@rule
def start_turn(s, r, g, seat) -> None:
    """Make ``seat`` active, reset the turn, draw up to two fates, note the snapshot."""
    s.turn[g] += 1
    reset_turn(s, r, g, seat)
    drawn = 2 - s.hand_len[g, seat]
    for _ in range(drawn):
        n = s.hand_len[g, seat]
        s.hands[g, seat, n] = draw_fate(s, g)
        s.hand_len[g, seat] = n + 1
    event(s, g, DRAW, seat, drawn, -1, -1)
    public_snapshot(s, g)


@rule
def reset_turn(s, r, g, seat) -> None:
    """Make ``seat`` active at the start of its turn, before it draws: clear everything
    that lasts one turn and note which fate (if any) it carries over
    (``turn_start.reset_turn``)."""
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
def public_snapshot(s, g) -> None:
    """Note the public table after the draw (``State.turn_start``, as
    ``turn_start.public_snapshot`` builds it)."""
    copy_row(s.ts_slots, s.slots, g)
    copy_row(s.ts_table, s.table, g)
    copy_row(s.ts_table_len, s.table_len, g)
    copy_row(s.ts_attached, s.attached, g)
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
