"""Measure the fast trainer's learner steps/s on each config (rollout + update).

    python lab/bench/bench_fast_ppo.py [configs ...] [--updates 4] [--pause PID]
        [--set key=value ...] [--variant "key=value ..." ...] [--rounds 1]
    python lab/bench/bench_fast_ppo.py configs/fast/selfplay.yaml --profile --set torch_threads=1
    python lab/bench/bench_fast_ppo.py --curves results/runs/fast/<run> ...

Each config runs ``--updates`` full updates (rollout of ``num_games x rollout_steps``
decisions, then the PPO epochs) from a fresh network; the first is a warm-up and the
figure is the median of the others. The machine is shared, so every row keeps the
1-minute load average before and after it, and the steps per second of the process's
CPU time (``median_cpu_sps``; with ``torch_threads=1`` about what one quiet core gives,
whatever the load; partner workers' CPU is not counted). With ``overlap=true`` the
collection and the update run at once in two threads; ``median_overlap_bound_sps``
(steps over the larger of the two CPU times) is what a core per thread would give at
best, derived from CPU times rather than measured; with ``overlap=process`` the
collection's CPU time is the collector process's own, so the bound is the arithmetic of
two processes on two cores. ``--variant`` adds a row per config and variant (its
overrides after ``--set``'s); ``--rounds`` repeats the whole set, interleaved, so that
the rows compared in one run share the machine's load. ``--profile`` instead splits one epoch of one update by CPU time (gathering the
minibatch, forward, the loss's own operations, backward, clipping and Adam) and
prints it. ``--curves`` prints, for each evaluation of finished or running runs, the
win rates beside the training's wall seconds and CPU seconds so far (``cpu_sum``: both
parts in one process; ``cpu_max``: per update the larger of the collection's and the
update's, what two cores would take with ``overlap: process``), to compare learning per
hour between configs that run at different speeds. ``--pause PID`` stops one of *your own*
processes (a training run) for the measurement and continues it afterwards. Writes
``results/bench/fast_bench.json`` (rows added to the file's, newest last).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_FIGURES = ("sps", "collect_s", "update_s", "collect_cpu_s", "update_cpu_s")
DEFAULT = ["configs/fast/selfplay.yaml", "configs/fast/selfplay_literal.yaml"]


def measure(path: str, updates: int, overrides: list[str]) -> dict:
    """One row: the config's per-update figures and their medians."""
    from shipwreck_training.fast.config import load_config
    from shipwreck_training.fast.ppo import Trainer

    cfg = load_config(ROOT / path, overrides)
    load_before = os.getloadavg()[0]
    trainer = Trainer(cfg)
    rows = [trainer.train_step() for _ in range(updates)]
    trainer.close()
    kept = rows[1:] or rows
    return {
        "config": path,
        "overrides": overrides,
        "belief": cfg.env.belief,
        "hidden": list(cfg.ppo.hidden),
        "epochs": cfg.ppo.epochs,
        "batch": cfg.batch_size,
        "minibatch": cfg.ppo.minibatch_size,
        "torch_threads": cfg.torch_threads,
        "partner_workers": cfg.partner_workers,
        "updates": [{k: r[k] for k in _FIGURES} for r in rows],
        "median_sps": statistics.median(r["sps"] for r in kept),
        # steps per second of this process's CPU time (its workers' not counted): on a
        # loaded machine, close to what one quiet core gives a one-thread run
        "median_cpu_sps": statistics.median(
            r["steps"] / (r["collect_cpu_s"] + r["update_cpu_s"]) for r in kept
        ),
        "median_collect_cpu_sps": statistics.median(r["steps"] / r["collect_cpu_s"] for r in kept),
        "median_update_cpu_sps": statistics.median(r["steps"] / r["update_cpu_s"] for r in kept),
        "median_overlap_bound_sps": statistics.median(
            r["steps"] / max(r["collect_cpu_s"], r["update_cpu_s"]) for r in kept
        ),
        "overlap": cfg.overlap,
        "shared_first_layer": cfg.ppo.shared_first_layer,
        "median_collect_sps": statistics.median(r["steps"] / r["collect_s"] for r in kept),
        "median_update_sps": statistics.median(r["steps"] / r["update_s"] for r in kept),
        "load1_before": load_before,
        "load1_after": os.getloadavg()[0],
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def profile(path: str, overrides: list[str]) -> dict:
    """CPU seconds of each part of one PPO epoch over a fresh rollout of ``path``."""
    import torch

    from shipwreck_training.fast.config import load_config
    from shipwreck_training.fast.ppo import Trainer, advantages

    cfg = load_config(ROOT / path, overrides)
    trainer, ppo = Trainer(cfg), cfg.ppo
    r = trainer.collect()
    adv, target = advantages(r, ppo.gamma, ppo.gae_lambda)
    flat = {"obs": r.obs.flatten(0, 1), "mask": r.mask.flatten(0, 1)}
    flat |= {"actions": r.actions.flatten(), "logp": r.logp.flatten(), "adv": adv.flatten()}
    flat |= {"target": target.flatten(), "learn": r.learn.flatten(), "fate": r.fate.flatten()}
    parts = dict.fromkeys(("gather", "forward", "loss_ops", "backward", "clip_adam"), 0.0)
    load_before, clock = os.getloadavg()[0], time.process_time
    order = torch.randperm(cfg.batch_size, generator=torch.Generator().manual_seed(0))
    for start in range(0, cfg.batch_size, ppo.minibatch_size):
        t0 = clock()
        b = {k: v[order[start : start + ppo.minibatch_size]] for k, v in flat.items()}
        t1 = clock()
        trainer.model(b["obs"], b["mask"])  # the forward alone, to subtract from the loss
        t2 = clock()
        losses = trainer._loss(b)
        t3 = clock()
        trainer.optimizer.zero_grad(set_to_none=True)
        losses["loss"].backward()
        t4 = clock()
        torch.nn.utils.clip_grad_norm_(trainer.model.parameters(), ppo.max_grad_norm)
        trainer.optimizer.step()
        t5 = clock()
        for key, seconds in zip(
            parts, (t1 - t0, t2 - t1, t3 - t2 - (t2 - t1), t4 - t3, t5 - t4), strict=True
        ):
            parts[key] += seconds
    trainer.close()
    total = sum(parts.values())
    return {
        "config": path,
        "overrides": overrides,
        "minibatches": -(-cfg.batch_size // ppo.minibatch_size),
        "epoch_cpu_s": total,
        "share": {k: v / total for k, v in parts.items()},
        "load1_before": load_before,
        "load1_after": os.getloadavg()[0],
    }


def curves(run: Path) -> list[dict]:
    """One row per evaluation of ``run``: steps, wall, CPU seconds so far, win rates."""
    if not (run / "eval.jsonl").is_file():
        return []  # no evaluation yet
    progress = [json.loads(line) for line in (run / "progress.jsonl").open()]
    rows = []
    for line in (run / "eval.jsonl").open():
        record = json.loads(line)
        done = [p for p in progress if p["step"] <= record["step"]]
        rows.append(
            {
                "run": run.name,
                "step": record["step"],
                "wall": round(record["wall"], 1),
                "cpu_sum": round(sum(p["collect_cpu_s"] + p["update_cpu_s"] for p in done), 1),
                "cpu_max": round(sum(max(p["collect_cpu_s"], p["update_cpu_s"]) for p in done), 1),
                "load1": round(statistics.mean(p["load1"] for p in done), 1),
                "win": {d: r["win_rate"] for d, r in record["results"].items()},
            }
        )
    return rows


def _refused(paths: list[str], overrides: list[list[str]]) -> str | None:
    """Why some config with some overrides is refused (None: all load), before any bench
    runs: a bad value is one line on stderr, not a traceback after minutes of benching."""
    from shipwreck_training.fast.config import load_config

    for path in paths:
        if not (ROOT / path).is_file():
            return f"config {path!r} does not exist"
        for extra in overrides:
            try:
                load_config(ROOT / path, extra)
            except ValueError as exc:
                return f"{path} {' '.join(extra)}: {exc}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", default=DEFAULT)
    parser.add_argument("--updates", type=int, default=4)
    parser.add_argument("--pause", type=int, default=0, help="PID to stop meanwhile")
    parser.add_argument("--set", action="append", default=[], help="override key=value")
    parser.add_argument(
        "--variant", action="append", default=[], help='"key=value ..." (one row each)'
    )
    parser.add_argument("--rounds", type=int, default=1, help="interleaved repeats")
    parser.add_argument("--profile", action="store_true", help="split one epoch by part")
    parser.add_argument("--curves", nargs="+", type=Path, help="run folders: learning per hour")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench" / "fast_bench.json"))
    args = parser.parse_args()
    if args.curves:
        for run in args.curves:
            for row in curves(run):
                print(json.dumps(row))
        return 0
    if args.profile:
        if (error := _refused(args.configs, [args.set])) is not None:
            print(f"error: {error}", file=sys.stderr)
            return 2
        for path in args.configs:
            print(json.dumps(profile(path, args.set)))
        return 0
    command = shlex.join(["python", "lab/bench/bench_fast_ppo.py", *sys.argv[1:]])
    variants = [v.split() for v in args.variant] or [[]]
    if (error := _refused(args.configs, [args.set + v for v in variants])) is not None:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.pause:
        os.kill(args.pause, signal.SIGSTOP)
    keys = ("config", "overrides", "median_sps", "median_cpu_sps", "median_overlap_bound_sps")
    keys += ("median_collect_cpu_sps", "median_update_cpu_sps", "load1_before")
    try:
        rows = []
        for _ in range(args.rounds):
            for path in args.configs:
                for variant in variants:
                    row = measure(path, args.updates, args.set + variant)
                    row["command"] = command
                    rows.append(row)
                    print(json.dumps({k: row[k] for k in keys}), flush=True)
    finally:
        if args.pause:
            os.kill(args.pause, signal.SIGCONT)
    out = Path(args.out)
    old = json.loads(out.read_text()) if out.exists() else []
    out.write_text(json.dumps(old + rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
