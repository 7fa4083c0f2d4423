"""The run glue every trainer shares: run folders, the command line, metadata, evaluation.

A run folder is ``<runs>/<name>__<seed>__<YYYYmmdd-HHMMSS>/`` holding ``config.yaml``
(resolved) and ``command.txt`` (every command that ran in it) beside what the trainer
writes. :func:`start` turns ``--config FILE [key=value ...]`` or ``--resume RUN`` into a
validated config and its folder, and :func:`fail` prints a bad input as one line
(exit code 2, no traceback, nothing written). :func:`model_meta` is the ``.meta.json``
of an exported model; :func:`evaluate_team` evaluates a team on the run's games with the
reference evaluator (``shipwreck_agents.evaluation.evaluate``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import yaml

from shipwreck_training.common.config import (
    GameSettings,
    RunConfig,
    apply_overrides,
    load,
    read_yaml,
    validate,
)

__all__ = [
    "add_source_arguments",
    "evaluate_team",
    "fail",
    "model_meta",
    "new_run_dir",
    "record_command",
    "start",
]

Config = TypeVar("Config", bound=RunConfig)


def new_run_dir(cfg: RunConfig, runs_dir: str | Path) -> Path:
    """``<runs_dir>/<name>__<seed>__<YYYYmmdd-HHMMSS>`` (not created: :func:`start`
    creates it once the config is known to be good)."""
    return Path(runs_dir) / f"{cfg.name}__{cfg.seed}__{time.strftime('%Y%m%d-%H%M%S')}"


def add_source_arguments(parser: argparse.ArgumentParser, example: str) -> None:
    """``--config FILE`` or ``--resume RUN`` (one of them), then ``key=value`` overrides."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help=f"a YAML config ({example})")
    source.add_argument("--resume", metavar="RUN", help="a run folder to continue")
    parser.add_argument(
        "overrides", nargs="*", help="dotted key=value, e.g. ppo.learning_rate=1e-4 seed=1"
    )


def start(
    cls: type[Config],
    config: str | None,
    resume: str | None,
    overrides: Sequence[str],
    runs_dir: str | Path,
) -> tuple[Config, Path]:
    """(validated config, run folder): a new folder under ``runs_dir`` for ``config``,
    or the folder ``resume`` with its saved config (``overrides`` applied to either).
    Writes ``config.yaml`` only once everything is known to be good.

    Raises:
        ValueError: a bad file, key or value, or ``resume`` not a run folder (one line).
    """
    if resume:
        run_dir = Path(resume)
        saved = run_dir / "config.yaml"
        if not saved.is_file():
            raise ValueError(
                f"--resume {resume!r} is not a run folder (no config.yaml); allowed: a "
                "folder a trainer wrote"
            )
        cfg = validate(cls, apply_overrides(read_yaml(saved.read_text()) or {}, list(overrides)))
    else:
        cfg = load(cls, config, list(overrides))
        run_dir = new_run_dir(cfg, runs_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    return cfg, run_dir


def record_command(run_dir: Path, module: str, argv: Sequence[str] | None) -> None:
    """Append the command that runs in ``run_dir`` to its ``command.txt``."""
    args = list(argv) if argv is not None else sys.argv[1:]
    with open(run_dir / "command.txt", "a") as fh:
        fh.write(shlex.join([sys.executable, "-m", module, *args]) + "\n")


def fail(message: str) -> int:
    """Print a bad input as one line on stderr; the exit code of bad input (2)."""
    print(f"error: {message}", file=sys.stderr)
    return 2


def model_meta(env: GameSettings, **extra: object) -> dict:
    """The ``.meta.json`` of a model trained on ``env``'s games
    (``shipwreck_agents.learned.sb3.game_meta``, the difficulty mix, then ``extra``)."""
    from shipwreck_agents.learned.sb3 import game_meta

    return {
        **game_meta(env.game_config(), env.belief_block),
        "belief_kind": env.belief,
        "difficulties": list(env.difficulties),
        **extra,
    }


def evaluate_team(
    env: GameSettings,
    play: str,
    group: str,
    *,
    difficulties: Sequence[str],
    games: int,
    seed: int,
    jobs: int = 1,
) -> dict:
    """``shipwreck_agents.evaluation.evaluate`` report of the team ``play`` + ``group`` (policy
    specs) on ``env``'s game options, ``games`` games per difficulty."""
    from shipwreck_agents.evaluation.evaluate import evaluate

    return evaluate(
        play,
        group,
        players=env.num_players,
        difficulties=list(difficulties),
        games=games,
        seed=seed,
        jobs=jobs,
        progress=False,
        card_sets=env.card_sets,
        group_decision=env.group_decision,
        challenge_mode=env.challenge_mode,
        reveal=env.reveal,
        max_turns=env.max_turns,
    )


def progress_bar(total: int, initial: int, label: str):
    """A tqdm bar over learner steps on stderr; steps/s and win rates go in its postfix
    (:func:`win_rates`), measured by the trainer (tqdm's own rate would count the
    evaluations' time)."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        desc=label,
        unit="step",
        dynamic_ncols=True,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}{postfix}]",
    )


def win_rates(results: dict[str, dict]) -> str:
    """``easy 0.99 normal 0.95 ...`` from an evaluation's per-difficulty results."""
    return " ".join(f"{d} {r['win_rate']:.2f}" for d, r in results.items())
