"""Summarise every training run into results/training.md, .json and learning curves.

    python scripts/make_training_report.py [--runs results/runs] [--games 1000] [--jobs 2]
    python scripts/make_training_report.py --from-json   # only redraw from training.json

For each regime (play, predict, selfplay, alternating) and seed it reads the run's
``summary.json`` (final evaluation, steps, wall time) and ``eval.jsonl`` (win rate during
training). It also evaluates the *combined* learned team -- the play model of seed k with
the predict model of seed k -- since neither single-role run measures that. Scripted
baselines (3 players) come from ``results/baselines.json``. Writes
``results/training.md``, ``results/training.json`` and ``results/training_curves.png``.
Only the latest run of each (regime, seed) is used.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OTHER_SECTIONS = re.compile(r"<!-- [a-z-]+:start")
sys.path.insert(0, str(ROOT))

from shipwreck_agents.evaluate import evaluate, wilson_interval  # noqa: E402
from shipwreck_env.config import DIFFICULTIES  # noqa: E402

REGIMES = ("play", "predict", "selfplay", "selfplay_long", "selfplay_bc", "alternating")
"""Config names (``name`` in configs/sb3/*.yaml), in the order shown."""


def latest_runs(runs_dir: Path) -> dict[str, dict[int, Path]]:
    """config name -> seed -> the newest finished run directory."""
    found: dict[str, dict[int, Path]] = {}
    for run in sorted(runs_dir.glob("*__*__*")):
        summary = run / "summary.json"
        if not summary.exists():
            continue
        data = json.loads(summary.read_text())
        found.setdefault(data["name"], {})[int(data["seed"])] = run
    return found


def _models(run: Path) -> dict[str, Path]:
    summary = json.loads((run / "summary.json").read_text())
    return {k: run / v for k, v in summary["models"].items()}


def _cell(values: list[float]) -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.3f}"
    return f"{statistics.mean(values):.3f} ± {statistics.stdev(values):.3f}"


def _best_scripted_note() -> str:
    """Where the best scripted team (convention+convention, results/baselines.json)
    stands at 3 players, normal -- empty if that file has no such row."""
    path = ROOT / "results" / "baselines.json"
    if not path.exists():
        return ""
    for report in json.loads(path.read_text())["reports"].get("3", []):
        if report["team"] == "convention+convention":
            rate = report["results"]["normal"]["win_rate"]
            return f" (the best scripted team, convention+convention, wins {rate:.3f})"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default=str(ROOT / "results" / "runs"))
    parser.add_argument(
        "--games", type=int, default=1000, help="games per difficulty for combined teams"
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--from-json",
        action="store_true",
        help="rewrite training.md and the plot from results/training.json (no evaluation)",
    )
    args = parser.parse_args()
    json_path = ROOT / "results" / "training.json"
    if args.from_json:
        data = json.loads(json_path.read_text())
        table = {r: {int(k): v for k, v in s.items()} for r, s in data["regimes"].items()}
        baselines, command = data["baselines_3p"], data["command"]
    else:
        table, baselines, command = collect(args)
        json_path.write_text(
            json.dumps({"command": command, "regimes": table, "baselines_3p": baselines}, indent=1)
        )
    md_path = ROOT / "results" / "training.md"
    old = md_path.read_text() if md_path.exists() else ""
    # keep the sections other scripts append (<!-- name:start ... --> to the end), such as
    # scripts/make_fast_training_report.py's and scripts/bench_rllib.py's
    start = OTHER_SECTIONS.search(old)
    kept = old[start.start() :] if start else ""
    md_path.write_text(markdown(table, baselines, command) + ("\n\n" + kept if kept else ""))
    plot(table, baselines, ROOT / "results" / "training_curves.png")
    print((ROOT / "results" / "training.md").read_text())
    return 0


def collect(args: argparse.Namespace) -> tuple[dict, dict, str]:
    """Read every run, evaluate the combined play+predict teams and load the 3-player
    baselines: (table by regime and seed, baselines by team, the command line)."""
    runs = latest_runs(Path(args.runs))
    command = f"python scripts/make_training_report.py --games {args.games} --jobs {args.jobs}"
    table: dict[str, dict] = {}
    for regime in REGIMES:
        for seed, run in sorted(runs.get(regime, {}).items()):
            summary = json.loads((run / "summary.json").read_text())
            curve = (
                [json.loads(line) for line in (run / "eval.jsonl").read_text().splitlines()]
                if (run / "eval.jsonl").exists()
                else []
            )
            config = (run / "config.yaml").read_text()
            table.setdefault(regime, {})[seed] = {
                "run": run.name,
                "steps": summary["steps"],
                "wall_seconds": summary["wall_seconds"],
                "steps_per_second": summary["steps_per_second"],
                "team": summary["final_eval"]["team"],
                "results": summary["final_eval"]["results"],
                "games": summary["final_eval"]["games"],
                "curve": [{"steps": c["steps"], "win_rate": c["win_rate"]} for c in curve],
                "config": config,
            }
    combined = {}
    for seed in sorted(set(runs.get("play", {})) & set(runs.get("predict", {}))):
        play = _models(runs["play"][seed])["model"]
        predict = _models(runs["predict"][seed])["model"]
        report = evaluate(
            f"ppo:{play}",
            f"ppo:{predict}",
            players=3,
            games=args.games,
            seed=seed + 10_000,
            jobs=args.jobs,
            progress=False,
        )
        combined[seed] = {"team": report["team"], "results": report["results"], "games": args.games}
    if combined:
        table["play+predict (combined)"] = combined
    baselines = {}
    base_path = ROOT / "results" / "baselines.json"
    if base_path.exists():
        for r in json.loads(base_path.read_text())["reports"]["3"]:
            baselines[r["team"]] = r["results"]
    return table, baselines, command


def markdown(table: dict, baselines: dict, command: str) -> str:
    lines = [
        f"Generated by `{command}` from the runs in `results/runs/` (3 players, base cards, "
        "leader mode; training on a mix of the four difficulties). Final win rate: mean ± "
        "standard deviation across seeds; per seed, the 95% Wilson interval of its final "
        "evaluation. Budget: learner steps and wall time on this shared 2-core machine, where "
        "two or three runs shared the cores (one environment process each), so wall time and "
        "steps/s vary between runs of the same config by up to 3x.",
        "",
        "| regime | seeds | "
        + " | ".join(DIFFICULTIES)
        + " | steps per run | wall time per run | steps/s |",
        "|---|---:|" + "---:|" * len(DIFFICULTIES) + "---:|---:|---:|",
    ]
    for regime, seeds in table.items():
        cells = [_cell([s["results"][d]["win_rate"] for s in seeds.values()]) for d in DIFFICULTIES]
        steps = [s.get("steps") for s in seeds.values() if s.get("steps")]
        wall = [s.get("wall_seconds") for s in seeds.values() if s.get("wall_seconds")]
        sps = [s.get("steps_per_second") for s in seeds.values() if s.get("steps_per_second")]
        lines.append(
            f"| {regime} | {len(seeds)} | "
            + " | ".join(cells)
            + f" | {statistics.mean(steps):,.0f} | {statistics.mean(wall) / 60:.0f} min | {statistics.mean(sps):.0f} |"
            if steps
            else f"| {regime} | {len(seeds)} | "
            + " | ".join(cells)
            + " | (evaluation only) | - | - |"
        )
    for team in ("heuristic+bayes", "literal+literal", "random+random"):
        if team in baselines:
            cells = [f"{baselines[team][d]['win_rate']:.3f}" for d in DIFFICULTIES]
            lines.append(f"| scripted: {team} | - | " + " | ".join(cells) + " | - | - | - |")
    lines += [
        "",
        "Per seed (win rate [95% interval], games per difficulty):",
        "",
        "| regime | seed | team | " + " | ".join(DIFFICULTIES) + " | steps | wall time |",
        "|---|---:|---|" + "---|" * len(DIFFICULTIES) + "---:|---:|",
    ]
    for regime, seeds in table.items():
        for seed, s in sorted(seeds.items()):
            cells = []
            for d in DIFFICULTIES:
                r = s["results"][d]
                low, high = wilson_interval(r["wins"], r["games"])
                cells.append(f"{r['win_rate']:.3f} [{low:.3f}, {high:.3f}] ({r['games']})")
            budget = (
                f" | {s['steps']:,} | {s['wall_seconds'] / 60:.0f} min |"
                if s.get("steps")
                else " | - | - |"
            )
            lines.append(f"| {regime} | {seed} | {s['team']} | " + " | ".join(cells) + budget)
    if "heuristic+bayes" in baselines:
        best = baselines["heuristic+bayes"]["normal"]["win_rate"]
        lines += [
            "",
            f"**The bar** (3 players, normal): the Bayesian scripted team, heuristic+bayes, "
            f"wins {best:.3f}{_best_scripted_note()}. Learned teams at normal:",
            "",
        ]
        for regime in (
            "selfplay",
            "selfplay_long",
            "selfplay_bc",
            "alternating",
            "play+predict (combined)",
            "play",
            "predict",
        ):
            if regime in table:
                seeds = table[regime].values()
                rates = [s["results"]["normal"]["win_rate"] for s in seeds]
                mean = statistics.mean(rates)
                verdict = "clears the bar" if mean >= best else f"falls short by {best - mean:.3f}"
                note = {
                    "play": " (with the scripted Bayesian group as partner)",
                    "predict": " (with the scripted heuristic player as partner)",
                }.get(regime, "")
                gaps = []
                for d in DIFFICULTIES:
                    mine = statistics.mean(s["results"][d]["win_rate"] for s in seeds)
                    gaps.append(f"{d} {mine - baselines['heuristic+bayes'][d]['win_rate']:+.3f}")
                plural = "seed" if len(rates) == 1 else "seeds"
                lines.append(
                    f"- {regime}{note}: {mean:.3f} mean over {len(rates)} {plural}: {verdict} "
                    f"(difference to heuristic+bayes: {', '.join(gaps)})."
                )
    lines.append("")
    lines.append(
        "Learning curves (win rate during training, every evaluation): `results/training_curves.png`."
    )
    return "\n".join(lines) + "\n"


def plot(table: dict, baselines: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    regimes = [r for r in REGIMES if r in table]
    if not regimes:
        return
    cols = min(3, len(regimes))
    rows = -(-len(regimes) // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(4.6 * cols, 3.6 * rows), sharey=True, squeeze=False
    )
    for ax in axes.flat[len(regimes) :]:
        ax.set_visible(False)
    for ax, regime in zip(axes.flat, regimes, strict=False):
        for seed, s in sorted(table[regime].items()):
            curve = s.get("curve", [])
            if curve:
                steps = [c["steps"] for c in curve]
                ax.plot(
                    steps,
                    [c["win_rate"]["normal"] for c in curve],
                    marker=".",
                    label=f"seed {seed} normal",
                )
        if "heuristic+bayes" in baselines:
            ax.axhline(
                baselines["heuristic+bayes"]["normal"]["win_rate"],
                color="k",
                linestyle="--",
                label="heuristic+bayes, normal",
            )
        ax.set_title(regime)
        ax.set_xlabel("learner steps")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / 1e6:g}M"))
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    for row in axes:
        row[0].set_ylabel("win rate at normal (3 players)")
    for ax in axes.flat[: len(regimes)]:
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
