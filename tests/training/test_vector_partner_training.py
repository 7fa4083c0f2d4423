"""The fast trainer's partner on the batched engine (training/fast/partners.py): the
same run as with the per-game Python partner, and checkpoints either path reads, for
the heuristic player (regime predict) and the Bayesian group (regime play)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from test_fast_ppo import _config as ppo_config  # noqa: E402

from shipwreck_training.fast.config import from_dict  # noqa: E402
from shipwreck_training.fast.partners import FORCE_PYTHON, Partners, batched_for  # noqa: E402
from shipwreck_training.fast.run import train  # noqa: E402

REGIME = {"heuristic": "predict", "bayes": "play"}


def _config(partner: str = "heuristic", batched: bool = True, **extra):
    small = {"total_steps": 384, "checkpoint_every": 128, "ppo": {"epochs": 1}}
    return ppo_config(
        regime=REGIME[partner], partner=partner, partners={"batched": batched}, **small, **extra
    )


def _same_network(a, b) -> bool:
    pairs = zip(a.model.parameters(), b.model.parameters(), strict=True)
    return all(torch.equal(p, q) for p, q in pairs)


def test_the_scripted_partners_decide_batched_unless_the_config_says_python(monkeypatch):
    monkeypatch.delenv(FORCE_PYTHON, raising=False)
    assert batched_for("heuristic") and batched_for("bayes") and not batched_for("random")
    assert not batched_for("bayes", batched=False)
    assert Partners("bayes", 4, 0, workers=2).workers == 0  # no processes to start
    assert from_dict({"name": "t", "regime": "play", "partner": "bayes"}).partners.batched
    with pytest.raises(ValueError, match=r"partners\.batched"):
        from_dict(
            {"name": "t", "regime": "play", "partner": "bayes", "partners": {"batched": "maybe"}}
        )


def test_the_old_environment_variable_still_forces_python_with_a_warning(monkeypatch):
    monkeypatch.setenv(FORCE_PYTHON, "1")
    with pytest.warns(DeprecationWarning, match="partners.batched: false"):
        assert not batched_for("heuristic")
    monkeypatch.setenv(FORCE_PYTHON, "yes")
    with pytest.raises(ValueError, match="SHIPWRECK_PYTHON_PARTNER='yes' is not allowed"):
        batched_for("heuristic")


@pytest.mark.parametrize("partner", ["heuristic", "bayes"])
def test_a_run_with_the_batched_partner_equals_one_with_the_python_partner(
    tmp_path, monkeypatch, partner
):
    """The same network after the same steps, and a run stopped with the batched
    partner and resumed with the Python one (its checkpoint is the same plain data,
    the Bayesian group's memory included) ends where both straight runs end."""
    monkeypatch.delenv(FORCE_PYTHON, raising=False)
    batched = train(_config(partner), tmp_path / "batched")
    train(_config(partner), tmp_path / "mixed", stop_after=128)
    python = train(_config(partner, batched=False), tmp_path / "python")
    resumed = train(_config(partner, batched=False), tmp_path / "mixed", resume=True)
    assert batched.global_step == python.global_step == resumed.global_step
    assert _same_network(batched, python)
    assert _same_network(batched, resumed)


def test_a_python_checkpoint_resumes_with_the_batched_group(tmp_path, monkeypatch):
    monkeypatch.delenv(FORCE_PYTHON, raising=False)
    straight = train(_config("bayes"), tmp_path / "straight")
    train(_config("bayes", batched=False), tmp_path / "mixed", stop_after=128)
    resumed = train(_config("bayes"), tmp_path / "mixed", resume=True)
    assert straight.global_step == resumed.global_step
    assert _same_network(straight, resumed)
