"""An action scorer's agreement with the convention by ambiguity (issue 52's split).

The convention plays held-out games on the batched engine (the scorer trainer's held-out
seed offset, so the same games as its held-out recording) while
``imitation_diagnosis.ambiguity`` notes each decision: at the player's first play, how
many hands of the turn's code show the player's line (1: a line no other hand shows); at
a group decision, how many kept values the convention's reading leaves. With
``--belief policy`` the group's block is the network's own (as it was trained). Reports
the scorer's agreement per ambiguity (6 and more pooled):

    python lab/studies/scorer_ambiguity.py --model results/models/scorer_policy/round4.pth \\
        --belief policy --held-out 20000 --out results/imitation/scorer_policy/ambiguity.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch
from imitation_diagnosis import ambiguity  # the same folder: run as a script
from scorer_flat_baseline import write_report

from shipwreck_agents.learned.action_scorer import load_scorer
from shipwreck_training.fast.config import load_config
from shipwreck_training.fast.scorer import record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--belief", choices=("literal", "policy"), default="literal")
    parser.add_argument("--config", default="configs/fast/scorer_imitation.yaml")
    parser.add_argument("--held-out", type=int, default=20_000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    cfg = load_config(args.config, [])
    model = load_scorer(args.model)
    settings = cfg.imitation.model_copy(update={"steps": args.held_out})
    data = record(
        cfg,
        settings,
        seed_offset=7933,
        belief_model=model if args.belief == "policy" else None,
        annotate=ambiguity,
    )
    same = np.zeros(len(data), bool)
    with torch.no_grad():
        for i in range(0, len(data), 16384):
            obs, ids, rows, valid, label = data.tensors(slice(i, i + 16384))
            same[i : i + 16384] = (
                model.logits_rows(obs, ids, rows, valid).argmax(-1) == label
            ).numpy()
    out: dict = {"all": [float(same.mean()), len(same)]}
    noted = data.note >= 0  # the hook notes first plays (play phase) and group decisions
    for role, rows in (("player first play", data.phase == 0), ("group", data.phase != 0)):
        for a in range(1, 7):
            here = noted & rows & ((data.note == a) if a < 6 else (data.note >= 6))
            if here.any():
                key = f"{role}: {a}" if a < 6 else f"{role}: 6+"
                out[key] = [float(same[here].mean()), int(here.sum())]
    report = {
        "command": " ".join(["python", "lab/studies/scorer_ambiguity.py", *sys.argv[1:]]),
        "model": args.model,
        "belief": args.belief,
        "agreement": out,
    }
    write_report(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
