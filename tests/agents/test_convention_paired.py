"""Tests of the paired-games tool for convention variants (agents/evaluation/paired.py)."""

from __future__ import annotations

import math

import pytest
from conftest import load_script

from shipwreck_agents.evaluation.evaluate import evaluate
from shipwreck_agents.evaluation.paired import main, paired_difference, paired_wins
from shipwreck_env.rules.config import GameConfig


def test_paired_wins_are_the_evaluators_games():
    config = GameConfig(num_players=3, difficulty="doomed")
    won, ms = paired_wins({}, config, seed=2, games=30)
    report = evaluate("convention", "convention", difficulties=["doomed"], games=30, seed=2)
    assert 0 < won.sum() < len(won)  # a loss among them: the games are told apart
    assert won.sum() == report["results"]["doomed"]["wins"] and ms > 0


def test_main_prints_the_paired_difference(capsys):
    main(["{}", "{}", "--seeds", "1", "--difficulty", "doomed", "--games", "3"])
    out = capsys.readouterr().out
    assert "doomed: games 3" in out and "new - old +0.0000" in out


def test_paired_difference_is_the_mean_difference_with_its_normal_interval():
    a = [1, 1, 0, 0, 1, 1, 0, 1]
    b = [1, 0, 1, 1, 1, 1, 1, 1]
    row = paired_difference(a, b)
    d = [y - x for x, y in zip(a, b, strict=True)]  # one -1, three +1, four ties
    mean = sum(d) / 8
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / 7)
    assert row["games"] == 8 and row["a"] == 5 / 8 and row["b"] == 7 / 8
    assert row["b_minus_a"] == pytest.approx(2 / 8)
    assert row["half_width95"] == pytest.approx(1.959963984540054 * sd / math.sqrt(8))
    assert row["ci95"] == pytest.approx([mean - row["half_width95"], mean + row["half_width95"]])
    assert (row["only_a"], row["only_b"]) == (1, 3)
    assert row["sign_test_p"] == pytest.approx(2 * (1 + 4) / 16)  # 1 vs 3 of 4 deals
    assert paired_difference([1], [0])["half_width95"] == 0.0
    with pytest.raises(ValueError, match="same non-zero length"):
        paired_difference([1, 0], [1])
    with pytest.raises(ValueError, match="same non-zero length"):
        paired_difference([], [])


def test_the_scripts_report_the_one_paired_difference():
    """lab/studies/paired_eval.py and lab/studies/search_eval.py use this module's function."""
    a, b = [True, False, True, True, False], [True, True, False, True, True]
    assert load_script("paired_eval").paired(a, b) == paired_difference(a, b)
    rows = [
        {"game": i, "blueprint_won": x, "search_won": y, "blueprint_s": 0.1, "search_s": 0.2}
        | {"decisions": 9, "searched": 1, "changed": 0, "search_seconds": 0.1}
        for i, (x, y) in enumerate(zip(a, b, strict=True))
    ]
    row, want = load_script("search_eval").summarise(rows), paired_difference(a, b)
    assert row["difference"] == want["b_minus_a"] and row["difference_ci95"] == want["ci95"]
    assert (row["blueprint_only_won"], row["search_only_won"]) == (want["only_a"], want["only_b"])
