"""Paired games of two convention teams: the same deals played by both, for tuning.

Two variants of :class:`~shipwreck_agents.convention.team.ConventionPolicy` (keyword
options as JSON) play game ``i`` of each difficulty from the same seed
(:func:`~shipwreck_agents.evaluation.evaluate.game_seed`), so the difference of their win rates is
measured on the same deals: its interval is much narrower than that of two separate
evaluations. Use it on tuning seeds only, never on a held-out one.

    python -m shipwreck_agents.evaluation.paired '{}' '{"lookahead": 0.95}' \\
        --seeds 1,2 --difficulty doomed --games 1000

Prints, per difficulty, both win rates, the paired difference with its 95% interval
(normal approximation), the games only one side won and the CPU milliseconds per game.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from collections.abc import Sequence

import numpy as np

from shipwreck_agents.base import Team
from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.evaluation.evaluate import game_seed, play_game
from shipwreck_env.config import GameConfig

__all__ = ["main", "paired_wins"]


def paired_wins(
    options: dict, config: GameConfig, seed: int, games: int
) -> tuple[np.ndarray, float]:
    """(won per game, CPU milliseconds per game) of the convention team with
    ``options`` on games ``0 .. games - 1`` of ``config``'s difficulty and ``seed``."""
    team = Team(ConventionPolicy(**options), ConventionPolicy(**options))
    start = time.process_time()
    won = [play_game(config, team, game_seed(seed, config.difficulty, i)).won for i in range(games)]
    return np.array(won, dtype=int), (time.process_time() - start) / games * 1000


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="options of the first team, JSON ('{}': the default)")
    parser.add_argument("new", help="options of the second team, JSON")
    parser.add_argument("--seeds", default="1", help="comma list of tuning seeds")
    parser.add_argument("--difficulty", default="doomed", help="comma list of difficulties")
    parser.add_argument("--games", type=int, default=1000, help="games per seed and difficulty")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--card-sets", default="base")
    args = parser.parse_args(argv)
    old, new = json.loads(args.old), json.loads(args.new)
    seeds = [int(x) for x in args.seeds.split(",")]
    print(f"load average {os.getloadavg()}; old {old}; new {new}; {args.card_sets}", flush=True)
    for difficulty in args.difficulty.split(","):
        config = GameConfig(
            num_players=args.players, difficulty=difficulty, card_sets=args.card_sets
        )
        a, b, ms_a, ms_b = [], [], [], []
        for seed in seeds:
            won, ms = paired_wins(old, config, seed, args.games)
            a.append(won)
            ms_a.append(ms)
            won, ms = paired_wins(new, config, seed, args.games)
            b.append(won)
            ms_b.append(ms)
        x, y = np.concatenate(a), np.concatenate(b)
        d = y - x
        half = 1.96 * d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else 0.0
        print(
            f"{difficulty}: games {len(d)}, old {x.mean():.4f}, new {y.mean():.4f}, "
            f"new - old {d.mean():+.4f} +- {half:.4f} (only new won {int((d > 0).sum())}, "
            f"only old {int((d < 0).sum())}); ms/game old {np.mean(ms_a):.1f} "
            f"new {np.mean(ms_b):.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
