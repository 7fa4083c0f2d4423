"""Conversion between reference :class:`~shipwreck_env.state.State` objects and the
batched :class:`~shipwreck_env.vector.arrays.Arrays`.

:func:`from_states` packs games into one ``Arrays`` (checking that the arrays can hold
them exactly), :func:`to_states` rebuilds the reference states, equal slot for slot to
what was packed. Both directions use :func:`encode_event` / :func:`decode_event`, the
one definition of how an event tuple is stored as a row of ``Arrays.events``; the
batched engine writes its rows with exactly this encoding.

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

    (``play``'s ``landed`` may itself be -1: the fixed arity of each kind tells padding
    from values.) Power events ``("power", power_id, arg, answer)`` are stored as
    ``(POWER, power number, a, b, c)``::

        saints    (x, answer)               -> a = x, b = -1, c = answer 0/1
        secrets, songs, spires, swords
                  (None, answer)            -> a = -1, b = -1, c = answer 0/1
        sorrows   (None, None)              -> a = b = c = -1
        shells    (played_value, answer)    -> a = played value, b = -1, c = answer 0/1
        sinners   ((slot, value), None)     -> a = slot, b = value, c = -1
        sparrows  (slot, (old_id, new_id))  -> a = slot, b = old card, c = new card

    Only the base set's events and powers are covered.

Announcements
    ``ann_*`` hold what the observation reads of this turn's events (see
    :func:`announcements`): a power event sets ``ann_power`` (power number),
    ``ann_value`` (Saints' x or the Sinners value, else 0), ``ann_slot`` (Sinners' or
    Sparrows' slot, else -1), ``ann_answer`` (1 yes, 0 no, -1 when the answer is None
    and for Sinners / Sparrows); a Chalice event sets ``ann_chalice`` (1 / 0); a reveal
    sets ``ann_reveal[seat] = value``.

Fields the arrays do not hold
    ``attached``, ``sands_waiting``, ``pending``, ``fall_fading`` and ``ash_trigger``
    must be empty (``from_states`` refuses anything else) and come back empty.
    ``fall_kept`` is not empty in base games -- the reference sets it to ``kept_eff``
    when the plays end, The Fall or not -- so it must equal ``kept_eff`` and is rebuilt
    from it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shipwreck_env.cards import CARD_INDEX, CARDS, POWER_INDEX, POWERS
from shipwreck_env.powers import CARD_POWER
from shipwreck_env.state import State
from shipwreck_env.vector.arrays import (
    EVENT,
    EVENT_CAPACITY,
    EVENT_KINDS,
    TABLE_CAPACITY,
    TURN_ACTION_CAPACITY,
    Arrays,
)

__all__ = [
    "COVERED_CARD_SETS",
    "announcements",
    "decode_event",
    "encode_event",
    "from_states",
    "num_cards",
    "to_states",
]

COVERED_CARD_SETS: tuple[str, ...] = ("base",)
"""The ``GameConfig.card_sets`` value the arrays can hold."""

_ROW = 5  # integers per event row
_PAD = -1

# Per plain kind: the types of its fields ("i" int, "b" bool, "c" card id).
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
}
_POWER = EVENT["power"]
_CHALICE = EVENT["chalice"]
_REVEAL = EVENT["reveal"]
_SAINTS = POWER_INDEX["saints"]
_SHELLS = POWER_INDEX["shells"]
_SINNERS = POWER_INDEX["sinners"]
_SORROWS = POWER_INDEX["sorrows"]
_SPARROWS = POWER_INDEX["sparrows"]
_QUESTIONS = frozenset(POWER_INDEX[p] for p in ("secrets", "songs", "spires", "swords"))
_COVERED_POWERS = frozenset({_SAINTS, _SHELLS, _SINNERS, _SORROWS, _SPARROWS, *_QUESTIONS})
_CARD_IDS = [card.id for card in CARDS]


def num_cards(card_sets: tuple[str, ...]) -> int:
    """Cards in the chosen sets (the ``M`` of ``Arrays``)."""
    return sum(1 for card in CARDS if card.set in card_sets)


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
    if power in (_SAINTS, _SHELLS):
        a = _int(arg, f"{what} argument")
        c = _flag(answer, f"{what} answer")
    elif power in _QUESTIONS:
        if arg is not None:
            raise ValueError(f"{what} argument {arg!r} is not allowed; allowed: None")
        c = _flag(answer, f"{what} answer")
    elif power == _SORROWS:
        if arg is not None or answer is not None:
            raise ValueError(f"{what} {(arg, answer)!r} is not allowed; allowed: (None, None)")
    elif power == _SINNERS:
        if not isinstance(arg, tuple) or len(arg) != 2 or answer is not None:
            raise ValueError(
                f"{what} {(arg, answer)!r} is not allowed; allowed: ((slot, value), None)"
            )
        a = _int(arg[0], f"{what} slot")
        b = _int(arg[1], f"{what} value")
    else:  # sparrows
        if not isinstance(answer, tuple) or len(answer) != 2:
            raise ValueError(
                f"{what} answer {answer!r} is not allowed; allowed: (old card id, new card id)"
            )
        a = _int(arg, f"{what} slot")
        b = _card(answer[0], f"{what} old card")
        c = _card(answer[1], f"{what} new card")
    return (_POWER, power, a, b, c)


def encode_event(event: tuple) -> tuple[int, ...]:
    """The row of 5 integers that stores the reference event tuple ``event`` (see the
    module docstring).

    Raises:
        ValueError: the event's kind is not in ``arrays.EVENT_KINDS``, or its fields do
            not have the kind's arity and types (power events: only base powers).
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
        else:
            row.append(_card(x, f"{kind} event card"))
    row += [_PAD] * (_ROW - len(row))
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
        if x1 in (_SAINTS, _SHELLS):
            return ("power", power_id, x2, bool(x4))
        if x1 in _QUESTIONS:
            return ("power", power_id, None, bool(x4))
        if x1 == _SORROWS:
            return ("power", power_id, None, None)
        if x1 == _SINNERS:
            return ("power", power_id, (x2, x3), None)
        return ("power", power_id, x2, (_CARD_IDS[x3], _CARD_IDS[x4]))
    out: list = [kind]
    for t, x in zip(_FIELDS[kind], (x1, x2, x3), strict=False):
        if t == "i":
            out.append(x)
        elif t == "b":
            out.append(bool(x))
        else:
            out.append(_CARD_IDS[x])
    return tuple(out)


def _row_cards(row: tuple[int, ...]) -> list[int]:
    """Card numbers stored in an event row."""
    code = row[0]
    if code in (EVENT["fade"], EVENT["refill"]):
        return [row[2]]
    if code == _POWER and row[1] == _SPARROWS:
        return [row[3], row[4]]
    return []


def announcements(rows: Sequence[Sequence[int]], num_seats: int) -> tuple:
    """What the observations read of one turn's event rows, as
    ``(ann_power, ann_value, ann_slot, ann_answer, ann_chalice, ann_reveal)``
    (see the module docstring; ``ann_reveal`` is a list of ``num_seats`` values)."""
    power, value, slot, answer, chalice = -1, 0, -1, -1, -1
    reveal = [0] * num_seats
    for row in rows:
        code = row[0]
        if code == _POWER:
            power = row[1]
            value = row[2] if power == _SAINTS else row[3] if power == _SINNERS else 0
            slot = row[2] if power in (_SINNERS, _SPARROWS) else -1
            answer = -1 if power in (_SINNERS, _SPARROWS) else row[4]
        elif code == _CHALICE:
            chalice = row[1]
        elif code == _REVEAL:
            reveal[row[1]] = row[2]
    return power, value, slot, answer, chalice, reveal


class _Checker:
    """Raises the ValueError of one game's field."""

    def __init__(self, g: int) -> None:
        self.g = g

    def fail(self, field: str, value: object, allowed: str) -> None:
        raise ValueError(f"game {self.g}: {field} {value!r} is not allowed; allowed: {allowed}")

    def cards(self, field: str, cards: Sequence[int], m: int) -> None:
        for card in cards:
            if not 0 <= card < m:
                self.fail(field, card, f"card numbers 0..{m - 1} (card sets {COVERED_CARD_SETS})")

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
    c = _Checker(g)
    cfg = s.config
    if any(s.attached):
        c.fail("attached", s.attached, "[[], [], [], []] (no Scions / Sands in the base set)")
    if any(x != -1 for x in s.sands_waiting):
        c.fail("sands_waiting", s.sands_waiting, "[-1, -1, -1, -1]")
    if s.pending != ():
        c.fail("pending", s.pending, "() (no Sails / Scythes in the base set)")
    if s.fall_kept != s.kept_eff:
        c.fail(
            "fall_kept",
            s.fall_kept,
            f"kept_eff ({s.kept_eff}): with the base set it is always kept_eff (both are set "
            "when the plays end); the arrays do not hold it",
        )
    if s.fall_fading != -1:
        c.fail("fall_fading", s.fall_fading, "-1 (no The Fall in the base set)")
    if s.ash_trigger:
        c.fail("ash_trigger", s.ash_trigger, "False (no The Ash in the base set)")
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
    if any(ts[2]):
        c.fail("turn_start attached", ts[2], "((), (), (), ())")
    if any(x != -1 for x in ts[3]):
        c.fail("turn_start sands_waiting", ts[3], "(-1, -1, -1, -1)")
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
        ValueError: ``states`` is empty, the games do not share one ``GameConfig``, the
            card sets are not ``("base",)``, or a game holds something the arrays cannot
            (expansion-only fields, ``fall_kept`` other than ``kept_eff``, card numbers
            of other sets, events of other kinds, more entries than a capacity); the
            message names the game, the field, the value and what is allowed.
    """
    states = list(states)
    if not states:
        raise ValueError("states [] is not allowed; allowed: at least one State")
    for g, s in enumerate(states):
        if not isinstance(s, State):
            raise ValueError(f"game {g}: state {s!r} is not allowed; allowed: a State")
    config = states[0].config
    if config.card_sets != COVERED_CARD_SETS:
        raise ValueError(
            f"game 0: config.card_sets {config.card_sets!r} is not allowed; "
            f"allowed: {COVERED_CARD_SETS!r}"
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
    power, value, slot, answer, chalice, reveal = announcements(cur, seats)
    arr.ann_power[g] = power
    arr.ann_value[g] = value
    arr.ann_slot[g] = slot
    arr.ann_answer[g] = answer
    arr.ann_chalice[g] = chalice
    arr.ann_reveal[g] = reveal
    (
        ts_slots,
        ts_table,
        _attached,
        _sands,
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


_EMPTY4: tuple[tuple, ...] = ((), (), (), ())
_NO_SANDS = (-1, -1, -1, -1)


def to_states(arr: Arrays, games: Sequence[int] | None = None) -> list[State]:
    """Reference states of ``games`` (default: every game), in that order.

    Fields the arrays do not hold get their empty values (``attached`` ``[[], [], [],
    []]``, ``sands_waiting`` ``[-1] * 4``, ``pending`` ``()``, ``fall_fading`` -1,
    ``ash_trigger`` False). ``fall_kept`` is rebuilt as ``kept_eff``: with the base set
    the reference sets both when the plays end (``plays._after_steal``) and resets both at
    the turn start, so they are always equal.
    """
    games = list(range(arr.num_games)) if games is None else [int(g) for g in games]
    m = arr.num_cards
    out = []
    for g in games:
        head, n = int(arr.deck_head[g]), int(arr.deck_len[g])
        tlen = arr.table_len[g].tolist()
        hlen = arr.hand_len[g].tolist()
        cur = int(arr.events_cur[g])
        ts_tlen = arr.ts_table_len[g].tolist()
        kept_eff = int(arr.kept_eff[g])
        s = State(
            arr.config,
            deck=arr.deck[g, (head + np.arange(n)) % m].tolist(),
            slots=arr.slots[g].tolist(),
            table=[arr.table[g, slot, : tlen[slot]].tolist() for slot in range(4)],
            attached=[[], [], [], []],
            sands_waiting=[-1, -1, -1, -1],
            faded=arr.faded[g, : int(arr.faded_len[g])].tolist(),
            bag=arr.bag[g].tolist(),
            bag_known=arr.bag_known[g].tolist(),
            exiled=arr.exiled[g].tolist(),
            hands=[arr.hands[g, seat, :k].tolist() for seat, k in enumerate(hlen)],
            lines=arr.lines[g].tolist(),
            score=int(arr.score[g]),
            doom=int(arr.doom[g]),
            turn=int(arr.turn[g]),
            over=bool(arr.over[g]),
            won=bool(arr.won[g]),
            truncated=bool(arr.truncated[g]),
            active=int(arr.active[g]),
            phase=int(arr.phase[g]),
            decider=int(arr.decider[g]),
            queue=arr.queue[g, int(arr.queue_pos[g]) : int(arr.queue_len[g])].tolist(),
            power_used=bool(arr.power_used[g]),
            shadows=bool(arr.shadows[g]),
            feast_done=bool(arr.feast_done[g]),
            old_fate=int(arr.old_fate[g]),
            played_old=bool(arr.played_old[g]),
            plays=[tuple(p) for p in arr.plays[g, : int(arr.plays_len[g])].tolist()],
            tracked=int(arr.tracked[g]),
            line_fresh=int(arr.line_fresh[g]),
            line_tracked=int(arr.line_tracked[g]),
            kept_eff=kept_eff,
            preds_left=int(arr.preds_left[g]),
            predictions=arr.predictions[g, : int(arr.pred_len[g])].tolist(),
            correct=bool(arr.correct[g]),
            votes=arr.votes[g, : int(arr.votes_len[g])].tolist(),
            pending=(),
            fall_kept=kept_eff,  # base set: set together with kept_eff (plays._after_steal)
            fall_fading=-1,
            ash_trigger=False,
            events=_events(arr, g, cur),
            last_events=_events(arr, g, 1 - cur),
            turn_actions=arr.turn_actions[g, : int(arr.turn_actions_len[g])].tolist(),
            turn_start=(
                tuple(arr.ts_slots[g].tolist()),
                tuple(tuple(arr.ts_table[g, slot, : ts_tlen[slot]].tolist()) for slot in range(4)),
                _EMPTY4,
                _NO_SANDS,
                tuple(arr.ts_faded[g, : int(arr.ts_faded_len[g])].tolist()),
                int(arr.ts_deck_top[g]),
                int(arr.ts_deck_len[g]),
                tuple(arr.ts_exiled[g].tolist()),
                tuple(arr.ts_lines[g].tolist()),
                tuple(arr.ts_hand_len[g].tolist()),
                int(arr.ts_score[g]),
                int(arr.ts_doom[g]),
                int(arr.ts_turn[g]),
            ),
        )
        out.append(s)
    return out


def _events(arr: Arrays, g: int, buf: int) -> list[tuple]:
    rows = arr.events[g, buf, : int(arr.events_len[g, buf])].tolist()
    return [decode_event(row) for row in rows]
