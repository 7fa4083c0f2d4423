"""The policy-conditioned belief's fast network evaluation against the plain one."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from test_fast_ppo import _config  # noqa: E402

import shipwreck_training.common.policy_belief_batched as belief  # noqa: E402
from shipwreck_training.fast.config import from_dict  # noqa: E402
from shipwreck_training.fast.ppo import Trainer  # noqa: E402


def test_fast_likelihood_equals_the_plain_network_call(monkeypatch):
    """Every likelihood a rollout computes (the first layer shared between hands, the
    head on the legal actions only) equals the network run on each hypothetical
    observation in full (a model with ``logits`` only takes that path)."""
    cfg = from_dict(
        {
            "name": "test",
            "num_games": 64,
            "rollout_steps": 24,
            "torch_threads": 1,
            "env": {"belief": "policy"},
            "ppo": {"hidden": [32, 32]},
        }
    )
    trainer = Trainer(cfg)
    with torch.no_grad():  # a sharper policy than at initialisation: hands matter
        for p in trainer.model.parameters():
            p.mul_(4.0)
    plain = SimpleNamespace(logits=trainer.model.logits)
    original = belief.likelihood
    compared = []

    def both(obs, layout, actions, model, masks_of, carry=None):
        fast = original(obs, layout, actions, model, masks_of, carry)
        slow = original(obs, layout, actions, plain, masks_of, carry)
        np.testing.assert_allclose(fast, slow, rtol=1e-5, atol=1e-9)
        compared.append(int((fast > 0).sum()))
        return fast

    monkeypatch.setattr(belief, "likelihood", both)
    trainer.collect()
    assert len(compared) >= 4 and sum(compared) > 200


def test_the_belief_kind_is_a_config_key_and_old_runs_keep_the_first_play_belief():
    old = _config(env={"belief": "policy"})
    assert old.policy_belief == "first_play" and old.belief_kind == "policy"
    assert Trainer(old).belief.carry is False
    carry = _config(policy_belief="carry", env={"belief": "policy"})
    assert carry.belief_kind == "policy_carry" and Trainer(carry).belief.carry is True
    assert _config().belief_kind == "literal"
    with pytest.raises(ValueError, match=r"policy_belief .carry. is not allowed with env\.belief"):
        _config(policy_belief="carry")
    with pytest.raises(ValueError, match="policy_belief"):
        _config(policy_belief="memory", env={"belief": "policy"})


def test_a_carry_run_resumes_exactly_and_names_its_kind_in_the_exports(tmp_path):
    import json

    from shipwreck_training.fast.run import export_checkpoint, train

    cfg = _config(policy_belief="carry", env={"belief": "policy"})
    straight = train(cfg, tmp_path / "a")
    train(cfg, tmp_path / "b", stop_after=256)
    resumed = train(cfg, tmp_path / "b", resume=True)
    for p, q in zip(straight.model.parameters(), resumed.model.parameters(), strict=True):
        assert torch.equal(p, q)
    for key, value in straight.belief.state_dict().items():
        np.testing.assert_array_equal(value, resumed.belief.state_dict()[key])
    assert (straight.belief.memory_turn >= 0).any()
    meta = json.loads((tmp_path / "a" / "model.meta.json").read_text())
    assert meta["belief_kind"] == "policy_carry" and meta["spec"].startswith("fast:")
    assert json.loads((tmp_path / "a" / "summary.json").read_text())["belief_kind"] == (
        "policy_carry"
    )
    info = export_checkpoint(tmp_path / "b", tmp_path / "team.pth")
    assert info["belief_kind"] == "policy_carry"


def test_the_shipped_models_keep_the_first_play_belief():
    """Models trained before the carried belief read as kind ``policy``: the team keeps
    no memory between turns."""
    import json
    from pathlib import Path

    from shipwreck_agents.learned.fast_team import FastTeamPolicy
    from shipwreck_env.rules.actions import NUM_ACTIONS
    from shipwreck_env.rules.config import GameConfig
    from shipwreck_env.rules.engine import new_game, step_inplace
    from shipwreck_env.rules.observation import ObservationLayout, encode
    from shipwreck_env.rules.view import make_view

    path = Path(__file__).resolve().parents[2] / "results/models/fast_selfplay_imitation.pth"
    assert json.loads(path.with_suffix(".meta.json").read_text())["belief_kind"] == "policy"
    policy = FastTeamPolicy(str(path))
    layout = ObservationLayout(3, belief=True)
    s = new_game(GameConfig(num_players=3, difficulty="hard"), np.random.default_rng(1))
    rng = np.random.default_rng(1)
    policy.reset()
    beliefs = 0
    while not s.over:
        view = make_view(s, s.decider)
        mask = np.zeros(NUM_ACTIONS, np.int8)
        mask[list(view.legal)] = 1
        step_inplace(s, policy.act(encode(s, s.decider, layout), mask, view, rng), rng)
        beliefs += policy.last_belief is not None
    assert beliefs > 3 and policy._memory == {}


def test_the_belief_kinds_script_evaluates_both_kinds_and_counts_after_play(capsys):
    import json
    from pathlib import Path

    from conftest import load_script

    root = Path(__file__).resolve().parents[2]
    script = load_script("belief_kinds_eval")
    model = str(root / "results/models/fast_selfplay_imitation.pth")
    assert script.main([model, "--games", "3"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["belief_kind"] for r in rows] == ["policy", "policy_carry"]
    assert all(0 <= r["doomed"][0] <= 1 for r in rows)
    assert script.main([model, "--games", "3", "--after-play"]) == 0
    count = json.loads(capsys.readouterr().out)
    assert 0 <= count["of_which_not_pass"] <= count["after_play_decision_before_group"]
    assert count["turns_with_policy_block"] > 0
    assert script.main([model, "--games", "3", "--paired"]) == 0
    paired = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["difficulty"] for r in paired] == ["normal", "hard", "doomed"]
    assert all(r["won_only_carried"] + r["won_only_first_play"] <= 3 for r in paired)
