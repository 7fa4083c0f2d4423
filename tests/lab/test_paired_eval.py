"""lab/studies/paired_eval.py: two teams on the same deals, paired."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import load_script

from shipwreck_agents.base import Team
from shipwreck_agents.evaluation.evaluate import evaluate, game_seed, play_game, wins_by_game
from shipwreck_agents.registry import make_policy
from shipwreck_env.rules.config import GameConfig

paired_eval = load_script("paired_eval")


def test_sign_test_matches_the_binomial_tail() -> None:
    assert paired_eval.sign_test(0, 0) == 1.0
    assert paired_eval.sign_test(5, 5) == 1.0
    assert paired_eval.sign_test(0, 5) == pytest.approx(2 / 32)
    assert paired_eval.sign_test(29, 40) == pytest.approx(
        2 * sum(math.comb(69, i) for i in range(30)) / 2**69
    )


def test_paired_counts_the_deals_each_team_alone_won() -> None:
    a = [True, True, False, False, True]
    b = [True, False, True, True, False]
    row = paired_eval.paired(a, b)
    assert (row["only_a"], row["only_b"]) == (2, 2)
    assert row["a"] == 0.6 and row["b"] == 0.6 and row["b_minus_a"] == 0.0
    assert row["half_width95"] > 0


def test_each_side_is_the_reference_evaluator_on_the_same_deals(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "p.json"
    args = ["heuristic", "heuristic", "--group-a", "bayes", "--group-b", "literal"]
    args += ["--games", "12", "--seed", "3", "--difficulty", "normal", "--jobs", "2"]
    assert paired_eval.main([*args, "--out", str(out)]) == 0
    row = json.loads(out.read_text())["results"]["normal"]
    for side, group in (("a", "bayes"), ("b", "literal")):
        ref = evaluate("heuristic", group, games=12, seed=3, difficulties=["normal"])
        assert row[side] == ref["results"]["normal"]["win_rate"]
    assert paired_eval.main([*args[:-2], "--jobs", "1", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["results"]["normal"] == row
    assert "only A won" in capsys.readouterr().out


def test_wins_by_game_are_the_reference_games_in_order() -> None:
    config = GameConfig(num_players=3, difficulty="doomed")
    team = Team(make_policy("heuristic"), make_policy("bayes"))
    want = [play_game(config, team, game_seed(5, "doomed", i)).won for i in range(16)]
    assert 0 < sum(want) < 16  # a shifted or shuffled list would differ
    for jobs in (1, 2):
        got = wins_by_game(
            "heuristic", "bayes", difficulties=["doomed"], games=16, seed=5, jobs=jobs
        )
        assert got == {"doomed": want}


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["nobody", "heuristic"], "nobody"),
        (["heuristic", "heuristic", "--group-b", "nobody", "--games", "5000"], "nobody"),
        (["heuristic", "heuristic", "--difficulty", "lethal"], "difficulty 'lethal'"),
        (["heuristic", "heuristic", "--games", "0"], "games 0"),
    ],
)
def test_bad_input_is_one_line(args: list[str], named: str, capsys: pytest.CaptureFixture) -> None:
    assert paired_eval.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and named in err and "Traceback" not in err


def _search_file(path: Path, seed: int, wins: dict[str, list[bool]]) -> None:
    """A file shaped as lab/studies/search_eval.py writes it, games in a shuffled order."""
    games = {
        d: [
            {"game": i, "blueprint_won": not w, "search_won": w}
            for i, w in reversed(list(enumerate(ws)))
        ]
        for d, ws in wins.items()
    }
    path.write_text(json.dumps({"seed": seed, "games": games}))


def test_a_recorded_search_run_pairs_as_the_team_itself_on_the_same_deals(
    tmp_path: Path,
) -> None:
    """A side read from a search_eval file gives the figures of playing a team whose
    per-game wins are those recorded: its game i is the evaluator's game i."""
    wins = wins_by_game("heuristic", "literal", games=12, seed=3, difficulties=["normal"])
    assert 0 < sum(wins["normal"]) < 12
    recorded = tmp_path / "search.json"
    _search_file(recorded, 3, wins)
    common = ["--games", "12", "--seed", "3", "--difficulty", "normal"]
    played, read = tmp_path / "played.json", tmp_path / "read.json"
    assert (
        paired_eval.main(
            [
                "heuristic",
                "heuristic",
                "--group-a",
                "bayes",
                "--group-b",
                "literal",
                *common,
                "--out",
                str(played),
            ]
        )
        == 0
    )
    assert (
        paired_eval.main(
            ["heuristic", f"recorded:{recorded}", "--group-a", "bayes", *common, "--out", str(read)]
        )
        == 0
    )
    assert json.loads(read.read_text())["results"] == json.loads(played.read_text())["results"]
    blueprint = paired_eval.recorded_wins(f"recorded:{recorded}#blueprint", 3, 12, ["normal"])
    assert blueprint["normal"] == [not w for w in wins["normal"]]


@pytest.mark.parametrize(
    ("spec_tail", "extra", "message"),
    [
        ("", ["--seed", "4"], "holds seed 3, not --seed 4"),
        ("", ["--games", "13"], "lacks 1 of games 0..12 at normal (first missing: 12)"),
        ("", ["--difficulty", "normal,hard"], "lacks 12 of games 0..11 at hard"),
        ("#oracle", [], "recorded team 'oracle' is not allowed; allowed: ['search', 'blueprint']"),
        ("", ["--group-b", "bayes"], "--group-b does not apply to a recorded team"),
        ("", ["--players", "4"], "got --players 4 --card-sets base"),
        ("", ["--card-sets", "all"], "got --players 3 --card-sets all"),
    ],
)
def test_a_recorded_side_that_is_not_the_deals_asked_for_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture, spec_tail: str, extra: list, message: str
) -> None:
    recorded = tmp_path / "search.json"
    _search_file(recorded, 3, {"normal": [True, False] * 6})
    args = ["random", f"recorded:{recorded}{spec_tail}", "--games", "12", "--seed", "3"]
    args += ["--difficulty", "normal"]
    assert paired_eval.main([*args, *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_file_that_is_not_a_search_run_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert paired_eval.main(["random", f"recorded:{bad}", "--games", "2"]) == 2
    assert "is not a lab/studies/search_eval.py output" in capsys.readouterr().err
    assert paired_eval.main(["random", f"recorded:{tmp_path / 'none.json'}"]) == 2
    assert "is not a lab/studies/search_eval.py output" in capsys.readouterr().err
