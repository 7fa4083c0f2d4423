"""What a play tells the table, in words, from public facts only.

A player may not talk: the group learns about the fate the active player kept only from
where the other fate went. Read literally, a play says "my kept fate is one of the
values for which this card's condition held for the pair" -- and, with every earlier
public fact (earlier plays of a carried fate, power answers, wrong predictions), that is
exactly the active seat's number line, which the engine keeps from public facts alone
(see ``docs/rules.md``, *Number lines*). This module turns that into sentences for the
table page, the terminal and replays.

Everything here reads an :class:`~shipwreck_env.rules.view.AgentView`'s public fields only
(the table, the plays and events of this turn, the number lines, who is active) and
never ``my_hands`` or ``my_carried``: any seat's view of the same moment gives the same
words. It must not import ``agents`` nor read a :class:`~shipwreck_env.rules.state.State`.
"""

from __future__ import annotations

from collections.abc import Sequence

from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET
from shipwreck_env.rules.cards import CARD_INDEX, CARDS
from shipwreck_env.rules.conditions import mask_values
from shipwreck_env.rules.view import AgentView

__all__ = [
    "card_name",
    "play_note",
    "play_words",
    "slots_at_events",
    "turn_reading",
    "values_text",
]


def values_text(values: Sequence[int]) -> str:
    """Fate values as a reader says them: ``[1, 3, 7]`` -> "1, 3 or 7"; every value
    -> "any value from 1 to 7"; none -> "no value" (a contradiction the rules exclude)."""
    values = sorted(values)
    if len(values) == 7:
        return "any value from 1 to 7"
    if not values:
        return "no value"
    if len(values) == 1:
        return str(values[0])
    return ", ".join(map(str, values[:-1])) + f" or {values[-1]}"


def card_name(card_id: str | None) -> str:
    """The printed name of the arcana card ``card_id`` ("blind_man" -> "The Blind Man");
    ``None`` (an empty slot) -> "an empty slot".

    Raises:
        ValueError: ``card_id`` is not a card id.
    """
    if card_id is None:
        return "an empty slot"
    if card_id not in CARD_INDEX:
        raise ValueError(
            f"card {card_id!r} is not an arcana card id; allowed: {sorted(CARD_INDEX)}"
        )
    return CARDS[CARD_INDEX[card_id]].name


def slots_at_events(view: AgentView) -> list[tuple[str | None, ...]]:
    """The card in each slot just before each of this turn's events (``view.events``),
    starting from the table after the draw: a fade empties a slot, a refill or
    Sparrows' cycle puts a new card there. Public: every change is announced."""
    slots = [CARDS[c].id if c >= 0 else None for c in view.turn_start.slots]
    out = []
    for event in view.events:
        out.append(tuple(slots))
        if event[0] == "fade":
            slots[event[1]] = None
        elif event[0] == "refill":
            slots[event[1]] = event[2]
        elif event[0] == "power" and event[1] == "sparrows":
            slots[event[2]] = event[3][1]
    return out


def play_words(value: int, target: int, landed: int, slots: Sequence[str | None]) -> str:
    """A play in words with the card's name: "5 on The Blind Man (slot 1)", or "2 on The
    Hours (slid to Dawn, slot 0)"; ``slots`` are the cards in play when it was made."""
    if target == HOURS_TARGET:
        if landed < 0:
            return f"{value} on The Hours (back to the bag: no card in play)"
        return f"{value} on The Hours (slid to {card_name(slots[landed])}, slot {landed})"
    return f"{value} on {card_name(slots[target])} (slot {target})"


def _plays_in_words(view: AgentView) -> list[str]:
    before = slots_at_events(view)
    return [
        play_words(e[1], e[2], e[3], before[i]) for i, e in enumerate(view.events) if e[0] == "play"
    ]


def _whose(view: AgentView, viewer: int | None) -> str:
    """Whose kept fate, for ``viewer``: "your" or "player 2's"."""
    return "your" if view.active_player == viewer else f"player {view.active_player}'s"


def _fate(view: AgentView) -> str:
    """ "hidden fate", with its seat in the 2-player challenge mode (two seats each)."""
    return f"hidden fate (seat {view.active_seat})" if view.config.challenge_mode else "hidden fate"


def turn_reading(view: AgentView, viewer: int | None = -1) -> dict | None:
    """What this turn's plays tell about the active seat's kept fate, or ``None`` before
    the first play, once the kept fate is gone (predicted, stolen or revealed) and after
    the game ends. ``viewer`` is who reads it ("your" fate when it is theirs): the
    view's player by default, ``None`` for everybody (replays).

    Returns a dict: ``seat`` and ``player`` (whose fate), ``plays`` (this turn's plays in
    words, card names included), ``values`` (the kept values the table cannot rule out
    from public facts: the active seat's number line) and ``text`` (one sentence)."""
    seat = view.active_seat
    if view.over or not view.plays or view.holding[seat] != 1:
        return None
    plays = _plays_in_words(view)
    values = mask_values(view.lines[seat])
    whose = _whose(view, view.player if viewer == -1 else viewer)
    one = len(plays) == 1
    text = (
        f"From {whose} play{'' if one else 's'} this turn ({'; '.join(plays)}), "
        f"read literally with what is public: {whose} {_fate(view)} is {values_text(values)}."
    )
    return {
        "seat": seat,
        "player": view.active_player,
        "plays": plays,
        "values": values,
        "text": text,
    }


def play_note(view: AgentView, action: int) -> str | None:
    """The line for a play in the log: ``view`` is any seat's view right after
    ``action`` was taken; a play (not a power, pass or prediction) whose player still
    holds one hidden fate gets "this play says the hidden fate is 1, 3 or 7", the active
    seat's number line then; anything else gets ``None``."""
    if not 0 <= action < len(ACTIONS) or ACTIONS[action].kind != "play":
        return None
    seat = view.active_seat
    if view.over or not view.plays or view.holding[seat] != 1:
        return None
    values = values_text(mask_values(view.lines[seat]))
    return f"this play says {_whose(view, None)} {_fate(view)} is {values}"
