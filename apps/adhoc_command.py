"""The ``adhoc`` subcommand: the ad-hoc benchmark (:mod:`shipwreck_agents.evaluation.adhoc`) of one
or more teams, and the report of every team measured so far (the benchmark itself is
``shipwreck_agents.evaluation.adhoc``; this module is only its command and report).

``shipwreck-arcana adhoc TEAM [TEAM ...] --out-dir results`` measures each team with the
held-out partners, writes ``results/adhoc/<team>.json`` (with the command that made it),
then rebuilds ``results/adhoc/README.md`` and ``results/adhoc/adhoc.png`` from every JSON file in
``results/adhoc/``: the report grows team by team, and each row names its command.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

__all__ = ["add_adhoc", "foreign_reports", "is_adhoc_report", "report_folder", "run_adhoc"]


def add_adhoc(sub: argparse._SubParsersAction, formatter: type) -> None:
    """Add the ``adhoc`` parser to ``sub``."""
    from shipwreck_agents.evaluation.adhoc import ADHOC_DIFFICULTIES, ADHOC_SEED
    from shipwreck_apps.arguments import at_least, between

    parser = sub.add_parser(
        "adhoc",
        help="the ad-hoc benchmark: a team with held-out partners it never met",
        description="Ad-hoc teamwork: each team's self-play and its pooled win rate with the "
        "held-out partners (shipwreck_agents.evaluation.adhoc.HELD_OUT_PARTNERS), one stranger among the "
        "team and one of the team among strangers, with 95%% intervals.",
        formatter_class=formatter,
    )
    parser.add_argument("teams", nargs="+", help="team specs (SPEC or PLAY+GROUP)")
    parser.add_argument("--games", type=at_least(1), default=1000, help="games per cell")
    parser.add_argument("--seed", type=at_least(0), default=ADHOC_SEED, help="the deals' seed")
    parser.add_argument("--players", type=between(2, 5), default=3, help="players, 2 to 5")
    parser.add_argument("--card-sets", default="base", help="card sets, e.g. base or all")
    parser.add_argument("--jobs", type=at_least(1), default=1, help="worker processes")
    parser.add_argument(
        "--difficulty",
        default=",".join(ADHOC_DIFFICULTIES),
        help="difficulties, a comma list",
    )
    parser.add_argument(
        "--partners",
        default=None,
        help="partner team specs separated by ';' (default: the held-out partners)",
    )
    parser.add_argument(
        "--out-dir",
        default=None,
        metavar="DIR",
        help="also write DIR/adhoc/TEAM.json and rebuild DIR/adhoc/README.md and DIR/adhoc/adhoc.png",
    )
    parser.add_argument(
        "--study",
        default=None,
        metavar="NAME",
        help="write into DIR/adhoc/NAME/ instead (default: DIR/adhoc/ for 3 players, "
        "DIR/adhoc/Np/ for N players), a report of its own: the main table and the "
        "tables' default read DIR/adhoc/ only",
    )


def _file_name(team: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", team).strip("_")[:120] + ".json"


def run_adhoc(args: argparse.Namespace) -> int:
    """Run the ``adhoc`` subcommand; 2 on a bad team, partner or option."""
    from shipwreck_agents.evaluation.adhoc import adhoc, adhoc_markdown

    command = "shipwreck-arcana " + " ".join(sys.argv[1:])
    partners = [p for p in args.partners.split(";") if p] if args.partners else None
    if args.out_dir:
        others = foreign_reports(Path(args.out_dir), _study(args))
        if others:  # refused before any game is played, not after the run
            print(
                f"shipwreck-arcana adhoc: error: --study {_study(args) or '(main)'!r}: "
                f"{others[0]} is not an ad-hoc report (another study's file); allowed: a "
                "study folder that holds ad-hoc reports only (choose another --study)",
                file=sys.stderr,
            )
            return 2
    reports = []
    for team in args.teams:
        try:
            report = adhoc(
                team,
                partners=partners,
                difficulties=[d for d in args.difficulty.split(",") if d],
                games=args.games,
                seed=args.seed,
                players=args.players,
                jobs=args.jobs,
                card_sets=args.card_sets,
            )
        except (ValueError, ModuleNotFoundError) as exc:
            print(f"shipwreck-arcana adhoc: error: {exc}", file=sys.stderr)
            return 2
        report["command"] = command
        reports.append(report)
        if args.out_dir:
            folder = Path(args.out_dir) / "adhoc" / _study(args)
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / _file_name(team)
            path.write_text(json.dumps(report, indent=2) + "\n")
            print(f"wrote {path}")
    print(adhoc_markdown(reports))
    if args.out_dir:
        for path in report_folder(Path(args.out_dir), _study(args)):
            print(f"wrote {path}")
    return 0


def _study(args: argparse.Namespace) -> str:
    """The subfolder of ``DIR/adhoc`` this run writes into ("" for the main study)."""
    if args.study:
        return args.study
    return "" if args.players == 3 else f"{args.players}p"


def is_adhoc_report(report: object) -> bool:
    """Does ``report`` (a parsed JSON file) look like what :func:`adhoc` returns: a team,
    its partners and a pooled ad-hoc rate per difficulty?"""
    return (
        isinstance(report, dict)
        and isinstance(report.get("team"), str)
        and isinstance(report.get("partners"), list)
        and isinstance(report.get("results"), dict)
        and all(isinstance(r, dict) and "adhoc" in r for r in report["results"].values())
    )


def foreign_reports(out_dir: Path, study: str = "") -> list[Path]:
    """The JSON files of ``out_dir/adhoc/[study/]`` that are not ad-hoc reports (another
    study's files, which :func:`report_folder` cannot tabulate)."""
    folder = out_dir / "adhoc" / study
    out = []
    for path in sorted(folder.glob("*.json")):
        try:
            report = json.loads(path.read_text())
        except (OSError, ValueError):
            report = None
        if not is_adhoc_report(report):
            out.append(path)
    return out


def report_folder(out_dir: Path, study: str = "") -> list[Path]:
    """Rebuild ``out_dir/adhoc/[study/]README.md`` and ``adhoc.png`` beside it from the
    JSON files in that folder, the teams in order of their pooled ad-hoc win rate at the
    first difficulty."""
    from shipwreck_agents.evaluation.adhoc import adhoc_markdown
    from shipwreck_agents.evaluation.crossplay import team_labels

    folder = out_dir / "adhoc" / study
    reports = [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
    if not reports:
        return []
    first = next(iter(reports[0]["results"]))
    reports.sort(
        key=lambda r: -r["results"].get(first, {"adhoc": {"win_rate": 0}})["adhoc"]["win_rate"]
    )
    names = [r["team"] for r in reports] + [p for r in reports for p in r["partners"]]
    labels = team_labels(list(dict.fromkeys(names)))
    config = reports[0]["config"]
    card_sets = config["card_sets"]
    card_sets = ", ".join(card_sets) if isinstance(card_sets, list) else card_sets
    header = [
        "# Ad-hoc benchmark",
        "",
        f"{config['num_players']} players, card sets {card_sets}, "
        f"{config['group_decision']}; the held-out partners of `shipwreck_agents.evaluation.adhoc` "
        "(docs/adhoc.md). Each team's rows were made by the command listed under the tables.",
        "Win rate [95% interval]; ad-hoc pools both seatings over every partner.",
        "",
        "![Self-play and ad-hoc win rates](adhoc.png)",
        "",
    ]
    commands = sorted({r["command"] for r in reports})
    footer = ["", "Commands:", ""] + [f"- `{c}`" for c in commands]
    md = folder / "README.md"
    md.write_text(
        "\n".join(header) + adhoc_markdown(reports, labels) + "\n" + "\n".join(footer) + "\n"
    )
    png = folder / "adhoc.png"
    _plot(reports, labels, png)
    return [md, png]


def _plot(reports: list[dict], labels: dict[str, str], path: Path) -> None:
    """Self-play and pooled ad-hoc win rate per team and difficulty, with intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    difficulties = list(dict.fromkeys(d for r in reports for d in r["results"]))
    fig, axes = plt.subplots(
        1,
        len(difficulties),
        figsize=(5 * len(difficulties), 0.45 * len(reports) + 2),
        squeeze=False,
    )
    for ax, difficulty in zip(axes[0], difficulties, strict=True):
        shown = [r for r in reports if difficulty in r["results"]]
        for offset, key, colour in ((-0.18, "self", "tab:gray"), (0.18, "adhoc", "tab:blue")):
            rates = [r["results"][difficulty][key] for r in shown]
            ys = [i + offset for i in range(len(shown))]
            xs = [rate["win_rate"] for rate in rates]
            errors = [
                [x - rate["ci95"][0] for x, rate in zip(xs, rates, strict=True)],
                [rate["ci95"][1] - x for x, rate in zip(xs, rates, strict=True)],
            ]
            ax.barh(ys, xs, height=0.34, xerr=errors, color=colour)
        ax.set_yticks(range(len(shown)), [labels.get(r["team"], r["team"]) for r in shown])
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("win rate")
        ax.set_title(difficulty)
    handles = [Patch(color="tab:gray"), Patch(color="tab:blue")]
    fig.legend(handles, ["self-play", "ad-hoc, held-out partners"], loc="lower center", ncol=2)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
