"""The batched game state: every field of :class:`~shipwreck_env.rules.state.State` held as
numpy arrays over ``N`` games (axis 0 is the game).

This module only declares and allocates the arrays; the rules that change them (compiled
code over one game at a time) live in :mod:`shipwreck_env.vector.engine` and the modules
it calls, the packing of reference ``State`` objects in :mod:`shipwreck_env.vector.convert`
and their rebuilding in :mod:`shipwreck_env.vector.to_states`, the observations in
:mod:`shipwreck_env.vector.observe`.

Conventions (the same as ``State``): fate values are 1-7 and 0 means "none"; cards and
powers are their numbers in ``cards.CARDS`` / ``cards.POWERS`` and -1 means "none";
number lines are 7-bit masks. Ordered lists of the reference (the deck, each slot's
fates, hands, faded cards, the turn's plays, predictions, votes, events and actions)
are kept in order as a padded array plus a length, so that :func:`to_states.to_states`
rebuilds them exactly. Some facts are kept twice, as the ordered list and as counts
(``tcount``, ``fcount``): the counts are what the rules and observations read; every
change goes through the helpers in ``vector.ops`` (and ``vector.powers.take_power``) that
update both.

Every card set is held: the fields only expansion cards use (attachments, a Sands
card waiting for its slot, a pending Sails / Scythes cost, The Fall's kept value and
announcement, The Ash's trigger) have their own arrays.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.cards import NUM_POWERS
from shipwreck_env.rules.config import GameConfig

__all__ = [
    "ATTACH_CAPACITY",
    "EVENT_CAPACITY",
    "EVENT_KINDS",
    "TABLE_CAPACITY",
    "TURN_ACTION_CAPACITY",
    "Arrays",
]

TABLE_CAPACITY = 21
"""Fates one slot can hold (every fate of the game)."""
EVENT_CAPACITY = 48
"""Events one turn can record (a base turn records fewer than 32)."""
TURN_ACTION_CAPACITY = 64
"""Actions one turn can record (a base turn takes fewer than 40)."""
ATTACH_CAPACITY = 2
"""Cards one slot can have attached: one Scions card (The North Wind) and one Sands
card (The Fall), the only cards whose powers attach."""

EVENT_KINDS: tuple[str, ...] = (
    "draw",  # (seat, drawn)
    "table_to_bag",  # (returned,)
    "exiled_to_bag",  # (total,)
    "play",  # (value, target, landed)
    "chalice",  # (higher 0/1,)
    "power",  # (power, a, b, c): per power, see the module docstring of convert
    "reveal",  # (seat, value)
    "vote",  # (player, value or 0)
    "predict",  # (value, correct 0/1)
    "resolve",  # (correct 0/1,)
    "fade",  # (slot, card)
    "refill",  # (slot, card)
    "feast_draw",  # (seat,)
    "steal",  # (slot or -1, value or 0)
    "fall",  # (fading 0/1,)
    "attach",  # (slot,): ("attach", "sands", slot)
    "cost",  # (power,)
    "exile",  # (slot, value)
)
"""Event kind codes (index = ``events[..., 0]``) and the integer fields that follow, in
the order of the reference event tuples. Booleans are 0/1; "none" is -1."""
EVENT = {name: i for i, name in enumerate(EVENT_KINDS)}
"""Event kind name -> code."""

_LINE = 64
"""Bytes in a cache line."""
_PLACEHOLDER = np.empty(0, np.int8)


class Arrays:
    """Every game's state; attribute names follow ``State`` where the meaning is the same.

    Table
        ``deck`` int8[N, M]: a ring of card numbers, top first from ``deck_head``, with
        ``deck_len`` cards (``M`` = cards in the chosen sets). The i-th card from the top
        is ``deck[g, (deck_head[g] + i) % M]``.
        ``slots`` int8[N, 4]: card on each slot or -1.
        ``table`` int8[N, 4, 21] / ``table_len`` int8[N, 4]: fates in front of each slot
        in the reference's order (0 padding); ``tcount`` int8[N, 4, 7]: their counts by
        value.
        ``attached`` int8[N, 4, 2] / ``attached_len`` int8[N, 4]: cards attached to
        each slot's card (Scions, Sands), in order; ``sands_waiting`` int8[N, 4]: a
        Sands card waiting for the slot's refill, or -1.
        ``faded`` int8[N, M] / ``faded_len`` int8[N]: faded cards whose power is
        available, oldest first; ``fcount`` int8[N, 17]: available cards per power.
        ``bag``, ``bag_known``, ``exiled`` int8[N, 7]: counts by value.
    Players
        ``hands`` int8[N, S, 2] / ``hand_len`` int8[N, S]: each seat's fates in order.
        ``lines`` uint8[N, S]: number lines.
    Score
        ``score``, ``doom`` int8[N]; ``turn`` int32[N]; ``over``, ``won``,
        ``truncated`` bool[N].
    This turn
        ``active``, ``phase``, ``decider`` int8[N]; ``queue`` int8[N, 2P] with
        ``queue_pos`` (next entry) and ``queue_len`` int8[N]: seats (reveal round) or
        players (vote round) still to act are ``queue[g, queue_pos:queue_len]``.
        ``power_used``, ``shadows``, ``feast_done``, ``played_old``, ``correct`` bool[N];
        ``old_fate``, ``kept_eff``, ``preds_left`` int8[N]; ``tracked``,
        ``line_fresh``, ``line_tracked`` uint8[N].
        ``pending_power`` int8[N] (-1: nothing pending, else Sails' or Scythes' power
        number), ``pending_slot`` (-1 none), ``pending_value`` (0 none): the power
        awaiting its cost (``State.pending``). ``fall_kept``, ``fall_fading`` int8[N],
        ``ash_trigger`` bool[N]: as in ``State``.
        ``plays`` int8[N, 2, 3] / ``plays_len``: (value, target, landed) per play.
        ``predictions`` int8[N, 4] / ``pred_len``; ``votes`` int8[N, 4] / ``votes_len``
        (0 = a pass vote).
        ``events`` int16[N, 2, E, 5] / ``events_len`` int16[N, 2] with ``events_cur``
        int8[N]: two event buffers; ``events[g, events_cur[g]]`` is this turn's
        ``events`` and the other one ``last_events`` (swapped at each turn start). Each
        row is (kind code, then the kind's fields, -1 padded): see ``EVENT_KINDS``.
        ``turn_actions`` int16[N, 64] / ``turn_actions_len`` int16[N].
    What observations read of this turn's announcements (kept beside ``events`` so
    that no event list is parsed on the hot path)
        ``ann_power`` int8[N]: power used this turn (-1 none); ``ann_value``
        int8[N] (its value argument, 0 none), ``ann_slot`` int8[N] (its slot argument,
        -1 none), ``ann_answer`` int8[N] (1 yes, 0 no, -1 none); ``ann_chalice`` int8[N]
        (1 higher, 0 not, -1 none); ``ann_reveal`` int8[N, S] (value revealed by each
        seat this turn, 0 none); ``ann_to_slot`` int8[N] (Skies' destination, -1
        none); ``ann_cost`` int8[N] (power paid as a cost, -1 none);
        ``ann_exile_slot`` / ``ann_exile_value`` int8[N] (Sails' exile, -1 / 0 none);
        ``ann_steal`` int8[N] (The Thief: -1 no steal event, 0 took nothing, 1 took)
        with ``ann_steal_slot`` / ``ann_steal_value``.
    The public snapshot after this turn's draw (``State.turn_start``)
        ``ts_slots`` [N, 4], ``ts_table`` [N, 4, 21], ``ts_table_len`` [N, 4],
        ``ts_attached`` [N, 4, 2], ``ts_attached_len`` [N, 4], ``ts_sands`` [N, 4],
        ``ts_faded`` [N, M], ``ts_faded_len`` [N], ``ts_deck_top`` [N],
        ``ts_deck_len`` [N], ``ts_exiled`` [N, 7], ``ts_lines`` [N, S],
        ``ts_hand_len`` [N, S], ``ts_score``, ``ts_doom``, ``ts_turn`` [N].
    Chance
        ``draws`` uint64[N]: uniforms drawn so far by each game (its place in its random
        stream, see :mod:`shipwreck_env.vector.chance`); ``key`` uint64[N]: each game's
        stream key.
    """

    def __init__(self, num_games: int, config: GameConfig, num_cards: int) -> None:
        n, m = num_games, num_cards
        s = config.num_seats
        p = config.num_players
        i8, u8, i16 = np.int8, np.uint8, np.int16
        self.num_games = n
        self.num_cards = m
        self.config = config
        self._specs: list[tuple[tuple[int, ...], np.dtype, int]] = []
        # table
        self.deck = self._full((n, m), -1, i8)
        self.deck_head = self._zeros(n, np.int16)
        self.deck_len = self._zeros(n, np.int16)
        self.slots = self._full((n, 4), -1, i8)
        self.table = self._zeros((n, 4, TABLE_CAPACITY), i8)
        self.table_len = self._zeros((n, 4), i8)
        self.tcount = self._zeros((n, 4, 7), i8)
        self.attached = self._full((n, 4, ATTACH_CAPACITY), -1, i8)
        self.attached_len = self._zeros((n, 4), i8)
        self.sands_waiting = self._full((n, 4), -1, i8)
        self.faded = self._full((n, m), -1, i8)
        self.faded_len = self._zeros(n, i8)
        self.fcount = self._zeros((n, NUM_POWERS), i8)
        self.bag = self._zeros((n, 7), i8)
        self.bag_known = self._zeros((n, 7), i8)
        self.exiled = self._zeros((n, 7), i8)
        # players
        self.hands = self._zeros((n, s, 2), i8)
        self.hand_len = self._zeros((n, s), i8)
        self.lines = self._zeros((n, s), u8)
        # score
        self.score = self._zeros(n, i8)
        self.doom = self._zeros(n, i8)
        self.turn = self._zeros(n, np.int32)
        self.over = self._zeros(n, bool)
        self.won = self._zeros(n, bool)
        self.truncated = self._zeros(n, bool)
        # this turn
        self.active = self._zeros(n, i8)
        self.phase = self._zeros(n, i8)
        self.decider = self._zeros(n, i8)
        self.queue = self._zeros((n, 2 * p), i8)
        self.queue_pos = self._zeros(n, i8)
        self.queue_len = self._zeros(n, i8)
        self.power_used = self._zeros(n, bool)
        self.shadows = self._zeros(n, bool)
        self.feast_done = self._zeros(n, bool)
        self.played_old = self._zeros(n, bool)
        self.correct = self._zeros(n, bool)
        self.old_fate = self._zeros(n, i8)
        self.kept_eff = self._zeros(n, i8)
        self.preds_left = self._zeros(n, i8)
        self.tracked = self._zeros(n, u8)
        self.line_fresh = self._zeros(n, u8)
        self.line_tracked = self._zeros(n, u8)
        self.pending_power = self._full(n, -1, i8)
        self.pending_slot = self._full(n, -1, i8)
        self.pending_value = self._zeros(n, i8)
        self.fall_kept = self._zeros(n, i8)
        self.fall_fading = self._full(n, -1, i8)
        self.ash_trigger = self._zeros(n, bool)
        self.plays = self._zeros((n, 2, 3), i8)
        self.plays_len = self._zeros(n, i8)
        self.predictions = self._zeros((n, 4), i8)
        self.pred_len = self._zeros(n, i8)
        self.votes = self._zeros((n, 4), i8)
        self.votes_len = self._zeros(n, i8)
        self.events = self._full((n, 2, EVENT_CAPACITY, 5), -1, i16)
        self.events_len = self._zeros((n, 2), i16)
        self.events_cur = self._zeros(n, i8)
        self.turn_actions = self._zeros((n, TURN_ACTION_CAPACITY), i16)
        self.turn_actions_len = self._zeros(n, i16)
        # announcements, as observations read them
        self.ann_power = self._full(n, -1, i8)
        self.ann_value = self._zeros(n, i8)
        self.ann_slot = self._full(n, -1, i8)
        self.ann_answer = self._full(n, -1, i8)
        self.ann_chalice = self._full(n, -1, i8)
        self.ann_reveal = self._zeros((n, s), i8)
        self.ann_to_slot = self._full(n, -1, i8)
        self.ann_cost = self._full(n, -1, i8)
        self.ann_exile_slot = self._full(n, -1, i8)
        self.ann_exile_value = self._zeros(n, i8)
        self.ann_steal = self._full(n, -1, i8)
        self.ann_steal_slot = self._full(n, -1, i8)
        self.ann_steal_value = self._zeros(n, i8)
        # the turn's public start
        self.ts_slots = self._full((n, 4), -1, i8)
        self.ts_table = self._zeros((n, 4, TABLE_CAPACITY), i8)
        self.ts_table_len = self._zeros((n, 4), i8)
        self.ts_attached = self._full((n, 4, ATTACH_CAPACITY), -1, i8)
        self.ts_attached_len = self._zeros((n, 4), i8)
        self.ts_sands = self._full((n, 4), -1, i8)
        self.ts_faded = self._full((n, m), -1, i8)
        self.ts_faded_len = self._zeros(n, i8)
        self.ts_deck_top = self._full(n, -1, i8)
        self.ts_deck_len = self._zeros(n, np.int16)
        self.ts_exiled = self._zeros((n, 7), i8)
        self.ts_lines = self._zeros((n, s), u8)
        self.ts_hand_len = self._zeros((n, s), i8)
        self.ts_score = self._zeros(n, i8)
        self.ts_doom = self._zeros(n, i8)
        self.ts_turn = self._zeros(n, np.int32)
        # chance
        self.draws = self._zeros(n, np.uint64)
        self.key = self._zeros(n, np.uint64)
        names = self.fields()
        self._place([(k, *spec) for k, spec in zip(names, self._specs, strict=True)])
        del self._specs

    def _full(self, shape: tuple[int, ...] | int, fill: int, dtype: type) -> np.ndarray:
        """Note an array to make (made in :meth:`_place`); a placeholder until then."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self._specs.append((shape, np.dtype(dtype), fill))
        return _PLACEHOLDER

    def _zeros(self, shape: tuple[int, ...] | int, dtype: type) -> np.ndarray:
        """:meth:`_full` with zeros."""
        return self._full(shape, 0, dtype)

    def _place(self, specs: list[tuple[str, tuple[int, ...], np.dtype, object]]) -> None:
        """Make every array from ``specs`` (its name, shape, dtype, and a fill value or
        the values), as views of one buffer. A big batch then sits in few memory pages,
        which numpy asks the kernel to back with huge pages, so the step's reads across
        some 90 arrays miss the address cache less; each array starts on a cache line,
        one to seven lines after the last one ends, so that the arrays of a batch whose
        size is a power of two do not all fall in the same cache sets."""
        sizes = [int(np.prod(shape)) * dtype.itemsize for _, shape, dtype, _ in specs]
        offsets = []
        end = 0
        for i, size in enumerate(sizes):
            offsets.append(end)
            end += size + (-size) % _LINE + _LINE * (1 + i % 7)
        buffer = np.empty(end + _LINE, np.uint8)
        start = (-buffer.ctypes.data) % _LINE
        for offset, size, (name, shape, dtype, values) in zip(offsets, sizes, specs, strict=True):
            part = buffer[start + offset : start + offset + size].view(dtype).reshape(shape)
            part[...] = values
            setattr(self, name, part)

    def subset(self, games: np.ndarray) -> Arrays:
        """A new ``Arrays`` holding copies of the games ``games``, in that order."""
        out = Arrays.__new__(Arrays)
        out.num_games = len(games)
        out.num_cards = self.num_cards
        out.config = self.config
        picked = [(k, getattr(self, k)[games]) for k in self.fields()]
        out._place([(k, a.shape, a.dtype, a) for k, a in picked])
        return out

    def fields(self) -> list[str]:
        """Names of every per-game array (axis 0 is the game)."""
        return [k for k, v in vars(self).items() if isinstance(v, np.ndarray)]

    def nbytes(self) -> int:
        """Bytes held by all arrays."""
        return sum(getattr(self, k).nbytes for k in self.fields())
