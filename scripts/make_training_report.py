"""Summarise every training run into results/training.md, .json and learning curves.

    python scripts/make_training_report.py [--runs results/runs] [--games 1000] [--jobs 2]
    python scripts/make_training_report.py --from-json   # only redraw from training.json
    python scripts/make_training_report.py --trainers [--measure]   # trainers side by side

For each regime (play, predict, selfplay, alternating) and seed it reads the run's
``summary.json`` (final evaluation, steps, wall time) and ``eval.jsonl`` (win rate during
training). It also evaluates the *combined* learned team -- the play model of seed k with
the predict model of seed k -- since neither single-role run measures that. Scripted
baselines (3 players) come from ``results/baselines.json``. Writes
``results/training.md``, ``results/training.json`` and ``results/training_curves.png``.
Only the latest run of each (regime, seed) is used.

``--trainers`` writes the section of the three trainers side by side (its own markers in
results/training.md) from results/trainers.json; ``--measure`` first runs each trainer's
speed bench one after the other in this invocation (the fast trainer's
``scripts/bench_fast_ppo.py``, ``scripts/bench_sb3.py`` and, in ``.venv-rllib``,
``scripts/bench_rllib.py``), keeping every figure with its command and load.
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


TRAINERS_START = "<!-- trainers:start (scripts/make_training_report.py --trainers) -->"
TRAINERS_END = "<!-- trainers:end -->"
BENCHES = {
    "fast": [
        "scripts/bench_fast_ppo.py",
        "configs/fast/selfplay.yaml",
        "--updates",
        "3",
        "--set",
        "torch_threads=1",
    ],
    "sb3": ["scripts/bench_sb3.py", "--repeats", "3"],
    "rllib": [
        "scripts/bench_rllib.py",
        "--iterations",
        "5",
        "--runners",
        "1",
        "2",
        "--batch",
        "2000",
    ],
}


def measure_trainers() -> dict:
    """Run the three speed benches one after the other; their figures and commands."""
    import os
    import subprocess
    import tempfile
    import time

    data: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    data["load_before"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        fast_out = Path(tmp) / "fast.json"
        for name, argv in BENCHES.items():
            python = ROOT / (".venv-rllib" if name == "rllib" else ".venv") / "bin" / "python"
            extra = ["--out", str(fast_out)] if name == "fast" else []
            subprocess.run([str(python), *argv, *extra], cwd=ROOT, check=True)
            data[f"{name}_command"] = "python " + " ".join(argv)
        data["fast"] = json.loads(fast_out.read_text())[-1]
    data["sb3"] = json.loads((ROOT / "results" / "sb3_bench.json").read_text())[-1]
    data["rllib"] = json.loads((ROOT / "results" / "rllib_bench.json").read_text())
    data["load_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return data


def trainer_rows(data: dict) -> list[tuple]:
    """(trainer, engine and setting, steps/s, sampling steps/s, update steps/s, load)."""
    fast, sb3 = data["fast"], data["sb3"]
    rows = [
        (
            "fast (torch PPO)",
            f"batched, {fast['batch']:,} per update, belief {fast['belief']}, "
            f"{'x'.join(map(str, fast['hidden']))}",
            fast["median_sps"],
            fast["median_collect_sps"],
            fast["median_update_sps"],
            f"{fast['load1_before']:.1f}-{fast['load1_after']:.1f}",
        )
    ]
    names = {
        "reference": "reference engine, 8 envs, update as shipped",
        "batched_stock": "batched, 256 games, update as shipped",
        "batched": "batched, 256 games, ppo.fast_update",
    }
    for side, label in names.items():
        m = sb3["medians"][side]
        load = statistics.median(
            x[k] for x in sb3["runs"][side] for k in ("load1_before", "load1_after")
        )
        rows.append(
            ("SB3 MaskablePPO", label, m["sps"], m["collect_sps"], m["train_sps"], f"{load:.1f}")
        )
    for r in data["rllib"]["settings"]:
        learner = r["train_batch"] / r["learner_s"] if r.get("learner_s") else None
        engine = "AEC env" if r["engine"] == "aec" else f"batched, {r['envs_per_runner']} games"
        rows.append(
            (
                "RLlib PPO",
                f"{engine} per runner, {r['env_runners']} runner(s)",
                r["median_steps_per_s"],
                r.get("median_sampling_steps_per_s"),
                learner,
                f"{r['median_load_average']:.1f}",
            )
        )
    return rows


def trainers_markdown(data: dict) -> str:
    """The section of the trainers side by side."""

    def num(x: float | None) -> str:
        return f"{x:,.0f}" if x else "-"

    lines = [
        TRAINERS_START,
        "## The trainers side by side (speed)",
        "",
        f"Generated by `python scripts/make_training_report.py --trainers --measure` on "
        f"{data['date']}: the three benches ran one after the other in that invocation "
        f"(load average {data['load_before']} before, {data['load_after']} after, on 2 "
        "cores shared with other engineers' jobs; each row's load is the 1-minute load "
        "average while it ran). Self-play, 3 players, base cards, the four difficulties "
        "mixed. Steps are decisions, every one learned from (self-play); steps/s is a "
        "whole rollout and update over wall time; sampling and update steps/s are the "
        "same steps over each part's time alone. One torch thread everywhere. Commands: "
        f"`{data['fast_command']}`, `{data['sb3_command']}`, `{data['rllib_command']}` "
        "(in `.venv-rllib`).",
        "",
        "| trainer | engine and setting | steps/s | sampling steps/s | update steps/s | load |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for trainer, setting, sps, sampling, update, load in trainer_rows(data):
        lines.append(
            f"| {trainer} | {setting} | {num(sps)} | {num(sampling)} | {num(update)} | {load} |"
        )
    lines += [
        "",
        "(RLlib's update steps/s: the train batch over RLlib's learner timer, an "
        "exponential average that still carries part of the first iteration. The networks "
        "differ as the trainers' configs do: SB3 256x256 with 5 epochs of minibatch 256, "
        "RLlib and the fast trainer 128x128 with 4 epochs of larger minibatches, so the "
        "update columns compare trainers as shipped, not the same arithmetic.) Win rates at "
        "one budget are not in this table: see each trainer's section (the budgets differ).",
        TRAINERS_END,
    ]
    return "\n".join(lines)


def write_trainers(text: str) -> None:
    """Replace (or append) the trainers section of results/training.md."""
    path = ROOT / "results" / "training.md"
    old = path.read_text() if path.exists() else ""
    if TRAINERS_START in old and TRAINERS_END in old:
        new = (
            old[: old.index(TRAINERS_START)]
            + text
            + old[old.index(TRAINERS_END) + len(TRAINERS_END) :]
        )
    else:
        new = old.rstrip("\n") + "\n\n" + text + "\n"
    path.write_text(new)


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
    parser.add_argument("--trainers", action="store_true", help="the trainers side by side")
    parser.add_argument("--measure", action="store_true", help="with --trainers: bench first")
    args = parser.parse_args()
    if args.trainers:
        trainers_path = ROOT / "results" / "trainers.json"
        if args.measure:
            trainers_path.write_text(json.dumps(measure_trainers(), indent=1) + "\n")
        text = trainers_markdown(json.loads(trainers_path.read_text()))
        write_trainers(text)
        print(text)
        return 0
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
