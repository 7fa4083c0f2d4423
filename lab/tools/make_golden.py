"""Write the golden games replayed by ``tests/shipwreck_env/rules/test_golden.py``.

Each golden game is a complete game with a fixed seed and a deterministic choice rule:
at step ``n`` of game ``k`` the action is ``legal[(n * 7 + k) % len(legal)]``. The file
``tests/golden/game_<k>.json`` records the config, the seed, the rule, the legal-action
list and the action of every step, and the final state saved by
``shipwreck_env.rules.saving.dumps`` (plus the game generator's final state).

Run from the repository root after a deliberate change of the rules or of how the
engine draws from its generator (the golden games then change; review the diff):

    python lab/tools/make_golden.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step
from shipwreck_env.rules.saving import dumps

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "tests" / "golden"
MAX_STEPS = 100_000

# Seeds: among 0-299, those giving the longest game under the rule (more turns, more of
# the rules exercised).
GAMES: list[tuple[GameConfig, int]] = [
    (GameConfig(num_players=3, difficulty="normal", group_decision="leader", card_sets="base"), 70),
    (
        GameConfig(
            num_players=2,
            challenge_mode=True,
            difficulty="normal",
            group_decision="vote",
            card_sets="base",
        ),
        190,
    ),
    (GameConfig(num_players=4, difficulty="easy", group_decision="leader", card_sets="all"), 70),
]


def choose(legal: list[int], n: int, k: int) -> int:
    """The golden choice rule: step ``n`` of game ``k``."""
    return legal[(n * 7 + k) % len(legal)]


def play(k: int) -> dict:
    """Play golden game ``k`` and return its record."""
    config, seed = GAMES[k]
    rng = np.random.default_rng(seed)
    s = new_game(config, rng)
    legal_lists: list[list[int]] = []
    chosen: list[int] = []
    for n in range(MAX_STEPS):
        if s.over:
            break
        legal = legal_actions(s)
        action = choose(legal, n, k)
        legal_lists.append(legal)
        chosen.append(action)
        s = step(s, action, rng)
    else:
        raise RuntimeError(f"golden game {k} did not end in {MAX_STEPS} steps")
    return {
        "game": k,
        "config": config.to_dict(),
        "seed": seed,
        "rule": "legal[(step * 7 + game) % len(legal)]",
        "steps": len(chosen),
        "actions": chosen,
        "legal": legal_lists,
        "final_state": dumps(s),
        "final_rng": rng.bit_generator.state,
        "summary": {"turn": s.turn, "score": s.score, "doom": s.doom, "won": s.won},
    }


def main() -> None:
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    for k in range(len(GAMES)):
        record = play(k)
        path = GOLDEN_DIR / f"game_{k}.json"
        path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        print(f"{path}: {record['steps']} steps, {record['summary']}")


if __name__ == "__main__":
    main()
