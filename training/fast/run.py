"""Command line of the fast trainer: start, continue and finish a run.

    python -m shipwreck_training.fast --config configs/fast/selfplay.yaml [key=value ...]
    python -m shipwreck_training.fast --resume results/runs/fast/<run> [--stop-after STEPS]
    python -m shipwreck_training.fast --export results/runs/fast/<run> --to results/models/<name>.pth
    python -m shipwreck_training.fast --evaluate results/runs/fast/<run> [--games N]

See :mod:`shipwreck_training.fast.ppo` for what a run writes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_training.common.config import read_yaml
from shipwreck_training.common.run import (
    fail,
    model_meta,
    progress_bar,
    record_command,
    start,
    win_rates,
)
from shipwreck_training.fast.config import FastConfig, from_dict

if TYPE_CHECKING:  # torch and torchrl load in seconds: a bad config is refused first
    from shipwreck_agents.learned.actor_critic import ActorCritic
    from shipwreck_training.fast.ppo import Trainer

__all__ = [
    "ROLES",
    "Interrupted",
    "evaluate_checkpoint",
    "evaluate_network",
    "export_checkpoint",
    "main",
    "meta",
    "spec_of",
    "train",
]

RUNS_DIR = Path("results/runs/fast")
ROLES = {"selfplay": "self", "play": "play", "predict": "predict"}
"""The ``role`` a shipped model's ``.meta.json`` names, per regime."""


def spec_of(cfg: FastConfig, path: Path) -> str:
    """The policy spec that plays an exported model as trained: ``fast:`` (the team that
    computes the policy-conditioned belief, agents/learned/fast_team.py) or ``ppo:``."""
    return f"{'fast' if cfg.env.belief == 'policy' else 'ppo'}:{path}"


def meta(cfg: FastConfig, spec: str) -> dict:
    """The ``.meta.json`` of a run's exported model (the game it learned,
    :func:`shipwreck_training.common.run.model_meta`, then the fast trainer's own keys)."""
    info = model_meta(
        cfg.env,
        role=ROLES[cfg.regime],
        regime=cfg.regime,
        partner=cfg.partner,
        name=cfg.name,
        seed=cfg.seed,
        trainer="shipwreck_training.fast",
        spec=spec,
    )
    info["belief_kind"] = cfg.belief_kind  # policy_carry is the fast trainer's own
    if cfg.belief_after_play:  # only when on: the metas of every other run stay as they were
        info["belief_after_play"] = True
    if cfg.obl.on:  # what its group's targets were grounded in (training/fast/obl.py)
        info["obl_grounding"] = cfg.obl.grounding
    return info


def _episode_figures(episodes: list[tuple[str, bool, int, int]]) -> dict[str, float]:
    by: dict[str, list[tuple[bool, int, int]]] = defaultdict(list)
    for difficulty, won, score, doom in episodes:
        by[difficulty].append((won, score, doom))
    out = {}
    for difficulty, rows in by.items():
        out[f"train_win/{difficulty}"] = sum(r[0] for r in rows) / len(rows)
        out[f"train_score/{difficulty}"] = sum(r[1] for r in rows) / len(rows)
    return out


def train(cfg: FastConfig, run_dir: Path, resume: bool = False, stop_after: int = 0) -> Trainer:
    """Train (or continue) the run in ``run_dir`` until ``total_steps``, or until
    ``stop_after`` learner steps in this call (0: no limit), checkpointing on the way.

    Raises:
        Interrupted: Ctrl-C (the trainer's processes stopped, the last checkpoint kept).
    """
    from shipwreck_training.fast.ppo import Trainer

    trainer = None
    try:
        trainer = Trainer(cfg, run_dir)  # seconds of set-up: a Ctrl-C may land in it too
        _run(trainer, resume, stop_after)
    except KeyboardInterrupt:
        if trainer is None:  # workers it had started stop with their finalizers
            raise Interrupted(run_dir, 0) from None
        trainer.close()
        raise Interrupted(run_dir, trainer.global_step) from None
    return trainer


def _run(trainer: Trainer, resume: bool, stop_after: int) -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    cfg, run_dir = trainer.cfg, trainer.run_dir
    checkpoints = run_dir / "checkpoints"
    checkpoints.mkdir(parents=True, exist_ok=True)
    if not resume:
        (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    latest = checkpoints / "latest.pt"
    if resume:
        trainer.load_state_dict(torch.load(latest, weights_only=False))
    elif cfg.imitation.steps:
        from shipwreck_training.fast.imitation import imitate

        record = imitate(trainer, cfg.imitation)
        trainer.write_json("imitation", record)
    writer = SummaryWriter(str(run_dir / "tb"))
    try:
        _loop(trainer, writer, stop_after)
        if trainer.global_step >= cfg.total_steps:
            trainer.finish()  # overlap: learn from the last rollout too
        trainer.save(latest)
        trainer.close()
        if trainer.global_step >= cfg.total_steps:
            _finish(trainer, writer)
        else:
            print(
                f"stopped at {trainer.global_step:,} of {cfg.total_steps:,} learner steps; "
                f"continue with: python -m shipwreck_training.fast --resume {run_dir}",
                flush=True,
            )
    finally:
        writer.close()


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run (its last checkpoint stays as it was written).

    Args:
        run_dir: the run folder.
        step: the learner steps reached when it stopped.
    """

    def __init__(self, run_dir: Path, step: int) -> None:
        super().__init__(run_dir, step)
        self.run_dir, self.step = run_dir, step

    def message(self) -> str:
        """One line: where the run stopped, its last checkpoint and how to continue."""
        latest = self.run_dir / "checkpoints" / "latest.pt"
        if not latest.is_file():
            return (
                f"interrupted at {self.step:,} learner steps, before the first checkpoint: "
                f"nothing to resume in {self.run_dir}"
            )
        import torch

        saved = torch.load(latest, weights_only=False, mmap=True)["global_step"]
        return (
            f"interrupted at {self.step:,} learner steps; last checkpoint {latest} "
            f"({saved:,} steps); continue with: python -m shipwreck_training.fast "
            f"--resume {self.run_dir}"
        )


def _loop(trainer: Trainer, writer, stop_after: int) -> None:
    """Updates, progress, evaluations and checkpoints until the run's end or
    ``stop_after`` learner steps in this call."""
    start_step, start_wall = trainer.global_step, trainer.wall
    bar = progress_bar(trainer.cfg.total_steps, trainer.global_step, trainer.cfg.name)
    try:
        _updates(trainer, writer, bar, stop_after, start_step, start_wall)
    finally:
        bar.close()


def _updates(trainer: Trainer, writer, bar, stop_after: int, start_step: int, start_wall: float):
    cfg = trainer.cfg
    latest = trainer.run_dir / "checkpoints" / "latest.pt"
    last_eval = ""
    next_ckpt = (trainer.global_step // cfg.checkpoint_every + 1) * cfg.checkpoint_every
    every = cfg.eval.every
    next_eval = (trainer.global_step // every + 1) * every if every else None
    while trainer.global_step < cfg.total_steps:
        if stop_after and trainer.global_step - start_step >= stop_after:
            break
        stats = trainer.train_step()
        step = trainer.global_step
        figures = {**stats, **_episode_figures(trainer.episodes), "wall": trainer.wall}
        figures["load1"] = os.getloadavg()[0]  # the machine is shared: speeds need it
        trainer.episodes.clear()
        for key, value in figures.items():
            writer.add_scalar(key if "/" in key else f"train/{key}", value, step)
        trainer.write_json("progress", {"step": step, **figures})
        if next_eval is not None and step >= next_eval:
            last_eval = win_rates(_evaluate(trainer, writer, cfg.eval.games)["results"])
            next_eval += every
        if step >= next_ckpt:
            trainer.save(latest)
            next_ckpt += cfg.checkpoint_every
        sps = (step - start_step) / max(trainer.wall - start_wall, 1e-9)  # no evaluations
        bar.set_postfix_str(f"{sps:,.0f} steps/s" + (f", win {last_eval}" if last_eval else ""))
        bar.update(step - bar.n)


def evaluate_network(
    model: ActorCritic, cfg: FastConfig, games: int | None = None, seed: int | None = None
) -> dict[str, dict]:
    """Greedy evaluation of a fast-trained network, read from its config: per difficulty
    of ``cfg.eval``, games, wins, win rate with a 95% interval, mean score and doom, and
    games cut at ``max_turns`` (``games`` and ``seed`` override the config's
    ``eval.games`` and ``eval.seed``, never a training seed; the scripted partner keeps
    ``eval.seed``). The evaluation itself is
    :func:`shipwreck_training.common.greedy_eval.evaluate_greedy`, shared with the other
    trainers; this reads a :class:`FastConfig`'s game, ``eval`` section, regime and
    partner."""
    from shipwreck_training.common.greedy_eval import evaluate_greedy

    return evaluate_greedy(
        model,
        cfg.env,
        games=games or cfg.eval.games,
        seed=cfg.eval.seed if seed is None else seed,
        difficulties=cfg.eval.difficulties,
        regime=cfg.regime,
        partner=cfg.partner,
        partner_seed=cfg.eval.seed,
        carry=cfg.policy_belief == "carry",
        after_play=cfg.belief_after_play,
    )


def _evaluate(trainer: Trainer, writer, games: int) -> dict:
    start = time.perf_counter()
    results = evaluate_network(trainer.model, trainer.cfg, games)
    record = {
        "step": trainer.global_step,
        "wall": trainer.wall,
        "eval_seconds": time.perf_counter() - start,
        "load1": os.getloadavg()[0],
        "results": results,
    }
    for difficulty, r in results.items():
        writer.add_scalar(f"eval_win/{difficulty}", r["win_rate"], trainer.global_step)
    trainer.write_json("eval", record)
    return record


def _finish(trainer: Trainer, writer) -> None:
    import torch

    from shipwreck_agents.learned.actor_critic import export_sb3

    cfg, run_dir = trainer.cfg, trainer.run_dir
    torch.save(trainer.model.state_dict(), run_dir / "model.pt")
    export_sb3(trainer.model, run_dir / "model.pth")
    info = meta(cfg, spec_of(cfg, run_dir / "model.pth"))
    (run_dir / "model.meta.json").write_text(json.dumps(info, indent=2))
    print(
        f"final evaluation: {cfg.eval.games} greedy games per difficulty "
        f"({', '.join(cfg.eval.difficulties)}), held-out seed {cfg.eval.seed} ...",
        flush=True,
    )
    final = _evaluate(trainer, writer, cfg.eval.games)
    summary = {
        "name": cfg.name,
        "seed": cfg.seed,
        "regime": cfg.regime,
        "belief": cfg.env.belief,
        "belief_kind": cfg.belief_kind,
        "steps": trainer.global_step,
        "wall_seconds": trainer.wall,
        "mean_sps": trainer.global_step / max(trainer.wall, 1e-9),
        "final_eval": final["results"],
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    print(
        f"{cfg.name}: {trainer.global_step:,} learner steps in {trainer.wall / 60:.1f} min of "
        f"training ({summary['mean_sps']:,.0f} steps/s, evaluations not counted)",
        flush=True,
    )
    for difficulty, r in final["results"].items():
        low, high = r["win_rate_ci95"]
        print(f"  {difficulty}: win rate {r['win_rate']:.3f} [{low:.3f}, {high:.3f}]", flush=True)
    print(f"model: {run_dir / 'model.pth'} (spec {info['spec']})", flush=True)


def _checkpoint_model(run_dir: Path) -> tuple[FastConfig, ActorCritic, dict]:
    latest = run_dir / "checkpoints" / "latest.pt"
    if not (run_dir / "config.yaml").is_file() or not latest.is_file():
        raise ValueError(
            f"{str(run_dir)!r} is not a fast run with a checkpoint (no config.yaml or "
            "checkpoints/latest.pt); allowed: a run folder of python -m shipwreck_training.fast"
        )
    cfg = from_dict(read_yaml((run_dir / "config.yaml").read_text()))
    import torch

    from shipwreck_agents.learned.actor_critic import ActorCritic

    state = torch.load(run_dir / "checkpoints" / "latest.pt", weights_only=False)
    layout = ObservationLayout.for_config(cfg.env.game_config(), belief=cfg.env.belief_block)
    model = ActorCritic(
        layout.size,
        NUM_ACTIONS,
        cfg.ppo.hidden,
        cfg.env.belief == "aux",
        shared_first_layer=cfg.ppo.shared_first_layer,
    )
    model.load_state_dict(state["model"])
    return cfg, model, state


def evaluate_checkpoint(run_dir: Path, games: int) -> dict:
    """Evaluate the latest checkpoint of ``run_dir`` (batched, greedy, the config's
    held-out seed) and append the record to its ``eval.jsonl``."""
    cfg, model, state = _checkpoint_model(run_dir)
    start = time.perf_counter()
    results = evaluate_network(model, cfg, games)
    record = {
        "step": state["global_step"],
        "wall": state["wall"],
        "eval_seconds": time.perf_counter() - start,
        "load1": os.getloadavg()[0],
        "source": "checkpoint",
        "results": results,
    }
    with open(run_dir / "eval.jsonl", "a") as fh:
        fh.write(json.dumps(record) + "\n")
    return record


def export_checkpoint(run_dir: Path, target: Path) -> dict:
    """Export the network of ``run_dir``'s latest checkpoint as an SB3 ``.pth`` with its
    ``.meta.json`` (a run in progress can be shipped); returns the metadata."""
    cfg, model, state = _checkpoint_model(run_dir)
    from shipwreck_agents.learned.actor_critic import export_sb3

    export_sb3(model, target)
    info = meta(cfg, spec_of(cfg, target))
    info["exported_from"] = f"{run_dir.name}/checkpoints/latest.pt"
    info["steps"] = state["global_step"]
    target.with_suffix(".meta.json").write_text(json.dumps(info, indent=2))
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="PPO on the batched engine")
    parser.add_argument("--config", help="YAML config (configs/fast/*.yaml)")
    parser.add_argument("--resume", help="run folder to continue from its checkpoint")
    parser.add_argument("--runs", default=str(RUNS_DIR), help="folder of new runs")
    parser.add_argument("--stop-after", type=int, default=0, help="stop after N steps")
    parser.add_argument("--export", help="run folder whose latest checkpoint to export")
    parser.add_argument("--to", help="with --export: the .pth file to write")
    parser.add_argument("--evaluate", help="run folder whose latest checkpoint to evaluate")
    parser.add_argument("--games", type=int, default=1000, help="with --evaluate: per difficulty")
    parser.add_argument("overrides", nargs="*", help="dotted.key=value")
    args = parser.parse_args(argv)
    try:
        if args.export:
            if not args.to:
                parser.error("--export needs --to FILE.pth")
            print(json.dumps(export_checkpoint(Path(args.export), Path(args.to)), indent=2))
            return 0
        if args.evaluate:
            print(json.dumps(evaluate_checkpoint(Path(args.evaluate), args.games), indent=2))
            return 0
    except ValueError as exc:
        return fail(str(exc))
    if bool(args.config) == bool(args.resume):
        parser.error("give exactly one of --config, --resume, --export and --evaluate")
    try:
        if args.resume and not (Path(args.resume) / "checkpoints" / "latest.pt").is_file():
            raise ValueError(
                f"--resume {args.resume!r} has no checkpoints/latest.pt; allowed: a fast run "
                "folder that reached its first checkpoint"
            )
        cfg, run_dir = start(FastConfig, args.config, args.resume, args.overrides, args.runs)
    except ValueError as exc:
        return fail(str(exc))
    record_command(run_dir, "shipwreck_training.fast", argv)
    print(f"run folder: {run_dir}", flush=True)
    try:
        train(cfg, run_dir, resume=bool(args.resume), stop_after=args.stop_after)
    except Interrupted as stop:
        print(stop.message(), file=sys.stderr, flush=True)
        return 130  # the shell's code for a run ended by SIGINT
    return 0
