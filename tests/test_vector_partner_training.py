"""The fast trainer's partner on the batched engine (training/fast/partners.py): the
same run as with the per-game Python partner, and checkpoints either path reads."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from test_fast_ppo import _config as ppo_config  # noqa: E402

from shipwreck_training.fast.partners import FORCE_PYTHON, Partners, batched_for  # noqa: E402
from shipwreck_training.fast.run import train  # noqa: E402


def _config(**extra):
    small = {"total_steps": 384, "checkpoint_every": 128, "ppo": {"epochs": 1}}
    return ppo_config(regime="predict", partner="heuristic", **small, **extra)


def _same_network(a, b) -> bool:
    pairs = zip(a.model.parameters(), b.model.parameters(), strict=True)
    return all(torch.equal(p, q) for p, q in pairs)


def test_the_heuristic_decides_batched_unless_forced_to_python(monkeypatch):
    monkeypatch.delenv(FORCE_PYTHON, raising=False)
    assert batched_for("heuristic") and not batched_for("bayes")
    assert Partners("heuristic", 4, 0, workers=2).workers == 0  # no processes to start
    monkeypatch.setenv(FORCE_PYTHON, "1")
    assert not batched_for("heuristic")
    monkeypatch.setenv(FORCE_PYTHON, "yes")
    with pytest.raises(ValueError, match="SHIPWRECK_PYTHON_PARTNER='yes' is not allowed"):
        batched_for("heuristic")


def test_a_run_with_the_batched_partner_equals_one_with_the_python_partner(tmp_path, monkeypatch):
    """The same network after the same steps, and a run stopped with the batched
    partner and resumed with the Python one (its checkpoint is the same plain data)
    ends where both straight runs end."""
    monkeypatch.delenv(FORCE_PYTHON, raising=False)
    batched = train(_config(), tmp_path / "batched")
    cfg = _config()
    train(cfg, tmp_path / "mixed", stop_after=128)
    monkeypatch.setenv(FORCE_PYTHON, "1")
    python = train(_config(), tmp_path / "python")
    resumed = train(cfg, tmp_path / "mixed", resume=True)
    assert batched.global_step == python.global_step == resumed.global_step
    assert _same_network(batched, python)
    assert _same_network(batched, resumed)
