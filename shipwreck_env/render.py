"""Pictures of the table for people, and the render modes of both environments.

:func:`render` shows what everybody can see -- score, doom, deck top, the four slots with
their fates, hours and moons, faded powers, number lines, this turn's announcements --
and, only when a ``viewer`` player is given, that player's own held fates. Other hands
are never shown: a held fate appears as ``[?]``. The same picture as an RGB image is
:func:`shipwreck_env.render_image.render_image`.

Render modes (:data:`RENDER_MODES`, read by both environments): ``"ansi"`` returns the
text, ``"human"`` prints it and returns ``None``, ``"rgb_array"`` returns the image, a
``uint8`` array of one fixed shape. Like Gymnasium, an environment given another string
as its mode warns (naming the mode and the allowed ones) and carries on; its
``render()`` then warns again and returns ``None``, as it does with no mode at all. A
mode that is not a string (nor ``None``) is refused with ``ValueError``. Warnings go
through Gymnasium's logger when Gymnasium is installed, else through :mod:`warnings`:
this module must not need Gymnasium.
"""

from __future__ import annotations

import warnings

import numpy as np

from shipwreck_env.cards import CARDS
from shipwreck_env.engine import slot_hours
from shipwreck_env.rules import mask_values
from shipwreck_env.state import PHASES, State

__all__ = [
    "RENDER_MODES",
    "check_render_mode",
    "describe_event",
    "render",
    "render_mode_output",
    "turn_line",
]


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


RENDER_MODES = ("ansi", "human", "rgb_array")
"""The render modes both environments accept (their ``metadata["render_modes"]``)."""


def _warn(message: str) -> None:
    """Warn as Gymnasium does (through its logger, so its log level silences it), or
    with :mod:`warnings` where Gymnasium is not installed (the core does not need it)."""
    try:
        from gymnasium import logger
    except ImportError:
        warnings.warn(message, UserWarning, stacklevel=3)
        return
    logger.warn(message.replace("%", "%%"), stacklevel=3)


def check_render_mode(mode: object) -> object:
    """``mode`` as given. ``None`` and :data:`RENDER_MODES` pass silently; another string
    is kept with a warning naming it and the allowed modes (Gymnasium's ``make`` warns
    and carries on, and Stable-Baselines3 relies on that); anything else is a
    ``ValueError``."""
    if mode is None or mode in RENDER_MODES:
        return mode
    allowed = "None, " + ", ".join(repr(m) for m in RENDER_MODES)
    if not isinstance(mode, str):
        raise ValueError(f"render_mode {mode!r} is not allowed; allowed: {allowed}")
    _warn(
        f"render_mode {mode!r} is not supported; allowed: {allowed}. "
        "The environment runs, and render() returns None."
    )
    return mode


def render_mode_output(
    s: State, mode: str | None, viewer: int | None = None
) -> str | np.ndarray | None:
    """What an environment's ``render()`` gives in ``mode``, public or as player
    ``viewer`` sees it: the table as text for ``"ansi"``; printed (returning ``None``)
    for ``"human"``; an RGB image (:func:`shipwreck_env.render_image.render_image`) for
    ``"rgb_array"``. With no mode, or a mode not in :data:`RENDER_MODES`, it warns and
    returns ``None`` (Gymnasium's habit)."""
    if mode is None or mode not in RENDER_MODES:
        chosen = "without a render_mode" if mode is None else f"with render_mode {mode!r}"
        _warn(f"render() called {chosen}; use " + " or ".join(map(repr, RENDER_MODES)))
        return None
    if mode == "rgb_array":
        from shipwreck_env.render_image import render_image  # it imports this module

        return render_image(s, viewer)
    text = render(s, viewer)
    if mode == "human":
        print(text)
        return None
    return text
