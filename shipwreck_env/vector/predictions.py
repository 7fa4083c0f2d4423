"""The group's part of a turn in the batched engine, for one game: reveals, the
group's phase, votes, predictions, resolving them, the Sails phase and the cost phase
(the powers themselves, their costs included, are in
:mod:`~shipwreck_env.vector.powers`). Mirrors :mod:`shipwreck_env.rules.predictions`
(compiled, see :mod:`shipwreck_env.vector.jit`)."""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.actions import PASS, REVEAL
from shipwreck_env.rules.state import Phase
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.arcana import announce_fall
from shipwreck_env.vector.fading import end_turn
from shipwreck_env.vector.jit import rule
from shipwreck_env.vector.number_lines import ALL, constrain_kept
from shipwreck_env.vector.ops import (
    PREDICT_EVENT,
    RESOLVE_EVENT,
    REVEAL_EVENT,
    VOTE_EVENT,
    event,
)
from shipwreck_env.vector.powers import any_offered, apply_power, sails_offered
from shipwreck_env.vector.powers import apply_cost as pay_cost

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
    "end_predictions",
    "enter_group",
    "enter_reveal",
    "enter_vote",
    "group_legal",
    "predict",
    "vote_legal",
]

# What the turn does next, returned by each part of it (``engine`` runs the parts in
# turn, so each is compiled once): nothing (a player decides), ask for reveals, the
# group decides, a vote round starts, the predictions end, the turn ends (after Sails),
# or predict value v (``PREDICT + v``).
DONE, REVEAL_NEXT, GROUP, VOTE, END, END_TURN, PREDICT = 0, 1, 2, 3, 4, 5, 8

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
    if not r.config[C_LEADER] and not any_offered(s, g, GROUP_PHASE):
        return VOTE
    n = r.config[C_PLAYERS]
    s.phase[g] = GROUP_PHASE
    s.decider[g] = r.voters[s.active[g] % n, 0]  # the leader
    return DONE


@rule
def group_legal(s, r, g, mask) -> None:
    """Predictions and pass (leader mode) or pass (vote mode); the engine adds the
    group's powers (``powers.offered``)."""
    if r.config[C_LEADER]:
        mask[PREDICT_FIRST : PREDICT_FIRST + 7] = True
    mask[PASS] = True


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
        apply_power(s, r, g, action)
        if s.phase[g] == COST_PHASE:  # Scythes: the cost comes first
            return DONE
        return DONE if leader else VOTE
    if kind == PREDICT_KIND:
        return PREDICT + r.action_value[action]
    return END if leader else VOTE


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
    if s.correct[g] and sails_offered(s, g):
        s.phase[g] = SAILS_PHASE
        s.decider[g] = r.voters[s.active[g] % r.config[C_PLAYERS], 0]  # the leader
        return
    end_turn(s, r, g)


# --- Sails and the cost phase ---------------------------------------------------------


@rule
def apply_sails(s, r, g, action) -> int:
    """Pass (the turn ends) or Sails (its cost comes next)."""
    if action == PASS:
        return END_TURN
    apply_power(s, r, g, action)  # moves to the cost phase
    return DONE


@rule
def apply_cost(s, r, g, action) -> int:
    """Pay the pending power's cost and let it act (``powers.apply_cost``); after
    Scythes the group goes on, after Sails' exile The Fall is announced again and the
    turn ends."""
    if pay_cost(s, r, g, action):  # Scythes asked
        if r.config[C_LEADER]:
            s.phase[g] = GROUP_PHASE
            s.decider[g] = r.voters[s.active[g] % r.config[C_PLAYERS], 0]
            return DONE
        return VOTE
    announce_fall(s, r, g)
    return END_TURN
