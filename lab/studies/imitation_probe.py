"""Does the network reach the convention by imitation alone? (issue 21, imitation question)

    python lab/studies/imitation_probe.py [--steps 100000] [--epochs 10] [--held-out 20000]
        [--games 500] [--belief policy|policy_carry|literal] [--save results/models/x.pth]
    python lab/studies/imitation_probe.py --curve 10000,40000,170000 [--steps 200000] ...

Runs the imitation step of ``configs/fast/imitation.yaml`` (the convention team recorded on
the batched engine, the policy fitted by cross-entropy, ``training/fast/imitation.py``)
with no PPO after it, then measures the fitted network:

* agreement with the teacher on the decisions fitted and on decisions of games it never
  saw (another seed), split into the player's decisions and the group's, and by phase;
* its greedy win rate on the batched engine (the config's held-out evaluation seed),
  with the belief block it was fitted on (``--belief``: ``policy``, the block under its
  own play policy, as PPO then trains it; ``policy_carry``, the same with each seat's
  carried posterior, ``policy_belief: carry``; or ``literal``).

``--curve`` instead fits a fresh network on the first N recorded decisions (literal
block) for each N and reports its agreement by phase on the held-out decisions: the
curve of agreement against data. ``--save`` exports the network with its ``.meta.json`` for the reference evaluator
(``shipwreck-arcana evaluate``). Prints one JSON object (results/imitation_probe/imitation_probe.json
is its output).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

from shipwreck_env.rules.state import PHASES
from shipwreck_training.fast.config import load_config
from shipwreck_training.fast.imitation import (
    Recording,
    agreement,
    fit_policy,
    imitate,
    record_teacher,
)
from shipwreck_training.fast.ppo import Trainer
from shipwreck_training.fast.run import evaluate_network, meta, spec_of

CONFIG = "configs/fast/imitation.yaml"


@torch.no_grad()
def by_phase(model, data: Recording) -> dict[str, list[float | int]]:
    """Agreement and count of ``data``'s decisions per phase and role (``play/player``,
    ``group/group``, ...): which decisions the copy misses."""
    chosen = model.greedy(torch.from_numpy(data.obs), torch.from_numpy(data.masks)).numpy()
    same = chosen == data.actions
    phase = data.obs[:, : len(PHASES)].argmax(1)
    out: dict[str, list[float | int]] = {}
    for i, name in enumerate(PHASES):
        for role, rows in (("player", data.play), ("group", ~data.play)):
            here = (phase == i) & rows
            if here.any():
                out[f"{name}/{role}"] = [round(float(same[here].mean()), 4), int(here.sum())]
    return out


def curve(cfg, sizes: list[int], held_out: int) -> dict:
    """Held-out agreement of networks fitted on the first ``sizes`` decisions of one
    recording of ``max(sizes)`` decisions."""
    recorder = Trainer(cfg)
    data = record_teacher(recorder, cfg.imitation.model_copy(update={"steps": max(sizes)}))
    unseen = record_teacher(
        recorder, cfg.imitation.model_copy(update={"steps": held_out}), seed_offset=7933
    )
    out = {}
    for size in sizes:
        trainer = Trainer(cfg)
        fit_policy(trainer.model, data.take(slice(0, size)), cfg.imitation, trainer.generator)
        out[str(size)] = {
            "train": agreement(trainer.model, data.take(slice(0, min(size, held_out)))),
            "held_out": agreement(trainer.model, unseen),
            "held_out_by_phase": by_phase(trainer.model, unseen),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=100_000, help="decisions recorded")
    parser.add_argument("--epochs", type=int, default=10, help="passes of the fit")
    parser.add_argument("--held-out", type=int, default=20_000, help="unseen decisions")
    parser.add_argument("--games", type=int, default=500, help="evaluation games per difficulty")
    parser.add_argument("--belief", choices=("policy", "policy_carry", "literal"), default="policy")
    parser.add_argument("--hidden", default="[128,128]", help="hidden widths")
    parser.add_argument("--save", help="export the fitted network to this .pth")
    parser.add_argument("--curve", help="comma list of data sizes: agreement against data")
    args = parser.parse_args(argv)
    if args.curve:
        args.belief = "literal"
    overrides = [
        "torch_threads=1",
        "num_games=256",
        f"imitation.steps={args.steps}",
        f"imitation.epochs={args.epochs}",
        f"env.belief={'literal' if args.belief == 'literal' else 'policy'}",
        f"ppo.hidden={args.hidden}",
    ]
    if args.belief == "policy_carry":  # the carried policy-conditioned belief
        overrides.append("policy_belief=carry")
    cfg = load_config(CONFIG, overrides)
    start, load_start = time.perf_counter(), os.getloadavg()
    if args.curve:
        out = curve(cfg, [int(n) for n in args.curve.split(",")], args.held_out)
        out["load"] = [load_start[0], os.getloadavg()[0]]
        print(json.dumps(out, indent=1, default=float))
        return 0
    trainer = Trainer(cfg)
    fit = imitate(trainer, cfg.imitation)
    other = Trainer(load_config(CONFIG, [*overrides, "seed=1"]))
    held = cfg.imitation.model_copy(update={"steps": args.held_out})
    unseen = record_teacher(
        other, held, belief_model=trainer.model if args.belief != "literal" else None
    )
    out = {
        "command": "python lab/studies/imitation_probe.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "load_start": [round(x, 2) for x in load_start],
        "fit": fit,
        "held_out_agreement": {**agreement(trainer.model, unseen), "decisions": len(unseen)},
        "held_out_by_phase": by_phase(trainer.model, unseen),
    }
    results = evaluate_network(trainer.model, cfg, args.games)
    out["win_rate"] = {d: r["win_rate"] for d, r in results.items()}
    out["evaluation"] = {
        d: {k: r[k] for k in ("games", "win_rate_ci95", "mean_score", "mean_doom", "truncated")}
        for d, r in results.items()
    }
    if args.save:
        from shipwreck_agents.learned.actor_critic import export_sb3

        target = Path(args.save)
        export_sb3(trainer.model, target)
        info = {**meta(cfg, spec_of(cfg, target)), "imitation": fit}
        target.with_suffix(".meta.json").write_text(json.dumps(info, indent=2))
        out["saved"] = str(target)
    out["seconds"] = time.perf_counter() - start
    out["load_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
