"""Golden games: replay three recorded complete games and compare every step.

The data in ``tests/golden/game_<k>.json`` is written by ``lab/tools/make_golden.py``
(fixed seed, choice ``legal[(step * 7 + k) % len(legal)]``). The replay must offer the
same legal list at every step, take the same action, and end in the same saved state
with the same generator state. A failure means the engine's behaviour changed: if the
change is intended, rerun the script and review the diff of the golden files.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step
from shipwreck_env.rules.saving import dumps, loads

GOLDEN_DIR = Path(__file__).resolve().parents[3] / "tests" / "golden"
GAMES = [0, 1, 2]
EXPECTED_CONFIGS = [
    GameConfig(num_players=3, difficulty="normal", group_decision="leader", card_sets="base"),
    GameConfig(num_players=2, challenge_mode=True, group_decision="vote", card_sets="base"),
    GameConfig(num_players=4, difficulty="easy", group_decision="leader", card_sets="all"),
]


def load(k: int) -> dict:
    return json.loads((GOLDEN_DIR / f"game_{k}.json").read_text())


@pytest.mark.parametrize("k", GAMES)
def test_golden_file_is_well_formed(k: int) -> None:
    record = load(k)
    assert record["game"] == k
    assert GameConfig.from_dict(record["config"]) == EXPECTED_CONFIGS[k]
    assert len(record["actions"]) == len(record["legal"]) == record["steps"] > 0
    for n, (action, legal) in enumerate(zip(record["actions"], record["legal"], strict=True)):
        assert action == legal[(n * 7 + k) % len(legal)], f"step {n}: not the golden rule"
    final, _ = loads(record["final_state"])
    assert final.over


@pytest.mark.parametrize("k", GAMES)
def test_golden_replay(k: int) -> None:
    record = load(k)
    config = GameConfig.from_dict(record["config"])
    rng = np.random.default_rng(record["seed"])
    s = new_game(config, rng)
    for n, (action, legal) in enumerate(zip(record["actions"], record["legal"], strict=True)):
        assert not s.over, f"step {n}: the game ended early (turn {s.turn})"
        got = legal_actions(s)
        assert got == legal, f"step {n} (turn {s.turn}, phase {s.phase}): legal list differs"
        assert got[(n * 7 + k) % len(got)] == action, f"step {n}: the action differs"
        s = step(s, action, rng)
    assert s.over, f"the game did not end after {record['steps']} steps"
    assert legal_actions(s) == []
    expected, _ = loads(record["final_state"])
    assert s == expected, "the final state differs"
    assert dumps(s) == record["final_state"]
    assert rng.bit_generator.state == record["final_rng"]
