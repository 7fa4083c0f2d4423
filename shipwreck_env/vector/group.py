"""The group's part of a turn in the batched engine: reveals, the group's powers,
votes, predictions and resolving them. Mirrors :mod:`shipwreck_env.predictions` and the
group's rules of :mod:`shipwreck_env.powers`."""

from __future__ import annotations

import numpy as np

from shipwreck_env.actions import PASS, REVEAL
from shipwreck_env.state import ALL_VALUES, Phase
from shipwreck_env.vector.arrays import Arrays
from shipwreck_env.vector.ops import (
    Pending,
    constrain_kept,
    deck_append,
    event,
    real_mask,
    take_power,
)
from shipwreck_env.vector.tables import (
    ACTION_KIND,
    ACTION_POWER,
    ACTION_VALUE,
    BIT,
    PREDICT_ACTIONS,
    QUESTION_SETS,
    SAINTS_ACTIONS,
    SINGLE_ACTION,
    P,
)
from shipwreck_env.vector.turn import end_turn

__all__ = [
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

SAINTS, SORROWS = P["saints"], P["sorrows"]
GROUP_POWERS = (SAINTS, SORROWS, *QUESTION_SETS)
_EFFECTIVE = np.arange(9)

_ORDERS: dict[tuple[int, int], np.ndarray] = {}


def _others_after(seats: int, players: int) -> np.ndarray:
    """``order[active]``: seats of the other players clockwise from the active seat."""
    key = (seats, players)
    if key not in _ORDERS:
        rows = []
        for active in range(seats):
            order = [(active + i) % seats for i in range(1, seats)]
            rows.append([s for s in order if s % players != active % players])
        _ORDERS[key] = np.array(rows, np.int8)
    return _ORDERS[key]


# --- reveals ----------------------------------------------------------------------


def enter_reveal(a: Arrays, g: np.ndarray, todo: Pending) -> None:
    """Ask every other seat holding a fate, clockwise, whether it reveals; else the
    group decides."""
    config = a.config
    if not config.reveal:
        todo.group[g] = True
        return
    order = _others_after(config.num_seats, config.num_players)[a.active[g]]  # [n, L]
    holds = a.hand_len[g[:, None], order] > 0
    queue = np.take_along_axis(order, np.argsort(~holds, axis=1, kind="stable"), axis=1)
    length = holds.sum(axis=1)
    a.queue[g, : queue.shape[1]] = queue
    a.queue_pos[g] = 0
    a.queue_len[g] = length
    asked = length > 0
    if asked.any():
        ga = g[asked]
        a.phase[ga] = Phase.REVEAL
        a.decider[ga] = queue[asked, 0] % config.num_players
    todo.group[g[~asked]] = True


def apply_reveal(a: Arrays, g: np.ndarray, action: np.ndarray, todo: Pending) -> None:
    """One seat reveals its held fate or keeps it; the next seat is asked."""
    pos = a.queue_pos[g]
    seat = a.queue[g, pos]
    a.queue_pos[g] = pos + 1
    reveal = action == REVEAL
    if reveal.any():
        gr, sr = g[reveal], seat[reveal]
        n = a.hand_len[gr, sr] - 1
        v = a.hands[gr, sr, n]
        a.hands[gr, sr, n] = 0
        a.hand_len[gr, sr] = n
        a.bag[gr, v - 1] += 1
        a.bag_known[gr, v - 1] += 1
        a.lines[gr, sr] = ALL_VALUES
        event(a, gr, "reveal", sr, v)
        a.ann_reveal[gr, sr] = v
    more = pos + 1 < a.queue_len[g]
    if more.any():
        gm = g[more]
        a.decider[gm] = a.queue[gm, pos[more] + 1] % a.config.num_players
    todo.group[g[~more]] = True


# --- the group: powers, votes, predictions ----------------------------------------


def _group_power_offered(a: Arrays, g: np.ndarray) -> np.ndarray:
    return ~a.power_used[g] & (a.fcount[g][:, list(GROUP_POWERS)] > 0).any(axis=1)


def enter_group(a: Arrays, g: np.ndarray, todo: Pending) -> None:
    """The leader decides on powers (and predicts in leader mode); in vote mode with
    no group power to offer, a vote round starts at once."""
    n = a.config.num_players
    if a.config.group_decision == "leader":
        group = np.ones(len(g), bool)
    else:
        group = _group_power_offered(a, g)
    if group.any():
        gg = g[group]
        a.phase[gg] = Phase.GROUP
        a.decider[gg] = (a.active[gg] % n + 1) % n
    todo.vote[g[~group]] = True


def group_legal(a: Arrays, g: np.ndarray, mask: np.ndarray) -> None:
    """Predictions and pass (leader mode) or pass (vote mode), and the group's powers."""
    if a.config.group_decision == "leader":
        mask[g[:, None], PREDICT_ACTIONS[None, :]] = True
    mask[g, PASS] = True
    free = ~a.power_used[g]
    count = a.fcount[g]
    mask[g[:, None], SAINTS_ACTIONS[None, :]] = (free & (count[:, SAINTS] > 0))[:, None]
    for name in ("secrets", "songs", "spires", "swords", "sorrows"):
        mask[g, SINGLE_ACTION[name]] = free & (count[:, P[name]] > 0)


def vote_legal(a: Arrays, g: np.ndarray, mask: np.ndarray) -> None:
    """A vote for a value, or pass."""
    mask[g[:, None], PREDICT_ACTIONS[None, :]] = True
    mask[g, PASS] = True


def apply_group(a: Arrays, g: np.ndarray, action: np.ndarray, todo: Pending) -> None:
    """A group power, a prediction or pass."""
    kind = ACTION_KIND[action]
    leader = a.config.group_decision == "leader"
    power = kind == 4
    if power.any():
        gp = g[power]
        _apply_group_power(a, gp, action[power])
        if not leader:
            todo.vote[gp] = True
    predict = kind == 1
    gp = g[predict]
    todo.predict[gp] = True
    todo.value[gp] = ACTION_VALUE[action[predict]]
    passed = g[kind == 2]
    if leader:
        todo.end[passed] = True
    else:
        todo.vote[passed] = True


def _question_holds() -> np.ndarray:
    """``HOLDS[action, e]``: the answer "yes" of a question action about a kept fate
    whose effective value is ``e`` (0..8); all False for other actions."""
    holds = np.zeros((len(ACTION_POWER), 9), bool)
    for x, action in enumerate(SAINTS_ACTIONS, start=1):
        holds[action] = np.greater(_EFFECTIVE, x)
    for power, values in QUESTION_SETS.items():
        holds[SINGLE_ACTION[POWER_NAME[power]]] = np.isin(_EFFECTIVE, values)
    return holds


POWER_NAME = {p: name for name, p in P.items()}
_HOLDS = _question_holds()


def _apply_group_power(a: Arrays, g: np.ndarray, action: np.ndarray) -> None:
    """Sorrows (one more prediction) or a question about the kept fate, answered and
    recorded on the number line; the power's card goes to the deck bottom."""
    power = ACTION_POWER[action]
    deck_append(a, g, take_power(a, g, power))
    a.power_used[g] = True
    a.ann_power[g] = power
    sorrows = power == SORROWS
    if sorrows.any():
        gs = g[sorrows]
        a.preds_left[gs] += 1
        event(a, gs, "power", SORROWS, -1, -1, -1)
    ask = ~sorrows
    if ask.any():
        gq, aq = g[ask], action[ask]
        holds = _HOLDS[aq]  # [n, 9]
        answer = holds[np.arange(len(gq)), a.kept_eff[gq]]
        mask = real_mask(a, gq, holds)
        constrain_kept(a, gq, np.where(answer, mask, ~mask))
        saints = power[ask] == SAINTS
        x = np.where(saints, ACTION_VALUE[aq], -1)
        event(a, gq, "power", power[ask], x, -1, answer)
        a.ann_value[gq] = np.where(saints, x, 0)
        a.ann_answer[gq] = answer


def enter_vote(a: Arrays, g: np.ndarray) -> None:
    """Every other player votes, clockwise from the leader."""
    n = a.config.num_players
    me = (a.active[g] % n).astype(np.int64)
    queue = (me[:, None] + np.arange(1, n)[None, :]) % n
    a.queue[g, : n - 1] = queue
    a.queue_pos[g] = 0
    a.queue_len[g] = n - 1
    a.votes_len[g] = 0
    a.phase[g] = Phase.VOTE
    a.decider[g] = queue[:, 0]


def apply_vote(a: Arrays, g: np.ndarray, action: np.ndarray, todo: Pending) -> None:
    """One player votes; after the last vote a strict majority predicts."""
    pos = a.queue_pos[g]
    player = a.queue[g, pos]
    a.queue_pos[g] = pos + 1
    value = np.where(action == PASS, 0, ACTION_VALUE[action]).astype(np.int8)
    k = a.votes_len[g]
    a.votes[g, k] = value
    a.votes_len[g] = k + 1
    event(a, g, "vote", player, value)
    more = pos + 1 < a.queue_len[g]
    if more.any():
        gm = g[more]
        a.decider[gm] = a.queue[gm, pos[more] + 1]
    done = ~more
    if not done.any():
        return
    gd = g[done]
    votes = a.votes[gd]  # [n, 4]
    voters = a.votes_len[gd].astype(np.int64)
    # entries past this round's votes are 0 (a round always fills P - 1 entries)
    counts = (votes[:, :, None] == np.arange(1, 8)[None, None, :]).sum(axis=1)  # [n, 7]
    majority = 2 * counts > voters[:, None]
    has = majority.any(axis=1)
    gh = gd[has]
    todo.predict[gh] = True
    todo.value[gh] = np.argmax(majority[has], axis=1) + 1
    todo.end[gd[~has]] = True


def predict(a: Arrays, g: np.ndarray, value: np.ndarray, todo: Pending) -> None:
    """The group predicts ``value``: a hit ends the predictions, a miss costs one of
    them (the group decides again while any is left)."""
    real = a.hands[g, a.active[g], 0]
    correct = value == real
    k = a.pred_len[g]
    a.predictions[g, k] = value
    a.pred_len[g] = k + 1
    event(a, g, "predict", value, correct)
    gc = g[correct]
    a.correct[gc] = True
    todo.end[gc] = True
    wrong = ~correct
    if wrong.any():
        gw, vw = g[wrong], value[wrong]
        a.preds_left[gw] -= 1
        constrain_kept(a, gw, ALL_VALUES & ~BIT[vw - 1])
        again = a.preds_left[gw] > 0
        todo.group[gw[again]] = True
        todo.end[gw[~again]] = True


def end_predictions(a: Arrays, g: np.ndarray) -> None:
    """Resolve the turn's predictions (the fate returns to the bag), then end the turn."""
    predicted = a.pred_len[g] > 0
    if predicted.any():
        gp = g[predicted]
        seat = a.active[gp]
        v = a.hands[gp, seat, 0]
        a.hands[gp, seat, 0] = 0
        a.hand_len[gp, seat] = 0
        a.bag[gp, v - 1] += 1
        correct = a.correct[gp]
        a.bag_known[gp[correct], v[correct] - 1] += 1
        a.lines[gp, seat] = ALL_VALUES
        event(a, gp, "resolve", correct)
    end_turn(a, g)
