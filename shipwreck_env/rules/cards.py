"""Card and faded-power data for Shipwreck Arcana: numbers and names only, no behaviour.

Every arcana card has an id, a display name, the set it ships in, its duration in
moons (``None`` for the two cards that fade only by their own text) and the id of the
faded power printed on its back. Every faded power has an id, a short title, who may
use it and when, as printed on the cards (Meromorph Games' official card and faded
power references; docs/rules.md lists our rulings). Ids are this project's stable names,
used by tests, saved games and replays; the index of a card or power in
``CARDS`` / ``POWERS`` is its number everywhere else in the package (observations,
actions, saved games), so new entries only ever go at the end.

Card conditions live in :mod:`shipwreck_env.rules.conditions`; what cards and powers *do* lives in
the engine. This module must stay importable without numpy, gymnasium or pettingzoo.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CARDS",
    "CARD_INDEX",
    "CARD_SETS",
    "FATE_COPIES",
    "FATE_VALUES",
    "HOURS_ID",
    "NUM_CARDS",
    "NUM_POWERS",
    "POWERS",
    "POWER_INDEX",
    "Card",
    "Power",
    "fate_hours",
]

FATE_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
"""The values printed on fate tokens."""

FATE_COPIES = 3
"""Copies of each value in the bag: 7 values x 3 = 21 fate tokens."""

HOURS_ID = "hours"
"""The Hours: always in play left of the four slots; not an arcana card, never fades."""


def fate_hours(value: int) -> int:
    """Hours (pips) a fate of ``value`` adds in front of a card: 1-3 -> 1, 4-6 -> 2, 7 -> 3."""
    if value <= 3:
        return 1
    if value <= 6:
        return 2
    return 3


@dataclass(frozen=True)
class Card:
    """One arcana card as printed.

    Attributes:
        id: stable identifier (used by tests, saved games and replays).
        name: display name.
        set: ``base``, ``kickstarter``, ``gencon`` or ``stars_below``.
        moons: hours in front of the card that make it fade; ``None`` when it fades
            only by its own text (The Ash, The Fall).
        power: id of the faded power on its back.
        title: the ability's short title, as a player would call it.
        summary: the ability in one line (our words).
    """

    id: str
    name: str
    set: str
    moons: int | None
    power: str
    title: str
    summary: str


@dataclass(frozen=True)
class Power:
    """One faded power (the back of an arcana card).

    Attributes:
        id: stable identifier (used by tests, saved games and replays).
        title: short name.
        user: ``group``, ``active`` or ``none`` (Sands works by itself).
        timing: ``before_play``, ``after_play``, ``group`` (after the play, before
            predicting), ``after_correct`` (Sails) or ``automatic`` (Sands).
        set: the card set that introduces it.
        summary: what it does, in one line (our words).
    """

    id: str
    title: str
    user: str
    timing: str
    set: str
    summary: str


CARDS: tuple[Card, ...] = (
    # base set
    Card("beast", "The Beast", "base", 1, "sorrows", "±1", "fates differ by exactly 1"),
    Card("belltower", "The Belltower", "base", 2, "sinners", "x3", "sum is a multiple of 3"),
    Card("blind_man", "The Blind Man", "base", 1, "songs", "Free", "always; no doom when it fades"),
    Card(
        "chalice",
        "The Chalice",
        "base",
        2,
        "songs",
        "Tell",
        "always; then say whether the kept fate is higher",
    ),
    Card("dawn", "Dawn", "base", 3, "saints", "Higher", "play the strictly higher fate"),
    Card("deep", "The Deep", "base", 3, "saints", "≤5", "sum is 5 or less"),
    Card(
        "engine",
        "The Engine",
        "base",
        3,
        "swords",
        "Factor",
        "one fate is double or triple the other",
    ),
    Card("huntress", "The Huntress", "base", 1, "sorrows", "±2", "fates differ by exactly 2"),
    Card("judge", "The Judge", "base", 3, "spires", "Even", "sum is even"),
    Card("key", "The Key", "base", 3, "shells", "7 to 9", "sum is 7, 8 or 9"),
    Card("leviathan", "Leviathan", "base", 4, "sinners", "≥11", "sum is 11 or more"),
    Card(
        "lord", "The Lord", "base", 3, "swords", "5-6-7", "exactly one fate is 5-7; play that one"
    ),
    Card("midnight", "Midnight", "base", 3, "saints", "Lower", "play the strictly lower fate"),
    Card("mirror", "The Mirror", "base", 1, "sorrows", "Same", "both fates equal"),
    Card(
        "noble", "The Noble", "base", 3, "spires", "3-4-5", "exactly one fate is 3-5; play that one"
    ),
    Card(
        "prophet",
        "The Prophet",
        "base",
        2,
        "sparrows",
        "Match",
        "the kept fate matches a visible fate",
    ),
    Card(
        "rider",
        "The Rider",
        "base",
        2,
        "sparrows",
        "Unique",
        "fates differ from each other and from every visible fate",
    ),
    Card(
        "servant",
        "The Servant",
        "base",
        2,
        "secrets",
        "1-2-3",
        "exactly one fate is 1-3; play that one",
    ),
    Card("shore", "The Shore", "base", 4, "sinners", "4 Apart", "fates differ by 4 or more"),
    Card("stranger", "The Stranger", "base", 3, "secrets", "Odd", "sum is odd"),
    # Kickstarter
    Card(
        "asunder",
        "Asunder",
        "kickstarter",
        1,
        "storms",
        "Difference",
        "the difference is a visible fate; play the higher",
    ),
    # The sources disagree on this back: "songs" (one source says shackles); one edit
    # here changes it.
    Card(
        "captain",
        "The Captain",
        "kickstarter",
        3,
        "songs",
        "1-4-7",
        "exactly one fate is 1, 4 or 7; play that one",
    ),
    Card(
        "feast",
        "The Feast",
        "kickstarter",
        4,
        "skies",
        "Draw",
        "always, once a turn; draw and play again elsewhere",
    ),
    Card(
        "fortune",
        "Fortune",
        "kickstarter",
        3,
        "shadows",
        "High Odds",
        "both odd and unequal: play the higher; one odd: play the lower",
    ),
    Card(
        "ghost",
        "The Ghost",
        "kickstarter",
        2,
        "shadows",
        "Alone",
        "no visible fate is 1 away from either fate",
    ),
    Card(
        "iron",
        "Iron",
        "kickstarter",
        4,
        "shadows",
        "Rising",
        "the kept fate beats the highest fate in front of Iron",
    ),
    Card(
        "lantern",
        "The Lantern",
        "kickstarter",
        3,
        "skies",
        "All x4",
        "both fates plus all visible fates sum to a multiple of 4",
    ),
    Card(
        "pallbearers",
        "The Pallbearers",
        "kickstarter",
        2,
        "shackles",
        "Within 2",
        "fates differ by 1 or 2",
    ),
    Card(
        "passage",
        "The Passage",
        "kickstarter",
        2,
        "storms",
        "Between",
        "exactly one visible value lies strictly between the fates",
    ),
    Card(
        "wish",
        "The Wish",
        "kickstarter",
        2,
        "shells",
        "Guess",
        "always; the group gets one extra prediction",
    ),
    # Gen Con promo
    Card("imago", "The Imago", "gencon", 3, "sparrows", "Delay", "always; a 7 here counts 1 hour"),
    # Stars Below
    Card(
        "ash",
        "The Ash",
        "stars_below",
        None,
        "scythes",
        "Fragile",
        "only 7s; fades when a 1 or 2 is played anywhere",
    ),
    Card(
        "fall",
        "The Fall",
        "stars_below",
        None,
        "sands",
        "Inevitable",
        "always; fades when its fates sum to twice the kept fate or more",
    ),
    Card(
        "musicians",
        "The Musicians",
        "stars_below",
        3,
        "sails",
        "Make 11",
        "both fates plus at most one visible fate make 11",
    ),
    Card(
        "north_wind",
        "The North Wind",
        "stars_below",
        2,
        "scions",
        "Tiers",
        "one fate has exactly one more hour than the other",
    ),
    Card(
        "thief",
        "The Thief",
        "stars_below",
        2,
        "scythes",
        "Steal",
        "never played on; steals a visible fate above the kept fate",
    ),
)

POWERS: tuple[Power, ...] = (
    Power(
        "saints",
        "Higher than X?",
        "group",
        "group",
        "base",
        "ask whether the kept fate is higher than a chosen X",
    ),
    Power("secrets", "1-2-3?", "group", "group", "base", "ask whether the kept fate is 1, 2 or 3"),
    Power(
        "shells",
        "Old?",
        "active",
        "after_play",
        "base",
        "say whether the fate just played was held from the previous turn",
    ),
    Power(
        "sinners",
        "Discard lower",
        "active",
        "after_play",
        "base",
        "return one visible fate lower than the kept fate to the bag",
    ),
    Power("songs", "1-4-7?", "group", "group", "base", "ask whether the kept fate is 1, 4 or 7"),
    Power("sorrows", "Twice", "group", "group", "base", "one extra prediction this turn"),
    Power(
        "sparrows",
        "Cycle",
        "active",
        "before_play",
        "base",
        "replace an arcana card with no fates by the top card of the deck",
    ),
    Power("spires", "3-4-5?", "group", "group", "base", "ask whether the kept fate is 3, 4 or 5"),
    Power("swords", "5-6-7?", "group", "group", "base", "ask whether the kept fate is 5, 6 or 7"),
    Power(
        "shackles",
        "Within 2?",
        "group",
        "group",
        "kickstarter",
        "ask whether the kept fate is within 2 of the (last) fate played",
    ),
    Power(
        "shadows",
        "+1",
        "active",
        "before_play",
        "kickstarter",
        "the kept fate counts 1 higher for this turn's conditions",
    ),
    Power(
        "skies",
        "Relocate",
        "active",
        "before_play",
        "kickstarter",
        "move one visible fate to another arcana card",
    ),
    Power(
        "storms",
        "Same?",
        "group",
        "group",
        "kickstarter",
        "ask whether the kept fate equals a chosen visible fate",
    ),
    Power(
        "sails",
        "Exile",
        "group",
        "after_correct",
        "stars_below",
        "after a correct prediction, discard it and another power to exile a visible fate",
    ),
    Power(
        "sands",
        "Amplify",
        "none",
        "automatic",
        "stars_below",
        "attaches itself; the turn its card fades, fades cost +1 doom, a correct "
        "prediction +1 point",
    ),
    Power(
        "scions",
        "Slow",
        "group",
        "group",
        "stars_below",
        "attach to an arcana card: each fate there counts 1 hour",
    ),
    Power(
        "scythes",
        "2 or 6?",
        "group",
        "group",
        "stars_below",
        "discard it and another power to ask whether the kept fate is 2 or 6",
    ),
)

NUM_CARDS = len(CARDS)
NUM_POWERS = len(POWERS)
CARD_INDEX: dict[str, int] = {card.id: i for i, card in enumerate(CARDS)}
POWER_INDEX: dict[str, int] = {power.id: i for i, power in enumerate(POWERS)}
CARD_SETS: tuple[str, ...] = ("base", "kickstarter", "gencon", "stars_below")
"""Card sets in their canonical order."""
