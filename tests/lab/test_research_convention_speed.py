"""lab/studies/convention_speed.py: the convention of an older revision, copied and imported
beside today's, in the package layout of that revision."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import load_script

from shipwreck_agents.base import Team
from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.evaluation.evaluate import game_seed, play_game
from shipwreck_env.rules.config import GameConfig

ROOT = Path(__file__).resolve().parents[2]
FLAT = "0db2dec"
"""A revision whose convention was the flat files ``agents/convention*.py``."""


@pytest.fixture(scope="module")
def speed():
    return load_script("convention_speed")


def _has(rev: str) -> bool:
    done = subprocess.run(["git", "cat-file", "-e", f"{rev}^{{commit}}"], cwd=ROOT)
    return done.returncode == 0


def test_the_committed_convention_is_copied_and_plays_as_the_live_one(speed, tmp_path):
    old = speed.old_policy("HEAD", tmp_path)
    assert old is not ConventionPolicy
    assert Path(__import__(old.__module__, fromlist=["_"]).__file__).parent == (
        tmp_path / speed.PACKAGE
    )
    config = GameConfig(num_players=3, difficulty="doomed")
    taken: dict[str, list[int]] = {"old": [], "new": []}
    for name, policy in (("old", old), ("new", ConventionPolicy)):
        # a fresh seed for each: playing spawns from it
        play_game(config, Team(policy(), policy()), game_seed(2, "doomed", 0), taken[name])
    assert len(taken["old"]) > 10 and taken["old"] == taken["new"]


@pytest.mark.skipif(not _has(FLAT), reason=f"a shallow clone without {FLAT}")
def test_a_revision_before_the_rooms_is_read_from_its_flat_files(speed, tmp_path):
    texts, team = speed.old_sources(FLAT)
    assert team == "convention" and {"convention.py", "convention_search.py"} <= set(texts)
    assert "old_convention.convention_search" in "".join(texts.values())
    with pytest.raises(ValueError, match=f"--old '{FLAT}': its convention does not import"):
        speed.old_policy(FLAT, tmp_path)  # it imports agents that have moved since


def test_a_revision_that_does_not_exist_is_refused_by_name(speed, tmp_path):
    with pytest.raises(ValueError, match="'no-such-rev' is not a git revision"):
        speed.old_policy("no-such-rev", tmp_path)
