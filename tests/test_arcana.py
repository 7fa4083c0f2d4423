"""Each card's special effect has one home (:mod:`shipwreck_env.arcana` for card texts,
:mod:`shipwreck_env.powers` for powers, attached ones included): no other module of the
turn names those cards. What the effects do is tested in ``test_expansions.py``.

Authority: the module docstrings of ``shipwreck_env/arcana.py`` and
``shipwreck_env/powers.py``; STYLE.md ("a card's behaviour next to its data").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shipwreck_env.arcana import FADES_BY_TEXT, fades_by_text_after
from shipwreck_env.cards import CARDS

ROOT = Path(__file__).resolve().parent.parent
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
        if f'"{card}"' in (ROOT / "shipwreck_env" / f"{module}.py").read_text()
    ]
    assert naming == [HOME[card]]


def test_the_public_record_looks_up_no_card_and_asks_the_engine_modules() -> None:
    """It may read announcements (event kinds), never find a card or power by name."""
    text = (ROOT / "shipwreck_env" / "public_record.py").read_text()
    lookups = [name for name in ("CARD_INDEX", "POWER_INDEX", "CARDS", ".power ==") if name in text]
    assert lookups == []


def test_the_public_answer_on_fading_by_text_covers_the_cards_that_fade_by_text() -> None:
    answering = [
        card for card in range(len(CARDS)) if fades_by_text_after(card, 1, True) is not None
    ]
    assert sorted(answering) == sorted(FADES_BY_TEXT)
