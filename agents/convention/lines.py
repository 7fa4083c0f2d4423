"""The hands the active seat may hold and their lines of play: what each hand can do on
one turn-start table (its first play, a power before or after it, Thief, The Feast's
second play) and the observation each line shows the group, with its value
(:class:`~shipwreck_agents.convention.outcomes.Outcomes`).

:func:`public_hands` weighs the hands from public facts only; :class:`Lines` lists their
lines of play and the observations those show. The codebook that picks one line per hand
is :mod:`shipwreck_agents.convention.codebook`.
"""

from __future__ import annotations

from dataclasses import replace

from shipwreck_agents.convention.ahead import (
    forced_turn,
    table_left,
)
from shipwreck_agents.convention.outcomes import Outcomes, group_questions
from shipwreck_env.rules.actions import ACTIONS, power_action
from shipwreck_env.rules.arcana import fades_by_text_after
from shipwreck_env.rules.cards import CARD_INDEX, CARDS
from shipwreck_env.rules.fading import fades_by_hours
from shipwreck_env.rules.number_lines import table_rows
from shipwreck_env.rules.plays import CHALICE, HOURS_TARGET, STEAL_ACTION, first_plays
from shipwreck_env.rules.powers import sinners_actions
from shipwreck_env.rules.public_record import (
    PlayOutcome,
    fade_doom,
    fading_after,
    onlooker_pool,
    play_outcome,
)
from shipwreck_env.rules.view import TurnStart

__all__ = ["Lines", "Option", "public_hands"]

THIEF = CARD_INDEX["thief"]
FALL = CARD_INDEX["fall"]
FEAST = CARD_INDEX["feast"]
SHELLS = power_action("shells")
SHADOWS = power_action("shadows")
PLAYS = {a: (a, spec.value, spec.slot) for a, spec in enumerate(ACTIONS) if spec.kind == "play"}
"""(action, value played, target) of every first-play action."""

_FORCED: dict[tuple, float] = {}  # the look-ahead's forced share, by the table left


def public_hands(
    start: TurnStart,
    seat: int,
    carried: bool,
    likelihood: tuple[float, ...] | None,
    pool: tuple[int, ...] | list[int],
) -> list[tuple[tuple[int, int], float]]:
    """Hands of the active ``seat`` with their weights (unnormalised) for a player whose
    unseen copies at the start of the turn are ``pool``; a carried fate's prior is
    ``likelihood x pool x number line``."""
    out = []
    if carried:
        line = start.lines[seat]
        like = likelihood if likelihood is not None else (1.0,) * 7
        for c in range(1, 8):
            pc = like[c - 1] * pool[c - 1] * (line >> (c - 1) & 1)
            if pc <= 0:
                continue
            for d in range(1, 8):
                nd = pool[d - 1] - (d == c)
                if nd > 0:
                    out.append(((c, d), pc * nd))
        if not out and likelihood is not None:  # the memory contradicts the line: forget it
            return public_hands(start, seat, carried, None, pool)
        return out
    for a in range(1, 8):
        for b in range(a, 8):
            n = pool[a - 1] * (pool[b - 1] - (a == b))
            if n > 0:
                out.append(((a, b), float(n if a == b else 2 * n)))
    return out


Option = tuple[tuple[int, int, int, int], int, int]
"""A hand's line of play: ((pre-play power action or 0, play action, after-play power
action or 0, steal action or 0), observation, kept)."""


class Lines:
    """The lines of play of hypothetical hands on one turn-start table, and the
    observations (with their race values) they show."""

    def __init__(
        self,
        start: TurnStart,
        info_value: float,
        race: tuple[float, int],
        power_cost: float,
        plan: bool,
        player_powers: bool,
        second_play: bool = False,
        before: int = 0,
    ) -> None:
        self.start = start
        # a power used before the play (the table is the one it left): no other power
        # this turn, and The Feast's second play is not coded after one
        self.before = before
        self.lift = 1 if before == SHADOWS else 0  # Shadows: the kept fate reads 1 higher
        self.info_value, self.race, self.power_cost, self.plan = info_value, race, power_cost, plan
        self.rows = table_rows(start.slots, start.table, shadows=before == SHADOWS)
        self.visible = tuple(
            v
            for card, fates in zip(start.slots, start.table, strict=True)
            if card >= 0
            for v in fates
        )
        self.feast = [slot for slot, card in enumerate(start.slots) if card == FEAST]
        self.feast_out = bool(self.feast) and not second_play and not before
        faded = {CARDS[c].power for c in start.faded}
        own_powers = player_powers and THIEF not in start.slots
        if second_play:  # The Feast takes no second fate, and counts for no Hours rule
            for slot in self.feast:
                self.rows[slot] = None
        # Shells would answer about the turn's carried fate, not the fate kept by the
        # first play that the second play's code calls "carried"
        self.shells = own_powers and "shells" in faded and not second_play
        self.sinners = own_powers and "sinners" in faded
        self.fall_slot = start.slots.index(FALL) if FALL in start.slots else -1
        self.thief = start.slots.index(THIEF) if THIEF in start.slots else -1
        self.index: dict[tuple, int] = {}
        self.outcomes: list[Outcomes] = []
        self.fade_doom: list[int] = []  # per observation: the doom its fades cost
        self.fading_of: dict[tuple, list[int]] = {}  # see fading()
        self.doom_of: dict[tuple, tuple[int, bool]] = {}  # fade_doom by the slots fading
        self.outcome_of: dict[tuple, PlayOutcome] = {}  # play outcomes (see outcome())
        self.plain: dict[int, int] = {}  # the observation of a play alone, by id(outcome)
        self.asked: dict[int, list[tuple]] = {}  # the group's questions, by the value played
        # (doom, amplified, next seat forced, forced turn read right) by where a fate lands
        self.fades: dict[tuple, tuple[int, bool, float, float]] = {}
        self.shared: dict[tuple, Outcomes] = {}  # equal race values are one object
        self.next_seat, self.forced_accuracy, self.read_ahead = -1, 0.0, 0.0
        self.tie = 0.0

    def look_ahead(
        self, seat: int, forced_accuracy: float, read_ahead: float = 0.0, tie: float = 0.0
    ) -> None:
        """Count in every observation's race value the chance that the table it leaves
        forces ``seat``'s next turn, read right with ``forced_accuracy`` (or, with
        ``read_ahead`` above 0, ``1 - read_ahead`` times the misreads of the simple
        code of :func:`~shipwreck_agents.convention.ahead.forced_turn` on that table);
        with ``forced_accuracy`` 0, instead take ``tie`` times that chance off the
        observation's value (a tie-break, see ``compute_convention``'s ``tie_ahead``)."""
        self.next_seat, self.forced_accuracy, self.read_ahead = seat, forced_accuracy, read_ahead
        self.tie = tie if forced_accuracy <= 0 else 0.0

    def _forced_next(
        self, out: PlayOutcome, removed, steal, fading: list[int]
    ) -> tuple[float, float]:
        """(chance that the table after ``out`` (+ ``steal``, - ``removed``, the cards
        of ``fading`` gone) forces the next seat, chance such a turn is read right);
        (0, 0) without a look-ahead."""
        if self.next_seat < 0:
            return 0.0, 0.0
        start, seat = self.start, self.next_seat
        table = self._after(out, steal)
        if removed is not None:
            fates = list(table[removed[0]])
            fates.remove(removed[1])
            table = (*table[: removed[0]], tuple(fates), *table[removed[0] + 1 :])
        left = table_left(start, table, fading)
        carried = start.holding[seat] == 1
        key = (
            left.raw,
            start.exiled,
            start.lines[seat] if carried else 0,  # a fresh seat's hands ignore its line
            carried,
            self.forced_accuracy,
            self.read_ahead,
        )
        hit = _FORCED.get(key)
        if hit is None:
            hands = public_hands(left, seat, carried, None, onlooker_pool(left))
            share, reading = forced_turn(left, hands, self.read_ahead > 0)
            accuracy = self.forced_accuracy
            if self.read_ahead > 0:
                accuracy = 1 - self.read_ahead * (1 - reading)
            if len(_FORCED) > 8192:
                _FORCED.clear()
            hit = _FORCED[key] = (share, accuracy)
        return hit

    def steals(self, out: PlayOutcome, kept: int) -> list[tuple[int, int] | None]:
        """The (slot, value) fates The Thief may take after ``out`` with ``kept`` hidden
        (it must take one higher than the kept fate, from another card, if there is one):
        ``[None]`` when it takes nothing or is not in play. The choice is the player's, so
        the code may use it as a signal."""
        if self.thief < 0:
            return [None]
        start = self.start
        found = [
            (slot, v)
            for slot in range(len(start.slots))
            if slot != self.thief
            for v in sorted(set(start.table[slot] + ((out.value,) if out.landed == slot else ())))
            if v > kept
        ]
        return found or [None]

    def removals(self, out: PlayOutcome, kept_eff: int) -> list[int]:
        """The Sinners actions the code may use after ``out`` with a kept fate worth
        ``kept_eff``: the rule's (:func:`~shipwreck_env.rules.powers.sinners_actions` on the
        table the play leaves), but never on The Fall, a choice of the convention."""
        table = [
            fates + ((out.value,) if out.landed == slot else ())
            for slot, fates in enumerate(self.start.table)
        ]
        return [a for a in sinners_actions(table, kept_eff) if ACTIONS[a].slot != self.fall_slot]

    def _after(
        self, out: PlayOutcome, steal: tuple[int, int] | None
    ) -> tuple[tuple[int, ...], ...]:
        """The fates in front of each slot after ``out`` and The Thief's ``steal`` (or
        ``None``)."""
        table = [list(f) for f in self.start.table]
        if out.landed >= 0:
            table[out.landed].append(out.value)
        if steal:
            table[steal[0]].remove(steal[1])
            table[self.thief].append(steal[1])
        return tuple(map(tuple, table))

    def _stolen(self, out: PlayOutcome, steal: tuple[int, int]) -> tuple[TurnStart, PlayOutcome]:
        """The table after ``out`` and The Thief's ``steal``, and ``out`` with its fate
        already on that table (so the fades are counted on it)."""
        start = replace(self.start, table=self._after(out, steal))
        return start, PlayOutcome(out.value, out.target, -1, out.chalice, out.fall)

    def observation(self, out: PlayOutcome, power: int, answer, removed=None, steal=None) -> int:
        """The number of the observation ``out`` + The Thief's ``steal`` ((slot, value) or
        None) + the after-play ``power`` (0: none) and its answer; ``removed`` is the fate
        Sinners takes off the table."""
        key = (out, power, answer, steal)
        o = self.index.get(key)
        if o is not None:
            return o
        start = self.start
        o = self.index[key] = len(self.outcomes)
        where = (out.landed, out.value, out.fall, removed, steal)
        fades = self.fades.get(where)
        if fades is None:
            if steal:
                fading = fading_after(*self._stolen(out, steal), removed)
            else:
                fading = self.fading(out, removed)
            forced = self._forced_next(out, removed, steal, fading)
            doom = self.doom_of.get(tuple(fading))
            if doom is None:
                doom = self.doom_of[tuple(fading)] = fade_doom(start, fading)
            fades = self.fades[where] = (*doom, *forced)
        spent = bool(power or self.before)
        asks = out.value if self.plan and not spent else 0
        shared = (fades, asks, spent)
        outcome = self.shared.get(shared)
        if outcome is None:
            questions = []
            if asks:
                questions = self.asked.get(asks)
                if questions is None:
                    questions = self.asked[asks] = group_questions(
                        start, asks, (*self.visible, asks)
                    )
            outcome = self.shared[shared] = Outcomes(
                start.score,
                start.doom,
                fades[0],
                fades[1],
                self.info_value,
                self.race,
                questions,
                self.power_cost,
                spent=spent,
                ahead=fades[2:] if not self.tie else (0.0, 0.0),
                tie=self.tie * fades[2],
            )
        self.outcomes.append(outcome)
        self.fade_doom.append(fades[0])
        return o

    def fading(self, out: PlayOutcome, removed: tuple[int, int] | None = None) -> list[int]:
        """:func:`~shipwreck_env.rules.public_record.fading_after` of ``out`` on the turn-start
        table with ``removed`` = (slot, value) taken off by Sinners: the slots without a
        removal are computed once per play, and only the slot Sinners touches again."""
        where = (out.landed, out.value, out.fall)
        fading = self.fading_of.get(where)
        if fading is None:
            fading = self.fading_of[where] = fading_after(self.start, out)
        if removed is None:
            return fading
        slot, value = removed
        card = self.start.slots[slot]
        if fades_by_text_after(card, out.value, out.fall) is not None:
            return fading  # the card's own text decides, whatever is in front of it
        fates = list(self.start.table[slot])
        if out.landed == slot:
            fates.append(out.value)
        fates.remove(value)
        rest = [s for s in fading if s != slot]
        if fades_by_hours(card, self.start.attached[slot], tuple(fates)):
            rest = sorted((*rest, slot))
        return rest

    def _fades(self, hand: tuple[int, int], value: int, target: int) -> bool:
        """Does playing ``value`` of ``hand`` on ``target`` fade a card at a doom cost?"""
        kept = hand[1] if hand[0] == value else hand[0]
        out = play_outcome(self.start, value, target, kept)
        return fade_doom(self.start, fading_after(self.start, out))[0] > 0

    def outcome(self, value: int, target: int, kept: int) -> PlayOutcome:
        """:func:`~shipwreck_env.rules.public_record.play_outcome` of playing ``value`` on
        ``target`` keeping ``kept``, computed once for every kept value that shows the
        same: the kept fate shows only in The Chalice's tell (kept above the played
        value or not) and The Fall's announcement."""
        if self.fall_slot >= 0:
            key: tuple = (value, target, kept)
        elif target == HOURS_TARGET or self.start.slots[target] != CHALICE:
            key = (value, target)
        else:
            key = (value, target, kept > value)
        seen = self.outcome_of.get(key)
        if seen is None:
            seen = self.outcome_of[key] = play_outcome(self.start, value, target, kept)
        return seen

    def options(self, hand: tuple[int, int], carried: bool) -> list[Option]:
        """Every line of play of ``hand``; a play on The Feast only when every other play
        fades a card (or there is none): the second play is another chance."""
        low, high = hand
        plays = [PLAYS[a] for a in first_plays(self.rows, low, high)]
        if self.feast:
            elsewhere = [p for p in plays if p[2] not in self.feast]
            if self.before:
                plays = elsewhere
            elif not (self.feast_out and all(self._fades(hand, v, t) for _, v, t in elsewhere)):
                plays = elsewhere or plays
        out: list[Option] = []
        plain, before = self.plain, self.before
        lift = self.lift
        for action, value, target in plays:
            kept = high if low == value else low
            seen = self.outcome(value, target, kept + lift)
            if self.thief < 0:
                o = plain.get(id(seen))  # outcome_of keeps every outcome alive
                if o is None:
                    o = plain[id(seen)] = self.observation(seen, 0, None, None, None)
                out.append(((before, action, 0, 0), o, kept))
            else:
                for steal in self.steals(seen, kept + lift):
                    taken = STEAL_ACTION[steal[0]][steal[1]] if steal else 0
                    o = self.observation(seen, 0, None, None, steal)
                    out.append(((before, action, 0, taken), o, kept))
            if self.shells:
                answer = carried and value == low and high != value
                o = self.observation(seen, SHELLS, answer)
                out.append(((0, action, SHELLS, 0), o, kept))
            if self.sinners:
                for power in self.removals(seen, kept + lift):
                    spec = ACTIONS[power]
                    o = self.observation(seen, power, None, (spec.slot, spec.value))
                    out.append(((0, action, power, 0), o, kept))
        return out
