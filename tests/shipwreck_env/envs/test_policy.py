"""The one decision path (:mod:`shipwreck_env.envs.policy`): ``decide`` gives each policy its
own observation layout, the state only when it asks for it, and refuses illegal
answers; every registered policy -- shipped models and the oracle included -- is a
working partner of the Gymnasium environments; the evaluator takes policy objects.

Authority: the module docstrings of ``shipwreck_env/envs/policy.py`` and
``shipwreck_env/envs/gym_env.py`` (Arguments), and issue 13.
"""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from helpers import fake_rllib_checkpoint

import shipwreck_env  # noqa: F401 -- registers the ids
from shipwreck_agents.evaluation.crossplay import MixedTable
from shipwreck_agents.evaluation.evaluate import evaluate, game_seed, play_game
from shipwreck_agents.registry import GROUP_SPECS, PLAY_SPECS, make_policy
from shipwreck_env.envs.policy import (
    Policy,
    Team,
    decide,
    let_watch,
    observation_layouts,
    watches,
)
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import IllegalActionError, new_game, step_inplace
from shipwreck_env.rules.observation import ObservationLayout, encode
from shipwreck_env.rules.view import make_view

MODELS = Path(__file__).resolve().parents[3] / "results" / "models"
SHIPPED = sorted(MODELS.glob("*.pth"))


class Spy(Policy):
    """Records what it is handed; plays the first legal action."""

    def __init__(self, needs_observation: bool, belief: bool, needs_state: bool) -> None:
        self.needs_observation = needs_observation
        self.belief = belief
        self.needs_state = needs_state
        self.seen: list[tuple] = []

    def act(self, observation, mask, view, rng, state=None) -> int:
        self.seen.append((observation, mask, view, state))
        return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("belief", [False, True])
def test_decide_encodes_in_the_policys_own_layout(belief: bool) -> None:
    config = GameConfig(num_players=3)
    s = new_game(config, np.random.default_rng(0))
    spy = Spy(needs_observation=True, belief=belief, needs_state=False)
    decision = decide(spy, s, observation_layouts(config), np.random.default_rng(1))
    observation, mask, view, state = spy.seen[0]
    layout = ObservationLayout.for_config(config, belief)
    assert np.array_equal(observation, encode(s, s.decider, layout))
    assert np.flatnonzero(mask).tolist() == list(view.legal)
    assert state is None
    assert decision.action == int(np.flatnonzero(mask)[0])
    assert decision.view == view


def test_decide_skips_the_observation_and_hands_the_state_only_on_request() -> None:
    config = GameConfig(num_players=3)
    s = new_game(config, np.random.default_rng(0))
    layouts = observation_layouts(config)
    plain = Spy(needs_observation=False, belief=False, needs_state=False)
    cheat = Spy(needs_observation=False, belief=False, needs_state=True)
    decide(plain, s, layouts, np.random.default_rng(1))
    decide(cheat, s, layouts, np.random.default_rng(1))
    assert plain.seen[0][0] is None and plain.seen[0][3] is None
    assert cheat.seen[0][3] is s


def test_decide_routes_a_team_by_role() -> None:
    config = GameConfig(num_players=3)
    s = new_game(config, np.random.default_rng(0))
    play = Spy(needs_observation=False, belief=False, needs_state=False)
    group = Spy(needs_observation=False, belief=False, needs_state=False)
    layouts = observation_layouts(config)
    rng = np.random.default_rng(1)
    while not s.over and not group.seen:
        step_inplace(s, decide(Team(play, group), s, layouts, rng).action, rng)
    assert play.seen and group.seen
    assert all(v.decider == v.active_player for _, _, v, _ in play.seen)
    assert all(v.decider != v.active_player for _, _, v, _ in group.seen)


def test_decide_refuses_an_illegal_answer() -> None:
    class Bad(Policy):
        name = "bad"

        def act(self, observation, mask, view, rng, state=None) -> int:
            return int(np.flatnonzero(mask == 0)[0])

    config = GameConfig(num_players=3)
    s = new_game(config, np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="bad"):
        decide(Bad(), s, observation_layouts(config), np.random.default_rng(1))


# --- every registered policy is a partner --------------------------------------------------


def _role_env(spec: str) -> list[str]:
    """The Gymnasium ids where ``spec`` can be the partner (it decides the other role)."""
    if spec.startswith("ppo:"):
        meta = json.loads(Path(spec[4:]).with_suffix(".meta.json").read_text())
        role = meta["role"]
        return {
            "play": ["ShipwreckArcana-Predict-v0"],
            "predict": ["ShipwreckArcana-Play-v0"],
        }.get(role, ["ShipwreckArcana-Play-v0", "ShipwreckArcana-Predict-v0"])
    ids = []
    if spec in GROUP_SPECS:
        ids.append("ShipwreckArcana-Play-v0")
    if spec in PLAY_SPECS:
        ids.append("ShipwreckArcana-Predict-v0")
    return ids


RLLIB = "rllib:"
"""Stands for ``rllib:PATH`` of a checkpoint the test makes without Ray (role ``self``:
it partners both envs)."""
PARTNERS = [
    (env_id, spec)
    for spec in dict.fromkeys([*PLAY_SPECS, *GROUP_SPECS, *(f"ppo:{p}" for p in SHIPPED)])
    for env_id in _role_env(spec)
] + [
    (env_id, spec)
    for spec in (RLLIB, "fast:results/models/fast_selfplay.pth")
    for env_id in ("ShipwreckArcana-Play-v0", "ShipwreckArcana-Predict-v0")
]
"""Every registry spec, the shipped SB3 models, an RLlib checkpoint and the shipped
fast-trainer team (role ``self``: both envs)."""


@pytest.mark.parametrize(
    ("env_id", "spec"), PARTNERS, ids=[f"{e}-{Path(s).name}" for e, s in PARTNERS]
)
def test_every_registered_policy_is_a_gymnasium_partner(
    env_id: str, spec: str, tmp_path: Path
) -> None:
    """``gymnasium.make(id, partner=make_policy(spec))`` plays whole episodes (a model
    trained with the belief block partners an env without it; the oracle gets the
    state)."""
    if spec == RLLIB:
        pytest.importorskip("torch")
        spec += str(fake_rllib_checkpoint(tmp_path, belief=True)[0])
    if spec.startswith("fast:"):
        pytest.importorskip("torch")
        spec = "fast:" + str(MODELS / Path(spec).name)
    env = gymnasium.make(env_id, num_players=3, partner=make_policy(spec), max_turns=30)
    rng = np.random.default_rng(0)
    for seed in range(2):
        env.reset(seed=seed)
        done = False
        while not done:
            legal = np.flatnonzero(env.unwrapped.action_masks())
            _, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
            done = terminated or truncated


def test_a_policy_partner_plays_as_it_does_in_the_evaluator() -> None:
    """The Gymnasium partner is asked exactly as the evaluator asks a team: an episode of
    the Play env whose learner follows the heuristic player, with the Bayesian group as
    partner, is the engine game of ``decide(Team(heuristic, bayes), ...)`` with the env's
    generators (game: ``default_rng(seed)``, partner: ``default_rng([seed, 1])``)."""
    config = GameConfig(num_players=3)
    layouts = observation_layouts(config)
    env = gymnasium.make("ShipwreckArcana-Play-v0", num_players=3, partner=make_policy("bayes"))
    env.reset(seed=4)
    heuristic = make_policy("heuristic")
    learner_rng = np.random.default_rng(9)
    done = False
    while not done:
        action = decide(heuristic, env.unwrapped.state, layouts, learner_rng).action
        _, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated

    team = Team(make_policy("heuristic"), make_policy("bayes"))
    game_rng, partner_rng = np.random.default_rng(4), np.random.default_rng([4, 1])
    learner_rng = np.random.default_rng(9)
    s = new_game(config, game_rng)
    while not s.over:
        rng = learner_rng if s.decider == s.active_player else partner_rng
        step_inplace(s, decide(team, s, layouts, rng).action, game_rng)
    assert s == env.unwrapped.state


# --- the evaluator takes policy objects ---------------------------------------------------


def test_evaluate_takes_policy_objects_with_the_same_results() -> None:
    kwargs = dict(players=3, difficulties=["easy"], games=12, seed=3, progress=False)
    by_spec = evaluate("heuristic", "literal:0.6", **kwargs)
    by_object = evaluate(make_policy("heuristic"), make_policy("literal:0.6"), jobs=2, **kwargs)
    assert by_object["results"] == by_spec["results"]
    assert by_object["team"] == by_spec["team"]
    assert by_object["play"] == "heuristic" and by_object["group"] == "literal"


def test_game_seed_replays_one_game_of_a_report() -> None:
    report = evaluate(
        "heuristic", "bayes", players=3, difficulties=["hard"], games=3, seed=8, progress=False
    )
    config = GameConfig(num_players=3, difficulty="hard")
    team = Team(make_policy("heuristic"), make_policy("bayes"))
    wins = sum(play_game(config, team, game_seed(8, "hard", i)).won for i in range(3))
    assert wins == report["results"]["hard"]["wins"]


def test_evaluate_rejects_what_is_not_a_policy() -> None:
    with pytest.raises(ValueError, match="policy"):
        evaluate(3, "bayes", games=1, progress=False)


class Watcher(Policy):
    """Plays the first legal action and records every view it is shown between."""

    def __init__(self) -> None:
        self.watched: list = []

    def watch(self, view) -> None:
        self.watched.append(view)

    def act(self, observation, mask, view, rng, state=None) -> int:
        return view.legal[0]


def test_let_watch_shows_every_player_but_the_next_decider_its_own_view() -> None:
    """After each action, each player of a watching policy except the one deciding next
    is handed its own view of the table (hidden facts stay out: it is ``make_view``'s);
    ``players`` narrows who watches; a policy that keeps the default is never asked."""
    config = GameConfig(num_players=3)
    rng = np.random.default_rng(4)
    s = new_game(config, rng)
    spy, watcher = Spy(False, False, False), Watcher()
    assert watches(watcher) and not watches(spy) and not watches(lambda *a: 0)
    for _ in range(40):
        step_inplace(s, decide(watcher, s, observation_layouts(config), rng).action, rng)
        if s.over:
            break
        before = len(watcher.watched)
        let_watch(watcher, s)
        shown = watcher.watched[before:]
        assert [v.player for v in shown] == [p for p in range(3) if p != s.decider]
        assert all(v == make_view(s, v.player) for v in shown)
        let_watch(watcher, s, players=[0])
        assert [v.player for v in watcher.watched[before + len(shown) :]] == (
            [0] if s.decider != 0 else []
        )
        let_watch(Team(spy, spy), s)  # asks no one
    assert not spy.seen


def test_the_evaluator_and_a_mixed_table_route_watching_to_each_player_s_team() -> None:
    """``play_game`` lets every watching player watch after each action; at a mixed
    table each player watches through its own team only."""
    config = GameConfig(num_players=3)
    watcher, other = Watcher(), Watcher()
    table = MixedTable([Team(watcher, watcher), Team(other, other), Team(watcher, watcher)])
    play_game(config, table, game_seed(3, "normal", 0))
    assert watcher.watched and other.watched
    assert {v.player for v in watcher.watched} == {0, 2}
    assert {v.player for v in other.watched} == {1}
