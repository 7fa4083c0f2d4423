"""Start a fast-trainer run from an exported network instead of a random one.

    python lab/runs/warm_start_run.py MODEL.pth RUN_DIR --config configs/fast/imitation.yaml \\
        [key=value ...]
    python -m shipwreck_training.fast --resume RUN_DIR

Writes ``RUN_DIR/config.yaml`` and a step-0 checkpoint whose network is ``MODEL.pth`` (an
export of any of our trainers: SB3's layout, as ``shipwreck_agents.learned.actor_critic.load_sb3``
reads it); ``--resume`` then trains it with PPO from there, with the optimiser, games and
random streams of a fresh run. This is how the shipped self-play team was started from the
network ``lab/studies/imitation_probe.py --save`` fits to the convention team (see
docs/fast_trainer.md). The overrides take the trainer's ``key=value`` form; a network of
another width than the config's, or a config error, is refused in one line (exit 2) and
nothing is written. With ``--widen`` a network narrower than the config's ``ppo.hidden``
(same depth) is first widened without changing what it computes
(``shipwreck_agents.learned.actor_critic.widen``): the width ablation of results/ablation_width.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml


def main(argv: list[str] | None = None) -> int:
    """Write the run folder; 0 on success, 2 on bad input."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="an exported network (.pth)")
    parser.add_argument("run", help="the run folder to create (must not exist)")
    parser.add_argument("--config", default="configs/fast/imitation.yaml")
    parser.add_argument(
        "--widen",
        action="store_true",
        help="widen a narrower network to the config's ppo.hidden (same function)",
    )
    parser.add_argument("overrides", nargs="*", help="key=value, as for the trainer")
    args = parser.parse_intermixed_args(argv)
    run = Path(args.run)
    if run.exists():
        print(f"error: run folder {str(run)!r} exists; give a new folder", file=sys.stderr)
        return 2
    from shipwreck_agents.learned.actor_critic import load_sb3, widen
    from shipwreck_training.fast.config import load_config

    try:
        cfg = load_config(args.config, ["imitation.steps=0", *args.overrides])
        network = load_sb3(args.model)
        if args.widen and network.hidden != tuple(cfg.ppo.hidden):
            network = widen(network, tuple(cfg.ppo.hidden), seed=cfg.seed)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from shipwreck_training.fast.ppo import Trainer

    trainer = Trainer(cfg, None)
    want, have = trainer.model.state_dict(), network.state_dict()
    # an export leaves out the kept-fate head (auxiliary loss): that head starts fresh
    wrong = [
        k
        for k in want
        if (k not in have and not k.startswith("fate_net"))
        or (k in have and have[k].shape != want[k].shape)
    ]
    if wrong or set(have) - set(want):
        key = wrong[0] if wrong else sorted(set(have) - set(want))[0]
        shapes = f"{tuple(have[key].shape) if key in have else 'none'} in the model, "
        shapes += f"{tuple(want[key].shape) if key in want else 'none'} in the config"
        print(
            f"error: {args.model} does not fit the config's network (ppo.hidden "
            f"{list(cfg.ppo.hidden)}): layer {key} is {shapes}",
            file=sys.stderr,
        )
        trainer.close()
        return 2
    trainer.model.load_state_dict(have, strict=False)
    (run / "checkpoints").mkdir(parents=True)
    (run / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    trainer.run_dir = run
    trainer.save(run / "checkpoints" / "latest.pt")
    trainer.close()
    print(f"wrote {run}; train it with: python -m shipwreck_training.fast --resume {run}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
