"""What one player sees, as one flat float32 vector with named slices.

:class:`ObservationLayout` declares every slice once -- name, offset, size, meaning --
for a given number of players, challenge mode and options; :func:`encode` fills a
vector from a state for one observer; :func:`decode` and :func:`to_text` turn a vector
back into named values and readable text. The layout table in the README is generated
from :meth:`ObservationLayout.markdown`.

Seats and players are ordered relative to the observer (index 0 is the observer's own
seat or player, then clockwise). Only public facts and the observer's own fates are
encoded: never another player's held fate, nor anything derived from it (the kept
fate's effective value, whether the played fate was the carried one, ...).
Sized for all 36 cards and 17 powers whatever the card sets.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from shipwreck_env.rules.actions import HOURS_TARGET
from shipwreck_env.rules.cards import CARDS, NUM_CARDS, NUM_POWERS, POWER_INDEX, POWERS
from shipwreck_env.rules.conditions import mask_values
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.fading import CARD_MOONS, HOURS_OF, IMAGO, fates_hours
from shipwreck_env.rules.powers import CARD_POWER
from shipwreck_env.rules.state import PHASES, State

__all__ = ["Field", "ObservationLayout", "decode", "encode", "to_text", "unseen_counts"]

EMPTY = NUM_CARDS  # one-hot index for "no card"
_SCIONS = POWER_INDEX["scions"]
_SANDS = POWER_INDEX["sands"]
_UINT8 = np.dtype(np.uint8)  # dtype objects: numpy need not look them up per call
_FLOAT32 = np.dtype(np.float32)


@dataclass(frozen=True)
class Field:
    """One named slice of the observation vector."""

    name: str
    offset: int
    size: int
    meaning: str

    @property
    def slice(self) -> slice:
        """``obs[field.slice]`` is this field."""
        return slice(self.offset, self.offset + self.size)


class ObservationLayout:
    """The observation's slices for one configuration.

    Args:
        num_players: players in the game.
        challenge_mode: two seats per player.
        belief: append the literal posterior over the active player's kept fate.
    """

    def __init__(self, num_players: int, challenge_mode: bool = False, belief: bool = False):
        self.num_players = num_players
        self.num_seats = 2 * num_players if challenge_mode else num_players
        self.own_seats = 2 if challenge_mode else 1
        self.belief = belief
        P, S, own = num_players, self.num_seats, self.own_seats
        spec = [
            ("phase", len(PHASES), "one-hot phase: " + ", ".join(PHASES)),
            ("decider", P, "one-hot player who decides now (0 = me, then clockwise)"),
            ("active_seat", S, "one-hot seat whose turn it is (0 = my first seat)"),
            ("leader", P, "one-hot player who decides for the group"),
            ("score", 8, "one-hot score 0..7"),
            ("doom", 8, "one-hot doom 0..7 (7 = lost)"),
            ("turn", 1, "turns started / 100"),
            ("own_hand", 7 * own, "count of each value 1..7 in my seat's hand (per own seat)"),
            (
                "own_carried",
                7,
                "one-hot value of the fate I carried into this turn, while "
                "I am active and it is still in my hand",
            ),
            (
                "slot_card",
                4 * (NUM_CARDS + 1),
                "per slot 0..3: one-hot card number "
                f"(0..{NUM_CARDS - 1}, cards.CARDS order) or {EMPTY} = empty slot",
            ),
            ("slot_fates", 4 * 7, "per slot: count of each value 1..7 in front of it"),
            ("slot_hours", 4, "per slot: hours in front of the card"),
            ("slot_moons", 4, "per slot: the card's moons (0 if none or empty)"),
            ("slot_scions", 4, "per slot: 1 if Scions is attached"),
            ("slot_sands", 4, "per slot: 1 if Sands is attached"),
            ("deck_top", NUM_CARDS + 1, f"one-hot top card of the deck, {EMPTY} = empty"),
            ("deck_size", 1, "cards in the deck / 36"),
            ("faded_powers", NUM_POWERS, "available faded cards per power (cards.POWERS order)"),
            (
                "unseen",
                7,
                "copies of each value 1..7 whose place I cannot see: not on the "
                "table, not in my hands, not exiled, not known to be in the bag",
            ),
            ("exiled", 7, "exiled copies of each value"),
            ("number_lines", 7 * S, "per seat: 1 for each value its held fate may still be"),
            ("holding", S, "per seat: fates it holds (0, 1 or 2)"),
            ("play_value", 2 * 7, "this turn's first and second play: one-hot value"),
            ("play_target", 2 * 5, "this turn's plays: one-hot target slot 0..3 or 4 = The Hours"),
            ("play_landed", 2 * 4, "this turn's plays: one-hot slot where the fate landed"),
            ("feast_done", 1, "1 if The Feast was played on this turn"),
            ("power_used", NUM_POWERS, "one-hot power used this turn"),
            (
                "power_value",
                7,
                "one-hot value argument of that power (Saints X, Storms, "
                "Sinners, Skies, Sails, Shackles' played fate)",
            ),
            ("power_slot", 4, "one-hot slot argument of that power"),
            ("power_to_slot", 4, "one-hot destination slot of Skies"),
            ("power_answer", 2, "that power's answer: [yes, no]"),
            ("shadows", 1, "1 if Shadows is active this turn"),
            ("cost_paid", NUM_POWERS, "one-hot power discarded as a cost this turn"),
            ("pending", 2, "waiting for a cost: [sails, scythes]"),
            (
                "steal",
                7 + 4 + 1,
                "The Thief: one-hot value taken, one-hot slot it came from, took nothing",
            ),
            ("chalice", 2, "The Chalice's tell: [higher, not higher]"),
            ("fall", 2, "The Fall's announcement: [fades, does not fade]"),
            ("reveals", 7 * S, "per seat: one-hot value it revealed this turn"),
            ("votes", 8 * P, "per player: this round's vote, one-hot 1..7 or pass"),
            ("wrong_predictions", 7, "values predicted wrongly this turn"),
            ("predictions_left", 1, "predictions the group may still make this turn"),
            ("correct", 1, "1 if this turn's prediction was correct"),
        ]
        if belief:
            spec.append(
                (
                    "belief",
                    7,
                    "literal posterior over the active seat's kept fate: "
                    "its number line times unseen copies, normalised (0 before the play)",
                )
            )
        self.fields: tuple[Field, ...] = ()
        offset = 0
        fields = []
        for name, size, meaning in spec:
            fields.append(Field(name, offset, size, meaning))
            offset += size
        self.fields = tuple(fields)
        self.size = offset
        self.offsets: dict[str, int] = {f.name: f.offset for f in fields}
        self.by_name: dict[str, Field] = {f.name: f for f in fields}
        self.encoder = _compile_encoder(self)

    def __reduce__(self) -> tuple:
        # the compiled encoder is a closure, which pickle cannot store: rebuild it
        return (ObservationLayout, (self.num_players, self.own_seats == 2, self.belief))

    @property
    def fingerprint(self) -> str:
        """A short hash of the fields' names, offsets and sizes: equal fingerprints mean
        the same vector layout (trained models record it and refuse another)."""
        import hashlib

        text = ";".join(f"{f.name}:{f.offset}:{f.size}" for f in self.fields)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @classmethod
    def for_config(cls, config: GameConfig, belief: bool = False) -> ObservationLayout:
        """The layout of a game with ``config``."""
        return cls(config.num_players, config.challenge_mode, belief)

    def markdown(self) -> str:
        """The layout as a Markdown table."""
        rows = ["| name | offset | size | meaning |", "|---|---:|---:|---|"]
        rows += [f"| `{f.name}` | {f.offset} | {f.size} | {f.meaning} |" for f in self.fields]
        return "\n".join(rows)


def unseen_counts(s: State, observer: int) -> list[int]:
    """Copies of each value whose place ``observer`` cannot see (see the layout)."""
    unseen = [3 - e - k for e, k in zip(s.exiled, s.bag_known, strict=True)]
    for slot in range(4):
        for v in s.table[slot]:
            unseen[v - 1] -= 1
    for seat in range(observer, len(s.hands), s.config.num_players):
        for v in s.hands[seat]:
            unseen[v - 1] -= 1
    return unseen


def encode(s: State, observer: int, layout: ObservationLayout) -> np.ndarray:
    """The observation vector (float32, ``layout.size``) of player ``observer``."""
    return layout.encoder(s, observer)


def _compile_encoder(layout: ObservationLayout):
    """Build the layout's encoder: a closure with every offset bound as a local.

    The vector is filled as a ``bytearray`` of counts (one per thread, reused) (every integer field is a count or
    a 0/1 flag, far below 256): one byte store per one-hot, a count stored once rather
    than one index per unit, and whole 7-value rows (number lines) copied from
    precomputed ``bytes``. One numpy conversion to float32 at the end; only the few
    fractional entries are written afterwards. This is several times cheaper than
    collecting indices for ``np.bincount`` (turning a Python list into an int64 array
    costs more than filling the bytes directly).
    """
    o = layout.offsets
    P, S, size = layout.num_players, layout.num_seats, layout.size
    PHASE, DECIDER, ACTIVE, LEADER = o["phase"], o["decider"], o["active_seat"], o["leader"]
    SCORE, DOOM, TURN, OWN, CARRIED = (
        o["score"],
        o["doom"],
        o["turn"],
        o["own_hand"],
        o["own_carried"],
    )
    CARD, FATES, HOURS, MOONS = o["slot_card"], o["slot_fates"], o["slot_hours"], o["slot_moons"]
    SCIONS_AT, SANDS_AT, TOP, DECK = (
        o["slot_scions"],
        o["slot_sands"],
        o["deck_top"],
        o["deck_size"],
    )
    FADED, UNSEEN, EXILED = o["faded_powers"], o["unseen"], o["exiled"]
    LINES, HOLDING = o["number_lines"], o["holding"]
    PLAY_V, PLAY_T, PLAY_L, FEAST = (
        o["play_value"],
        o["play_target"],
        o["play_landed"],
        o["feast_done"],
    )
    SHADOWS, PENDING, WRONG = o["shadows"], o["pending"], o["wrong_predictions"]
    LEFT, CORRECT, VOTES = o["predictions_left"], o["correct"], o["votes"]
    BELIEF = o.get("belief", -1)
    events = _event_encoder(o, S)
    zeros = bytes(size)
    # Each thread fills its own bytearray, kept with a uint8 array over it: one
    # astype() per call then copies it into a new float32 vector. Viewing a fresh
    # bytearray with np.frombuffer on every call cost more than all the table's fates.
    scratch = threading.local()
    card_power = CARD_POWER
    moons_of = [c or 0 for c in CARD_MOONS]
    # Hours of a fate in front of a plain card (no attachment, not The Imago); the
    # other cards' hours come from fading.fates_hours, the rule's one home.
    hours_of = HOURS_OF
    hours_by_text = frozenset((IMAGO,))
    # Per 7-bit number line mask: its 7 bytes (1 for each value still possible).
    line_row = [bytes(m >> v & 1 for v in range(7)) for m in range(128)]
    own_seats = [list(range(observer, S, P)) for observer in range(P)]
    # Per observer: the seats in observer-relative order (0 = the observer's first seat).
    seat_order = [[(observer + rel) % S for rel in range(S)] for observer in range(P)]
    # Count lookups with the range each field allows (as the old index lists had): an
    # impossible count fails as an IndexError instead of being written.
    count3 = [0, 1, 2]  # fates held by one seat
    count4 = [0, 1, 2, 3]  # copies of one value (3 of each)
    count8 = list(range(8))  # predictions left
    count32 = list(range(32))  # hours in front of one card
    zero7 = [0] * 7

    def encoder(s: State, observer: int) -> np.ndarray:
        try:
            b, counts = scratch.buffers
        except AttributeError:  # this thread's first call
            b = bytearray(size)
            counts = np.frombuffer(b, _UINT8)
            scratch.buffers = b, counts
        b[:] = zeros  # same length: the buffer is never resized while numpy views it
        hands = s.hands
        score, doom, active, decider = s.score, s.doom, s.active, s.decider
        b[PHASE + s.phase] = 1
        b[ACTIVE + (active - observer) % S] = 1
        b[LEADER + ((active + 1) % P - observer) % P] = 1
        b[SCORE + (score if score < 7 else 7)] = 1
        b[DOOM + (doom if doom < 7 else 7)] = 1
        if decider >= 0:
            b[DECIDER + (decider - observer) % P] = 1
        unseen = [3, 3, 3, 3, 3, 3, 3]
        base = OWN - 1
        for seat in own_seats[observer]:
            for v in hands[seat]:
                b[base + v] += 1
                unseen[v - 1] -= 1
            base += 7
        if s.old_fate and active % P == observer and not s.over:
            b[CARRIED + s.old_fate - 1] = 1
        exiled, known = s.exiled, s.bag_known
        if exiled != zero7 or known != zero7:
            for i in range(7):
                unseen[i] -= exiled[i] + known[i]
                if exiled[i]:
                    b[EXILED + i] = count4[exiled[i]]
        # The table (cards, fates, hours, moons, attachments), inline: the hottest part.
        slots, table, attached = s.slots, s.table, s.attached
        card_at = CARD
        for slot in range(4):
            card = slots[slot]
            if card < 0:
                b[card_at + EMPTY] = 1
            else:
                b[card_at + card] = 1
                b[MOONS + slot] = moons_of[card]
                fates = table[slot]
                if fates:
                    fbase = FATES + 7 * slot - 1
                    hours = 0
                    for v in fates:
                        b[fbase + v] += 1
                        unseen[v - 1] -= 1
                        hours += hours_of[v]
                    if attached[slot] or card in hours_by_text:
                        # the hours rule (Scions, The Imago) has one home: fading.fates_hours
                        hours = fates_hours(card, attached[slot], fates)
                    b[HOURS + slot] = count32[hours]
            if attached[slot]:
                _marks_attached(b, attached[slot], slot)
            card_at += EMPTY + 1
        deck = s.deck
        b[TOP + (deck[0] if deck else EMPTY)] = 1
        for card in s.faded:
            b[FADED + card_power[card]] += 1
        # unseen counts are 0..3: every copy is in the bag, a hand, the table or exile
        b[UNSEEN : UNSEEN + 7] = unseen
        lines = s.lines
        rows = b""  # one slice store for all number lines: slice stores are the dear part
        held = HOLDING
        for seat in seat_order[observer]:  # seats from the observer's on
            rows += line_row[lines[seat]]
            b[held] = count3[len(hands[seat])]
            held += 1
        b[LINES:HOLDING] = rows
        if s.plays or s.power_used or s.shadows:
            _encode_turn(s, observer, b)
        vec = counts.astype(_FLOAT32)  # a new array: callers own it
        vec[TURN] = s.turn / 100.0
        vec[DECK] = len(s.deck) / 36.0
        if BELIEF >= 0:
            _encode_belief(s, observer, unseen, vec, BELIEF)
        return vec

    def _marks_attached(b: bytearray, cards: list[int], slot: int) -> None:
        """Mark Scions / Sands attached to ``slot``."""
        for att in cards:
            power = card_power[att]
            if power == _SCIONS:
                b[SCIONS_AT + slot] += 1
            elif power == _SANDS:
                b[SANDS_AT + slot] += 1

    def _encode_turn(s: State, observer: int, b: bytearray) -> None:
        """This turn's plays, powers, announcements, predictions and votes (public)."""
        for i, (value, target, landed) in enumerate(s.plays[:2]):
            b[PLAY_V + 7 * i + value - 1] = 1
            b[PLAY_T + 5 * i + target] = 1
            if landed >= 0:
                b[PLAY_L + 4 * i + landed] = 1
        if s.feast_done:
            b[FEAST] = 1
        if s.shadows:
            b[SHADOWS] = 1
        events(s, observer, b)
        if s.pending:
            b[PENDING + (0 if s.pending[0] == "sails" else 1)] = 1
        preds = s.predictions
        if preds:
            last = len(preds) - 1
            for i, v in enumerate(preds):
                if i < last or not s.correct:
                    b[WRONG + v - 1] += 1  # the same wrong value may be predicted twice
            if s.correct:
                b[CORRECT] = 1
        if 4 <= s.phase <= 6:  # group, vote, cost: the group may still predict
            b[LEFT] = count8[s.preds_left]
        if s.votes:
            first = s.active + 1
            for k, vote in enumerate(s.votes):
                player = (first + k) % P  # votes run clockwise from the leader
                b[VOTES + 8 * ((player - observer) % P) + (vote - 1 if vote else 7)] += 1

    return encoder


def _event_encoder(o: dict, S: int):
    """Encoder of this turn's announcements (powers, Thief, Chalice, Fall, reveals) into
    a bytearray of counts."""
    POWER, ANSWER, VALUE, SLOT, TO = (
        o["power_used"],
        o["power_answer"],
        o["power_value"],
        o["power_slot"],
        o["power_to_slot"],
    )
    STEAL, CHALICE, FALL, REVEALS, COST = (
        o["steal"],
        o["chalice"],
        o["fall"],
        o["reveals"],
        o["cost_paid"],
    )
    power_index = POWER_INDEX
    shown = frozenset(("power", "steal", "chalice", "reveal", "cost", "exile"))

    def encode_events(s: State, observer: int, b: bytearray) -> None:
        # Counts, not flags: an entry may be hit twice (Sails' exile after a power).
        for event in s.events:
            kind = event[0]
            if kind not in shown:  # draws, plays, votes, ...: encoded from other fields
                continue
            if kind == "power":
                _, power, arg, answer = event
                b[POWER + power_index[power]] += 1
                if answer is not None:
                    b[ANSWER + (0 if answer else 1)] += 1
                if power in ("saints", "storms", "shackles"):
                    b[VALUE + arg - 1] += 1
                elif power in ("sinners", "skies"):
                    b[SLOT + arg[0]] += 1
                    b[VALUE + arg[1] - 1] += 1
                    if power == "skies":
                        b[TO + arg[2]] += 1
                elif power in ("sparrows", "scions"):
                    b[SLOT + arg] += 1
            elif kind == "steal":
                if event[1] < 0:
                    b[STEAL + 11] += 1
                else:
                    b[STEAL + event[2] - 1] += 1
                    b[STEAL + 7 + event[1]] += 1
            elif kind == "chalice":
                b[CHALICE + (0 if event[1] else 1)] += 1
            elif kind == "reveal":
                b[REVEALS + 7 * ((event[1] - observer) % S) + event[2] - 1] += 1
            elif kind == "cost":
                b[COST + power_index[event[1]]] += 1
            elif kind == "exile":
                b[SLOT + event[1]] += 1
                b[VALUE + event[2] - 1] += 1
        if s.fall_fading >= 0:
            b[FALL + (0 if s.fall_fading else 1)] += 1

    return encode_events


def _encode_belief(s: State, observer: int, unseen: list[int], vec: np.ndarray, base: int) -> None:
    hand = s.hands[s.active]
    if len(hand) != 1 or s.phase == 0 or s.correct:
        return
    counts = list(unseen)
    if s.active % s.config.num_players == observer:
        counts[hand[0] - 1] += 1  # what the group could think, seen from the active seat
    vec[base : base + 7] = literal_posterior(s.lines[s.active], counts)


def literal_posterior(line: int, counts: list[int]) -> list[float]:
    """The literal posterior over a held fate (index ``v - 1``): the values on ``line``
    (bit ``v - 1``) weighted by ``counts``, the copies of each its onlookers cannot
    place; all zero when none is left."""
    weights = [counts[v] if line >> v & 1 else 0 for v in range(7)]
    total = sum(weights)
    return [w / total for w in weights] if total > 0 else [0.0] * 7


def decode(obs: np.ndarray, layout: ObservationLayout) -> dict[str, np.ndarray]:
    """Split an observation vector into its named fields (views into ``obs``)."""
    if obs.shape != (layout.size,):
        raise ValueError(
            f"observation of shape {obs.shape} does not fit this layout; allowed: ({layout.size},)"
        )
    return {f.name: obs[f.slice] for f in layout.fields}


def _one_hot(values: np.ndarray) -> int:
    hits = np.flatnonzero(values)
    return int(hits[0]) if len(hits) else -1


def to_text(obs: np.ndarray, layout: ObservationLayout) -> str:
    """The observation in words, from the vector alone."""
    f = decode(obs, layout)
    P, S = layout.num_players, layout.num_seats
    lines = [
        f"phase {PHASES[_one_hot(f['phase'])]}; decider {_one_hot(f['decider'])} (0 = me); "
        f"active seat {_one_hot(f['active_seat'])}; leader {_one_hot(f['leader'])}",
        f"score {_one_hot(f['score'])}, doom {_one_hot(f['doom'])}, turn "
        f"{round(float(f['turn'][0]) * 100)}",
    ]
    for k in range(layout.own_seats):
        counts = f["own_hand"][7 * k : 7 * k + 7]
        hand = [v + 1 for v in range(7) for _ in range(int(counts[v]))]
        lines.append(f"my seat {k}: holds {hand}")
    carried = _one_hot(f["own_carried"])
    if carried >= 0:
        lines.append(f"I carried a {carried + 1} into this turn")
    for slot in range(4):
        card = _one_hot(f["slot_card"][slot * (NUM_CARDS + 1) : (slot + 1) * (NUM_CARDS + 1)])
        name = "empty" if card == EMPTY else CARDS[card].name
        counts = f["slot_fates"][7 * slot : 7 * slot + 7]
        fates = [v + 1 for v in range(7) for _ in range(int(counts[v]))]
        extra = (" +scions" if f["slot_scions"][slot] else "") + (
            " +sands" if f["slot_sands"][slot] else ""
        )
        lines.append(
            f"slot {slot}: {name} fates {fates} hours {int(f['slot_hours'][slot])}/"
            f"{int(f['slot_moons'][slot])}{extra}"
        )
    top = _one_hot(f["deck_top"])
    lines.append(
        f"deck {round(float(f['deck_size'][0]) * 36)} cards, top "
        f"{'none' if top == EMPTY else CARDS[top].name}"
    )
    powers = [f"{POWERS[p].id} x{int(n)}" for p, n in enumerate(f["faded_powers"]) if n]
    lines.append(f"faded powers: {', '.join(powers) or 'none'}")
    lines.append(f"unseen {[int(x) for x in f['unseen']]}, exiled {[int(x) for x in f['exiled']]}")
    for rel in range(S):
        mask = sum(1 << v for v in range(7) if f["number_lines"][7 * rel + v])
        lines.append(f"seat {rel}: holds {int(f['holding'][rel])}, number line {mask_values(mask)}")
    for i in range(2):
        value = _one_hot(f["play_value"][7 * i : 7 * i + 7])
        if value >= 0:
            target = _one_hot(f["play_target"][5 * i : 5 * i + 5])
            where = "The Hours" if target == HOURS_TARGET else f"slot {target}"
            lines.append(f"play {i + 1}: {value + 1} on {where}")
    power = _one_hot(f["power_used"])
    if power >= 0:
        answer = {0: "yes", 1: "no"}.get(_one_hot(f["power_answer"]), "-")
        lines.append(f"power used: {POWERS[power].id}, answer {answer}")
    for name, labels in (("chalice", ("higher", "not higher")), ("fall", ("fades", "stays"))):
        hit = _one_hot(f[name])
        if hit >= 0:
            lines.append(f"{name}: {labels[hit]}")
    votes = []
    for p in range(P):
        hit = _one_hot(f["votes"][8 * p : 8 * p + 8])
        if hit >= 0:
            votes.append(f"player {p}: {'pass' if hit == 7 else hit + 1}")
    if votes:
        lines.append("votes: " + ", ".join(votes))
    wrong = [v + 1 for v in range(7) if f["wrong_predictions"][v]]
    if wrong:
        lines.append(f"wrong predictions: {wrong}")
    if layout.belief:
        lines.append("belief: " + " ".join(f"{x:.2f}" for x in f["belief"]))
    return "\n".join(lines)
