"""What a decision will do, said before it is taken: the preview of each play, the
cards that fade at the end of this turn, and a word on the decision itself.

A preview tells the active player what each of their plays would tell the group, read
literally: the number line their hidden fate would have after it (the same rule the
engine applies, from the card's condition and the line before the play), and any card
that the play would make fade. The fade warning names every card that fades at the end
of this turn unless the group predicts right, with the doom it would cost.

Everything here reads an :class:`~shipwreck_env.rules.view.AgentView`'s public fields only
(the table, the number lines, the plays and announcements of this turn) and, for a
preview, which fate the viewer would keep -- their own hand. It never reads another
seat's hand, the deck below its top card or a :class:`~shipwreck_env.rules.state.State`, so
twin games that differ only in hidden facts give the same words
(``tests/apps/test_preview.py``).
"""

from __future__ import annotations

from shipwreck_agents.scripted.knowledge import (
    doom_of_fades,
    fading_slots,
    line_after_play,
    tracked_line,
)
from shipwreck_apps.play.explain import card_name, values_text
from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET
from shipwreck_env.rules.conditions import mask_values
from shipwreck_env.rules.view import AgentView

__all__ = ["DECISION_HELP", "decision_help", "fade_warnings", "play_preview"]

DECISION_HELP = {
    "play": (
        "Play one of your two fates on a card whose condition your pair meets; the other "
        "stays hidden. Under each play: what it tells the group about the fate you keep."
    ),
    "reveal": (
        "Reveal discards the fate you hold face up: everybody sees its value, it goes "
        "back to the bag and you start your next turn with two fresh fates. The value "
        "you show is one copy fewer that the active player could be keeping: reveal when "
        "that can tip the group between two values; otherwise keep it hidden."
    ),
    "group": (
        "The group may use one faded power, then predicts the active player's hidden "
        "fate or passes: right +1 score, wrong +1 doom, and a card fading this turn costs "
        "its doom unless the prediction is right."
    ),
    "vote": (
        "Vote a value for the active player's hidden fate, or pass; a value with a strict "
        "majority is predicted."
    ),
}
"""A sentence for the decision of each phase that needs one (the others say it in
their options)."""


def decision_help(view: AgentView) -> str | None:
    """The sentence explaining the viewer's decision now, or ``None`` when they do not
    decide or the decision needs none."""
    if view.over or view.decider != view.player:
        return None
    return DECISION_HELP.get(view.phase)


def _fade_text(view: AgentView, slots: list[int]) -> str:
    names = " and ".join(card_name(view.slots[s]) for s in slots)
    doom = doom_of_fades(view, slots)
    verb = "fades" if len(slots) == 1 else "fade"
    if not doom:
        return f"{names} {verb} at the end of this turn (no doom)"
    return f"{names} {verb} at the end of this turn: +{doom} doom unless the group predicts right"


def fade_warnings(view: AgentView) -> list[dict]:
    """Each card that fades at the end of this turn if nothing else changes (its hours
    reached the number it fades at, The Ash after a 1 or 2, The Fall as announced):
    ``slot``, ``card`` (its name), ``doom`` (what the fade costs without a right
    prediction) and ``text``."""
    if view.over:
        return []
    return [
        {
            "slot": slot,
            "card": card_name(view.slots[slot]),
            "doom": doom_of_fades(view, [slot]),
            "text": _fade_text(view, [slot]),
        }
        for slot in fading_slots(view)
    ]


def play_preview(view: AgentView, action: int) -> dict | None:
    """What the viewer's play ``action`` would tell the group, or ``None`` when it is not
    a play of theirs: ``values`` (their hidden fate's number line after it, read
    literally), ``fades`` (slots it would make fade) and ``text``."""
    if view.phase != "play" or view.decider != view.player or view.over:
        return None
    if not 0 <= action < len(ACTIONS) or ACTIONS[action].kind != "play":
        return None
    spec = ACTIONS[action]
    value, target = spec.value, spec.slot
    line = line_after_play(view, value, target, tracked_line(view))
    values = mask_values(line)
    landed = target
    if target == HOURS_TARGET:
        landed = next((s for s, c in enumerate(view.slots) if c is not None), -1)
    before = set(fading_slots(view))
    extra = {landed: (value,)} if landed >= 0 else {}
    new = [s for s in fading_slots(view, extra) if s not in before]
    text = f"tells the group your hidden fate is {values_text(values)}"
    if new:
        text += "; " + _fade_text(view, new)
    return {"values": values, "fades": new, "text": text}
