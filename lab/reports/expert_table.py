"""The page of the expert-iteration rounds: results/expert/README.md.

    python lab/reports/expert_table.py [--dir results/expert] [--models results/models/expert]

Reads each round's ``.meta.json`` beside its network (what the search recorded and what
the distillation fitted, written by ``python -m shipwreck_training.fast.expert``; for a
round's PPO fine-tune, its ``fine_tune`` block: where it started, its steps, the
trainer's last evaluation and its commands) and every
paired comparison in the results folder (the ``--out`` JSON of ``lab/studies/paired_eval.py``),
and writes one Markdown page: the rounds, then per comparison and difficulty both win
rates, the paired difference with its 95% interval, the sign test and the deals only one
team won, each comparison under the command that made it. No figure is typed here.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from shipwreck_agents.evaluation.paired import paired_difference

ROOT = Path(__file__).resolve().parents[2]


def round_rows(models: Path) -> list[str]:
    """One row per difficulty of each round: games, wins, searched and changed decisions,
    and the fit's agreement with the labels before and after."""
    rows = [
        "| round | difficulty | games recorded | search won | decisions | searched | "
        "changed | CPU s |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    commands = []
    for meta_path in sorted(models.glob("round*.meta.json")):
        meta = json.loads(meta_path.read_text())
        name = meta_path.name.removesuffix(".meta.json")
        if "fine_tune" in meta:
            commands.append(fine_tune_line(name, meta["fine_tune"]))
            continue
        info = meta["expert_iteration"]
        fit = info["fit"]
        before = fit["agreement_before"]
        after = fit["agreement_after"]
        for difficulty, c in info["recording"].items():
            rows.append(
                f"| {name} | {difficulty} | {c['games']} | {c['wins'] / c['games']:.3f} | "
                f"{c['decisions']} | {c['searched']} | {c['changed']} | "
                f"{c['cpu_seconds']:.0f} |"
            )
        commands.append(
            f"- {name}: blueprint `{info['blueprint']}`, {info['samples']} worlds, margin "
            f"{info['margin']}, {info.get('epochs', '?')} epochs at learning rate "
            f"{info.get('learning_rate', '?')}, changed decisions weighted "
            f"{info.get('changed_weight', '?')}; the network's agreement with the labels "
            f"{before['all']:.3f} before the fit and {after['all']:.3f} after, on the "
            f"decisions the search changed {before['changed']:.3f} and {after['changed']:.3f}: "
            f"`{info['command']}`"
        )
    return [*rows, "", *commands]


def fine_tune_line(name: str, tune: dict) -> str:
    """The line of a round's PPO fine-tune: what it started from, its steps, the trainer's
    own last evaluation and the commands that made it."""
    rates = ", ".join(f"{d} {r['win_rate']:.3f}" for d, r in tune["final_eval"].items())
    games = next(iter(tune["final_eval"].values()))["games"]
    commands = "; ".join(f"`{c}`" for c in tune["commands"])
    return (
        f"- {name}: PPO fine-tune of `{tune['from']}` for {tune['steps']:,} steps "
        f"({tune['wall_seconds'] / 60:.0f} min); the trainer's last evaluation ({games} "
        f"greedy games a difficulty, batched engine, seed {tune['final_eval_seed']}): "
        f"{rates}: {commands}"
    )


def comparison_rows(folder: Path) -> list[str]:
    """One row per difficulty of each paired comparison in ``folder``."""
    rows = [
        "| comparison | difficulty | games | A | B | B - A [95%] | sign test p | only A / only B won |",
        "|---|---|---:|---:|---:|---|---:|---|",
    ]
    commands = []
    for path in sorted(folder.glob("*.json")):
        report = json.loads(path.read_text())
        if "results" not in report or "a" not in report:
            continue
        for difficulty, r in report["results"].items():
            low, high = r["ci95"]
            rows.append(
                f"| {path.stem} | {difficulty} | {r['games']} | {r['a']:.3f} | {r['b']:.3f} | "
                f"{r['b_minus_a']:+.3f} [{low:+.3f}, {high:+.3f}] | {r['sign_test_p']:.3f} | "
                f"{r['only_a']} / {r['only_b']} |"
            )
        a, b = report["a"], report["b"]
        commands.append(
            f"- {path.stem}: A = `{a[0]}`, B = `{b[0]}` (play / group the same), seed "
            f"{report['seed']}: `{report['command']}`"
        )
    return [*rows, "", *commands]


def _load(value: float | None) -> str:
    return "?" if value is None else f"{value:.1f}"


def search_rows(folder: Path) -> list[str]:
    """One row per difficulty of each ``lab/studies/search_eval.py`` run in ``folder``: the
    network alone and with search over it on the same deals, and what each cost."""
    rows = [
        "| run | difficulty | games | alone | with search | search - alone [95%] | sign test p | "
        "ms/game alone | ms/game with search | load average (start / end) |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|---|",
    ]
    commands = []
    for path in sorted(folder.glob("*.json")):
        report = json.loads(path.read_text())
        if "games" not in report or "model" not in report:
            continue
        for difficulty, games in report["games"].items():
            pair = paired_difference(
                [g["blueprint_won"] for g in games], [g["search_won"] for g in games]
            )
            n = pair["games"]
            low, high = pair["ci95"]
            rows.append(
                f"| {path.stem} | {difficulty} | {n} | {pair['a']:.3f} | {pair['b']:.3f} | "
                f"{pair['b_minus_a']:+.3f} [{low:+.3f}, {high:+.3f}] | "
                f"{pair['sign_test_p']:.3f} | "
                f"{1000 * sum(g['blueprint_s'] for g in games) / n:.0f} | "
                f"{1000 * sum(g['search_s'] for g in games) / n:.0f} | "
                f"{_load(report.get('load_start'))} / {_load(report.get('load_end'))} |"
            )
        commands.append(f"- {path.stem}: `{report['command']}`")
    return [*rows, "", *commands]


def page(folder: Path, models: Path) -> str:
    """The whole Markdown page."""
    return "\n".join(
        [
            "# Expert iteration",
            "",
            "Generated by `python lab/reports/expert_table.py` from the rounds' `.meta.json` in "
            f"`{models.relative_to(ROOT) if models.is_relative_to(ROOT) else models}` and "
            "the paired comparisons (`lab/studies/paired_eval.py --out`) here. 3 players, base "
            "cards, leader; both teams of a comparison play game *i* of each difficulty "
            "from the same deal. A `recorded:FILE` team is a `lab/studies/search_eval.py` run "
            "read back game by game (its `FILE.md` beside it gives its cost per game).",
            "",
            "## Rounds",
            "",
            *round_rows(models),
            "",
            "## Each round alone and with search over it",
            "",
            "Wall milliseconds per game on a shared machine: compare times within a row, "
            "not across runs made at different loads.",
            "",
            *search_rows(folder),
            "",
            "## Paired comparisons on held-out deals",
            "",
            *comparison_rows(folder),
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    """Command line: write (or ``--check``) the page."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", default=str(ROOT / "results" / "expert"))
    parser.add_argument("--models", default=str(ROOT / "results" / "models" / "expert"))
    args = parser.parse_args(argv)
    folder, models = Path(args.dir).resolve(), Path(args.models).resolve()
    (folder / "README.md").write_text(page(folder, models))
    print(folder / "README.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
