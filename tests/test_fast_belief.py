"""The policy-conditioned belief's fast network evaluation against the plain one."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

import shipwreck_training.common.belief as belief  # noqa: E402
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

    def both(obs, layout, actions, model, masks_of):
        fast = original(obs, layout, actions, model, masks_of)
        slow = original(obs, layout, actions, plain, masks_of)
        np.testing.assert_allclose(fast, slow, rtol=1e-5, atol=1e-9)
        compared.append(int((fast > 0).sum()))
        return fast

    monkeypatch.setattr(belief, "likelihood", both)
    trainer.collect()
    assert len(compared) >= 4 and sum(compared) > 200
