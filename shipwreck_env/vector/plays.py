"""The active player's part of a turn in the batched engine, for one game: the legal
plays, the play itself (with The Hours' slide and The Chalice's tell), and the active
player's powers (Sparrows before the play; Shells and Sinners after it). Mirrors
:mod:`shipwreck_env.plays` and the active player's rules of :mod:`shipwreck_env.powers`
(compiled, see :mod:`shipwreck_env.vector.jit`).

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
    PLAY,
    POWER_EVENT,
    constrain_kept,
    deck_append,
    deck_pop,
    event,
    greater_mask,
    table_append,
    table_remove,
    take_power,
)

__all__ = ["after_play_legal", "apply_after_play", "apply_play_phase", "play_legal"]

SHELLS, SINNERS, SPARROWS = t.P["shells"], t.P["sinners"], t.P["sparrows"]
CHALICE = t.CHALICE
AFTER_PLAY = Phase.AFTER_PLAY
C_PLAYERS = t.C_PLAYERS
POWER_KIND = 4  # tables.ACTION_KIND of a power action


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
def _kept(slots, shadows, r, g, visible, slot, played) -> int:
    """Mask of real kept values that allow playing ``played`` on the card of ``slot``
    (0 for an empty slot)."""
    card = slots[g, slot]
    if card < 0:
        card = NUM_CARDS  # the table's row of "no card": nothing allowed
    key = visible if r.card_kind[card] == 1 else 0
    return r.kept[card, 1 if shadows[g] else 0, key, played - 1]


@rule
def _plays_into(slots, tcount, shadows, hands, active, r, g, mask) -> None:
    """Set the legal plays of the active seat of ``g`` in ``mask`` (its row)."""
    visible = _visible(tcount, g)
    seat = active[g]
    x = hands[g, seat, 0]
    y = hands[g, seat, 1]
    stuck = True
    for slot in range(4):
        if (_kept(slots, shadows, r, g, visible, slot, x) >> (y - 1)) & 1:  # play x, keep y
            mask[r.play_action[slot, x]] = True
            stuck = False
        if x != y and (_kept(slots, shadows, r, g, visible, slot, y) >> (x - 1)) & 1:
            mask[r.play_action[slot, y]] = True  # play y, keep x
            stuck = False
    if stuck:
        mask[r.play_action[HOURS_TARGET, x]] = True
        mask[r.play_action[HOURS_TARGET, y]] = True


@rule
def play_phase_legal(s, r, g, mask) -> None:
    """The legal plays and Sparrows."""
    _plays_into(s.slots, s.tcount, s.shadows, s.hands, s.active, r, g, mask)
    if s.fcount[g, SPARROWS] > 0 and not s.power_used[g] and s.deck_len[g] > 0:
        for slot in range(4):
            if s.slots[g, slot] >= 0 and s.table_len[g, slot] == 0:
                mask[r.sparrows_action[slot]] = True


@njit
def _plays_rows(slots, tcount, shadows, hands, active, r, games, mask) -> None:
    for i in range(len(games)):
        _plays_into(slots, tcount, shadows, hands, active, r, games[i], mask[i])


_PLAY_TABLES: list = []


def play_legal(a, g: np.ndarray, mask: np.ndarray) -> None:
    """Set the legal plays of the active seats of games ``g`` of the arrays ``a`` (an
    ``Arrays`` or anything with its ``slots``, ``tcount``, ``shadows``, ``hands`` and
    ``active``) in the rows of ``mask`` (``mask[g]``), as the engine does; Sparrows
    is not included."""
    if not _PLAY_TABLES:  # the card tables only: the plays read no configuration
        from shipwreck_env.config import GameConfig
        from shipwreck_env.vector.jit import rules_for

        _PLAY_TABLES.append(rules_for(GameConfig(), np.zeros(0, np.int8)))
    rules = _PLAY_TABLES[0]
    rows = np.zeros((len(g), mask.shape[1]), np.bool_)
    _plays_rows(a.slots, a.tcount, a.shadows, a.hands, a.active, rules, np.asarray(g), rows)
    mask[g] |= rows


@rule
def apply_play_phase(s, r, g, action) -> bool:
    """Sparrows or a play; True when the plays are over and the reveals come next."""
    if r.action_kind[action] == POWER_KIND:
        _apply_sparrows(s, r, g, r.action_slot[action])
        return False
    return _play(s, r, g, r.action_value[action], r.action_slot[action])


@rule
def _hours_kept_mask(s, r, g, visible, played) -> int:
    """Real kept values ``k`` for which the hand (``played``, ``k``) fits no card."""
    fits = 0
    for slot in range(4):
        fits |= _kept(s.slots, s.shadows, r, g, visible, slot, played)  # play it, keep k
        for k in range(7):  # play k, keep it
            if (_kept(s.slots, s.shadows, r, g, visible, slot, k + 1) >> (played - 1)) & 1:
                fits |= 1 << k
    return ~fits & 0x7F


@rule
def _play(s, r, g, value, target) -> bool:
    visible = _visible(s.tcount, g)
    hours = target == HOURS_TARGET
    if hours:
        condition = _hours_kept_mask(s, r, g, visible, value)
    else:
        condition = _kept(s.slots, s.shadows, r, g, visible, target, value)
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
    # the plays are over (no Feast in the covered sets): the kept fate is known
    kept_eff = other + (1 if s.shadows[g] else 0)
    s.kept_eff[g] = kept_eff
    if not hours and s.slots[g, target] == CHALICE:
        higher = kept_eff > value
        greater = greater_mask(s, g, value)
        constrain_kept(s, g, greater if higher else ALL & ~greater)
        event(s, g, CHALICE_EVENT, 1 if higher else 0, -1, -1, -1)
        s.ann_chalice[g] = 1 if higher else 0
    if not s.power_used[g] and (s.fcount[g, SHELLS] > 0 or s.fcount[g, SINNERS] > 0):
        s.phase[g] = AFTER_PLAY
        s.decider[g] = s.active[g] % r.config[C_PLAYERS]
        return False
    return True


@rule
def _apply_sparrows(s, r, g, slot) -> None:
    card = take_power(s, r, g, SPARROWS)
    s.power_used[g] = True
    old = s.slots[g, slot]
    new = deck_pop(s, g)
    deck_append(s, g, old)
    s.slots[g, slot] = new
    deck_append(s, g, card)
    event(s, g, POWER_EVENT, SPARROWS, slot, old, new)
    s.ann_power[g] = SPARROWS
    s.ann_slot[g] = slot


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
    """Shells, Sinners or pass (the reveals come next)."""
    if action == r.single_action[SHELLS]:
        _apply_shells(s, r, g)
    elif action != PASS:
        _apply_sinners(s, r, g, r.action_slot[action], r.action_value[action])


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
