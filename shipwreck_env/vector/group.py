"""The group's part of a turn in the batched engine, for one game: reveals, the
group's powers (Scions and Scythes' cost included), votes, predictions, resolving them
and Sails. Mirrors :mod:`shipwreck_env.predictions` and the group's rules of
:mod:`shipwreck_env.powers` (compiled, see :mod:`shipwreck_env.vector.jit`)."""

from __future__ import annotations

import numpy as np

from shipwreck_env.actions import PASS, REVEAL
from shipwreck_env.state import Phase
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.jit import rule
from shipwreck_env.vector.ops import (
    ALL,
    COST_EVENT,
    EXILE_EVENT,
    POWER_EVENT,
    PREDICT_EVENT,
    RESOLVE_EVENT,
    REVEAL_EVENT,
    VOTE_EVENT,
    attach,
    constrain_kept,
    deck_append,
    event,
    real_mask,
    table_remove,
    take_power,
)
from shipwreck_env.vector.plays import announce_fall
from shipwreck_env.vector.turn import end_turn

__all__ = [
    "DONE",
    "END",
    "END_TURN",
    "GROUP",
    "PREDICT",
    "REVEAL_NEXT",
    "VOTE",
    "apply_cost",
    "apply_group",
    "apply_reveal",
    "apply_sails",
    "apply_vote",
    "cost_legal",
    "end_predictions",
    "enter_group",
    "enter_reveal",
    "enter_vote",
    "group_legal",
    "predict",
    "sails_legal",
    "vote_legal",
]

# What the turn does next, returned by each part of it (``engine`` runs the parts in
# turn, so each is compiled once): nothing (a player decides), ask for reveals, the
# group decides, a vote round starts, the predictions end, the turn ends (after Sails),
# or predict value v (``PREDICT + v``).
DONE, REVEAL_NEXT, GROUP, VOTE, END, END_TURN, PREDICT = 0, 1, 2, 3, 4, 5, 8

P = t.P
SAINTS, SORROWS, SHACKLES, STORMS = P["saints"], P["sorrows"], P["shackles"], P["storms"]
SCIONS, SCYTHES, SAILS = P["scions"], P["scythes"], P["sails"]
GROUP_POWERS = np.array(
    [SAINTS, SORROWS, SHACKLES, STORMS, SCIONS, SCYTHES, *t.SET_QUESTIONS], np.int64
)
"""Every power offered to the group (``powers.PHASE_POWERS[Phase.GROUP]``)."""
SINGLE_POWERS = np.array([SORROWS, SHACKLES, *t.SET_QUESTIONS], np.int64)  # one action each
REVEAL_PHASE, GROUP_PHASE, VOTE_PHASE = Phase.REVEAL, Phase.GROUP, Phase.VOTE
COST_PHASE, SAILS_PHASE = Phase.COST, Phase.SAILS
C_PLAYERS, C_REVEAL, C_LEADER = t.C_PLAYERS, t.C_REVEAL, t.C_LEADER
PREDICT_KIND, POWER_KIND = 1, 4  # tables.ACTION_KIND codes
PREDICT_FIRST = int(t.PREDICT_ACTIONS[0])  # predict 1; predict 1..7 are consecutive
assert (PREDICT_FIRST + np.arange(7) == t.PREDICT_ACTIONS).all()


# --- reveals ----------------------------------------------------------------------


@rule
def enter_reveal(s, r, g) -> int:
    """The plays are over: ask every other seat holding a fate, clockwise, whether it
    reveals; else the group decides."""
    if not r.config[C_REVEAL]:
        return GROUP
    order = r.others_after[s.active[g]]  # seating.others_after
    asked = 0  # the seats asked first, then the others (never asked)
    for seat in order:
        if s.hand_len[g, seat] > 0:
            s.queue[g, asked] = seat
            asked += 1
    length = asked
    for seat in order:
        if s.hand_len[g, seat] == 0:
            s.queue[g, length] = seat
            length += 1
    s.queue_pos[g] = 0
    s.queue_len[g] = asked
    if asked == 0:
        return GROUP
    s.phase[g] = REVEAL_PHASE
    s.decider[g] = s.queue[g, 0] % r.config[C_PLAYERS]
    return DONE


@rule
def apply_reveal(s, r, g, action) -> int:
    """One seat reveals its held fate or keeps it; the next seat is asked."""
    pos = s.queue_pos[g]
    seat = s.queue[g, pos]
    s.queue_pos[g] = pos + 1
    if action == REVEAL:
        n = s.hand_len[g, seat] - 1
        v = s.hands[g, seat, n]
        s.hands[g, seat, n] = 0
        s.hand_len[g, seat] = n
        s.bag[g, v - 1] += 1
        s.bag_known[g, v - 1] += 1
        s.lines[g, seat] = ALL
        event(s, g, REVEAL_EVENT, seat, v, -1, -1)
        s.ann_reveal[g, seat] = v
    if pos + 1 < s.queue_len[g]:
        s.decider[g] = s.queue[g, pos + 1] % r.config[C_PLAYERS]
        return DONE
    return GROUP


# --- the group: powers, votes, predictions ----------------------------------------


@rule
def enter_group(s, r, g) -> int:
    """The leader decides on powers (and predicts in leader mode); in vote mode with
    no group power to offer, a vote round starts at once."""
    group = bool(r.config[C_LEADER])
    if not group and not s.power_used[g]:
        for power in GROUP_POWERS:
            if s.fcount[g, power] > 0:
                group = True
    if not group:
        return VOTE
    n = r.config[C_PLAYERS]
    s.phase[g] = GROUP_PHASE
    s.decider[g] = r.voters[s.active[g] % n, 0]  # the leader
    return DONE


@rule
def group_legal(s, r, g, mask) -> None:
    """Predictions and pass (leader mode) or pass (vote mode), and the group's powers."""
    if r.config[C_LEADER]:
        mask[PREDICT_FIRST : PREDICT_FIRST + 7] = True
    mask[PASS] = True
    if s.power_used[g]:
        return
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


@rule
def vote_legal(mask) -> None:
    """A vote for a value, or pass."""
    mask[PREDICT_FIRST : PREDICT_FIRST + 7] = True
    mask[PASS] = True


@rule
def apply_group(s, r, g, action) -> int:
    """A group power, a prediction or pass."""
    kind = r.action_kind[action]
    leader = r.config[C_LEADER]
    if kind == POWER_KIND:
        _apply_group_power(s, r, g, action)
        if s.phase[g] == COST_PHASE:  # Scythes: the cost comes first
            return DONE
        return DONE if leader else VOTE
    if kind == PREDICT_KIND:
        return PREDICT + r.action_value[action]
    return END if leader else VOTE


@rule
def _apply_group_power(s, r, g, action) -> None:
    """Sorrows (one more prediction) or a question about the kept fate, answered and
    recorded on the number line; the power's card goes to the deck bottom."""
    power = r.action_power[action]
    if power == SCIONS:  # attaches to a card instead of going under the deck
        card = take_power(s, r, g, SCIONS)
        s.power_used[g] = True
        slot = r.action_slot[action]
        attach(s, g, slot, card)
        event(s, g, POWER_EVENT, SCIONS, slot, -1, -1)
        s.ann_power[g] = SCIONS
        s.ann_slot[g] = slot
        return
    deck_append(s, g, take_power(s, r, g, power))
    s.power_used[g] = True
    if power == SCYTHES:  # the leader names another power to discard, then it asks
        s.pending_power[g] = SCYTHES
        s.phase[g] = COST_PHASE
        return
    s.ann_power[g] = power
    if power == SORROWS:
        s.preds_left[g] += 1
        event(s, g, POWER_EVENT, SORROWS, -1, -1, -1)
        return
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


@rule
def enter_vote(s, r, g) -> int:
    """Every other player votes, clockwise from the leader."""
    n = r.config[C_PLAYERS]
    order = r.voters[s.active[g] % n]  # seating.voters: the leader first
    for k in range(n - 1):
        s.queue[g, k] = order[k]
    s.queue_pos[g] = 0
    s.queue_len[g] = n - 1
    s.votes_len[g] = 0
    s.phase[g] = VOTE_PHASE
    s.decider[g] = s.queue[g, 0]
    return DONE


@rule
def apply_vote(s, r, g, action) -> int:
    """One player votes; after the last vote a strict majority predicts."""
    pos = s.queue_pos[g]
    player = s.queue[g, pos]
    s.queue_pos[g] = pos + 1
    value = 0 if action == PASS else r.action_value[action]
    k = s.votes_len[g]
    s.votes[g, k] = value
    s.votes_len[g] = k + 1
    event(s, g, VOTE_EVENT, player, value, -1, -1)
    if pos + 1 < s.queue_len[g]:
        s.decider[g] = s.queue[g, pos + 1]
        return DONE
    voters = k + 1
    for v in range(1, 8):
        count = 0
        for i in range(voters):
            count += s.votes[g, i] == v
        if 2 * count > voters:
            return PREDICT + v
    return END


@rule
def predict(s, r, g, value) -> int:
    """The group predicts ``value``: a hit ends the predictions, a miss costs one of
    them (the group decides again while any is left)."""
    correct = value == s.hands[g, s.active[g], 0]
    k = s.pred_len[g]
    s.predictions[g, k] = value
    s.pred_len[g] = k + 1
    event(s, g, PREDICT_EVENT, value, 1 if correct else 0, -1, -1)
    if correct:
        s.correct[g] = True
        return END
    s.preds_left[g] -= 1
    constrain_kept(s, g, ALL & ~(1 << (value - 1)))
    return GROUP if s.preds_left[g] > 0 else END


@rule
def end_predictions(s, r, g) -> None:
    """Resolve the turn's predictions (the fate returns to the bag); after a correct
    one the leader may use Sails, else the turn ends."""
    if s.pred_len[g] > 0:
        seat = s.active[g]
        v = s.hands[g, seat, 0]
        s.hands[g, seat, 0] = 0
        s.hand_len[g, seat] = 0
        s.bag[g, v - 1] += 1
        if s.correct[g]:
            s.bag_known[g, v - 1] += 1
        s.lines[g, seat] = ALL
        event(s, g, RESOLVE_EVENT, 1 if s.correct[g] else 0, -1, -1, -1)
    if s.correct[g] and _sails_offered(s, g):
        s.phase[g] = SAILS_PHASE
        s.decider[g] = r.voters[s.active[g] % r.config[C_PLAYERS], 0]  # the leader
        return
    end_turn(s, r, g)


# --- Sails and the costs of Sails and Scythes ----------------------------------------


@rule
def _sails_offered(s, g) -> bool:
    """May Sails exile a visible fate now (unused power, another card to pay with)?"""
    if s.power_used[g] or s.fcount[g, SAILS] == 0 or s.faded_len[g] < 2:
        return False
    for slot in range(4):  # noqa: SIM110 -- a plain loop: no generator in compiled code
        if s.table_len[g, slot] > 0:
            return True
    return False


@rule
def sails_legal(s, r, g, mask) -> None:
    """Pass, or Sails on a visible fate."""
    mask[PASS] = True
    if _sails_offered(s, g):
        for slot in range(4):
            for v in range(7):
                if s.tcount[g, slot, v] > 0:
                    mask[r.sails_action[slot, v + 1]] = True


@rule
def apply_sails(s, r, g, action) -> int:
    """Pass (the turn ends) or Sails: its card goes under the deck, the cost comes next."""
    if action == PASS:
        return END_TURN
    deck_append(s, g, take_power(s, r, g, SAILS))
    s.power_used[g] = True
    s.pending_power[g] = SAILS
    s.pending_slot[g] = r.action_slot[action]
    s.pending_value[g] = r.action_value[action]
    s.phase[g] = COST_PHASE
    return DONE


@rule
def cost_legal(s, r, g, mask) -> None:
    """Any power with an available faded card may pay the cost."""
    for power in range(s.fcount.shape[1]):
        if s.fcount[g, power] > 0:
            mask[r.cost_action[power]] = True


@rule
def apply_cost(s, r, g, action) -> int:
    """Discard the named power under the deck, then do what the pending power does:
    Scythes asks (and the group goes on), Sails exiles (and the turn ends)."""
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
        if r.config[C_LEADER]:
            s.phase[g] = GROUP_PHASE
            s.decider[g] = r.voters[s.active[g] % r.config[C_PLAYERS], 0]
            return DONE
        return VOTE
    table_remove(s, g, slot, value)
    s.exiled[g, value - 1] += 1
    event(s, g, EXILE_EVENT, slot, value, -1, -1)
    s.ann_exile_slot[g] = slot
    s.ann_exile_value[g] = value
    announce_fall(s, r, g)
    return END_TURN
