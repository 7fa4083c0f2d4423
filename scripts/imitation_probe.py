"""Does the network reach the convention by imitation alone? (issue 21, imitation question)

    python scripts/imitation_probe.py [--steps 100000] [--held-out 20000] [--games 500]

Runs the imitation step of ``configs/fast/imitation.yaml`` (the convention team recorded on
the batched engine, the policy fitted by cross-entropy, ``training/fast/imitation.py``)
with no PPO after it, then measures the fitted network:

* agreement with the teacher on the recorded decisions and on decisions of games it never
  saw, split into the player's decisions and the group's;
* its greedy win rate on the batched engine (held-out evaluation seed of the config),
  once with the group reading the literal belief block it was fitted on and once with the
  policy-conditioned block PPO then gives it.

Prints one JSON object (results/imitation_probe.json is its output with the defaults).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import torch

from shipwreck_training.fast.config import load_config
from shipwreck_training.fast.evaluate import evaluate_network
from shipwreck_training.fast.imitation import imitate, record_teacher
from shipwreck_training.fast.ppo import Trainer


def _agreement(model, obs, masks, actions, active_offset: int) -> dict:
    with torch.no_grad():
        same = (
            model.greedy(torch.from_numpy(obs), torch.from_numpy(masks))
            == torch.from_numpy(actions)
        ).numpy()
    play = obs[:, active_offset] == 1  # the observer is the active seat
    return {
        "all": float(same.mean()),
        "play": float(same[play].mean()),
        "group": float(same[~play].mean()),
        "decisions": len(same),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--held-out", type=int, default=20_000)
    parser.add_argument("--games", type=int, default=500)
    args = parser.parse_args(argv)
    overrides = ["torch_threads=1", "num_games=256", f"imitation.steps={args.steps}"]
    cfg = load_config("configs/fast/imitation.yaml", overrides)
    start = time.perf_counter()
    trainer = Trainer(cfg)
    fit = imitate(trainer, cfg.imitation)
    other = Trainer(load_config("configs/fast/imitation.yaml", [*overrides, "seed=1"]))
    held = cfg.imitation.model_copy(update={"steps": args.held_out})
    obs, masks, actions = record_teacher(other, held)
    offset = trainer.games.layout.offsets["active_seat"]
    out = {
        "command": "python scripts/imitation_probe.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "load_start": os.getloadavg()[0],
        "fit": fit,
        "held_out_agreement": _agreement(trainer.model, obs, masks, actions, offset),
    }
    for belief in ("literal", "policy"):
        c = load_config("configs/fast/imitation.yaml", [*overrides, f"env.belief={belief}"])
        results = evaluate_network(trainer.model, c, args.games)
        out[f"win_rate_{belief}_block"] = {d: r["win_rate"] for d, r in results.items()}
    out["seconds"] = time.perf_counter() - start
    out["load_end"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
