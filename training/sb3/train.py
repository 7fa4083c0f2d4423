"""The Stable-Baselines3 trainer: MaskablePPO on the play, predict and self-play roles.

    python -m shipwreck_training.sb3 --config configs/sb3/play.yaml [key=value ...]
    python -m shipwreck_training.sb3 --resume results/runs/<run> [key=value ...]

Regimes (``regime`` in the config): ``play`` learns the active player's decisions with a
fixed group partner, ``predict`` the group's decisions with a fixed play partner,
``selfplay`` one shared policy for every decision, ``alternating`` a play model and a
predict model trained in turn, each against the latest other one. ``engine`` picks the
environments: ``batched`` (default) steps ``num_games`` games of the batched engine as one
``VecEnv`` (:mod:`shipwreck_training.sb3.vector`), ``reference`` steps ``n_envs``
Gymnasium envs (:mod:`shipwreck_training.sb3.envs`).

A run writes ``results/runs/<name>__<seed>__<time>/``: ``config.yaml`` (resolved),
``command.txt``, ``tb/`` (TensorBoard), ``checkpoints/``, ``eval.jsonl`` (win rate on
every difficulty during training), the final model(s) with ``.meta.json`` and
``summary.json`` (budget, speed without evaluation time, final evaluation). ``--resume``
continues from the latest checkpoint with the optimiser state, step count and wall clock.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

from shipwreck_training.common.run import (
    add_source_arguments,
    evaluate_team,
    fail,
    model_meta,
    record_command,
    start,
)
from shipwreck_training.sb3.config import SB3Config

__all__ = ["main", "train"]

RUNS_DIR = Path("results/runs")
TrainConfig = SB3Config  # the name this module's signatures used before the move


def _meta(cfg: TrainConfig, role: str) -> dict:
    return model_meta(
        cfg.env,
        role=role,
        regime=cfg.regime,
        name=cfg.name,
        seed=cfg.seed,
        trainer="shipwreck_training.sb3",
    )


def _vec_env(cfg: TrainConfig, role: str, partner: str | None, seed_base: int):
    """The run's environments: ``num_games`` batched games (``engine: batched``) or
    ``n_envs`` reference-engine Gymnasium envs."""
    if cfg.engine == "batched":
        from shipwreck_training.sb3.vector import BatchedVecEnv

        return BatchedVecEnv(cfg.env, cfg.num_games, seed_base, role, partner)
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from shipwreck_training.sb3.envs import make_env_fn

    fns = [make_env_fn(cfg.env, role, partner, seed_base + i) for i in range(cfg.n_envs)]
    if cfg.vec_env == "subproc" and cfg.n_envs > 1:
        return SubprocVecEnv(fns, start_method="fork")
    return DummyVecEnv(fns)


def _new_model(cfg: TrainConfig, venv, run_dir: Path):
    from sb3_contrib import MaskablePPO

    p = cfg.ppo
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=p.learning_rate,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        policy_kwargs={"net_arch": list(p.net_arch)},
        tensorboard_log=str(run_dir / "tb"),
        seed=cfg.seed,
        device="cpu",
        verbose=0,
    )
    _fast_update(cfg, model)
    return model


def _fast_update(cfg: TrainConfig, model) -> None:
    """The faster update where the config asks for it (``ppo.fast_update``)."""
    if cfg.ppo.fast_update:
        from shipwreck_training.sb3.distribution import use_fast_update

        use_fast_update(model)


def _latest_checkpoint(directory: Path) -> Path | None:
    found = (
        sorted(directory.glob("model_*_steps.zip"), key=lambda p: int(p.stem.split("_")[1]))
        if directory.exists()
        else []
    )
    return found[-1] if found else None


def _belief_evaluation(cfg: TrainConfig, spec: str, games: int) -> dict:
    """Self-play report of the model ``ppo:PATH`` trained with the policy-conditioned
    belief, which the ``ppo:`` loader does not compute: greedy on the batched engine with
    the belief (:func:`shipwreck_training.common.greedy_eval.evaluate_greedy`, seed
    ``seed + 10000``, as the reference evaluation's)."""
    import tempfile

    from sb3_contrib import MaskablePPO

    from shipwreck_agents.learned.actor_critic import load_sb3
    from shipwreck_training.common.greedy_eval import evaluate_greedy

    path = Path(spec.removeprefix("ppo:"))
    with tempfile.TemporaryDirectory() as tmp:
        MaskablePPO.load(str(path), device="cpu").policy.save(f"{tmp}/policy.pth")
        net = load_sb3(f"{tmp}/policy.pth")
    results = evaluate_greedy(
        net,
        cfg.env,
        games=games,
        seed=cfg.eval.seed_for(cfg.seed),
        difficulties=cfg.eval.difficulties,
    )
    return {
        "evaluator": "batched engine, greedy, policy belief",
        "team": f"fast:{path.stem}",
        "games": games,
        "results": results,
    }


def _evaluator(cfg: TrainConfig, games: int):
    """``(play_spec, group_spec) -> report`` with the run's game settings."""

    def run(play: str, group: str) -> dict:
        if cfg.env.belief == "policy":  # self-play: play and group are the same model
            return _belief_evaluation(cfg, play, games)
        return evaluate_team(
            cfg.env,
            play,
            group,
            difficulties=cfg.eval.difficulties,
            games=games,
            seed=cfg.eval.seed_for(cfg.seed),
            jobs=cfg.eval.jobs,
        )

    return run


def _team(cfg: TrainConfig, model_path: Path) -> tuple[str, str]:
    spec = f"ppo:{model_path}"
    if cfg.regime == "play":
        return spec, cfg.partner
    if cfg.regime == "predict":
        return cfg.partner, spec
    return spec, spec


class _Clock:
    """Wall-clock seconds of training, kept across resumes in ``<run>/clock.json``."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / "clock.json"
        data = json.loads(self.path.read_text()) if self.path.exists() else {}
        self.before = float(data.get("wall_seconds", 0.0))
        self.start = time.time()

    def total(self) -> float:
        return self.before + time.time() - self.start

    def save(self, steps: int) -> None:
        self.path.write_text(json.dumps({"wall_seconds": self.total(), "steps": steps}))


def _learn(
    model, steps: int, callbacks: list, reset: bool, clock: _Clock, checkpoint_dir: Path
) -> None:
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList

    class SaveClock(BaseCallback):
        def _on_step(self) -> bool:
            if checkpoint_dir.exists() and self.n_calls % 1000 == 0:
                clock.save(self.num_timesteps)
            return True

    model.learn(
        steps,
        callback=CallbackList([*callbacks, SaveClock()]),
        reset_num_timesteps=reset,
        tb_log_name="ppo",
    )
    clock.save(model.num_timesteps)


def _load_model(cfg: TrainConfig, path: Path, venv, run_dir: Path):
    """A saved model, ready to continue learning on ``venv`` and logging into the run."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(path), env=venv, device="cpu", tensorboard_log=str(run_dir / "tb"))
    _fast_update(cfg, model)
    return model


def _warm_start(cfg: TrainConfig, model, role: str, run_dir: Path) -> None:
    """Fit the fresh policy to a scripted team's choices (``imitation`` settings)."""
    from shipwreck_training.sb3.imitation import collect, pretrain

    imitation = cfg.imitation
    start = time.time()
    data = collect(cfg.env, role, imitation.play, imitation.group, imitation.games, cfg.seed)
    losses = pretrain(
        model, data, imitation.epochs, imitation.minibatch_size, imitation.learning_rate, cfg.seed
    )
    record = {
        "team": f"{imitation.play}+{imitation.group}",
        "games": imitation.games,
        "decisions": len(data["actions"]),
        "losses": losses,
        "seconds": time.time() - start,
    }
    (run_dir / "imitation.json").write_text(json.dumps(record, indent=2))


def _train_single(cfg: TrainConfig, run_dir: Path, resume: bool) -> dict:
    from shipwreck_training.sb3.callbacks import (
        CheckpointWithMeta,
        ProgressBar,
        WinRateEval,
        save_with_meta,
    )
    from shipwreck_training.sb3.envs import role_of

    role = role_of(cfg.regime)
    partner = cfg.partner if cfg.regime in ("play", "predict") else None
    venv = _vec_env(cfg, role, partner, cfg.seed * 1000)
    meta = _meta(cfg, role)
    checkpoints = run_dir / "checkpoints"
    latest = _latest_checkpoint(checkpoints) if resume else None
    evaluate_games = _evaluator(cfg, cfg.eval.games)
    evaluator = WinRateEval(
        run_dir,
        cfg.eval.every,
        meta,
        lambda path, steps: evaluate_games(*_team(cfg, path)),
        cfg.regime,
    )
    if latest is not None:
        model = _load_model(cfg, latest, venv, run_dir)
    else:
        model = _new_model(cfg, venv, run_dir)
    if cfg.env.belief == "policy":  # the env asks the policy being trained
        from shipwreck_training.sb3.vector import PolicyLogits

        venv.use_model(lambda: PolicyLogits(model.policy))
    if latest is None and cfg.imitation.games:
        _warm_start(cfg, model, role, run_dir)
        evaluator.model = model  # the curve starts where imitation left the policy
        evaluator.run_eval()
    callbacks = [
        CheckpointWithMeta(checkpoints, cfg.checkpoint_every, meta),
        evaluator,
        ProgressBar(cfg.total_timesteps, evaluator, cfg.name),
    ]
    clock = _Clock(run_dir)
    remaining = cfg.total_timesteps - model.num_timesteps
    if remaining > 0:
        _learn(model, remaining, callbacks, latest is None, clock, checkpoints)
    venv.close()
    final = save_with_meta(model, run_dir / "final_model.zip", meta)
    if cfg.env.belief == "policy":  # `fast:final_model.pth` plays it with its belief
        model.policy.save(str(final.with_suffix(".pth")))
    report = _final_evaluation(cfg, *_team(cfg, final))
    return _summary(cfg, run_dir, int(model.num_timesteps), clock, report, {"model": final.name})


def _saved_timesteps(path: Path) -> int:
    """Training steps recorded in a saved SB3 model (its ``data`` entry), without
    loading the networks."""
    with zipfile.ZipFile(path) as archive:
        return int(json.loads(archive.read("data"))["num_timesteps"])


def _logged_labels(run_dir: Path) -> set[str]:
    """Labels of the evaluations already in ``eval.jsonl``."""
    path = run_dir / "eval.jsonl"
    if not path.exists():
        return set()
    return {json.loads(line).get("label", "") for line in path.read_text().splitlines() if line}


def _train_alternating(cfg: TrainConfig, run_dir: Path, resume: bool) -> dict:
    from shipwreck_training.sb3.callbacks import CheckpointWithMeta, ProgressBar, save_with_meta

    rounds = cfg.alternating.rounds
    per_phase = max(1, cfg.total_timesteps // (2 * rounds))
    clock = _Clock(run_dir)
    evaluate_games = _evaluator(cfg, cfg.eval.games)
    done_steps = {"play": 0, "predict": 0}
    for r in range(rounds):
        for kind in ("play", "predict"):
            tag = f"{kind}_{r}"
            final_path = run_dir / f"{tag}.zip"
            target = (r + 1) * per_phase
            if final_path.exists():  # finished before an interruption
                done_steps[kind] = _saved_timesteps(final_path)
                continue
            if kind == "play":
                partner = (
                    cfg.alternating.first_partner_group
                    if r == 0
                    else f"ppo:{run_dir / f'predict_{r - 1}.zip'}"
                )
            else:
                partner = f"ppo:{run_dir / f'play_{r}.zip'}"
            meta = _meta(cfg, kind)
            venv = _vec_env(
                cfg, kind, partner, cfg.seed * 1000 + 100 * r + (0 if kind == "play" else 50)
            )
            checkpoints = run_dir / "checkpoints" / tag
            latest = _latest_checkpoint(checkpoints) if resume else None
            previous = run_dir / f"{kind}_{r - 1}.zip"
            if latest is not None:
                model = _load_model(cfg, latest, venv, run_dir)
            elif r > 0:
                model = _load_model(cfg, previous, venv, run_dir)
            else:
                model = _new_model(cfg, venv, run_dir)
            callbacks = [
                CheckpointWithMeta(checkpoints, cfg.checkpoint_every, meta),
                ProgressBar(target, None, f"{cfg.name} {tag}"),
            ]
            remaining = target - model.num_timesteps
            if remaining > 0:
                _learn(model, remaining, callbacks, False, clock, checkpoints)
            venv.close()
            save_with_meta(model, final_path, meta)
            done_steps[kind] = int(model.num_timesteps)
        if f"round {r}" in _logged_labels(run_dir):  # evaluated before an interruption
            continue
        start = time.perf_counter()
        report = evaluate_games(
            f"ppo:{run_dir / f'play_{r}.zip'}", f"ppo:{run_dir / f'predict_{r}.zip'}"
        )
        seconds = time.perf_counter() - start
        with open(run_dir / "eval.jsonl", "a") as fh:
            fh.write(
                json.dumps(
                    {
                        "label": f"round {r}",
                        "steps": sum(done_steps.values()),
                        "wall_seconds": clock.total(),
                        "eval_seconds": seconds,
                        "win_rate": {d: x["win_rate"] for d, x in report["results"].items()},
                        "report": report,
                    }
                )
                + "\n"
            )
    last = rounds - 1
    final = _final_evaluation(
        cfg, f"ppo:{run_dir / f'play_{last}.zip'}", f"ppo:{run_dir / f'predict_{last}.zip'}"
    )
    return _summary(
        cfg,
        run_dir,
        sum(done_steps.values()),
        clock,
        final,
        {"play_model": f"play_{last}.zip", "predict_model": f"predict_{last}.zip"},
    )


def _final_evaluation(cfg: TrainConfig, play: str, group: str) -> dict:
    """The final evaluation, announced; its report with ``seconds`` added."""
    where = "the batched engine" if cfg.env.belief == "policy" else "the reference engine"
    print(
        f"final evaluation: {cfg.eval.final_games} games per difficulty "
        f"({', '.join(cfg.eval.difficulties)}) on {where} ...",
        flush=True,
    )
    start = time.perf_counter()
    report = _evaluator(cfg, cfg.eval.final_games)(play, group)
    return {**report, "seconds": time.perf_counter() - start}


def _evaluation_seconds(run_dir: Path) -> float:
    """Seconds spent in the evaluations logged in ``eval.jsonl`` (all segments)."""
    path = run_dir / "eval.jsonl"
    if not path.exists():
        return 0.0
    lines = [json.loads(line) for line in path.read_text().splitlines() if line]
    return sum(float(x.get("eval_seconds", 0.0)) for x in lines)


def _summary(
    cfg: TrainConfig, run_dir: Path, steps: int, clock: _Clock, report: dict, models: dict
) -> dict:
    wall = clock.total()
    evaluating = _evaluation_seconds(run_dir) + report.get("seconds", 0.0)
    training = max(wall - evaluating, 1e-9)
    summary = {
        "name": cfg.name,
        "regime": cfg.regime,
        "seed": cfg.seed,
        "steps": steps,
        "wall_seconds": wall,
        "eval_seconds": evaluating,
        "steps_per_second": steps / training,  # evaluations not counted
        "models": models,
        "final_eval": report,
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def train(cfg: TrainConfig, run_dir: Path, resume: bool = False) -> dict:
    """Run (or resume) training into ``run_dir``; returns the summary."""
    import torch

    torch.set_num_threads(1)  # the environments use the other core(s)
    if cfg.total_timesteps < cfg.rollout_size:
        print(
            f"warning: total_timesteps {cfg.total_timesteps} is smaller than one rollout "
            f"({cfg.rollout_size} steps: ppo.n_steps x "
            f"{'num_games' if cfg.engine == 'batched' else 'n_envs'}); SB3 collects whole "
            f"rollouts, so the run takes {cfg.rollout_size} steps",
            file=sys.stderr,
        )
    if cfg.regime == "alternating":
        return _train_alternating(cfg, run_dir, resume)
    return _train_single(cfg, run_dir, resume)


def main(argv: Sequence[str] | None = None, prog: str = "shipwreck_training.sb3") -> int:
    """Command-line entry point (``python -m shipwreck_training.sb3``)."""
    parser = argparse.ArgumentParser(prog=f"python -m {prog}", description=__doc__.splitlines()[0])
    add_source_arguments(parser, "configs/sb3/*.yaml")
    parser.add_argument("--runs-dir", default=str(RUNS_DIR), help="where new runs go")
    args = parser.parse_args(argv)
    overrides = list(args.overrides)
    saved = Path(args.resume or "") / "config.yaml"
    if args.resume and saved.is_file() and "engine:" not in saved.read_text():
        overrides.insert(0, "engine=reference")  # a run from before the batched engine
    try:
        cfg, run_dir = start(SB3Config, args.config, args.resume, overrides, args.runs_dir)
    except ValueError as exc:
        return fail(str(exc))
    record_command(run_dir, prog, argv)
    print(f"run directory: {run_dir}")
    summary = train(cfg, run_dir, resume=bool(args.resume))
    print(json.dumps({k: v for k, v in summary.items() if k != "final_eval"}, indent=2))
    for difficulty, r in summary["final_eval"]["results"].items():
        low, high = r["win_rate_ci95"]
        print(f"{difficulty}: win rate {r['win_rate']:.3f} [{low:.3f}, {high:.3f}]")
    return 0
