"""The game table shared by the terminal and the browser: teammates by spec, refusals
that leave the game unchanged, the public log, saving by replay."""

from __future__ import annotations

import json

import pytest

from shipwreck_apps.play.table import PlayError, Table, make_team
from shipwreck_env.config import GameConfig
from shipwreck_env.render import describe_event


@pytest.mark.parametrize(
    ("spec", "play", "group"),
    [
        ("convention", "convention", "convention"),
        ("bayes", "bayes", "bayes"),
        ("heuristic", "heuristic", "bayes"),  # play-only: the Bayesian group joins it
        ("oracle", "heuristic", "oracle"),  # group-only: the heuristic player joins it
        ("literal+bayes", "literal", "bayes"),
        ("ppo:results/models/play.pth", "ppo:play", "bayes"),
        ("ppo:results/models/predict.pth", "heuristic", "ppo:predict"),
    ],
)
def test_a_teammate_spec_fills_both_roles(spec: str, play: str, group: str) -> None:
    team = make_team(spec)
    assert (team.play.name, team.group.name) == (play, group)


def test_a_model_trained_for_another_game_is_refused_at_the_start() -> None:
    with pytest.raises(ValueError, match="num_players"):
        Table(GameConfig(num_players=4), [0], "ppo:results/models/selfplay.pth", seed=0)


def test_bad_seats_are_refused() -> None:
    for humans in ([], [3], [-1]):
        with pytest.raises(ValueError, match="human seats"):
            Table(GameConfig(num_players=3), humans, "bayes", seed=0)


def test_refused_actions_leave_the_game_unchanged() -> None:
    table = Table(GameConfig(num_players=3), [0, 1], "bayes", seed=2)
    table.advance()
    decider = table.waiting_for
    assert decider in (0, 1)
    before, actions = table.state.copy(), list(table.actions)
    legal = table.legal(decider)
    illegal = next(a for a in range(259) if a not in legal)
    for player, action, words in [
        (1 - decider, legal[0], "decision, not player"),
        (2, legal[0], "not played by a person"),
        (decider, illegal, "is not legal now"),
        (decider, "1", "not an action number"),
        (decider, True, "not an action number"),
        (decider, 259, "not an action number"),
    ]:
        with pytest.raises(PlayError, match=words):
            table.act(player, action)
    assert table.state == before and table.actions == actions
    assert table.legal(1 - decider) == []


def test_advance_stops_at_a_person_or_its_limit() -> None:
    table = Table(GameConfig(num_players=3), [2], "heuristic+bayes", seed=1)
    first = table.advance(limit=1)
    assert len(first) == 1
    table.advance()
    assert table.waiting_for == 2 or table.over


def test_the_log_holds_every_action_and_only_public_events() -> None:
    table = Table(GameConfig(num_players=3), [0], "convention", seed=4)
    table.advance()
    while not table.over:
        table.act(0, table.legal(0)[0])
        table.advance()
    assert [e["index"] for e in table.log] == list(range(1, len(table.actions) + 1))
    public = {describe_event(e) for e in table.state.events}
    assert set(table.log[-1]["events"]) <= public  # the last turn's events, in words
    assert all(e["by"] == ("person" if e["player"] == 0 else "ai") for e in table.log)


def test_a_saved_game_loads_to_the_same_state_and_generator() -> None:
    table = Table(GameConfig(num_players=4, group_decision="vote"), [1, 3], "convention", seed=7)
    table.advance()
    for _ in range(15):
        if table.over:
            break
        table.act(table.waiting_for, table.legal(table.waiting_for)[-1])
        table.advance()
    loaded = Table.loads(table.dumps())
    assert loaded.state == table.state and loaded.actions == table.actions
    assert loaded.rng.bit_generator.state == table.rng.bit_generator.state
    assert loaded.log == table.log and loaded.humans == (1, 3)


def test_an_edited_save_is_refused() -> None:
    table = Table(GameConfig(num_players=3), [0], "bayes", seed=3)
    table.advance()
    data = json.loads(table.dumps())
    data["seed"] = 4  # another deal: the saved state no longer matches
    with pytest.raises(PlayError):
        Table.loads(json.dumps(data))
    with pytest.raises(PlayError, match="not valid JSON"):
        Table.loads("{")
