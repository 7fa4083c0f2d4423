"""The batched engine's public functions: deal, legal masks and one step of every game.

``step`` splits the games by phase, applies each phase's rule to its games with array
operations, and lets the automatic parts of the turn (announcements, reveals asked,
resolving, fading, the next turn's draw) follow in the same call, as
:func:`shipwreck_env.engine.step` does for one game.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.actions import NUM_ACTIONS, PASS, REVEAL
from shipwreck_env.state import Phase
from shipwreck_env.vector.arrays import TURN_ACTION_CAPACITY, Arrays
from shipwreck_env.vector.group import (
    apply_group,
    apply_reveal,
    apply_vote,
    end_predictions,
    enter_group,
    enter_reveal,
    enter_vote,
    group_legal,
    predict,
    vote_legal,
)
from shipwreck_env.vector.ops import Pending
from shipwreck_env.vector.plays import (
    after_play_legal,
    apply_after_play,
    apply_play_phase,
    play_legal,
)

__all__ = ["legal_mask", "step"]

_LEGAL = {
    Phase.PLAY: play_legal,
    Phase.AFTER_PLAY: after_play_legal,
    Phase.GROUP: group_legal,
    Phase.VOTE: vote_legal,
}
_APPLY = {
    Phase.PLAY: apply_play_phase,
    Phase.AFTER_PLAY: apply_after_play,
    Phase.REVEAL: apply_reveal,
    Phase.GROUP: apply_group,
    Phase.VOTE: apply_vote,
}


def legal_mask(a: Arrays, out: np.ndarray | None = None) -> np.ndarray:
    """bool[N, 259]: the legal actions of each game's decider (none once it is over)."""
    mask = np.zeros((a.num_games, NUM_ACTIONS), bool) if out is None else out
    if out is not None:
        mask[:] = False
    phase = a.phase
    for p, legal in _LEGAL.items():
        g = np.flatnonzero(phase == p)
        if len(g):
            legal(a, g, mask)
    g = np.flatnonzero(phase == Phase.REVEAL)
    if len(g):
        mask[g, PASS] = True
        mask[g, REVEAL] = True
    return mask


def step(a: Arrays, actions: np.ndarray, games: np.ndarray | None = None) -> None:
    """Apply ``actions[i]`` in game ``games[i]`` (default: every game, one action
    each). The actions must be legal (the caller checks)."""
    g = np.arange(a.num_games) if games is None else games
    n = a.turn_actions_len[g]
    if (n >= TURN_ACTION_CAPACITY).any():
        raise RuntimeError(f"a turn took more than {TURN_ACTION_CAPACITY} actions")
    a.turn_actions[g, n] = actions
    a.turn_actions_len[g] = n + 1
    phase = a.phase[g]
    todo = Pending(a.num_games)
    groups = [(p, phase == p) for p in _APPLY]  # split first: the rules move phases
    for p, sub in groups:
        if sub.any():
            _APPLY[p](a, g[sub], actions[sub], todo)
    # The rest of the turn, each part once for every game that reaches it, in the
    # order a turn can pass through them within one decision.
    gp = np.flatnonzero(todo.predict)
    if len(gp):
        predict(a, gp, todo.value[gp], todo)
    for mark, part in ((todo.reveal, enter_reveal), (todo.group, enter_group)):
        gm = np.flatnonzero(mark)
        if len(gm):
            part(a, gm, todo)
    gv = np.flatnonzero(todo.vote)
    if len(gv):
        enter_vote(a, gv)
    ge = np.flatnonzero(todo.end)
    if len(ge):
        end_predictions(a, ge)
