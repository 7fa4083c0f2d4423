"""The rules engine: start a game, list the legal actions, apply one action.

A game is a :class:`~shipwreck_env.state.State` plus the pure functions here:

* :func:`new_game` -- a fresh game from a configuration and a numpy ``Generator``;
* :func:`legal_actions` -- the action numbers (``shipwreck_env.actions``) that the
  player in ``state.decider`` may choose now;
* :func:`step` -- a new state after one action; the given state is untouched.
  :func:`step_inplace` does the same on the given state (the environment's fast path).

All randomness (shuffling the deck, drawing fates) comes from the ``Generator`` passed
in: the same seed and the same actions always give the same game. The turn follows
``shared/rules/rulings.md``: draw, powers before the play, play (The Feast: play, draw,
play again), automatic announcements (Hours slide, Thief, Chalice, Fall), powers after
the play, the optional reveals, the group's powers and predictions (leader or vote),
resolve, Sails, fade, refill, end check, next seat.

Whether a phase happens depends only on public facts, so the order in which players
are asked to decide never reveals a hidden fate. This module imports neither
gymnasium nor pettingzoo.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env import powers
from shipwreck_env.actions import ACTIONS, HOURS_TARGET, NUM_ACTIONS, PASS, REVEAL, describe
from shipwreck_env.cards import CARD_INDEX, CARDS, FATE_COPIES, POWER_INDEX, fate_hours
from shipwreck_env.config import GameConfig
from shipwreck_env.number_lines import (
    CARD_CONTEXT,
    constrain_kept,
    hours_kept_mask,
    real_mask,
    record_play,
    slot_kept_row,
    visible_summary,
)
from shipwreck_env.rules import KEPT_MASKS
from shipwreck_env.state import ALL_VALUES, Phase, State

__all__ = [
    "IllegalActionError",
    "current_player",
    "legal_actions",
    "legal_mask",
    "new_game",
    "slot_hours",
    "step",
    "step_inplace",
]

FEAST = CARD_INDEX["feast"]
WISH = CARD_INDEX["wish"]
CHALICE = CARD_INDEX["chalice"]
THIEF = CARD_INDEX["thief"]
FALL = CARD_INDEX["fall"]
ASH = CARD_INDEX["ash"]
IMAGO = CARD_INDEX["imago"]
BLIND_MAN = CARD_INDEX["blind_man"]
SANDS = POWER_INDEX["sands"]
SCIONS = POWER_INDEX["scions"]
CARD_MOONS: list[int | None] = [card.moons for card in CARDS]
HOURS_OF: list[int] = [0] + [fate_hours(v) for v in range(1, 8)]
WIN_SCORE = 7
LOSE_DOOM = 7

PLAY_ACTION: list[list[int]] = [[0] * 8 for _ in range(HOURS_TARGET + 1)]
PREDICT_ACTION: list[int] = [0] * 8
STEAL_ACTION: list[list[int]] = [[0] * 8 for _ in range(4)]
for _a in ACTIONS:
    if _a.kind == "play":
        PLAY_ACTION[_a.slot][_a.value] = _a.index
    elif _a.kind == "predict":
        PREDICT_ACTION[_a.value] = _a.index
    elif _a.kind == "steal":
        STEAL_ACTION[_a.slot][_a.value] = _a.index
ALL_PREDICTS: list[int] = PREDICT_ACTION[1:]
PREDICTS_AND_PASS: list[int] = [*ALL_PREDICTS, PASS]


class IllegalActionError(ValueError):
    """An action that is not legal in the current state; the state is unchanged."""


# --- public API -----------------------------------------------------------------------


def new_game(
    config: GameConfig | None = None, rng: np.random.Generator | int | None = None
) -> State:
    """Shuffle the deck, deal four cards and let seat 0 draw: a game ready for its first
    decision.

    Args:
        config: the rules of this game (default: ``GameConfig()``).
        rng: the game's random generator, or an int seed for a new one. Keep passing the
            same generator to :func:`step`: it makes every later draw.
    """
    config = config if config is not None else GameConfig()
    if not isinstance(config, GameConfig):
        raise ValueError(f"config {config!r} is not a GameConfig")
    rng = _as_rng(rng)
    cards = _deck_cards(config.card_sets)
    deck = [cards[i] for i in rng.permutation(len(cards)).tolist()]
    s = State.__new__(State)
    s.config = config
    s.slots = deck[:4]
    s.deck = deck[4:]
    s.table = [[], [], [], []]
    s.attached = [[], [], [], []]
    s.sands_waiting = [-1, -1, -1, -1]
    s.faded = []
    s.bag = [FATE_COPIES] * 7
    s.bag_known = [0] * 7
    s.exiled = [0] * 7
    seats = config.num_seats
    s.hands = [[] for _ in range(seats)]
    s.lines = [ALL_VALUES] * seats
    s.score = 0
    s.doom = config.starting_doom
    s.turn = 0
    s.over = s.won = s.truncated = False
    s.events = []
    s.last_events = []
    _start_turn(s, 0, rng)
    return s


_DECKS: dict[tuple[str, ...], list[int]] = {}


def _deck_cards(card_sets: tuple[str, ...]) -> list[int]:
    """Card numbers of the chosen sets, in card order (cached: configs repeat)."""
    cards = _DECKS.get(card_sets)
    if cards is None:
        cards = _DECKS[card_sets] = [i for i, c in enumerate(CARDS) if c.set in card_sets]
    return cards


def current_player(s: State) -> int:
    """The player who must decide now (-1 once the game is over)."""
    return s.decider


def legal_actions(s: State) -> list[int]:
    """The legal action numbers for ``current_player(s)``, ascending."""
    return _LEGAL[s.phase](s)


def _legal_group(s: State) -> list[int]:
    if s.config.group_decision == "leader":
        return _with_powers(PREDICTS_AND_PASS[:], s, Phase.GROUP)
    return _with_powers([PASS], s, Phase.GROUP)


# Per phase (index = Phase value): the legal actions, each list new (callers own it).
_LEGAL = [
    lambda s: _with_powers(_play_legal(s), s, Phase.PLAY),
    lambda s: _with_powers(_steal_legal(s), s, Phase.STEAL),
    lambda s: _with_powers([PASS], s, Phase.AFTER_PLAY),
    lambda s: [PASS, REVEAL],
    _legal_group,
    lambda s: PREDICTS_AND_PASS[:],
    lambda s: powers.cost_legal(s),
    lambda s: _with_powers([PASS], s, Phase.SAILS),
    lambda s: [],
]


def _with_powers(legal: list[int], s: State, phase: int) -> list[int]:
    """``legal`` plus the powers offered in ``phase``, ascending."""
    if s.power_used or not s.faded:  # nothing offered (powers.offered's own first test)
        return legal
    offered = powers.offered(s, phase)
    if not offered:
        return legal
    legal = legal + offered
    legal.sort()
    return legal


def legal_mask(s: State) -> np.ndarray:
    """Legal actions as an int8 array of length ``NUM_ACTIONS`` (1 = legal)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[legal_actions(s)] = 1
    return mask


def step(s: State, action: int, rng: np.random.Generator) -> State:
    """The state after ``current_player(s)`` takes ``action``; ``s`` is not changed.

    Raises:
        IllegalActionError: ``action`` is not in ``legal_actions(s)``.
    """
    _check_legal(s, action)
    new = s.copy()
    _apply(new, action, rng)
    return new


def step_inplace(s: State, action: int, rng: np.random.Generator, *, check: bool = True) -> None:
    """Apply ``action`` to ``s`` itself. With ``check`` (default) an illegal action raises
    :class:`IllegalActionError` before anything changes; ``check=False`` is for callers
    that took ``action`` from :func:`legal_actions` of this very state."""
    if check:
        _check_legal(s, action)
    _apply(s, action, rng)


def slot_hours(s: State, slot: int) -> int:
    """Hours in front of the card on ``slot`` (Scions: 1 per fate; Imago: a 7 is 1)."""
    fates = s.table[slot]
    if s.attached[slot]:
        for card in s.attached[slot]:
            if powers.CARD_POWER[card] == SCIONS:
                return len(fates)
    hours = 0
    for v in fates:
        hours += HOURS_OF[v]
    if s.slots[slot] == IMAGO:
        hours -= 2 * fates.count(7)  # a 7 counts 1 hour there, not 3
    return hours


# --- helpers --------------------------------------------------------------------------


def _as_rng(rng: np.random.Generator | int | None) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    raise ValueError(f"rng {rng!r} is not a numpy Generator or an int seed")


def _check_legal(s: State, action: int) -> None:
    legal = legal_actions(s)
    if action in legal and isinstance(action, (int, np.integer)):
        return
    if s.over:
        raise IllegalActionError(f"action {action!r}: the game is over; no action is legal")
    try:
        what = describe(int(action))
    except (TypeError, ValueError):
        what = f"not an action number (0..{NUM_ACTIONS - 1})"
    options = ", ".join(f"{a} ({describe(a)})" for a in legal)
    raise IllegalActionError(f"action {action!r} [{what}] is not legal now; legal: {options}")


def _apply(s: State, action: int, rng: np.random.Generator) -> None:
    action = int(action)
    apply = _APPLY[s.phase]
    s.turn_actions.append(action)  # every action is public: noted before it is applied
    apply(s, action, rng)


def _draw(s: State, rng: np.random.Generator) -> int:
    """Draw one fate from the bag (an empty bag first takes back every fate on the
    table, and -- if that is not enough -- the exiled ones)."""
    bag = s.bag
    total = sum(bag)
    if total == 0:
        returned = 0
        for fates in s.table:
            for v in fates:
                bag[v - 1] += 1
            returned += len(fates)
            fates.clear()
        s.events.append(("table_to_bag", returned))
        total = returned
        if total == 0:  # every fate is held or exiled: not reachable in play, kept safe
            for i, n in enumerate(s.exiled):
                bag[i] += n
                s.exiled[i] = 0
            total = sum(bag)
            s.events.append(("exiled_to_bag", total))
    s.bag_known = [0] * 7  # after a blind draw nobody knows which fates are still in
    r = int(rng.random() * total)  # one uniform double: cheaper than rng.integers
    for i in range(7):
        r -= bag[i]
        if r < 0:
            bag[i] -= 1
            return i + 1
    raise AssertionError("bag count mismatch")


def _visible_on_others(s: State, excluded_slot: int) -> list[tuple[int, int]]:
    return [
        (slot, v) for slot in range(4) if slot != excluded_slot for v in sorted(set(s.table[slot]))
    ]


def _slot_of(s: State, card: int) -> int:
    slots = s.slots
    return slots.index(card) if card in slots else -1  # no exception: usually absent


# --- turn start -----------------------------------------------------------------------


def _start_turn(s: State, seat: int, rng: np.random.Generator) -> None:
    s.turn += 1
    reset_turn(s, seat)
    hand = s.hands[seat]
    drawn = 2 - len(hand)
    for _ in range(drawn):
        hand.append(_draw(s, rng))
    s.events.append(("draw", seat, drawn))
    s.turn_start = public_snapshot(s)


def public_snapshot(s: State) -> tuple:
    """The public table now, as nested tuples (see ``State.turn_start``)."""
    # map() instead of generator expressions: built once per turn, on the hot path
    return (
        tuple(s.slots),
        tuple(map(tuple, s.table)),
        tuple(map(tuple, s.attached)),
        tuple(s.sands_waiting),
        tuple(s.faded),
        s.deck[0] if s.deck else -1,
        len(s.deck),
        tuple(s.exiled),
        tuple(s.lines),
        tuple(map(len, s.hands)),
        s.score,
        s.doom,
        s.turn,
    )


def reset_turn(s: State, seat: int) -> None:
    """Make ``seat`` active at the start of its turn, before it draws: clear everything
    that lasts one turn and note which fate (if any) it carries over."""
    s.active = seat
    s.last_events = s.events
    s.events = []
    s.turn_actions = []
    s.queue = []
    s.power_used = s.shadows = s.feast_done = s.played_old = s.correct = False
    s.plays = []
    s.predictions = []
    s.votes = []
    s.preds_left = 1
    s.pending = ()
    s.fall_kept = 0
    s.fall_fading = -1
    s.ash_trigger = False
    s.kept_eff = 0
    hand = s.hands[seat]
    s.old_fate = hand[0] if hand else 0
    s.tracked = s.line_fresh = s.line_tracked = s.lines[seat] if hand else ALL_VALUES
    s.phase = Phase.PLAY
    s.decider = seat % s.config.num_players  # s.owner(seat)


# --- play -----------------------------------------------------------------------------


def _play_legal(s: State) -> list[int]:
    a, b = s.hands[s.active]
    out: list[int] = []
    vis_mask, vis_sum4 = visible_summary(s)
    # slot_kept_row inlined (the hottest loop): the key each card's condition reads
    keys = (0, vis_mask, vis_sum4)
    masks_now = 1 if s.shadows else 0
    slots, table, feast_done = s.slots, s.table, s.feast_done
    for slot in range(4):
        card = slots[slot]
        if card < 0 or (card == FEAST and feast_done):
            continue
        kind = CARD_CONTEXT[card]
        key = keys[kind] if kind < 3 else max(table[slot], default=0)
        row = KEPT_MASKS[card][masks_now][key]
        if row[a - 1] >> (b - 1) & 1:
            out.append(PLAY_ACTION[slot][a])
        if b != a and row[b - 1] >> (a - 1) & 1:
            out.append(PLAY_ACTION[slot][b])
    if not out:
        out.append(PLAY_ACTION[HOURS_TARGET][min(a, b)])
        if a != b:
            out.append(PLAY_ACTION[HOURS_TARGET][max(a, b)])
    out.sort()
    return out


def _apply_play_phase(s: State, action: int, rng: np.random.Generator) -> None:
    spec = ACTIONS[action]
    if spec.kind == "power":
        powers.apply_power(s, action)
        return
    _play(s, spec.value, spec.slot, rng)


def _play(s: State, value: int, target: int, rng: np.random.Generator) -> None:
    hand = s.hands[s.active]
    if target == HOURS_TARGET:
        condition = hours_kept_mask(s, value)
    else:
        vis_mask, vis_sum4 = visible_summary(s)
        condition = slot_kept_row(s, target, vis_mask, vis_sum4)[value - 1]
    other = hand[1] if hand[0] == value else hand[0]
    # Two equal fates: the one drawn this turn is played, the carried one stays.
    s.played_old = bool(s.old_fate) and value == s.old_fate and other != value
    if s.played_old:
        s.old_fate = 0
    hand.remove(value)
    record_play(s, value, condition)
    landed = target
    if target == HOURS_TARGET:  # slides to the first card in play
        landed = next((slot for slot in range(4) if s.slots[slot] >= 0), -1)
    if landed >= 0:
        s.table[landed].append(value)
    else:  # no arcana card in play at all: the fate has nowhere to slide
        s.bag[value - 1] += 1
        s.bag_known[value - 1] += 1
    s.plays.append((value, target, landed))
    s.events.append(("play", value, target, landed))
    if value <= 2 and ASH in s.slots:
        s.ash_trigger = True
    card = s.slots[target] if target < HOURS_TARGET else -1
    if card == FEAST and not s.feast_done:
        s.feast_done = True
        s.tracked = s.lines[s.active]
        hand.append(_draw(s, rng))
        s.events.append(("feast_draw", s.active))
        return
    if card == WISH:
        s.preds_left += 1
    _finish_plays(s)


def _finish_plays(s: State) -> None:
    s.kept_eff = s.hands[s.active][0] + (1 if s.shadows else 0)
    if THIEF in s.slots:
        thief = s.slots.index(THIEF)
        if _visible_on_others(s, thief) or powers.any_offered(s, Phase.STEAL):
            s.phase = Phase.STEAL
            s.decider = s.active_player
            return
    _after_steal(s)


# --- The Thief ------------------------------------------------------------------------


def _steal_legal(s: State) -> list[int]:
    thief = _slot_of(s, THIEF)
    out = [STEAL_ACTION[slot][v] for slot, v in _visible_on_others(s, thief) if v > s.kept_eff]
    return out if out else [PASS]


def _apply_steal(s: State, action: int, rng: np.random.Generator) -> None:
    spec = ACTIONS[action]
    if spec.kind == "power":
        powers.apply_power(s, action)
        return
    thief = _slot_of(s, THIEF)
    if spec.kind == "steal":
        v = spec.value
        s.table[spec.slot].remove(v)
        s.table[thief].append(v)
        constrain_kept(s, real_mask(s, lambda e: e < v))
        s.events.append(("steal", spec.slot, v))
    else:
        highest = max((v for _, v in _visible_on_others(s, thief)), default=0)
        constrain_kept(s, real_mask(s, lambda e: e >= highest))
        s.events.append(("steal", -1, 0))
    _after_steal(s)


# --- announcements and the active player's powers after the play ----------------------


def _after_steal(s: State) -> None:
    value, target, _ = s.plays[-1]
    if target < HOURS_TARGET and s.slots[target] == CHALICE:
        higher = s.kept_eff > value
        constrain_kept(s, real_mask(s, lambda e: (e > value) == higher))
        s.events.append(("chalice", higher))
    s.fall_kept = s.kept_eff
    _announce_fall(s)
    if powers.any_offered(s, Phase.AFTER_PLAY):
        s.phase = Phase.AFTER_PLAY
        s.decider = s.active_player
        return
    _enter_reveal(s)


def _fall_fades(s: State, slot: int) -> bool:
    return sum(s.table[slot]) >= 2 * s.fall_kept


def _announce_fall(s: State) -> None:
    """The Fall: say whether it fades this turn (again whenever the answer may change)."""
    if FALL not in s.slots or s.fall_kept == 0:
        return
    slot = s.slots.index(FALL)
    fading = _fall_fades(s, slot)
    if int(fading) != s.fall_fading:
        s.fall_fading = int(fading)
        s.events.append(("fall", fading))
    if not s.predictions:  # the kept fate is still hidden: the answer is news about it
        total = sum(s.table[slot])
        constrain_kept(s, real_mask(s, lambda e: (total >= 2 * e) == fading))


def _apply_after_play(s: State, action: int, rng: np.random.Generator) -> None:
    if action != PASS:
        powers.apply_power(s, action)
        _announce_fall(s)
    _enter_reveal(s)


# --- reveals --------------------------------------------------------------------------


def _enter_reveal(s: State) -> None:
    if s.config.reveal:
        hands = s.hands
        queue = s.queue = [seat for seat in _others_after(s) if hands[seat]]
        if queue:
            s.phase = Phase.REVEAL
            s.decider = queue[0] % s.config.num_players  # s.owner(queue[0])
            return
    _enter_group(s)


_ORDERS: dict[int, list[int]] = {}


def _others_after(s: State) -> list[int]:
    """Seats of the other players, clockwise from the active seat (cached)."""
    seats, players, active = len(s.hands), s.config.num_players, s.active
    key = (seats * 8 + players) * 16 + active  # one int: cheaper to hash than a tuple
    order = _ORDERS.get(key)
    if order is None:
        me = active % players
        order = [(active + i) % seats for i in range(1, seats)]
        order = _ORDERS[key] = [seat for seat in order if seat % players != me]
    return order


def _apply_reveal(s: State, action: int, rng: np.random.Generator) -> None:
    seat = s.queue.pop(0)
    if action == REVEAL:
        v = s.hands[seat].pop()
        s.bag[v - 1] += 1
        s.bag_known[v - 1] += 1
        s.lines[seat] = ALL_VALUES
        s.events.append(("reveal", seat, v))
    if s.queue:
        s.decider = s.owner(s.queue[0])
    else:
        _enter_group(s)


# --- the group: powers, votes, predictions ----------------------------------------------


def _enter_group(s: State) -> None:
    if s.config.group_decision == "leader" or powers.any_offered(s, Phase.GROUP):
        s.phase = Phase.GROUP
        n = s.config.num_players
        s.decider = (s.active % n + 1) % n  # s.leader
    else:
        _enter_vote(s)


def _apply_group(s: State, action: int, rng: np.random.Generator) -> None:
    spec = ACTIONS[action]
    if spec.kind == "power":
        powers.apply_power(s, action)
        if s.phase == Phase.COST:  # Scythes: the cost comes first
            return
        if s.config.group_decision == "vote":
            _enter_vote(s)
        return
    if spec.kind == "predict":
        _predict(s, spec.value, rng)
    elif s.config.group_decision == "leader":
        _end_predictions(s, rng)
    else:
        _enter_vote(s)


def _enter_vote(s: State) -> None:
    n = s.config.num_players
    me = s.active_player
    s.queue = [(me + i) % n for i in range(1, n)]
    s.votes = []
    s.phase = Phase.VOTE
    s.decider = s.queue[0]


def _apply_vote(s: State, action: int, rng: np.random.Generator) -> None:
    player = s.queue.pop(0)
    value = ACTIONS[action].value if action != PASS else 0
    s.votes.append(value)
    s.events.append(("vote", player, value))
    if s.queue:
        s.decider = s.queue[0]
        return
    voters = len(s.votes)
    for v in set(s.votes):
        if v and 2 * s.votes.count(v) > voters:
            _predict(s, v, rng)
            return
    _end_predictions(s, rng)


def _predict(s: State, value: int, rng: np.random.Generator) -> None:
    real = s.hands[s.active][0]
    correct = value == real
    s.predictions.append(value)
    s.events.append(("predict", value, correct))
    if correct:
        s.correct = True
        _end_predictions(s, rng)
        return
    s.preds_left -= 1
    constrain_kept(s, ALL_VALUES & ~(1 << (value - 1)))
    if s.preds_left > 0:
        _enter_group(s)
    else:
        _end_predictions(s, rng)


def _end_predictions(s: State, rng: np.random.Generator) -> None:
    if s.predictions:  # resolve: the predicted fate goes back to the bag
        v = s.hands[s.active].pop()
        s.bag[v - 1] += 1
        if s.correct:  # a missed fate goes back unseen
            s.bag_known[v - 1] += 1
        s.lines[s.active] = ALL_VALUES
        s.events.append(("resolve", s.correct))  # a missed fate is not shown
    if s.correct and powers.offered(s, Phase.SAILS):
        s.phase = Phase.SAILS
        s.decider = s.leader
        return
    _end_turn(s, rng)


def _apply_sails(s: State, action: int, rng: np.random.Generator) -> None:
    if action == PASS:
        _end_turn(s, rng)
        return
    powers.apply_power(s, action)  # moves to the cost phase


def _apply_cost(s: State, action: int, rng: np.random.Generator) -> None:
    powers.apply_cost(s, action)
    used, slot, value = s.pending
    s.pending = ()
    if used == "scythes":
        powers.answer_scythes(s)
        if s.config.group_decision == "leader":
            s.phase = Phase.GROUP
            s.decider = s.leader
        else:
            _enter_vote(s)
        return
    s.table[slot].remove(value)
    s.exiled[value - 1] += 1
    s.events.append(("exile", slot, value))
    _announce_fall(s)
    _end_turn(s, rng)


# --- end of turn: score, fade, refill, next seat ------------------------------------------


def _fades(s: State, slot: int) -> bool:
    card = s.slots[slot]
    if card == ASH:
        return s.ash_trigger
    if card == FALL:
        return s.fall_kept > 0 and _fall_fades(s, slot)
    return slot_hours(s, slot) >= CARD_MOONS[card]


def _end_turn(s: State, rng: np.random.Generator) -> None:
    slots, table = s.slots, s.table
    fading = []
    for slot in range(4):
        card = slots[slot]
        # A card with nothing in front can only fade by its own text (The Ash).
        if card >= 0 and (table[slot] or card == ASH) and _fades(s, slot):
            fading.append(slot)
    bonus = 1 if fading and _amplified(s, fading) else 0
    if s.correct:
        s.score += 1 + bonus
    else:
        if s.predictions:
            s.doom += 1
        for slot in fading:
            if slots[slot] != BLIND_MAN:
                s.doom += 2 + bonus
    if fading:
        for slot in fading:
            _fade(s, slot)
        _refill(s)
    elif min(slots) < 0:  # a slot may still wait for a card (the deck ran out before)
        _refill(s)
    if s.score >= WIN_SCORE:
        _game_over(s, won=True)
    elif s.doom >= LOSE_DOOM:
        _game_over(s, won=False)
    elif s.config.max_turns is not None and s.turn >= s.config.max_turns:
        s.truncated = True
        _game_over(s, won=False)
    else:
        _start_turn(s, (s.active + 1) % len(s.hands), rng)


def _amplified(s: State, fading: list[int]) -> bool:
    """Does Sands sit on a fading card (its fade costs or scores one more)?"""
    card_power = powers.CARD_POWER
    return any(card_power[card] == SANDS for slot in fading for card in s.attached[slot])


def _fade(s: State, slot: int) -> None:
    for v in s.table[slot]:
        s.bag[v - 1] += 1
        s.bag_known[v - 1] += 1
    s.table[slot] = []
    s.deck.extend(s.attached[slot])
    s.attached[slot] = []
    card = s.slots[slot]
    s.slots[slot] = -1
    if powers.CARD_POWER[card] == SANDS:
        s.sands_waiting[slot] = card
    else:
        s.faded.append(card)
    s.events.append(("fade", slot, CARDS[card].id))


def _refill(s: State) -> None:
    for slot in range(4):
        if s.slots[slot] >= 0 or not s.deck:
            continue
        card = s.deck.pop(0)
        s.slots[slot] = card
        s.events.append(("refill", slot, CARDS[card].id))
        if s.sands_waiting[slot] >= 0:
            s.attached[slot].append(s.sands_waiting[slot])
            s.sands_waiting[slot] = -1
            s.events.append(("attach", "sands", slot))


def _game_over(s: State, *, won: bool) -> None:
    s.over = True
    s.won = won
    s.phase = Phase.GAME_OVER
    s.decider = -1
    s.queue = []


_APPLY = {  # _apply notes every action in turn_actions before calling these
    Phase.PLAY: _apply_play_phase,
    Phase.STEAL: _apply_steal,
    Phase.AFTER_PLAY: _apply_after_play,
    Phase.REVEAL: _apply_reveal,
    Phase.GROUP: _apply_group,
    Phase.VOTE: _apply_vote,
    Phase.COST: _apply_cost,
    Phase.SAILS: _apply_sails,
}
