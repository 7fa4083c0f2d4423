"""The state's one constructor (:class:`shipwreck_env.rules.state.State`): it names every
field, every builder uses it, and a copy is equal and independent.

Authority: the class docstring of ``shipwreck_env/rules/state.py`` and issue 13.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.state import State

ROOT = Path(__file__).resolve().parents[3]


def test_the_constructor_names_every_field() -> None:
    parameters = set(inspect.signature(State.__init__).parameters) - {"self"}
    assert parameters == set(State.__slots__)


def test_only_the_constructor_builds_states() -> None:
    """No module fills a bare ``State.__new__`` field by field."""
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("shipwreck_env", "agents", "training")
        for path in (ROOT / folder).rglob("*.py")
        if "State.__new__" in path.read_text()
    ]
    assert offenders == []


def test_missing_game_fields_are_an_error() -> None:
    with pytest.raises(TypeError, match="deck"):
        State(GameConfig(), slots=[], table=[], attached=[])  # type: ignore[call-arg]


@pytest.mark.parametrize("seed", range(3))
def test_copy_is_equal_and_independent(seed: int) -> None:
    rng = np.random.default_rng(seed)
    s = new_game(GameConfig(num_players=4, card_sets="all"), rng)
    for _ in range(40):
        if s.over:
            break
        legal = legal_actions(s)
        step_inplace(s, legal[int(rng.integers(len(legal)))], rng)
    copy = s.copy()
    assert copy == s and copy is not s
    for name in State.__slots__:
        value = getattr(s, name)
        if isinstance(value, list) and name != "last_events":
            assert getattr(copy, name) is not value, name
