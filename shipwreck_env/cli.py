"""The ``shipwreck-arcana`` command.

Subcommands:

* ``main`` -- the README's main job: the best scripted team (heuristic player + Bayesian
  group) on every difficulty, as a table;
* ``random`` -- play games with uniformly random legal actions and print a table;
* ``evaluate`` -- measure a team of policies on every difficulty (``agents.evaluate``);
* ``bench`` -- the speed benchmark (``shipwreck_env.bench``).

Each subcommand is a thin wrapper over importable functions; ``evaluate`` imports the
``agents`` package only when it runs.
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
    main_job = sub.add_parser(
        "main", help="the README's main job: the best scripted team on every difficulty"
    )
    main_job.add_argument("--play", default="heuristic", help="play policy spec, e.g. ppo:PATH")
    main_job.add_argument("--group", default="bayes", help="group policy spec, e.g. ppo:PATH")
    main_job.add_argument("--players", type=int, default=3)
    main_job.add_argument("--games", type=int, default=500)
    main_job.add_argument("--seed", type=int, default=0)
    main_job.add_argument("--card-sets", default="base")
    main_job.add_argument("--jobs", type=int, default=2)
    rand = sub.add_parser("random", help="uniformly random legal play at every difficulty")
    rand.add_argument("--players", type=int, default=3)
    rand.add_argument("--games", type=int, default=300)
    rand.add_argument("--seed", type=int, default=0)
    rand.add_argument("--card-sets", default="base")
    ev = sub.add_parser("evaluate", help="evaluate a team on every difficulty")
    ev.add_argument("--play", default="heuristic", help="play policy spec (agents.registry)")
    ev.add_argument("--group", default="bayes", help="group policy spec (agents.registry)")
    ev.add_argument(
        "--matrix",
        action="store_true",
        help="every scripted play policy against every scripted group policy",
    )
    ev.add_argument("--players", type=int, default=3)
    ev.add_argument(
        "--difficulty", default="all", help="easy, normal, hard, doomed, a comma list, or all"
    )
    ev.add_argument("--games", type=int, default=2000)
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--card-sets", default="base")
    ev.add_argument("--group-decision", default="leader", choices=["leader", "vote"])
    ev.add_argument("--jobs", type=int, default=1, help="worker processes")
    ev.add_argument("--out", default=None, help="write JSON here (and CSV beside it)")
    ev.add_argument("--no-progress", action="store_true")
    bench = sub.add_parser("bench", help="speed benchmark")
    bench.add_argument("bench_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.command == "random":
        print(_random_table(args.players, args.games, args.seed, args.card_sets))
    elif args.command == "main":
        return _evaluate(
            argparse.Namespace(
                play=args.play,
                group=args.group,
                matrix=False,
                players=args.players,
                difficulty="all",
                games=args.games,
                seed=args.seed,
                card_sets=args.card_sets,
                group_decision="leader",
                jobs=args.jobs,
                out=None,
                no_progress=False,
            )
        )
    elif args.command == "evaluate":
        return _evaluate(args)
    elif args.command == "bench":
        from shipwreck_env.bench import main as bench_main

        return bench_main(args.bench_args)
    return 0


def _difficulties(text: str) -> list[str]:
    names = list(DIFFICULTIES) if text == "all" else [d.strip() for d in text.split(",")]
    for name in names:
        if name not in DIFFICULTIES:
            raise SystemExit(
                f"--difficulty {name!r} is not allowed; allowed: {list(DIFFICULTIES)} or all"
            )
    return names


def _evaluate(args: argparse.Namespace) -> int:
    from agents.evaluate import evaluate, format_table, write_outputs
    from agents.registry import GROUP_SPECS, PLAY_SPECS

    pairs = (
        [(p, g) for p in PLAY_SPECS for g in GROUP_SPECS]
        if args.matrix
        else [(args.play, args.group)]
    )
    reports = []
    for play, group in pairs:
        try:
            report = evaluate(
                play,
                group,
                players=args.players,
                difficulties=_difficulties(args.difficulty),
                games=args.games,
                seed=args.seed,
                jobs=args.jobs,
                progress=not args.no_progress,
                card_sets=args.card_sets,
                group_decision=args.group_decision,
            )
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
        reports.append(report)
        print(format_table(report))
        print()
    if args.matrix:
        print(_matrix_table(reports))
    if args.out:
        write_outputs(reports, args.out)
    return 0


def _matrix_table(reports: list[dict]) -> str:
    """Cross-play: win rate of every play policy (rows) with every group (columns)."""
    plays = list(dict.fromkeys(r["play"] for r in reports))
    groups = list(dict.fromkeys(r["group"] for r in reports))
    lines = []
    for difficulty in reports[0]["results"]:
        lines.append(f"Cross-play win rate, {difficulty} (oracle columns CHEAT):")
        lines.append("| play \\ group | " + " | ".join(groups) + " |")
        lines.append("|---|" + "---:|" * len(groups))
        for play in plays:
            cells = []
            for group in groups:
                r = next(x for x in reports if x["play"] == play and x["group"] == group)
                cells.append(f"{r['results'][difficulty]['win_rate']:.3f}")
            lines.append(f"| {play} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
