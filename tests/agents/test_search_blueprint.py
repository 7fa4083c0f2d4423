"""Test-time search over a scripted blueprint (shipwreck_agents.search.blueprint)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from conftest import load_script
from test_search import _twins

from shipwreck_agents.evaluation.evaluate import game_seed, play_game
from shipwreck_agents.evaluation.paired import paired_difference
from shipwreck_agents.registry import make_policy, make_team
from shipwreck_agents.search import blueprint as bp
from shipwreck_agents.search.blueprint import BlueprintSearch, parse_blueprint_spec
from shipwreck_env.envs.policy import Team, decide, observation_layouts
from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS, PASS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import new_game, step_inplace
from shipwreck_env.rules.fading import WIN_SCORE
from shipwreck_env.rules.view import make_view

DOOMED = GameConfig(num_players=3, difficulty="doomed")


def _actions(team: Team, games: int, seed: int) -> list[list[int]]:
    out = []
    for i in range(games):
        actions: list[int] = []
        play_game(DOOMED, team, game_seed(seed, "doomed", i), actions)
        out.append(actions)
    return out


def test_a_search_that_never_changes_plays_the_blueprints_games_exactly():
    """margin=inf (searching, never changing) and samples=0 (never searching) play the
    convention's own games action for action; the first does search."""
    want = _actions(make_team("convention"), 4, seed=11)
    never = make_team("search[samples=2,margin=inf]:convention")
    assert _actions(never, 4, seed=11) == want
    assert make_team("search[samples=0]:convention").play.name == "search:convention"
    assert _actions(make_team("search[samples=0]:convention"), 4, seed=11) == want
    searched = []  # searched at least once in those games (else the test proves nothing)
    for i in range(4):
        play_game(DOOMED, never, game_seed(11, "doomed", i))
        searched.append(never.play.stats.searched)
    assert sum(searched) > 0, searched


def test_a_search_leaves_the_games_random_stream_as_it_found_it():
    """A blueprint that draws at random (a random group) plays the same games with a
    search that never changes its choice: the search draws from a child stream."""
    want = _actions(make_team("heuristic+random"), 6, seed=3)
    never = make_team("search[samples=2,margin=inf]:heuristic+random")
    assert _actions(never, 6, seed=3) == want
    assert never.play.stats.decisions > 0


def _group_decisions(games: int, seed: int, samples: int = 3):
    """(searcher as before the decision, state, view, mask) at the leader's group
    decisions the convention search would search, along games the convention plays."""
    policy = BlueprintSearch(make_team("convention"), samples=0)
    layouts = observation_layouts(DOOMED)
    out = []
    for game in range(games):
        rng = np.random.default_rng([seed, game])
        s = new_game(DOOMED, rng)
        policy.reset()
        while not s.over:
            view = make_view(s, s.decider)
            if BlueprintSearch._phase(view) == "group" and len(view.legal) > 1:
                probe = copy.deepcopy(policy.blueprint.group)
                belief = BlueprintSearch._kept_belief(probe, view)
                if belief.max() < belief.sum():
                    searcher = copy.deepcopy(policy)
                    searcher.samples = samples
                    mask = np.zeros(NUM_ACTIONS, np.int8)
                    mask[list(view.legal)] = 1
                    out.append((searcher, s.copy(), view, mask))
            step_inplace(s, decide(policy, s, layouts, rng).action, rng)
    return out


@pytest.fixture(scope="module")
def group_decisions():
    return _group_decisions(games=6, seed=5)


def test_the_search_decides_the_same_in_games_that_differ_only_in_hidden_facts(
    group_decisions,
):
    """Leak test: the search is even handed the real state and must not read it; its
    worlds and choice are the same in every twin of the real game."""
    assert len(group_decisions) >= 3, len(group_decisions)
    checked = 0
    for k, (policy, s, view, mask) in enumerate(group_decisions[:4]):
        base = copy.deepcopy(policy)
        action = base.act(None, mask, view, np.random.default_rng(k), s)
        assert base.stats.searched == 1
        for t in _twins(s, np.random.default_rng(k)):
            twin_view = make_view(t, view.player)
            assert twin_view == view
            other = copy.deepcopy(policy)
            assert other.act(None, mask, twin_view, np.random.default_rng(k), t) == action
            assert other.stats.worlds == base.stats.worlds
            checked += 1
    assert checked >= 6, checked


def test_worlds_are_drawn_from_the_conventions_reading(group_decisions):
    """The kept fate of every world is one the convention's group reading allows."""
    for policy, _, view, _ in group_decisions[:4]:
        reading = copy.deepcopy(policy.blueprint.group).posterior(view)
        worlds = bp.sample_worlds(view, reading, np.random.default_rng(0), 6)
        assert worlds
        for w in worlds:
            assert reading[w.hands[view.active_seat][0] - 1] > 0


def _last_point_decision():
    """A leader's group decision one correct prediction from winning, the kept fate
    unsure under the number line, found along games of heuristic+literal."""
    team = make_team("heuristic+literal")
    layouts = observation_layouts(DOOMED)
    for game in range(200):
        rng = np.random.default_rng([41, game])
        s = new_game(DOOMED, rng)
        while not s.over:
            view = make_view(s, s.decider)
            if (
                BlueprintSearch._phase(view) == "group"
                and s.score == WIN_SCORE - 1
                and bin(view.lines[view.active_seat]).count("1") >= 2
                and view.predictions_left >= 1
            ):
                return s.copy(), view
            step_inplace(s, decide(team, s, layouts, rng).action, rng)
    raise AssertionError("no such decision in 200 games")


def test_the_search_beats_a_blueprint_that_always_passes_at_the_last_point():
    """A group that always passes (random:1) never wins; one correct prediction now wins
    the game, so the search predicts a value the kept fate may have."""
    _, view = _last_point_decision()
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[list(view.legal)] = 1
    blueprint = Team(make_policy("heuristic"), make_policy("random:1"))
    assert blueprint.group.act(None, mask, view, np.random.default_rng(0)) == PASS
    searcher = BlueprintSearch(blueprint, samples=16, margin=0.1)
    action = searcher.act(None, mask, view, np.random.default_rng(0))
    spec = ACTIONS[action]
    assert spec.kind == "predict" and view.lines[view.active_seat] >> (spec.value - 1) & 1
    assert searcher.stats.changed == 1
    again = BlueprintSearch(blueprint, samples=16, margin=float("inf"))
    assert again.act(None, mask, view, np.random.default_rng(0)) == PASS


def test_rollout_values_are_win_shares_and_repeat_with_the_seed(group_decisions):
    policy, _, view, mask = group_decisions[0]
    reading = copy.deepcopy(policy.blueprint.group).posterior(view)
    worlds = bp.sample_worlds(view, reading, np.random.default_rng(1), 3)
    legal = [int(a) for a in np.flatnonzero(mask)][:3]

    def team():
        return Team(*(bp.rollout_blueprint(policy.blueprint.group, view, DOOMED),) * 2)

    values = bp.rollout_values(worlds, legal, team, seed=9)
    assert values.shape == (len(legal),) and ((values >= 0) & (values <= 1)).all()
    assert np.array_equal(values, bp.rollout_values(worlds, legal, team, seed=9))


def test_rollouts_hold_only_the_public_memory_of_the_deciding_player(group_decisions):
    policy, _, view, _ = group_decisions[0]
    convention = copy.deepcopy(policy.blueprint.group)
    convention.posterior(view)
    convention._lines[(view.active_player, view.turn)] = (0, 1, 0, 0)  # a private plan
    convention._carry[(99, 0, 0)] = (1.0,) * 7  # another player's entry is not copied
    fresh = bp.rollout_blueprint(convention, view, DOOMED)
    own = {k[1:]: v for k, v in convention._carry.items() if k[0] == view.player}
    assert own and not fresh._lines and fresh is not convention
    for player in range(3):
        assert {k[1:]: v for k, v in fresh._carry.items() if k[0] == player} == own


def test_candidates_skip_predictions_no_world_makes_right(group_decisions):
    _, s, view, mask = group_decisions[0]
    legal = [int(a) for a in np.flatnonzero(mask)]
    kept = s.hands[view.active_seat][0]
    out = bp.candidate_actions(legal, [s], view.active_seat, PASS)
    predicted = [ACTIONS[a].value for a in out if ACTIONS[a].kind == "predict"]
    assert predicted == [kept] and PASS in out


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("search[samples=x]:convention", "samples='x'"),
        ("search[samples=-1]:convention", "samples=-1"),
        ("search[margin=nan]:convention", "margin=nan"),
        ("search[uncertain=0]:convention", "uncertain=0.0"),
        ("search[doom=99]:convention", "doom=99"),
        ("search[phases=steal]:convention", "phases='steal'"),
        ("search[phases=play]:convention", "phases=play"),
        ("search[foo=1]:convention", "'foo=1' is not known"),
        ("search[samples=4:convention", "not closed"),
        ("search[]:", "names no team"),
        ("search:heuristic+bayes", "keeps memory"),
    ],
)
def test_bad_specs_are_refused_by_name(spec, named):
    with pytest.raises(ValueError, match="allowed") as error:
        make_team(spec)
    assert named in str(error.value)


def test_the_registry_builds_one_search_object_for_both_roles():
    team = make_team("search[samples=4,margin=0.2,uncertain=0.9,doom=6]:convention")
    assert team.play is team.group and isinstance(team.play, BlueprintSearch)
    assert (team.play.samples, team.play.margin, team.play.uncertain, team.play.doom) == (
        4,
        0.2,
        0.9,
        6,
    )
    assert parse_blueprint_spec("phases=play+group") == {"phases": ("play", "group")}
    with_play = make_team("search[phases=play+group]:heuristic+literal").play
    assert with_play.phases == ("play", "group")


def test_search_eval_plays_the_convention_and_its_search_on_the_same_deals(tmp_path):
    """lab/studies/search_eval.py --blueprint: the blueprint's games are the evaluator's
    convention games; the table script recomputes the paired figures from them."""
    search_eval = load_script("search_eval")
    out = tmp_path / "run"
    args = ["--blueprint", "convention", "--difficulty", "doomed", "--games", "4"]
    assert search_eval.main([*args, "--samples", "2", "--doom", "6", "--out", str(out)]) == 0
    report = json.loads(out.with_suffix(".json").read_text())
    assert report["model"] == "convention" and report["options"]["doom"] == 6
    games = report["games"]["doomed"]
    want = [
        play_game(DOOMED, make_team("convention"), game_seed(2026, "doomed", i)).won
        for i in range(4)
    ]
    assert [g["blueprint_won"] for g in games] == want
    text = load_script("search_convention_table").table(tmp_path)
    pair = paired_difference(want, [g["search_won"] for g in games])
    assert f"| run | doomed | 4 | {pair['a']:.3f} | {pair['b']:.3f} |" in text
    assert report["command"] in text


def test_the_table_recomputes_the_paired_figures_from_the_games(tmp_path):
    rows = [
        {"blueprint_won": x, "search_won": y, "blueprint_s": 0.1, "search_s": 0.3}
        | {"searched": 2, "changed": 1}
        for x, y in [(1, 1), (0, 1), (0, 1), (1, 0), (1, 1)]
    ]
    report = {"command": "c", "model": "convention", "load_start": 1.0, "load_end": 1.0}
    report |= {"games_requested": 5, "games": {"hard": rows}}
    report["options"] = {"samples": 8, "margin": 0.1, "uncertain": 1.0, "phases": "group"}
    (tmp_path / "x.json").write_text(json.dumps(report))
    text = load_script("search_convention_table").table(tmp_path)
    assert "| x | hard | 5 | 0.600 | 0.800 | +0.200 [" in text
    assert "| 2 / 1 | 100 | 300 | 2.00 | 1.000 |" in text
