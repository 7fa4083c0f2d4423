"""Export the seed-0 policy of every training config to results/models/ (small files).

    python lab/runs/export_models.py [--runs results/runs] [--seed 0]

Run directories hold full checkpoints (optimizer state included) and stay out of git.
This keeps, for each config name, only the policy network of the chosen seed's final
model: ``results/models/<name>.pth`` (or ``<name>_play.pth`` and ``<name>_predict.pth``
for the alternating regime) with its ``.meta.json``, loadable with ``ppo:<file>``. Seed 0
is taken, not the best seed, so the shipped models are not picked by their results.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default=str(ROOT / "results" / "runs"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from sb3_contrib import MaskablePPO

    out = ROOT / "results" / "models"
    out.mkdir(parents=True, exist_ok=True)
    newest: dict[str, tuple[Path, dict]] = {}  # config name -> (run, its summary)
    for run in sorted(Path(args.runs).glob(f"*__{args.seed}__*")):
        if (run / "summary.json").exists():
            summary = json.loads((run / "summary.json").read_text())
            newest[summary["name"]] = (run, summary)
    for name, (run, summary) in sorted(newest.items()):
        for key, file in summary["models"].items():
            suffix = "" if key == "model" else "_" + key.removesuffix("_model")
            target = out / f"{name}{suffix}.pth"
            MaskablePPO.load(str(run / file), device="cpu").policy.save(str(target))
            meta = json.loads((run / (file[:-4] + ".meta.json")).read_text())
            meta["exported_from"] = f"{run.name}/{file}"
            target.with_suffix(".meta.json").write_text(json.dumps(meta, indent=2))
            print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
