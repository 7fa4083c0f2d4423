"""Conversion between reference :class:`~shipwreck_env.rules.state.State` objects and the
batched :class:`~shipwreck_env.vector.arrays.Arrays`: packing, and the event encoding.

:func:`from_states` packs games into one ``Arrays`` (checking that the arrays can hold
them exactly). The way back, :func:`~shipwreck_env.vector.to_states.to_states`, lives in
its own module, :mod:`shipwreck_env.vector.to_states`, which builds on this one. Both
directions use :func:`encode_event` / :func:`decode_event`, the one definition of how an
event tuple is stored as a row of ``Arrays.events``; the batched engine writes its rows
with exactly this encoding.

Event rows
    Each event is a row of 5 integers: the kind code (index in
    ``arrays.EVENT_KINDS``), then the fields of the reference tuple in order, padded
    with -1. Booleans are 0/1, card ids (strings ``CARDS[card].id``) are card numbers::

        ("draw", seat, drawn)            -> (DRAW, seat, drawn, -1, -1)
        ("table_to_bag", returned)       -> (TABLE_TO_BAG, returned, -1, -1, -1)
        ("exiled_to_bag", total)         -> (EXILED_TO_BAG, total, -1, -1, -1)
        ("play", value, target, landed)  -> (PLAY, value, target, landed, -1)
        ("chalice", higher)              -> (CHALICE, higher 0/1, -1, -1, -1)
        ("reveal", seat, value)          -> (REVEAL, seat, value, -1, -1)
        ("vote", player, value)          -> (VOTE, player, value (0 = pass), -1, -1)
        ("predict", value, correct)      -> (PREDICT, value, correct 0/1, -1, -1)
        ("resolve", correct)             -> (RESOLVE, correct 0/1, -1, -1, -1)
        ("fade", slot, card_id)          -> (FADE, slot, card, -1, -1)
        ("refill", slot, card_id)        -> (REFILL, slot, card, -1, -1)
        ("feast_draw", seat)             -> (FEAST_DRAW, seat, -1, -1, -1)
        ("steal", slot, value)           -> (STEAL, slot, value, -1, -1)  (-1, 0: nothing)
        ("fall", fading)                 -> (FALL, fading 0/1, -1, -1, -1)
        ("attach", "sands", slot)        -> (ATTACH, slot, -1, -1, -1)
        ("cost", power_id)               -> (COST, power, -1, -1, -1)
        ("exile", slot, value)           -> (EXILE, slot, value, -1, -1)

    (``play``'s ``landed`` may itself be -1: the fixed arity of each kind tells padding
    from values.) Power events ``("power", power_id, arg, answer)`` are stored as
    ``(POWER, power number, a, b, c)``::

        saints, storms, shackles, shells
                  (x, answer)               -> a = x, b = -1, c = answer 0/1
        secrets, songs, spires, swords, scythes
                  (None, answer)            -> a = -1, b = -1, c = answer 0/1
        sorrows, shadows
                  (None, None)              -> a = b = c = -1
        sinners   ((slot, value), None)     -> a = slot, b = value, c = -1
        skies     ((slot, value, to), None) -> a = slot, b = value, c = to
        scions    (slot, None)              -> a = slot, b = c = -1
        sparrows  (slot, (old_id, new_id))  -> a = slot, b = old card, c = new card

    (Sails has no power event: its use shows as the ``cost`` and ``exile`` events.)

Announcements
    ``ann_*`` hold what the observation reads of this turn's events (see
    :func:`announcements`): a power event sets ``ann_power`` (power number),
    ``ann_value`` (the value argument of Saints, Storms, Shackles, Sinners and Skies,
    else 0), ``ann_slot`` (the slot of Sinners, Skies, Sparrows and Scions, else -1),
    ``ann_to_slot`` (Skies' destination, else -1), ``ann_answer`` (1 yes, 0 no, -1 when
    there is no yes/no answer); a Chalice event sets ``ann_chalice`` (1 / 0); a reveal
    sets ``ann_reveal[seat] = value``; a steal sets ``ann_steal`` (1 took, 0 nothing)
    with ``ann_steal_slot`` / ``ann_steal_value``; a cost sets ``ann_cost``; an exile
    ``ann_exile_slot`` / ``ann_exile_value``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shipwreck_env.rules.cards import CARD_INDEX, CARDS, POWER_INDEX, POWERS
from shipwreck_env.rules.powers import CARD_POWER
from shipwreck_env.rules.state import State
from shipwreck_env.vector.arrays import (
    ATTACH_CAPACITY,
    EVENT,
    EVENT_CAPACITY,
    EVENT_KINDS,
    TABLE_CAPACITY,
    TURN_ACTION_CAPACITY,
    Arrays,
)
from shipwreck_env.vector.tables import COVERED_SETS

__all__ = [
    "COVERED_CARD_SETS",
    "EVENT_ROW_WIDTH",
    "announcements",
    "decode_event",
    "encode_event",
    "from_states",
    "num_cards",
]

COVERED_CARD_SETS: tuple[str, ...] = COVERED_SETS
"""The card sets whose games the arrays can hold (any selection ``GameConfig``
allows)."""

EVENT_ROW_WIDTH = 5
"""Integers in one event row of ``Arrays.events`` (the kind code and four fields)."""
_PAD = -1

# Per plain kind: the types of its fields ("i" int, "b" bool, "c" card id, "p" power
# id, "s" the word "sands", which is not stored).
_FIELDS: dict[str, str] = {
    "draw": "ii",
    "table_to_bag": "i",
    "exiled_to_bag": "i",
    "play": "iii",
    "chalice": "b",
    "reveal": "ii",
    "vote": "ii",
    "predict": "ib",
    "resolve": "b",
    "fade": "ic",
    "refill": "ic",
    "feast_draw": "i",
    "steal": "ii",
    "fall": "b",
    "attach": "si",
    "cost": "p",
    "exile": "ii",
}
_POWER = EVENT["power"]
_CHALICE = EVENT["chalice"]
_REVEAL = EVENT["reveal"]
_STEAL = EVENT["steal"]
_COST = EVENT["cost"]
_EXILE = EVENT["exile"]
# Per power: the shape of its event's (arg, answer) (see the module docstring).
_POWER_SHAPE: dict[int, str] = {
    POWER_INDEX[p]: shape
    for shape, powers in (
        ("x_answer", ("saints", "storms", "shackles", "shells")),
        ("answer", ("secrets", "songs", "spires", "swords", "scythes")),
        ("none", ("sorrows", "shadows")),
        ("pair", ("sinners",)),
        ("triple", ("skies",)),
        ("slot", ("scions",)),
        ("cards", ("sparrows",)),
    )
    for p in powers
}
_COVERED_POWERS = frozenset(_POWER_SHAPE)
_SPARROWS = POWER_INDEX["sparrows"]
_SHELLS = POWER_INDEX["shells"]
_PENDING_POWERS = ("sails", "scythes")
_CARD_IDS = [card.id for card in CARDS]


def num_cards(card_sets: tuple[str, ...]) -> int:
    """Cards in the chosen sets (the ``M`` of ``Arrays``)."""
    return len(deck_cards(card_sets))


def deck_cards(card_sets: tuple[str, ...]) -> list[int]:
    """Card numbers of the chosen sets, in card order (what a new game shuffles)."""
    return [i for i, card in enumerate(CARDS) if card.set in card_sets]


def _int(x: object, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise ValueError(f"{what} {x!r} is not allowed; allowed: an integer")
    return int(x)


def _flag(x: object, what: str) -> int:
    if not isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{what} {x!r} is not allowed; allowed: True, False")
    return int(bool(x))


def _card(x: object, what: str) -> int:
    if x not in CARD_INDEX:
        raise ValueError(f"{what} {x!r} is not allowed; allowed: a card id of cards.CARDS")
    return CARD_INDEX[x]  # type: ignore[index]


def _encode_power(event: tuple) -> tuple[int, ...]:
    if len(event) != 4:
        raise ValueError(
            f"event {event!r} is not allowed; allowed: ('power', power_id, arg, answer)"
        )
    _, power_id, arg, answer = event
    power = POWER_INDEX.get(power_id, -1) if isinstance(power_id, str) else -1
    if power not in _COVERED_POWERS:
        allowed = sorted(POWERS[p].id for p in _COVERED_POWERS)
        raise ValueError(f"power event {power_id!r} is not allowed; allowed: {allowed}")
    a = b = c = _PAD
    what = f"{power_id} event"
    shape = _POWER_SHAPE[power]
    if shape == "x_answer":
        a = _int(arg, f"{what} argument")
        c = _flag(answer, f"{what} answer")
    elif shape == "answer":
        if arg is not None:
            raise ValueError(f"{what} argument {arg!r} is not allowed; allowed: None")
        c = _flag(answer, f"{what} answer")
    elif shape == "none":
        if arg is not None or answer is not None:
            raise ValueError(f"{what} {(arg, answer)!r} is not allowed; allowed: (None, None)")
    elif shape in ("pair", "triple"):
        size = 2 if shape == "pair" else 3
        if not isinstance(arg, tuple) or len(arg) != size or answer is not None:
            names = "(slot, value)" if size == 2 else "(slot, value, to_slot)"
            raise ValueError(f"{what} {(arg, answer)!r} is not allowed; allowed: ({names}, None)")
        a = _int(arg[0], f"{what} slot")
        b = _int(arg[1], f"{what} value")
        if size == 3:
            c = _int(arg[2], f"{what} destination")
    elif shape == "slot":
        if answer is not None:
            raise ValueError(f"{what} answer {answer!r} is not allowed; allowed: None")
        a = _int(arg, f"{what} slot")
    else:  # sparrows
        if not isinstance(answer, tuple) or len(answer) != 2:
            raise ValueError(
                f"{what} answer {answer!r} is not allowed; allowed: (old card id, new card id)"
            )
        a = _int(arg, f"{what} slot")
        b = _card(answer[0], f"{what} old card")
        c = _card(answer[1], f"{what} new card")
    return (_POWER, power, a, b, c)


def _power_id(x: object, what: str) -> int:
    if x not in POWER_INDEX:
        raise ValueError(f"{what} {x!r} is not allowed; allowed: a power id of cards.POWERS")
    return POWER_INDEX[x]  # type: ignore[index]


def encode_event(event: tuple) -> tuple[int, ...]:
    """The row of 5 integers that stores the reference event tuple ``event`` (see the
    module docstring).

    Raises:
        ValueError: the event's kind is not in ``arrays.EVENT_KINDS``, or its fields do
            not have the kind's arity and types.
    """
    if not isinstance(event, tuple) or not event:
        raise ValueError(f"event {event!r} is not allowed; allowed: a non-empty tuple")
    kind = event[0]
    if kind == "power":
        return _encode_power(event)
    types = _FIELDS.get(kind) if isinstance(kind, str) else None
    if types is None:
        raise ValueError(f"event kind {kind!r} is not allowed; allowed: {list(EVENT_KINDS)}")
    if len(event) != 1 + len(types):
        raise ValueError(
            f"{kind} event {event!r} is not allowed; allowed: {len(types)} fields after the kind"
        )
    row = [EVENT[kind]]
    for t, x in zip(types, event[1:], strict=True):
        if t == "i":
            row.append(_int(x, f"{kind} event field"))
        elif t == "b":
            row.append(_flag(x, f"{kind} event field"))
        elif t == "c":
            row.append(_card(x, f"{kind} event card"))
        elif t == "p":
            row.append(_power_id(x, f"{kind} event power"))
        elif x != "sands":
            raise ValueError(f"{kind} event {event!r} is not allowed; allowed: 'sands'")
    row += [_PAD] * (EVENT_ROW_WIDTH - len(row))
    return tuple(row)


def decode_event(row: Sequence[int] | np.ndarray) -> tuple:
    """The reference event tuple stored in ``row`` (5 integers, see
    :func:`encode_event`): Python ints, bools, card id strings and None where the
    reference has them.

    Raises:
        ValueError: the kind code or power number is not one the rows use.
    """
    code, x1, x2, x3, x4 = (int(x) for x in row)
    if not 0 <= code < len(EVENT_KINDS):
        raise ValueError(
            f"event kind code {code} is not allowed; allowed: 0..{len(EVENT_KINDS) - 1}"
        )
    kind = EVENT_KINDS[code]
    if code == _POWER:
        if x1 not in _COVERED_POWERS:
            raise ValueError(
                f"power number {x1} is not allowed; allowed: {sorted(_COVERED_POWERS)}"
            )
        power_id = POWERS[x1].id
        shape = _POWER_SHAPE[x1]
        if shape == "x_answer":
            return ("power", power_id, x2, bool(x4))
        if shape == "answer":
            return ("power", power_id, None, bool(x4))
        if shape == "none":
            return ("power", power_id, None, None)
        if shape == "pair":
            return ("power", power_id, (x2, x3), None)
        if shape == "triple":
            return ("power", power_id, (x2, x3, x4), None)
        if shape == "slot":
            return ("power", power_id, x2, None)
        return ("power", power_id, x2, (_CARD_IDS[x3], _CARD_IDS[x4]))
    out: list = [kind]
    stored = iter((x1, x2, x3))
    for t in _FIELDS[kind]:
        if t == "s":
            out.append("sands")
            continue
        x = next(stored)
        if t == "i":
            out.append(x)
        elif t == "b":
            out.append(bool(x))
        elif t == "c":
            out.append(_CARD_IDS[x])
        else:
            out.append(POWERS[x].id)
    return tuple(out)


def _row_cards(row: tuple[int, ...]) -> list[int]:
    """Card numbers stored in an event row."""
    code = row[0]
    if code in (EVENT["fade"], EVENT["refill"]):
        return [row[2]]
    if code == _POWER and row[1] == _SPARROWS:
        return [row[3], row[4]]
    return []


def announcements(rows: Sequence[Sequence[int]], num_seats: int) -> dict[str, object]:
    """What the observations read of one turn's event rows: the value of each
    ``ann_*`` array of ``Arrays`` by name (see the module docstring; ``ann_reveal`` is a
    list of ``num_seats`` values)."""
    ann: dict[str, object] = dict(
        ann_power=-1,
        ann_value=0,
        ann_slot=-1,
        ann_to_slot=-1,
        ann_answer=-1,
        ann_chalice=-1,
        ann_reveal=[0] * num_seats,
        ann_steal=-1,
        ann_steal_slot=-1,
        ann_steal_value=0,
        ann_cost=-1,
        ann_exile_slot=-1,
        ann_exile_value=0,
    )
    for row in rows:
        code = row[0]
        if code == _POWER:
            power, shape = row[1], _POWER_SHAPE[row[1]]
            ann["ann_power"] = power
            has_value = shape in ("pair", "triple") or (shape == "x_answer" and power != _SHELLS)
            ann["ann_value"] = row[3] if shape in ("pair", "triple") else row[2] if has_value else 0
            ann["ann_slot"] = row[2] if shape in ("pair", "triple", "slot", "cards") else -1
            ann["ann_to_slot"] = row[4] if shape == "triple" else -1
            ann["ann_answer"] = row[4] if shape in ("x_answer", "answer") else -1
        elif code == _CHALICE:
            ann["ann_chalice"] = row[1]
        elif code == _REVEAL:
            ann["ann_reveal"][row[1]] = row[2]  # type: ignore[index]
        elif code == _STEAL:
            ann["ann_steal"] = 0 if row[1] < 0 else 1
            ann["ann_steal_slot"] = row[1]
            ann["ann_steal_value"] = row[2]
        elif code == _COST:
            ann["ann_cost"] = row[1]
        elif code == _EXILE:
            ann["ann_exile_slot"] = row[1]
            ann["ann_exile_value"] = row[2]
    return ann


class _Checker:
    """Raises the ValueError of one game's field."""

    def fail(self, field: str, value: object, allowed: str) -> None:
        raise ValueError(f"game {self.g}: {field} {value!r} is not allowed; allowed: {allowed}")

    def __init__(self, g: int, deck: Sequence[int]) -> None:
        self.g = g
        self.deck = frozenset(deck)

    def cards(self, field: str, cards: Sequence[int], m: int) -> None:
        for card in cards:
            if card not in self.deck:
                self.fail(field, card, f"card numbers of the chosen sets {sorted(self.deck)}")

    def length(self, field: str, items: Sequence, capacity: int) -> None:
        if len(items) > capacity:
            self.fail(field, items, f"at most {capacity} entries")

    def rows(self, field: str, events: Sequence[tuple], m: int) -> list[tuple[int, ...]]:
        self.length(field, events, EVENT_CAPACITY)
        rows = []
        for i, event in enumerate(events):
            try:
                row = encode_event(event)
            except ValueError as exc:
                problem = str(exc)
            else:
                problem = ""
            if problem:
                self.fail(f"{field}[{i}]", event, f"events of arrays.EVENT_KINDS ({problem})")
            self.cards(f"{field}[{i}] card", _row_cards(row), m)
            rows.append(row)
        return rows


def _check_state(s: State, g: int, m: int) -> tuple[list, list]:
    """Check that game ``g`` fits the arrays; return its two event row lists."""
    cfg = s.config
    c = _Checker(g, deck_cards(cfg.card_sets))
    for slot, cards in enumerate(s.attached):
        c.length(f"attached[{slot}]", cards, ATTACH_CAPACITY)
        c.cards(f"attached[{slot}]", cards, m)
    c.cards("sands_waiting", [x for x in s.sands_waiting if x != -1], m)
    if s.pending != () and not (
        len(s.pending) == 3
        and s.pending[0] in _PENDING_POWERS
        and (s.pending[0] == "sails") == (s.pending[1] is not None)
    ):
        c.fail(
            "pending",
            s.pending,
            "(), ('sails', slot, value) or ('scythes', None, None) (powers.PowerRule)",
        )
    if s.fall_fading not in (-1, 0, 1):
        c.fail("fall_fading", s.fall_fading, "-1, 0 or 1")
    c.cards("deck", s.deck, m)
    c.cards("slots", [x for x in s.slots if x != -1], m)
    c.cards("faded", s.faded, m)
    for slot, fates in enumerate(s.table):
        c.length(f"table[{slot}]", fates, TABLE_CAPACITY)
    for seat, hand in enumerate(s.hands):
        c.length(f"hands[{seat}]", hand, 2)
    c.length("queue", s.queue, 2 * cfg.num_players)
    c.length("plays", s.plays, 2)
    c.length("predictions", s.predictions, 4)
    c.length("votes", s.votes, 4)
    c.length("turn_actions", s.turn_actions, TURN_ACTION_CAPACITY)
    ts = s.turn_start
    if len(ts) != 13:
        c.fail("turn_start", ts, "a 13-tuple (turn_start.public_snapshot)")
    for slot, cards in enumerate(ts[2]):
        c.length(f"turn_start attached[{slot}]", cards, ATTACH_CAPACITY)
        c.cards(f"turn_start attached[{slot}]", cards, m)
    c.cards("turn_start sands_waiting", [x for x in ts[3] if x != -1], m)
    c.cards("turn_start slots", [x for x in ts[0] if x != -1], m)
    c.cards("turn_start faded", ts[4], m)
    c.cards("turn_start deck top", [ts[5]] if ts[5] != -1 else [], m)
    for slot, fates in enumerate(ts[1]):
        c.length(f"turn_start table[{slot}]", fates, TABLE_CAPACITY)
    return c.rows("events", s.events, m), c.rows("last_events", s.last_events, m)


def from_states(states: Sequence[State]) -> Arrays:
    """One :class:`Arrays` holding exactly ``states`` (game ``g`` = ``states[g]``).

    The derived arrays (``tcount``, ``fcount``, ``ann_*``) are filled from the states;
    the deck ring starts at ``deck_head`` 0, this turn's events go to buffer 0
    (``events_cur`` 0); ``draws`` and ``key`` stay 0 (the caller sets them).

    Raises:
        ValueError: ``states`` is empty, the games do not share one ``GameConfig``, or a
            game holds something the arrays cannot (card numbers of sets not chosen,
            events of other kinds, more entries than a capacity, a malformed pending
            cost); the message names the game, the field, the value and what is
            allowed.
    """
    states = list(states)
    if not states:
        raise ValueError("states [] is not allowed; allowed: at least one State")
    for g, s in enumerate(states):
        if not isinstance(s, State):
            raise ValueError(f"game {g}: state {s!r} is not allowed; allowed: a State")
    config = states[0].config
    if any(name not in COVERED_CARD_SETS for name in config.card_sets):
        raise ValueError(
            f"game 0: config.card_sets {config.card_sets!r} is not allowed; "
            f"allowed: sets among {COVERED_CARD_SETS!r}"
        )
    for g, s in enumerate(states):
        if s.config != config:
            raise ValueError(
                f"game {g}: config {s.config!r} is not allowed; allowed: the config of game 0 "
                f"({config!r})"
            )
    m = num_cards(config.card_sets)
    seats = config.num_seats
    rows = [_check_state(s, g, m) for g, s in enumerate(states)]
    arr = Arrays(len(states), config, m)
    for g, s in enumerate(states):
        _fill(arr, g, s, rows[g][0], rows[g][1], seats)
    return arr


def _fill(arr: Arrays, g: int, s: State, cur: list, last: list, seats: int) -> None:
    """Write game ``g``'s state into the arrays (already checked)."""
    arr.deck[g, : len(s.deck)] = s.deck
    arr.deck_head[g] = 0
    arr.deck_len[g] = len(s.deck)
    arr.slots[g] = s.slots
    for slot, fates in enumerate(s.table):
        arr.table[g, slot, : len(fates)] = fates
        arr.table_len[g, slot] = len(fates)
        for v in fates:
            arr.tcount[g, slot, v - 1] += 1
    for slot, cards in enumerate(s.attached):
        arr.attached[g, slot, : len(cards)] = cards
        arr.attached_len[g, slot] = len(cards)
    arr.sands_waiting[g] = s.sands_waiting
    arr.faded[g, : len(s.faded)] = s.faded
    arr.faded_len[g] = len(s.faded)
    for card in s.faded:
        arr.fcount[g, CARD_POWER[card]] += 1
    arr.bag[g] = s.bag
    arr.bag_known[g] = s.bag_known
    arr.exiled[g] = s.exiled
    for seat, hand in enumerate(s.hands):
        arr.hands[g, seat, : len(hand)] = hand
        arr.hand_len[g, seat] = len(hand)
    arr.lines[g] = s.lines
    arr.score[g] = s.score
    arr.doom[g] = s.doom
    arr.turn[g] = s.turn
    arr.over[g] = s.over
    arr.won[g] = s.won
    arr.truncated[g] = s.truncated
    arr.active[g] = s.active
    arr.phase[g] = s.phase
    arr.decider[g] = s.decider
    arr.queue[g, : len(s.queue)] = s.queue
    arr.queue_pos[g] = 0
    arr.queue_len[g] = len(s.queue)
    arr.power_used[g] = s.power_used
    arr.shadows[g] = s.shadows
    arr.feast_done[g] = s.feast_done
    arr.played_old[g] = s.played_old
    arr.correct[g] = s.correct
    arr.old_fate[g] = s.old_fate
    arr.kept_eff[g] = s.kept_eff
    arr.preds_left[g] = s.preds_left
    if s.pending:
        power, slot, value = s.pending
        arr.pending_power[g] = POWER_INDEX[power]
        arr.pending_slot[g] = -1 if slot is None else slot
        arr.pending_value[g] = 0 if value is None else value
    arr.fall_kept[g] = s.fall_kept
    arr.fall_fading[g] = s.fall_fading
    arr.ash_trigger[g] = s.ash_trigger
    arr.tracked[g] = s.tracked
    arr.line_fresh[g] = s.line_fresh
    arr.line_tracked[g] = s.line_tracked
    for i, play in enumerate(s.plays):
        arr.plays[g, i] = play
    arr.plays_len[g] = len(s.plays)
    arr.predictions[g, : len(s.predictions)] = s.predictions
    arr.pred_len[g] = len(s.predictions)
    arr.votes[g, : len(s.votes)] = s.votes
    arr.votes_len[g] = len(s.votes)
    arr.events_cur[g] = 0
    for buf, event_rows in ((0, cur), (1, last)):
        if event_rows:
            arr.events[g, buf, : len(event_rows)] = event_rows
        arr.events_len[g, buf] = len(event_rows)
    arr.turn_actions[g, : len(s.turn_actions)] = s.turn_actions
    arr.turn_actions_len[g] = len(s.turn_actions)
    for name, value in announcements(cur, seats).items():
        getattr(arr, name)[g] = value
    (
        ts_slots,
        ts_table,
        ts_attached,
        ts_sands,
        ts_faded,
        ts_top,
        ts_deck_len,
        ts_exiled,
        ts_lines,
        ts_hand_len,
        ts_score,
        ts_doom,
        ts_turn,
    ) = s.turn_start
    arr.ts_slots[g] = ts_slots
    for slot, fates in enumerate(ts_table):
        arr.ts_table[g, slot, : len(fates)] = fates
        arr.ts_table_len[g, slot] = len(fates)
    for slot, cards in enumerate(ts_attached):
        arr.ts_attached[g, slot, : len(cards)] = cards
        arr.ts_attached_len[g, slot] = len(cards)
    arr.ts_sands[g] = ts_sands
    arr.ts_faded[g, : len(ts_faded)] = ts_faded
    arr.ts_faded_len[g] = len(ts_faded)
    arr.ts_deck_top[g] = ts_top
    arr.ts_deck_len[g] = ts_deck_len
    arr.ts_exiled[g] = ts_exiled
    arr.ts_lines[g] = ts_lines
    arr.ts_hand_len[g] = ts_hand_len
    arr.ts_score[g] = ts_score
    arr.ts_doom[g] = ts_doom
    arr.ts_turn[g] = ts_turn
