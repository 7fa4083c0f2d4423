"""Save a game to JSON and load it back to the identical state ("take a break").

The file holds a format tag and version, the configuration, every state field and,
optionally, the random generator's state so that a loaded game continues with the same
draws. Loading checks everything before building anything: a corrupt, tampered or
mismatched file raises :class:`SaveGameError` naming what is wrong, never a half-loaded
state.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from shipwreck_env.rules.cards import CARDS, FATE_COPIES, NUM_CARDS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.state import PHASES, State

__all__ = ["FORMAT", "VERSION", "SaveGameError", "dumps", "loads"]

FORMAT = "shipwreck-arcana-save"
VERSION = 1

_INT_FIELDS = (
    "score",
    "doom",
    "turn",
    "active",
    "phase",
    "decider",
    "old_fate",
    "tracked",
    "line_fresh",
    "line_tracked",
    "kept_eff",
    "preds_left",
    "fall_kept",
    "fall_fading",
)
_BOOL_FIELDS = (
    "over",
    "won",
    "truncated",
    "power_used",
    "shadows",
    "feast_done",
    "played_old",
    "correct",
    "ash_trigger",
)
_INT_LIST_FIELDS = (
    "deck",
    "slots",
    "sands_waiting",
    "faded",
    "bag_known",
    "bag",
    "exiled",
    "lines",
    "queue",
    "predictions",
    "votes",
    "turn_actions",
)
_NESTED_FIELDS = ("table", "attached", "hands")
_TUPLE_FIELDS = ("plays", "events", "last_events", "pending", "turn_start")


class SaveGameError(ValueError):
    """A saved game that cannot be loaded exactly."""


def dumps(state: State, rng: np.random.Generator | None = None) -> str:
    """The game as a JSON string; with ``rng``, its generator state too."""
    fields = {name: getattr(state, name) for name in State.__slots__ if name != "config"}
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "config": state.config.to_dict(),
        "state": fields,
        "rng": None,
    }
    if rng is not None:
        data["rng"] = rng.bit_generator.state
    return json.dumps(data, sort_keys=True)


def loads(text: str) -> tuple[State, np.random.Generator | None]:
    """Rebuild a game saved by :func:`dumps`: ``(state, rng or None)``.

    Raises:
        SaveGameError: the text is not a saved game of this format and version, or any
            field is missing, unknown, of the wrong type, or breaks an invariant of the
            game (21 fate tokens, each card exactly once, ...).
    """
    try:
        data = json.loads(text)
    except (TypeError, json.JSONDecodeError) as exc:
        raise SaveGameError(f"saved game is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveGameError(f"saved game format must be {FORMAT!r}")
    if type(data.get("version")) is not int or data.get("version") != VERSION:
        raise SaveGameError(
            f"saved game version {data.get('version')!r} is not supported; allowed: {VERSION}"
        )
    extra = set(data) - {"format", "version", "config", "state", "rng"}
    if extra:
        raise SaveGameError(f"saved game has unknown top-level keys {sorted(extra)}")
    try:
        config = GameConfig.from_dict(data.get("config"))
    except (TypeError, ValueError) as exc:
        raise SaveGameError(f"saved game config is invalid: {exc}") from None
    state = _build_state(config, data.get("state"))
    _check_invariants(state)
    rng = _build_rng(data.get("rng"))
    return state, rng


def _fail(field: str, value: object, expected: str) -> SaveGameError:
    return SaveGameError(f"saved game field {field!r} = {value!r}: expected {expected}")


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _as_tuple(x: object) -> object:
    if isinstance(x, list):
        return tuple(_as_tuple(item) for item in x)
    return x


def _build_state(config: GameConfig, fields: object) -> State:
    if not isinstance(fields, dict):
        raise _fail("state", fields, "a mapping of field names to values")
    expected = set(State.__slots__) - {"config"}
    missing, unknown = expected - set(fields), set(fields) - expected
    if missing or unknown:
        raise SaveGameError(
            f"saved game state fields do not match: missing {sorted(missing)}, "
            f"unknown {sorted(unknown)}"
        )
    for name in _INT_FIELDS:
        if not _is_int(fields[name]):
            raise _fail(name, fields[name], "an integer")
    for name in _BOOL_FIELDS:
        if not isinstance(fields[name], bool):
            raise _fail(name, fields[name], "true or false")
    for name in _INT_LIST_FIELDS:
        value = fields[name]
        if not isinstance(value, list) or not all(_is_int(x) for x in value):
            raise _fail(name, value, "a list of integers")
    for name in _NESTED_FIELDS:
        value = fields[name]
        if not isinstance(value, list) or not all(
            isinstance(row, list) and all(_is_int(x) for x in row) for row in value
        ):
            raise _fail(name, value, "a list of lists of integers")
    for name in _TUPLE_FIELDS:
        if not isinstance(fields[name], list):
            raise _fail(name, fields[name], "a list")
    if len(fields["turn_start"]) != 13:
        raise _fail("turn_start", fields["turn_start"], "the 13 parts of a public snapshot")
    for play in fields["plays"]:
        if not (isinstance(play, list) and len(play) == 3 and all(_is_int(x) for x in play)):
            raise _fail("plays", fields["plays"], "a list of [value, target, landed slot]")
    for name in ("events", "last_events"):
        for event in fields[name]:
            if not (isinstance(event, list) and event and isinstance(event[0], str)):
                raise _fail(name, fields[name], "a list of events [kind, ...]")
    values = {}
    for name in expected:
        value = fields[name]
        if name in ("plays", "events", "last_events"):
            value = [_as_tuple(item) for item in value]
        elif name in ("pending", "turn_start"):
            value = _as_tuple(value)
        elif name in _NESTED_FIELDS:
            value = [list(row) for row in value]
        values[name] = value
    return State(config, **values)


def _check_invariants(s: State) -> None:
    seats = s.config.num_seats
    if len(s.hands) != seats or len(s.lines) != seats:
        raise _fail("hands", s.hands, f"{seats} seats for this config")
    for name in ("slots", "sands_waiting"):
        if len(getattr(s, name)) != 4:
            raise _fail(name, getattr(s, name), "4 entries")
    for name in ("table", "attached"):
        if len(getattr(s, name)) != 4:
            raise _fail(name, getattr(s, name), "4 lists")
    for name in ("bag", "bag_known", "exiled"):
        value = getattr(s, name)
        if len(value) != 7 or min(value) < 0:
            raise _fail(name, value, "7 counts >= 0")
    fates = [0] * 7
    for i in range(7):
        fates[i] += s.bag[i] + s.exiled[i]
    for row in (*s.table, *s.hands):
        for v in row:
            if not 1 <= v <= 7:
                raise _fail("fate", v, "a value 1..7")
            fates[v - 1] += 1
    if fates != [FATE_COPIES] * 7:
        raise SaveGameError(
            f"saved game fate tokens by value {fates}: expected {FATE_COPIES} of each value"
        )
    if any(known > n for known, n in zip(s.bag_known, s.bag, strict=True)):
        raise _fail("bag_known", s.bag_known, "no more than the bag holds of each value")
    for hand in s.hands:
        if len(hand) > 2:
            raise _fail("hands", s.hands, "at most 2 fates per seat")
    for line in s.lines:
        if not 1 <= line <= 127:
            raise _fail("lines", s.lines, "number line masks 1..127")
    cards = [c for c in (*s.deck, *s.slots, *s.sands_waiting, *s.faded) if c != -1]
    cards += [c for row in s.attached for c in row]
    if any(not 0 <= c < NUM_CARDS for c in cards):
        raise _fail("cards", cards, f"card numbers 0..{NUM_CARDS - 1}")
    in_sets = sorted(i for i, card in enumerate(CARDS) if card.set in s.config.card_sets)
    if sorted(cards) != in_sets:
        raise SaveGameError(
            "saved game cards do not match the config's card sets: each card of "
            f"{list(s.config.card_sets)} must appear exactly once"
        )
    if not 0 <= s.phase < len(PHASES):
        raise _fail("phase", s.phase, f"0..{len(PHASES) - 1}")
    if not 0 <= s.active < seats:
        raise _fail("active", s.active, f"a seat 0..{seats - 1}")
    if s.over != (s.decider == -1) or not -1 <= s.decider < s.config.num_players:
        raise _fail("decider", s.decider, "a player number, or -1 exactly when the game is over")
    if s.pending and (len(s.pending) != 3 or s.pending[0] not in ("sails", "scythes")):
        raise _fail("pending", s.pending, "empty, or a sails/scythes use")


def _build_rng(data: object) -> np.random.Generator | None:
    if data is None:
        return None
    if not isinstance(data, dict) or data.get("bit_generator") != "PCG64":
        raise _fail("rng", data, "null or a PCG64 generator state")
    bit_generator = np.random.PCG64()
    try:
        bit_generator.state = data
    except (TypeError, ValueError, KeyError) as exc:
        raise _fail("rng", data, f"a PCG64 generator state ({exc})") from None
    return np.random.Generator(bit_generator)
