"""A way out for the convention player: a power before the play that saves a fade.

On a turn where the line the convention gives the player's hand fades a card and the
group cannot be sure of the kept fate, a power that changes the table before the play
(Sparrows cycles an empty card, Skies moves a visible fate, Shadows lifts the kept
fate's reading by one) may open a play that fades nothing. :func:`way_out` finds one for
the player's own hand, by stepping the engine on the turn's public start with that hand
(:func:`~shipwreck_env.rules.scenario.hypothetical_turn_start`): nothing here reads another
seat's fate. The group does not read such a turn by the convention (it starts with a
power), so it falls back to the number line, and neither side remembers the turn.
That literal reading is a way out too: a play after which the number line holds the
kept fate's value alone is named for sure, so the turn scores and its fades are free.
"""

from __future__ import annotations

from collections.abc import Sequence

from shipwreck_agents.scripted.knowledge import doom_of_fades, fading_slots
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.engine import legal_actions
from shipwreck_env.rules.public_record import DrawNeeded, step_without_draws
from shipwreck_env.rules.scenario import hypothetical_turn_start
from shipwreck_env.rules.state import Phase
from shipwreck_env.rules.view import AgentView, make_view

__all__ = ["PRE_PLAY_POWERS", "way_out"]

PRE_PLAY_POWERS = ("sparrows", "skies", "shadows")
"""The player's powers that change the table or the kept fate's reading before the play."""


def way_out(
    view: AgentView, hand: Sequence[int], carried: bool, certain: bool = False, calm: bool = True
) -> tuple[int, int] | None:
    """(pre-play power action, play action after it) that ends the turn well, the first
    in action order; ``None`` if there is none.

    Two kinds count: with ``certain``, a play after which the kept fate's public number
    line holds one value (the group, reading the turn literally, names it for sure, so the
    turn scores and its fades cost nothing), and, with ``calm``, a play after which no
    fade costs doom. A sure reading comes first.

    Args:
        view: the active player's view at its first play, no power used yet.
        hand: its two fates, the carried one first if ``carried``.
        carried: ``hand[0]`` was kept from its last turn.
        certain: accept a play that the number line alone reads.
        calm: accept a play that fades nothing at a doom cost.
    """
    powers = [a for a in view.legal if ACTIONS[a].power in PRE_PLAY_POWERS]
    if not powers:
        return None
    s = hypothetical_turn_start(view, list(hand), carried)
    quiet = None
    for power in powers:
        t = step_without_draws(s, power)
        for play in legal_actions(t):
            if ACTIONS[play].kind != "play":
                continue
            try:
                u = step_without_draws(t, play)
            except DrawNeeded:  # a play on The Feast: its second play is not known yet
                continue
            if u.phase == Phase.STEAL:  # The Thief would still move a fate
                continue
            if certain and u.lines[u.active].bit_count() == 1:
                return power, play
            if calm and quiet is None:
                after = make_view(u, view.player)
                if doom_of_fades(after, fading_slots(after)) == 0:
                    if not certain:
                        return power, play
                    quiet = (power, play)
    return quiet
