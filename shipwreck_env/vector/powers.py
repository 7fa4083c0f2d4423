"""Faded powers in the batched engine, for one game: when each is offered, its legal
actions, what it does, and its costs -- every power's batched code, Scions and Sands
(the attached ones) included. Mirrors :mod:`shipwreck_env.rules.powers` (compiled, see
:mod:`shipwreck_env.vector.jit`).

The other parts of the turn never test a power number: they ask :func:`offered` for
the power actions of a phase, :func:`any_offered` whether a phase offers one, hand a
chosen power action to :func:`apply_power` (a cost action to :func:`apply_cost`), and
call the attached powers' hooks (:func:`scions_attached`, :func:`scions_hours`,
:func:`sands_attached`, :func:`sands_waits`, :func:`sands_attach`).

Only one faded power may be used per turn (``power_used``). Using a power takes the
earliest-faded card offering it to the bottom of the deck -- except Scions, which
attaches to a card, and Sands, which is never chosen.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.state import Phase
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.jit import rule
from shipwreck_env.vector.number_lines import constrain_kept, greater_mask, real_mask
from shipwreck_env.vector.ops import (
    ATTACH_EVENT,
    COST_EVENT,
    EXILE_EVENT,
    POWER_EVENT,
    attach,
    deck_append,
    deck_pop,
    detach_to_deck,
    event,
    table_append,
    table_remove,
)

__all__ = [
    "GROUP_POWERS",
    "any_offered",
    "apply_cost",
    "apply_power",
    "cost_legal",
    "offered",
    "sails_offered",
    "sands_attach",
    "sands_attached",
    "sands_waits",
    "scions_attached",
    "scions_hours",
    "take_power",
]

P = t.P
SAINTS, SHELLS, SINNERS, SORROWS = P["saints"], P["shells"], P["sinners"], P["sorrows"]
SPARROWS, SHACKLES, SHADOWS, SKIES = P["sparrows"], P["shackles"], P["shadows"], P["skies"]
STORMS, SAILS, SANDS, SCIONS, SCYTHES = (
    P["storms"],
    P["sails"],
    P["sands"],
    P["scions"],
    P["scythes"],
)
GROUP_POWERS = np.array(
    [SAINTS, SORROWS, SHACKLES, STORMS, SCIONS, SCYTHES, *t.SET_QUESTIONS], np.int64
)
"""Every power offered to the group (``powers.PHASE_POWERS[Phase.GROUP]``)."""
SINGLE_POWERS = np.array([SORROWS, SHACKLES, *t.SET_QUESTIONS], np.int64)  # one action each
PLAY_PHASE, STEAL_PHASE, AFTER_PLAY = Phase.PLAY, Phase.STEAL, Phase.AFTER_PLAY
GROUP_PHASE, COST_PHASE, SAILS_PHASE = Phase.GROUP, Phase.COST, Phase.SAILS


# --- the faded cards ------------------------------------------------------------------


@rule
def take_power(s, r, g, power) -> int:
    """Remove and return the earliest-faded card offering ``power`` (it must be there)."""
    row = s.faded[g]
    n = s.faded_len[g]
    i = 0
    while r.card_power[row[i]] != power:
        i += 1
    card = row[i]
    for j in range(i, n - 1):
        row[j] = row[j + 1]
    row[n - 1] = -1
    s.faded_len[g] = n - 1
    s.fcount[g, power] -= 1
    return card


@rule
def _use(s, r, g, power) -> None:
    """Take the earliest faded card of ``power`` to the deck bottom; the turn's power
    is used."""
    deck_append(s, g, take_power(s, r, g, power))
    s.power_used[g] = True
    s.ann_power[g] = power


# --- which powers a phase offers --------------------------------------------------------


@rule
def any_offered(s, g, phase) -> bool:
    """Could a power be offered in ``phase`` (``powers.any_offered``): an unused turn's
    power and an available card of a power of that phase? Decides whether the phase
    happens (the group's, The Thief's, the one after the play)."""
    if s.power_used[g]:
        return False
    if phase == GROUP_PHASE:
        for power in GROUP_POWERS:  # noqa: SIM110 -- a plain loop for numba
            if s.fcount[g, power] > 0:
                return True
        return False
    if phase == STEAL_PHASE:
        return s.fcount[g, SHADOWS] > 0
    if phase == AFTER_PLAY:
        return s.fcount[g, SHELLS] > 0 or s.fcount[g, SINNERS] > 0
    return False


@rule
def sails_offered(s, g) -> bool:
    """May Sails exile a visible fate now (unused power, another card to pay with)?
    The reference's ``powers.offered(s, Phase.SAILS)`` is not empty."""
    if s.power_used[g] or s.fcount[g, SAILS] == 0 or s.faded_len[g] < 2:
        return False
    for slot in range(4):  # noqa: SIM110 -- a plain loop: no generator in compiled code
        if s.table_len[g, slot] > 0:
            return True
    return False


@rule
def offered(s, r, g, phase, mask) -> None:
    """Set the power actions offered in ``phase`` in ``mask`` (none once a power was
    used), as ``powers.offered``."""
    if s.power_used[g]:
        return
    if phase == PLAY_PHASE:  # before the play: Sparrows, Shadows, Skies
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
    elif phase == STEAL_PHASE:  # Shadows, also after the plays (the Thief Q/A)
        if s.fcount[g, SHADOWS] > 0:
            mask[r.single_action[SHADOWS]] = True
    elif phase == AFTER_PLAY:  # Shells, and Sinners on a fate lower than the kept one
        if s.fcount[g, SHELLS] > 0:
            mask[r.single_action[SHELLS]] = True
        if s.fcount[g, SINNERS] > 0:
            for slot in range(4):
                for v in range(1, s.kept_eff[g]):
                    if v <= 7 and s.tcount[g, slot, v - 1] > 0:
                        mask[r.sinners_action[slot, v]] = True
    elif phase == GROUP_PHASE:
        _group_offered(s, r, g, mask)
    elif phase == SAILS_PHASE and sails_offered(s, g):  # Sails on a visible fate
        for slot in range(4):
            for v in range(7):
                if s.tcount[g, slot, v] > 0:
                    mask[r.sails_action[slot, v + 1]] = True


@rule
def _group_offered(s, r, g, mask) -> None:
    """The group's powers: Saints, the questions, Sorrows, Storms, Scions, Scythes."""
    if s.fcount[g, SAINTS] > 0:
        for action in r.saints_actions:
            mask[action] = True
    for power in SINGLE_POWERS:
        if s.fcount[g, power] > 0:
            mask[r.single_action[power]] = True
    if s.fcount[g, STORMS] > 0:  # a value visible anywhere
        for v in range(7):
            for slot in range(4):
                if s.tcount[g, slot, v] > 0:
                    mask[r.storms_action[v + 1]] = True
    if s.fcount[g, SCIONS] > 0:
        for slot in range(4):
            if s.slots[g, slot] >= 0:
                mask[r.scions_action[slot]] = True
    if s.fcount[g, SCYTHES] > 0 and s.faded_len[g] >= 2:  # another power pays its cost
        mask[r.single_action[SCYTHES]] = True


# --- what a power does --------------------------------------------------------------------


@rule
def apply_power(s, r, g, action) -> None:
    """Apply the legal power action ``action`` (``powers.apply_power``). Sails and
    Scythes move the turn to the cost phase."""
    power = r.action_power[action]
    if power == SPARROWS:
        _apply_sparrows(s, r, g, r.action_slot[action])
    elif power == SHADOWS:
        _apply_shadows(s, r, g)
    elif power == SKIES:
        _apply_skies(s, r, g, r.action_slot[action], r.action_value[action], action)
    elif power == SHELLS:
        _apply_shells(s, r, g)
    elif power == SINNERS:
        _apply_sinners(s, r, g, r.action_slot[action], r.action_value[action])
    elif power == SCIONS:
        _apply_scions(s, r, g, r.action_slot[action])
    elif power == SAILS or power == SCYTHES:  # noqa: SIM109 -- plain compares for numba
        _apply_with_cost(s, r, g, action, power)
    elif power == SORROWS:
        _use(s, r, g, SORROWS)
        s.preds_left[g] += 1
        event(s, g, POWER_EVENT, SORROWS, -1, -1, -1)
    else:
        _apply_question(s, r, g, action, power)


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


@rule
def _apply_scions(s, r, g, slot) -> None:
    """Scions attaches to the card on ``slot`` instead of going under the deck."""
    card = take_power(s, r, g, SCIONS)
    s.power_used[g] = True
    attach(s, g, slot, card)
    event(s, g, POWER_EVENT, SCIONS, slot, -1, -1)
    s.ann_power[g] = SCIONS
    s.ann_slot[g] = slot


@rule
def _apply_with_cost(s, r, g, action, power) -> None:
    """Sails and Scythes: the card goes under the deck, then the leader names another
    power to discard (Sails keeps the fate it will exile)."""
    deck_append(s, g, take_power(s, r, g, power))
    s.power_used[g] = True
    s.pending_power[g] = power
    if power == SAILS:
        s.pending_slot[g] = r.action_slot[action]
        s.pending_value[g] = r.action_value[action]
    s.phase[g] = COST_PHASE


@rule
def _apply_question(s, r, g, action, power) -> None:
    """A question about the kept fate (Saints, Storms, Shackles, the set questions),
    answered and recorded on the number line."""
    _use(s, r, g, power)
    x = -1  # the question's argument: Saints' X, Storms' value, Shackles' played fate
    if power == SHACKLES:
        x = s.plays[g, s.plays_len[g] - 1, 0]  # the Feast's first play is ignored
        _ask(s, g, power, r.shackles_holds[x], x)
        return
    if power == SAINTS or power == STORMS:  # noqa: SIM109 -- plain compares for numba
        x = r.action_value[action]
    _ask(s, g, power, r.question_holds[action], x)


@rule
def _ask(s, g, power, holds, x) -> None:
    """Answer question ``power`` (``holds[e]``: yes about a kept fate read as ``e``)
    about the kept fate and record it on the number line."""
    answer = holds[s.kept_eff[g]]
    mask = real_mask(s, g, holds)
    constrain_kept(s, g, mask if answer else ~mask)
    event(s, g, POWER_EVENT, power, x, -1, 1 if answer else 0)
    s.ann_power[g] = power
    s.ann_value[g] = x if x > 0 else 0
    s.ann_answer[g] = 1 if answer else 0


# --- the cost of Sails and Scythes --------------------------------------------------------


@rule
def cost_legal(s, r, g, mask) -> None:
    """Any power with an available faded card may pay the cost."""
    for power in range(s.fcount.shape[1]):
        if s.fcount[g, power] > 0:
            mask[r.cost_action[power]] = True


@rule
def apply_cost(s, r, g, action) -> bool:
    """Discard the named power under the deck, then do what the pending power does:
    Scythes asks (True: the group goes on), Sails exiles its fate (False: the turn
    ends)."""
    paid = r.action_power[action]
    deck_append(s, g, take_power(s, r, g, paid))
    event(s, g, COST_EVENT, paid, -1, -1, -1)
    s.ann_cost[g] = paid
    used = s.pending_power[g]
    slot, value = s.pending_slot[g], s.pending_value[g]
    s.pending_power[g] = -1
    s.pending_slot[g] = -1
    s.pending_value[g] = 0
    if used == SCYTHES:
        _ask(s, g, SCYTHES, r.question_holds[r.single_action[SCYTHES]], -1)
        return True
    table_remove(s, g, slot, value)
    s.exiled[g, value - 1] += 1
    event(s, g, EXILE_EVENT, slot, value, -1, -1)
    s.ann_exile_slot[g] = slot
    s.ann_exile_value[g] = value
    return False


# --- the attached powers: Scions slows, Sands amplifies -----------------------------------


@rule
def _attached(s, r, g, slot, power) -> bool:
    """Is a card of ``power`` attached to the card on ``slot``?"""
    for i in range(s.attached_len[g, slot]):
        if r.card_power[s.attached[g, slot, i]] == power:
            return True
    return False


@rule
def scions_attached(s, r, g, slot) -> bool:
    """Is Scions attached to the card on ``slot`` (``powers.scions_attached``)?"""
    return s.attached_len[g, slot] > 0 and _attached(s, r, g, slot, SCIONS)


@rule
def scions_hours(s, g, slot) -> int:
    """Hours in front of a card with Scions attached: 1 per fate, whatever its value."""
    return s.table_len[g, slot]


@rule
def sands_attached(s, r, g, slot) -> bool:
    """Does Sands sit on the card of ``slot``? If that card fades, every fade this turn
    costs one more doom and a correct prediction scores one more point
    (``powers.sands_amplifies``)."""
    return s.attached_len[g, slot] > 0 and _attached(s, r, g, slot, SANDS)


@rule
def sands_waits(s, r, g, slot, card) -> bool:
    """``card`` fades from ``slot``: a Sands card does not join the faded powers, it
    waits to attach to the card that refills the slot (True if it does)."""
    if r.card_power[card] != SANDS:
        return False
    s.sands_waiting[g, slot] = card
    return True


@rule
def sands_attach(s, g, slot) -> None:
    """``slot`` was just refilled: a Sands card waiting for it attaches to the new card."""
    sands = s.sands_waiting[g, slot]
    if sands >= 0:
        attach(s, g, slot, sands)
        s.sands_waiting[g, slot] = -1
        event(s, g, ATTACH_EVENT, slot, -1, -1, -1)
