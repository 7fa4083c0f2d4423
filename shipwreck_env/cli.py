"""The ``shipwreck-arcana`` command.

Subcommands:

* ``main`` -- the README's main job: play games at every difficulty and print a table;
* ``random`` -- play games with uniformly random legal actions and print a table.

Each subcommand is a thin wrapper over importable functions.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from shipwreck_env.config import DIFFICULTIES, GameConfig
from shipwreck_env.engine import legal_actions, new_game, step_inplace

__all__ = ["main", "random_games"]


def random_games(config: GameConfig, games: int, seed: int) -> dict[str, float]:
    """Play ``games`` games where every decision is a uniformly random legal action.

    Returns win rate, mean final score, mean final doom and mean turns.
    """
    rng = np.random.default_rng(seed)
    wins = score = doom = turns = 0
    for _ in range(games):
        s = new_game(config, rng)
        while not s.over:
            legal = legal_actions(s)
            step_inplace(s, legal[int(rng.integers(len(legal)))], rng, check=False)
        wins += s.won
        score += s.score
        doom += s.doom
        turns += s.turn
    return {
        "win_rate": wins / games,
        "score": score / games,
        "doom": doom / games,
        "turns": turns / games,
    }


def _random_table(players: int, games: int, seed: int, card_sets: str) -> str:
    rows = [
        f"Uniformly random legal play, {players} players, card sets {card_sets}, "
        f"{games} games per difficulty, seed {seed}",
        "| difficulty | win rate | mean score | mean doom | mean turns |",
        "|---|---:|---:|---:|---:|",
    ]
    for i, difficulty in enumerate(DIFFICULTIES):
        config = GameConfig(num_players=players, difficulty=difficulty, card_sets=card_sets)
        r = random_games(config, games, seed + i)
        rows.append(
            f"| {difficulty} | {r['win_rate']:.3f} | {r['score']:.2f} | {r['doom']:.2f} "
            f"| {r['turns']:.2f} |"
        )
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``shipwreck-arcana`` console script."""
    parser = argparse.ArgumentParser(prog="shipwreck-arcana", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("main", "the README's main job"),
        ("random", "random legal players at every difficulty"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--players", type=int, default=3)
        p.add_argument("--games", type=int, default=300)
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--card-sets", default="base")
    args = parser.parse_args(argv)
    if args.command in ("main", "random"):
        print(_random_table(args.players, args.games, args.seed, args.card_sets))
    return 0


if __name__ == "__main__":
    sys.exit(main())
