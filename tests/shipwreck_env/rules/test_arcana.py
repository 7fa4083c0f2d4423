"""Each card's special effect has one home (:mod:`shipwreck_env.rules.arcana` for card texts,
:mod:`shipwreck_env.rules.powers` for powers, attached ones included): no other module of the
turn names those cards. What the effects do is tested in ``test_expansions.py``.

Authority: the module docstrings of ``shipwreck_env/rules/arcana.py`` and
``shipwreck_env/rules/powers.py``; the project's style guide, ``docs/development.md``
("One home per concept").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shipwreck_env.rules.arcana import FADES_BY_TEXT, fades_by_text_after
from shipwreck_env.rules.cards import CARDS

ROOT = Path(__file__).resolve().parents[3]
STYLE_GUIDE = ROOT / "docs" / "development.md"
TURN_MODULES = [
    "engine",
    "turn_start",
    "plays",
    "predictions",
    "fading",
    "powers",
    "arcana",
    "number_lines",
]
HOME = {
    "ash": "arcana",
    "fall": "arcana",
    "imago": "arcana",
    "blind_man": "arcana",
    "sands": "powers",
    "scions": "powers",
}


@pytest.mark.parametrize("card", list(HOME))
def test_a_card_effect_lives_in_one_module_of_the_turn(card: str) -> None:
    naming = [
        module
        for module in TURN_MODULES
        if f'"{card}"' in (ROOT / "shipwreck_env" / "rules" / f"{module}.py").read_text()
    ]
    assert naming == [HOME[card]]


def test_the_public_record_looks_up_no_card_and_asks_the_engine_modules() -> None:
    """It may read announcements (event kinds), never find a card or power by name."""
    text = (ROOT / "shipwreck_env" / "rules" / "public_record.py").read_text()
    lookups = [name for name in ("CARD_INDEX", "POWER_INDEX", "CARDS", ".power ==") if name in text]
    assert lookups == []


def test_the_public_answer_on_fading_by_text_covers_the_cards_that_fade_by_text() -> None:
    answering = [
        card for card in range(len(CARDS)) if fades_by_text_after(card, 1, True) is not None
    ]
    assert sorted(answering) == sorted(FADES_BY_TEXT)


def test_the_style_guide_gives_each_home_and_names_this_test() -> None:
    """The guide's "One home per concept" section, which this file's docstring cites,
    exists and names every home module above and this test."""
    text = STYLE_GUIDE.read_text()
    assert "### One home per concept" in text, f"{STYLE_GUIDE} has no such section"
    section = text.split("### One home per concept", 1)[1].split("\n#", 1)[0]
    for module in sorted(set(HOME.values())):
        assert f"`{module}.py`" in section, module
    assert "tests/shipwreck_env/rules/test_arcana.py" in section
