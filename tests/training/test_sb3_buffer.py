"""The SB3 trainer's rollout buffer (shipwreck_training.sb3.buffer) against
sb3-contrib's, and the faster update's determinism."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("sb3_contrib")

from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

from shipwreck_training.sb3.buffer import FastRolloutBuffer

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "sb3" / "selfplay.yaml"


def _filled(cls: type, steps: int = 6, envs: int = 4) -> MaskableRolloutBuffer:
    rng = np.random.default_rng(0)
    buf = cls(steps, spaces.Box(-1, 1, (5,)), spaces.Discrete(7), "cpu", n_envs=envs)
    for _ in range(steps):
        masks = rng.random((envs, 7)) < 0.5
        buf.add(
            rng.random((envs, 5)).astype(np.float32),
            rng.integers(0, 7, (envs, 1)),
            rng.random(envs).astype(np.float32),
            rng.random(envs) < 0.2,
            torch.from_numpy(rng.random(envs).astype(np.float32)),
            torch.from_numpy(rng.random(envs).astype(np.float32)),
            action_masks=masks,
        )
    buf.compute_returns_and_advantage(torch.zeros(envs), np.zeros(envs, bool))
    return buf


def test_minibatches_match_sb3_contribs_row_for_row():
    batches = []
    for cls in (MaskableRolloutBuffer, FastRolloutBuffer):
        np.random.seed(3)  # the buffers draw their permutation from numpy's global stream
        batches.append(list(_filled(cls).get(batch_size=5)))
    assert len(batches[0]) == len(batches[1]) == 5
    for stock, fast in zip(*batches, strict=True):
        for name, a, b in zip(stock._fields, stock, fast, strict=True):
            assert a.dtype == b.dtype and torch.equal(a, b), name


def _one_update(seed: int) -> list[torch.Tensor]:
    from shipwreck_training.sb3.config import load_config
    from shipwreck_training.sb3.train import _new_model, _vec_env

    overrides = ["num_games=8", "ppo.n_steps=16", "ppo.batch_size=32", "ppo.net_arch=[32]"]
    cfg = load_config(CONFIG, [*overrides, f"seed={seed}"])
    assert cfg.ppo.fast_update
    model = _new_model(cfg, _vec_env(cfg, "self", None, cfg.seed * 1000), Path("/nonexistent"))
    model.tensorboard_log = None
    assert isinstance(model.rollout_buffer, FastRolloutBuffer)
    model.learn(2 * cfg.rollout_size)
    return [p.detach().clone() for p in model.policy.parameters()]


def test_the_faster_update_gives_the_same_result_from_the_same_seed():
    first, again, other = _one_update(0), _one_update(0), _one_update(1)
    assert all(torch.equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(first, other, strict=True))


def test_the_faster_update_moves_the_weights_as_sb3_contribs_does():
    """One MaskablePPO update (5 epochs over one rollout) from the same weights, optimiser
    state, rollout and minibatch order: sb3-contrib's distribution, buffer and Adam
    against the faster ones end at the same weights up to float rounding."""
    from shipwreck_training.sb3.config import load_config
    from shipwreck_training.sb3.distribution import use_fast_update
    from shipwreck_training.sb3.train import _new_model, _vec_env

    overrides = ["num_games=8", "ppo.n_steps=32", "ppo.batch_size=64", "ppo.net_arch=[32]"]
    cfg = load_config(CONFIG, [*overrides, "ppo.fast_update=false"])
    model = _new_model(cfg, _vec_env(cfg, "self", None, 0), Path("/nonexistent"))
    model.tensorboard_log = None
    model.learn(cfg.rollout_size)  # leaves one rollout in the buffer
    stock_buffer = model.rollout_buffer
    start = ({k: v.clone() for k, v in model.policy.state_dict().items()},)
    start += (copy.deepcopy(model.policy.optimizer.state_dict()),)
    moved = []
    for fast in (False, True):
        model.policy.load_state_dict(start[0])
        model.policy.optimizer.load_state_dict(copy.deepcopy(start[1]))
        if fast:
            use_fast_update(model)
            for name in ("observations", "actions", "values", "log_probs", "advantages"):
                setattr(model.rollout_buffer, name, getattr(stock_buffer, name))
            for name in ("returns", "action_masks", "full", "generator_ready", "pos"):
                setattr(model.rollout_buffer, name, getattr(stock_buffer, name))
        np.random.seed(7)  # the minibatch order
        model.train()
        moved.append({k: p.detach().clone() for k, p in model.policy.named_parameters()})
    assert isinstance(model.rollout_buffer, FastRolloutBuffer)
    for name, stock in moved[0].items():
        torch.testing.assert_close(moved[1][name], stock, rtol=1e-4, atol=1e-5)
        assert not torch.equal(stock, start[0][name]), name  # the update moved it
