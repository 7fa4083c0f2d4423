"""The group's part of a turn: reveals, the group's powers, votes, predictions,
resolving the prediction and Sails.

Part of the rules engine (see :mod:`shipwreck_env.rules.engine`).
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules import powers
from shipwreck_env.rules.actions import ACTIONS, PASS, REVEAL
from shipwreck_env.rules.arcana import announce_fall
from shipwreck_env.rules.fading import end_turn
from shipwreck_env.rules.number_lines import constrain_kept
from shipwreck_env.rules.seating import leader, others_after, voters
from shipwreck_env.rules.state import ALL_VALUES, Phase, State


def enter_reveal(s: State) -> None:
    if s.config.reveal:
        hands = s.hands
        order = others_after(len(hands), s.config.num_players, s.active)
        queue = s.queue = [seat for seat in order if hands[seat]]
        if queue:
            s.phase = Phase.REVEAL
            s.decider = queue[0] % s.config.num_players  # s.owner(queue[0])
            return
    _enter_group(s)


def apply_reveal(s: State, action: int, rng: np.random.Generator) -> None:
    seat = s.queue.pop(0)
    if action == REVEAL:
        v = s.hands[seat].pop()
        s.bag[v - 1] += 1
        s.bag_known[v - 1] += 1
        s.lines[seat] = ALL_VALUES
        s.events.append(("reveal", seat, v))
    if s.queue:
        s.decider = s.owner(s.queue[0])
    else:
        _enter_group(s)


# --- the group: powers, votes, predictions ----------------------------------------


def _enter_group(s: State) -> None:
    if s.config.group_decision == "leader" or powers.any_offered(s, Phase.GROUP):
        s.phase = Phase.GROUP
        n = s.config.num_players
        s.decider = leader(n, s.active % n)
    else:
        _enter_vote(s)


def apply_group(s: State, action: int, rng: np.random.Generator) -> None:
    spec = ACTIONS[action]
    if spec.kind == "power":
        powers.apply_power(s, action)
        if s.phase == Phase.COST:  # Scythes: the cost comes first
            return
        if s.config.group_decision == "vote":
            _enter_vote(s)
        return
    if spec.kind == "predict":
        _predict(s, spec.value, rng)
    elif s.config.group_decision == "leader":
        _end_predictions(s, rng)
    else:
        _enter_vote(s)


def _enter_vote(s: State) -> None:
    s.queue = list(voters(s.config.num_players, s.active_player))
    s.votes = []
    s.phase = Phase.VOTE
    s.decider = s.queue[0]


def apply_vote(s: State, action: int, rng: np.random.Generator) -> None:
    player = s.queue.pop(0)
    value = ACTIONS[action].value if action != PASS else 0
    s.votes.append(value)
    s.events.append(("vote", player, value))
    if s.queue:
        s.decider = s.queue[0]
        return
    voters = len(s.votes)
    for v in set(s.votes):
        if v and 2 * s.votes.count(v) > voters:
            _predict(s, v, rng)
            return
    _end_predictions(s, rng)


def _predict(s: State, value: int, rng: np.random.Generator) -> None:
    real = s.hands[s.active][0]
    correct = value == real
    s.predictions.append(value)
    s.events.append(("predict", value, correct))
    if correct:
        s.correct = True
        _end_predictions(s, rng)
        return
    s.preds_left -= 1
    constrain_kept(s, ALL_VALUES & ~(1 << (value - 1)))
    if s.preds_left > 0:
        _enter_group(s)
    else:
        _end_predictions(s, rng)


def _end_predictions(s: State, rng: np.random.Generator) -> None:
    if s.predictions:  # resolve: the predicted fate goes back to the bag
        v = s.hands[s.active].pop()
        s.bag[v - 1] += 1
        if s.correct:  # a missed fate goes back unseen
            s.bag_known[v - 1] += 1
        s.lines[s.active] = ALL_VALUES
        s.events.append(("resolve", s.correct))  # a missed fate is not shown
    if s.correct and powers.offered(s, Phase.SAILS):
        s.phase = Phase.SAILS
        s.decider = s.leader
        return
    end_turn(s, rng)


def apply_sails(s: State, action: int, rng: np.random.Generator) -> None:
    if action == PASS:
        end_turn(s, rng)
        return
    powers.apply_power(s, action)  # moves to the cost phase


def apply_cost(s: State, action: int, rng: np.random.Generator) -> None:
    powers.apply_cost(s, action)
    used, slot, value = s.pending
    s.pending = ()
    if used == "scythes":
        powers.answer_scythes(s)
        if s.config.group_decision == "leader":
            s.phase = Phase.GROUP
            s.decider = s.leader
        else:
            _enter_vote(s)
        return
    s.table[slot].remove(value)
    s.exiled[value - 1] += 1
    s.events.append(("exile", slot, value))
    announce_fall(s)
    end_turn(s, rng)
