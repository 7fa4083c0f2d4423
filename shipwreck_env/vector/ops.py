"""The batched engine's list operations: the reference engine's ``append``, ``pop``,
``remove`` and ``clear`` on its lists (the deck, each slot's fates, hands, faded cards,
events), done at once for a set of games on the padded arrays of
:class:`~shipwreck_env.vector.arrays.Arrays`.

Every function takes ``g``, an int64 array of distinct game indexes, and arrays of the
same length for the arguments; each keeps the ordered list and its counts in step.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.vector.arrays import EVENT, Arrays
from shipwreck_env.vector.tables import BIT, CARD_POWER_OF

__all__ = [
    "Pending",
    "constrain_kept",
    "deck_append",
    "deck_pop",
    "deck_top",
    "event",
    "events_at",
    "real_mask",
    "table_append",
    "table_clear",
    "table_remove",
    "take_power",
]

_VALUES = np.arange(1, 8, dtype=np.int8)


def table_append(a: Arrays, g: np.ndarray, slot: np.ndarray, value: np.ndarray) -> None:
    """Put fate ``value`` in front of ``slot`` (after the fates already there)."""
    n = a.table_len[g, slot]
    a.table[g, slot, n] = value
    a.table_len[g, slot] = n + 1
    a.tcount[g, slot, value - 1] += 1


def _without(rows: np.ndarray, index: np.ndarray, length: np.ndarray, fill: int) -> np.ndarray:
    """``rows`` ([n, K] padded lists of ``length`` items) with item ``index`` of each
    removed: later items move one place left, and ``fill`` pads the end."""
    k = np.arange(rows.shape[1])
    source = np.minimum(k[None, :] + (k[None, :] >= index[:, None]), rows.shape[1] - 1)
    out = np.take_along_axis(rows, source, axis=1)
    out[k[None, :] >= (length - 1)[:, None]] = fill
    return out


def table_remove(a: Arrays, g: np.ndarray, slot: np.ndarray, value: np.ndarray) -> None:
    """Take the first fate ``value`` from the front of ``slot`` (it must be there)."""
    rows = a.table[g, slot]  # [n, K]
    n = a.table_len[g, slot]
    a.table[g, slot] = _without(rows, np.argmax(rows == value[:, None], axis=1), n, 0)
    a.table_len[g, slot] = n - 1
    a.tcount[g, slot, value - 1] -= 1


def table_clear(a: Arrays, g: np.ndarray, slot: np.ndarray) -> None:
    """Take every fate from the front of ``slot``."""
    a.table[g, slot] = 0
    a.table_len[g, slot] = 0
    a.tcount[g, slot] = 0


def deck_top(a: Arrays, g: np.ndarray) -> np.ndarray:
    """The top card of each deck, -1 for an empty deck."""
    top = a.deck[g, a.deck_head[g]]
    return np.where(a.deck_len[g] > 0, top, -1).astype(np.int8)


def deck_pop(a: Arrays, g: np.ndarray) -> np.ndarray:
    """Take the top card of each deck (every deck must hold one)."""
    head = a.deck_head[g]
    card = a.deck[g, head]
    a.deck[g, head] = -1
    a.deck_head[g] = (head + 1) % a.num_cards
    a.deck_len[g] -= 1
    return card


def deck_append(a: Arrays, g: np.ndarray, card: np.ndarray) -> None:
    """Put ``card`` at the bottom of each deck."""
    n = a.deck_len[g]
    a.deck[g, (a.deck_head[g] + n) % a.num_cards] = card
    a.deck_len[g] = n + 1


def take_power(a: Arrays, g: np.ndarray, power: np.ndarray) -> np.ndarray:
    """Remove and return the earliest-faded card offering ``power`` (it must be there)."""
    rows = a.faded[g]  # [n, M]
    first = np.argmax(CARD_POWER_OF[rows] == power[:, None], axis=1)
    card = rows[np.arange(len(g)), first]
    n = a.faded_len[g]
    a.faded[g] = _without(rows, first, n, -1)
    a.faded_len[g] = n - 1
    a.fcount[g, power] -= 1
    return card


def fade_card(a: Arrays, g: np.ndarray, card: np.ndarray) -> None:
    """Add ``card`` to the faded cards (its power becomes available)."""
    n = a.faded_len[g]
    a.faded[g, n] = card
    a.faded_len[g] = n + 1
    a.fcount[g, CARD_POWER_OF[card]] += 1


def event(a: Arrays, g: np.ndarray, kind: str, *fields: np.ndarray | int) -> None:
    """Record an event of ``kind`` (see ``arrays.EVENT_KINDS``) in this turn's list."""
    events_at(a, g, 0, kind, *fields)
    a.events_len[g, a.events_cur[g]] += 1


def events_at(
    a: Arrays, g: np.ndarray, offset: np.ndarray | int, kind: str, *fields: np.ndarray | int
) -> None:
    """Write events of ``kind`` at ``offset`` places past the end of this turn's list
    (``g`` may repeat a game with different offsets); the caller then adds the number
    written per game to ``events_len``."""
    cur = a.events_cur[g]
    rows = a.events.reshape(-1, a.events.shape[-1])
    flat = (g * 2 + cur) * a.events.shape[2] + a.events_len[g, cur] + offset
    row = np.full((len(g), rows.shape[1]), -1, rows.dtype)
    row[:, 0] = EVENT[kind]
    for i, f in enumerate(fields):
        row[:, i + 1] = f
    rows[flat] = row


class Pending:
    """What the turn does next in each game once this step's actions are applied.

    The rules mark games here instead of calling the next part of the turn at once, so
    that each part runs once per step for all the games that reach it, in the turn's
    order (see ``engine.step``)."""

    __slots__ = ("end", "group", "predict", "reveal", "value", "vote")

    def __init__(self, n: int) -> None:
        self.predict = np.zeros(n, bool)
        """Predict ``value`` now (a leader's prediction or a vote's majority)."""
        self.value = np.zeros(n, np.int8)
        self.reveal = np.zeros(n, bool)
        """The plays are over: ask for reveals."""
        self.group = np.zeros(n, bool)
        """The group decides (powers, then a prediction or a vote)."""
        self.vote = np.zeros(n, bool)
        """A vote round starts."""
        self.end = np.zeros(n, bool)
        """The predictions are over: resolve and end the turn."""


def real_mask(a: Arrays, g: np.ndarray, holds: np.ndarray) -> np.ndarray:
    """Mask of real kept values ``k`` whose effective value (Shadows: +1) makes
    ``holds`` true; ``holds`` is bool[n, 9] indexed by effective value 0..8."""
    eff = _VALUES[None, :] + a.shadows[g, None].astype(np.int8)  # [n, 7]
    bits = np.take_along_axis(holds, eff.astype(np.int64), axis=1)
    return (bits * BIT[None, :]).sum(axis=1, dtype=np.uint8)


def constrain_kept(a: Arrays, g: np.ndarray, mask: np.ndarray) -> None:
    """A public fact: the active seat's kept fate has a real value in ``mask``."""
    mask = mask.astype(np.uint8)
    a.line_fresh[g] &= mask
    a.line_tracked[g] &= mask
    a.lines[g, a.active[g]] &= mask
