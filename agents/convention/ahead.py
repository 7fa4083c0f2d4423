"""A look-ahead for the convention team: what the table a line of play leaves does to
the next turn.

The convention (:mod:`shipwreck_agents.convention.codebook`) values a line by the race
after this turn's prediction alone. Two lines that the group reads equally well can
leave very different tables: one where almost any hand the next seat draws has a play
that fades nothing (its group may pass when unsure), one where most of its hands must
fade a card (a *forced* turn: the group must guess right or pay the fade). Forced turns
with a doubtful reading are where the convention loses, so this module prices them:

* :func:`table_left` -- the public table the next seat starts from after a line: the
  fate played (and The Thief's steal, Sinners' discard), the faded cards gone with their
  fates back in the bag, the first emptied slot refilled by the face-up deck top (a
  second refill is unknown, so that slot is left empty);
* :func:`forced_turn` -- the public prior mass of the next seat's hands for which every
  legal first play fades a card at a doom cost, and how well a simple code reads such
  a forced turn;
* :func:`ahead_value` -- the race value once the next turn's risk is counted: a forced
  next turn is a prediction that must be made, right with ``forced_accuracy``, wrong at
  one doom plus the fade.

Everything here reads public facts only (the turn-start table, the deck's face-up top,
the number lines), so every teammate computes the same value. Nothing here is an
engine rule: the fades and plays are asked of :mod:`shipwreck_env.rules.public_record`.
"""

from __future__ import annotations

from dataclasses import replace

from shipwreck_env.rules.actions import HOURS_TARGET
from shipwreck_env.rules.arcana import FADES_WITHOUT_DOOM
from shipwreck_env.rules.cards import CARD_INDEX
from shipwreck_env.rules.fading import fades_by_hours
from shipwreck_env.rules.plays import landing_slot
from shipwreck_env.rules.public_record import (
    fade_doom,
    fading_after,
    kept_rows,
    play_outcome,
)
from shipwreck_env.rules.view import TurnStart

__all__ = ["ahead_value", "forced_share", "forced_turn", "table_left"]

FALL = CARD_INDEX["fall"]
ASH = CARD_INDEX["ash"]


def table_left(
    start: TurnStart, table: tuple[tuple[int, ...], ...], fading: list[int]
) -> TurnStart:
    """The public table after this turn: ``table`` (the fates after the turn's play and
    powers) with the cards of ``fading`` gone and their fates back in the bag; the first
    emptied slot takes the deck's face-up top, any other stays empty (its card is not
    known yet)."""
    if not fading:
        return replace(start, table=table, raw=(start.slots, table, start.attached))
    slots, fates, attached = list(start.slots), list(table), list(start.attached)
    top = start.deck_top
    for slot in fading:
        slots[slot], fates[slot], attached[slot] = top, (), ()
        top = -1
    key = (tuple(slots), tuple(fates), tuple(attached))
    return replace(start, slots=key[0], table=key[1], attached=key[2], raw=key)


class _Table:
    """The fades of hypothetical first plays on one table, each worked out once."""

    def __init__(self, start: TurnStart) -> None:
        self.start, self.rows = start, kept_rows(start)
        # The Fall and The Ash fade by their text: then every play asks the public record
        self.by_text = FALL in start.slots or ASH in start.slots
        self.fall = FALL in start.slots  # The Fall fades by what is kept
        self.fading: dict[tuple[int, int, int], bool] = {}
        self.costly = [card >= 0 and card not in FADES_WITHOUT_DOOM for card in start.slots]
        # a card already at its moons (none at a turn's start, but Sinners may leave one)
        self.already = any(
            costly and fades_by_hours(card, attached, fates)
            for card, attached, fates, costly in zip(
                start.slots, start.attached, start.table, self.costly, strict=True
            )
        )
        self._masks()

    def fades(self, value: int, target: int, kept: int) -> bool:
        """Does ``value`` played on ``target`` (keeping ``kept``) fade a card at a doom
        cost?"""
        key = (value, target, kept if self.fall else 0)
        hit = self.fading.get(key)
        if hit is None:
            start = self.start
            landed = landing_slot(start.slots, target)
            if self.by_text:
                out = play_outcome(start, value, target, kept)
                hit = fade_doom(start, fading_after(start, out))[0] > 0
            else:  # only the card the fate lands on can start to fade
                hit = self.already or (
                    landed >= 0
                    and self.costly[landed]
                    and fades_by_hours(
                        start.slots[landed],
                        start.attached[landed],
                        (*start.table[landed], value),
                    )
                )
            self.fading[key] = hit
        return hit

    def _masks(self) -> None:
        """``taken[v]``: the kept values (bit ``k - 1``) with which some card takes a
        fate ``v``; ``free[v]``: those with which some card takes it and nothing fades."""
        self.taken, self.free = [0] * 8, [0] * 8
        for slot, row in enumerate(self.rows):
            if row is None:
                continue
            for v in range(1, 8):
                kept = row[v - 1]
                if not kept:
                    continue
                self.taken[v] |= kept
                if not self.fall:
                    if not self.fades(v, slot, 0):
                        self.free[v] |= kept
                    continue
                for k in range(1, 8):
                    if kept >> (k - 1) & 1 and not self.fades(v, slot, k):
                        self.free[v] |= 1 << (k - 1)

    def forced(self, a: int, b: int) -> bool:
        """Does every legal first play of the hand (``a``, ``b``) fade a card?"""
        if self.free[a] >> (b - 1) & 1 or self.free[b] >> (a - 1) & 1:
            return False
        if self.taken[a] >> (b - 1) & 1 or self.taken[b] >> (a - 1) & 1:
            return True
        # no card takes either fate: The Hours takes both, landing on the first card
        return self.fades(a, HOURS_TARGET, b) and self.fades(b, HOURS_TARGET, a)

    def shows(self, a: int, b: int) -> list[tuple[int, int, int]]:
        """The (value played, slot it lands on, value kept) of each legal first play of
        the hand (``a``, ``b``)."""
        out = []
        for v, k in ((a, b), (b, a)) if a != b else ((a, b),):
            for slot, row in enumerate(self.rows):
                if row is not None and row[v - 1] >> (k - 1) & 1:
                    out.append((v, slot, k))
        if not out:
            landed = landing_slot(self.start.slots, HOURS_TARGET)
            out = [(a, landed, b), (b, landed, a)] if a != b else [(a, landed, b)]
        return out


def forced_turn(
    start: TurnStart, hands: list[tuple[tuple[int, int], float]], read: bool = False
) -> tuple[float, float]:
    """(share, reading) of a turn on ``start`` by a seat that may hold ``hands`` (as
    :func:`~shipwreck_agents.convention.lines.public_hands` lists them, with weights).

    ``share`` is the weight share of the hands whose every legal first play fades a
    card at a doom cost. ``reading`` (with ``read``, else 1) is how often a simple code
    reads the kept fate of such a forced hand: each shows the play whose literal
    reading (every forced hand able to show it, by weight) best names its kept fate,
    and the group names the likeliest kept fate of what it sees (1 when no hand is
    forced). The convention's own code does at least as well: a floor, and cheap.
    """
    table = _Table(start)
    forced, total = [], 0.0
    for hand, w in hands:
        total += w
        if table.forced(*hand):
            forced.append((hand, w))
    mass = sum(w for _, w in forced)
    if mass <= 0:
        return 0.0, 1.0
    share = mass / total
    if not read:
        return share, 1.0
    shown = [(w, table.shows(*hand)) for hand, w in forced]
    literal: dict[tuple[int, int], list[float]] = {}
    for w, shows in shown:
        for v, slot, k in shows:
            literal.setdefault((v, slot), [0.0] * 8)[k] += w
    seen: dict[tuple[int, int], list[float]] = {}
    for w, shows in shown:
        v, slot, k = max(shows, key=lambda x: literal[x[:2]][x[2]] / sum(literal[x[:2]]))
        seen.setdefault((v, slot), [0.0] * 8)[k] += w
    return share, sum(max(m) for m in seen.values()) / mass


def forced_share(start: TurnStart, hands: list[tuple[tuple[int, int], float]]) -> float:
    """The ``share`` of :func:`forced_turn`: the weight share of ``hands`` whose every
    legal first play on ``start`` fades a card at a doom cost."""
    return forced_turn(start, hands)[0]


def ahead_value(
    now: float, right: float, wrong: float, forced: float, forced_accuracy: float
) -> float:
    """A race value ``now`` with the next turn's risk counted: with probability
    ``forced`` that turn must name a value, worth ``right`` with probability
    ``forced_accuracy`` and ``wrong`` (a doom for the guess and the fade's) otherwise."""
    return now + forced * (forced_accuracy * right + (1 - forced_accuracy) * wrong - now)
