"""The table in words, for people: what everybody can see, and a viewer's own fates.

:func:`render` shows the score, doom, deck top, the four slots with their fates, hours
and moons, faded powers, number lines and this turn's announcements; only when a
``viewer`` player is given does it show that player's own held fates. Other hands are
never shown: a held fate appears as ``[?]``. :func:`describe_event` and
:func:`turn_line` put one event and the turn's state into words, for the text and the
image (:mod:`shipwreck_env.envs.render_image`) alike. The render modes that choose
between them are in :mod:`shipwreck_env.envs.render`.
"""

from __future__ import annotations

from shipwreck_env.rules.cards import CARDS
from shipwreck_env.rules.conditions import mask_values
from shipwreck_env.rules.engine import slot_hours
from shipwreck_env.rules.state import PHASES, State

__all__ = ["describe_event", "render", "turn_line"]


def _card_label(card: int) -> str:
    c = CARDS[card]
    moons = "no moons" if c.moons is None else f"{c.moons} moons"
    return f"{c.name} [{c.title}, {moons}]"


def describe_event(event: tuple) -> str:
    """One public event of the turn in words."""
    kind, *args = event
    if kind == "draw":
        return f"seat {args[0]} drew {args[1]}"
    if kind == "play":
        value, target, landed = args
        where = "The Hours" if target == 4 else f"slot {target}"
        slide = f" (slid to slot {landed})" if target == 4 and landed >= 0 else ""
        return f"played {value} on {where}{slide}"
    if kind == "feast_draw":
        return "drew a fate from The Feast"
    if kind == "steal":
        return (
            "The Thief took nothing"
            if args[0] < 0
            else f"The Thief took the {args[1]} from slot {args[0]}"
        )
    if kind == "chalice":
        return f"The Chalice: the kept fate is {'higher' if args[0] else 'not higher'}"
    if kind == "fall":
        return f"The Fall {'fades' if args[0] else 'does not fade'} this turn"
    if kind == "power":
        power, arg, answer = args
        text = f"used {power}"
        if arg is not None:
            text += f" {arg}"
        if answer is not None:
            text += f": {'yes' if answer else 'no'}"
        return text
    if kind == "cost":
        return f"discarded {args[0]} as the cost"
    if kind == "reveal":
        return f"seat {args[0]} revealed a {args[1]}"
    if kind == "vote":
        return f"player {args[0]} voted {args[1] if args[1] else 'pass'}"
    if kind == "predict":
        return f"predicted {args[0]}: {'correct' if args[1] else 'wrong'}"
    if kind == "resolve":
        return "the hidden fate goes back to the bag" + (" (scored)" if args[0] else " unseen")
    if kind == "exile":
        return f"exiled the {args[1]} from slot {args[0]}"
    if kind == "fade":
        return f"slot {args[0]} faded ({args[1]})"
    if kind == "refill":
        return f"slot {args[0]} refilled with {args[1]}"
    if kind == "attach":
        return f"{args[0]} attached to slot {args[1]}"
    if kind == "table_to_bag":
        return f"the bag was empty: {args[0]} fates returned from the table"
    return " ".join(str(x) for x in event)


def turn_line(s: State) -> str:
    """Whose turn it is, in which phase and who decides; or how the game ended."""
    if s.over:
        result = "truncated" if s.truncated else ("won" if s.won else "lost")
        return f"Game over after {s.turn} turns: {result}"
    return (
        f"Turn {s.turn}: seat {s.active} (player {s.active_player}) is active; "
        f"phase {PHASES[s.phase]}, player {s.decider} decides"
    )


def render(s: State, viewer: int | None = None) -> str:
    """The table as text; ``viewer`` (a player number) also sees their own fates."""
    cfg = s.config
    lines = [turn_line(s)]
    lines.append(f"Score {s.score}/7  Doom {s.doom}/7  Bag {sum(s.bag)}  ({cfg.difficulty})")
    top = _card_label(s.deck[0]) if s.deck else "empty"
    lines.append(f"Deck: {len(s.deck)} cards, top: {top}")
    for slot in range(4):
        card = s.slots[slot]
        if card < 0:
            lines.append(f"  slot {slot}: (empty)")
            continue
        fates = " ".join(str(v) for v in s.table[slot]) or "-"
        moons = CARDS[card].moons
        hours = f"{slot_hours(s, slot)}/{moons if moons is not None else '-'} hours"
        extra = "".join(f" +{CARDS[c].power}" for c in s.attached[slot])
        lines.append(f"  slot {slot}: {_card_label(card)}  fates: {fates}  {hours}{extra}")
    faded = ", ".join(f"{CARDS[c].power} ({CARDS[c].name})" for c in s.faded) or "none"
    lines.append(f"Faded powers: {faded}")
    if any(s.exiled):
        exiled = " ".join(str(v + 1) for v, n in enumerate(s.exiled) for _ in range(n))
        lines.append(f"Exiled: {exiled}")
    for seat, hand in enumerate(s.hands):
        owner = s.owner(seat)
        shown = " ".join(str(v) for v in hand) if viewer == owner else " ".join("[?]" for _ in hand)
        line = "".join(str(v) for v in mask_values(s.lines[seat]))
        lines.append(
            f"  seat {seat} (player {owner}): holds {shown or 'nothing'}; number line {line}"
        )
    if s.events:
        lines.append("This turn: " + "; ".join(describe_event(e) for e in s.events))
    return "\n".join(lines)
