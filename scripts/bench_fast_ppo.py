"""Measure the fast trainer's learner steps/s on each config (rollout + update).

    python scripts/bench_fast_ppo.py [configs ...] [--updates 4] [--pause PID]

Each config runs ``--updates`` full updates (rollout of ``num_games x rollout_steps``
decisions, then the PPO epochs) from a fresh network; the first is a warm-up and the
figure is the median of the others. The machine is shared, so every row keeps the
1-minute load average before and after it, and the steps per second of the process's
CPU time (``median_cpu_sps``; with ``torch_threads=1`` about what one quiet core gives,
whatever the load; partner workers' CPU is not counted). With ``overlap=true`` the
collection and the update run at once in two threads; ``median_overlap_bound_sps``
(steps over the larger of the two CPU times) is what a core per thread would give at
best, derived from CPU times rather than measured. ``--pause PID`` stops one of *your own*
processes (a training run) for the measurement and continues it afterwards. Writes
``results/fast_bench.json`` (rows added to the file's, newest last).
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", default=DEFAULT)
    parser.add_argument("--updates", type=int, default=4)
    parser.add_argument("--pause", type=int, default=0, help="PID to stop meanwhile")
    parser.add_argument("--set", action="append", default=[], help="override key=value")
    parser.add_argument("--out", default=str(ROOT / "results" / "fast_bench.json"))
    args = parser.parse_args()
    command = shlex.join(["python", "scripts/bench_fast_ppo.py", *sys.argv[1:]])
    if args.pause:
        os.kill(args.pause, signal.SIGSTOP)
    try:
        rows = []
        for path in args.configs:
            row = measure(path, args.updates, args.set)
            row["command"] = command
            rows.append(row)
            keys = ("config", "overrides", "median_sps", "median_cpu_sps")
            keys += ("median_collect_cpu_sps", "median_update_cpu_sps", "load1_before")
            print(json.dumps({k: row[k] for k in keys}))
    finally:
        if args.pause:
            os.kill(args.pause, signal.SIGCONT)
    out = Path(args.out)
    old = json.loads(out.read_text()) if out.exists() else []
    out.write_text(json.dumps(old + rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
