"""A fast-trained team on the reference engine (shipwreck_agents.fast_team)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from test_belief import _brute_force  # noqa: E402

from shipwreck_agents.actor_critic import ActorCritic, export_sb3  # noqa: E402
from shipwreck_agents.fast_team import FastTeamPolicy, shared_policy  # noqa: E402
from shipwreck_env.actions import ACTIONS, NUM_ACTIONS  # noqa: E402
from shipwreck_env.config import GameConfig  # noqa: E402
from shipwreck_env.engine import new_game, step_inplace  # noqa: E402
from shipwreck_env.observation import ObservationLayout, encode  # noqa: E402
from shipwreck_env.view import make_view  # noqa: E402


def _exported(tmp_path, belief_kind: str) -> str:
    torch.manual_seed(0)
    layout = ObservationLayout(3, belief=True)
    path = tmp_path / "team.pth"
    export_sb3(ActorCritic(layout.size, NUM_ACTIONS, (32,)), path)
    meta = {"belief": True, "belief_kind": belief_kind, "role": "self"}
    (tmp_path / "team.meta.json").write_text(json.dumps(meta))
    return str(path)


def test_group_belief_on_the_reference_engine_equals_brute_force(tmp_path):
    policy = FastTeamPolicy(_exported(tmp_path, "policy"))
    layout = ObservationLayout(3, belief=True)
    rng = np.random.default_rng(0)
    compared = 0
    for game in range(6):
        s = new_game(GameConfig(num_players=3, difficulty="easy"), np.random.default_rng(game))
        policy.reset()
        pending = None
        while not s.over:
            view = make_view(s, s.decider)
            mask = np.zeros(NUM_ACTIONS, np.int8)
            mask[list(view.legal)] = 1
            before = copy.deepcopy(s)
            action = policy.act(encode(s, s.decider, layout), mask, view, rng)
            first = view.phase == "play" and not view.turn_actions
            if first and ACTIONS[action].kind == "play":
                pending = _brute_force(before, action, policy.model, layout)
            if policy.last_belief is not None:
                line = s.lines[s.active]
                weights = pending * [(line >> v) & 1 for v in range(7)]
                np.testing.assert_allclose(policy.last_belief, weights / weights.sum(), rtol=1e-4)
                assert policy.last_belief[s.hands[s.active][0] - 1] > 0
                compared += 1
            step_inplace(s, action, rng)
    assert compared >= 5


def test_literal_models_keep_the_literal_block_and_one_object_per_file(tmp_path):
    path = _exported(tmp_path, "literal")
    from shipwreck_agents.registry import make_policy

    assert shared_policy(path) is shared_policy(path) is make_policy(f"fast:{path}")
    policy = shared_policy(path)
    s = new_game(GameConfig(num_players=3), np.random.default_rng(0))
    view = make_view(s, s.decider)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[list(view.legal)] = 1
    action = policy.act(encode(s, s.decider, ObservationLayout(3, belief=True)), mask, view, None)
    assert action in view.legal and policy.last_belief is None


def test_a_fast_model_refuses_a_game_it_was_not_trained_on(tmp_path):
    path = _exported(tmp_path, "literal")
    meta = json.loads((tmp_path / "team.meta.json").read_text())
    meta["num_players"] = 4
    (tmp_path / "team.meta.json").write_text(json.dumps(meta))
    policy = FastTeamPolicy(path)
    s = new_game(GameConfig(num_players=3), np.random.default_rng(0))
    view = make_view(s, s.decider)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[list(view.legal)] = 1
    with pytest.raises(ValueError, match="num_players=4"):
        policy.act(encode(s, s.decider, ObservationLayout(3, belief=True)), mask, view, None)
