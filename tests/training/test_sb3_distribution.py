"""The SB3 trainer's masked categorical (shipwreck_training.sb3.distribution) against
sb3-contrib's: the same log-probabilities, entropy, mode and sampling law."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

from shipwreck_training.sb3.distribution import FastMaskedCategorical

ACTIONS = 259


def _pair(logits: torch.Tensor, masks: torch.Tensor | None):
    stock = MaskableCategoricalDistribution(ACTIONS).proba_distribution(logits)
    fast = FastMaskedCategorical(ACTIONS).proba_distribution(logits)
    stock.apply_masking(masks)
    fast.apply_masking(masks)
    return stock, fast


def _inputs(rows: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    logits = 3 * torch.randn(rows, ACTIONS, generator=g)
    masks = torch.rand(rows, ACTIONS, generator=g) < 0.05
    masks[torch.arange(rows), torch.randint(ACTIONS, (rows,), generator=g)] = True
    return logits, masks


@pytest.mark.parametrize("masked", [True, False])
def test_log_probabilities_entropy_and_mode_match_sb3_contrib(masked):
    logits, masks = _inputs(64, 0)
    stock, fast = _pair(logits, masks if masked else None)
    legal = masks if masked else torch.ones_like(masks)
    actions = torch.multinomial(legal.float(), 1).squeeze(-1)  # legal actions only
    torch.testing.assert_close(fast.log_prob(actions), stock.log_prob(actions))
    torch.testing.assert_close(fast.entropy(), stock.entropy())
    assert torch.equal(fast.mode(), stock.mode())


def test_gradients_match_sb3_contrib():
    logits, masks = _inputs(16, 1)
    grads = []
    for cls in (MaskableCategoricalDistribution, FastMaskedCategorical):
        x = logits.clone().requires_grad_()
        d = cls(ACTIONS).proba_distribution(x)
        d.apply_masking(masks)
        actions = masks.float().argmax(-1)
        (d.log_prob(actions).sum() + 0.01 * d.entropy().sum()).backward()
        grads.append(x.grad)
    torch.testing.assert_close(grads[1], grads[0])


def test_samples_are_legal_and_follow_the_probabilities():
    logits, masks = _inputs(4, 2)
    _, fast = _pair(logits, masks)
    torch.manual_seed(0)
    draws = torch.stack([fast.sample() for _ in range(4000)])
    assert masks.gather(1, draws.T).all()
    frequency = torch.zeros(4, ACTIONS).scatter_add_(1, draws.T, torch.ones(4, 4000)) / 4000
    assert (frequency - fast.p).abs().max() < 0.04  # 4,000 draws: sd below 0.008


@pytest.mark.parametrize("fast", [True, False])
def test_the_trainer_builds_and_reloads_models_with_the_update_its_config_names(fast, tmp_path):
    from shipwreck_training.sb3.config import load_config
    from shipwreck_training.sb3.train import _load_model, _new_model, _vec_env

    cfg = load_config(
        Path(__file__).resolve().parents[2] / "configs" / "sb3" / "selfplay.yaml",
        ["num_games=4", "env.difficulties=[normal]", f"ppo.fast_update={str(fast).lower()}"],
    )
    venv = _vec_env(cfg, "self", None, 0)
    model = _new_model(cfg, venv, tmp_path)
    model.save(tmp_path / "m.zip")
    for m in (model, _load_model(cfg, tmp_path / "m.zip", venv, tmp_path)):
        assert isinstance(m.policy.action_dist, FastMaskedCategorical) == fast
        assert all(
            g.get("fused") == (True if fast else None) for g in m.policy.optimizer.param_groups
        )


def test_a_draw_rounding_up_to_the_total_takes_the_last_legal_action(monkeypatch):
    """float32 can round ``u * total`` up to ``total``: the draw past every cumulative
    sum then falls on the row's last action of positive weight, never past the row nor
    on a masked action after it."""
    from shipwreck_training.sb3 import distribution

    p = torch.zeros(3, ACTIONS)
    p[0, [3, 7]] = 0.5  # legal actions first, masked ones after
    p[1, ACTIONS - 1] = 1.0
    p[2, :] = 1.0 / ACTIONS
    top = torch.nextafter(torch.tensor(1.0), torch.tensor(0.0))  # rand's largest value
    monkeypatch.setattr(distribution.torch, "rand", lambda shape, dtype: torch.full(shape, top))
    monkeypatch.setattr(
        distribution.torch, "searchsorted", lambda cdf, u, right: cdf.shape[-1] + 0 * u.long()
    )
    assert distribution.sample_rows(p).tolist() == [7, ACTIONS - 1, ACTIONS - 1]


def test_masks_as_floats_mask_as_bools_do():
    """The rollout buffer hands masks back as 0/1 floats, the env as bools."""
    logits, masks = _inputs(32, 3)
    as_bool = FastMaskedCategorical(ACTIONS).proba_distribution(logits)
    as_bool.apply_masking(masks)
    as_float = FastMaskedCategorical(ACTIONS).proba_distribution(logits)
    as_float.apply_masking(masks.float().numpy())
    assert torch.equal(as_bool.log_p, as_float.log_p)
    assert torch.equal(as_bool.p == 0, ~masks)
