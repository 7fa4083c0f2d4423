"""The trainers' table of lab/reports/make_training_report.py: each run's model at the budget
is found, exported as a ``fast:`` team, evaluated, and its figures land in the table."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import load_script

pytest.importorskip("torch")
pytest.importorskip("torchrl")


@pytest.fixture()
def report(tmp_path, monkeypatch):
    """The script as a module, writing under ``tmp_path`` instead of the repository."""
    module = load_script("make_training_report")
    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(module, "MODELS", tmp_path / "results" / "models" / "budget")
    return module


def _sb3_run(folder: Path, checkpoints: list[int]) -> None:
    (folder / "checkpoints").mkdir(parents=True)
    for steps in checkpoints:
        (folder / "checkpoints" / f"model_{steps}_steps.zip").write_bytes(b"")
    rows = [{"steps": s, "wall_seconds": s / 1000} for s in checkpoints]
    (folder / "eval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_sb3_model_is_the_first_checkpoint_at_or_past_the_budget(report, tmp_path):
    run = tmp_path / "results" / "runs" / "selfplay_budget__0__1"
    _sb3_run(run, [250_112, 500_224, 750_080])
    point = report._sb3_point(run, 500_000)
    assert point["steps"] == 500_224
    assert point["wall_seconds"] == pytest.approx(500.224)
    assert point["source"].endswith("model_500224_steps.zip")
    with pytest.raises(SystemExit, match="no checkpoint at 800,000 steps"):
        report._sb3_point(run, 800_000)


def test_a_fast_run_is_exported_evaluated_and_tabled(report, tmp_path):
    from shipwreck_agents.registry import make_policy
    from shipwreck_training.fast.config import from_dict
    from shipwreck_training.fast.run import train

    cfg = from_dict(
        {
            "name": "fast_budget",
            "num_games": 32,
            "rollout_steps": 8,
            "total_steps": 256,
            "torch_threads": 1,
            "env": {"belief": "policy"},
            "ppo": {"minibatch_size": 64, "hidden": [16, 16], "epochs": 1},
            "eval": {"every": 0, "games": 4},
        }
    )
    train(cfg, tmp_path / "results" / "runs" / "fast" / "fast_budget__0__20260101-000000")
    args = SimpleNamespace(evaluator="batched", games=8, seed=10_000, jobs=1)
    entry = report.evaluate_run("fast", "results/runs/fast", "fast_budget", 256, args)
    assert entry["steps"] == 256
    model = tmp_path / entry["model"]
    assert make_policy(f"fast:{model}").belief_kind == "policy"  # plays with its belief
    results = entry["evaluations"]["batched"]["results"]
    assert {d: r["games"] for d, r in results.items()} == dict.fromkeys(results, 8)
    report.update_trainers_json("budget", "fast", entry)
    again = {**entry, "evaluations": {"reference": {**entry["evaluations"]["batched"]}}}
    merged = report.update_trainers_json("budget", "fast", again)
    assert set(merged["evaluations"]) == {"batched", "reference"}  # both evaluators kept
    data = json.loads((tmp_path / "results" / "training" / "trainers.json").read_text())
    table = "\n".join(report.budget_markdown(data))
    rate = f"{results['normal']['win_rate']:.3f}"
    rows = [line for line in table.splitlines() if line.startswith("| fast | 256 |")]
    assert len(rows) == 2 and all(rate in row for row in rows)
