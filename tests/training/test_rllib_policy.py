"""The RLlib trainer's parts that need no Ray: its config (bad keys refused by name) and
the ``rllib:PATH`` loader, which plays a checkpoint in the main environment (gymnasium
1.4, no Ray). Runs in both .venv and .venv-rllib; tests/training/test_rllib.py makes real
checkpoints with a real Ray."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("pydantic")

from helpers import fake_rllib_checkpoint

from shipwreck_agents.evaluation.evaluate import evaluate
from shipwreck_agents.learned.rllib import find_checkpoint
from shipwreck_agents.registry import make_policy
from shipwreck_training.rllib.config import env_config, from_dict, load_config

ROOT = Path(__file__).resolve().parents[2]


def test_batched_config_is_valid():
    cfg = load_config(ROOT / "configs" / "rllib" / "selfplay_batched.yaml")
    assert cfg.engine == "batched" and cfg.env_runners.num_envs_per_env_runner == 64
    with pytest.raises(ValueError, match=r"multi_agent\.policies \['a', 'b'\] is not allowed"):
        load_config(
            ROOT / "configs" / "rllib" / "selfplay_batched.yaml",
            [
                "multi_agent.policies=[a, b]",
                "multi_agent.policy_mapping={default: a}",
                "multi_agent.play_policy=a",
            ],
        )


def test_shipped_config_is_valid():
    cfg = load_config(ROOT / "configs" / "rllib" / "selfplay.yaml")
    assert cfg.multi_agent.policies == ("shared",)
    assert cfg.multi_agent.policy_mapping == {"default": "shared"}
    assert env_config(cfg)["difficulties"] == ["easy", "normal", "hard", "doomed"]
    assert cfg.ray.address is None
    over = load_config(
        ROOT / "configs" / "rllib" / "selfplay.yaml",
        ["ray.address=auto", "env_runners.num_env_runners=4", "ppo.lr=1e-4"],
    )
    assert (over.ray.address, over.env_runners.num_env_runners, over.ppo.lr) == ("auto", 4, 1e-4)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"iteration": 3}, "iteration is not a known key; allowed: ['checkpoint_every'"),
        ({"ppo": {"learning_rate": 1e-3}}, "ppo.learning_rate is not a known key; allowed: ["),
        ({"env_runners": {"num_workers": 2}}, "env_runners.num_workers is not a known key"),
        ({"env": {"difficulty": "hard"}}, "env.difficulty is not a known key"),
        ({"ppo": {"lr": -1.0}}, "ppo.lr -1.0 is not allowed"),
        ({"env": {"difficulties": ["impossible"]}}, "env.difficulties.0 'impossible'"),
        (
            {"multi_agent": {"policy_mapping": {"default": "other"}}},
            "multi_agent: policy_mapping.default 'other' is not a module; allowed: ['shared']",
        ),
        (
            {"multi_agent": {"policy_mapping": {"player_9": "shared", "default": "shared"}}},
            "multi_agent.policy_mapping.player_9 is not a seat",
        ),
        ({"env": {"num_players": 9}}, "env: num_players 9 is not allowed; allowed: 2 to 5"),
        ({"ppo": {"minibatch_size": 9000}}, "ppo.minibatch_size 9000 is not allowed"),
        (
            {"env": {"belief": "policy"}},
            "env.belief 'policy' is not allowed for the RLlib trainer with engine aec; "
            "allowed: 'none', 'literal' ('policy' needs engine batched)",
        ),
    ],
)
def test_bad_config_is_refused_by_name(data, message):
    with pytest.raises(ValueError) as caught:
        from_dict(data)
    assert str(caught.value).startswith(message)


def test_rllib_spec_plays_games_without_ray(tmp_path):
    checkpoint, net = fake_rllib_checkpoint(tmp_path)
    for path in (
        checkpoint,
        tmp_path / "run",
        checkpoint / "learner_group/learner/rl_module/shared",
    ):
        policy = make_policy(f"rllib:{path}")
        assert policy.name == "rllib:iter_000004" and policy.belief
        for a, b in zip(policy.net.state_dict().values(), net.state_dict().values(), strict=True):
            assert np.array_equal(a.numpy(), b.numpy())
    report = evaluate(
        f"rllib:{checkpoint}", f"rllib:{checkpoint}", difficulties=["easy"], games=5, progress=False
    )
    assert report["results"]["easy"]["games"] == 5  # every decision legal (decide checks)


def test_rllib_policy_refuses_another_game(tmp_path):
    checkpoint, _ = fake_rllib_checkpoint(tmp_path, players=3)
    with pytest.raises(ValueError, match="num_players=3"):
        evaluate(
            f"rllib:{checkpoint}",
            "heuristic",
            players=4,
            difficulties=["easy"],
            games=1,
            progress=False,
        )


def test_rllib_spec_names_what_is_wrong(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        make_policy(f"rllib:{tmp_path / 'missing'}")
    with pytest.raises(ValueError, match=r"is not a checkpoint of shipwreck_training\.rllib "):
        find_checkpoint(tmp_path)


def test_rllib_policy_as_gymnasium_partner_and_play_teammates(tmp_path):
    import gymnasium as gym

    import shipwreck_env  # noqa: F401  (registers the Gymnasium ids)
    from shipwreck_apps.play.table import make_team

    checkpoint, _ = fake_rllib_checkpoint(tmp_path)
    team = make_team(f"rllib:{checkpoint}")
    assert team.play is team.group and team.play.name == "rllib:iter_000004"
    env = gym.make(
        "ShipwreckArcana-Play-v0", partner=make_policy(f"rllib:{checkpoint}"), belief=True
    )
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        legal = np.flatnonzero(env.unwrapped.action_masks())
        _, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            break
    assert terminated or truncated


def test_an_iteration_without_samples_counts_no_steps():
    """On a loaded machine RLlib can return an iteration without samples (NaN counts)."""
    from shipwreck_training.rllib.train import _stat

    result = {"env_runners": {"num_env_steps_sampled": float("nan"), "episode_return_mean": 2}}
    assert _stat(result, "env_runners", "num_env_steps_sampled") == 0.0
    assert _stat(result, "env_runners", "episode_return_mean") == 2.0
    assert _stat(result, "env_runners", "missing", default=-1.0) == -1.0


def test_command_reports_a_bad_key_in_one_line(tmp_path, capsys):
    from shipwreck_training.rllib.train import main

    config = str(ROOT / "configs" / "rllib" / "selfplay.yaml")
    code = main(
        ["--config", config, "--output-dir", str(tmp_path / "runs"), "ppo.learning_rate=1e-4"]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("error: ppo.learning_rate is not a known key; allowed: [")
        and err.count("\n") == 1
    )
    assert not (tmp_path / "runs").exists()
