"""The group's part of a turn in the batched engine, for one game: reveals, the
group's powers, votes, predictions and resolving them. Mirrors
:mod:`shipwreck_env.predictions` and the group's rules of :mod:`shipwreck_env.powers`
(compiled, see :mod:`shipwreck_env.vector.jit`)."""

from __future__ import annotations

import numpy as np

from shipwreck_env.actions import PASS, REVEAL
from shipwreck_env.state import Phase
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.jit import rule
from shipwreck_env.vector.ops import (
    ALL,
    POWER_EVENT,
    PREDICT_EVENT,
    RESOLVE_EVENT,
    REVEAL_EVENT,
    VOTE_EVENT,
    constrain_kept,
    deck_append,
    event,
    real_mask,
    take_power,
)
from shipwreck_env.vector.turn import end_turn

__all__ = [
    "DONE",
    "END",
    "GROUP",
    "PREDICT",
    "REVEAL_NEXT",
    "VOTE",
    "apply_group",
    "apply_reveal",
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
# group decides, a vote round starts, the predictions end, or predict value v
# (``PREDICT + v``).
DONE, REVEAL_NEXT, GROUP, VOTE, END, PREDICT = 0, 1, 2, 3, 4, 8

SAINTS, SORROWS = t.P["saints"], t.P["sorrows"]
GROUP_POWERS = np.array([SAINTS, SORROWS, *t.SET_QUESTIONS], np.int64)
QUESTION_POWERS = np.array([SORROWS, *t.SET_QUESTIONS], np.int64)  # one action each
REVEAL_PHASE, GROUP_PHASE, VOTE_PHASE = Phase.REVEAL, Phase.GROUP, Phase.VOTE
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
    for power in QUESTION_POWERS:
        if s.fcount[g, power] > 0:
            mask[r.single_action[power]] = True


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
        return DONE if leader else VOTE
    if kind == PREDICT_KIND:
        return PREDICT + r.action_value[action]
    return END if leader else VOTE


@rule
def _apply_group_power(s, r, g, action) -> None:
    """Sorrows (one more prediction) or a question about the kept fate, answered and
    recorded on the number line; the power's card goes to the deck bottom."""
    power = r.action_power[action]
    deck_append(s, g, take_power(s, r, g, power))
    s.power_used[g] = True
    s.ann_power[g] = power
    if power == SORROWS:
        s.preds_left[g] += 1
        event(s, g, POWER_EVENT, SORROWS, -1, -1, -1)
        return
    holds = r.question_holds[action]
    answer = holds[s.kept_eff[g]]
    mask = real_mask(s, g, holds)
    constrain_kept(s, g, mask if answer else ~mask)
    x = r.action_value[action] if power == SAINTS else -1
    event(s, g, POWER_EVENT, power, x, -1, 1 if answer else 0)
    s.ann_value[g] = x if power == SAINTS else 0
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
    """Resolve the turn's predictions (the fate returns to the bag), then end the turn."""
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
    end_turn(s, r, g)
