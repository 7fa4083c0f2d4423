"""Tests of the evaluation harness (agents/evaluation/evaluate.py) and the evaluate command."""

from __future__ import annotations

import json
import math

import pytest

from shipwreck_agents.evaluation.evaluate import evaluate, wilson_interval, write_outputs
from shipwreck_apps.cli import main as cli_main


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # textbook values (z = 1.96): 0/10, 10/10 and 5/10
        (0, 10, 0.0, 0.27753),
        (10, 10, 0.72247, 1.0),
        (5, 10, 0.23659, 0.76341),
    ],
)
def test_wilson_interval_matches_known_values(successes, n, low, high):
    """Wilson score interval at 95% on known counts."""
    got_low, got_high = wilson_interval(successes, n)
    assert math.isclose(got_low, low, abs_tol=2e-5)
    assert math.isclose(got_high, high, abs_tol=2e-5)


@pytest.mark.parametrize(("successes", "n"), [(81, 263), (1, 2000), (1999, 2000), (7, 9)])
def test_wilson_endpoints_solve_the_defining_equation(successes, n):
    """Each endpoint p solves (k/n - p)^2 = z^2 p (1 - p) / n (Wilson's definition)."""
    z = 1.959963984540054
    for p in wilson_interval(successes, n):
        assert math.isclose((successes / n - p) ** 2, z * z * p * (1 - p) / n, abs_tol=1e-12)


def test_wilson_interval_contains_the_proportion():
    for n in (1, 7, 50, 999):
        for k in range(0, n + 1, max(1, n // 7)):
            low, high = wilson_interval(k, n)
            assert 0.0 <= low <= k / n <= high <= 1.0


def test_evaluation_is_identical_for_any_number_of_jobs():
    """Same seed -> same figures, with 1 or 2 worker processes."""
    kwargs = dict(players=3, difficulties=["easy", "hard"], games=24, seed=5, progress=False)
    one = evaluate("heuristic", "literal:0.6", jobs=1, **kwargs)
    two = evaluate("heuristic", "literal:0.6", jobs=2, **kwargs)
    assert one == two


@pytest.fixture
def untrained_model(tmp_path):
    """A small MaskablePPO group model saved as training saves one (with its meta)."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    import shipwreck_env  # noqa: F401  (registers the ids)
    from shipwreck_training.sb3.callbacks import save_with_meta

    env = gymnasium.make("ShipwreckArcana-Predict-v0", num_players=3, belief=True)
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [16]}, seed=0)
    meta = {"belief": True, "role": "predict", "num_players": 3, "challenge_mode": False}
    return save_with_meta(model, tmp_path / "group.zip", meta)


@pytest.mark.slow
def test_evaluation_with_a_trained_model_is_identical_for_any_number_of_jobs(untrained_model):
    """Workers of a process that already ran torch must not hang (they did with fork)."""
    import signal

    def hung(signum, frame):
        raise TimeoutError("evaluation with jobs=2 hung")

    signal.signal(signal.SIGALRM, hung)
    signal.alarm(300)
    try:
        kwargs = dict(players=3, difficulties=["normal"], games=8, seed=1, progress=False)
        one = evaluate("heuristic", f"ppo:{untrained_model}", jobs=1, **kwargs)
        two = evaluate("heuristic", f"ppo:{untrained_model}", jobs=2, **kwargs)
    finally:
        signal.alarm(0)
    assert one == two


def test_evaluation_changes_with_the_seed():
    kwargs = dict(players=3, difficulties=["easy"], games=30, progress=False)
    a = evaluate("random", "random", seed=1, **kwargs)
    b = evaluate("random", "random", seed=2, **kwargs)
    assert a["results"] != b["results"]


def test_evaluation_report_figures_are_consistent():
    report = evaluate(
        "heuristic",
        "literal:0.5",
        players=4,
        difficulties=["normal"],
        games=40,
        seed=0,
        progress=False,
    )
    r = report["results"]["normal"]
    assert r["games"] == 40 and 0 <= r["wins"] <= 40
    assert r["win_rate"] == r["wins"] / 40
    low, high = r["win_rate_ci95"]
    assert low <= r["win_rate"] <= high
    assert r["mean_doom"] == pytest.approx(
        r["starting_doom"] + r["mean_doom_from_fades"] + r["mean_doom_from_wrong_predictions"]
    )
    assert 0.0 <= r["prediction_accuracy"] <= 1.0


def test_oracle_is_flagged_as_cheating_and_always_wins():
    report = evaluate(
        "random", "oracle", players=3, difficulties=["doomed"], games=20, seed=0, progress=False
    )
    assert report["cheating"] is True
    assert report["results"]["doomed"]["win_rate"] == 1.0


def test_bad_policy_spec_is_a_clear_error():
    with pytest.raises(ValueError, match="'nonsense'"):
        evaluate("nonsense", "random", games=1, progress=False)


def test_outputs_are_json_and_csv(tmp_path):
    report = evaluate(
        "random", "random", players=2, difficulties=["easy"], games=5, seed=0, progress=False
    )
    out = tmp_path / "r.json"
    write_outputs([report], str(out))
    assert json.loads(out.read_text())["results"]["easy"]["games"] == 5
    lines = (tmp_path / "r.csv").read_text().splitlines()
    assert lines[0].startswith("team,play,group") and len(lines) == 2


def test_evaluate_command_prints_a_table_and_writes_files(tmp_path, capsys):
    out = tmp_path / "e.json"
    code = cli_main(
        [
            "evaluate",
            "--play",
            "literal",
            "--group",
            "literal",
            "--players",
            "2",
            "--difficulty",
            "easy,normal",
            "--games",
            "6",
            "--no-progress",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "| easy |" in text and "| normal |" in text
    assert out.exists() and (tmp_path / "e.csv").exists()


def test_evaluate_command_rejects_a_bad_difficulty(capsys):
    assert cli_main(["evaluate", "--difficulty", "medium", "--games", "1", "--no-progress"]) == 2
    assert "--difficulty 'medium' is not allowed" in capsys.readouterr().err


@pytest.mark.parametrize(("games", "jobs"), [(0, 1), (-5, 1), (3, 0)])
def test_evaluate_refuses_a_count_below_one(games, jobs):
    with pytest.raises(
        ValueError, match=r"(games|jobs) -?\d+ is not allowed; allowed: an integer >= 1"
    ):
        evaluate("random", "random", games=games, jobs=jobs, progress=False)


def test_matrix_evaluates_every_play_policy_with_every_group(capsys):
    """--matrix: the cross-play table has one row per play policy, one column per group."""
    code = cli_main(
        [
            "evaluate",
            "--matrix",
            "--players",
            "3",
            "--difficulty",
            "easy",
            "--games",
            "2",
            "--no-progress",
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "Cross-play win rate, easy" in text
    for play in ("random", "literal", "heuristic", "convention"):
        assert f"| {play} |" in text
    assert r"| play \ group | random | literal | bayes | convention | oracle |" in text
