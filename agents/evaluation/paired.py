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
from shipwreck_env.rules.config import GameConfig

__all__ = ["Z95", "main", "paired_difference", "paired_wins", "sign_test"]

Z95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


def sign_test(only_a: int, only_b: int) -> float:
    """Exact two-sided sign test: the chance of a split at least this uneven when each
    deal won by one team only is equally likely to be either's."""
    n, k = only_a + only_b, min(only_a, only_b)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired_difference(a: Sequence[bool | int], b: Sequence[bool | int]) -> dict:
    """B - A over paired games (game ``i`` of both is the same deal): the one place the
    paired figures are computed (this module, ``lab/studies/paired_eval.py`` and
    ``lab/studies/search_eval.py`` report them).

    Returns:
        ``games``; the win rates ``a`` and ``b``; ``b_minus_a``, the mean per-game
        difference; ``half_width95``, the half-width of its 95% interval by the normal
        approximation over the per-game differences (sample variance; 0 for one game);
        ``ci95`` = [low, high]; ``only_a`` / ``only_b``, the deals one team alone won;
        ``sign_test_p`` (:func:`sign_test` over those deals).

    Raises:
        ValueError: no games, or lists of different lengths.
    """
    if len(a) != len(b) or not len(a):
        raise ValueError(
            f"paired games need two lists of the same non-zero length; got {len(a)} and {len(b)}"
        )
    n = len(a)
    d = [int(y) - int(x) for x, y in zip(a, b, strict=True)]
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / (n - 1) if n > 1 else 0.0
    half = Z95 * math.sqrt(var / n)
    only_a, only_b = d.count(-1), d.count(1)
    return {
        "games": n,
        "a": sum(map(int, a)) / n,
        "b": sum(map(int, b)) / n,
        "b_minus_a": mean,
        "half_width95": half,
        "ci95": [mean - half, mean + half],
        "only_a": only_a,
        "only_b": only_b,
        "sign_test_p": sign_test(only_a, only_b),
    }


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
        row = paired_difference(np.concatenate(a), np.concatenate(b))
        print(
            f"{difficulty}: games {row['games']}, old {row['a']:.4f}, new {row['b']:.4f}, "
            f"new - old {row['b_minus_a']:+.4f} +- {row['half_width95']:.4f} (only new won "
            f"{row['only_b']}, only old {row['only_a']}); ms/game old {np.mean(ms_a):.1f} "
            f"new {np.mean(ms_b):.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
