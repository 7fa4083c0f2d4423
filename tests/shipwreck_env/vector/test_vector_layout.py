"""The batched engine's modules mirror the reference engine's, file by file, and each
faded power and each card text has one home there too: no other module of the batched
turn names a power (``vector/powers.py``) or an arcana card with a text of its own
(``vector/arcana.py``). The reference's side of the same rule is ``test_arcana.py``.

Authority: issue 42 ("each faded power has one home per engine"); the project's style
guide, ``docs/development.md`` ("One home per concept"); the module docstrings of
``shipwreck_env/vector/powers.py`` and ``shipwreck_env/vector/arcana.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_arcana import TURN_MODULES

from shipwreck_env.rules.cards import POWER_INDEX, POWERS

ROOT = Path(__file__).resolve().parents[3]
VECTOR = ROOT / "shipwreck_env" / "vector"
REFERENCE_TURN = TURN_MODULES
"""The reference engine's modules of the turn."""
VECTOR_TURN = [*REFERENCE_TURN, "ops"]
"""The batched turn: the reference's twins and ``ops``, their list operations."""
VECTOR_INFRASTRUCTURE = {
    "__init__",
    "action_features",
    "arrays",
    "background",
    "chance",
    "convert",
    "game",
    "jit",
    "observe",
    "public_record",
    "single",
    "tables",
    "to_states",
    "warm",
}
"""Modules with no twin among the reference turn's: the arrays, random streams,
compilation, the tables built from the reference's own, conversions, observations, one
compiled game, and the batched public facts (``public_record``, the twin of the
reference rules' module of that name, which is not a part of the turn)."""
CARD_TEXT_HOME = {"ash": ["arcana"], "fall": ["arcana"], "imago": ["arcana"], "blind_man": []}
"""Arcana cards with a text of their own (``shipwreck_env.rules.arcana``) and the batched
modules that name them; The Blind Man's doom-free fade is a table
(``tables.CARD_FREE_FADE``) that the end of the turn reads without naming it."""


def _set_question_ids() -> set[str]:
    from shipwreck_env.vector.tables import SET_QUESTIONS

    return {power.id for power in POWERS if POWER_INDEX[power.id] in SET_QUESTIONS}


def names(text: str, name: str) -> bool:
    """Does ``text`` name the power or card ``name``: by its constant (``SAILS``) or by
    a lookup of its id in the power or card index (``P["sails"]``,
    ``CARD_INDEX["fall"]``)? A phase (``Phase.SAILS``), an event kind
    (``EVENT["fall"]``), a table field (``sails_action``) or prose ("The Fall") does not
    count."""
    constant = rf"(?<!Phase\.)\b{name.upper()}\b"
    lookup = rf"""\b(?:P|POWER_INDEX|CARD_INDEX)\[\s*["']{name}["']\s*\]"""
    return re.search(constant, text) is not None or re.search(lookup, text) is not None


def naming(name: str) -> list[str]:
    """The batched turn's modules that name ``name``."""
    return [m for m in VECTOR_TURN if names((VECTOR / f"{m}.py").read_text(), name)]


@pytest.mark.parametrize("module", REFERENCE_TURN)
def test_each_module_of_the_reference_turn_has_a_batched_twin_of_the_same_name(
    module: str,
) -> None:
    assert (ROOT / "shipwreck_env" / "rules" / f"{module}.py").is_file()
    assert (VECTOR / f"{module}.py").is_file(), f"no shipwreck_env/vector/{module}.py"


def test_every_batched_module_is_a_twin_or_named_infrastructure() -> None:
    """A new module of the batched engine must say which it is (and so whether the one
    home rule below reads it)."""
    modules = {path.stem for path in VECTOR.glob("*.py")}
    assert modules == set(VECTOR_TURN) | VECTOR_INFRASTRUCTURE


@pytest.mark.parametrize("power", [power.id for power in POWERS])
def test_a_faded_power_lives_in_one_module_of_the_batched_turn(power: str) -> None:
    """The set questions are asked through ``tables.SET_QUESTIONS`` and named nowhere."""
    expected = [] if power in _set_question_ids() else ["powers"]
    assert naming(power) == expected


@pytest.mark.parametrize("card", list(CARD_TEXT_HOME))
def test_a_card_text_lives_in_one_module_of_the_batched_turn(card: str) -> None:
    assert naming(card) == CARD_TEXT_HOME[card]


def test_the_scan_sees_a_power_named_by_constant_or_lookup_and_nothing_else() -> None:
    assert names('SAILS = t.P["sails"]', "sails")
    assert names("if power == SAILS:", "sails")
    assert names("x = POWER_INDEX['scions']", "scions")
    assert names('FALL = CARD_INDEX["fall"]', "fall")
    assert names("if card == t.FALL:", "fall")
    assert not names('FALL_EVENT = EVENT["fall"]', "fall")
    assert not names("SAILS_PHASE = Phase.SAILS", "sails")
    assert not names("mask[r.sails_action[slot, v]] = True", "sails")
    assert not names('"""The Fall is announced; Sails exiles a fate."""', "sails")


def test_the_cache_stamp_covers_every_compiled_module_of_the_batched_engine() -> None:
    """A module whose rules are compiled into the cached kernels is hashed into their
    stamp (``jit._RULES``), or stamps its own kernels (``jit.stamp_cache``), so a change
    to it never runs stale machine code."""
    from shipwreck_env.vector import jit

    compiled = set()
    for path in VECTOR.glob("*.py"):
        text = path.read_text()
        if ("@rule" in text or "@njit" in text) and "stamp_cache(__file__" not in text:
            compiled.add(path.stem)
    assert compiled <= set(jit._RULES), sorted(compiled - set(jit._RULES))
    assert all((VECTOR / f"{name}.py").is_file() for name in jit._RULES)
