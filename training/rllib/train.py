"""Multi-agent PPO on Ray RLlib (new API stack): one shared masked policy for every seat.

    python -m shipwreck_training.rllib --config configs/rllib/selfplay.yaml \\
        [--address auto|HOST:PORT] [--num-env-runners N] [--iterations K] [key=value ...]
    python -m shipwreck_training.rllib --resume results/runs/rllib/<run> [--iterations K]

Without ``--address`` (and without ``ray.address`` in the config) a local Ray starts
with ``ray.num_cpus`` CPUs and no dashboard; with it, the run joins a running cluster
(``ray start --head`` on one machine, ``ray start --address=HEAD:6379`` on the others;
docs/training-rllib.md). The environment reaches the workers through Ray's
registry (``shipwreck_training.rllib.env.register``); the RLModule is
``shipwreck_training.rllib.module.ShipwreckRLModule`` (masking inside it); the seats map to
modules by ``multi_agent.policy_mapping``. With ``engine: batched`` a single-agent
runner steps the batched engine's vector env instead
(:mod:`shipwreck_training.rllib.vector_env`, one module ``default_policy`` for every seat):
by default this trainer's numpy runner (:mod:`shipwreck_training.rllib.runner`,
``env_runners.runner: batched``), or RLlib's own (``env_runners.runner: rllib``).

A run directory ``<output_dir>/<name>__<seed>__<time>/`` gets ``config.yaml``,
``command.txt``, ``progress.jsonl`` (one line per iteration: env steps, steps/s, mean
episode return, seconds, load average), ``checkpoints/iter_NNNNNN/`` (RLlib's own
algorithm checkpoint plus ``shipwreck_policy.json``), ``checkpoints/latest`` (the
newest one's name) and, with ``eval.games``, ``eval.json`` (``shipwreck_agents.evaluation.evaluate`` with
``rllib:`` the last checkpoint in every seat). ``--resume`` restores the latest
checkpoint (weights, optimiser, env runners' connector state) and trains on to
``iterations``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_training.common.run import evaluate_team, fail, record_command
from shipwreck_training.rllib.config import RLlibConfig, env_config, load_config, runner_of

__all__ = [
    "SeatMapping",
    "algorithm_config",
    "evaluate_checkpoint",
    "main",
    "segment_seed",
    "train",
]


@dataclass(frozen=True)
class SeatMapping:
    """RLlib's ``policy_mapping_fn``: seat name -> module id (``default`` for the rest).
    A frozen dataclass at module level, so it pickles to the env runners."""

    mapping: tuple[tuple[str, str], ...]

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        table = dict(self.mapping)
        return table.get(agent_id, table["default"])


def segment_seed(seed: int, iteration: int) -> int:
    """RLlib's seed for a run (``iteration`` 0) or for its part resumed after
    ``iteration``: a resumed run does not replay its first games (RLlib's env runners
    restart their random streams from the configured seed)."""
    if iteration == 0:
        return seed
    return int(np.random.SeedSequence(seed, spawn_key=(iteration,)).generate_state(1)[0])


def _training(cfg: RLlibConfig):
    """``PPOConfig`` with the run's PPO settings, learners and seed (no env, no module)."""
    from ray.rllib.algorithms.ppo import PPOConfig

    ppo = cfg.ppo
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .learners(num_learners=cfg.learners.num_learners)
        .training(
            lr=ppo.lr,
            gamma=ppo.gamma,
            lambda_=ppo.lambda_,
            clip_param=ppo.clip_param,
            entropy_coeff=ppo.entropy_coeff,
            vf_loss_coeff=ppo.vf_loss_coeff,
            grad_clip=ppo.grad_clip,
            train_batch_size_per_learner=ppo.train_batch_size_per_learner,
            minibatch_size=ppo.minibatch_size,
            num_epochs=ppo.num_epochs,
        )
    )


def algorithm_config(cfg: RLlibConfig, iteration: int = 0):
    """The ``PPOConfig`` of a run (new API stack; nothing started yet), seeded by
    :func:`segment_seed` for a run resumed after ``iteration``."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from shipwreck_training.rllib.env import BATCHED_ENV_NAME, ENV_NAME
    from shipwreck_training.rllib.module import ShipwreckRLModule

    ma, runners = cfg.multi_agent, cfg.env_runners

    def spec() -> RLModuleSpec:  # one object per module: RLlib fills in its spaces
        return RLModuleSpec(
            module_class=ShipwreckRLModule, model_config={"hidden": list(cfg.ppo.hidden)}
        )

    sampling = {
        "num_env_runners": runners.num_env_runners,
        "num_envs_per_env_runner": runners.num_envs_per_env_runner,
        "rollout_fragment_length": runners.rollout_fragment_length,
        "sample_timeout_s": runners.sample_timeout_s,
        "num_cpus_per_env_runner": 1,
    }
    config = _training(cfg).debugging(seed=segment_seed(cfg.seed, iteration))
    if cfg.engine == "batched":
        runner = None  # RLlib's SingleAgentEnvRunner
        if runner_of(cfg) == "batched":  # numpy arrays for a whole rollout (rllib/runner.py)
            from shipwreck_training.rllib.runner import BatchedEnvRunner as runner
        if (
            cfg.env.belief == "policy"
        ):  # each env asks its runner's module (rllib/belief_callback.py)
            from shipwreck_training.rllib.belief_callback import BeliefCallback

            config = config.callbacks(BeliefCallback)
        return (
            # discrete actions: RLlib's unsquash/clip connector would only copy them
            config.environment(
                BATCHED_ENV_NAME, env_config=env_config(cfg), normalize_actions=False
            )
            # the runner builds the batched engine's vector env itself (one call steps
            # every game) instead of wrapping copies of a single env
            .env_runners(
                **sampling, gym_env_vectorize_mode="vector_entry_point", env_runner_cls=runner
            )
            .rl_module(rl_module_spec=spec())
        )
    return (
        # RLlib's checker steps random actions, which are illegal here: off.
        config.environment(ENV_NAME, env_config=env_config(cfg), disable_env_checking=True)
        .env_runners(**sampling)
        .multi_agent(
            policies=set(ma.policies),
            policy_mapping_fn=SeatMapping(tuple(sorted(ma.policy_mapping.items()))),
            policies_to_train=list(ma.policies),
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: spec() for m in ma.policies})
        )
    )


def _init_ray(cfg: RLlibConfig) -> None:
    import ray

    if ray.is_initialized():  # a caller's (the tests') Ray
        return
    if cfg.ray.address:
        _join_cluster(cfg.ray.address)
    else:
        # address="local": a new Ray of our own, even where `ray start` runs on this
        # machine (ray.init() alone would join that one, and fail on num_cpus)
        ray.init(address="local", num_cpus=cfg.ray.num_cpus, include_dashboard=False)


def _join_cluster(address: str) -> None:
    """Connect to the Ray cluster at ``address``; ``ValueError`` (one line) if nothing
    answers there. A HOST:PORT is first asked over TCP (Ray itself retries a refused
    port for minutes); Ray's own retry messages (one per second until it gives up, about
    20 s for a port that answers but is no Ray head) go to a temporary
    file instead of the terminal, since they come from Ray's C++ core (file descriptor
    2), and are shown only if the failure is not a connection error."""
    import socket
    import tempfile

    import ray

    refused = ValueError(
        f"ray.address {address!r} does not answer; allowed: auto (a cluster started on "
        "this machine by `ray start --head`) or the HOST:PORT of a running Ray head "
        "(`ray start --head` prints it), or no address for a local Ray"
    )
    host, sep, port = address.rpartition(":")
    if sep and port.isdigit():  # Ray retries a refused port for minutes: ask first
        try:
            socket.create_connection((host, int(port)), timeout=10).close()
        except OSError:
            raise refused from None
    with tempfile.TemporaryFile() as log:
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)
        try:
            ray.init(address=address)
        except ConnectionError:
            raise refused from None
        except BaseException:
            os.dup2(saved, 2)
            log.seek(0)
            sys.stderr.write(log.read().decode(errors="replace"))
            raise
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _policy_meta(cfg: RLlibConfig, iteration: int, env_steps: int) -> dict:
    from shipwreck_agents.learned.sb3 import game_meta

    game = cfg.env.game_config()
    layout = ObservationLayout.for_config(game, cfg.env.belief_block)
    return {
        # RLlib's single-agent runner names its one module "default_policy"
        "module": cfg.multi_agent.play_policy if cfg.engine == "aec" else "default_policy",
        "role": "self",  # one module decides for every seat and role (the table's make_team: both)
        "obs_dim": layout.size,
        "num_actions": NUM_ACTIONS,
        "hidden": list(cfg.ppo.hidden),
        "game": game_meta(game, cfg.env.belief_block),
        "iteration": iteration,
        "env_steps": env_steps,
        "trainer": "shipwreck_training.rllib (ray[rllib] new API stack, PPO)",
    }


def _save(algo, cfg: RLlibConfig, run_dir: Path, iteration: int, env_steps: int) -> Path:
    path = run_dir / "checkpoints" / f"iter_{iteration:06d}"
    algo.save_to_path(str(path.resolve()))
    meta = _policy_meta(cfg, iteration, env_steps)
    from shipwreck_agents.learned.rllib import META_FILE  # torch: loaded once training starts

    (path / META_FILE).write_text(json.dumps(meta, indent=1) + "\n")
    (run_dir / "checkpoints" / "latest").write_text(path.name + "\n")
    return path


def _latest(run_dir: Path) -> Path | None:
    latest = run_dir / "checkpoints" / "latest"
    return run_dir / "checkpoints" / latest.read_text().strip() if latest.is_file() else None


def _stat(result: dict, *path: str, default: float = 0.0) -> float:
    node: Any = result
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    try:
        value = float(node)
    except (TypeError, ValueError):
        return default
    return default if math.isnan(value) else value


def train(cfg: RLlibConfig, run_dir: Path, log=print) -> dict:
    """Train (or continue) the run in ``run_dir`` to ``cfg.iterations``; returns
    ``{"checkpoint", "iteration", "env_steps", "eval"}``."""
    import torch

    from shipwreck_training.rllib.env import register

    torch.set_num_threads(cfg.torch_threads)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    _init_ray(cfg)
    register()
    iteration, env_steps = 0, 0
    checkpoint = _latest(run_dir)
    if checkpoint is not None:
        from shipwreck_agents.learned.rllib import META_FILE

        meta = json.loads((checkpoint / META_FILE).read_text())
        iteration, env_steps = meta["iteration"], meta["env_steps"]
    algo = algorithm_config(cfg, iteration).build_algo()
    try:
        if checkpoint is not None:
            algo.restore_from_path(str(checkpoint.resolve()))
            log(f"resumed from {checkpoint} (iteration {iteration}, {env_steps} env steps)")
        while iteration < cfg.iterations:
            start = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - start
            iteration += 1
            steps = int(_stat(result, "env_runners", "num_env_steps_sampled"))
            env_steps += steps
            row = {
                "iteration": iteration,
                "env_steps": env_steps,
                "steps_per_s": steps / seconds if seconds else 0.0,
                "seconds": seconds,
                "episode_return_mean": _stat(
                    result, "env_runners", "episode_return_mean", default=float("nan")
                ),
                "episodes": int(_stat(result, "env_runners", "num_episodes")),
                "load_average": os.getloadavg()[0],
                "timers": {
                    k: v for k, v in result.get("timers", {}).items() if isinstance(v, int | float)
                },
            }
            with (run_dir / "progress.jsonl").open("a") as f:
                f.write(json.dumps(row) + "\n")
            log(
                f"iteration {iteration}/{cfg.iterations}: {env_steps} env steps, "
                f"{row['steps_per_s']:.0f} steps/s, return {row['episode_return_mean']:.3f}, "
                f"load {row['load_average']:.1f}"
            )
            if iteration % cfg.checkpoint_every == 0 or iteration == cfg.iterations:
                checkpoint = _save(algo, cfg, run_dir, iteration, env_steps)
                log(f"checkpoint {checkpoint}")
    finally:
        algo.stop()
    report = None
    if cfg.eval.games and checkpoint is not None:
        report = evaluate_checkpoint(cfg, checkpoint)
        (run_dir / "eval.json").write_text(json.dumps(report, indent=1) + "\n")
        for difficulty, summary in report["results"].items():
            log(f"eval {difficulty}: win rate {summary['win_rate']:.3f} over {summary['games']}")
    return {
        "checkpoint": str(checkpoint) if checkpoint else None,
        "iteration": iteration,
        "env_steps": env_steps,
        "eval": report,
    }


def evaluate_checkpoint(cfg: RLlibConfig, checkpoint: Path, games: int | None = None) -> dict:
    """``shipwreck_agents.evaluation.evaluate`` with the checkpoint's policy in every seat (``rllib:PATH``).

    A network trained with the policy-conditioned belief needs that belief at play time,
    which the ``rllib:`` loader does not compute: it is evaluated greedily on the batched
    engine with the belief instead, by the trainers' shared evaluator
    (:func:`shipwreck_training.common.greedy_eval.evaluate_greedy`, held-out ``eval.seed``),
    and the report says so (``"evaluator"``)."""
    n = cfg.eval.games if games is None else games
    if cfg.env.belief == "policy":
        from shipwreck_agents.learned.rllib import load_network
        from shipwreck_training.common.greedy_eval import evaluate_greedy

        net, _ = load_network(checkpoint)
        results = evaluate_greedy(
            net, cfg.env, games=n, seed=cfg.eval.seed, difficulties=cfg.eval.difficulties
        )
        return {"evaluator": "batched engine, greedy, policy belief", "results": results}
    spec = f"rllib:{checkpoint}"
    return evaluate_team(
        cfg.env, spec, spec, difficulties=cfg.eval.difficulties, games=n, seed=cfg.eval.seed
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m shipwreck_training.rllib",
        description="Multi-agent PPO on Ray RLlib: one shared masked policy for every seat.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help="YAML config (configs/rllib/selfplay.yaml)")
    source.add_argument(
        "--resume", metavar="RUN_DIR", help="continue a run from its latest checkpoint"
    )
    parser.add_argument(
        "--address", help="join a Ray cluster: auto or HOST:PORT (default: local Ray)"
    )
    parser.add_argument(
        "--num-env-runners", type=int, help="sampling actors (env_runners.num_env_runners)"
    )
    parser.add_argument("--iterations", type=int, help="train to this many iterations in all")
    parser.add_argument("--output-dir", help="parent of the run directory (output_dir)")
    parser.add_argument("overrides", nargs="*", help="dotted key=value, e.g. ppo.lr=1e-4")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    overrides = list(args.overrides)
    if args.address is not None:
        overrides.append(f"ray.address={args.address}")
    if args.num_env_runners is not None:
        overrides.append(f"env_runners.num_env_runners={args.num_env_runners}")
    if args.iterations is not None:
        overrides.append(f"iterations={args.iterations}")
    if args.output_dir is not None:
        overrides.append(f"output_dir={args.output_dir}")
    try:
        if args.resume:
            run_dir = Path(args.resume)
            if not (run_dir / "config.yaml").is_file():
                raise ValueError(f"{str(run_dir)!r} is not a run directory (no config.yaml)")
            cfg = load_config(run_dir / "config.yaml", overrides)
        else:
            cfg = load_config(args.config, overrides)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            run_dir = Path(cfg.output_dir) / f"{cfg.name}__{cfg.seed}__{stamp}"
        if cfg.ray.address:  # before anything is written: a cluster that does not answer
            _init_ray(cfg)
    except ValueError as exc:
        return fail(str(exc))
    run_dir.mkdir(parents=True, exist_ok=True)
    record_command(run_dir, "shipwreck_training.rllib", argv)
    print(f"run directory {run_dir}")
    train(cfg, run_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
