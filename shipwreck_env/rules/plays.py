"""The active player's part of a turn: the play (The Feast: play, draw, play again),
The Thief, the announcements that follow (Chalice, The Fall) and the active player's
powers after the play.

Part of the rules engine (see :mod:`shipwreck_env.rules.engine`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shipwreck_env.rules import powers
from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET, PASS
from shipwreck_env.rules.arcana import announce_fall, note_play
from shipwreck_env.rules.cards import CARD_INDEX
from shipwreck_env.rules.number_lines import (
    constrain_kept,
    hours_kept_mask,
    real_mask,
    record_play,
    table_rows,
)
from shipwreck_env.rules.predictions import enter_reveal
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.turn_start import draw_fate

FEAST = CARD_INDEX["feast"]
WISH = CARD_INDEX["wish"]
CHALICE = CARD_INDEX["chalice"]
THIEF = CARD_INDEX["thief"]

PLAY_ACTION: list[list[int]] = [[0] * 8 for _ in range(HOURS_TARGET + 1)]
STEAL_ACTION: list[list[int]] = [[0] * 8 for _ in range(4)]
for _a in ACTIONS:
    if _a.kind == "play":
        PLAY_ACTION[_a.slot][_a.value] = _a.index
    elif _a.kind == "steal":
        STEAL_ACTION[_a.slot][_a.value] = _a.index


def _visible_on_others(s: State, excluded_slot: int) -> list[tuple[int, int]]:
    return [
        (slot, v) for slot in range(4) if slot != excluded_slot for v in sorted(set(s.table[slot]))
    ]


def _slot_of(s: State, card: int) -> int:
    slots = s.slots
    return slots.index(card) if card in slots else -1  # no exception: usually absent


def first_plays(rows: Sequence[Sequence[int] | None], a: int, b: int) -> list[int]:
    """The legal plays (ascending action numbers) of a hand (``a``, ``b``) given, per
    slot, the row of kept-value masks its card allows (``row[played - 1]``, bit
    ``kept - 1``; None where nothing can be played): a fate may go in front of a card
    whose row allows it with the other fate kept, and only when no card allows either,
    on The Hours. The one rule of the first play, read by the engine and the public
    record alike."""
    out: list[int] = []
    a1, b1 = a - 1, b - 1
    # PLAY_ACTION[4], The Hours, has no row: zip stops before it
    for row, actions in zip(rows, PLAY_ACTION, strict=False):
        if row is not None:
            if row[a1] >> b1 & 1:
                out.append(actions[a])
            if b != a and row[b1] >> a1 & 1:
                out.append(actions[b])
    if not out:
        out.append(PLAY_ACTION[HOURS_TARGET][min(a, b)])
        if a != b:
            out.append(PLAY_ACTION[HOURS_TARGET][max(a, b)])
    out.sort()
    return out


def play_legal(s: State) -> list[int]:
    a, b = s.hands[s.active]
    return first_plays(table_rows(s.slots, s.table, s.shadows, s.feast_done), a, b)


def apply_play_phase(s: State, action: int, rng: np.random.Generator) -> None:
    spec = ACTIONS[action]
    if spec.kind == "power":
        powers.apply_power(s, action)
        return
    _play(s, spec.value, spec.slot, rng)


def _play(s: State, value: int, target: int, rng: np.random.Generator) -> None:
    hand = s.hands[s.active]
    if target == HOURS_TARGET:
        condition = hours_kept_mask(s, value)
    else:  # a legal play: its card has a row
        condition = table_rows(s.slots, s.table, s.shadows, s.feast_done)[target][value - 1]
    other = hand[1] if hand[0] == value else hand[0]
    # Two equal fates: the one drawn this turn is played, the carried one stays.
    s.played_old = bool(s.old_fate) and value == s.old_fate and other != value
    if s.played_old:
        s.old_fate = 0
    hand.remove(value)
    record_play(s, value, condition)
    landed = landing_slot(s.slots, target)
    if landed >= 0:
        s.table[landed].append(value)
    else:  # no arcana card in play at all: the fate has nowhere to slide
        s.bag[value - 1] += 1
        s.bag_known[value - 1] += 1
    s.plays.append((value, target, landed))
    s.events.append(("play", value, target, landed))
    note_play(s, value)  # The Ash
    card = s.slots[target] if target < HOURS_TARGET else -1
    if card == FEAST and not s.feast_done:
        s.feast_done = True
        s.tracked = s.lines[s.active]
        hand.append(draw_fate(s, rng))
        s.events.append(("feast_draw", s.active))
        return
    if card == WISH:
        s.preds_left += 1
    _finish_plays(s)


def landing_slot(slots: Sequence[int], target: int) -> int:
    """The slot a fate played on ``target`` ends in front of: an Hours play slides to the
    first card in play (-1: no card in play)."""
    if target != HOURS_TARGET:
        return target
    return next((slot for slot in range(4) if slots[slot] >= 0), -1)


def _finish_plays(s: State) -> None:
    s.kept_eff = s.hands[s.active][0] + (1 if s.shadows else 0)
    if THIEF in s.slots:
        thief = s.slots.index(THIEF)
        if _visible_on_others(s, thief) or powers.any_offered(s, Phase.STEAL):
            s.phase = Phase.STEAL
            s.decider = s.active_player
            return
    _after_steal(s)


# --- The Thief --------------------------------------------------------------------


def steal_legal(s: State) -> list[int]:
    thief = _slot_of(s, THIEF)
    out = [STEAL_ACTION[slot][v] for slot, v in _visible_on_others(s, thief) if v > s.kept_eff]
    return out if out else [PASS]


def apply_steal(s: State, action: int, rng: np.random.Generator) -> None:
    spec = ACTIONS[action]
    if spec.kind == "power":
        powers.apply_power(s, action)
        return
    thief = _slot_of(s, THIEF)
    if spec.kind == "steal":
        v = spec.value
        s.table[spec.slot].remove(v)
        s.table[thief].append(v)
        constrain_kept(s, real_mask(s, lambda e: e < v))
        s.events.append(("steal", spec.slot, v))
    else:
        highest = max((v for _, v in _visible_on_others(s, thief)), default=0)
        constrain_kept(s, real_mask(s, lambda e: e >= highest))
        s.events.append(("steal", -1, 0))
    _after_steal(s)


# --- announcements and the active player's powers after the play ------------------


def _after_steal(s: State) -> None:
    value, target, _ = s.plays[-1]
    higher = chalice_tell(s.slots[target] if target < HOURS_TARGET else -1, value, s.kept_eff)
    if higher is not None:
        constrain_kept(s, real_mask(s, lambda e: (e > value) == higher))
        s.events.append(("chalice", higher))
    s.fall_kept = s.kept_eff
    announce_fall(s)
    if powers.any_offered(s, Phase.AFTER_PLAY):
        s.phase = Phase.AFTER_PLAY
        s.decider = s.active_player
        return
    enter_reveal(s)


def chalice_tell(card: int, value: int, kept: int) -> bool | None:
    """The Chalice's tell "my kept fate is higher" after ``value`` was played directly on
    ``card`` keeping ``kept`` (as conditions read it); ``None`` if ``card`` is not The
    Chalice."""
    return kept > value if card == CHALICE else None


def apply_after_play(s: State, action: int, rng: np.random.Generator) -> None:
    if action != PASS:
        powers.apply_power(s, action)
        announce_fall(s)
    enter_reveal(s)
