"""Public facts of a turn, computed without any hidden fate: for belief-based agents.

An agent that reasons about *every* hand the active player may hold needs to ask the
rules questions about hypothetical hands on the public table, cheaply and without a
random generator. This module answers them from the public start of the turn
(:class:`~shipwreck_env.rules.view.TurnStart`, the same for every player):

* :func:`onlooker_pool` -- copies of each value that someone holding no fate cannot
  place at the start of the turn (the bag plus every hidden hand);
* :func:`hand_plays` -- the legal first plays of a hypothetical hand;
  :func:`hand_plays_at_play` -- the same on the table as it stands at the play, after a
  power used before it (Sparrows' new card, Skies' moved fate, Shadows' +1) (for many
  hands of many batched games at once:
  :func:`shipwreck_env.vector.public_record.hand_play_masks`);
* :func:`play_outcome` -- what a first play shows everyone, as a typed
  :class:`PlayOutcome` (the card, the fate, the Hours slide, The Chalice's tell, The
  Fall's announcement) instead of raw event tuples; :func:`turn_outcomes` reads the
  same values off a turn's events;
* :func:`fading_after` and :func:`fade_doom` -- the cards that fade if the turn ends
  after that play, and the doom those fades cost without a correct prediction;
* :func:`step_without_draws` -- apply an action that draws no fate, with no random
  generator (a search can then never consume randomness by accident).

Everything here is a pure function of public data and a hypothesis; it reads no
``State.hands`` and must never import ``agents``. It looks up no card itself: what a
card's text or an attached power does is asked of the engine module that owns it
(:mod:`~shipwreck_env.rules.arcana`, :mod:`~shipwreck_env.rules.plays`, :mod:`~shipwreck_env.rules.fading`,
:mod:`~shipwreck_env.rules.powers`). Apart from :func:`hand_plays_at_play` it covers the first play of a turn with no power used before it
(no Shadows, Skies or Sparrows); later changes within the turn (The Thief, Sinners,
Scions) are the caller's to apply.
"""

from __future__ import annotations

from dataclasses import dataclass

from shipwreck_env.rules.actions import HOURS_TARGET
from shipwreck_env.rules.arcana import fades_by_text_after, fall_announcement
from shipwreck_env.rules.cards import FATE_COPIES
from shipwreck_env.rules.engine import step_inplace
from shipwreck_env.rules.fading import fade_cost, fades_by_hours
from shipwreck_env.rules.number_lines import table_rows
from shipwreck_env.rules.plays import chalice_tell, first_plays, landing_slot
from shipwreck_env.rules.powers import sands_among
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView, TurnStart

__all__ = [
    "DrawNeeded",
    "PlayOutcome",
    "fade_doom",
    "fading_after",
    "hand_plays",
    "hand_plays_at_play",
    "kept_rows",
    "onlooker_pool",
    "play_outcome",
    "rows_at_play",
    "step_without_draws",
    "turn_outcomes",
]


@dataclass(frozen=True)
class PlayOutcome:
    """What one play shows everyone.

    Attributes:
        value: the fate played.
        target: slot 0-3, or ``HOURS_TARGET``.
        landed: the slot the fate ends in front of (an Hours play slides; -1: nowhere).
        chalice: The Chalice's tell "my kept fate is higher" (``None``: not a Chalice
            play).
        fall: The Fall's "fades this turn" (``None``: The Fall is not in play).
    """

    value: int
    target: int
    landed: int
    chalice: bool | None = None
    fall: bool | None = None


def onlooker_pool(start: TurnStart) -> tuple[int, ...]:
    """Copies of each value (index ``v - 1``) whose place a player holding no fate cannot
    see at the start of the turn: not exiled, not in front of a card."""
    pool = [FATE_COPIES - e for e in start.exiled]
    for fates in start.table:
        for v in fates:
            pool[v - 1] -= 1
    return tuple(max(0, n) for n in pool)


def kept_rows(start: TurnStart) -> list[list[int] | None]:
    """Per slot: ``row[played - 1]`` = mask of kept values that allow the play there on
    the turn-start table (``None`` for an empty slot)."""
    return table_rows(start.slots, start.table)


def hand_plays(
    start: TurnStart, hand: tuple[int, int], rows: list[list[int] | None] | None = None
) -> list[int]:
    """Legal first-play actions (ascending) of the active seat holding ``hand`` on the
    turn-start table, with no power used before the play. ``rows`` (from
    :func:`kept_rows`) saves recomputing the table's rows for many hands."""
    rows = kept_rows(start) if rows is None else rows
    return first_plays(rows, *hand)


def rows_at_play(view: AgentView) -> list[list[int] | None]:
    """:func:`table_rows` of the table as it stands at the play decision ``view`` (any
    player's view of it): after a power used before the play (Sparrows' new card, Skies'
    moved fate, Shadows' +1) and after The Feast's first play.

    Raises:
        ValueError: ``view`` is not in the play phase.
    """
    if view.phase != "play":
        raise ValueError(f"view phase {view.phase!r} has no play to judge; allowed: 'play'")
    return table_rows(view.slot_numbers(), view.table, view.shadows, view.feast_done)


def hand_plays_at_play(
    view: AgentView, hand: tuple[int, int], rows: list[list[int] | None] | None = None
) -> list[int]:
    """Legal play actions (ascending) of the active seat, were it holding ``hand``, at
    the play decision ``view``, on the table as it stands then (:func:`rows_at_play`;
    pass its result as ``rows`` when asking about many hands). Read from public facts
    only: the real hand never enters.

    Raises:
        ValueError: ``view`` is not in the play phase.
    """
    rows = rows_at_play(view) if rows is None else rows
    return first_plays(rows, *hand)


def _fates_after(start: TurnStart, slot: int, value: int, landed: int) -> tuple[int, ...]:
    """The fates in front of ``slot`` after ``value`` landed on ``landed``."""
    fates = start.table[slot]
    return (*fates, value) if landed == slot else fates


def play_outcome(start: TurnStart, value: int, target: int, kept: int) -> PlayOutcome:
    """The public outcome of playing ``value`` on ``target`` and keeping ``kept`` as the
    turn's first play on the turn-start table (no power before it)."""
    landed = landing_slot(start.slots, target)
    card = start.slots[target] if target != HOURS_TARGET else -1
    table = [_fates_after(start, slot, value, landed) for slot in range(len(start.slots))]
    fall = fall_announcement(start.slots, table, kept)
    return PlayOutcome(value, target, landed, chalice_tell(card, value, kept), fall)


def turn_outcomes(events: tuple[tuple, ...] | list[tuple]) -> list[PlayOutcome]:
    """The plays of a turn's public events, each with the announcements that followed it
    (The Fall's last announcement before the next play)."""
    out: list[PlayOutcome] = []
    for event in events:
        kind = event[0]
        if kind == "play":
            out.append(PlayOutcome(event[1], event[2], event[3]))
        elif kind == "chalice" and out:
            last = out[-1]
            out[-1] = PlayOutcome(last.value, last.target, last.landed, event[1], last.fall)
        elif kind == "fall" and out:
            last = out[-1]
            out[-1] = PlayOutcome(last.value, last.target, last.landed, last.chalice, event[1])
    return out


def fading_after(
    start: TurnStart, outcome: PlayOutcome, removed: tuple[int, int] | None = None
) -> list[int]:
    """Slots whose card fades if the turn ends right after ``outcome`` (hours at or over
    moons, or by the card's own text given the play and the announcements), with the
    visible fate ``removed`` = (slot, value) taken away (Sinners) if given."""
    out = []
    for slot, card in enumerate(start.slots):
        if card < 0:
            continue
        by_text = fades_by_text_after(card, outcome.value, outcome.fall)
        if by_text is not None:
            if by_text:
                out.append(slot)
            continue
        fates = _fates_after(start, slot, outcome.value, outcome.landed)
        if removed is not None and removed[0] == slot:
            rest = list(fates)
            rest.remove(removed[1])
            fates = tuple(rest)
        if fades_by_hours(card, start.attached[slot], fates):
            out.append(slot)
    return out


def fade_doom(start: TurnStart, fading: list[int]) -> tuple[int, bool]:
    """(doom the fades of ``fading`` cost without a correct prediction, amplified?), as
    the end of the turn counts it (:func:`shipwreck_env.rules.fading.fade_cost`)."""
    amplified = sands_among(start.attached[slot] for slot in fading)
    doom = sum(fade_cost(start.slots[slot], amplified) for slot in fading)
    return doom, amplified


class DrawNeeded(Exception):
    """The action would draw a fate (The Feast, the next seat's turn): it is not
    deterministic."""


class _NoDraws:
    """Stands in for the random generator: any draw raises :class:`DrawNeeded`."""

    def random(self) -> float:
        raise DrawNeeded("this action draws a fate: step it with a random generator")


def step_without_draws(s: State, action: int) -> State:
    """The state after ``action`` (legal in ``s``), which is left unchanged, for an action
    that draws no fate.

    Raises:
        DrawNeeded: the action would draw (a play on The Feast, or the end of a turn that
            starts the next seat's draw).
        IllegalActionError: the action is not legal in ``s``.
    """
    t = s.copy()
    step_inplace(t, action, _NoDraws())  # type: ignore[arg-type]
    return t
