"""Measure every scripted team at 2-5 players on every difficulty and write the tables.

    python lab/reports/make_baselines.py [--games 2000] [--jobs 2] [--seed 0]

Writes ``results/baselines/baselines.json`` (every figure), ``results/baselines/baselines.md`` (the tables
shown in docs/results.md; the README shows its 3-player headline) and ``results/baselines/baselines.png`` (win rate by difficulty, one line per
team, 95% Wilson intervals as error bars). Base card set, leader mode.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from shipwreck_agents.evaluation.evaluate import evaluate
from shipwreck_env.rules.config import DIFFICULTIES

ROOT = Path(__file__).resolve().parents[2]

TEAMS = [
    ("random", "random"),
    ("literal", "literal"),
    ("heuristic", "bayes"),
    ("convention", "convention"),
    ("heuristic", "oracle"),
]
PLAYERS = (2, 3, 4, 5)
BEST = "convention+convention"
"""The best scripted team, shown in detail."""

OTHER_CELLS = [
    ("vote mode", "convention", "convention", 3, {"group_decision": "vote"}),
    ("all card sets", "convention", "convention", 3, {"card_sets": "all"}),
    ("all card sets", "heuristic", "bayes", 3, {"card_sets": "all"}),
    ("challenge mode", "convention", "convention", 2, {"challenge_mode": True}),
    ("cross-play", "convention", "bayes", 3, {}),
    ("cross-play", "heuristic", "convention", 3, {}),
]
"""Cells beyond the base leader tables: (label, play, group, players, game options)."""


def _order_holds(reports: dict, players: int, difficulty: str) -> str:
    """oracle >= heuristic+bayes > literal > random, by win rate; where two teams both
    (almost) never win, by mean final score."""
    res = {r["team"]: r["results"][difficulty] for r in reports[players]}

    def above(a: str, b: str) -> bool:
        if res[a]["win_rate_ci95"][0] > res[b]["win_rate_ci95"][1]:
            return True
        same = res[a]["win_rate"] == res[b]["win_rate"]
        return same and res[a]["mean_score"] > res[b]["mean_score"]

    checks = [
        res["heuristic+oracle"]["win_rate"] >= res["heuristic+bayes"]["win_rate"],
        above("heuristic+bayes", "literal+literal"),
        above("literal+literal", "random+random")
        or res["literal+literal"]["win_rate"] > res["random+random"]["win_rate"],
    ]
    return "yes" if all(checks) else "no"


def markdown(reports: dict, games: int, seed: int, seconds: float, command: str) -> str:
    lines = [
        f"Measured by `{command}` ({games} games per cell, seed {seed}, base cards, leader "
        f"mode; {seconds / 60:.0f} min on this 2-core machine). Win rate with its 95% "
        "Wilson interval. **heuristic+oracle cheats** (the group sees the hidden fate): "
        "it is an upper bound, not a baseline.",
        "",
    ]
    for players in PLAYERS:
        teams = [r["team"] for r in reports[players]]
        lines += [
            f"**{players} players**",
            "",
            "| difficulty | " + " | ".join(teams) + " | order holds |",
            "|---|" + "---|" * (len(teams) + 1),
        ]
        for difficulty in DIFFICULTIES:
            cells = []
            for r in reports[players]:
                x = r["results"][difficulty]
                low, high = x["win_rate_ci95"]
                cells.append(f"{x['win_rate']:.3f} [{low:.3f}, {high:.3f}]")
            lines.append(
                f"| {difficulty} | "
                + " | ".join(cells)
                + f" | {_order_holds(reports, players, difficulty)} |"
            )
        lines.append("")
    lines += [
        '"Order holds": oracle >= heuristic+bayes; heuristic+bayes above literal+literal '
        "beyond both intervals; literal+literal above random+random (by win rate, or, where "
        "both teams win equally often -- at hard and doomed neither wins at all -- by mean "
        "final score).",
        "",
        "Mean final score (all teams):",
        "",
        "| players | difficulty | " + " | ".join(r["team"] for r in reports[PLAYERS[0]]) + " |",
        "|---:|---|" + "---:|" * len(reports[PLAYERS[0]]),
    ]
    for players in PLAYERS:
        for difficulty in DIFFICULTIES:
            cells = [f"{r['results'][difficulty]['mean_score']:.2f}" for r in reports[players]]
            lines.append(f"| {players} | {difficulty} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Best scripted team ({BEST}) in detail:",
        "",
        "| players | difficulty | win rate | score | doom | turns | accuracy | predictions/turn | doom from fades | doom from wrong predictions |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for players in PLAYERS:
        best = next(r for r in reports[players] if r["team"] == BEST)
        for difficulty, x in best["results"].items():
            lines.append(
                f"| {players} | {difficulty} | {x['win_rate']:.3f} | {x['mean_score']:.2f} | "
                f"{x['mean_doom']:.2f} | {x['mean_turns']:.2f} | {x['prediction_accuracy']:.3f} | "
                f"{x['predictions_per_turn']:.3f} | {x['mean_doom_from_fades']:.2f} | "
                f"{x['mean_doom_from_wrong_predictions']:.2f} |"
            )
    return "\n".join(lines) + "\n"


def other_markdown(others: list[dict], games: int) -> str:
    """The table of :data:`OTHER_CELLS`: one row per cell, win rate per difficulty."""
    lines = [
        "",
        f"Other cells ({games} games per difficulty, seed as above; cross-play pairs one half "
        "of the convention team with a partner that does not share its code):",
        "",
        "| cell | team | players | options | " + " | ".join(DIFFICULTIES) + " |",
        "|---|---|---:|---|" + "---|" * len(DIFFICULTIES),
    ]
    for cell in others:
        report = cell["report"]
        options = ", ".join(f"{k}={v}" for k, v in cell["options"].items()) or "-"
        rates = []
        for difficulty in DIFFICULTIES:
            x = report["results"][difficulty]
            low, high = x["win_rate_ci95"]
            rates.append(f"{x['win_rate']:.3f} [{low:.3f}, {high:.3f}]")
        lines.append(
            f"| {cell['label']} | {report['team']} | {cell['players']} | {options} | "
            + " | ".join(rates)
            + " |"
        )
    return "\n".join(lines) + "\n"


def _options(command: str) -> dict[str, str]:
    """The ``--flag value`` pairs of a recorded ``python lab/reports/make_baselines.py ...``."""
    tokens = command.split()
    return dict(zip(tokens[2::2], tokens[3::2], strict=False))


def _previous(path: Path, command: str, args: argparse.Namespace) -> dict:
    """The figures ``--only`` keeps; exits 2 with a one-line error when they cannot be kept."""

    def refuse(message: str) -> None:
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)

    if not path.exists():
        refuse(f"--only keeps the other cells of {path}, which does not exist")
    old = json.loads(path.read_text())
    given = _options(old["command"])
    for flag, value in (
        ("--games", args.games),
        ("--seed", args.seed),
        ("--other-games", args.other_games),
    ):
        if given.get(flag) != str(value):
            refuse(
                f"--only keeps cells measured by `{old['command']}`; give the same {flag} "
                f"(got `{command}`)"
            )
    names = {name for pair in TEAMS for name in pair}
    names |= {c[1] for c in OTHER_CELLS} | {c[2] for c in OTHER_CELLS}
    bad = sorted(set(args.only) - names)
    if bad:
        refuse(f"--only {bad[0]!r} plays in no cell; allowed: {sorted(names)}")
    return old


def _remeasured_line(record: dict) -> str:
    """Which cells a later ``--only`` run measured again, if any."""
    again = record.get("remeasured")
    if not again:
        return ""
    return (
        f"\nThe cells where {', '.join(again['policies'])} plays (these tables and the other "
        f"cells below) were measured again by `{again['command']}` on {again['date']} "
        f"({again['seconds'] / 60:.0f} min); every other cell is from the command above.\n"
    )


def plot(reports: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(PLAYERS), figsize=(4 * len(PLAYERS), 3.6), sharey=True)
    x = list(range(len(DIFFICULTIES)))
    for ax, players in zip(axes, PLAYERS, strict=True):
        for r in reports[players]:
            rates = [r["results"][d]["win_rate"] for d in DIFFICULTIES]
            low = [
                rate - r["results"][d]["win_rate_ci95"][0]
                for d, rate in zip(DIFFICULTIES, rates, strict=True)
            ]
            high = [
                r["results"][d]["win_rate_ci95"][1] - rate
                for d, rate in zip(DIFFICULTIES, rates, strict=True)
            ]
            label = r["team"] + (" (cheats)" if r["cheating"] else "")
            ax.errorbar(
                x,
                rates,
                yerr=[low, high],
                marker="o",
                capsize=3,
                label=label,
                linestyle="--" if r["cheating"] else "-",
            )
        ax.set_xticks(x, list(DIFFICULTIES))
        ax.set_title(f"{players} players")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("win rate (95% Wilson interval)")
    axes[-1].legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _measure(
    label: str,
    play: str,
    group: str,
    players: int,
    games: int,
    args: argparse.Namespace,
    **options: object,
) -> dict:
    """Evaluate one team on every difficulty (seed and jobs from ``args``) and print a
    line of its win rates after ``label``."""
    report = evaluate(
        play,
        group,
        players=players,
        games=games,
        seed=args.seed,
        jobs=args.jobs,
        progress=True,
        **options,
    )
    print(
        f"{label} {report['team']}: "
        + ", ".join(f"{d} {x['win_rate']:.3f}" for d, x in report["results"].items()),
        flush=True,
    )
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--other-games",
        type=int,
        default=1000,
        help="games per difficulty in the other cells (vote, all cards, challenge, cross-play)",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="POLICY",
        help="re-measure only the cells where this policy plays or groups (repeatable); "
        "the other cells are kept from results/baselines/baselines.json, which must exist and have "
        "been measured with the same --games, --seed and --other-games",
    )
    parser.add_argument(
        "--from-json",
        action="store_true",
        help="rewrite results/baselines/baselines.md and .png from results/baselines/baselines.json (no games)",
    )
    args = parser.parse_args()
    if args.from_json:
        record = json.loads((ROOT / "results" / "baselines" / "baselines.json").read_text())
        reports = {int(k): v for k, v in record["reports"].items()}
        _write(record, reports, record["others"])
        return 0
    command = (
        f"python lab/reports/make_baselines.py --games {args.games} --jobs {args.jobs} "
        f"--seed {args.seed} --other-games {args.other_games}"
    )
    out = ROOT / "results"
    old = _previous(out / "baselines.json", command, args) if args.only else None
    wanted = set(args.only or ())

    def fresh(play: str, group: str) -> bool:
        return old is None or bool({play, group} & wanted)

    start = time.time()
    reports: dict[int, list[dict]] = {}
    for players in PLAYERS:
        reports[players] = [
            _measure(f"{players} players", play, group, players, args.games, args)
            if fresh(play, group)
            else old["reports"][str(players)][k]
            for k, (play, group) in enumerate(TEAMS)
        ]
    others = [
        {
            "label": label,
            "players": players,
            "options": options,
            "report": _measure(label, play, group, players, args.other_games, args, **options)
            if fresh(play, group)
            else old["others"][k]["report"],
        }
        for k, (label, play, group, players, options) in enumerate(OTHER_CELLS)
    ]
    seconds = time.time() - start
    record = {"command": command, "seconds": seconds, "reports": reports, "others": others}
    if old is not None:
        only = " ".join(f"--only {name}" for name in sorted(wanted))
        record.update(command=old["command"], seconds=old["seconds"])
        record["remeasured"] = {
            "command": f"{command} {only}",
            "policies": sorted(wanted),
            "seconds": seconds,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        }
    (out / "baselines.json").write_text(json.dumps(record, indent=1))
    _write(record, reports, others)
    print(f"wrote results/baselines/baselines.md, .json, .png in {seconds / 60:.1f} min")
    return 0


def _write(record: dict, reports: dict[int, list[dict]], others: list[dict]) -> None:
    """results/baselines/baselines.md and .png from the figures of ``record``."""
    given = _options(record["command"])
    head, rest = markdown(
        reports, int(given["--games"]), int(given["--seed"]), record["seconds"], record["command"]
    ).split("\n", 1)
    out = ROOT / "results"
    (out / "baselines.md").write_text(
        head
        + "\n"
        + _remeasured_line(record)
        + rest
        + other_markdown(others, int(given["--other-games"]))
    )
    plot(reports, out / "baselines.png")


if __name__ == "__main__":
    raise SystemExit(main())
