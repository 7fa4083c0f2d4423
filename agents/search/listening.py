"""Listening: how the leader ended one's own turn, set against replays of that turn with a
model leader.

A player who plays a turn in leader mode does not see how its leader reads the play; it
sees how the turn ended. At a later view it can tell whether the leader passed (the
player still holds its fate), predicted wrong (the fate is gone and no point came) or
predicted right (:func:`outcome_seen`). A model of the leader answers the same question
when the turn is replayed from its public start with the player's own hand and the
model deciding for the group (:func:`replay_leader`). The leader's own fate is hidden
from the player and changes the leader's reading (its pool), so a replay is made for
each fate it may hold (:func:`leader_holdings`).

Two users: the ally (``agents/search/ally.py``) refutes a reader whose ending no
convention leader gives, whatever it holds; type inference
(``agents/search/type_inference.py``) turns the endings into a likelihood per type
(:func:`ending_likelihood`). Everything here reads the player's own view of its turn
(its hand, the public actions), never the game's state.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_env.envs.policy import Policy, decide, observation_layouts
from shipwreck_env.rules.actions import ACTIONS, PASS
from shipwreck_env.rules.engine import legal_actions, step_inplace
from shipwreck_env.rules.scenario import ForcedDraws, hypothetical_turn_start
from shipwreck_env.rules.view import AgentView

__all__ = [
    "ENDINGS",
    "PlayedTurn",
    "ending_likelihood",
    "leader_holdings",
    "note_turn",
    "outcome_seen",
    "replay_leader",
]

ENDINGS = ("pass", "right", "wrong")
"""How a leader can end a player's turn: it passed, or its prediction was right or wrong."""


@dataclasses.dataclass
class PlayedTurn:
    """One turn of a player's, as it played it: the view at its first decision, its hand
    in the order the turn's replay takes it (the carried fate first), whether it carried
    a fate in, its actions, the score at its last decision."""

    start: AgentView
    hand: tuple[int, int]
    carried: bool
    actions: list[int]
    score: int


def note_turn(played: PlayedTurn | None, view: AgentView, action: int) -> PlayedTurn:
    """The record of the turn ``view`` is in, after this player takes ``action`` in it:
    ``played`` carried on if it is the same turn, else a new record (its hand as the
    convention's code lists it, :meth:`ConventionPolicy.hand_key`: the carried fate
    first). Every action of the turn so far is the player's own (leader mode)."""
    if played is None or played.start.turn != view.turn:
        hand = ConventionPolicy.hand_key(view)
        played = PlayedTurn(view, hand, view.carried_into_turn, [], view.score)
    played.actions[:] = [*view.turn_actions, action]
    played.score = view.score
    return played


def outcome_seen(played: PlayedTurn, view: AgentView) -> str | None:
    """How the leader ended ``played``'s turn, as far as a later ``view`` of the same
    player shows: ``"pass"`` (it still holds the fate), ``"wrong"`` (the fate is gone
    and no point was scored since), ``"right"`` (a point was scored and no other turn
    ended between that could have scored it), else ``None``."""
    seat = played.start.active_seat
    # on its own next turn: did it carry the fate in? else: does it hold it still?
    own_turn = view.active_seat == seat
    gone = not view.carried_into_turn if own_turn else view.holding[seat] == 0
    if not gone:
        return "pass"
    if view.score == played.score:
        return "wrong"
    between = view.turn - played.start.turn - 1
    if between == 0:
        return "right"
    if between == 1:
        other = (seat + 1) % view.config.num_seats
        if other != view.active_seat and view.holding[other] == 1:
            return "right"  # the turn between ended in a pass: the point was ours
    return None


def leader_holdings(start: AgentView) -> list[tuple[int, float]]:
    """``(fate, weight)`` for each fate the leader of the turn may hold at ``start``, as
    the player sees it: every value its number line allows, weighed by the copies the
    player cannot place; ``[(0, 1.0)]`` when it holds none (0: nothing)."""
    reader = start.leader % start.config.num_players
    if start.holding[reader] != 1:
        return [(0, 1.0)]
    line, unseen = start.lines[reader], start.unseen
    return [(v, float(unseen[v - 1])) for v in range(1, 8) if line >> (v - 1) & 1 and unseen[v - 1]]


def replay_leader(
    played: PlayedTurn,
    held: int,
    leader: Policy,
    prepare: Callable[[Policy], None] | None = None,
) -> str | None:
    """How ``leader`` would end ``played``'s turn holding ``held`` (0: nothing): the
    turn replayed from its public start with the player's own hand and actions, the
    leader deciding for the group (reset first, then ``prepare(leader)`` may give it a
    memory; it gets the observation it reads, as the evaluator hands it), a reveal
    passed. One of :data:`ENDINGS`, or ``None`` if the turn cannot be
    replayed (a draw or a card the player did not record: The Feast, Sparrows)."""
    start = played.start
    reader = start.leader % start.config.num_players
    leader.reset()
    if prepare is not None:
        prepare(leader)
    try:
        state = hypothetical_turn_start(start, list(played.hand), carried=played.carried)
        if held:
            if state.bag[held - 1] <= 0:
                return None
            state.bag[held - 1] -= 1
            state.hands[reader] = [held]
        draws = ForcedDraws(state, [])
        for action in played.actions:
            step_inplace(state, action, draws, check=False)
    except (ForcedDraws.Impossible, ValueError, IndexError, KeyError):
        return None
    guessed = False
    rng = np.random.default_rng(0)
    try:
        while not state.over and state.turn == start.turn:
            if state.decider != reader:
                if PASS not in legal_actions(state):
                    return None
                step_inplace(state, PASS, draws, check=False)  # a reveal: none is used
                continue
            layouts = _LAYOUTS.get(state.config)
            if layouts is None:
                layouts = _LAYOUTS[state.config] = observation_layouts(state.config)
            decision = decide(leader, state, layouts, rng)
            action, view = decision.action, decision.view
            if ACTIONS[action].kind == "predict":
                if ACTIONS[action].value == state.kept_eff:
                    return "right"
                guessed = True
            elif action == PASS and view.phase in ("group", "vote"):
                break
            step_inplace(state, action, draws, check=False)
    except ForcedDraws.Impossible:  # the turn ended and the next one drew
        pass
    except (ValueError, IndexError, KeyError):
        return None
    return "wrong" if guessed else "pass"


_LAYOUTS: dict = {}  # a game's observation layouts, for leaders that read observations


def ending_likelihood(
    played: PlayedTurn, seen: str, leader: Policy, epsilon: float
) -> float | None:
    """P(the leader ends ``played``'s turn as ``seen`` | it reads as ``leader`` does):
    over the fates it may hold (:func:`leader_holdings`), the weight of those whose
    replay ends as ``seen``, mixed with ``epsilon`` of an ending drawn uniformly from
    :data:`ENDINGS`; ``None`` if some replay cannot be made."""
    match = total = 0.0
    for held, weight in leader_holdings(played.start):
        ending = replay_leader(played, held, leader)
        if ending is None:
            return None
        total += weight
        match += weight * (ending == seen)
    if total <= 0:
        return None
    return (1 - epsilon) * match / total + epsilon / len(ENDINGS)
