"""The ``shipwreck-arcana`` command (``python -m shipwreck_apps`` does the same).

It lives on the top floor, ``shipwreck_apps`` (the folder ``apps/``): it runs teams of
policies and the game table, so its imports point down, to the agents and the core
``shipwreck_env``, and nothing imports it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import numpy as np

import shipwreck_env
from shipwreck_agents.registry import SPECS
from shipwreck_apps.arguments import at_least, between
from shipwreck_env.rules.config import DIFFICULTIES, GROUP_DECISIONS, GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace

__all__ = ["build_parser", "main", "one_torch_thread", "random_games"]

DESCRIPTION = """\
Shipwreck Arcana: play, evaluate and benchmark the rules engine.
"shipwreck-arcana COMMAND --help" shows a command's options.

Policy specs (--play, --group, --teammates):
""" + "\n".join(f"  {spec:<18} {what}" for spec, what in SPECS)


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


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Keeps the description's layout and shows every option's default."""


def _version() -> str:
    return f"%(prog)s {shipwreck_env.__version__}"


def _team_options(
    parser: argparse.ArgumentParser,
    games: int,
    jobs: int,
    play: str = "heuristic",
    group: str = "bayes",
) -> None:
    parser.add_argument("--play", default=play, help="play policy spec")
    parser.add_argument("--group", default=group, help="group policy spec")
    _evaluation_options(parser, games, jobs, "games per difficulty")


def _evaluation_options(
    parser: argparse.ArgumentParser, games: int, jobs: int, games_help: str
) -> None:
    """The options of any command that plays a batch of evaluated games."""
    parser.add_argument("--players", type=between(2, 5), default=3, help="players, 2 to 5")
    parser.add_argument("--games", type=at_least(1), default=games, help=games_help)
    parser.add_argument("--seed", type=at_least(0), default=0, help="evaluation seed")
    parser.add_argument("--card-sets", default="base", help="card sets, e.g. base or all")
    parser.add_argument("--jobs", type=at_least(1), default=jobs, help="worker processes")


def build_parser() -> argparse.ArgumentParser:
    """The command's argument parser (``bench`` forwards its arguments)."""
    parser = argparse.ArgumentParser(
        prog="shipwreck-arcana", description=DESCRIPTION, formatter_class=_HelpFormatter
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    main_job = sub.add_parser(
        "main",
        help="the main job: the best scripted team (convention) on every difficulty",
        description="The main job: a team (the best scripted one by default) on every "
        "difficulty, as a table.",
        formatter_class=_HelpFormatter,
    )
    _team_options(main_job, games=500, jobs=2, play="convention", group="convention")
    main_job.add_argument("--out", default=None, help="also write JSON here (and CSV beside it)")
    rand = sub.add_parser(
        "random",
        help="uniformly random legal play on every difficulty",
        description="Games where every decision is a uniformly random legal action.",
        formatter_class=_HelpFormatter,
    )
    rand.add_argument("--players", type=between(2, 5), default=3, help="players, 2 to 5")
    rand.add_argument("--games", type=at_least(1), default=300, help="games per difficulty")
    rand.add_argument(
        "--seed", type=at_least(0), default=0, help="seed (difficulty i uses seed + i)"
    )
    rand.add_argument("--card-sets", default="base", help="card sets, e.g. base or all")
    ev = sub.add_parser(
        "evaluate",
        help="measure a team on every difficulty (win rate, 95%% interval, score, doom, ...)",
        description="Measure a team on each difficulty: game i of difficulty d is seeded "
        "by SeedSequence(seed, spawn_key=(d, i)), so figures do not depend on --jobs.",
        formatter_class=_HelpFormatter,
    )
    _team_options(ev, games=2000, jobs=1)
    ev.add_argument(
        "--matrix",
        action="store_true",
        help="every scripted play policy against every scripted group policy",
    )
    ev.add_argument(
        "--difficulty", default="all", help="easy, normal, hard, doomed, a comma list, or all"
    )
    ev.add_argument(
        "--group-decision",
        default="leader",
        choices=list(GROUP_DECISIONS),
        help="who decides for the group",
    )
    ev.add_argument("--out", default=None, help="write JSON here (and CSV beside it)")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.add_argument(
        "--record",
        default=None,
        metavar="DIR",
        help="also write every game to DIR as a replay record (shipwreck-arcana replay FILE)",
    )
    cross = sub.add_parser(
        "crossplay",
        help="the cross-play matrix: each team's player among another team's players",
        description="Cross-play (ad-hoc teamwork): in cell (A, B) one player of team A "
        "(turning seat) sits with players of team B; the diagonal is self-play. Prints "
        "the matrix and each team's self-play, cross-play and gap with 95% intervals.",
        formatter_class=_HelpFormatter,
    )
    cross.add_argument(
        "teams",
        nargs="*",
        default=list(CROSSPLAY_TEAMS),
        help="team specs (SPEC or PLAY+GROUP), two or more",
    )
    _evaluation_options(cross, games=500, jobs=1, games_help="games per cell")
    cross.add_argument(
        "--difficulty", default="normal", choices=list(DIFFICULTIES), help="difficulty"
    )
    cross.add_argument(
        "--out-dir",
        default=None,
        metavar="DIR",
        help="also write DIR/crossplay.json, .md and a heatmap .png",
    )
    from shipwreck_apps.adhoc_command import add_adhoc

    add_adhoc(sub, _HelpFormatter)
    bench = sub.add_parser(
        "bench",
        help="the speed benchmark (its own options: bench --help)",
        description="The speed benchmark; every argument goes to it.",
        add_help=False,  # --help goes to the benchmark's own parser
    )
    bench.add_argument("bench_args", nargs=argparse.REMAINDER)
    from shipwreck_apps.warm import add_arguments as warm_arguments

    warm = sub.add_parser(
        "warm",
        help="compile the batched engine and partners for this machine, ahead of use",
        description="Compile the batched kernels into numba's cache once (a few minutes "
        "on a fresh machine, seconds after), so that no later game, env or command "
        "compiles them.",
        formatter_class=_HelpFormatter,
    )
    warm_arguments(warm)
    from shipwreck_apps.commands import add_commands

    add_commands(sub, _HelpFormatter)  # play, replay, serve
    return parser


MOVED_TO_LAB = {
    "learning-curve": "lab/reports/learning_curve.py",
    "export-belief": "lab/runs/export_belief.py",
}
"""Subcommands that were measuring tools, not the product's: each now a program of the
lab, refused here in one line that names it."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``shipwreck-arcana`` console script."""
    given = list(sys.argv[1:] if argv is None else argv)
    if given and given[0] in MOVED_TO_LAB:
        print(
            f"shipwreck-arcana {given[0]}: moved to the lab, a checkout's program: "
            f"python {MOVED_TO_LAB[given[0]]} (lab/README.md)",
            file=sys.stderr,
        )
        return 2
    parser = build_parser()
    # The benchmark parses its own arguments (--help included), so they pass through.
    args, rest = parser.parse_known_args(argv)
    if rest and args.command != "bench":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command != "bench":
        one_torch_thread()
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the command, as typed
    if args.command == "random":
        print(_random_table(args.players, args.games, args.seed, args.card_sets))
    elif args.command == "main":
        # a first line at once (on stderr, beside the progress bar: stdout is the table)
        print(
            f"shipwreck-arcana main: {args.play} plays, {args.group} decides for the group; "
            f"{args.games} games a difficulty, {args.players} players, on {args.jobs} "
            "process(es); the table follows",
            file=sys.stderr,
            flush=True,
        )
        return _evaluate(
            argparse.Namespace(
                **vars(args),
                matrix=False,
                difficulty="all",
                group_decision="leader",
                no_progress=False,
            )
        )
    elif args.command == "evaluate":
        return _evaluate(args)
    elif args.command == "crossplay":
        return _crossplay(args)
    elif args.command == "adhoc":
        from shipwreck_apps.adhoc_command import run_adhoc

        return run_adhoc(args)
    elif args.command in ("play", "replay", "serve"):
        from shipwreck_apps.commands import run

        return run(args)
    elif args.command == "warm":
        from shipwreck_apps.warm import run as warm_run

        return warm_run(args)
    elif args.command == "bench":
        from shipwreck_apps.bench import main as bench_main

        program, sys.argv[0] = sys.argv[0], "shipwreck-arcana bench"  # its usage line
        try:
            return bench_main([*rest, *args.bench_args])
        finally:
            sys.argv[0] = program
    return 0


def one_torch_thread() -> None:
    """Trained policies decide one game at a time: a row or two per network call, where
    torch's thread pool costs more than it saves, and on a busy machine many times more.
    So the commands that play games give torch one thread, unless ``OMP_NUM_THREADS`` says
    otherwise (worker processes of ``--jobs`` get one thread each anyway)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    torch = sys.modules.get("torch")  # only if already loaded: scripted teams never load it
    threads = os.environ["OMP_NUM_THREADS"]
    if torch is not None and threads.isdigit() and int(threads) > 0:
        torch.set_num_threads(int(threads))


def _difficulties(text: str) -> list[str]:
    names = list(DIFFICULTIES) if text == "all" else [d.strip() for d in text.split(",")]
    for name in names:
        if name not in DIFFICULTIES:
            raise ValueError(
                f"--difficulty {name!r} is not allowed; allowed: {list(DIFFICULTIES)} or all"
            )
    return names


def _evaluate(args: argparse.Namespace) -> int:
    from shipwreck_agents.evaluation.evaluate import evaluate, format_table, write_outputs
    from shipwreck_agents.registry import GROUP_SPECS, PLAY_SPECS

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
                record=getattr(args, "record", None),
                card_sets=args.card_sets,
                group_decision=args.group_decision,
            )
        except (ValueError, ModuleNotFoundError) as exc:  # a bad spec or a missing extra: one line
            print(f"shipwreck-arcana {args.command}: error: {exc}", file=sys.stderr)
            return 2
        reports.append(report)
        print(format_table(report))
        print()
    if args.matrix:
        print(_matrix_table(reports))
    if args.out:
        for path in write_outputs(reports, args.out):
            print(f"wrote {path}")
    return 0


CROSSPLAY_TEAMS = ("literal", "heuristic+bayes", "convention")
"""The teams of ``crossplay`` when none is named: the scripted teams, weakest first."""


def _crossplay(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from shipwreck_agents.evaluation.crossplay import crossplay, crossplay_markdown

    command = "shipwreck-arcana " + " ".join(sys.argv[1:]) if sys.argv[1:] else "crossplay"
    try:
        report = crossplay(
            args.teams,
            players=args.players,
            difficulty=args.difficulty,
            games=args.games,
            seed=args.seed,
            jobs=args.jobs,
            card_sets=args.card_sets,
        )
    except (ValueError, ModuleNotFoundError) as exc:
        print(f"shipwreck-arcana crossplay: error: {exc}", file=sys.stderr)
        return 2
    report["command"] = command
    text = crossplay_markdown(report)
    print(text)
    if args.out_dir:
        out = Path(args.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "crossplay.json").write_text(json.dumps(report, indent=2) + "\n")
        (out / "crossplay.md").write_text(f"Generated by `{command}`.\n\n{text}\n")
        _heatmap(report, out / "crossplay.png")
        for name in ("crossplay.json", "crossplay.md", "crossplay.png"):
            print(f"wrote {out / name}")
    return 0


def _heatmap(report: dict, path: object) -> None:
    """The matrix's win rates as a heatmap (matplotlib, from the ``train`` extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from shipwreck_agents.evaluation.crossplay import team_labels

    teams = report["teams"]
    labels = [team_labels(teams)[t] for t in teams]
    rates = [[report["cells"][a][b]["win_rate"] for b in teams] for a in teams]
    fig, ax = plt.subplots(figsize=(1.6 * len(teams) + 2.5, 1.2 * len(teams) + 1.5))
    image = ax.imshow(rates, vmin=0.0, vmax=1.0, cmap="viridis")
    ax.set_xticks(range(len(teams)), labels, rotation=30, ha="right")
    ax.set_yticks(range(len(teams)), labels)
    ax.set_xlabel("hosts (every other seat)")
    ax.set_ylabel("newcomer (one seat)")
    for i, row in enumerate(rates):
        for j, rate in enumerate(row):
            ax.text(j, i, f"{rate:.2f}", ha="center", va="center", color="w" if rate < 0.6 else "k")
    cfg = report["config"]
    ax.set_title(f"Cross-play win rate, {cfg['num_players']} players, {cfg['difficulty']}")
    fig.colorbar(image, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


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
