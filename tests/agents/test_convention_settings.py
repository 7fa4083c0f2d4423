"""The convention's settings travel as one frozen value (issue 42): the team, its
codebook and the tools read the same object, and bad settings are refused by name."""

from __future__ import annotations

import dataclasses

import pytest

from shipwreck_agents.convention import codebook
from shipwreck_agents.convention.settings import DEFAULT, ConventionSettings
from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.registry import make_policy
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import new_game
from shipwreck_env.rules.view import make_view


def test_the_settings_are_frozen_and_hashable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT.plan = False  # type: ignore[misc]
    assert hash(ConventionSettings()) == hash(DEFAULT)
    assert ConventionSettings.of(plan=False) != DEFAULT


def test_keywords_and_a_settings_value_build_the_same_team() -> None:
    by_keywords = ConventionPolicy(plan=False, accuracy=0.9)
    by_value = ConventionPolicy(ConventionSettings(plan=False, accuracy=0.9))
    assert by_keywords.settings == by_value.settings
    assert by_keywords.info_value == DEFAULT.info_value  # the Bayesian group's reading too
    assert make_policy("convention:0.9,noplan").settings == by_value.settings


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"plann": False}, "unknown convention setting(s) 'plann'; allowed: info_value"),
        ({"accuracy": 1.5}, "accuracy=1.5: allowed 0 to 1"),
        ({"restarts": -1}, "restarts=-1: allowed a whole number >= 0"),
        ({"fail_doom": 1.5}, "fail_doom=1.5: allowed a whole number >= 0"),
        ({"power_cost": -0.1}, "power_cost=-0.1: allowed a number >= 0"),
    ],
)
def test_a_bad_setting_is_refused_by_name(options: dict, words: str) -> None:
    with pytest.raises((TypeError, ValueError)) as caught:
        ConventionPolicy(**options)
    assert words in str(caught.value)


def test_the_doom_thresholds_live_in_the_settings() -> None:
    s = ConventionSettings(pre_play_doom=4, restart_doom=5, restarts=3)
    assert [s.pre_play_at(d) for d in (3, 4)] == [False, True]
    assert [s.restarts_at(d) for d in (4, 5)] == [0, 3]
    assert not s.but(pre_play=False).pre_play_at(9)
    assert "shadows" in s.but(pre_play_shadows=True).coded_before
    assert "shadows" not in s.coded_before


def test_the_team_hands_its_own_settings_to_the_codebook(monkeypatch) -> None:
    """What the team computes is the code of its settings object, not of defaults."""
    seen = []
    real = codebook.code_problem

    def spy(*args, **kwargs):
        seen.append(args[5] if len(args) > 5 else kwargs.get("settings"))
        return real(*args, **kwargs)

    monkeypatch.setattr(codebook, "code_problem", spy)
    codebook._CACHE.clear()
    mine = ConventionSettings(plan=False, tie_ahead=0.01)
    s = new_game(GameConfig(num_players=3, difficulty="hard"), 4)
    ConventionPolicy(mine).convention(make_view(s, s.decider))
    assert seen and all(x is mine for x in seen)
