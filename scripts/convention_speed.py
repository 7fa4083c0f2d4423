"""The convention's cost against an older version of its code, on the same deals.

Copies ``agents/convention*.py`` of git revision ``--old`` into a temporary package,
then plays games ``0 .. --games - 1`` of ``--seed`` with both teams in alternating
blocks of ``--block`` games (so both meet the same load), and prints the CPU
milliseconds per game of each, their ratio, the load average, and how many games
took the same actions in both (a speed-up must not change one).

    python scripts/convention_speed.py --old 0db2dec --difficulty normal --games 300
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shipwreck_agents.base import Team
from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.evaluation.evaluate import game_seed, play_game
from shipwreck_env.config import GameConfig

ROOT = Path(__file__).resolve().parent.parent


def old_policy(rev: str, folder: Path) -> type:
    """``ConventionPolicy`` as revision ``rev`` wrote it, imported from a copy in
    ``folder`` (package ``old_convention``)."""
    package = folder / "old_convention"
    package.mkdir()
    (package / "__init__.py").write_text("")
    names = subprocess.run(
        ["git", "ls-tree", "--name-only", rev, "agents/"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for name in names:
        if Path(name).name.startswith("convention") and name.endswith(".py"):
            text = subprocess.run(
                ["git", "show", f"{rev}:{name}"],
                cwd=ROOT,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            text = text.replace("shipwreck_agents.convention.team", "old_convention.convention")
            (package / Path(name).name).write_text(text)
    sys.path.insert(0, str(folder))
    return importlib.import_module("old_convention.convention").ConventionPolicy


def main() -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="git revision of the old code")
    parser.add_argument("--difficulty", default="normal")
    parser.add_argument("--card-sets", default="base")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--block", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2, help="a tuning seed")
    args = parser.parse_args()
    config = GameConfig(num_players=3, difficulty=args.difficulty, card_sets=args.card_sets)
    with tempfile.TemporaryDirectory() as folder:
        old = old_policy(args.old, Path(folder))
        teams = {"old": Team(old(), old()), "new": Team(ConventionPolicy(), ConventionPolicy())}
        seconds = {"old": 0.0, "new": 0.0}
        actions: dict[str, list[list[int]]] = {"old": [], "new": []}
        load = os.getloadavg()
        for first in range(0, args.games, args.block):
            order = ("old", "new") if first // args.block % 2 == 0 else ("new", "old")
            for name in order:
                start = time.process_time()
                for i in range(first, min(args.games, first + args.block)):
                    taken: list[int] = []
                    seed = game_seed(args.seed, args.difficulty, i)
                    play_game(config, teams[name], seed, taken)
                    actions[name].append(taken)
                seconds[name] += time.process_time() - start
    same = sum(a == b for a, b in zip(actions["old"], actions["new"], strict=True))
    old_ms, new_ms = (seconds[k] / args.games * 1000 for k in ("old", "new"))
    print(
        f"{args.card_sets} {args.difficulty}, seed {args.seed}, {args.games} games: "
        f"old ({args.old}) {old_ms:.1f} ms/game, new {new_ms:.1f} ms/game, "
        f"new/old {new_ms / old_ms:.3f}; same actions in {same} of {args.games} games; "
        f"load average {load[0]:.1f} -> {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
