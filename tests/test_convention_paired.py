"""Tests of the paired-games tool for convention variants (agents/evaluation/paired.py)."""

from __future__ import annotations

from shipwreck_agents.evaluation.evaluate import evaluate
from shipwreck_agents.evaluation.paired import main, paired_wins
from shipwreck_env.config import GameConfig


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
