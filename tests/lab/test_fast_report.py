"""The fast trainer's report (lab/reports/make_fast_training_report.py): runs are grouped by
config and budget, and each group's figures are the mean and spread of its seeds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from conftest import load_script

pytest.importorskip("matplotlib")


def _report_module():
    return load_script("make_fast_training_report")


def _run(folder: Path, name: str, seed: int, budget: int, wins: float, finished: bool) -> None:
    folder.mkdir(parents=True)
    config = {
        "name": name,
        "regime": "selfplay",
        "partner": "",
        "seed": seed,
        "total_steps": budget,
        "num_games": 8,
        "env": {"belief": "policy"},
        "ppo": {"hidden": [8, 8], "epochs": 1},
    }
    (folder / "config.yaml").write_text(yaml.safe_dump(config))
    progress = {"step": budget, "sps": 100.0 + seed, "wall": 3600.0, "load1": 1.0}
    (folder / "progress.jsonl").write_text(json.dumps(progress) + "\n")
    results = {d: {"win_rate": wins, "games": 10} for d in ("easy", "normal", "hard", "doomed")}
    (folder / "eval.jsonl").write_text(
        json.dumps({"step": budget, "wall": 3600.0, "results": results}) + "\n"
    )
    if finished:
        (folder / "summary.json").write_text("{}")


def test_runs_group_by_config_and_budget_with_the_spread_of_their_seeds(tmp_path: Path) -> None:
    report = _report_module()
    _run(tmp_path / "a__0", "a", 0, 1000, 0.5, True)
    _run(tmp_path / "a__1", "a", 1, 1000, 0.7, True)
    _run(tmp_path / "a__2", "a", 2, 2000, 0.9, True)  # another budget: its own group
    _run(tmp_path / "a__3", "a", 3, 1000, 0.1, False)  # unfinished: not in a group
    _run(tmp_path / "b__0", "b", 0, 1000, 0.2, True)
    runs = [report.read_run(f) for f in sorted(tmp_path.iterdir())]
    groups = {(g["name"], g["budget"]): g for g in report.budget_groups(runs)}
    assert set(groups) == {("a", 1000), ("a", 2000), ("b", 1000)}
    two = groups[("a", 1000)]
    assert two["seeds"] == [0, 1]
    assert two["hard"] == pytest.approx(0.6)
    assert two["hard_sd"] == pytest.approx(0.1414213562)
    assert groups[("b", 1000)]["hard_sd"] is None
    section = report.markdown(runs, [], [], "cmd", "runs")
    assert "| a | selfplay | policy | 1,000 | 0, 1 | 0.600 ± 0.141 |" in section
    assert "unfinished (1,000 planned" in section


def test_recorded_runs_without_a_folder_are_kept_and_a_folder_replaces_its_record(
    tmp_path: Path,
) -> None:
    """Run folders are not in git: regenerating the report on a fresh clone must not drop
    the runs it already records, and a run whose folder is here is read from the folder."""
    report = _report_module()
    _run(tmp_path / "a__0", "a", 0, 1000, 0.5, True)
    found = [report.read_run(tmp_path / "a__0")]
    stale = dict(found[0], steps=1)  # an older record of the same run
    gone = dict(found[0], run="b__0", name="b")  # recorded, folder absent here
    runs, kept = report.merge_runs(found, [gone, stale])
    assert kept == 1
    assert [r["run"] for r in runs] == ["a__0", "b__0"]
    assert runs[0] == found[0]
    assert runs[1] == gone
    section = report.markdown(runs, [], [], "cmd", "runs", recorded=kept)
    assert "(and 1 runs as recorded in `results/training/fast_training.json`" in section
    assert "| b__0 |" in section
    assert "recorded in" not in report.markdown(found, [], [], "cmd", "runs")
