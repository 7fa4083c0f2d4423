"""Learner steps per second of a fast-trainer config with the batched scripted partner
against the per-game Python partner, measured in the same run.

Runs ``python -m shipwreck_training.fast --config CONFIG`` in turn with the batched
partner (A: ``partners.batched=true``) and with ``partners.batched=false`` (B: the
config's per-game Python path, its ``partner_workers`` processes included), A B A B ...,
each for ``--steps`` learner steps with checkpoints and periodic evaluations off. Per run it reads the trainer's own
figure (``summary.json``: learner steps over the training loop's wall seconds) and
takes the CPU seconds of the whole process tree (trainer and partner workers, start-up
included) from the operating system; it prints and writes the medians, the pairwise
ratios A/B and the load average before and after every run.

Usage::

    python lab/bench/bench_fast_partners.py --config configs/fast/predict.yaml \\
        --steps 100000 --pairs 3 --json results/bench/partners_bench.json [key=value ...]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(
    config: str, steps: int, python_partner: bool, runs: Path, overrides: list[str]
) -> dict:
    """One training run; its trainer figure, process-tree CPU and the load around it."""
    env = {k: v for k, v in os.environ.items() if k != "SHIPWRECK_PYTHON_PARTNER"}
    folder = runs / f"{'python' if python_partner else 'batched'}_{time.time_ns()}"
    command = [
        sys.executable, "-m", "shipwreck_training.fast", "--config", config,
        "--runs", str(folder), f"total_steps={steps}", "checkpoint_every=1000000000",
        "eval.every=0", "eval.games=4",
        f"partners.batched={'false' if python_partner else 'true'}", *overrides,
    ]  # fmt: skip
    load_before = os.getloadavg()[0]
    cpu_before, wall_before = _children_cpu(), time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - wall_before
    cpu = _children_cpu() - cpu_before
    (run_dir,) = folder.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    return {
        "partner": "python" if python_partner else "batched",
        "learner_steps": summary["steps"],
        "learner_steps_per_s": summary["mean_sps"],
        "process_wall_s": wall,
        "process_cpu_s": cpu,
        "learner_steps_per_cpu_s": summary["steps"] / cpu,
        "load1_before": load_before,
        "load1_after": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="configs/fast/predict.yaml")
    parser.add_argument("--steps", type=int, default=100_000, help="learner steps per run")
    parser.add_argument("--pairs", type=int, default=3, help="A B pairs")
    parser.add_argument("--json", help="write the runs and medians here")
    parser.add_argument("--markdown", help="append the medians as a table here")
    parser.add_argument("--from-json", help="only write --markdown from this earlier --json")
    parser.add_argument("overrides", nargs="*", help="dotted.key=value for both runs")
    args = parser.parse_args(argv)
    if args.from_json:
        if not args.markdown:
            parser.error("--from-json needs --markdown FILE")
        with open(args.markdown, "a") as fh:
            fh.write(markdown(json.loads(Path(args.from_json).read_text())))
        return 0
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.pairs):
            for python_partner in (False, True):
                runs.append(
                    run_once(args.config, args.steps, python_partner, Path(tmp), args.overrides)
                )
                print(json.dumps(runs[-1]), flush=True)
    out: dict = {
        "command": " ".join(["python", "lab/bench/bench_fast_partners.py", *(argv or sys.argv[1:])])
    }
    for name in ("batched", "python"):
        mine = [r for r in runs if r["partner"] == name]
        out[name] = {
            key: statistics.median(r[key] for r in mine)
            for key in ("learner_steps_per_s", "learner_steps_per_cpu_s", "process_cpu_s")
        }
    pairs = list(zip(runs[0::2], runs[1::2], strict=True))
    for key in ("learner_steps_per_s", "learner_steps_per_cpu_s"):
        out[f"ratio_{key}"] = statistics.median(a[key] / b[key] for a, b in pairs)
    out["load1"] = [min(r["load1_before"] for r in runs), max(r["load1_after"] for r in runs)]
    out["runs"] = runs
    print(json.dumps({k: v for k, v in out.items() if k != "runs"}, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    if args.markdown:
        with open(args.markdown, "a") as fh:
            fh.write(markdown(out))
    return 0


def markdown(out: dict) -> str:
    """The medians of one call as a small table, with its command and load."""
    b, p = out["batched"], out["python"]
    low, high = out["load1"]
    return (
        f"`{out['command']}` (load average {low:.1f} to {high:.1f}; medians of "
        f"{len(out['runs']) // 2} runs each, ratios taken pair by pair)\n\n"
        "| partner | learner steps/s | learner steps per CPU-second |\n|---|---|---|\n"
        f"| batched | {b['learner_steps_per_s']:,.0f} | {b['learner_steps_per_cpu_s']:,.0f} |\n"
        f"| Python (per game) | {p['learner_steps_per_s']:,.0f} | "
        f"{p['learner_steps_per_cpu_s']:,.0f} |\n"
        f"| ratio | {out['ratio_learner_steps_per_s']:.2f}x | "
        f"{out['ratio_learner_steps_per_cpu_s']:.2f}x |\n\n"
    )


if __name__ == "__main__":
    raise SystemExit(main())
