"""The batched engine's entry points, compiled: every game's legal mask, one decision
in every game (with the automatic rest of the turn, the rewards and the restart of
finished games), and dealing new games. Mirrors :mod:`shipwreck_env.rules.engine`: each
entry point loops over the games and dispatches one game at a time by phase to the
turn's steps -- ``turn_start`` (draw, per-turn reset), ``plays`` (the active player's
plays, The Thief, The Chalice), ``predictions`` (reveals, the group, votes,
predictions, Sails and cost phases) and ``fading`` (score, fades, refill, end of game).
Each card's special effect has one home: card texts in ``arcana``, every faded power
(Scions and Sands included) in ``powers``; number lines are in ``number_lines``."""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.actions import PASS, REVEAL
from shipwreck_env.rules.cards import FATE_COPIES
from shipwreck_env.rules.state import Phase
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.arrays import TURN_ACTION_CAPACITY
from shipwreck_env.vector.chance import permutation_at
from shipwreck_env.vector.fading import end_turn
from shipwreck_env.vector.jit import njit, rule
from shipwreck_env.vector.number_lines import ALL
from shipwreck_env.vector.ops import PREFETCH_AHEAD, prefetch_game
from shipwreck_env.vector.plays import (
    apply_after_play,
    apply_play_phase,
    apply_steal,
    play_phase_legal,
    steal_legal,
)
from shipwreck_env.vector.powers import cost_legal, offered
from shipwreck_env.vector.predictions import (
    DONE,
    END,
    END_TURN,
    GROUP,
    PREDICT,
    REVEAL_NEXT,
    VOTE,
    apply_cost,
    apply_group,
    apply_reveal,
    apply_sails,
    apply_vote,
    end_predictions,
    enter_group,
    enter_reveal,
    enter_vote,
    group_legal,
    predict,
    vote_legal,
)
from shipwreck_env.vector.turn_start import start_turn

__all__ = [
    "count_illegal",
    "deal",
    "deal_games",
    "legal_masks",
    "pick_legal",
    "step_games",
    "step_rewarded",
]

PLAY, AFTER_PLAY, REVEAL_PHASE = Phase.PLAY, Phase.AFTER_PLAY, Phase.REVEAL
GROUP_PHASE, VOTE_PHASE = Phase.GROUP, Phase.VOTE
STEAL_PHASE, COST_PHASE, SAILS_PHASE = Phase.STEAL, Phase.COST, Phase.SAILS
C_DOOM = t.C_STARTING_DOOM


@rule
def deal(s, r, g) -> None:
    """Start a new game in ``g`` (as ``engine.new_game``): shuffle the deck from the
    game's stream, deal four cards, let seat 0 draw."""
    cards = r.cards
    m = len(cards)
    perm = r.work_order
    permutation_at(s.key[g], s.draws[g], m, r.work_u, perm)
    s.draws[g] += np.uint64(m)
    for i in range(4):
        s.slots[g, i] = cards[perm[i]]
    s.deck[g, :] = -1
    for i in range(4, m):
        s.deck[g, i - 4] = cards[perm[i]]
    s.deck_head[g] = 0
    s.deck_len[g] = m - 4
    s.table[g] = 0
    s.table_len[g] = 0
    s.tcount[g] = 0
    s.attached[g] = -1
    s.attached_len[g] = 0
    s.sands_waiting[g] = -1
    s.faded[g] = -1
    s.faded_len[g] = 0
    s.fcount[g] = 0
    s.bag[g] = FATE_COPIES
    s.bag_known[g] = 0
    s.exiled[g] = 0
    s.hands[g] = 0
    s.hand_len[g] = 0
    s.lines[g] = ALL
    s.score[g] = 0
    s.doom[g] = r.config[C_DOOM]
    s.turn[g] = 0
    s.over[g] = False
    s.won[g] = False
    s.truncated[g] = False
    s.events_len[g] = 0
    s.events_cur[g] = 0
    start_turn(s, r, g, 0)


@njit
def legal_masks(s, r, mask) -> None:
    """Fill ``mask`` (bool[N, 259]) with the legal actions of each game's decider (none
    once it is over): each phase's own actions, then the powers it offers
    (``engine._LEGAL`` and ``_with_powers``). Each row is cleared just before it is
    filled, while it is in the cache (one pass over a big batch's masks, not two)."""
    for g in range(mask.shape[0]):
        phase = s.phase[g]
        row = mask[g]
        row[:] = False
        if phase == PLAY:
            play_phase_legal(s, r, g, row)
        elif phase == AFTER_PLAY or phase == SAILS_PHASE:  # noqa: SIM109 -- for numba
            row[PASS] = True
        elif phase == REVEAL_PHASE:
            row[PASS] = True
            row[REVEAL] = True
        elif phase == GROUP_PHASE:
            group_legal(s, r, g, row)
        elif phase == VOTE_PHASE:
            vote_legal(row)
        elif phase == STEAL_PHASE:
            steal_legal(s, r, g, row)
        elif phase == COST_PHASE:
            cost_legal(s, r, g, row)
        offered(s, r, g, phase, row)


@njit
def count_illegal(mask, actions, over) -> int:
    """How many games still playing have an action that ``mask`` does not allow."""
    bad = 0
    for g in range(len(actions)):
        if not over[g]:
            a = actions[g]
            if a < 0 or a >= mask.shape[1] or not mask[g, a]:
                bad += 1
    return bad


@rule
def _step_one(s, r, g, action) -> None:
    n = s.turn_actions_len[g]
    if n >= TURN_ACTION_CAPACITY:
        raise RuntimeError("a turn took more actions than arrays.TURN_ACTION_CAPACITY")
    s.turn_actions[g, n] = action  # every action is public: noted before it is applied
    s.turn_actions_len[g] = n + 1
    phase = s.phase[g]
    after = DONE
    if phase == PLAY:
        after = REVEAL_NEXT if apply_play_phase(s, r, g, action) else DONE
    elif phase == AFTER_PLAY:
        apply_after_play(s, r, g, action)
        after = REVEAL_NEXT
    elif phase == REVEAL_PHASE:
        after = apply_reveal(s, r, g, action)
    elif phase == GROUP_PHASE:
        after = apply_group(s, r, g, action)
    elif phase == VOTE_PHASE:
        after = apply_vote(s, r, g, action)
    elif phase == STEAL_PHASE:
        after = REVEAL_NEXT if apply_steal(s, r, g, action) else DONE
    elif phase == COST_PHASE:
        after = apply_cost(s, r, g, action)
    elif phase == SAILS_PHASE:
        after = apply_sails(s, r, g, action)
    # the automatic rest of the turn, part after part, until someone must decide
    while after != DONE:
        if after == REVEAL_NEXT:
            after = enter_reveal(s, r, g)
        elif after == GROUP:
            after = enter_group(s, r, g)
        elif after == VOTE:
            after = enter_vote(s, r, g)
        elif after == END:
            end_predictions(s, r, g)
            after = DONE
        elif after == END_TURN:
            end_turn(s, r, g)
            after = DONE
        else:
            after = predict(s, r, g, after - PREDICT)


@njit
def step_rewarded(s, r, g, action, score_doom) -> float:
    """Apply the legal ``action`` in game ``g`` (the automatic rest of the turn included)
    and return its team reward: ``score_doom`` (+1 per point, -1 per doom) or win/loss,
    as ``rewards.team_reward`` counts it."""
    score, doom = s.score[g], s.doom[g]
    _step_one(s, r, g, action)
    if score_doom:
        return float((s.score[g] - score) - (s.doom[g] - doom))
    if s.over[g] and not s.truncated[g]:
        return 1.0 if s.won[g] else -1.0
    return 0.0


@njit
def step_games(s, r, actions, score_doom, autoreset, reward, ended, final) -> int:
    """Apply ``actions[g]`` in every game still playing (the actions must be legal)
    and fill, per game, ``reward`` (team reward: ``score_doom`` or win/loss),
    ``ended`` (the game ended in this step) and ``final`` (int64[N, 4]: score, doom,
    won, truncated of an ended game, else 0); with ``autoreset`` ended games start again.
    Returns how many games ended."""
    count = 0
    n = len(actions)
    for g in range(n):
        if g + PREFETCH_AHEAD < n:
            prefetch_game(s, g + PREFETCH_AHEAD)
        reward[g] = 0.0
        ended[g] = False
        final[g, 0] = 0
        final[g, 1] = 0
        final[g, 2] = 0
        final[g, 3] = 0
        if s.over[g]:
            continue
        reward[g] = step_rewarded(s, r, g, actions[g], score_doom)
        if s.over[g]:
            count += 1
            ended[g] = True
            final[g, 0] = s.score[g]
            final[g, 1] = s.doom[g]
            final[g, 2] = s.won[g]
            final[g, 3] = s.truncated[g]
            if autoreset:  # now, while the game's rows are in the cache
                deal(s, r, g)
    return count


@njit
def deal_games(s, r, games) -> None:
    """Start new games in the places ``games``."""
    for g in games:
        deal(s, r, g)


@njit
def pick_legal(mask, u, out) -> None:
    """Per row of ``mask`` (bool[N, A], every row allowing an action): its
    ``floor(u[g] * count)``-th legal action, ascending (a uniform pick for uniform
    ``u``), written to ``out`` (int64[N])."""
    bits = mask.view(np.uint8)  # 0 / 1 bytes: their sum vectorises, the bools' does not
    n, width = bits.shape
    for g in range(n):
        count = 0
        for a in range(width):
            count += bits[g, a]
        k = int(u[g] * count)
        for a in range(width):
            k -= bits[g, a]
            if k < 0:
                out[g] = a
                break
