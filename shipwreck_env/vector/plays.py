"""The active player's part of a turn in the batched engine, for one game: the legal
plays, the play itself (The Hours' slide, The Feast's draw and second play, The Wish),
The Thief's steal, The Chalice's tell, and the phases of the active player's powers
before and after the play (the powers themselves are in
:mod:`~shipwreck_env.vector.powers`, The Ash's note and The Fall's announcement in
:mod:`~shipwreck_env.vector.arcana`). Mirrors :mod:`shipwreck_env.rules.plays` (compiled, see
:mod:`shipwreck_env.vector.jit`).

:func:`play_legal` is also public over arrays: the legal plays of hypothetical hands
(``shipwreck_env.rules.public_record``).
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.actions import HOURS_TARGET, PASS
from shipwreck_env.rules.state import Phase
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.arcana import announce_fall, note_play
from shipwreck_env.vector.jit import njit, rule
from shipwreck_env.vector.number_lines import (
    ALL,
    constrain_kept,
    greater_mask,
    hours_kept_mask,
    kept_mask,
    record_play,
    table_row,
    visible_bits,
)
from shipwreck_env.vector.ops import (
    CHALICE_EVENT,
    FEAST_DRAW_EVENT,
    PLAY,
    STEAL_EVENT,
    event,
    slot_of,
    table_append,
    table_remove,
)
from shipwreck_env.vector.powers import any_offered, apply_power
from shipwreck_env.vector.turn_start import draw_fate

__all__ = [
    "apply_after_play",
    "apply_play_phase",
    "apply_steal",
    "chalice_tell",
    "landing_slot",
    "play_legal",
    "play_phase_legal",
    "steal_legal",
]

CHALICE, FEAST, WISH, THIEF = t.CHALICE, t.FEAST, t.WISH, t.THIEF
AFTER_PLAY, STEAL_PHASE = Phase.AFTER_PLAY, Phase.STEAL
C_PLAYERS = t.C_PLAYERS
POWER_KIND, STEAL_KIND = 4, 6  # tables.ACTION_KIND of a power action, a steal


@rule
def _plays_into(slots, tcount, shadows, feast_done, hands, active, r, g, mask) -> None:
    """Set the legal plays of the active seat of ``g`` in ``mask`` (its row)."""
    visible = visible_bits(tcount, g)
    shadow = 1 if shadows[g] else 0
    seat = active[g]
    x = hands[g, seat, 0]
    y = hands[g, seat, 1]
    stuck = True
    for slot in range(4):
        card, key = table_row(slots, tcount, feast_done, r, g, visible, slot)
        if (r.kept[card, shadow, key, x - 1] >> (y - 1)) & 1:  # play x, keep y
            mask[r.play_action[slot, x]] = True
            stuck = False
        if x != y and (r.kept[card, shadow, key, y - 1] >> (x - 1)) & 1:  # play y, keep x
            mask[r.play_action[slot, y]] = True
            stuck = False
    if stuck:
        mask[r.play_action[HOURS_TARGET, x]] = True
        mask[r.play_action[HOURS_TARGET, y]] = True


@rule
def play_phase_legal(s, r, g, mask) -> None:
    """The legal plays of the active seat of ``g`` (the engine adds the powers offered
    before the play, ``powers.offered``)."""
    _plays_into(s.slots, s.tcount, s.shadows, s.feast_done, s.hands, s.active, r, g, mask)


@njit
def _plays_rows(slots, tcount, shadows, feast_done, hands, active, r, games, mask) -> None:
    for i in range(len(games)):
        _plays_into(slots, tcount, shadows, feast_done, hands, active, r, games[i], mask[i])


_PLAY_TABLES: list = []


def play_legal(a, g: np.ndarray, mask: np.ndarray) -> None:
    """Set the legal plays of the active seats of games ``g`` of the arrays ``a`` (an
    ``Arrays`` or anything with its ``slots``, ``tcount``, ``shadows``,
    ``feast_done``, ``hands`` and ``active``) in the rows of ``mask`` (``mask[g]``), as
    the engine does; the powers are not included."""
    if not _PLAY_TABLES:  # the card tables only: the plays read no configuration
        from shipwreck_env.rules.config import GameConfig
        from shipwreck_env.vector.jit import rules_for

        _PLAY_TABLES.append(rules_for(GameConfig(), np.zeros(0, np.int8)))
    rules = _PLAY_TABLES[0]
    rows = np.zeros((len(g), mask.shape[1]), np.bool_)
    _plays_rows(
        a.slots, a.tcount, a.shadows, a.feast_done, a.hands, a.active, rules, np.asarray(g), rows
    )
    mask[g] |= rows


@rule
def apply_play_phase(s, r, g, action) -> bool:
    """A power before the play, or a play; True when the plays are over and the
    reveals come next."""
    if r.action_kind[action] == POWER_KIND:
        apply_power(s, r, g, action)
        return False
    return _play(s, r, g, r.action_value[action], r.action_slot[action])


@rule
def landing_slot(s, g, target) -> int:
    """The slot a fate played on ``target`` ends in front of (``plays.landing_slot``):
    The Hours slides it to the first card in play; -1 when no card is."""
    if target != HOURS_TARGET:
        return target
    for slot in range(4):
        if s.slots[g, slot] >= 0:
            return slot
    return -1


@rule
def _play(s, r, g, value, target) -> bool:
    visible = visible_bits(s.tcount, g)
    hours = target == HOURS_TARGET
    if hours:
        condition = hours_kept_mask(s, r, g, visible, value)
    else:
        condition = kept_mask(
            s.slots, s.tcount, s.shadows, s.feast_done, r, g, visible, target, value
        )
    seat = s.active[g]
    other = s.hands[g, seat, 1] if s.hands[g, seat, 0] == value else s.hands[g, seat, 0]
    old = s.old_fate[g]
    played_old = old != 0 and value == old and other != value
    s.played_old[g] = played_old
    if played_old:
        s.old_fate[g] = 0
    s.hands[g, seat, 0] = other
    s.hands[g, seat, 1] = 0
    s.hand_len[g, seat] = 1
    record_play(s, g, value, condition)
    landed = landing_slot(s, g, target)
    if landed >= 0:
        table_append(s, g, landed, value)
    else:
        s.bag[g, value - 1] += 1
        s.bag_known[g, value - 1] += 1
    k = s.plays_len[g]
    s.plays[g, k, 0] = value
    s.plays[g, k, 1] = target
    s.plays[g, k, 2] = landed
    s.plays_len[g] = k + 1
    event(s, g, PLAY, value, target, landed, -1)
    note_play(s, g, value)  # The Ash
    card = -1 if hours else s.slots[g, target]
    if card == FEAST and not s.feast_done[g]:  # draw, then play again elsewhere
        s.feast_done[g] = True
        s.tracked[g] = s.lines[g, seat]
        s.hands[g, seat, 1] = draw_fate(s, g)
        s.hand_len[g, seat] = 2
        event(s, g, FEAST_DRAW_EVENT, seat, -1, -1, -1)
        return False
    if card == WISH:
        s.preds_left[g] += 1
    return _finish_plays(s, r, g)


@rule
def _finish_plays(s, r, g) -> bool:
    """The plays are over: the kept fate is known; The Thief's phase if it has a fate
    to take or a power may be used there, else the announcements."""
    s.kept_eff[g] = s.hands[g, s.active[g], 0] + (1 if s.shadows[g] else 0)
    thief = slot_of(s, g, THIEF)
    if thief >= 0 and (_highest_on_others(s, g, thief) > 0 or any_offered(s, g, STEAL_PHASE)):
        s.phase[g] = STEAL_PHASE
        s.decider[g] = s.active[g] % r.config[C_PLAYERS]
        return False
    return _after_steal(s, r, g)


@rule
def _highest_on_others(s, g, thief) -> int:
    """The highest fate in front of the slots other than The Thief's (0: none)."""
    highest = 0
    for slot in range(4):
        if slot != thief:
            for v in range(7):
                if s.tcount[g, slot, v] > 0 and v + 1 > highest:
                    highest = v + 1
    return highest


@rule
def steal_legal(s, r, g, mask) -> None:
    """The Thief takes a visible fate above the kept fate (pass when there is none);
    the engine adds the powers offered here (Shadows)."""
    thief = slot_of(s, g, THIEF)
    took = False
    for slot in range(4):
        if slot != thief:
            for v in range(s.kept_eff[g] + 1, 8):
                if s.tcount[g, slot, v - 1] > 0:
                    mask[r.steal_action[slot, v]] = True
                    took = True
    if not took:
        mask[PASS] = True


@rule
def apply_steal(s, r, g, action) -> bool:
    """A power (Shadows: the phase goes on), a steal or pass; True when the reveals
    come next."""
    kind = r.action_kind[action]
    if kind == POWER_KIND:
        apply_power(s, r, g, action)
        return False
    thief = slot_of(s, g, THIEF)
    if kind == STEAL_KIND:
        slot, v = r.action_slot[action], r.action_value[action]
        table_remove(s, g, slot, v)
        table_append(s, g, thief, v)
        constrain_kept(s, g, ALL & ~greater_mask(s, g, v - 1))  # kept (as read) < v
        event(s, g, STEAL_EVENT, slot, v, -1, -1)
        s.ann_steal[g] = 1
        s.ann_steal_slot[g] = slot
        s.ann_steal_value[g] = v
    else:  # nothing above the kept fate
        highest = _highest_on_others(s, g, thief)
        constrain_kept(s, g, greater_mask(s, g, highest - 1))  # kept (as read) >= highest
        event(s, g, STEAL_EVENT, -1, 0, -1, -1)
        s.ann_steal[g] = 0
    return _after_steal(s, r, g)


@rule
def chalice_tell(s, g, value, target, kept) -> int:
    """The Chalice's tell "my kept fate is higher" after ``value`` was played on
    ``target`` keeping ``kept`` (as conditions read it): 1 higher, 0 not, -1 when the
    play was not made directly on The Chalice (``plays.chalice_tell``)."""
    if target == HOURS_TARGET or s.slots[g, target] != CHALICE:
        return -1
    return 1 if kept > value else 0


@rule
def _after_steal(s, r, g) -> bool:
    """The Chalice's tell, The Fall's announcement, then the active player's powers
    after the play if any may be used; True when the reveals come next."""
    k = s.plays_len[g] - 1
    value, target = s.plays[g, k, 0], s.plays[g, k, 1]
    kept_eff = s.kept_eff[g]
    tell = chalice_tell(s, g, value, target, kept_eff)
    if tell >= 0:
        greater = greater_mask(s, g, value)
        constrain_kept(s, g, greater if tell == 1 else ALL & ~greater)
        event(s, g, CHALICE_EVENT, tell, -1, -1, -1)
        s.ann_chalice[g] = tell
    s.fall_kept[g] = kept_eff
    announce_fall(s, r, g)
    if any_offered(s, g, AFTER_PLAY):
        s.phase[g] = AFTER_PLAY
        s.decider[g] = s.active[g] % r.config[C_PLAYERS]
        return False
    return True


@rule
def apply_after_play(s, r, g, action) -> None:
    """A power after the play (Shells, Sinners) or pass (the reveals come next); after
    a power The Fall is announced again."""
    if action != PASS:
        apply_power(s, r, g, action)
        announce_fall(s, r, g)
