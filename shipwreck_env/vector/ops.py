"""The batched engine's list operations on one game ``g`` of the arrays: the reference
engine's ``append``, ``pop``, ``remove`` and ``clear`` on its lists (the deck, each
slot's fates, faded cards, events), keeping every ordered list and its counts in step,
and the reads every part of the turn shares (where a card is, the sum in front of a
slot).

Every function is compiled (see :mod:`shipwreck_env.vector.jit`) and takes ``s`` (the
game arrays), ``r`` (the rules' tables) where it needs them, and the game ``g``.
"""

from __future__ import annotations

from shipwreck_env.vector.arrays import EVENT, EVENT_CAPACITY
from shipwreck_env.vector.jit import copy_row_bytes, prefetch, rule

__all__ = [
    "attach",
    "copy_row",
    "deck_append",
    "deck_pop",
    "deck_top",
    "detach_to_deck",
    "event",
    "fade_card",
    "prefetch_game",
    "slot_of",
    "table_append",
    "table_clear",
    "table_remove",
    "table_sum",
]

# event kind codes (arrays.EVENT_KINDS), as compiled constants
DRAW = EVENT["draw"]
TABLE_TO_BAG = EVENT["table_to_bag"]
EXILED_TO_BAG = EVENT["exiled_to_bag"]
PLAY = EVENT["play"]
CHALICE_EVENT = EVENT["chalice"]
POWER_EVENT = EVENT["power"]
REVEAL_EVENT = EVENT["reveal"]
VOTE_EVENT = EVENT["vote"]
PREDICT_EVENT = EVENT["predict"]
RESOLVE_EVENT = EVENT["resolve"]
FADE_EVENT = EVENT["fade"]
REFILL_EVENT = EVENT["refill"]
FEAST_DRAW_EVENT = EVENT["feast_draw"]
STEAL_EVENT = EVENT["steal"]
FALL_EVENT = EVENT["fall"]
ATTACH_EVENT = EVENT["attach"]
COST_EVENT = EVENT["cost"]
EXILE_EVENT = EVENT["exile"]


@rule
def event(s, g, kind, a, b, c, d) -> None:
    """Record an event of code ``kind`` with fields ``a .. d`` (-1 for none) in this
    turn's list."""
    cur = s.events_cur[g]
    n = s.events_len[g, cur]
    if n >= EVENT_CAPACITY:
        raise RuntimeError("a turn recorded more events than arrays.EVENT_CAPACITY")
    row = s.events[g, cur, n]
    row[0] = kind
    row[1] = a
    row[2] = b
    row[3] = c
    row[4] = d
    s.events_len[g, cur] = n + 1


@rule
def table_append(s, g, slot, value) -> None:
    """Put fate ``value`` in front of ``slot`` (after the fates already there)."""
    n = s.table_len[g, slot]
    s.table[g, slot, n] = value
    s.table_len[g, slot] = n + 1
    s.tcount[g, slot, value - 1] += 1


@rule
def table_remove(s, g, slot, value) -> None:
    """Take the first fate ``value`` from the front of ``slot`` (it must be there)."""
    row = s.table[g, slot]
    n = s.table_len[g, slot]
    i = 0
    while row[i] != value:
        i += 1
    for j in range(i, n - 1):
        row[j] = row[j + 1]
    row[n - 1] = 0
    s.table_len[g, slot] = n - 1
    s.tcount[g, slot, value - 1] -= 1


@rule
def table_sum(s, g, slot) -> int:
    """Sum of the fates in front of ``slot``."""
    total = 0
    for v in range(7):
        total += s.tcount[g, slot, v] * (v + 1)
    return total


@rule
def slot_of(s, g, card) -> int:
    """The slot holding ``card``, -1 if it is not in play."""
    for slot in range(4):
        if s.slots[g, slot] == card:
            return slot
    return -1


@rule
def table_clear(s, g, slot) -> None:
    """Take every fate from the front of ``slot``."""
    s.table[g, slot, :] = 0
    s.table_len[g, slot] = 0
    s.tcount[g, slot, :] = 0


@rule
def deck_top(s, g) -> int:
    """The top card of the deck, -1 for an empty deck."""
    if s.deck_len[g] <= 0:
        return -1
    return s.deck[g, s.deck_head[g] % s.deck.shape[1]]


@rule
def deck_pop(s, g) -> int:
    """Take the top card of the deck (it must hold one)."""
    m = s.deck.shape[1]
    head = s.deck_head[g] % m
    card = s.deck[g, head]
    s.deck[g, head] = -1
    s.deck_head[g] = (head + 1) % m
    s.deck_len[g] -= 1
    return card


@rule
def deck_append(s, g, card) -> None:
    """Put ``card`` at the bottom of the deck."""
    m = s.deck.shape[1]
    n = s.deck_len[g]
    s.deck[g, (s.deck_head[g] + n) % m] = card
    s.deck_len[g] = n + 1


@rule
def attach(s, g, slot, card) -> None:
    """Attach ``card`` (Scions or Sands) to the card on ``slot``, after those there."""
    n = s.attached_len[g, slot]
    s.attached[g, slot, n] = card
    s.attached_len[g, slot] = n + 1


@rule
def detach_to_deck(s, g, slot) -> None:
    """The card on ``slot`` leaves play: its attached cards go under the deck, in order."""
    for i in range(s.attached_len[g, slot]):
        deck_append(s, g, s.attached[g, slot, i])
        s.attached[g, slot, i] = -1
    s.attached_len[g, slot] = 0


@rule
def fade_card(s, r, g, card) -> None:
    """Add ``card`` to the faded cards (its power becomes available)."""
    n = s.faded_len[g]
    s.faded[g, n] = card
    s.faded_len[g] = n + 1
    s.fcount[g, r.card_power[card]] += 1


@rule
def copy_row(dst, src, g) -> None:
    """``dst[g] = src[g]`` for two of the batch's arrays with the same row shape, as one
    copy of the row's bytes (``jit.copy_row_bytes``; numpy's slice assignment would make
    a temporary copy, and the rules allocate nothing)."""
    copy_row_bytes(dst, src, g)


PREFETCH_AHEAD = 16
"""How many games ahead of the one it works on a batched pass asks for the next game's
rows (:func:`prefetch_game`)."""


@rule
def prefetch_game(s, g) -> None:
    """Ask the CPU for the cache lines that a decision in game ``g`` (the rest of its
    turn included) reads or writes in the arrays wider than a few bytes a game. It
    changes nothing; ``engine.step_games`` calls it for the game ``PREFETCH_AHEAD``
    places on, so that game's rows arrive while the step works on earlier ones: the
    batch's arrays outgrow the cache from a few thousand games, a turn writes its events
    and actions at places that differ from game to game, and there are more arrays than
    the CPU follows as streams by itself. (The legal masks and the observations read
    fewer arrays, in order, and measured no faster with it.)"""
    cur = s.events_cur[g]
    prefetch(s.events[g, cur], s.events_len[g, cur])
    prefetch(s.turn_actions[g], s.turn_actions_len[g])
    prefetch(s.table, g)
    prefetch(s.ts_table, g)
    prefetch(s.tcount, g)
    prefetch(s.deck, g)
    prefetch(s.hands, g)
    prefetch(s.slots, g)
    prefetch(s.faded, g)
    prefetch(s.ts_faded, g)
    prefetch(s.fcount, g)
    prefetch(s.queue, g)
    prefetch(s.plays, g)
    prefetch(s.table_len, g)
    prefetch(s.bag, g)
    prefetch(s.lines, g)
    prefetch(s.ann_reveal, g)
