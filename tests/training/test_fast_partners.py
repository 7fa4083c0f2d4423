"""The fast trainer's scripted partner (training/fast/partners.py): worker processes,
the same actions for any number of them, checkpoints as plain data, exact resume."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from test_fast_ppo import _config as ppo_config  # noqa: E402

from shipwreck_training.fast.partners import Partners, memory_of, restore_memory  # noqa: E402
from shipwreck_training.fast.run import train  # noqa: E402

_LEAVES = (type(None), bool, int, float, str, np.ndarray, np.generic)


def _config(**extra):
    """The PPO tests' small run, shorter (the partners decide in Python)."""
    small = {"total_steps": 384, "checkpoint_every": 128, "ppo": {"epochs": 1}}
    return ppo_config(**small, **extra)


def _only_plain_data(value) -> bool:
    if isinstance(value, dict):
        return all(_only_plain_data(k) and _only_plain_data(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(_only_plain_data(v) for v in value)
    return isinstance(value, _LEAVES)


@pytest.mark.parametrize(("regime", "partner"), [("play", "bayes"), ("predict", "heuristic")])
def test_a_resumed_run_with_workers_equals_a_straight_run_without(tmp_path, regime, partner):
    """Straight in-process run against one stopped and resumed with two workers: the
    same network, so the actions did not depend on the workers and the partner's memory
    (bayes keeps the turn's likelihoods) came back from the checkpoint exactly."""
    straight = train(_config(regime=regime, partner=partner), tmp_path / "a")
    cfg = _config(regime=regime, partner=partner, partner_workers=2)
    train(cfg, tmp_path / "b", stop_after=128)
    state = torch.load(tmp_path / "b" / "checkpoints" / "latest.pt", weights_only=False)
    assert state["scripted"]["spec"] == partner
    assert _only_plain_data(state["scripted"])  # no pickled policy object
    resumed = train(cfg, tmp_path / "b", resume=True)
    assert resumed.global_step == straight.global_step
    for p, q in zip(straight.model.parameters(), resumed.model.parameters(), strict=True):
        assert torch.equal(p, q)


def test_memory_round_trips_through_plain_data():
    from shipwreck_agents.registry import make_policy

    policy = make_policy("bayes")
    policy._likelihood[(1, 2)] = (7, np.arange(7.0))
    policy._model_rng.random(3)
    fresh = make_policy("bayes")
    restore_memory(fresh, memory_of(policy))
    assert fresh._likelihood.keys() == policy._likelihood.keys()
    assert np.array_equal(fresh._likelihood[(1, 2)][1], np.arange(7.0))
    assert fresh._model_rng.random() == policy._model_rng.random()


def test_memory_that_is_not_plain_data_is_refused():
    class Holder:
        def __init__(self) -> None:
            self.items = [object()]

    with pytest.raises(ValueError, match="'items' of Holder"):
        memory_of(Holder())


def test_a_checkpoint_of_another_partner_is_refused():
    partners = Partners("random", 4, 0)
    state = partners.state_dict()
    state["spec"] = "heuristic"
    with pytest.raises(ValueError, match="'heuristic' is not allowed"):
        partners.load_state_dict(state)
