"""Measure the RLlib trainer's speed with 1 and 2 env runners, on the AEC env and on the
batched engine (RLlib's own env runner and this trainer's numpy one), and write its
section of results/training/training.md (between the rllib markers) and results/bench/rllib_bench.json.

    .venv-rllib/bin/python lab/bench/bench_rllib.py [--iterations 6] [--runners 1 2]
        [--batch 2000] [--engines aec batched batched-runner] [--envs-per-runner 64]
        [--from-json]

Engines: ``aec`` (RLlib's multi-agent runner over copies of the AEC env), ``batched``
(RLlib's single-agent runner over the batched engine's vector env,
``env_runners.runner=rllib``), ``batched-runner`` (the same vector env sampled by
``training/rllib/runner.py``, ``env_runners.runner=batched``). Each batched row's ratio
to the ``aec`` row with as many runners, measured in the same invocation, is printed
under the table.

Each setting (engine x runners, run one after the other in one invocation) is a real run of ``shipwreck_training.rllib`` (configs/rllib/selfplay.yaml, a
local Ray of 2 CPUs, no evaluation) in ``results/runs/rllib_bench/``; its figures are
the medians over iterations 2..K of ``progress.jsonl`` (the first iteration includes
start-up), with the load average logged beside each iteration. The "on paper" figures
(what crosses the network per iteration) are computed from the network and observation
sizes. ``--budget-run RUN`` adds a finished ``shipwreck_training.rllib`` run (its
``progress.jsonl`` and ``eval.json``) beside the Stable-Baselines3 self-play runs'
learning curves at the same number of env steps (``results/training/training.json``).
``--from-json`` rewrites the section from results/bench/rllib_bench.json without running.
``--profile 64 256`` writes nothing: it builds each batched env runner in this process
(``num_env_runners: 0``, no Ray cluster) with that many games and prints where one
sampling call's wall time goes (timers wrapped around the runner's parts; best of 3
calls of 125 steps per game).
Nothing in the section is typed in.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

import yaml

from shipwreck_training.common.report import replace_section

ROOT = Path(__file__).resolve().parents[2]
START = "<!-- rllib:start (lab/bench/bench_rllib.py) -->"
END = "<!-- rllib:end -->"
CONFIG = "configs/rllib/selfplay.yaml"
ENGINES = {  # bench row -> trainer overrides
    "aec": ["engine=aec"],
    "batched": ["engine=batched", "env_runners.runner=rllib"],
    "batched-runner": ["engine=batched", "env_runners.runner=batched"],
}


def run_setting(
    runners: int, iterations: int, batch: int, out: Path, engine: str = "aec", envs: int = 1
) -> dict:
    """One measured run; its progress rows and summary (``envs`` games per runner on the
    batched engine)."""
    before = set(out.glob("*")) if out.exists() else set()
    argv = [
        sys.executable,
        "-m",
        "shipwreck_training.rllib",
        "--config",
        CONFIG,
        "--num-env-runners",
        str(runners),
        "--iterations",
        str(iterations),
        "--output-dir",
        str(out),
        "eval.games=0",
        f"ppo.train_batch_size_per_learner={batch}",
        f"checkpoint_every={iterations}",
        *ENGINES[engine],
    ]
    if engine != "aec":  # the AEC side keeps the config's games per runner
        argv.append(f"env_runners.num_envs_per_env_runner={envs}")
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    (run,) = set(out.glob("*")) - before
    return summary(run, engine, batch) | {
        "wall_s": wall,
        "command": shlex.join(["python", *argv[1:]]),
    }


def summary(run: Path, engine: str, batch: int) -> dict:
    """A finished bench run's figures from its ``progress.jsonl`` and ``config.yaml``."""
    config = yaml.safe_load((run / "config.yaml").read_text())
    rows = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    measured = rows[1:] or rows
    sampling_s = per_iteration(rows, "env_runner_sampling_timer")
    learner_s = per_iteration(rows, "learner_update_timer")
    sync_s = per_iteration(rows, "synch_weights")
    sampling = [
        (rows[i]["env_steps"] - rows[i - 1]["env_steps"]) / sampling_s[i]
        for i in range(1, len(rows))
        if sampling_s and sampling_s[i] > 0
    ]
    return {
        "engine": engine,
        "envs_per_runner": config["env_runners"]["num_envs_per_env_runner"],
        "env_runners": config["env_runners"]["num_env_runners"],
        "iterations": len(rows),
        "median_sampling_steps_per_s": statistics.median(sampling) if sampling else None,
        "train_batch": batch,
        "median_steps_per_s": statistics.median(r["steps_per_s"] for r in measured),
        "steps_per_s": [round(r["steps_per_s"], 1) for r in rows],
        "median_load_average": statistics.median(r["load_average"] for r in measured),
        "sampling_s": statistics.median(sampling_s[1:]) if sampling_s[1:] else None,
        "learner_s": statistics.median(learner_s[1:]) if learner_s[1:] else None,
        "weight_sync_s": statistics.median(sync_s[1:]) if sync_s[1:] else None,
    }


EMA = 0.01
"""The weight of the newest value in RLlib 2.60's timers (``MetricsLogger.log_time``'s
default exponential moving average): after K iterations a timer still carries
0.99^(K-1) of the first, slow one."""


def per_iteration(rows: list[dict], timer: str) -> list[float]:
    """Each iteration's own seconds of one of RLlib's timers, recovered from the moving
    average logged after every iteration (``v_n = (1 - EMA) v_{n-1} + EMA x_n``); empty
    when the timer is missing or the recovered values are not between 0 and the
    iteration's wall time (another averaging than the one assumed)."""
    values = [r.get("timers", {}).get(timer) for r in rows]
    if not values or any(v is None for v in values):
        return []
    out = [values[0]] + [
        (values[i] - (1 - EMA) * values[i - 1]) / EMA for i in range(1, len(values))
    ]
    ok = all(-1e-3 <= x <= r["seconds"] + 1e-3 for x, r in zip(out, rows, strict=True))
    return out if ok else []


def on_paper(batch: int) -> dict:
    """What crosses the network per iteration, from the sizes (3 players, belief)."""
    from shipwreck_agents.learned.actor_critic import ActorCritic
    from shipwreck_env.rules.actions import NUM_ACTIONS
    from shipwreck_training.rllib.config import load_config

    cfg = load_config(ROOT / CONFIG)
    from shipwreck_env.rules.observation import ObservationLayout

    obs = ObservationLayout.for_config(cfg.env.game_config(), cfg.env.belief_block).size
    net = ActorCritic(obs, NUM_ACTIONS, cfg.ppo.hidden)
    params = sum(p.numel() for p in net.parameters())
    # per step: observation (float32), mask (int8), action, logp, reward, flags, value
    step_bytes = obs * 4 + NUM_ACTIONS + 8 * 6
    return {
        "obs_dim": obs,
        "parameters": params,
        "weights_bytes": params * 4,
        "step_bytes": step_bytes,
        "sample_bytes_per_iteration": step_bytes * batch,
        "hidden": list(cfg.ppo.hidden),
    }


def budget(run: Path) -> dict:
    """A finished run's final evaluation, and the SB3 self-play seeds' evaluations at the
    largest step count of their curve not above the run's (results/training/training.json)."""
    rows = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    report = json.loads((run / "eval.json").read_text())
    steps = rows[-1]["env_steps"]
    sb3 = []
    regimes = json.loads((ROOT / "results" / "training" / "training.json").read_text())["regimes"]
    for seed, summary in sorted(regimes.get("selfplay", {}).items()):
        points = [p for p in summary["curve"] if p["steps"] <= steps]
        if points:
            sb3.append({"seed": int(seed), **points[-1]})
    return {
        "run": run.name,
        "env_steps": steps,
        "iterations": rows[-1]["iteration"],
        "wall_s": sum(r["seconds"] for r in rows),
        "median_load_average": statistics.median(r["load_average"] for r in rows),
        "config": yaml.safe_load((run / "config.yaml").read_text()),
        "games": report["games"],
        "win_rate": {d: r["win_rate"] for d, r in report["results"].items()},
        "win_rate_ci95": {d: r["win_rate_ci95"] for d, r in report["results"].items()},
        "sb3_selfplay": sb3,
    }


def gradient_steps(cfg: dict) -> str:
    """The two trainers' gradient steps per sampled step, from their configs (not tuned
    against each other: the RLlib run uses the shipped config)."""
    ppo = cfg["ppo"]
    rllib = ppo["train_batch_size_per_learner"] // ppo["minibatch_size"] * ppo["num_epochs"]
    regimes = json.loads((ROOT / "results" / "training" / "training.json").read_text())["regimes"]
    sb3_cfg = yaml.safe_load(regimes["selfplay"]["0"]["config"])
    batch = sb3_cfg["ppo"]["n_steps"] * sb3_cfg["n_envs"]
    sb3 = batch // sb3_cfg["ppo"]["batch_size"] * sb3_cfg["ppo"]["n_epochs"]
    return (
        "Not a tuned comparison: the RLlib run takes "
        f"{rllib} gradient steps per {ppo['train_batch_size_per_learner']:,} sampled steps "
        f"(minibatch {ppo['minibatch_size']}, {ppo['num_epochs']} epochs) with a "
        f"{'x'.join(map(str, ppo['hidden']))} network, SB3's selfplay {sb3} per {batch:,} "
        f"(minibatch {sb3_cfg['ppo']['batch_size']}, {sb3_cfg['ppo']['n_epochs']} epochs) "
        f"with {'x'.join(map(str, sb3_cfg['ppo']['net_arch']))}; one RLlib seed."
    )


def fast_rollout() -> int:
    """Decisions in one rollout of the fast trainer's headline config."""
    fast = yaml.safe_load((ROOT / "configs" / "fast" / "selfplay.yaml").read_text())
    return int(fast["num_games"]) * int(fast["rollout_steps"])


def scaling(rows: list[dict], engine: str) -> list[dict]:
    """Throughput with N env runners, on paper, from the measured 1-runner figures of
    ``engine``: RLlib's PPO samples, then learns (one after the other), so an iteration of
    B steps takes B/(N·S) + B/L, with S the sampling steps/s of one runner and L the
    learner's steps/s. L is estimated two ways: RLlib's learner timer and the rest of an
    iteration after sampling, 1/(1/M - 1/S) with M the 1-runner steps/s of whole
    iterations (both medians of per-iteration figures, :func:`per_iteration`, so neither is
    exact; their gap is the uncertainty). The learner becomes the
    bottleneck (sampling shorter than learning) from N = L/S runners."""
    same = [r for r in rows if r.get("engine", "aec") == engine]
    one = [r for r in same if r["env_runners"] == 1]
    if not one or not one[0].get("median_sampling_steps_per_s") or not one[0].get("learner_s"):
        return []
    r = one[0]
    sampling, whole = r["median_sampling_steps_per_s"], r["median_steps_per_s"]
    learners = {"RLlib's learner timer": r["train_batch"] / r["learner_s"]}
    if whole < sampling:
        learners["iteration minus sampling"] = 1 / (1 / whole - 1 / sampling)
    measured = {x["env_runners"]: x["median_steps_per_s"] for x in same}
    return [
        {
            "engine": engine,
            "source": source,
            "sampling": sampling,
            "learner": learner,
            "crossover": learner / sampling,
            "predicted": {n: 1 / (1 / (n * sampling) + 1 / learner) for n in RUNNERS},
            "measured": measured,
        }
        for source, learner in learners.items()
    ]


RUNNERS = (1, 2, 4, 8, 16, 64)


def ratio_lines(rows: list[dict]) -> list[str]:
    """Each batched row against the ``aec`` row with as many env runners (same run)."""
    aec = {r["env_runners"]: r for r in rows if r.get("engine", "aec") == "aec"}
    lines = []
    for r in rows:
        peer = aec.get(r["env_runners"])
        if r.get("engine", "aec") == "aec" or peer is None:
            continue
        sampling, peer_sampling = (
            r.get("median_sampling_steps_per_s"),
            peer.get("median_sampling_steps_per_s"),
        )
        per_sampling = (
            f"sampling {sampling / peer_sampling:.1f}x ({sampling:,.0f} against "
            f"{peer_sampling:,.0f}), "
            if sampling and peer_sampling
            else ""
        )
        lines.append(
            f"- `{r['engine']}`, {r['env_runners']} env runner{'s' * (r['env_runners'] > 1)} of "
            f"{r['envs_per_runner']} games, against `aec` with as many runners: {per_sampling}whole iterations "
            f"{r['median_steps_per_s'] / peer['median_steps_per_s']:.1f}x "
            f"({r['median_steps_per_s']:,.0f} against {peer['median_steps_per_s']:,.0f})."
        )
    return (
        ["", "**Per env runner, against the AEC config measured in the same run:**", "", *lines]
        if lines
        else []
    )


def scaling_lines(rows: list[dict]) -> list[str]:
    """The on-paper scaling table (see :func:`scaling`) for each engine measured."""
    found = [x for e in ENGINES for x in scaling(rows, e)]
    if not found:
        return []
    lines = [
        "",
        "**Throughput with more env runners, on paper, from the 1-runner rows above.** "
        "RLlib's PPO samples and then learns, one after the other, so an iteration of B "
        "env steps takes B/(N·S) + B/L with N runners of S sampling steps/s each and one "
        "learner of L steps/s: throughput 1/(1/(N·S) + 1/L), which never passes L. The "
        "learner becomes the bottleneck (learning takes longer than sampling) from N = L/S "
        "runners. L is estimated two ways: the train batch over RLlib's learner timer, and "
        "what an iteration spends besides sampling, 1/(1/M - 1/S) with M the 1-runner "
        "steps/s; both are medians over iterations (S and the learner time per iteration "
        "recovered from RLlib's timers, as above), so neither is exact, and the gap between "
        "the two rows is the uncertainty of these figures. This assumes a free core for every "
        "runner and for the learner, which this machine does not have (2 cores, load "
        "above: hence the measured 2-runner figures), and no network cost (below: small).",
        "",
        "| engine | L from | S (1 runner) | L | learner-bound from N = | "
        + " | ".join(f"N={n}" for n in RUNNERS)
        + " |",
        "|---|---|---:|---:|---:|" + "---:|" * len(RUNNERS),
    ]
    for x in found:
        cells = []
        for n in RUNNERS:
            cell = f"{x['predicted'][n]:,.0f}"
            if n in x["measured"]:
                cell += f" (measured {x['measured'][n]:,.0f})"
            cells.append(cell)
        lines.append(
            f"| {x['engine']} | {x['source']} | {x['sampling']:,.0f} | {x['learner']:,.0f} | "
            f"{x['crossover']:.1f} | " + " | ".join(cells) + " |"
        )
    return lines


def _seconds(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def markdown(data: dict) -> str:
    paper = data["paper"]
    rows = data["settings"]
    # the 1-minute load average before the runs: above 2, other jobs shared the cores
    busy = max(float(data["uptime_before"].split()[0]), float(data["uptime_after"].split()[0])) > 2
    lines = [
        START,
        "## RLlib trainer (Ray RLlib 2.60, multi-agent PPO)",
        "",
        f"Generated by `{data['command']}` on {data['date']}, in `.venv-rllib`. "
        + (
            "**The machine was busy**: 2 cores shared with other engineers' training and tests "
            if busy
            else "The machine was quiet apart from this bench (2 cores) "
        )
        + f"(load average {data['uptime_before']} before, {data['uptime_after']} after; per "
        "setting, the median of the load average logged at each iteration is below). "
        "Steps are env steps = decisions of any seat; steps/s is env steps of an iteration "
        "over its wall time (sampling and learning), median over iterations 2.."
        f"{rows[0]['iterations']} (the first includes start-up).",
        "",
        "| engine | games per runner | env runners | train batch | median steps/s | sampling steps/s | per iteration | sampling s | learner s | weight sync s | median load |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        sampling = r.get("median_sampling_steps_per_s")
        lines.append(
            f"| {r.get('engine', 'aec')} | {r.get('envs_per_runner', '-')} | "
            f"{r['env_runners']} | {r['train_batch']:,} | {r['median_steps_per_s']:.0f} | "
            f"{f'{sampling:.0f}' if sampling else '-'} | "
            f"{', '.join(f'{x:.0f}' for x in r['steps_per_s'])} | {_seconds(r['sampling_s'])} | "
            f"{_seconds(r['learner_s'])} | {_seconds(r['weight_sync_s'], 3)} | "
            f"{r['median_load_average']:.1f} |"
        )
    lines += [
        "",
        "(sampling / learner / weight-sync seconds: each iteration's own, recovered from "
        "RLlib's timers, which are moving averages giving the newest iteration a weight of "
        f"{EMA} (so after a few iterations they still show mostly the slow first one): "
        f"x_n = (v_n - {1 - EMA:g}·v_(n-1)) / {EMA}, median over iterations 2..K; "
        "sampling steps/s: an iteration's env steps over its sampling seconds, median over "
        "iterations 2..K. Engine `aec`: RLlib's multi-agent runner over copies of the AEC "
        "env; `batched`: its single-agent runner over the batched engine's vector env, "
        "`training/rllib/vector_env.py`, one module for every seat; `batched-runner`: the "
        "same vector env sampled by this trainer's numpy env runner, "
        "`training/rllib/runner.py`. Sampling steps/s are timed by the driver, so they "
        "include shipping the episodes from the runner.) Here two env runners "
        "share two cores with the driver's learner"
        + (" and other engineers' jobs" if busy else "")
        + ": the figure to take from a 2-core machine is the split between sampling and "
        "learning, not the scaling.",
    ]
    lines += ratio_lines(rows)
    lines += scaling_lines(rows)
    lines += [
        "",
        "**What crosses the network, on paper.** Each iteration the driver sends every env runner the "
        f"module's weights ({paper['parameters']:,} float32 parameters = "
        f"{paper['weights_bytes'] / 1e6:.2f} MB, hidden {paper['hidden']}) and receives the "
        f"sampled episodes: about {paper['step_bytes']:,} bytes per env step (a "
        f"{paper['obs_dim']}-float observation, the 259-byte mask, action, log-probability, "
        "reward, flags), so "
        f"{paper['sample_bytes_per_iteration'] / 1e6:.1f} MB for a "
        f"{rows[0]['train_batch']:,}-step batch, whatever the number of machines. With N machines "
        "of k cores, sampling runs on about N·k env runners and its time falls as 1/(N·k); the "
        "learner (one, in the driver: `learners.num_learners: 0`) does not shrink, so once "
        "sampling time drops under the learner's time the learner is the bottleneck (the "
        "table above): then "
        "`learners.num_learners` > 0 puts learners on the cluster (data-parallel, gradients "
        "averaged) or on a GPU node, and a larger `ppo.train_batch_size_per_learner` keeps "
        "every runner busy. Per-step Python (the engine, RLlib's episode objects and "
        "connectors) stays on each runner; the network traffic above is small next to 1 Gb/s "
        "for any batch that takes seconds to sample.",
    ]
    b = data.get("budget")
    if b:
        diffs = list(b["win_rate"])
        cfg = b["config"]
        lines += [
            "",
            f"**Win rate after a fixed budget.** `{b['run']}`: {b['env_steps']:,} env steps "
            f"({b['iterations']} iterations of {cfg['ppo']['train_batch_size_per_learner']:,}, "
            f"{cfg['env_runners']['num_env_runners']} env runners, hidden {cfg['ppo']['hidden']}, "
            f"{b['wall_s'] / 60:.0f} min of iterations at a median load average of "
            f"{b['median_load_average']:.1f}); self-play win rate of its last checkpoint "
            f"greedy in every seat ({b['games']} games per difficulty, 95% Wilson interval), "
            "beside the Stable-Baselines3 `selfplay` runs (256x256, 8 envs) at the last point of "
            "their learning curve not above that budget (200 games per difficulty). The fast "
            f"trainer's first update alone is {fast_rollout():,} decisions "
            "(configs/fast/selfplay.yaml), so it has no point at this budget. "
            f"Generated by `{data.get('budget_command', '')}`. {gradient_steps(cfg)}",
            "",
            "| trainer | env steps | " + " | ".join(diffs) + " |",
            "|---|---:|" + "---:|" * len(diffs),
            f"| RLlib PPO (this run) | {b['env_steps']:,} | "
            + " | ".join(
                f"{b['win_rate'][d]:.3f} [{b['win_rate_ci95'][d][0]:.3f}, "
                f"{b['win_rate_ci95'][d][1]:.3f}]"
                for d in diffs
            )
            + " |",
        ]
        for p in b["sb3_selfplay"]:
            lines.append(
                f"| SB3 selfplay seed {p['seed']} | {p['steps']:,} | "
                + " | ".join(f"{p['win_rate'].get(d, float('nan')):.3f}" for d in diffs)
                + " |"
            )
    lines.append(END)
    return "\n".join(lines)


PROFILE_PARTS = {  # runner -> (object, method, label); "env" is the vector env, "module" the RLModule
    "rllib": [
        ("runner", "_try_env_step", "env step (engine, observation, belief)"),
        ("module", "forward_exploration", "module forward"),
        ("runner", "_module_to_env", "module-to-env connectors (sample, log-prob, unbatch)"),
        ("runner", "_env_to_module", "env-to-module connectors (episodes to batch, tensor)"),
    ],
    "batched": [
        ("env", "step", "env step (engine, observation, belief)"),
        ("module", "forward_exploration", "module forward"),
        ("runner", "_act", "module forward + sample + log-prob"),
        ("runner", "_cut_game", "episodes built from the arrays"),
    ],
}


def profile(games: int, runner: str, belief: str, steps_per_game: int = 125) -> list[str]:
    """Lines: one sampling call's wall time split over the runner's parts (see the module
    docstring's ``--profile``)."""
    import collections

    import torch

    from shipwreck_training.rllib.config import load_config
    from shipwreck_training.rllib.env import register
    from shipwreck_training.rllib.train import algorithm_config

    torch.set_num_threads(1)
    register()
    cfg = load_config(
        ROOT / CONFIG,
        [
            "engine=batched",
            f"env_runners.runner={runner}",
            "env_runners.num_env_runners=0",
            f"env_runners.num_envs_per_env_runner={games}",
            f"env.belief={belief}",
        ],
    )
    config = algorithm_config(cfg)
    if config.env_runner_cls is None:
        from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

        built = SingleAgentEnvRunner(config=config)
    else:
        built = config.env_runner_cls(config=config)
    timers: collections.Counter = collections.Counter()
    owners = {"runner": built, "module": built.module, "env": built.env.unwrapped}
    for owner, name, label in PROFILE_PARTS[runner]:
        method = getattr(owners[owner], name)

        def timed(*args, _method=method, _label=label, **kwargs):
            start = time.perf_counter()
            try:
                return _method(*args, **kwargs)
            finally:
                timers[_label] += time.perf_counter() - start

        setattr(owners[owner], name, timed)
    built.sample(num_timesteps=games * 4)
    best = None
    for _ in range(3):
        timers.clear()
        start = time.perf_counter()
        episodes = built.sample(num_timesteps=games * steps_per_game)
        wall = time.perf_counter() - start
        if best is None or wall < best[0]:
            best = (wall, dict(timers), sum(len(e) for e in episodes), len(episodes))
    wall, parts, steps, chunks = best
    label = "RLlib's SingleAgentEnvRunner" if runner == "rllib" else "BatchedEnvRunner"
    lines = [
        f"{label}, {games} games, belief {belief}: {steps:,} env steps ({chunks:,} episode "
        f"chunks) in {wall:.2f} s = {steps / wall:,.0f} steps/s, load "
        f"{os.getloadavg()[0]:.1f}"
    ]
    outer = 0.0
    for _, _, name in PROFILE_PARTS[runner]:
        seconds = parts.get(name, 0.0)
        if name not in ("module forward",) or runner == "rllib":
            outer += seconds
        lines.append(f"  {name:55s} {seconds:6.2f} s {100 * seconds / wall:5.1f}%")
    rest = wall - outer
    what = "per-game episode bookkeeping, callbacks, cut" if runner == "rllib" else "loop, stacking"
    lines.append(f"  {'the rest: ' + what:55s} {rest:6.2f} s {100 * rest / wall:5.1f}%")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=6)
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument(
        "--engines", nargs="+", choices=list(ENGINES), default=["aec", "batched", "batched-runner"]
    )
    parser.add_argument("--envs-per-runner", type=int, default=64, help="batched engine")
    parser.add_argument("--from-json", action="store_true")
    parser.add_argument("--budget-run", help="a finished run to compare at a fixed budget")
    parser.add_argument(
        "--profile", type=int, nargs="+", metavar="GAMES", help="print sampling splits only"
    )
    parser.add_argument("--belief", default="literal", choices=["literal", "policy", "none"])
    args = parser.parse_args()
    if args.profile:
        for games in args.profile:
            for runner in ("rllib", "batched"):
                print("\n".join(profile(games, runner, args.belief)), flush=True)
        return 0
    json_path = ROOT / "results" / "bench" / "rllib_bench.json"
    if args.from_json or args.budget_run:
        data = json.loads(json_path.read_text())
        if args.budget_run:
            data["budget"] = budget(Path(args.budget_run))
            data["budget_command"] = (
                f"python lab/bench/bench_rllib.py --budget-run {args.budget_run}"
            )
            json_path.write_text(json.dumps(data, indent=1) + "\n")
    else:
        out = ROOT / "results" / "runs" / "rllib_bench"
        uptime_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
        settings = [
            run_setting(n, args.iterations, args.batch, out, engine, args.envs_per_runner)
            for engine in args.engines
            for n in args.runners
        ]
        data = {
            "command": "python lab/bench/bench_rllib.py "
            + shlex.join(
                [
                    "--iterations",
                    str(args.iterations),
                    "--runners",
                    *map(str, args.runners),
                    "--batch",
                    str(args.batch),
                    "--engines",
                    *args.engines,
                    "--envs-per-runner",
                    str(args.envs_per_runner),
                ]
            ),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "uptime_before": uptime_before,
            "uptime_after": " ".join(f"{x:.2f}" for x in os.getloadavg()),
            "settings": settings,
            "paper": on_paper(args.batch),
        }
        if json_path.exists():  # the fixed-budget comparison is a separate measurement
            old = json.loads(json_path.read_text())
            data |= {k: old[k] for k in ("budget", "budget_command") if k in old}
        json_path.write_text(json.dumps(data, indent=1) + "\n")
    replace_section(ROOT / "results" / "training" / "training.md", markdown(data), START, END)
    print(markdown(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
