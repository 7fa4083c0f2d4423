"""Write the fast trainer's section of results/training/training.md from its runs and benchmark.

    python lab/reports/make_fast_training_report.py [--runs results/runs/fast]

Reads every run folder (``config.yaml``, ``progress.jsonl``, ``eval.jsonl``,
``summary.json``), ``results/bench/fast_bench.json`` (lab/bench/bench_fast_ppo.py), the shipped
teams' reference evaluations (``results/fast_reference_eval*.json``, written by
``shipwreck-arcana evaluate --out``) and the scripted teams of ``results/baselines/baselines.json``;
writes ``results/training/fast_training.json``,
``results/training/fast_training_curves.png`` (greedy win rate against wall-clock time) and the
section between the fast-trainer markers of ``results/training/training.md`` (appended once if
the markers are missing). Every figure comes from those files: nothing is typed in.

Run folders are not kept in git, so a new machine has none of the runs behind the report.
The runs already recorded in ``results/training/fast_training.json`` whose folders are absent are
therefore kept as recorded (a folder that is present replaces its record);
``--drop-missing`` writes the report from the folders alone.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
from pathlib import Path

import yaml

from shipwreck_training.common.report import replace_section

ROOT = Path(__file__).resolve().parents[2]
START = "<!-- fast-trainer:start (lab/reports/make_fast_training_report.py) -->"
END = "<!-- fast-trainer:end -->"
DIFFS = ("easy", "normal", "hard", "doomed")


def _jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def read_run(folder: Path) -> dict | None:
    """The figures of one run folder (``None`` if it has not logged an update yet)."""
    progress = _jsonl(folder / "progress.jsonl")
    if not progress:
        return None
    cfg = yaml.safe_load((folder / "config.yaml").read_text())
    evals = _jsonl(folder / "eval.jsonl")
    summary_path = folder / "summary.json"
    last = progress[-1]
    warm = progress[1:] or progress
    return {
        "run": folder.name,
        "name": cfg["name"],
        "regime": cfg["regime"],
        "partner": cfg["partner"],
        "belief": cfg["env"]["belief"],
        "seed": cfg["seed"],
        "hidden": cfg["ppo"]["hidden"],
        "epochs": cfg["ppo"]["epochs"],
        "num_games": cfg["num_games"],
        "total_steps": cfg["total_steps"],
        "steps": last["step"],
        "wall_seconds": last["wall"],
        "median_sps": statistics.median(p["sps"] for p in warm),
        "median_load1": statistics.median(p.get("load1", float("nan")) for p in warm),
        "finished": summary_path.exists(),
        "evals": [
            {
                "step": e["step"],
                "wall": e["wall"],
                "load1": e.get("load1"),
                **{d: r["win_rate"] for d, r in e["results"].items()},
                "games": next(iter(e["results"].values()))["games"],
            }
            for e in evals
        ],
        "imitation": _jsonl(folder / "imitation.jsonl"),
    }


def merge_runs(found: list[dict], recorded: list[dict]) -> tuple[list[dict], int]:
    """The runs read from folders, plus the recorded runs that have no folder here.

    Returns the runs sorted by folder name and how many came from the record alone.
    """
    names = {r["run"] for r in found}
    kept = [r for r in recorded if r["run"] not in names]
    return sorted(found + kept, key=lambda r: r["run"]), len(kept)


def scripted_teams() -> list[dict]:
    """3-player scripted teams of results/baselines/baselines.json (reference engine)."""
    path = ROOT / "results" / "baselines" / "baselines.json"
    if not path.exists():
        return []
    data = json.loads(path.read_text())
    out = []
    for rep in data["reports"].get("3", []):
        if rep["cheating"] or rep["team"] in ("random+random", "literal+literal"):
            continue
        out.append(
            {
                "team": rep["team"],
                "games": rep["games"],
                "seed": rep["seed"],
                **{d: r["win_rate"] for d, r in rep["results"].items()},
            }
        )
    return out


def reference_evaluations() -> list[dict]:
    """Shipped fast teams measured by the reference evaluator (``shipwreck-arcana
    evaluate ... --out results/fast_reference_eval*.json``)."""
    out = []
    for path in sorted((ROOT / "results").glob("fast_reference_eval*.json")):
        data = json.loads(path.read_text())
        for rep in data if isinstance(data, list) else [data]:
            model = ROOT / rep["play"].partition(":")[2]
            meta_path = model.with_suffix(".meta.json")
            meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
            out.append(
                {
                    "file": path.name,
                    "steps": meta.get("steps"),
                    "group_reads": "policy-conditioned belief"
                    if rep["group"].startswith("fast:") and meta.get("belief_kind") == "policy"
                    else "literal belief block",
                    "team": rep["team"],
                    "play": rep["play"],
                    "group": rep["group"],
                    "seed": rep["seed"],
                    "games": rep["games"],
                    **{d: r["win_rate"] for d, r in rep["results"].items()},
                    **{f"{d}_ci95": r["win_rate_ci95"] for d, r in rep["results"].items()},
                }
            )
    return out


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.2f} h"


def budget_groups(runs: list[dict]) -> list[dict]:
    """Finished runs grouped by (config name, planned steps): the regimes and seeds
    compared at one budget. Each group: its seeds, the final evaluation per difficulty
    (mean and, with several seeds, the standard deviation across seeds), wall time and
    median learner steps/s."""
    groups: dict[tuple[str, int], list[dict]] = {}
    for r in runs:
        if r["finished"] and r["evals"]:
            groups.setdefault((r["name"], r["total_steps"]), []).append(r)
    out = []
    for (name, budget), members in sorted(groups.items(), key=lambda kv: (-kv[0][1], kv[0][0])):
        members = sorted(members, key=lambda r: r["seed"])
        finals = [r["evals"][-1] for r in members]
        row = {
            "name": name,
            "regime": members[0]["regime"],
            "partner": members[0]["partner"],
            "belief": members[0]["belief"],
            "budget": budget,
            "seeds": [r["seed"] for r in members],
            "runs": [r["run"] for r in members],
            "games": finals[0]["games"],
            "wall_hours": [r["wall_seconds"] / 3600 for r in members],
            "median_sps": [r["median_sps"] for r in members],
            "imitation": bool(members[0]["imitation"]),
        }
        for d in DIFFS:
            values = [f[d] for f in finals]
            row[d] = statistics.mean(values)
            row[d + "_sd"] = statistics.stdev(values) if len(values) > 1 else None
            row[d + "_seeds"] = values
        out.append(row)
    return out


def _mean_sd(row: dict, d: str) -> str:
    sd = row[d + "_sd"]
    return f"{row[d]:.3f}" + (f" ± {sd:.3f}" if sd is not None else "")


def markdown(
    runs: list[dict],
    bench: list[dict],
    teams: list[dict],
    command: str,
    source: str,
    reference: list[dict] | None = None,
    recorded: int = 0,
) -> str:
    """The section (between the markers); ``source`` names the runs folder and
    ``recorded`` counts the runs taken from ``results/training/fast_training.json`` alone."""
    kept = (
        f" (and {recorded} runs as recorded in `results/training/fast_training.json`, their folders "
        "not being on this machine)"
        if recorded
        else ""
    )
    lines = [
        START,
        "## Fast trainer (training/fast: PPO on the batched engine)",
        "",
        f"Generated by `{command}` from `{source}`{kept}, `results/bench/fast_bench.json` and "
        "`results/baselines/baselines.json`. The machine is shared (other sessions' evaluations and "
        "tests ran meanwhile): every speed is a median and carries the 1-minute load "
        "average measured with it; with a load above 2 on 2 cores, the figures are lower "
        "than on a quiet machine.",
        "",
        "**Speed** (`lab/bench/bench_fast_ppo.py`: learner decisions per second of a whole "
        "update -- rollout of games x steps decisions plus the PPO epochs -- median of the "
        "updates after the first; the rollout and update columns time each part alone):",
        "",
        "| config | belief | network | epochs | batch / minibatch | threads | learner steps/s "
        "| rollout steps/s | update steps/s | load before / after | when |",
        "|---|---|---|---:|---|---:|---:|---:|---:|---|---|",
    ]
    for b in bench:
        over = f" ({' '.join(b['overrides'])})" if b["overrides"] else ""
        lines.append(
            f"| {Path(b['config']).stem}{over} | {b['belief']} | "
            f"{'x'.join(map(str, b['hidden']))} | {b['epochs']} | "
            f"{b['batch']:,} / {b['minibatch']:,} | {b['torch_threads']} | "
            f"{b['median_sps']:,.0f} | {b['median_collect_sps']:,.0f} | "
            f"{b['median_update_sps']:,.0f} | {b['load1_before']:.1f} / {b['load1_after']:.1f} "
            f"| {b['when']} |"
        )
    lines += [
        "",
        "**Runs** (greedy win rate of the last evaluation on the batched engine, held-out "
        "evaluation seed, games per difficulty in the last column; a run still in "
        "progress shows where it is):",
        "",
        "| run | regime | belief | steps | wall time | median steps/s (load) | eval at step "
        "| easy | normal | hard | doomed | games | status |",
        "|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in runs:
        last = r["evals"][-1] if r["evals"] else {}
        cells = " | ".join(f"{last[d]:.3f}" if d in last else "-" for d in DIFFS)
        regime = r["regime"] + (f" ({r['partner']})" if r["partner"] else "")
        status = (
            "finished"
            if r["finished"]
            else f"unfinished ({r['total_steps']:,} planned; `--resume` continues it)"
        )
        lines.append(
            f"| {r['run']} | {regime} | {r['belief']} | {r['steps']:,} | "
            f"{_hours(r['wall_seconds'])} | {r['median_sps']:,.0f} ({r['median_load1']:.1f}) | "
            f"{format(last['step'], ',') if last else '-'} | {cells} | {last.get('games', '-')} | {status} |"
        )
    for t in teams:
        cells = " | ".join(f"{t[d]:.3f}" for d in DIFFS)
        lines.append(
            f"| scripted: {t['team']} (reference engine, seed {t['seed']}) | - | - | - | - | - "
            f"| - | {cells} | {t['games']} | - |"
        )
    groups = budget_groups(runs)
    if groups:
        lines += [
            "",
            "**Regimes and seeds at one budget** (finished runs grouped by config and planned "
            "learner steps -- the learning rate anneals to zero at that budget; final greedy "
            "evaluation on the batched engine, held-out seed; mean ± standard deviation "
            "across seeds where there are several):",
            "",
            "| config | regime | belief | budget (steps) | seeds | easy | normal | hard | doomed "
            "| games | wall time per run | median steps/s |",
            "|---|---|---|---:|---|---|---|---|---|---:|---|---|",
        ]
        for g in groups:
            regime = g["regime"] + (f" ({g['partner']})" if g["partner"] else "")
            if g["imitation"]:
                regime += ", after imitation"
            cells = " | ".join(_mean_sd(g, d) for d in DIFFS)
            walls = ", ".join(f"{h:.2f} h" for h in g["wall_hours"])
            sps = ", ".join(f"{x:,.0f}" for x in g["median_sps"])
            lines.append(
                f"| {g['name']} | {regime} | {g['belief']} | {g['budget']:,} | "
                f"{', '.join(map(str, g['seeds']))} | {cells} | {g['games']} | {walls} | {sps} |"
            )
    if reference:
        lines += [
            "",
            "**Shipped teams on the reference evaluator** (`agents/evaluation/evaluate.py`, the same "
            "evaluator and seeding as the scripted teams' table; win rate [95% interval]):",
            "",
            "| play | group | group reads | trained steps | seed | games | easy | normal | hard "
            "| doomed | file |",
            "|---|---|---|---:|---:|---:|---|---|---|---|---|",
        ]
        for r in reference:
            cells = " | ".join(
                f"{r[d]:.3f} [{r[d + '_ci95'][0]:.3f}, {r[d + '_ci95'][1]:.3f}]" if d in r else "-"
                for d in DIFFS
            )
            lines.append(
                f"| {r['play']} | {r['group']} | {r['group_reads']} | "
                f"{r['steps']:,} | {r['seed']} | {r['games']} | {cells} | "
                f"{r['file']} |"
            )
    lines += [
        "",
        "Curves: `results/training/fast_training_curves.png` (win rate at each evaluation against "
        "the run's wall-clock hours). The batched evaluator's games are not the reference "
        "evaluator's (other random streams): compare the run rows with the scripted row as "
        "a yardstick; the reference-evaluator rows with seed 0 play the first games of the "
        "scripted team's seed-0 evaluation, the paired comparison.",
        END,
    ]
    return "\n".join(lines)


def plot(runs: list[dict], teams: list[dict], path: Path) -> None:
    """Win rate against wall-clock hours, one panel per difficulty."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(16, 5), sharey=True)
    for ax, d in zip(axes, DIFFS, strict=True):
        for r in runs:
            if r["evals"]:
                ax.plot(
                    [e["wall"] / 3600 for e in r["evals"]],
                    [e[d] for e in r["evals"]],
                    marker="o",
                    label=r["run"],
                )
        for t, style in zip(teams, ("--", ":", "-."), strict=False):
            ax.axhline(t[d], linestyle=style, color="grey", label=f"scripted {t['team']}")
        ax.set_title(d)
        ax.set_xlabel("wall-clock hours")
    axes[0].set_ylabel("greedy win rate")
    axes[0].set_ylim(0, 1)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=4)
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    fig.savefig(path, dpi=90)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default=str(ROOT / "results" / "runs" / "fast"))
    parser.add_argument(
        "--drop-missing",
        action="store_true",
        help="leave out the runs recorded in results/training/fast_training.json whose folders are absent",
    )
    args = parser.parse_args()
    command = shlex.join(["python", "lab/reports/make_fast_training_report.py", *sys.argv[1:]])
    found = [r for f in sorted(Path(args.runs).glob("*__*")) if (r := read_run(f))]
    record_path = ROOT / "results" / "training" / "fast_training.json"
    recorded = (
        []
        if args.drop_missing or not record_path.exists()
        else (json.loads(record_path.read_text()).get("runs", []))
    )
    runs, kept = merge_runs(found, recorded)
    bench_path = ROOT / "results" / "bench" / "fast_bench.json"
    bench = json.loads(bench_path.read_text()) if bench_path.exists() else []
    teams = scripted_teams()
    reference = reference_evaluations()
    results = ROOT / "results"
    record_path.write_text(
        json.dumps(
            {
                "command": command,
                "runs": runs,
                "bench": bench,
                "scripted": teams,
                "reference": reference,
                "budget_groups": budget_groups(runs),
            },
            indent=2,
        )
    )
    plot(runs, teams, results / "fast_training_curves.png")
    runs_dir = Path(args.runs).resolve()
    source = str(runs_dir.relative_to(ROOT)) if runs_dir.is_relative_to(ROOT) else str(runs_dir)
    section = markdown(runs, bench, teams, command, source, reference, recorded=kept)
    replace_section(results / "training.md", section, START, END)
    print(section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
