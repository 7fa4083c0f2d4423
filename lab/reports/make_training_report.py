"""Summarise every training run into results/training/training.md, .json and learning curves.

    python lab/reports/make_training_report.py [--runs results/runs] [--games 1000] [--jobs 2]
    python lab/reports/make_training_report.py --from-json   # only redraw from training.json
    python lab/reports/make_training_report.py --trainers [--measure]   # trainers side by side
    python lab/reports/make_training_report.py --trainers --evaluate-budget 1000000 \
        [--only fast] [--evaluator reference|batched] [--games 1000] [--seed 10000]
    python lab/reports/make_training_report.py --all-sets [--evaluator ...]   # issue 19's run

For each regime (play, predict, selfplay, alternating) and seed it reads the run's
``summary.json`` (final evaluation, steps, wall time) and ``eval.jsonl`` (win rate during
training). It also evaluates the *combined* learned team -- the play model of seed k with
the predict model of seed k -- since neither single-role run measures that. Scripted
baselines (3 players) come from ``results/baselines/baselines.json``. Writes
``results/training/training.md``, ``results/training/training.json`` and ``results/training/training_curves.png``.
Only the latest run of each (regime, seed) is used.

``--trainers`` writes the section of the three trainers side by side (its own markers in
results/training/training.md) from results/training/trainers.json; ``--measure`` first runs each trainer's
speed bench one after the other in this invocation (the fast trainer's
``lab/bench/bench_fast_ppo.py``, ``lab/bench/bench_sb3.py`` and, in ``.venv-rllib``,
``lab/bench/bench_rllib.py``), keeping every figure with its command and load.
``--evaluate-budget STEPS`` takes each trainer's latest run of its ``budget`` config
(configs/fast|sb3|rllib/budget.yaml) at STEPS learner steps, exports it as a ``fast:`` team
to results/models/budget/ and evaluates it on a held-out seed: with the reference
evaluator (``shipwreck_agents.evaluation.evaluate``, the default) or greedily on the batched engine
(``--evaluator batched``); the figures go into results/training/trainers.json (one entry per
trainer and evaluator, so evaluations may run one trainer at a time) and the table of the
trainers at one budget. ``--all-sets`` does the same for the fast trainer's run on every
card set (configs/fast/selfplay_all.yaml) and writes its own section.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

import yaml

from shipwreck_agents.evaluation.evaluate import evaluate, wilson_interval
from shipwreck_env.rules.config import DIFFICULTIES
from shipwreck_training.common.report import replace_section

ROOT = Path(__file__).resolve().parents[2]
OTHER_SECTIONS = re.compile(r"<!-- [a-z-]+:start")

TRAINING_MD = ROOT / "results" / "training" / "training.md"

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
    """Where the best scripted team (convention+convention, results/baselines/baselines.json)
    stands at 3 players, normal -- empty if that file has no such row."""
    path = ROOT / "results" / "baselines" / "baselines.json"
    if not path.exists():
        return ""
    for report in json.loads(path.read_text())["reports"].get("3", []):
        if report["team"] == "convention+convention":
            rate = report["results"]["normal"]["win_rate"]
            return f" (the best scripted team, convention+convention, wins {rate:.3f})"
    return ""


TRAINERS_START = "<!-- trainers:start (lab/reports/make_training_report.py --trainers) -->"
TRAINERS_END = "<!-- trainers:end -->"
BENCHES = {
    "fast": [
        "lab/bench/bench_fast_ppo.py",
        "configs/fast/selfplay.yaml",
        "--updates",
        "3",
        "--set",
        "torch_threads=1",
    ],
    "sb3": ["lab/bench/bench_sb3.py", "--repeats", "3"],
    "rllib": [
        "lab/bench/bench_rllib.py",
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
    data["sb3"] = json.loads((ROOT / "results" / "bench" / "sb3_bench.json").read_text())[-1]
    data["rllib"] = json.loads((ROOT / "results" / "bench" / "rllib_bench.json").read_text())
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
        engine = {
            "aec": "AEC env",
            "batched": f"batched, {r['envs_per_runner']} games, RLlib's runner",
            "batched-runner": f"batched, {r['envs_per_runner']} games, numpy runner",
        }[r["engine"]]
        rows.append(
            (
                "RLlib PPO",
                f"{engine}, {r['env_runners']} env runner(s)",
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
        "## The trainers side by side",
        "",
        "Generated by `python lab/reports/make_training_report.py --trainers` from "
        "results/training/trainers.json, whose figures that script measured: the speeds with "
        "`--measure`, the runs at one budget with `--evaluate-budget STEPS`.",
        "",
        *budget_markdown(data),
        "### Speed",
        "",
        f"Measured by `python lab/reports/make_training_report.py --trainers --measure` on "
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
        "(RLlib's update steps/s: the train batch over each iteration's learner seconds, "
        "recovered from RLlib's averaged timer by lab/bench/bench_rllib.py; RLlib's runner "
        "is its single-agent env runner, the numpy runner `training/rllib/runner.py`, the "
        "batched configs' default. The networks "
        "differ as the trainers' configs do: SB3 256x256 with 5 epochs of minibatch 256, "
        "RLlib and the fast trainer 128x128 with 4 epochs of larger minibatches, so the "
        "update columns compare trainers as shipped, not the same arithmetic.)",
        TRAINERS_END,
    ]
    return "\n".join(lines)


def write_trainers(text: str) -> None:
    """Replace (or append) the trainers section of results/training/training.md."""
    replace_section(TRAINING_MD, text, TRAINERS_START, TRAINERS_END)


BUDGET_RUNS = {
    "fast": ("results/runs/fast", "fast_budget", "configs/fast/budget.yaml"),
    "sb3": ("results/runs", "selfplay_budget", "configs/sb3/selfplay_budget.yaml"),
    "rllib": ("results/runs/rllib", "rllib_budget", "configs/rllib/budget.yaml"),
}
"""Trainer -> (runs folder, config name, config) of the runs at the common budget."""
TRAIN_COMMANDS = {
    "fast": "python -m shipwreck_training.fast --config {config}",
    "sb3": "python -m shipwreck_training.sb3 --config {config}",
    "rllib": ".venv-rllib/bin/python -m shipwreck_training.rllib --config {config}",
}
ALL_SETS_RUN = ("results/runs/fast", "fast_selfplay_all", "configs/fast/selfplay_all.yaml")
"""The fast trainer's run on every card set (issue 19)."""
MODELS = ROOT / "results" / "models" / "budget"
"""Where the evaluated teams are exported (``fast:`` loader layout: ``.pth`` + meta)."""


def _rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _latest_run(folder: str, name: str) -> Path:
    runs = sorted((ROOT / folder).glob(f"{name}__*__*"), key=lambda p: p.name.rsplit("__", 1)[1])
    if not runs:
        raise SystemExit(f"error: no run {name}__* in {folder}; train it first")
    return runs[-1]


def _median_load(values: list) -> float | None:
    found = [float(v) for v in values if v is not None]
    return statistics.median(found) if found else None


def _fast_point(run: Path, budget: int) -> dict:
    """The fast run's final model (its config's ``total_steps`` is the budget)."""
    if not (run / "summary.json").exists():
        raise SystemExit(f"error: {run} has not finished (no summary.json)")
    progress = _rows(run / "progress.jsonl")
    last = progress[-1]
    return {
        "steps": last["step"],
        "wall_seconds": last["wall"],
        "load1": _median_load([p.get("load1") for p in progress]),
        "source": str((run / "model.pth").relative_to(ROOT)),
    }


def _sb3_point(run: Path, budget: int) -> dict:
    """The first SB3 checkpoint at or past ``budget`` steps (SB3's learning rate is
    constant, so it is the model a run stopped there would have saved)."""
    found = sorted(
        (int(p.stem.split("_")[1]), p) for p in (run / "checkpoints").glob("model_*_steps.zip")
    )
    summary = (
        json.loads((run / "summary.json").read_text()) if (run / "summary.json").exists() else None
    )
    if summary:
        found.append((summary["steps"], run / "final_model.zip"))
    steps, path = next(((s, p) for s, p in sorted(found) if s >= budget), (None, None))
    if path is None:
        raise SystemExit(f"error: {run} has no checkpoint at {budget:,} steps yet")
    walls = {e["steps"]: e["wall_seconds"] for e in _rows(run / "eval.jsonl")}
    wall = summary["wall_seconds"] if path.name == "final_model.zip" else walls.get(steps)
    return {
        "steps": steps,
        "wall_seconds": wall,
        "load1": None,
        "source": str(path.relative_to(ROOT)),
    }


def _rllib_point(run: Path, budget: int) -> dict:
    """The first RLlib checkpoint at or past ``budget`` env steps (constant learning rate)."""
    from shipwreck_agents.learned.rllib import META_FILE

    found = []
    for path in sorted((run / "checkpoints").glob("iter_*")):
        if (path / META_FILE).exists():
            found.append((json.loads((path / META_FILE).read_text())["env_steps"], path))
    steps, path = next(((s, p) for s, p in sorted(found) if s >= budget), (None, None))
    if path is None:
        raise SystemExit(f"error: {run} has no checkpoint at {budget:,} steps yet")
    progress = [p for p in _rows(run / "progress.jsonl") if p["env_steps"] <= steps]
    return {
        "steps": steps,
        "wall_seconds": sum(p["seconds"] for p in progress),
        "load1": _median_load([p.get("load_average") for p in progress]),
        "source": str(path.relative_to(ROOT)),
    }


def export_team(trainer: str, run: Path, point: dict, target: Path) -> Path:
    """Write the network of ``point`` as ``target`` (an SB3 ``.pth``) with its
    ``.meta.json``, the layout the ``fast:`` loader plays with its belief."""
    import shutil

    from shipwreck_agents.learned.actor_critic import export_sb3
    from shipwreck_training.common.config import GameSettings
    from shipwreck_training.common.run import model_meta

    source = ROOT / point["source"]
    target.parent.mkdir(parents=True, exist_ok=True)
    cfg = yaml.safe_load((run / "config.yaml").read_text())
    extra = {"trainer": f"shipwreck_training.{trainer}", "name": cfg["name"], "seed": cfg["seed"]}
    if trainer == "fast":
        shutil.copyfile(source, target)
    elif trainer == "sb3":
        from sb3_contrib import MaskablePPO

        MaskablePPO.load(str(source), device="cpu").policy.save(str(target))
    else:
        from shipwreck_agents.learned.rllib import load_network

        export_sb3(load_network(source)[0], target)
    meta = model_meta(
        GameSettings(**cfg["env"]),
        role="self",
        regime="selfplay",
        steps=point["steps"],
        source=point["source"],
        spec=f"fast:{target.relative_to(ROOT)}",
        **extra,
    )
    target.with_suffix(".meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return target


def evaluate_exported(model: Path, env: dict, args: argparse.Namespace) -> dict:
    """Win rates of the team ``fast:model`` in both roles: the reference evaluator
    (``shipwreck_agents.evaluation.evaluate``) or, with ``--evaluator batched``, the greedy
    evaluation on the batched engine; ``args.games`` games per difficulty, seed ``args.seed``."""
    from shipwreck_training.common.config import GameSettings

    settings = GameSettings(**env)
    spec = f"fast:{model.relative_to(ROOT)}"
    if args.evaluator == "batched":
        from shipwreck_agents.learned.actor_critic import load_sb3
        from shipwreck_training.common.greedy_eval import evaluate_greedy

        results = evaluate_greedy(
            load_sb3(model),
            settings,
            games=args.games,
            seed=args.seed,
            difficulties=DIFFICULTIES,
        )
        command = (
            f"training/common/greedy_eval.py evaluate_greedy on {spec}, seed {args.seed}, "
            f"{args.games} games per difficulty"
        )
    else:
        from shipwreck_training.common.run import evaluate_team

        results = evaluate_team(
            settings,
            spec,
            spec,
            difficulties=DIFFICULTIES,
            games=args.games,
            seed=args.seed,
            jobs=args.jobs,
        )["results"]
        sets = (
            settings.card_sets
            if isinstance(settings.card_sets, str)
            else ",".join(settings.card_sets)
        )
        command = (
            f"shipwreck-arcana evaluate --play {spec} --group {spec} --games {args.games} "
            f"--seed {args.seed} --jobs {args.jobs} --card-sets {sets}"
        )
    return {
        "evaluator": args.evaluator,
        "seed": args.seed,
        "games": args.games,
        "command": command,
        "results": results,
    }


POINTS = {"fast": _fast_point, "sb3": _sb3_point, "rllib": _rllib_point}


def evaluate_run(trainer: str, folder: str, name: str, budget: int, args) -> dict:
    """Find the run, take its model at ``budget`` steps, export it, evaluate it."""
    import os

    run = _latest_run(folder, name)
    point = POINTS[trainer](run, budget)
    model = export_team(trainer, run, point, MODELS / f"{name}.pth")
    cfg = yaml.safe_load((run / "config.yaml").read_text())
    env = cfg["env"]
    length = cfg.get("total_steps") or cfg.get("total_timesteps")
    configured = f"{length:,} steps" if length else f"{cfg['iterations']} iterations"
    load_before = os.getloadavg()[0]
    evaluation = evaluate_exported(model, env, args)
    evaluation["load1"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    evaluation["script_command"] = "python lab/reports/make_training_report.py " + " ".join(
        sys.argv[1:]
    )
    return {
        "run": str(run.relative_to(ROOT)),
        "run_length": configured,
        **point,
        "steps_per_s": point["steps"] / point["wall_seconds"] if point["wall_seconds"] else None,
        "model": str(model.relative_to(ROOT)),
        "model_bytes": model.stat().st_size,
        "card_sets": env.get("card_sets", "base"),
        "evaluations": {args.evaluator: evaluation},
    }


def update_trainers_json(key: str, trainer: str | None, entry: dict) -> dict:
    """Write ``entry`` under ``key`` (and ``trainer``) of results/training/trainers.json, keeping
    the evaluations by the other evaluator of the same model; re-read just before
    writing so that evaluations run side by side keep each other's figures. Returns the
    merged entry."""
    path = ROOT / "results" / "training" / "trainers.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    parent = data if trainer is None else data.setdefault(key, {})
    slot = key if trainer is None else trainer
    old = parent.get(slot, {})
    if old.get("source") == entry["source"]:
        entry["evaluations"] = {**old.get("evaluations", {}), **entry["evaluations"]}
    parent[slot] = entry
    path.parent.mkdir(parents=True, exist_ok=True)  # the study's folder, in a fresh tree too
    path.write_text(json.dumps(data, indent=1) + "\n")
    return entry


def _bench_sps(data: dict, trainer: str) -> tuple[float | None, str]:
    """The speed bench's steps/s of the setting closest to each budget config, and its load."""
    if trainer == "fast" and "fast" in data:
        f = data["fast"]
        return f["median_sps"], f"{f['load1_before']:.1f}-{f['load1_after']:.1f}"
    if trainer == "sb3" and "sb3" in data:
        runs = data["sb3"]["runs"]["batched"]
        load = statistics.median(x[k] for x in runs for k in ("load1_before", "load1_after"))
        return data["sb3"]["medians"]["batched"]["sps"], f"{load:.1f}"
    if trainer == "rllib":
        # the batched configs' own sampler first (env_runners.runner: auto), then RLlib's
        ones = {
            r["engine"]: r
            for r in data.get("rllib", {}).get("settings", [])
            if r["env_runners"] == 1
        }
        for engine in ("batched-runner", "batched"):
            if engine in ones:
                r = ones[engine]
                return r["median_steps_per_s"], f"{r['median_load_average']:.1f}"
    return None, "-"


def _rates(results: dict) -> list[str]:
    return [
        f"{results[d]['win_rate']:.3f} [{results[d]['win_rate_ci95'][0]:.3f}, "
        f"{results[d]['win_rate_ci95'][1]:.3f}]"
        if "win_rate_ci95" in results[d]
        else f"{results[d]['win_rate']:.3f}"
        for d in DIFFICULTIES
    ]


def _load(x: float | None) -> str:
    return f"{x:.1f}" if x is not None else "not logged"


EVALUATORS = {
    "reference": "reference engine (`shipwreck_agents.evaluation.evaluate`)",
    "batched": "batched engine (`evaluate_greedy`)",
}


def _evaluation_rows(label: str, entry: dict, cells: str) -> tuple[list[str], list[str]]:
    """Table rows (one per evaluator) and the notes saying how each was measured."""
    rows, notes = [], []
    for evaluator, ev in sorted(entry["evaluations"].items()):
        rows.append(
            f"| {label} | {cells} | {EVALUATORS[evaluator]}, {ev['games']:,} games, seed "
            f"{ev['seed']} | " + " | ".join(_rates(ev["results"])) + " |"
        )
        notes.append(
            f"  - {EVALUATORS[evaluator]}: `{ev['command']}`, run by "
            f"`{ev['script_command']}` (1-minute load {ev['load1'][0]:.1f} before, "
            f"{ev['load1'][1]:.1f} after)."
        )
    return rows, notes


def _speed_cells(entry: dict) -> str:
    wall = f"{entry['wall_seconds'] / 60:.1f} min" if entry["wall_seconds"] else "-"
    sps = f"{entry['steps_per_s']:,.0f}" if entry["steps_per_s"] else "-"
    return f"{entry['steps']:,} | {wall} | {sps} ({_load(entry['load1'])})"


def budget_markdown(data: dict) -> list[str]:
    """The table of the trainers at one budget: speeds and held-out win rates."""
    budget = data.get("budget", {})
    if not budget:
        return []
    lines = [
        "### At one budget: speed and win rates",
        "",
        "Each trainer trained once: self-play, 3 players, base cards, leader, the four "
        "difficulties mixed per episode, the policy-conditioned belief, one torch thread, "
        "seed 0, networks 128x128 (configs and commands below the table). The model "
        "evaluated is the first one each run saved at or past the budget (SB3 and RLlib keep "
        "a constant learning rate, so a checkpoint is the model of a run stopped there; the "
        "fast trainer's run ends at the budget). Each was exported as a `fast:` team "
        "(`results/models/budget/`: an SB3 `.pth` and its `.meta.json`; the loader computes "
        "the policy-conditioned belief at play time) and evaluated greedily in both roles "
        "with a seed no training used: win rate [95% Wilson interval] per difficulty. "
        "Training steps/s: learner steps over the run's wall time up to that model, on this "
        "2-core machine shared with other engineers' jobs, with the median 1-minute load "
        "average the trainer logged while it ran (the SB3 trainer logs none). Bench steps/s: "
        "the speed bench below (its closest setting: fast, the headline config; SB3, "
        "batched, 256 games, `ppo.fast_update`; RLlib, batched, 64 games, 1 env runner, the batched configs' own runner), the "
        "three measured in one invocation, with the load.",
        "",
        "| trainer | learner steps | wall time | training steps/s (load) | bench steps/s (load) "
        "| evaluator | " + " | ".join(DIFFICULTIES) + " |",
        "|---|---:|---:|---:|---:|---|" + "---|" * len(DIFFICULTIES),
    ]
    notes = []
    for trainer in BUDGET_RUNS:
        b = budget.get(trainer)
        if b is None:
            continue
        bench, bench_load = _bench_sps(data, trainer)
        bench_cell = f"{bench:,.0f} ({bench_load})" if bench else "-"
        rows, how = _evaluation_rows(trainer, b, f"{_speed_cells(b)} | {bench_cell}")
        lines += rows
        config = BUDGET_RUNS[trainer][2]
        notes.append(
            f"- {trainer}: `{config}`, trained by "
            f"`{TRAIN_COMMANDS[trainer].format(config=config)}` (run `{b['run']}`"
            + (f", configured for {b['run_length']}" if "run_length" in b else "")
            + ", model "
            f"`{b['source']}`, exported as `{b['model']}`). Evaluated by:"
        )
        notes += how
    return [*lines, "", *notes, ""]


ALL_SETS_START = "<!-- card-sets-all:start (lab/reports/make_training_report.py --all-sets) -->"
ALL_SETS_END = "<!-- card-sets-all:end -->"


def all_sets_markdown(entry: dict) -> str:
    """The section of the fast trainer's run on every card set."""
    rows, notes = _evaluation_rows("fast", entry, _speed_cells(entry))
    return "\n".join(
        [
            ALL_SETS_START,
            "## The fast trainer on every card set",
            "",
            "Generated by `python lab/reports/make_training_report.py --all-sets`. Trained by "
            f"`{TRAIN_COMMANDS['fast'].format(config=ALL_SETS_RUN[2])}` (card sets "
            f"{entry['card_sets']}: self-play, 3 players, leader, the four difficulties mixed, "
            f"the policy-conditioned belief, one torch thread, seed 0; run `{entry['run']}`), "
            f"exported as `{entry['model']}` and evaluated greedily in both roles on games "
            "with every card set, with a seed no training used: win rate [95% Wilson "
            "interval] per difficulty. Steps/s: learner steps over the run's wall time on "
            "this shared 2-core machine, with the median 1-minute load the trainer logged.",
            "",
            "| trainer | learner steps | wall time | steps/s (load) | evaluator | "
            + " | ".join(DIFFICULTIES)
            + " |",
            "|---|---:|---:|---:|---|" + "---|" * len(DIFFICULTIES),
            *rows,
            "",
            "Evaluated by:",
            *notes,
            ALL_SETS_END,
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default=str(ROOT / "results" / "runs"))
    parser.add_argument(
        "--games",
        type=int,
        default=1000,
        help="games per difficulty (combined teams, budget and all-sets evaluations)",
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--from-json",
        action="store_true",
        help="rewrite training.md and the plot from results/training/training.json (no evaluation)",
    )
    parser.add_argument("--trainers", action="store_true", help="the trainers side by side")
    parser.add_argument("--measure", action="store_true", help="with --trainers: bench first")
    parser.add_argument(
        "--evaluate-budget",
        type=int,
        metavar="STEPS",
        help="with --trainers: evaluate each trainer's budget run at STEPS learner steps",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=list(BUDGET_RUNS),
        help="with --evaluate-budget: only these trainers (the others' figures are kept)",
    )
    parser.add_argument(
        "--all-sets", action="store_true", help="evaluate the fast run on every card set"
    )
    parser.add_argument(
        "--seed", type=int, default=10_000, help="evaluation seed of the runs (no training used it)"
    )
    parser.add_argument(
        "--evaluator",
        choices=("reference", "batched"),
        default="reference",
        help="reference: shipwreck_agents.evaluation.evaluate; batched: greedy on the batched engine",
    )
    args = parser.parse_args()
    trainers_path = ROOT / "results" / "training" / "trainers.json"
    if args.all_sets:
        entry = evaluate_run("fast", *ALL_SETS_RUN[:2], 0, args)
        update_trainers_json("all_sets", None, entry)
        text = all_sets_markdown(entry)
        replace_section(TRAINING_MD, text, ALL_SETS_START, ALL_SETS_END)
        print(text)
        return 0
    if args.trainers:
        if args.measure:
            data = json.loads(trainers_path.read_text()) if trainers_path.exists() else {}
            data.update(measure_trainers())  # keeps the budget runs' figures
            trainers_path.write_text(json.dumps(data, indent=1) + "\n")
        for trainer in args.only or list(BUDGET_RUNS) if args.evaluate_budget else []:
            folder, name, _ = BUDGET_RUNS[trainer]
            entry = evaluate_run(trainer, folder, name, args.evaluate_budget, args)
            update_trainers_json("budget", trainer, entry)
        data = json.loads(trainers_path.read_text())
        text = trainers_markdown(data)
        write_trainers(text)
        if "all_sets" in data:  # its section too, from the figures already measured
            replace_section(
                TRAINING_MD, all_sets_markdown(data["all_sets"]), ALL_SETS_START, ALL_SETS_END
            )
        print(text)
        return 0
    json_path = ROOT / "results" / "training" / "training.json"
    if args.from_json:
        data = json.loads(json_path.read_text())
        table = {r: {int(k): v for k, v in s.items()} for r, s in data["regimes"].items()}
        baselines, command = data["baselines_3p"], data["command"]
    else:
        table, baselines, command = collect(args)
        json_path.write_text(
            json.dumps({"command": command, "regimes": table, "baselines_3p": baselines}, indent=1)
        )
    md_path = TRAINING_MD
    old = md_path.read_text() if md_path.exists() else ""
    # keep the sections other scripts append (<!-- name:start ... --> to the end), such as
    # lab/reports/make_fast_training_report.py's and lab/bench/bench_rllib.py's
    start = OTHER_SECTIONS.search(old)
    kept = old[start.start() :] if start else ""
    md_path.write_text(markdown(table, baselines, command) + ("\n\n" + kept if kept else ""))
    plot(table, baselines, ROOT / "results" / "training" / "training_curves.png")
    print(TRAINING_MD.read_text())
    return 0


def collect(args: argparse.Namespace) -> tuple[dict, dict, str]:
    """Read every run, evaluate the combined play+predict teams and load the 3-player
    baselines: (table by regime and seed, baselines by team, the command line)."""
    runs = latest_runs(Path(args.runs))
    command = f"python lab/reports/make_training_report.py --games {args.games} --jobs {args.jobs}"
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
    base_path = ROOT / "results" / "baselines" / "baselines.json"
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
        "Learning curves (win rate during training, every evaluation): `results/training/training_curves.png`."
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
