"""Per-action features of many batched games at once: the compiled twin of
:mod:`shipwreck_env.rules.action_features` (issue 52).

For each game asked about and its observer, :func:`action_features` fills a
``float32[NUM_ACTIONS, NUM_FEATURES]`` block whose columns are the reference's
:data:`~shipwreck_env.rules.action_features.FEATURES`: for the decider's legal plays what
each would show a literal reader (the condition, the number line after it, the literal
belief over the kept fate, how many hands of the turn could make it, The Chalice's tell
and The Fall's announcement, what would fade and at what doom), for its predictions or
votes the literal probability of each value, and ``legal`` on every legal action. A
player who does not decide, or a finished game, gets a block of zeros.

Every number is the reference's exactly (float32 equal, checked by
``tests/shipwreck_env/vector/test_vector_action_features.py``): the rules are the batched
engine's own compiled ones (the legal mask, ``number_lines``' rows and The Hours' mask,
``plays``' legal plays for each hypothetical hand, the hours in front of a card, Scions,
Sands), and each fraction is computed in float64 in the reference's order before it is
rounded to float32 once, as numpy does when the reference stores a Python float.

What the reference asks of the table as it stands on public facts alone
(``public_record.play_outcome``, ``fading_after`` and ``fade_doom``) is put together
here (``_outcome``, ``_fades_after``) from questions the batched turn answers in each
concept's one home without changing the arrays: where a fate lands
(``plays.landing_slot``) and The Chalice's tell (``plays.chalice_tell``), the lines after
a play (``number_lines.play_lines``), The Fall's announcement and the cards that fade by
their own text (``arcana.fall_announcement_after``, ``arcana.fades_by_text_after``), a
slot's hours with the played fate (``fading.slot_hours_after``) and the doom of the
fades (``fading.fades_doom``, which the end of the turn counts with too). Like the reference, nothing
here reads a fate the observer cannot see.

Must not: change the arrays it reads; be listed in ``jit._RULES`` or the engine's
warm-up (its kernels compile on first use and stamp their own cache).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from shipwreck_env.rules import action_features as _reference
from shipwreck_env.rules.action_features import FEATURES, NUM_FEATURES, column
from shipwreck_env.rules.actions import HOURS_TARGET, NUM_ACTIONS
from shipwreck_env.rules.cards import FATE_COPIES
from shipwreck_env.rules.state import Phase
from shipwreck_env.vector import jit as _jit
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.arcana import fades_by_text_after, fall_announcement_after
from shipwreck_env.vector.fading import fades_doom, slot_hours_after
from shipwreck_env.vector.game import VectorGame
from shipwreck_env.vector.jit import njit, rule
from shipwreck_env.vector.number_lines import (
    hours_kept_mask,
    kept_mask,
    play_lines,
    visible_bits,
)
from shipwreck_env.vector.plays import _plays_into, chalice_tell, landing_slot

__all__ = ["FEATURES", "NUM_FEATURES", "FeatureWork", "action_features", "features_rows"]

# The kernels compile in the batched rules and the reference's column order: their
# cache goes stale when either changes.
_jit.stamp_cache(__file__, depends=(_reference.__file__,))

PLAY_PHASE = Phase.PLAY
PREDICT_KIND = 1  # tables.ACTION_KIND
C_PLAYERS, C_SEATS = t.C_PLAYERS, t.C_SEATS
FEAST = t.FEAST
LEGAL = column("legal")
COND, LINE, BELIEF, KEPT = column("cond_1"), column("line_1"), column("belief_1"), column("kept_1")
HANDS, FORCED, OPTIONS = column("hands"), column("forced"), column("options")
CHALICE_HIGHER, CHALICE_NOT = column("chalice_higher"), column("chalice_not")
FALL_FADES, FALL_NOT = column("fall_fades"), column("fall_not")
FADE_DOOM, FADING, AMPLIFIED, CARDS_LEFT = (
    column("fade_doom"),
    column("fading"),
    column("amplified"),
    column("cards_left"),
)
HOURS, FEAST_COLUMN = column("hours"), column("feast")
P_LITERAL, ON_LINE, UNSEEN = column("p_literal"), column("on_line"), column("unseen")


class FeatureWork(NamedTuple):
    """Work space of :func:`features_rows` for a batch of ``num_games`` games (the
    compiled rules allocate nothing): make it with :meth:`for_games`."""

    counts: np.ndarray
    """int64[2, 7]: the unseen copies per value, and the same with the kept fate."""
    belief: np.ndarray
    """float64[7]: the literal posterior, before its rounding to float32."""
    hand_plays: np.ndarray
    """bool[NUM_ACTIONS]: the legal plays of one hypothetical hand."""
    hands: np.ndarray
    """int8[num_games, 1, 2]: a hypothetical hand, at the row of its game."""
    active: np.ndarray
    """int8[num_games]: zeros (the hypothetical hand's seat)."""

    @classmethod
    def for_games(cls, num_games: int) -> FeatureWork:
        """Work space for games ``0 .. num_games - 1`` of one batch."""
        return cls(
            np.zeros((2, 7), np.int64),
            np.zeros(7, np.float64),
            np.zeros(NUM_ACTIONS, np.bool_),
            np.zeros((num_games, 1, 2), np.int8),
            np.zeros(num_games, np.int8),
        )


# --- the observer's counts and the literal belief -------------------------------------


@rule
def _unseen(s, r, g, observer, unseen) -> None:
    """``unseen[v - 1]``: copies of ``v`` whose place ``observer`` cannot see
    (``observation.unseen_counts``): not exiled, not known in the bag, not in front of
    a slot, not in one of the observer's seats."""
    for v in range(7):
        n = FATE_COPIES - s.exiled[g, v] - s.bag_known[g, v]
        for slot in range(4):
            n -= s.tcount[g, slot, v]
        unseen[v] = n
    for seat in range(observer, r.config[C_SEATS], r.config[C_PLAYERS]):
        for i in range(s.hand_len[g, seat]):
            unseen[s.hands[g, seat, i] - 1] -= 1


@rule
def _literal(line, counts, belief) -> None:
    """``belief`` = the values on ``line`` weighted by ``counts``, normalised
    (``observation.literal_posterior``: integer weights, one float64 division each)."""
    total = 0
    for v in range(7):
        if (line >> v) & 1:
            total += counts[v]
    for v in range(7):
        belief[v] = counts[v] / total if total > 0 and (line >> v) & 1 else 0.0


# --- a hypothetical first play on the table as it stands --------------------------------


@rule
def _outcome(s, g, value, target, landed, kept) -> tuple:
    """(The Chalice's tell, The Fall's announcement) after ``value`` played on
    ``target`` (landing on ``landed``) keeping ``kept``, each 1 / 0, -1 for none
    (``public_record.play_outcome``; ``kept`` as the engine reads it, Shadows included)."""
    return chalice_tell(s, g, value, target, kept), fall_announcement_after(
        s, g, value, landed, kept
    )


@rule
def _fades_after(s, r, g, value, landed, fall) -> int:
    """Bit per slot whose card fades if the turn ends right after the play
    (``public_record.fading_after``): by its own text (The Ash, The Fall as announced:
    ``fall``) or when its hours, with the played fate, reach its moons."""
    fading = 0
    for slot in range(4):
        card = s.slots[g, slot]
        if card < 0:
            continue
        by_text = fades_by_text_after(card, value, fall)
        if by_text >= 0:
            fades = by_text == 1
        else:
            fades = slot_hours_after(s, r, g, slot, value, landed) >= r.card_moons[card]
        if fades:
            fading |= 1 << slot
    return fading


@rule
def _hand_plays(s, r, g, x, y, action, work) -> tuple:
    """(how many legal plays the hand ``(x, y)`` of the active seat would have, is
    ``action`` the only one), by the engine's play rule on the table as it stands
    (``plays.first_plays``)."""
    work.hands[g, 0, 0] = x
    work.hands[g, 0, 1] = y
    mask = work.hand_plays
    _plays_into(s.slots, s.tcount, s.shadows, s.feast_done, work.hands, work.active, r, g, mask)
    count = 0
    for target in range(HOURS_TARGET + 1):
        for v in range(1, 8):
            a = r.play_action[target, v]
            if mask[a]:
                count += 1
    only = count == 1 and mask[action]
    for target in range(HOURS_TARGET + 1):
        for v in range(1, 8):
            mask[r.play_action[target, v]] = False
    return count, only


# --- the rows ----------------------------------------------------------------------------


@rule
def _play_row(s, r, g, a, visible, cards_in_play, row, work) -> None:
    """The row of the legal play ``a`` of the active seat (``action_features._play_rows``)."""
    v = r.action_value[a]
    target = r.action_slot[a]
    seat = s.active[g]
    x, y = s.hands[g, seat, 0], s.hands[g, seat, 1]
    kept = y if x == v else x
    if target == HOURS_TARGET:
        cond = hours_kept_mask(s, r, g, visible, v)
    else:
        cond = kept_mask(s.slots, s.tcount, s.shadows, s.feast_done, r, g, visible, target, v)
    line_tracked, line_fresh = play_lines(s.tracked[g], v, cond)
    line = line_tracked | line_fresh
    counts = work.counts[1]
    for k in range(7):
        counts[k] = work.counts[0, k]
    counts[kept - 1] += 1  # the group cannot see the fate the observer keeps
    belief = work.belief
    _literal(line, counts, belief)
    on_line = 0
    for k in range(7):
        row[COND + k] = (cond >> k) & 1
        row[LINE + k] = (line >> k) & 1
        row[BELIEF + k] = belief[k]
        on_line += (line >> k) & 1
    row[KEPT + kept - 1] = 1.0
    row[HANDS] = on_line / 7
    forced = 0.0
    options = 0.0
    for k in range(1, 8):
        weight = belief[k - 1]
        if weight > 0:
            count, only = _hand_plays(s, r, g, v, k, a, work)
            forced += weight * (1.0 if only else 0.0)
            options += weight * count
    row[FORCED] = forced
    row[OPTIONS] = options / 8
    landed = landing_slot(s, g, target)
    chalice, fall = _outcome(s, g, v, target, landed, kept + (1 if s.shadows[g] else 0))
    if chalice == 1:
        row[CHALICE_HIGHER] = 1.0
    elif chalice == 0:
        row[CHALICE_NOT] = 1.0
    if fall == 1:
        row[FALL_FADES] = 1.0
    elif fall == 0:
        row[FALL_NOT] = 1.0
    fading = _fades_after(s, r, g, v, landed, fall)
    doom, amplified = fades_doom(s, r, g, fading)
    faded = 0
    for slot in range(4):
        faded += (fading >> slot) & 1
    row[FADE_DOOM] = doom / 3
    row[FADING] = faded / 4
    row[AMPLIFIED] = 1.0 if amplified else 0.0
    row[CARDS_LEFT] = (cards_in_play - faded) / 4
    if target == HOURS_TARGET:
        row[HOURS] = 1.0
    elif s.slots[g, target] == FEAST:
        row[FEAST_COLUMN] = 1.0


@rule
def _features(s, r, mask, g, observer, block, work) -> None:
    """Fill ``block`` (float32[NUM_ACTIONS, NUM_FEATURES]) with the features of game
    ``g`` for ``observer`` (``action_features.action_features``)."""
    block[:, :] = 0.0
    if s.over[g] or s.decider[g] != observer:
        return
    legal = mask[g]
    for a in range(NUM_ACTIONS):
        if legal[a]:
            block[a, LEGAL] = 1.0
    unseen = work.counts[0]
    _unseen(s, r, g, observer, unseen)
    if s.phase[g] == PLAY_PHASE:
        visible = visible_bits(s.tcount, g)
        cards_in_play = 0
        for slot in range(4):
            if s.slots[g, slot] >= 0:
                cards_in_play += 1
        for target in range(HOURS_TARGET + 1):
            for v in range(1, 8):
                a = r.play_action[target, v]
                if legal[a]:
                    _play_row(s, r, g, a, visible, cards_in_play, block[a], work)
    line = s.lines[g, s.active[g]]
    belief = work.belief
    _literal(line, unseen, belief)  # the decider is never the active seat here
    for a in range(NUM_ACTIONS):
        if legal[a] and r.action_kind[a] == PREDICT_KIND:
            v = r.action_value[a]
            block[a, P_LITERAL] = belief[v - 1]
            block[a, ON_LINE] = (line >> (v - 1)) & 1
            block[a, UNSEEN] = max(unseen[v - 1], 0) / 3


@njit
def features_rows(s, r, mask, games, observers, out, work) -> None:
    """``out[i]`` = the features of game ``games[i]`` for player ``observers[i]``.

    ``s`` and ``r`` are the compiled structures of the games and their rules
    (``jit.pack``, ``jit.rules_for``: a ``VectorGame``'s ``_packed`` and ``_rules``),
    ``mask`` the games' legal masks (bool[N, NUM_ACTIONS], ``engine.legal_masks``),
    ``out`` float32[len(games), NUM_ACTIONS, NUM_FEATURES], ``work`` a
    :class:`FeatureWork` for N games. The arguments are not checked: the Python entry
    :func:`action_features` does that."""
    for i in range(len(games)):
        _features(s, r, mask, games[i], observers[i], out[i], work)


def _ints(name: str, value: object, shape: tuple[int, ...], allowed: str) -> np.ndarray:
    arr = np.asarray(value)
    if arr.shape != shape or (arr.size and arr.dtype.kind not in "iu"):
        shown = arr.tolist() if arr.size <= 20 else f"array of shape {arr.shape}"
        raise ValueError(f"{name} {shown!r} is not allowed; allowed: {allowed}")
    return arr.astype(np.int64)


def action_features(
    vg: VectorGame,
    games: np.ndarray | None = None,
    observers: np.ndarray | None = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """The per-action features of batched games, as the reference gives them.

    Args:
        vg: a :class:`~shipwreck_env.vector.VectorGame` (a warming one waits for the
            compiled engine first).
        games: which games (default: all), a 1-d integer array of game indexes.
        observers: the player each of those games is seen by (default: its decider;
            a finished game is seen by player 0 and gets zeros).
        out: optional C-contiguous float32 array of shape ``(len(games), NUM_ACTIONS,
            NUM_FEATURES)`` to fill (returned).

    Returns:
        float32[len(games), NUM_ACTIONS, NUM_FEATURES] whose block ``i`` equals
        ``shipwreck_env.rules.action_features.action_features(state, observers[i])``
        on game ``games[i]``'s state.

    Raises:
        ValueError: ``vg`` is not a batch of games, or ``games``, ``observers`` or
            ``out`` are not what is allowed (then nothing is written).
    """
    if not isinstance(vg, VectorGame):
        raise ValueError(
            f"vg of type {type(vg).__name__} is not allowed; allowed: a "
            "shipwreck_env.vector.VectorGame"
        )
    n = vg.num_games
    if games is None:
        games = np.arange(n)
    else:
        allowed = f"game indexes 0..{n - 1} in a 1-d integer array"
        games = _ints("games", games, (np.size(games),), allowed)
        if games.size and (games.min() < 0 or games.max() >= n):
            raise ValueError(f"games {games.tolist()} are not allowed; allowed: {allowed}")
    players = vg.config.num_players
    arrays = vg.arrays  # a warming game waits for the compiled engine here
    if observers is None:
        observers = np.maximum(arrays.decider[games], 0).astype(np.int64)
    else:
        allowed = f"one player 0..{players - 1} per game of {games.tolist()}"
        observers = _ints("observers", observers, games.shape, allowed)
        if ((observers < 0) | (observers >= players)).any():
            raise ValueError(f"observers {observers.tolist()} are not allowed; allowed: {allowed}")
    shape = (len(games), NUM_ACTIONS, NUM_FEATURES)
    if out is None:
        out = np.empty(shape, np.float32)
    elif (
        not isinstance(out, np.ndarray)
        or out.shape != shape
        or out.dtype != np.float32
        or not out.flags.c_contiguous
        or not out.flags.writeable
    ):
        raise ValueError(
            f"out of shape {np.shape(out)} and dtype {getattr(out, 'dtype', None)} is not "
            f"allowed; allowed: a writeable C-contiguous float32 array of shape {shape}"
        )
    mask = vg.legal_mask()
    features_rows(vg._packed, vg._rules, mask, games, observers, out, FeatureWork.for_games(n))
    return out
