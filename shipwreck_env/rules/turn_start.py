"""The start of a turn: drawing fates, the per-turn reset and the public snapshot.

Part of the rules engine (see :mod:`shipwreck_env.rules.engine` for the public API). The
turn's later steps live in :mod:`~shipwreck_env.rules.plays`,
:mod:`~shipwreck_env.rules.predictions` and :mod:`~shipwreck_env.rules.fading`.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.state import ALL_VALUES, Phase, State


def draw_fate(s: State, rng: np.random.Generator) -> int:
    """Draw one fate from the bag (an empty bag first takes back every fate on the
    table, and -- if that is not enough -- the exiled ones)."""
    bag = s.bag
    total = sum(bag)
    if total == 0:
        returned = 0
        for fates in s.table:
            for v in fates:
                bag[v - 1] += 1
            returned += len(fates)
            fates.clear()
        s.events.append(("table_to_bag", returned))
        total = returned
        if total == 0:  # every fate is held or exiled: not reachable in play, kept safe
            for i, n in enumerate(s.exiled):
                bag[i] += n
                s.exiled[i] = 0
            total = sum(bag)
            s.events.append(("exiled_to_bag", total))
    s.bag_known = [0] * 7  # after a blind draw nobody knows which fates are still in
    r = int(rng.random() * total)  # one uniform double: cheaper than rng.integers
    for i in range(7):
        r -= bag[i]
        if r < 0:
            bag[i] -= 1
            return i + 1
    raise AssertionError("bag count mismatch")


def start_turn(s: State, seat: int, rng: np.random.Generator) -> None:
    s.turn += 1
    reset_turn(s, seat)
    hand = s.hands[seat]
    drawn = 2 - len(hand)
    for _ in range(drawn):
        hand.append(draw_fate(s, rng))
    s.events.append(("draw", seat, drawn))
    s.turn_start = public_snapshot(s)


def public_snapshot(s: State) -> tuple:
    """The public table now, as nested tuples (see ``State.turn_start``)."""
    # map() instead of generator expressions: built once per turn, on the hot path
    return (
        tuple(s.slots),
        tuple(map(tuple, s.table)),
        tuple(map(tuple, s.attached)),
        tuple(s.sands_waiting),
        tuple(s.faded),
        s.deck[0] if s.deck else -1,
        len(s.deck),
        tuple(s.exiled),
        tuple(s.lines),
        tuple(map(len, s.hands)),
        s.score,
        s.doom,
        s.turn,
    )


def reset_turn(s: State, seat: int) -> None:
    """Make ``seat`` active at the start of its turn, before it draws: clear everything
    that lasts one turn and note which fate (if any) it carries over."""
    s.active = seat
    s.last_events = s.events
    s.events = []
    s.turn_actions = []
    s.queue = []
    s.power_used = s.shadows = s.feast_done = s.played_old = s.correct = False
    s.plays = []
    s.predictions = []
    s.votes = []
    s.preds_left = 1
    s.pending = ()
    s.fall_kept = 0
    s.fall_fading = -1
    s.ash_trigger = False
    s.kept_eff = 0
    hand = s.hands[seat]
    s.old_fate = hand[0] if hand else 0
    s.tracked = s.line_fresh = s.line_tracked = s.lines[seat] if hand else ALL_VALUES
    s.phase = Phase.PLAY
    s.decider = seat % s.config.num_players  # s.owner(seat)
