"""The active player's part of a turn in the batched engine, for one game: the legal
plays, the play itself (The Hours' slide, The Feast's draw and second play, The Ash's
note), The Thief's steal, the announcements that follow (The Chalice, The Fall), and
the active player's powers (Sparrows, Shadows and Skies before the play; Shells and
Sinners after it). Mirrors :mod:`shipwreck_env.plays`, :mod:`shipwreck_env.arcana` and
the active player's rules of :mod:`shipwreck_env.powers` (compiled, see
:mod:`shipwreck_env.vector.jit`).

:func:`play_legal` is also public over arrays: the legal plays of hypothetical hands
(``training/belief.py``).
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.actions import HOURS_TARGET, PASS
from shipwreck_env.cards import NUM_CARDS
from shipwreck_env.state import Phase
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.jit import njit, rule
from shipwreck_env.vector.ops import (
    ALL,
    CHALICE_EVENT,
    FALL_EVENT,
    FEAST_DRAW_EVENT,
    PLAY,
    POWER_EVENT,
    STEAL_EVENT,
    constrain_kept,
    deck_append,
    deck_pop,
    detach_to_deck,
    event,
    greater_mask,
    table_append,
    table_remove,
    take_power,
)
from shipwreck_env.vector.turn import draw_fate, table_sum

__all__ = [
    "after_play_legal",
    "announce_fall",
    "apply_after_play",
    "apply_play_phase",
    "apply_steal",
    "play_legal",
    "steal_legal",
]

SHELLS, SINNERS, SPARROWS = t.P["shells"], t.P["sinners"], t.P["sparrows"]
SHADOWS, SKIES = t.P["shadows"], t.P["skies"]
CHALICE, FEAST, WISH, THIEF, ASH, FALL = t.CHALICE, t.FEAST, t.WISH, t.THIEF, t.ASH, t.FALL
AFTER_PLAY, STEAL_PHASE = Phase.AFTER_PLAY, Phase.STEAL
C_PLAYERS = t.C_PLAYERS
POWER_KIND, STEAL_KIND = 4, 6  # tables.ACTION_KIND of a power action, a steal


@rule
def _visible(tcount, g) -> int:
    """Bit mask of the distinct values in front of the slots."""
    visible = 0
    for slot in range(4):
        for v in range(7):
            if tcount[g, slot, v] > 0:
                visible |= 1 << v
    return visible


@rule
def _visible_sum4(tcount, g) -> int:
    """Sum of the fates in front of the slots, modulo 4 (The Lantern's key)."""
    total = 0
    for slot in range(4):
        for v in range(7):
            total += tcount[g, slot, v] * (v + 1)
    return total & 3


@rule
def _kept_row(slots, tcount, feast_done, r, g, visible, slot):
    """The row of the kept table for the card of ``slot``: ``(card, key)`` (``card``
    is the row of "no card" for an empty slot, and for The Feast once it was played on
    this turn). Each key is computed only for the cards that read it, so that a base
    game pays for none of the expansions' summaries."""
    card = slots[g, slot]
    if card < 0 or (card == FEAST and feast_done[g]):
        card = NUM_CARDS  # the table's row of "no card": nothing allowed
    kind = r.card_kind[card]
    key = 0  # the summary each condition reads (number_lines.CARD_CONTEXT)
    if kind == 1:
        key = visible
    elif kind == 2:
        key = _visible_sum4(tcount, g)
    elif kind == 3:  # the highest fate already in front of the card (Iron)
        for v in range(7):
            if tcount[g, slot, v] > 0:
                key = v + 1
    return card, key


@rule
def _kept(slots, tcount, shadows, feast_done, r, g, visible, slot, played) -> int:
    """Mask of real kept values that allow playing ``played`` on the card of ``slot``
    (0 for an empty slot, and for The Feast once it was played on this turn)."""
    card, key = _kept_row(slots, tcount, feast_done, r, g, visible, slot)
    return r.kept[card, 1 if shadows[g] else 0, key, played - 1]


@rule
def _plays_into(slots, tcount, shadows, feast_done, hands, active, r, g, mask) -> None:
    """Set the legal plays of the active seat of ``g`` in ``mask`` (its row)."""
    visible = _visible(tcount, g)
    shadow = 1 if shadows[g] else 0
    seat = active[g]
    x = hands[g, seat, 0]
    y = hands[g, seat, 1]
    stuck = True
    for slot in range(4):
        card, key = _kept_row(slots, tcount, feast_done, r, g, visible, slot)
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
    """The legal plays, and Sparrows, Shadows and Skies."""
    _plays_into(s.slots, s.tcount, s.shadows, s.feast_done, s.hands, s.active, r, g, mask)
    if s.power_used[g]:
        return
    if s.fcount[g, SPARROWS] > 0 and s.deck_len[g] > 0:
        for slot in range(4):
            if s.slots[g, slot] >= 0 and s.table_len[g, slot] == 0:
                mask[r.sparrows_action[slot]] = True
    if s.fcount[g, SHADOWS] > 0:
        mask[r.single_action[SHADOWS]] = True
    if s.fcount[g, SKIES] > 0:
        for src in range(4):
            for v in range(7):
                if s.tcount[g, src, v] > 0:
                    for dst in range(4):
                        if dst != src and s.slots[g, dst] >= 0:
                            mask[r.skies_action[src, v + 1, dst]] = True


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
        from shipwreck_env.config import GameConfig
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
        power = r.action_power[action]
        if power == SPARROWS:
            _apply_sparrows(s, r, g, r.action_slot[action])
        elif power == SHADOWS:
            _apply_shadows(s, r, g)
        else:
            _apply_skies(s, r, g, r.action_slot[action], r.action_value[action], action)
        return False
    return _play(s, r, g, r.action_value[action], r.action_slot[action])


@rule
def _hours_kept_mask(s, r, g, visible, played) -> int:
    """Real kept values ``k`` for which the hand (``played``, ``k``) fits no card."""
    shadow = 1 if s.shadows[g] else 0
    fits = 0
    for slot in range(4):
        card, key = _kept_row(s.slots, s.tcount, s.feast_done, r, g, visible, slot)
        fits |= r.kept[card, shadow, key, played - 1]  # play it, keep k
        for k in range(7):  # play k, keep it
            if (r.kept[card, shadow, key, k] >> (played - 1)) & 1:
                fits |= 1 << k
    return ~fits & 0x7F


@rule
def slot_of(s, g, card) -> int:
    """The slot holding ``card``, -1 if it is not in play."""
    for slot in range(4):
        if s.slots[g, slot] == card:
            return slot
    return -1


@rule
def _play(s, r, g, value, target) -> bool:
    visible = _visible(s.tcount, g)
    hours = target == HOURS_TARGET
    if hours:
        condition = _hours_kept_mask(s, r, g, visible, value)
    else:
        condition = _kept(s.slots, s.tcount, s.shadows, s.feast_done, r, g, visible, target, value)
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
    # number lines (number_lines.record_play)
    tracked = s.tracked[g]
    line_tracked = tracked & condition
    line_fresh = condition if (tracked >> (value - 1)) & 1 else 0
    s.line_tracked[g] = line_tracked
    s.line_fresh[g] = line_fresh
    s.lines[g, seat] = line_fresh | line_tracked
    # where the fate lands: The Hours slides it to the first card in play
    landed = target
    if hours:
        landed = -1
        for slot in range(3, -1, -1):
            if s.slots[g, slot] >= 0:
                landed = slot
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
    if value <= 2 and slot_of(s, g, ASH) >= 0:  # arcana.note_play: The Ash notes a 1 or 2
        s.ash_trigger[g] = True
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
    to take or Shadows may be used there, else the announcements."""
    s.kept_eff[g] = s.hands[g, s.active[g], 0] + (1 if s.shadows[g] else 0)
    thief = slot_of(s, g, THIEF)
    if thief >= 0:
        shadows = not s.power_used[g] and s.fcount[g, SHADOWS] > 0
        if _highest_on_others(s, g, thief) > 0 or shadows:
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
    Shadows."""
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
    if not s.power_used[g] and s.fcount[g, SHADOWS] > 0:
        mask[r.single_action[SHADOWS]] = True


@rule
def apply_steal(s, r, g, action) -> bool:
    """Shadows (the phase goes on), a steal or pass; True when the reveals come next."""
    kind = r.action_kind[action]
    if kind == POWER_KIND:
        _apply_shadows(s, r, g)
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
def _after_steal(s, r, g) -> bool:
    """The Chalice's tell, The Fall's announcement, then the active player's powers
    after the play if any may be used; True when the reveals come next."""
    k = s.plays_len[g] - 1
    value, target = s.plays[g, k, 0], s.plays[g, k, 1]
    kept_eff = s.kept_eff[g]
    if target != HOURS_TARGET and s.slots[g, target] == CHALICE:
        higher = kept_eff > value
        greater = greater_mask(s, g, value)
        constrain_kept(s, g, greater if higher else ALL & ~greater)
        event(s, g, CHALICE_EVENT, 1 if higher else 0, -1, -1, -1)
        s.ann_chalice[g] = 1 if higher else 0
    s.fall_kept[g] = kept_eff
    announce_fall(s, r, g)
    if not s.power_used[g] and (s.fcount[g, SHELLS] > 0 or s.fcount[g, SINNERS] > 0):
        s.phase[g] = AFTER_PLAY
        s.decider[g] = s.active[g] % r.config[C_PLAYERS]
        return False
    return True


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
    fading = 1 if total >= 2 * kept else 0
    if fading != s.fall_fading[g]:
        s.fall_fading[g] = fading
        event(s, g, FALL_EVENT, fading, -1, -1, -1)
    if s.pred_len[g] == 0:
        shift = 1 if s.shadows[g] else 0
        mask = 0
        for k in range(1, 8):
            if (total >= 2 * (k + shift)) == (fading == 1):
                mask |= 1 << (k - 1)
        constrain_kept(s, g, mask)


@rule
def _apply_sparrows(s, r, g, slot) -> None:
    card = take_power(s, r, g, SPARROWS)
    s.power_used[g] = True
    old = s.slots[g, slot]
    new = deck_pop(s, g)
    deck_append(s, g, old)
    detach_to_deck(s, g, slot)
    s.slots[g, slot] = new
    deck_append(s, g, card)
    event(s, g, POWER_EVENT, SPARROWS, slot, old, new)
    s.ann_power[g] = SPARROWS
    s.ann_slot[g] = slot


@rule
def _apply_shadows(s, r, g) -> None:
    _use(s, r, g, SHADOWS)
    s.shadows[g] = True
    if s.phase[g] == STEAL_PHASE:  # the plays are over: the kept fate is known
        s.kept_eff[g] = s.hands[g, s.active[g], 0] + 1
    event(s, g, POWER_EVENT, SHADOWS, -1, -1, -1)


@rule
def _apply_skies(s, r, g, slot, value, action) -> None:
    to = r.action_to[action]
    _use(s, r, g, SKIES)
    table_remove(s, g, slot, value)
    table_append(s, g, to, value)
    event(s, g, POWER_EVENT, SKIES, slot, value, to)
    s.ann_slot[g] = slot
    s.ann_value[g] = value
    s.ann_to_slot[g] = to


@rule
def after_play_legal(s, r, g, mask) -> None:
    """Pass, Shells, and Sinners on a visible fate lower than the kept fate."""
    mask[PASS] = True
    if s.power_used[g]:
        return
    if s.fcount[g, SHELLS] > 0:
        mask[r.single_action[SHELLS]] = True
    if s.fcount[g, SINNERS] > 0:
        for slot in range(4):
            for v in range(1, s.kept_eff[g]):
                if v <= 7 and s.tcount[g, slot, v - 1] > 0:
                    mask[r.sinners_action[slot, v]] = True


@rule
def apply_after_play(s, r, g, action) -> None:
    """Shells, Sinners or pass (the reveals come next); after a power The Fall is
    announced again."""
    if action == PASS:
        return
    if action == r.single_action[SHELLS]:
        _apply_shells(s, r, g)
    else:
        _apply_sinners(s, r, g, r.action_slot[action], r.action_value[action])
    announce_fall(s, r, g)


@rule
def _use(s, r, g, power) -> None:
    """Take the earliest faded card of ``power`` to the deck bottom; the turn's power
    is used."""
    deck_append(s, g, take_power(s, r, g, power))
    s.power_used[g] = True
    s.ann_power[g] = power


@rule
def _apply_shells(s, r, g) -> None:
    _use(s, r, g, SHELLS)
    answer = s.played_old[g]
    line = s.line_fresh[g] if answer else s.line_tracked[g]
    s.line_fresh[g] = line
    s.line_tracked[g] = line
    s.lines[g, s.active[g]] = line
    played = s.plays[g, s.plays_len[g] - 1, 0]
    event(s, g, POWER_EVENT, SHELLS, played, -1, 1 if answer else 0)
    s.ann_answer[g] = 1 if answer else 0


@rule
def _apply_sinners(s, r, g, slot, value) -> None:
    _use(s, r, g, SINNERS)
    table_remove(s, g, slot, value)
    s.bag[g, value - 1] += 1
    s.bag_known[g, value - 1] += 1
    constrain_kept(s, g, greater_mask(s, g, value))
    event(s, g, POWER_EVENT, SINNERS, slot, value, -1)
    s.ann_value[g] = value
    s.ann_slot[g] = slot
