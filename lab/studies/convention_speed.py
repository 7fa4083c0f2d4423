"""The convention's cost against an older version of its code, on the same deals.

Copies the convention's modules of git revision ``--old`` (the package
``agents/convention/`` from commit 5391f64 on, the flat ``agents/convention*.py``
before it) into a temporary package, then plays games ``0 .. --games - 1`` of
``--seed`` with both teams in alternating blocks of ``--block`` games (so both meet the
same load), and prints the CPU milliseconds per game of each, their ratio, the load
average, and how many games took the same actions in both (a speed-up must not change
one). Only the convention's own modules are copied: an old revision whose convention
imports modules that have since moved or changed is refused in one line.

    python lab/studies/convention_speed.py --old 5391f64 --difficulty normal --games 300
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shipwreck_agents.base import Team
from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.evaluation.evaluate import game_seed, play_game
from shipwreck_env.rules.config import GameConfig

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "old_convention"
"""The import name of the old code's copy."""


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout


def old_sources(rev: str) -> tuple[dict[str, str], str]:
    """The convention's modules at ``rev``, with their imports of each other pointed at
    :data:`PACKAGE`: file name -> text, and the module that defines ``ConventionPolicy``.

    Raises:
        ValueError: ``rev`` is not a revision of this repository, or has no convention.
    """
    try:
        names = _git("ls-tree", "-r", "--name-only", rev, "agents/").split()
    except subprocess.CalledProcessError:
        raise ValueError(f"--old {rev!r} is not a git revision of this repository") from None
    rooms = [n for n in names if n.startswith("agents/convention/") and n.endswith(".py")]
    if rooms:  # agents/convention/team.py imports shipwreck_agents.convention.codebook ...
        files, team, name = rooms, "team", re.compile(r"\bshipwreck_agents\.convention\b")
        replace = PACKAGE
    else:  # agents/convention.py imports shipwreck_agents.convention_search ...
        files = [n for n in names if re.fullmatch(r"agents/convention\w*\.py", n)]
        team, name = "convention", re.compile(r"\b(?:shipwreck_agents|agents)\.(?=convention)")
        replace = PACKAGE + "."
    if not files:
        raise ValueError(f"--old {rev!r} has no convention team under agents/")
    texts = {Path(n).name: name.sub(replace, _git("show", f"{rev}:{n}")) for n in files}
    return texts, team


def old_policy(rev: str, folder: Path) -> type:
    """``ConventionPolicy`` as revision ``rev`` wrote it, imported from a copy in
    ``folder`` (package :data:`PACKAGE`).

    Raises:
        ValueError: ``rev`` has no convention, or its code does not import today.
    """
    texts, team = old_sources(rev)
    package = folder / PACKAGE
    package.mkdir()
    for file, text in texts.items():
        (package / file).write_text(text)
    if "__init__.py" not in texts:
        (package / "__init__.py").write_text("")
    for loaded in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
        del sys.modules[loaded]  # an earlier copy, from another folder or revision
    # The copy is a package in a temporary folder: only sys.path makes it importable
    # with its modules importing each other as they did in the repository.
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module(f"{PACKAGE}.{team}").ConventionPolicy
    except (ImportError, AttributeError) as exc:
        raise ValueError(
            f"--old {rev!r}: its convention does not import against today's modules "
            f"({exc}); compare with a revision from 5391f64 on"
        ) from None
    finally:
        sys.path.remove(str(folder))


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
        try:
            old = old_policy(args.old, Path(folder))
        except ValueError as exc:
            parser.exit(2, f"convention_speed.py: error: {exc}\n")
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
