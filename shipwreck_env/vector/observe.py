"""Observations of a whole batch of games at once: :func:`encode_batch` fills row ``g``
with exactly what :func:`shipwreck_env.observation.encode` gives for game ``g`` of an
:class:`~shipwreck_env.vector.arrays.Arrays` and its observer.

No Python loop runs over games: every field is a table lookup or an operation over the
whole batch. As in the reference encoder the vector is first built as uint8 counts,
converted to float32 once, and then the few fractional entries (``turn``,
``deck_size``, ``belief``) are written. The lookup tables depend only on the layout and
are built once per layout; the work buffers once per batch size (the last few sizes
are kept).

How it stays fast (numpy pays per call and per inner loop, and fresh big temporaries
cost page faults, so calls are few, rows of 7 values are avoided and big temporaries
are kept):

* one-hot fields: a lookup table maps each game's key (its phase, observer, decider and
  active seat together, a slot's card, ...) to columns, and one scattered store writes
  the 1s. Nothing to mark maps to the ``turn`` column, which is overwritten after the
  conversion.
* what few games have (a power's announcement, the Chalice, reveals, votes, wrong
  predictions, the flags) is written for those games only (``np.flatnonzero``).
* rows of 7 counts (a slot's fates, hands, unseen copies, wrong predictions) are moved
  as single 7-byte items and added as bytes packed in a uint64 (every count is far
  below 256, so bytes never carry); the hours in front of a slot are one multiplication
  of its packed counts by the packed hour weights.

About a quarter of a call is the uint8 -> float32 conversion (``python -m
shipwreck_env.bench`` measures whole steps). Pass ``out`` to reuse the output (a fresh
array of that size costs page faults). The work buffers are shared per layout and batch
size: calls must not run concurrently in threads.

What is read: the counts ``tcount`` and ``fcount`` (never the ordered lists), the
announcement arrays ``ann_*`` (never the event rows), the deck ring at ``deck_head``,
and the ordered arrays only below their lengths (``hand_len``, ``plays_len``,
``pred_len``, ``votes_len``). Values must lie in the ranges ``Arrays`` documents
(phase 0-8, decider -1..P-1, fates 0-7, ...): some lookups clip instead of checking.
The arrays must be C-contiguous as ``Arrays`` allocates them. Only the base card set is
covered: no attachments, Thief, Fall, costs or pending powers, so those fields stay 0.
"""

from __future__ import annotations

import itertools

import numpy as np

from shipwreck_env.cards import CARDS, NUM_CARDS, NUM_POWERS, POWER_INDEX
from shipwreck_env.fading import CARD_MOONS
from shipwreck_env.observation import ObservationLayout
from shipwreck_env.state import PHASES, Phase
from shipwreck_env.vector.arrays import Arrays

__all__ = ["encode_batch"]

_EMPTY = NUM_CARDS  # one-hot index of "no card"
_SPARROWS = POWER_INDEX["sparrows"]
_U8 = np.dtype(np.uint8)
_V7 = np.dtype("V7")  # a row of 7 uint8 counts moved as one item
_KEPT_SIZES = 4  # work buffers kept per layout, for the last batch sizes used
_KEYS = 256  # an int8 value viewed as uint8 is a key 0..255 (-1 -> 255)
_THREES = np.uint64(0x0003030303030303)  # 3 copies of each value 1..7, packed
# Packed counts (byte i = count of value i + 1) times this: the top byte is the hours
# (1, 1, 1, 2, 2, 2, 3 per fate of value 1..7); no byte sum reaches 256.
_HOURS_WEIGHTS = np.uint64(0x0101010202020300)
_SHIFT56 = np.uint64(56)
_ONES = np.uint64(0x0101010101010101)  # packed counts times this: the top byte is their sum


def _signed(key: int) -> int:
    """The int8 value whose uint8 view is ``key``."""
    return key - 256 if key >= 128 else key


def _packed(counts: np.ndarray) -> np.ndarray:
    """Rows of 7 counts ``[..., 7]`` as packed uint64 ``[...]`` (byte i = value i + 1)."""
    out = np.zeros((*counts.shape[:-1], 8), np.uint8)
    out[..., :7] = counts
    return out.view(np.uint64)[..., 0]


def _as_rows(packed: np.ndarray) -> np.ndarray:
    """Packed uint64 ``[N]`` as 7-byte items ``[N, 1]`` (a view)."""
    return packed.view(np.uint8).reshape(-1, 8)[:, :7].view(_V7)


class _Plan:
    """Offsets and lookup tables of one layout (built once, see :func:`_plan`)."""

    def __init__(self, layout: ObservationLayout) -> None:
        o = layout.offsets
        P, S = layout.num_players, layout.num_seats
        self.P, self.S, self.own = P, S, layout.own_seats
        self.size = layout.size
        self.belief = o.get("belief", -1)
        self.o = o
        trash = self.trash = o["turn"]  # overwritten after the conversion
        keys = [_signed(k) for k in range(_KEYS)]

        def table(col) -> np.ndarray:
            """Lookup table: int8 value (as uint8) -> column, or trash for None."""
            out = np.full(_KEYS, trash, np.intp)
            for k, v in enumerate(keys):
                c = col(v)
                if c is not None:
                    out[k] = c
            return out

        self.score = table(lambda v: o["score"] + min(v, 7) if v >= 0 else None)
        self.doom = table(lambda v: o["doom"] + min(v, 7) if v >= 0 else None)
        # key ((phase * P + observer) * (P + 1) + decider + 1) * S + active seat ->
        # [phase, decider, active_seat, leader] columns
        self.turn_keys = np.full((len(PHASES) * P * (P + 1) * S, 4), trash, np.intp)
        for phase, obs, d, a in itertools.product(
            range(len(PHASES)), range(P), range(-1, P), range(S)
        ):
            self.turn_keys[((phase * P + obs) * (P + 1) + d + 1) * S + a] = (
                o["phase"] + phase,
                o["decider"] + (d - obs) % P if d >= 0 else trash,
                o["active_seat"] + (a - obs) % S,
                o["leader"] + ((a + 1) % P - obs) % P,
            )
        # key observer * S + active seat: does the observer own the active seat?
        self.owns_active = np.array([a % P == obs for obs in range(P) for a in range(S)])
        # key (observer * S + active seat) * 8 + carried value (0 = none)
        self.carried = np.full(P * S * 8, trash, np.intp)
        # key (observer * S + active seat) * 16 + 8 * (vote k was cast) + value (0 = pass)
        self.num_votes = min(4, P - 1)
        self.votes = np.full((max(self.num_votes, 1), P * S * 16), trash, np.intp)
        for obs in range(P):
            for a in range(S):
                oa = obs * S + a
                if a % P == obs:
                    self.carried[oa * 8 + 1 : oa * 8 + 8] = o["own_carried"] + np.arange(7)
                for k in range(self.num_votes):
                    rel = ((a + 1 + k) % P - obs) % P  # votes run clockwise from the leader
                    for v in range(8):
                        self.votes[k, oa * 16 + 8 + v] = o["votes"] + 8 * rel + (v - 1 if v else 7)
        self.vote_cast = [np.where(np.arange(_KEYS) > k, 8, 0) for k in range(4)]
        # per observer: seats in observer-relative order
        self.seat_order = np.array(
            [[(obs + rel) % S for rel in range(S)] for obs in range(P)], np.intp
        )
        # cards: index of the one-hot within a slot's block; deck top; moons
        self.card_index = table(lambda v: _EMPTY if v == -1 else v if 0 <= v < NUM_CARDS else None)
        self.card_base = o["slot_card"] + (NUM_CARDS + 1) * np.arange(4, dtype=np.intp)
        self.top = table(
            lambda v: o["deck_top"] + (_EMPTY if v == -1 else v) if -1 <= v < NUM_CARDS else None
        )
        self.moons = np.zeros(_KEYS, np.uint8)
        for card in range(len(CARDS)):
            self.moons[card] = CARD_MOONS[card] or 0
        # number lines (7-bit masks) as 7-byte rows of 0/1, and as packed byte masks
        line_bits = np.array([[m >> v & 1 for v in range(7)] for m in range(_KEYS)], np.uint8)
        self.line_rows = line_bits.view(_V7)[:, 0]
        self.line_masks = _packed(line_bits * 0xFF)
        one_hot = np.zeros((_KEYS, 7), np.uint8)
        one_hot[np.arange(1, 8), np.arange(7)] = 1
        # two fates a, b (0 = none) as key a * 8 + b: packed counts of each value
        pairs = np.arange(64)
        self.pair_counts = _packed(one_hot[pairs // 8] + one_hot[pairs % 8])
        # a hand's two bytes that hold fates (key: hand_len)
        self.hand_mask = np.zeros(_KEYS, np.uint16)
        self.hand_mask[1], self.hand_mask[2] = 0x00FF, 0xFFFF
        # the first n of 4 predictions (key n as uint8)
        self.pred_mask = np.zeros(_KEYS, np.uint32)
        for n in range(1, 5):
            self.pred_mask[n] = (1 << (8 * n)) - 1
        # plays: per play i, key value + 8 * target + 40 * (landed + 1) (0 = no play) ->
        # its [value, target, landed] columns
        self.play = np.full((2, _KEYS, 3), trash, np.intp)
        for i, value, target, landed in itertools.product(
            range(2), range(1, 8), range(5), range(-1, 4)
        ):
            self.play[i, value + 8 * target + 40 * (landed + 1)] = (
                o["play_value"] + 7 * i + value - 1,
                o["play_target"] + 5 * i + target,
                o["play_landed"] + 4 * i + landed if landed >= 0 else trash,
            )
        # powers and announcements
        self.power = table(lambda v: o["power_used"] + v if 0 <= v < NUM_POWERS else None)
        self.power_value = table(lambda v: o["power_value"] + v - 1 if 1 <= v <= 7 else None)
        self.power_slot = table(lambda v: o["power_slot"] + v if 0 <= v < 4 else None)
        # answer: key answer_class[power] + answer. The reference marks [yes] / [no] for
        # a True / False answer, nothing for None -- and [yes] for Sparrows, whose
        # "answer" is the (old card, new card) pair, truthy.
        self.answer_class = np.full(_KEYS, 2 * _KEYS, np.intp)  # no power: nothing
        self.answer_class[:NUM_POWERS] = 0
        self.answer_class[_SPARROWS] = _KEYS
        self.answer = np.full(3 * _KEYS, trash, np.intp)
        self.answer[1] = o["power_answer"]
        self.answer[0] = o["power_answer"] + 1
        self.answer[_KEYS : 2 * _KEYS] = o["power_answer"]
        self.chalice = table(lambda v: o["chalice"] + (0 if v == 1 else 1) if v in (0, 1) else None)
        # predictions_left is shown in phases group, vote and cost
        self.left_phase = np.zeros(_KEYS, np.int8)
        self.left_phase[[Phase.GROUP, Phase.VOTE, Phase.COST]] = 1
        self._work: dict[tuple[int, int], _Work] = {}

    def work(self, n: int, m: int) -> _Work:
        """The work buffers for ``n`` games of ``m`` cards (the uint8 vector zeroed)."""
        w = self._work.get((n, m))
        if w is None:
            if len(self._work) >= _KEPT_SIZES:  # forget the oldest batch size
                del self._work[next(iter(self._work))]
            w = self._work[n, m] = _Work(self, n, m)
        else:
            w.b.fill(0)
        return w


class _Work:
    """Buffers and index bases for one batch size."""

    def __init__(self, plan: _Plan, n: int, m: int) -> None:
        self.b = np.zeros((n, plan.size), np.uint8)
        self.flat = self.b.reshape(-1)
        self.rows = np.arange(n, dtype=np.intp) * plan.size
        self.rows3 = np.repeat(self.rows, 3).reshape(n, 3)
        self.rows4 = np.repeat(self.rows, 4).reshape(n, 4)
        # big temporaries kept: fresh ones cost page faults on every call
        self.cols4 = np.empty((n, 4), np.intp)
        self.cols3 = np.empty((n, 3), np.intp)
        self.hours = np.empty((n, 4), np.uint64)
        self.seat_at = np.empty((n, plan.S), np.intp)
        self.lines = np.empty((n, plan.S), _V7)
        self.cards = self.rows[:, None] + plan.card_base  # [n, 4]: each slot's one-hot block
        self.seats = np.arange(n, dtype=np.intp) * plan.S  # first seat of each game
        self.seat_rows = np.repeat(self.seats, plan.S).reshape(n, plan.S)
        self.decks = np.arange(n, dtype=np.intp) * m  # first deck entry of each game
        # a slot's 7 counts padded to 8 bytes: packed uint64 [n, 4] and 7-byte items
        self.table = np.zeros((n, 4), np.uint64)
        self.table_rows = np.ndarray((n, 4), _V7, self.table, 0, (32, 8))
        self.exiled = np.zeros(n, np.uint64)
        self.exiled_rows = _as_rows(self.exiled)
        self.known = np.zeros(n, np.uint64)
        self.known_rows = _as_rows(self.known)
        if plan.belief >= 0:  # each game's belief entries in the flat output
            self.belief_at = (self.rows + plan.belief)[:, None] + np.arange(7)


_PLANS: dict[tuple[int, int, bool, int], _Plan] = {}


def _plan(layout: ObservationLayout) -> _Plan:
    key = (layout.num_players, layout.num_seats, layout.belief, layout.size)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = _Plan(layout)
    return plan


def _rows7(b: np.ndarray, offset: int, count: int = 1) -> np.ndarray:
    """Columns ``offset .. offset + 7 * count`` of the uint8 vector as 7-byte items."""
    return b[:, offset : offset + 7 * count].view(_V7)


def _put(b: np.ndarray, offset: int, block: np.ndarray) -> None:
    """Write the C-contiguous ``[N, w]`` block of bytes at columns ``offset ..
    offset + w``, each row as one item (several times cheaper than a byte per item)."""
    item = np.dtype(f"V{block.shape[1]}")
    b[:, offset : offset + block.shape[1]].view(item)[...] = block.view(item)


def encode_batch(
    arr: Arrays,
    layout: ObservationLayout,
    observer: np.ndarray,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """The observations of every game: float32 ``[N, layout.size]`` whose row ``g`` equals
    ``observation.encode(state_g, observer[g], layout)``.

    Args:
        arr: the games (base card set).
        layout: the observation layout of the games' configuration.
        observer: integer array ``[N]``, the observing player (0..P-1) of each game.
        out: optional float32 ``[N, layout.size]`` array to write into (returned).

    Raises:
        ValueError: the games are not of the base set, the layout does not fit their
            configuration, or ``observer`` / ``out`` have the wrong shape, type or
            values.
    """
    cfg = arr.config
    if cfg.card_sets != ("base",):
        raise ValueError(
            f"card_sets {cfg.card_sets!r} is not allowed; allowed: ('base',) (the arrays "
            "hold the base set only)"
        )
    if layout.num_players != cfg.num_players or layout.num_seats != cfg.num_seats:
        raise ValueError(
            f"layout for {layout.num_players} players / {layout.num_seats} seats is not "
            f"allowed; allowed: the games' {cfg.num_players} players / {cfg.num_seats} seats"
        )
    plan = _plan(layout)
    n = arr.num_games
    P, S = plan.P, plan.S
    obs = np.asarray(observer)
    if obs.shape != (n,) or obs.dtype.kind not in "iu":
        raise ValueError(
            f"observer of shape {obs.shape} and dtype {obs.dtype} is not allowed; allowed: "
            f"an integer array of shape ({n},)"
        )
    obs = obs.astype(np.intp, copy=False)
    if n and (int(obs.min()) < 0 or int(obs.max()) >= P):
        raise ValueError(f"observer values outside 0..{P - 1} are not allowed")
    if out is None:
        out = np.empty((n, plan.size), np.float32)
    elif out.shape != (n, plan.size) or out.dtype != np.float32 or not out.flags.c_contiguous:
        raise ValueError(
            f"out of shape {out.shape} and dtype {out.dtype} is not allowed; allowed: "
            f"a C-contiguous float32 array of shape ({n}, {plan.size})"
        )
    if n == 0:
        return out
    o = plan.o
    w = plan.work(n, arr.num_cards)
    b, flat, rows = w.b, w.flat, w.rows
    take = np.take

    def mark(lut: np.ndarray, key: np.ndarray, at: np.ndarray = rows) -> None:
        """One 1 per game at column ``lut[key]`` (``at``: the games' row offsets)."""
        cols = take(lut, key)
        cols += at
        flat[cols] = 1

    # --- one-hot entries of every game
    active = arr.active.astype(np.intp)
    oa = obs * S + active  # observer and active seat
    phase = arr.phase.view(_U8)
    key = phase * P + obs
    key *= P + 1
    key += arr.decider + 1
    key *= S
    key += active
    cols = take(plan.turn_keys, key, axis=0, out=w.cols4, mode="clip")
    cols += w.rows4
    flat[cols] = 1
    mark(plan.score, arr.score.view(_U8))
    mark(plan.doom, arr.doom.view(_U8))
    mark(plan.carried, oa * 8 + arr.old_fate.view(_U8) * ~arr.over)
    slots = arr.slots.view(_U8)
    cols = take(plan.card_index, slots, out=w.cols4, mode="clip")
    cols += w.cards
    flat[cols] = 1
    deck_len = arr.deck_len
    top = take(arr.deck.reshape(-1), w.decks + arr.deck_head % arr.num_cards)
    top[deck_len <= 0] = -1
    mark(plan.top, top.view(_U8))
    plays = arr.plays.view(_U8)
    for i in range(min(2, int(arr.plays_len.max()))):  # the base set plays once a turn
        key = plays[:, i, 0] + (plays[:, i, 1] << 3)  # uint8 wraps: garbage is masked
        key += (plays[:, i, 2] + 1) * 40
        key *= arr.plays_len > i
        cols = take(plan.play[i], key, axis=0, out=w.cols3, mode="clip")
        cols += w.rows3
        flat[cols] = 1

    # --- this turn's announcements, votes and flags: only the games that have them
    games = np.flatnonzero(arr.ann_power >= 0)
    if len(games):
        at = rows[games]
        power = arr.ann_power[games].view(_U8)
        mark(plan.power, power, at)
        mark(plan.power_value, arr.ann_value[games].view(_U8), at)
        mark(plan.power_slot, arr.ann_slot[games].view(_U8), at)
        answer = take(plan.answer_class, power) + arr.ann_answer[games].view(_U8)
        mark(plan.answer, answer, at)
    games = np.flatnonzero(arr.ann_chalice >= 0)
    if len(games):
        mark(plan.chalice, arr.ann_chalice[games].view(_U8), rows[games])
    revealed = arr.ann_reveal.reshape(-1)
    seat_at = np.flatnonzero(revealed)  # game * S + seat of each reveal
    if len(seat_at):
        games = seat_at // S
        rel = (seat_at - games * S - obs[games]) % S  # seat relative to the observer
        flat[rows[games] + (o["reveals"] - 1) + 7 * rel + revealed[seat_at]] = 1
    games = np.flatnonzero(arr.votes_len)
    if len(games):
        at = rows[games]
        votes_len = arr.votes_len[games].view(_U8)
        voter = oa[games] * 16
        votes = arr.votes[games]
        for k in range(min(plan.num_votes, int(votes_len.max()))):
            cast = take(plan.vote_cast[k], votes_len)
            mark(plan.votes[k], voter + cast + (votes[:, k] & 7), at)
    for name in ("feast_done", "shadows", "correct"):
        flat[rows[np.flatnonzero(getattr(arr, name))] + o[name]] = 1
    # wrong predictions: every one but a correct last one (packed, two at a time)
    wrong = arr.pred_len - arr.correct
    games = np.flatnonzero(wrong > 0)
    if len(games):
        predicted = arr.predictions.view(np.uint32)[games, 0]
        predicted &= take(plan.pred_mask, wrong[games].view(_U8))
        first = (predicted & 0xFF) * 8 + ((predicted >> 8) & 0xFF)
        second = ((predicted >> 16) & 0xFF) * 8 + (predicted >> 24)
        counts = take(plan.pair_counts, first) + take(plan.pair_counts, second)
        _rows7(b, o["wrong_predictions"])[games] = _as_rows(counts)
    b[:, o["predictions_left"]] = arr.preds_left * take(plan.left_phase, phase)

    # --- counts
    # table: each slot's fates (none shown for an empty slot), hours, moons
    w.table_rows[...] = arr.tcount.view(_V7)[..., 0]
    table = w.table
    _put(b, o["slot_fates"], arr.tcount.view(_U8).reshape(n, 28))
    occupied = arr.slots >= 0
    if not occupied.all():
        table *= occupied
        b[:, o["slot_fates"] : o["slot_fates"] + 28].reshape(n, 4, 7)[~occupied] = 0
    # the top byte of the packed counts times the packed hour weights
    hours = np.multiply(table, _HOURS_WEIGHTS, out=w.hours)
    hours >>= _SHIFT56
    _put(b, o["slot_hours"], hours.astype(np.uint8))
    _put(b, o["slot_moons"], take(plan.moons, slots))
    _put(b, o["faded_powers"], arr.fcount.view(_U8))
    # unseen: 3 - exiled - known in the bag - on the table - in my hands (packed bytes)
    w.exiled_rows[...] = arr.exiled.view(_V7)
    w.known_rows[...] = arr.bag_known.view(_V7)
    unseen = _THREES - w.exiled
    unseen -= w.known
    unseen -= table[:, 0]
    unseen -= table[:, 1]
    unseen -= table[:, 2]
    unseen -= table[:, 3]
    hands16 = arr.hands.view(np.uint16).reshape(-1)
    hand_len = arr.hand_len.reshape(-1)
    at = w.seats + obs  # the observer's seats: obs, then obs + P (challenge mode)
    for k in range(plan.own):
        if k:
            at += P
        hand = take(hands16, at)
        hand &= take(plan.hand_mask, take(hand_len, at))
        key = hand >> 8
        key += (hand & 0xFF) << 3
        counts = take(plan.pair_counts, key)
        _rows7(b, o["own_hand"] + 7 * k)[...] = _as_rows(counts)
        unseen -= counts
    _rows7(b, o["unseen"])[...] = _as_rows(unseen)
    _rows7(b, o["exiled"])[...] = arr.exiled.view(_V7)
    # seats in observer-relative order: number lines, fates held
    seat_at = take(plan.seat_order, obs, axis=0, out=w.seat_at, mode="clip")
    seat_at += w.seat_rows
    lines = take(plan.line_rows, take(arr.lines.reshape(-1), seat_at), out=w.lines, mode="clip")
    _put(b, o["number_lines"], lines.view(_U8).reshape(n, 7 * S))
    _put(b, o["holding"], take(hand_len, seat_at).view(_U8))

    # --- one conversion, then the fractional entries
    np.copyto(out, b)
    # as the reference: a double quotient, rounded to float32 once
    out[:, o["turn"]] = (arr.turn / 100.0).astype(np.float32)
    out[:, o["deck_size"]] = (deck_len / 36.0).astype(np.float32)
    if plan.belief >= 0:
        _belief(arr, plan, w, oa, active, unseen, out)
    return out


def _belief(
    arr: Arrays,
    plan: _Plan,
    w: _Work,
    oa: np.ndarray,
    active: np.ndarray,
    unseen: np.ndarray,
    out: np.ndarray,
) -> None:
    """The literal posterior over the active seat's kept fate (see the layout): only
    after the play, while the active seat holds one fate and no prediction was correct.
    The weights are packed bytes (unseen copies, plus the kept fate seen from its
    owner, kept where the number line allows); the division is in float64 as the
    reference's, rounded to float32 once."""
    at = w.seats + active
    kept = np.take(arr.hands.reshape(-1), 2 * at) & 7
    weights = np.take(plan.pair_counts, kept * 8)  # the kept fate, seen by its owner
    weights *= np.take(plan.owns_active, oa)
    weights += unseen
    weights &= np.take(plan.line_masks, np.take(arr.lines.reshape(-1), at))
    shown = np.take(arr.hand_len.reshape(-1), at) == 1
    shown &= arr.phase != Phase.PLAY
    shown &= ~arr.correct
    weights *= shown
    total = (weights * _ONES) >> _SHIFT56
    games = np.flatnonzero(total)
    if not len(games):
        return
    counts = weights[games].view(np.uint8).reshape(-1, 8)[:, :7].astype(np.float64)
    counts /= np.repeat(total[games].astype(np.float64), 7).reshape(-1, 7)
    out.reshape(-1)[w.belief_at[games]] = counts
