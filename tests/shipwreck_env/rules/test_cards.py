"""Card data (``shipwreck_env/rules/cards.py``) against the numbers printed on the cards: each
card's set, moons and the faded power on its back."""

from __future__ import annotations

import pytest

from shipwreck_env.rules.cards import CARD_INDEX, CARDS, POWER_INDEX, POWERS, fate_hours

# id: (set, moons, faded power on the back) -- the printed numbers, kept apart from cards.py
PRINTED = {
    "beast": ("base", 1, "sorrows"),
    "belltower": ("base", 2, "sinners"),
    "blind_man": ("base", 1, "songs"),
    "chalice": ("base", 2, "songs"),
    "dawn": ("base", 3, "saints"),
    "deep": ("base", 3, "saints"),
    "engine": ("base", 3, "swords"),
    "huntress": ("base", 1, "sorrows"),
    "judge": ("base", 3, "spires"),
    "key": ("base", 3, "shells"),
    "leviathan": ("base", 4, "sinners"),
    "lord": ("base", 3, "swords"),
    "midnight": ("base", 3, "saints"),
    "mirror": ("base", 1, "sorrows"),
    "noble": ("base", 3, "spires"),
    "prophet": ("base", 2, "sparrows"),
    "rider": ("base", 2, "sparrows"),
    "servant": ("base", 2, "secrets"),
    "shore": ("base", 4, "sinners"),
    "stranger": ("base", 3, "secrets"),
    "asunder": ("kickstarter", 1, "storms"),
    "captain": ("kickstarter", 3, "songs"),
    "feast": ("kickstarter", 4, "skies"),
    "fortune": ("kickstarter", 3, "shadows"),
    "ghost": ("kickstarter", 2, "shadows"),
    "iron": ("kickstarter", 4, "shadows"),
    "lantern": ("kickstarter", 3, "skies"),
    "pallbearers": ("kickstarter", 2, "shackles"),
    "passage": ("kickstarter", 2, "storms"),
    "wish": ("kickstarter", 2, "shells"),
    "imago": ("gencon", 3, "sparrows"),
    "ash": ("stars_below", None, "scythes"),
    "fall": ("stars_below", None, "sands"),
    "musicians": ("stars_below", 3, "sails"),
    "north_wind": ("stars_below", 2, "scions"),
    "thief": ("stars_below", 2, "scythes"),
}
POWER_SETS = {
    "base": {
        "saints",
        "secrets",
        "shells",
        "sinners",
        "songs",
        "sorrows",
        "sparrows",
        "spires",
        "swords",
    },
    "kickstarter": {"shackles", "shadows", "skies", "storms"},
    "stars_below": {"sails", "sands", "scions", "scythes"},
}


@pytest.mark.parametrize("card_id", sorted(PRINTED))
def test_card_matches_the_printed_table(card_id):
    card = CARDS[CARD_INDEX[card_id]]
    assert (card.set, card.moons, card.power) == PRINTED[card_id]


def test_there_are_36_cards_and_17_powers_with_unique_ids():
    assert len(CARDS) == 36 == len(CARD_INDEX) == len(PRINTED)
    assert len(POWERS) == 17 == len(POWER_INDEX)


def test_powers_belong_to_their_sets():
    for power in POWERS:
        assert power.id in POWER_SETS[power.set]


def test_every_power_is_on_the_back_of_some_card():
    assert {card.power for card in CARDS} == {power.id for power in POWERS}


@pytest.mark.parametrize(
    ("value", "hours"), [(1, 1), (2, 1), (3, 1), (4, 2), (5, 2), (6, 2), (7, 3)]
)
def test_fate_hours(value, hours):
    """Rulebook, Fate Tokens: 1-3 consume 1 hour, 4-6 two, 7 three."""
    assert fate_hours(value) == hours
