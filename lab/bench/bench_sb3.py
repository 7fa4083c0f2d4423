"""SB3 learner steps/s on the batched engine beside the reference-engine path, one run.

    python lab/bench/bench_sb3.py [--config configs/sb3/selfplay.yaml] [--rollouts 2] [--repeats 3] [key=value ...]

Every side trains MaskablePPO with the same config (hyperparameters, network, rollout of
8,192 decisions): ``reference`` is the path the shipped SB3 models were trained on
(``engine=reference n_envs=8 vec_env=dummy ppo.n_steps=1024``, MaskablePPO's update as
sb3-contrib ships it: ``ppo.fast_update=false``), ``reference_fast`` the same envs with
the trainer's faster update (``ppo.fast_update``, :mod:`shipwreck_training.sb3.
distribution`), ``batched_stock`` the batched engine (``num_games`` x ``ppo.n_steps`` of
the config) with sb3-contrib's update, ``batched`` the trainer's default (batched engine
and the faster update). ``ratio`` is ``batched`` over ``reference`` (the issue's
"today's SB3 path"); ``ratio_same_update`` is ``batched`` over ``reference_fast``.

``--minibatch`` instead prints what one minibatch of the update costs (milliseconds of
CPU and of wall clock, medians of ``--repeats`` batches of 20, for each ``--threads``),
on a minibatch of a real rollout: a step of sb3-contrib's update as shipped, of the
faster one, the network's forward and backward alone (the matrix products no change to
the update's bookkeeping can remove), and its forward alone; nothing is written.

Each measurement builds a fresh model, runs one warm-up rollout and update, then times
``--rollouts`` rollouts and updates, splitting the time between sampling
(``collect_rollouts``) and learning (``train``), in wall-clock seconds (``*_sps``) and in
this process's CPU seconds (``*_cpu_sps``: one torch thread and one process, so CPU
seconds are the work done, less sensitive to other jobs on the machine than the wall
clock). The order of the sides turns each repeat so that a change of load hits all.
Figures are medians over ``--repeats``, with the 1-minute load average before and after
each measurement. ``key=value`` overrides apply to every side. Writes
``results/bench/sb3_bench.json`` (one entry per distinct command, newest kept).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

REFERENCE = ["engine=reference", "n_envs=8", "vec_env=dummy", "ppo.n_steps=1024"]
SIDES = {
    # the SB3 path before the batched engine: reference-engine envs, MaskablePPO's
    # update as sb3-contrib ships it
    "reference": [*REFERENCE, "ppo.fast_update=false"],
    # the same envs with the faster update: what the update alone is worth there
    "reference_fast": [*REFERENCE, "ppo.fast_update=true"],
    # the batched engine alone (the update as shipped)
    "batched_stock": ["engine=batched", "ppo.fast_update=false"],
    # the trainer's default: the batched engine and the faster update
    "batched": ["engine=batched", "ppo.fast_update=true"],
}


def measure(config: str, overrides: list[str], rollouts: int) -> dict:
    """One measurement: learner steps/s of whole rollouts+updates, and of each part."""
    import torch

    from shipwreck_training.sb3.config import load_config
    from shipwreck_training.sb3.train import _new_model, _vec_env

    torch.set_num_threads(1)  # as the trainer sets it
    cfg = load_config(ROOT / config, overrides)
    venv = _vec_env(cfg, "self", None, cfg.seed * 1000)
    model = _new_model(cfg, venv, Path("/tmp/bench_sb3_tb"))
    model.tensorboard_log = None
    spent = {"collect": 0.0, "train": 0.0, "collect_cpu": 0.0, "train_cpu": 0.0}

    def timed(name, fn):
        def run(*args, **kwargs):
            start, cpu = time.perf_counter(), time.process_time()
            out = fn(*args, **kwargs)
            spent[name] += time.perf_counter() - start
            spent[name + "_cpu"] += time.process_time() - cpu
            return out

        return run

    model.learn(cfg.rollout_size)  # warm-up
    load_before = os.getloadavg()[0]
    model.collect_rollouts = timed("collect", model.collect_rollouts)
    model.train = timed("train", model.train)
    start, cpu = time.perf_counter(), time.process_time()
    model.learn(rollouts * cfg.rollout_size, reset_num_timesteps=False)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    venv.close()
    steps = rollouts * cfg.rollout_size
    return {
        "overrides": overrides,
        "steps": steps,
        "seconds": wall,
        "sps": steps / wall,
        "collect_sps": steps / spent["collect"],
        "train_sps": steps / spent["train"],
        "cpu_sps": steps / cpu,
        "collect_cpu_sps": steps / spent["collect_cpu"],
        "train_cpu_sps": steps / spent["train_cpu"],
        "load1_before": load_before,
        "load1_after": os.getloadavg()[0],
    }


def minibatch_costs(config: str, overrides: list[str], threads: int, repeats: int) -> dict:
    """CPU and wall milliseconds per minibatch of the update's parts (``--minibatch``)."""
    import torch

    from shipwreck_training.sb3.config import load_config
    from shipwreck_training.sb3.train import _new_model, _vec_env

    torch.set_num_threads(threads)
    steps = {}
    for fast in (False, True):
        cfg = load_config(ROOT / config, [*overrides, f"ppo.fast_update={str(fast).lower()}"])
        model = _new_model(cfg, _vec_env(cfg, "self", None, 0), Path("/tmp/bench_sb3_tb"))
        model.tensorboard_log = None
        model.learn(cfg.rollout_size)  # a real rollout in the buffer
        batch = next(model.rollout_buffer.get(cfg.ppo.batch_size))
        steps["fast_update" if fast else "update_as_shipped"] = _update_step(model, batch)
    policy = model.policy
    obs = batch.observations

    def network(backward: bool) -> None:
        with torch.set_grad_enabled(backward):
            actor, critic = policy.mlp_extractor(policy.extract_features(obs))
            out = policy.action_net(actor).sum() + policy.value_net(critic).sum()
        if backward:
            policy.optimizer.zero_grad()
            out.backward()

    steps["network_forward_backward"] = lambda: network(True)
    steps["network_forward"] = lambda: network(False)
    costs = {}
    for name, step in steps.items():
        for _ in range(5):
            step()
        cpu, wall = [], []
        for _ in range(repeats):
            c, w = time.process_time(), time.perf_counter()
            for _ in range(20):
                step()
            cpu.append((time.process_time() - c) / 20 * 1000)
            wall.append((time.perf_counter() - w) / 20 * 1000)
        costs[name] = {"cpu_ms": statistics.median(cpu), "wall_ms": statistics.median(wall)}
    return costs


def _update_step(model, batch):
    """One minibatch step of MaskablePPO's ``train`` (its losses, clipping and optimiser
    step, without the logging)."""
    import torch

    def step() -> None:
        values, log_prob, entropy = model.policy.evaluate_actions(
            batch.observations, batch.actions.long().flatten(), action_masks=batch.action_masks
        )
        advantages = batch.advantages
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        ratio = torch.exp(log_prob - batch.old_log_prob)
        clip = model.clip_range(model._current_progress_remaining)
        clipped = torch.clamp(ratio, 1 - clip, 1 + clip)
        policy_loss = -torch.min(advantages * ratio, advantages * clipped).mean()
        value_loss = torch.nn.functional.mse_loss(batch.returns, values.flatten())
        loss = policy_loss - model.ent_coef * entropy.mean() + model.vf_coef * value_loss
        model.policy.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.policy.parameters(), model.max_grad_norm)
        model.policy.optimizer.step()

    return step


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/sb3/selfplay.yaml")
    parser.add_argument("--rollouts", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--minibatch", action="store_true", help="one minibatch's parts")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("overrides", nargs="*", help="key=value for both sides")
    args = parser.parse_args()
    if args.minibatch:
        for threads in args.threads:
            costs = minibatch_costs(args.config, args.overrides, threads, args.repeats)
            load = os.getloadavg()[0]
            print(json.dumps({"torch_threads": threads, "load1": load, "ms": costs}), flush=True)
        return 0
    rows: dict[str, list[dict]] = {name: [] for name in SIDES}
    names = list(SIDES)
    for r in range(args.repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            row = measure(args.config, [*args.overrides, *SIDES[name]], args.rollouts)
            rows[name].append(row)
            print(f"{name}: {row['sps']:.0f} steps/s (load {row['load1_before']:.1f})", flush=True)
    medians = {
        name: {
            k: statistics.median(x[k] for x in runs)
            for k in (
                "sps",
                "collect_sps",
                "train_sps",
                "cpu_sps",
                "collect_cpu_sps",
                "train_cpu_sps",
            )
        }
        for name, runs in rows.items()
    }
    data = {
        "command": "python lab/bench/bench_sb3.py "
        + shlex.join(
            [
                "--config",
                args.config,
                "--rollouts",
                str(args.rollouts),
                "--repeats",
                str(args.repeats),
            ]
        ),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "medians": medians,
        "ratio": {k: medians["batched"][k] / medians["reference"][k] for k in medians["batched"]},
        "ratio_same_update": {
            k: medians["batched"][k] / medians["reference_fast"][k] for k in medians["batched"]
        },
        "ratio_stock": {
            k: medians["batched_stock"][k] / medians["reference"][k] for k in medians["batched"]
        },
        "load1_median": statistics.median(
            x[k] for runs in rows.values() for x in runs for k in ("load1_before", "load1_after")
        ),
        "runs": rows,
    }
    path = ROOT / "results" / "bench" / "sb3_bench.json"
    kept = json.loads(path.read_text()) if path.exists() else []
    kept = [x for x in kept if x["command"] != data["command"]] + [data]
    path.write_text(json.dumps(kept, indent=1) + "\n")
    print(
        json.dumps(
            {
                k: data[k]
                for k in ("command", "medians", "ratio", "ratio_same_update", "load1_median")
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
