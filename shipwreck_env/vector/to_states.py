"""From the batched :class:`~shipwreck_env.vector.arrays.Arrays` back to reference
:class:`~shipwreck_env.rules.state.State` objects: :func:`to_states`.

The other direction, :func:`~shipwreck_env.vector.convert.from_states`, and the one
encoding of event rows that both directions share (``encode_event`` /
``decode_event``) live in :mod:`shipwreck_env.vector.convert`; this module only reads
arrays, so it depends on that one and not the reverse. The states it builds equal,
slot for slot, the ones that were packed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shipwreck_env.rules.cards import POWERS
from shipwreck_env.rules.state import State
from shipwreck_env.vector.arrays import Arrays
from shipwreck_env.vector.convert import EVENT_ROW_WIDTH, decode_event

__all__ = ["to_states"]

_AS_STORED = (
    *("slots", "sands_waiting", "bag", "bag_known", "exiled", "lines", "score", "doom"),
    *("turn", "over", "won", "truncated", "active", "phase", "decider", "power_used"),
    *("shadows", "feast_done", "old_fate", "played_old", "tracked", "line_fresh"),
    *("line_tracked", "kept_eff", "preds_left", "correct", "fall_kept", "fall_fading"),
    "ash_trigger",
)
"""``State`` fields whose value is the array of the same name as it stands (its
``tolist()``: Python ints, and bools for the bool arrays)."""
_CUT = {
    "faded": "faded_len",
    "predictions": "pred_len",
    "votes": "votes_len",
    "turn_actions": "turn_actions_len",
}
"""``State`` list fields stored as a padded row and a length."""
_EVENT_DTYPE = np.dtype(np.int16)  # as Arrays stores the rows
_ROW_KEY = np.dtype((np.void, EVENT_ROW_WIDTH * _EVENT_DTYPE.itemsize))  # one event row's bytes


def to_states(arr: Arrays, games: Sequence[int] | None = None) -> list[State]:
    """Reference states of ``games`` (default: every game), in that order.

    Built a field at a time over all the games: each array is read once (the padded
    ones only as far as the games' longest entry) and each distinct event row is
    decoded once per process (:func:`~shipwreck_env.vector.convert.decode_event`
    depends on the row alone), so that converting every game after every step stays
    cheap.
    """
    games = list(range(arr.num_games)) if games is None else [int(g) for g in games]
    if not games:
        return []
    first, last = games[0], games[0] + len(games)
    if first >= 0 and last <= arr.num_games and games == list(range(first, last)):
        pick: slice | np.ndarray = slice(first, last)  # a view: no copy
    else:
        pick = np.asarray(games, np.intp)

    def read(name: str) -> np.ndarray:
        return getattr(arr, name)[pick]

    fields = {name: read(name).tolist() for name in _AS_STORED}
    for name, length in _CUT.items():
        fields[name] = _prefixes(read(name), read(length))
    fields["deck"] = _decks(read("deck"), read("deck_head"), read("deck_len"))
    fields["queue"] = [
        q[a:b]
        for q, a, b in zip(
            *(read(n).tolist() for n in ("queue", "queue_pos", "queue_len")), strict=True
        )
    ]
    for name in ("table", "attached", "hands"):
        length = "hand_len" if name == "hands" else f"{name}_len"
        fields[name] = _grouped(_prefixes(read(name), read(length)), read(length).shape[1])
    fields["plays"] = [
        [tuple(p) for p in plays[:n]]
        for plays, n in zip(read("plays").tolist(), read("plays_len").tolist(), strict=True)
    ]
    fields["pending"] = [
        () if power < 0 else (POWERS[power].id, None if slot < 0 else slot, value or None)
        for power, slot, value in zip(
            *(read(n).tolist() for n in ("pending_power", "pending_slot", "pending_value")),
            strict=True,
        )
    ]
    events = _grouped(_event_lists(read("events"), read("events_len")), 2)
    cur = read("events_cur").tolist()
    fields["events"] = [pair[c] for pair, c in zip(events, cur, strict=True)]
    fields["last_events"] = [pair[1 - c] for pair, c in zip(events, cur, strict=True)]
    fields["turn_start"] = _turn_starts(arr, games, pick)
    names = list(fields)
    config = arr.config
    return [
        State(config, **dict(zip(names, values, strict=True)))
        for values in zip(*fields.values(), strict=True)
    ]


def _prefixes(values: np.ndarray, lengths: np.ndarray) -> list[list]:
    """Per entry of ``lengths`` (any shape, flattened): the first ``length`` items of the
    matching row of ``values`` (shape ``lengths.shape + (capacity,)``)."""
    counts = lengths.ravel().tolist()
    width = max(counts, default=0)
    flat = values[..., :width].ravel().tolist()
    return [flat[i * width : i * width + n] for i, n in enumerate(counts)]


def _grouped(items: list, size: int) -> list[list]:
    """``items`` in consecutive groups of ``size``."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def _decks(ring: np.ndarray, head: np.ndarray, length: np.ndarray) -> list[list[int]]:
    """Each game's deck, top first, from its ring (see ``Arrays.deck``)."""
    m = ring.shape[1]
    return [
        cards[h : min(m, h + n)] + cards[: max(0, h + n - m)]
        for cards, h, n in zip(ring.tolist(), head.tolist(), length.tolist(), strict=True)
    ]


def _event_lists(rows: np.ndarray, lengths: np.ndarray) -> list[list[tuple]]:
    """Per buffer (``lengths`` flattened): its event tuples. Each row is read as one
    ``bytes`` key and decoded through :data:`_DECODED`."""
    keys = np.ascontiguousarray(rows, _EVENT_DTYPE).view(_ROW_KEY)[..., 0]
    decoded = _DECODED.__getitem__
    return [list(map(decoded, buffer)) for buffer in _prefixes(keys, lengths)]


_TS_FIELDS = (
    *("ts_slots", "ts_table", "ts_table_len", "ts_attached", "ts_attached_len", "ts_sands"),
    *("ts_faded", "ts_faded_len", "ts_deck_top", "ts_deck_len", "ts_exiled", "ts_lines"),
    *("ts_hand_len", "ts_score", "ts_doom", "ts_turn"),
)
"""The arrays of the turn's public start: everything ``State.turn_start`` is made of."""
_TURN_STARTS: dict[bytes, tuple] = {}
"""``turn_start`` tuples already built, by the bytes of their games' ``ts_*`` entries: a
turn's start stays the same for all its steps, and the tuples are immutable."""


def _turn_starts(arr: Arrays, games: list[int], pick: slice | np.ndarray) -> list[tuple]:
    """Each game's ``turn_start`` tuple (``turn_start.public_snapshot``), built only for
    the starts not seen before (``pick`` selects ``games`` in the arrays)."""
    parts = [np.ascontiguousarray(getattr(arr, name)[pick]) for name in _TS_FIELDS]
    raw = np.concatenate([p.reshape(len(p), -1).view(np.uint8) for p in parts], axis=1)
    keys = raw.view(np.dtype((np.void, raw.shape[1])))[:, 0].tolist()  # one per game
    out = []
    for g, key in zip(games, keys, strict=True):
        start = _TURN_STARTS.get(key)
        if start is None:
            if len(_TURN_STARTS) >= 1 << 14:  # stay bounded
                _TURN_STARTS.clear()
            start = _TURN_STARTS[key] = _turn_start(arr, g)
        out.append(start)
    return out


def _turn_start(arr: Arrays, g: int) -> tuple:
    """Game ``g``'s ``turn_start`` tuple, read from the ``ts_*`` arrays."""
    table_len, attached_len = arr.ts_table_len[g].tolist(), arr.ts_attached_len[g].tolist()
    return (
        tuple(arr.ts_slots[g].tolist()),
        tuple(tuple(arr.ts_table[g, k, :n].tolist()) for k, n in enumerate(table_len)),
        tuple(tuple(arr.ts_attached[g, k, :n].tolist()) for k, n in enumerate(attached_len)),
        tuple(arr.ts_sands[g].tolist()),
        tuple(arr.ts_faded[g, : int(arr.ts_faded_len[g])].tolist()),
        int(arr.ts_deck_top[g]),
        int(arr.ts_deck_len[g]),
        tuple(arr.ts_exiled[g].tolist()),
        tuple(arr.ts_lines[g].tolist()),
        tuple(arr.ts_hand_len[g].tolist()),
        int(arr.ts_score[g]),
        int(arr.ts_doom[g]),
        int(arr.ts_turn[g]),
    )


class _Decoded(dict):
    """Event rows already decoded, by their bytes: a row seen before costs one lookup
    (event tuples are immutable, so states may share them)."""

    def __missing__(self, row: bytes) -> tuple:
        if len(self) >= 1 << 16:  # rows of arrays filled by hand: stay bounded
            self.clear()
        event = self[row] = decode_event(np.frombuffer(row, _EVENT_DTYPE))
        return event


_DECODED = _Decoded()
