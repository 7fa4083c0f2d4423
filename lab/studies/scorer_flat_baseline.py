"""The flat network fitted to the action scorer's recordings, for a comparison on the same
decisions (issue 52).

``python -m shipwreck_training.fast.scorer`` keeps its recordings (``--data``): the
convention's decisions with more than one legal action. This fits the flat network the
trainers use (:class:`~shipwreck_agents.learned.actor_critic.ActorCritic`, one logit per
action number from the observation) to the same training decisions with the scorer's
cloning settings and reports its held-out agreement split as the scorer's report splits
it (``training.fast.scorer.agreement``'s keys):

    python lab/studies/scorer_flat_baseline.py --data /tmp/scorer_data \\
        --out results/imitation/scorer/flat_baseline.json [--epochs 8] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from shipwreck_agents.learned.actor_critic import ActorCritic
from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.state import PHASES
from shipwreck_training.fast.config import load_config
from shipwreck_training.fast.scorer import ScorerRecording


def _dense(data: ScorerRecording, rows) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(obs, legal mask bool[n, A], label action numbers) of the decisions ``rows``."""
    ids, valid = data.ids[rows].astype(np.int64), data.valid[rows]
    mask = np.zeros((len(ids), NUM_ACTIONS), bool)
    mask[np.repeat(np.arange(len(ids)), valid.sum(1)), ids[valid]] = True
    label = ids[np.arange(len(ids)), data.label[rows].astype(np.int64)]
    return torch.from_numpy(data.obs[rows]), torch.from_numpy(mask), torch.from_numpy(label)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/tmp/scorer_data")
    parser.add_argument("--config", default="configs/fast/scorer_imitation.yaml")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("results/imitation/scorer/flat.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    cfg = load_config(args.config, [])
    train = ScorerRecording.load(Path(args.data) / "train.npz")
    held = ScorerRecording.load(Path(args.data) / "held.npz")
    torch.manual_seed(cfg.seed)
    model = ActorCritic(train.obs.shape[1], NUM_ACTIONS, tuple(cfg.ppo.hidden))
    settings = cfg.imitation
    optimizer = torch.optim.Adam(model.parameters(), settings.learning_rate)
    size = settings.minibatch_size
    total = args.epochs * -(-len(train) // size)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda k: max(0.0, 1.0 - k / total))
    generator = torch.Generator().manual_seed(cfg.seed)
    start = time.perf_counter()
    for _ in range(args.epochs):
        order = torch.randperm(len(train), generator=generator).numpy()
        for i in range(0, len(train), size):
            obs, mask, label = _dense(train, order[i : i + size])
            loss = torch.nn.functional.cross_entropy(model.logits(obs, mask), label)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            schedule.step()
    seconds = time.perf_counter() - start
    obs, mask, label = _dense(held, slice(None))
    same = (model.greedy(obs, mask) == label).numpy()
    out: dict = {"all": [float(same.mean()), len(same)]}
    for key, names, values in (
        ("phase", PHASES, held.phase),
        ("difficulty", tuple(cfg.env.difficulties), held.difficulty),
    ):
        for k, name in enumerate(names):
            sel = values == k
            if sel.any():
                out[f"{key} {name}"] = [float(same[sel].mean()), int(sel.sum())]
    report = {
        "command": " ".join(["python", "lab/studies/scorer_flat_baseline.py", *sys.argv[1:]]),
        "train_decisions": len(train),
        "epochs": args.epochs,
        "fit_seconds": seconds,
        "held_out": out,
    }
    write_report(args.out, report)
    return 0


def write_report(out: Path, report: dict) -> None:
    """Write ``report`` as JSON to ``out`` (its folder made) and print it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    raise SystemExit(main())
