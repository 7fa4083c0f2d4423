"""lab/reports/expert_table.py: the expert-iteration page is built from the files it reads,
every figure from a measured file (the rounds' meta, paired and search reports)."""

from __future__ import annotations

import json

from conftest import load_script

expert_table = load_script("expert_table")


def _files(tmp_path):
    models, folder = tmp_path / "models", tmp_path / "results"
    models.mkdir()
    folder.mkdir()
    fit = {
        "agreement_before": {"all": 0.9, "changed": 0.0},
        "agreement_after": {"all": 0.8, "changed": 0.5},
    }
    counts = {
        "games": 4,
        "wins": 3,
        "decisions": 40,
        "searched": 9,
        "changed": 2,
        "cpu_seconds": 7.0,
    }
    meta = {
        "expert_iteration": {
            "blueprint": "B.pth",
            "command": "python -m shipwreck_training.fast.expert --games 4",
            "recording": {"hard": counts},
            "fit": fit,
            "samples": 16,
            "margin": 0.1,
            "epochs": 4,
            "learning_rate": 1e-4,
            "changed_weight": 8,
        }
    }
    (models / "round1.meta.json").write_text(json.dumps(meta))
    paired = {
        "a": ["A", "A"],
        "b": ["B", "B"],
        "seed": 5,
        "command": "python lab/studies/paired_eval.py A B",
        "results": {
            "hard": {
                "games": 4,
                "a": 0.5,
                "b": 0.75,
                "b_minus_a": 0.25,
                "ci95": [-0.2, 0.7],
                "only_a": 0,
                "only_b": 1,
                "sign_test_p": 1.0,
            }
        },
    }
    (folder / "a_vs_b.json").write_text(json.dumps(paired))
    games = [
        {"blueprint_won": w, "search_won": s, "blueprint_s": 0.01, "search_s": 0.5}
        for w, s in [(True, True), (False, True), (False, False), (True, True)]
    ]
    search = {
        "model": "R.pth",
        "command": "python lab/studies/search_eval.py",
        "games": {"doomed": games},
    }
    (folder / "r1_search.json").write_text(json.dumps(search))
    return folder, models


def test_the_page_has_a_row_for_each_round_comparison_and_search_run(tmp_path):
    folder, models = _files(tmp_path)
    text = expert_table.page(folder, models)
    assert "| round1 | hard | 4 | 0.750 | 40 | 9 | 2 | 7 |" in text
    assert "0.900 before the fit and 0.800 after" in text
    assert "| a_vs_b | hard | 4 | 0.500 | 0.750 | +0.250 [-0.200, +0.700] | 1.000 | 0 / 1 |" in text
    # the search run's figures are recomputed from its games: 2/4 alone, 3/4 with search
    assert "| r1_search | doomed | 4 | 0.500 | 0.750 | +0.250 [" in text
    assert "| 10 | 500 | ? / ? |" in text
    assert "`python lab/studies/paired_eval.py A B`" in text


def test_main_writes_the_readme(tmp_path):
    folder, models = _files(tmp_path)
    assert expert_table.main(["--dir", str(folder), "--models", str(models)]) == 0
    assert (folder / "README.md").read_text() == expert_table.page(folder, models)


def test_a_round_s_ppo_fine_tune_is_listed_with_its_evaluation_and_commands(tmp_path):
    folder, models = _files(tmp_path)
    tune = {
        "from": "results/models/expert/round1.pth",
        "commands": ["python lab/runs/warm_start_run.py X RUN", "python -m fast --resume RUN"],
        "steps": 8124480,
        "wall_seconds": 360.0,
        "final_eval": {
            "normal": {"games": 500, "win_rate": 0.99},
            "doomed": {"games": 500, "win_rate": 0.808},
        },
        "final_eval_seed": 1000003,
    }
    (models / "round1_ppo.meta.json").write_text(json.dumps({"fine_tune": tune}))
    text = expert_table.page(folder, models)
    assert (
        "- round1_ppo: PPO fine-tune of `results/models/expert/round1.pth` for 8,124,480 "
        "steps (6 min); the trainer's last evaluation (500 greedy games a difficulty, "
        "batched engine, seed 1000003): normal 0.990, doomed 0.808: "
        "`python lab/runs/warm_start_run.py X RUN`; `python -m fast --resume RUN`"
    ) in text
    assert "| round1 | hard | 4 | 0.750 | 40 | 9 | 2 | 7 |" in text  # the round itself stays
