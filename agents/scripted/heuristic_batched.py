"""The heuristic player (:mod:`shipwreck_agents.scripted.heuristic`) deciding for many games at
once, on the batched engine's arrays.

:func:`heuristic_actions` returns, for each game asked about, exactly the action
``HeuristicPlayer().act`` returns on that game's reference state (the differential test
``tests/agents/test_vector_partner.py`` checks it): the same scores, computed in the same
floating-point order, the same ties to the lower action. It is compiled with numba and
loops over the games; a trainer's scripted partner then costs about as much as one more
step of the engine instead of one Python object per game.

What it reads is what the active player may know: its own seats' fates, the public
table (cards, fates, attachments, faded cards, the bag's known and exiled counts),
this turn's public facts (plays, flags, announcements, number lines) and its legal
mask. It never reads another seat's hand, the bag's contents or the deck beyond what
the view shows; a twin-state test (two games that differ only in such hidden facts)
checks that.

Must not: import anything from ``training``; change the arrays it reads.
"""

from __future__ import annotations

import numba
import numpy as np

from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_env.rules.actions import HOURS_TARGET, NUM_ACTIONS, PASS
from shipwreck_env.rules.engine import IllegalActionError
from shipwreck_env.rules.state import Phase
from shipwreck_env.vector import jit as _jit
from shipwreck_env.vector import tables as t
from shipwreck_env.vector.arrays import EVENT, Arrays

__all__ = ["heuristic_actions"]

# The kernels compile in the batched engine's tables: stale when they change.
_jit.stamp_cache(__file__)
_njit = numba.njit(cache=True, nogil=True)

PLAY_PHASE, STEAL_PHASE, AFTER_PLAY_PHASE = Phase.PLAY, Phase.STEAL, Phase.AFTER_PLAY
PLAY_KIND, STEAL_KIND = 0, 6  # tables.ACTION_KIND
CHALICE, FEAST, FALL, ASH, IMAGO, BLIND_MAN = (
    t.CHALICE,
    t.FEAST,
    t.FALL,
    t.ASH,
    t.IMAGO,
    t.BLIND_MAN,
)
SHELLS, SINNERS, SCIONS, SANDS = t.P["shells"], t.P["sinners"], t.P["scions"], t.P["sands"]
DRAW_EVENT = EVENT["draw"]
_DEFAULT = HeuristicPlayer()


@_njit
def _key(card_kind, tcount, g, card, slot, vis_mask, vis_sum4) -> int:
    """The summary key the condition of ``card`` on ``slot`` reads (``rules.summary_key``)."""
    kind = card_kind[card]
    if kind == 1:
        return vis_mask
    if kind == 2:
        return vis_sum4
    if kind == 3:  # the highest fate in front of the card
        key = 0
        for v in range(7):
            if tcount[g, slot, v] > 0:
                key = v + 1
        return key
    return 0


@_njit
def _condition(
    kept, card_kind, slots, tcount, feast_done, g, shadow, vis_mask, vis_sum4, played, target
):
    """``knowledge.condition_mask``: real kept values that allow playing ``played`` on
    ``target`` (The Hours: the kept values with which the hand could go nowhere else)."""
    if target != HOURS_TARGET:
        card = slots[g, target]
        key = _key(card_kind, tcount, g, card, target, vis_mask, vis_sum4)
        return int(kept[card, shadow, key, played - 1])
    mask = 0
    for k in range(1, 8):
        alone = True
        for slot in range(4):
            card = slots[g, slot]
            if card < 0 or (card == FEAST and feast_done[g]):
                continue
            key = _key(card_kind, tcount, g, card, slot, vis_mask, vis_sum4)
            if (kept[card, shadow, key, played - 1] >> (k - 1)) & 1 or (
                kept[card, shadow, key, k - 1] >> (played - 1)
            ) & 1:
                alone = False
        if alone:
            mask |= 1 << (k - 1)
    return mask


@_njit
def _landing(slots, g, target) -> int:
    """Where a play on ``target`` lands (The Hours: the first card; -1 for none)."""
    if target != HOURS_TARGET:
        return target
    for slot in range(4):
        if slots[g, slot] >= 0:
            return slot
    return -1


@_njit
def _hours(
    hours_of, tcount, attached, attached_len, card_power, slots, g, slot, extra, removed, scions
):
    """Hours in front of ``slot`` with one more fate ``extra`` and one fewer ``removed``
    (0: none), counted one per fate if ``scions`` or a Scions card is attached --
    ``knowledge._hours``."""
    for i in range(attached_len[g, slot]):
        if card_power[attached[g, slot, i]] == SCIONS:
            scions = True
    imago = slots[g, slot] == IMAGO
    total = 0
    for v in range(1, 8):
        n = tcount[g, slot, v - 1] + (1 if v == extra else 0) - (1 if v == removed else 0)
        if scions or (imago and v == 7):  # one hour per fate / The Imago's 7s
            total += n
        else:
            total += n * hours_of[v]
    return total


@_njit
def _fading(s, g, extra_slot, extra, removed_slot, removed):
    """Bit mask of the slots whose card fades at the end of this turn if nothing else
    changes (``knowledge.fading_slots``), with fate ``extra`` added on ``extra_slot``
    and fate ``removed`` taken from ``removed_slot`` (-1: none)."""
    return _fading_with(s, g, extra_slot, extra, removed_slot, removed, -1)


@_njit
def _fading_with(s, g, extra_slot, extra, removed_slot, removed, scion_slot):
    """:func:`_fading` with a Scions card added on ``scion_slot`` (-1: none)."""
    slots, tcount, attached, attached_len, plays, plays_len, fall_fading = s[:7]
    hours_of, card_moons, card_power = s[7:10]
    low_played = False
    for i in range(plays_len[g]):
        if plays[g, i, 0] <= 2:
            low_played = True
    out = 0
    for slot in range(4):
        card = slots[g, slot]
        if card < 0:
            continue
        add = extra if slot == extra_slot else 0
        if card == ASH:
            if low_played or (add != 0 and add <= 2):
                out |= 1 << slot
        elif card == FALL:
            if fall_fading[g] == 1:
                out |= 1 << slot
        else:
            take = removed if slot == removed_slot else 0
            moons = card_moons[card] if card_moons[card] != 0 else 99
            hours = _hours(
                hours_of,
                tcount,
                attached,
                attached_len,
                card_power,
                slots,
                g,
                slot,
                add,
                take,
                slot == scion_slot,
            )
            if hours >= moons:
                out |= 1 << slot
    return out


@_njit
def _doom(s, g, fades) -> int:
    """Doom of the fades ``fades`` without a correct prediction (``knowledge.doom_of_fades``)."""
    slots, attached, attached_len, card_power = s[0], s[2], s[3], s[9]
    amplified = 0
    for slot in range(4):
        if fades >> slot & 1:
            for i in range(attached_len[g, slot]):
                if card_power[attached[g, slot, i]] == SANDS:
                    amplified = 1
    doom = 0
    for slot in range(4):
        if fades >> slot & 1 and slots[g, slot] != BLIND_MAN:
            doom += 2 + amplified
    return doom


@_njit
def _score(s, g, line, kept, counts, fades, doom_weight) -> float:
    """``HeuristicPlayer._score``: the literal posterior of ``kept`` on ``line``, less
    the expected doom of ``fades``."""
    total = 0.0
    ones = 0
    for v in range(7):
        if line >> v & 1:
            total += max(counts[v], 0.0)
            ones += 1
    if total > 0:
        clarity = (max(counts[kept - 1], 0.0) if line >> (kept - 1) & 1 else 0.0) / total
    elif ones > 0:
        clarity = (1.0 if line >> (kept - 1) & 1 else 0.0) / ones
    else:
        clarity = 1 / 7
    doom = _doom(s, g, fades)
    return clarity - doom_weight * doom * (1.0 - clarity)


@_njit
def _values_bits(bonus, op, x) -> int:
    """Bits of the values ``v`` with ``v + bonus < x`` (op 0) or ``> x`` (op 1)."""
    bits = 0
    for v in range(1, 8):
        if (op == 0 and v + bonus < x) or (op == 1 and v + bonus > x):
            bits |= 1 << (v - 1)
    return bits


@_njit
def _play_score(s, c, g, x, y, played, target, counts, doom_weight) -> float:
    """``HeuristicPlayer._play_score`` for the hand ``(x, y)``."""
    slots, tcount = s[0], s[1]
    kept_t, card_kind, feast_done, shadows, lines, active = c[:6]
    vis_mask, vis_sum4 = c[6][g], c[7][g]
    kept = y if x == played else x
    shadow = 1 if shadows[g] else 0
    tracked = lines[g, active[g]]
    condition = _condition(
        kept_t, card_kind, slots, tcount, feast_done, g, shadow, vis_mask, vis_sum4, played, target
    )
    fresh = condition if tracked >> (played - 1) & 1 else 0
    line = fresh | (tracked & condition)
    # the announcements the play triggers (HeuristicPlayer._announced)
    eff = kept + shadow
    landed = _landing(slots, g, target)
    if target != HOURS_TARGET and slots[g, target] == CHALICE:
        bits = 0
        for v in range(1, 8):
            if (v + shadow > played) == (eff > played):
                bits |= 1 << (v - 1)
        line &= bits
    for slot in range(4):
        if slots[g, slot] == FALL:
            total = 0
            for v in range(7):
                total += tcount[g, slot, v] * (v + 1)
            if landed == slot:
                total += played
            bits = 0
            for v in range(1, 8):
                if (total >= 2 * (v + shadow)) == (total >= 2 * eff):
                    bits |= 1 << (v - 1)
            line &= bits
            break
    counts[played - 1] -= 1.0
    fades = _fading(s, g, landed, played if landed >= 0 else 0, -1, 0)
    score = _score(s, g, line, kept, counts, fades, doom_weight)
    counts[played - 1] += 1.0
    return score


@_njit
def _feast_score(s, c, g, x, y, played, counts, unseen, doom_weight) -> float:
    """``HeuristicPlayer._feast_score``: the expected best second play."""
    slots, tcount = s[0], s[1]
    kept_t, card_kind, feast_done, shadows = c[:4]
    vis_mask, vis_sum4 = c[6][g], c[7][g]
    shadow = 1 if shadows[g] else 0
    rest = int(y if x == played else x)
    total = 0.0
    for v in range(7):
        total += unseen[v]
    if total <= 0:
        return -1.0
    expected = 0.0
    for drawn in range(1, 8):
        if unseen[drawn - 1] <= 0:
            continue
        best = -np.inf
        found = False
        for slot in range(4):
            card = slots[g, slot]
            if card < 0 or card == FEAST:
                continue
            for flip in range(2):
                p, k = (drawn, rest) if flip else (rest, drawn)
                cond = _condition(
                    kept_t,
                    card_kind,
                    slots,
                    tcount,
                    feast_done,
                    g,
                    shadow,
                    vis_mask,
                    vis_sum4,
                    p,
                    slot,
                )
                if cond >> (k - 1) & 1:
                    found = True
                    best = max(
                        best, _play_score(s, c, g, rest, drawn, p, slot, counts, doom_weight)
                    )
        if not found:
            best = _play_score(s, c, g, rest, drawn, rest, HOURS_TARGET, counts, doom_weight)
            if drawn != rest:
                other = _play_score(s, c, g, rest, drawn, drawn, HOURS_TARGET, counts, doom_weight)
                best = max(best, other)
        expected += unseen[drawn - 1] / total * best
    return expected - 0.02


@_njit
def _decide(s, c, tabs, g, mask, players, doom_weight, power_margin, counts, unseen) -> int:
    """The heuristic player's action in game ``g`` (see ``HeuristicPlayer.act``)."""
    slots, tcount = s[0], s[1]
    shadows, lines, active = c[3:6]
    (phase, hands, hand_len, exiled, bag_known, old_fate, line_fresh, line_tracked) = tabs[:8]
    events, events_len, events_cur = tabs[8:11]
    action_kind, action_value, action_slot, action_power = tabs[11:15]
    seat = active[g]
    first = -1
    for a in range(NUM_ACTIONS):
        if mask[g, a]:
            first = a
            break
    # copies of each value the group could think the active player holds
    # (knowledge.group_counts), and the ones the player cannot place (view.unseen)
    for v in range(7):
        n = 3 - exiled[g, v] - bag_known[g, v]
        for slot in range(4):
            n -= tcount[g, slot, v]
        counts[v] = n
        unseen[v] = n
    for own in range(seat % players, hands.shape[1], players):
        for i in range(hand_len[g, own]):
            unseen[hands[g, own, i] - 1] -= 1.0
    shadow = 1 if shadows[g] else 0
    p = phase[g]
    if p == PLAY_PHASE:
        x, y = hands[g, seat, 0], hands[g, seat, 1]
        best, best_score = first, -np.inf
        for a in range(NUM_ACTIONS):
            if not mask[g, a] or action_kind[a] != PLAY_KIND:
                continue
            played, target = action_value[a], action_slot[a]
            if target != HOURS_TARGET and slots[g, target] == FEAST:
                score = _feast_score(s, c, g, x, y, played, counts, unseen, doom_weight)
            else:
                score = _play_score(s, c, g, x, y, played, target, counts, doom_weight)
            if score > best_score + 1e-12:
                best, best_score = a, score
        return best
    kept = hands[g, seat, 0]
    line = lines[g, seat]
    if p == STEAL_PHASE:
        fades = _fading(s, g, -1, 0, -1, 0)
        best, best_score = first, -np.inf
        for a in range(NUM_ACTIONS):
            if not mask[g, a] or action_kind[a] != STEAL_KIND:
                continue
            new_line = line & _values_bits(shadow, 0, action_value[a])
            score = _score(s, g, new_line, kept, counts, fades, doom_weight)
            if score > best_score + 1e-12:
                best, best_score = a, score
        return best
    if p == AFTER_PLAY_PHASE:
        fades = _fading(s, g, -1, 0, -1, 0)
        best = PASS
        best_score = _score(s, g, line, kept, counts, fades, doom_weight) + power_margin
        carried = False  # a draw of one fate this turn: the player carried one in
        cur = events_cur[g]
        for i in range(events_len[g, cur]):
            if events[g, cur, i, 0] == DRAW_EVENT and events[g, cur, i, 2] == 1:
                carried = True
        for a in range(NUM_ACTIONS):
            if not mask[g, a]:
                continue
            if action_power[a] == SHELLS:
                fresh = carried and old_fate[g] == 0
                new_line = line_fresh[g] if fresh else line_tracked[g]
                score = _score(s, g, new_line, kept, counts, fades, doom_weight)
            elif action_power[a] == SINNERS:
                value, slot = action_value[a], action_slot[a]
                new_line = line & _values_bits(shadow, 1, value)
                lighter = _fading(s, g, -1, 0, slot, value)
                score = _score(s, g, new_line, kept, counts, lighter, doom_weight)
            else:
                continue
            if score > best_score + 1e-12:
                best, best_score = a, score
        return best
    return PASS if mask[g, PASS] else first


@_njit
def _decide_all(s, c, tabs, games, mask, players, doom_weight, power_margin, out) -> None:
    counts = np.zeros(7)
    unseen = np.zeros(7)
    for i in range(len(games)):
        out[i] = _decide(
            s, c, tabs, games[i], mask, players, doom_weight, power_margin, counts, unseen
        )


def _visible_masks(a: Arrays) -> np.ndarray:
    """int64[N]: bit mask of the distinct fates in front of the slots."""
    return (a.tcount.sum(axis=1) > 0).astype(np.int64) @ (1 << np.arange(7))


def _visible_sums(a: Arrays) -> np.ndarray:
    """int64[N]: the sum of the fates in front of the slots, modulo 4."""
    return (a.tcount.sum(axis=1).astype(np.int64) @ np.arange(1, 8)) & 3


def heuristic_actions(
    arrays: Arrays,
    games: np.ndarray,
    mask: np.ndarray,
    doom_weight: float = _DEFAULT.doom_weight,
    power_margin: float = _DEFAULT.power_margin,
) -> np.ndarray:
    """The heuristic player's action in each game ``games`` of ``arrays``.

    Args:
        arrays: the games (``VectorGame.arrays``); only read.
        games: int[K] indexes of games whose decider is the active player.
        mask: bool[N, 259]: each game's legal actions (``VectorGame.legal_mask``).
        doom_weight, power_margin: as ``HeuristicPlayer``'s.

    Returns:
        int64[K]: one legal action per game.

    Raises:
        ValueError: a game's decider is not its active player (the heuristic plays only).
        IllegalActionError: an action is not legal (the kernel and the engine disagree).
    """
    a = arrays
    games = np.ascontiguousarray(games, np.int64)
    players = a.config.num_players
    decider = a.decider[games].astype(np.int64)
    wrong = games[decider != a.active[games].astype(np.int64) % players]
    if len(wrong):
        raise ValueError(
            f"games {wrong.tolist()} wait for a group decision; allowed: games whose "
            "decider is the active player (the heuristic player decides only as the player)"
        )
    # The kernels take the arrays in three tuples (numba passes a tuple as one
    # argument): ``s`` the table as fading and doom read it, ``c`` what a play's
    # condition and number line read, ``tabs`` the rest of the decision.
    s = (
        a.slots, a.tcount, a.attached, a.attached_len, a.plays, a.plays_len, a.fall_fading,
        t.HOURS_OF, t.CARD_MOONS, t.CARD_POWER_OF,
    )  # fmt: skip
    c = (
        t.KEPT, t.CARD_KIND, a.feast_done, a.shadows, a.lines, a.active,
        _visible_masks(a), _visible_sums(a),
    )  # fmt: skip
    tabs = (
        a.phase, a.hands, a.hand_len, a.exiled, a.bag_known, a.old_fate, a.line_fresh,
        a.line_tracked, a.events, a.events_len, a.events_cur,
        t.ACTION_KIND, t.ACTION_VALUE, t.ACTION_SLOT, t.ACTION_POWER,
    )  # fmt: skip
    out = np.empty(len(games), np.int64)
    _decide_all(s, c, tabs, games, mask, players, float(doom_weight), float(power_margin), out)
    bad = ~mask[games, out]
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise IllegalActionError(
            f"the batched heuristic chose action {int(out[k])} in game {int(games[k])}, "
            f"which is not legal; legal: {np.flatnonzero(mask[games[k]]).tolist()}"
        )
    return out
