"""lab/runs/fit_race.py: the value of the race measured from the games a team plays."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import load_script

from shipwreck_agents.evaluation.evaluate import game_seed, play_game
from shipwreck_agents.evaluation.records import make_record, replay_states
from shipwreck_agents.registry import make_policy, make_team
from shipwreck_agents.scripted.bayes import RaceTable, race_value
from shipwreck_env.rules.config import GameConfig

fit_race = load_script("fit_race", register=True)


def test_the_fit_is_the_win_rate_where_games_are_many_and_monotone_everywhere() -> None:
    """With many games a cell the fit is the measured win rate; cells no game visited
    take the value of their neighbours with more doom or less score, never the rough
    race below them; and the result never falls with score nor rises with doom."""
    rng = np.random.default_rng(3)
    visits = np.zeros((7, 7))
    visits[:, 2:] = 10_000
    rate = np.linspace(0.9, 0.1, 5)[None, :] * np.linspace(0.6, 1.0, 7)[:, None]
    wins = np.zeros((7, 7))
    wins[:, 2:] = rate * 10_000
    table = fit_race.fitted(wins, visits, prior=10.0)
    np.testing.assert_allclose(table[:, 2:], rate, atol=1e-3)
    np.testing.assert_allclose(table[:, 0], table[:, 2])  # no game starts below doom 2
    noisy = fit_race.fitted(rng.integers(0, 5, (7, 7)) * 1.0, np.full((7, 7), 5.0), 1.0)
    for fit in (table, noisy):
        assert np.all(np.diff(fit, axis=0) >= 0) and np.all(np.diff(fit, axis=1) <= 0)
    rough = np.array([[race_value(s, d) for d in range(7)] for s in range(7)])
    np.testing.assert_allclose(fit_race.fitted(np.zeros((7, 7)), np.zeros((7, 7)), 1.0), rough)


def test_turn_starts_are_the_score_and_doom_each_turn_begins_with() -> None:
    """The evaluator's game notes the start of every turn: the first at the game's
    starting score and doom, then each turn's as the engine had it when that turn began,
    and the notes change nothing of the game."""
    team = make_team("literal")  # guesses often wrong: doom moves between turns
    dooms = set()
    for difficulty in ("normal", "hard"):
        config = GameConfig(num_players=3, difficulty=difficulty)
        for game in range(4):
            starts: list[tuple[int, int]] = []
            actions: list[int] = []
            seed = (7, difficulty, game)
            record = play_game(config, team, game_seed(*seed), actions, starts)
            assert record == play_game(config, team, game_seed(*seed))
            end = {"score": record.score, "doom": record.doom, "turns": record.turns}
            end["won"] = record.won
            states = replay_states(make_record(config, game_seed(*seed), actions, end, {}))
            began = [
                (s.score, s.doom)
                for i, s in enumerate(states)
                if i == 0 or (s.turn != states[i - 1].turn and not s.over)
            ]
            assert starts == began and starts[0] == (0, config.starting_doom)
            dooms |= {d for _, d in starts}
    assert len(dooms) >= 3  # turns began at several dooms


def test_a_small_fit_writes_a_table_the_team_reads(tmp_path: Path) -> None:
    out = tmp_path / "race.json"
    fit_race.main(
        ["--team", "heuristic+bayes", "--games", "1", "--difficulty", "normal", "--out", str(out)]
    )
    record = json.loads(out.read_text())
    played = record["counts"]["normal"]
    assert played["games"] == 1 + 2 * len(record["partners"])
    assert played["visits"][0][2] == played["games"]  # every game starts at 0 points, 2 doom
    cells = played["cells"]
    assert len(cells) == played["games"] and cells[0]["newcomer"] == cells[0]["hosts"]
    for key in ("visits", "wins"):  # the cells' counts add up to the whole
        assert np.array_equal(sum(np.array(c[key]) for c in cells), np.array(played[key]))
    table = RaceTable.load(out)
    assert table.table_for(GameConfig(num_players=3, difficulty="normal")) is not None
    assert make_policy(f"types:racetable={out}").race_table.players == 3
    with pytest.raises(SystemExit):
        fit_race.main(["--games", "1"])  # --out is required


def test_the_readings_shown_are_where_the_group_starts_to_guess(capsys) -> None:
    """Just above each reading ``--show`` prints, a group with that race values naming
    its likeliest value over passing (:meth:`BayesGroup.race_outcomes`); just below, not."""
    from shipwreck_agents.scripted.bayes import BayesGroup

    path = Path(__file__).resolve().parents[2] / "agents" / "models" / "race_types.json"
    group = BayesGroup(race_table=RaceTable.load(path))
    config = GameConfig(num_players=3, difficulty="hard")
    checked = 0
    for doom in (4, 5, 6):
        for fade in (0, 1):
            for score, reading in enumerate(fit_race.guess_readings(group, doom, fade, config)):
                calm, right, wrong = group.race_outcomes(score, doom, fade, config=config)
                if reading is None or not 0.02 < reading < 0.98:
                    continue
                for p, guesses in ((reading + 0.01, True), (reading - 0.01, False)):
                    assert (p * right + (1 - p) * wrong > calm) == guesses, (doom, fade, score)
                checked += 1
    assert checked > 20
    fit_race.main(["--show", str(path)])
    shown = capsys.readouterr().out
    assert "hard: win rate" in shown and "  types joins types: " in shown
