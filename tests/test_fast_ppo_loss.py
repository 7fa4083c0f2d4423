"""The fast trainer's PPO update, pinned: a refactor of the loss must not move a parameter.

The golden fingerprints below were recorded from the update as it stood before its
loss became pure functions (commit d6f1be4): a tiny self-play run, overlap off, three
rollouts and updates, with the kept-fate head (``aux``) and the signalling loss
(``signal``) in a case each. A structural change moves them by far more than the
tolerance (advantages not centred: about 2%); a coefficient off by 1% does not, which
the tests of the pure functions pin instead.
"""

from __future__ import annotations

import pytest
from conftest import merged

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from shipwreck_training.fast.config import from_dict  # noqa: E402
from shipwreck_training.fast.ppo import Trainer  # noqa: E402


def _config(**extra):
    data = {
        "name": "golden",
        "num_games": 16,
        "rollout_steps": 8,
        "total_steps": 4096,
        "torch_threads": 1,
        "env": {"belief": "literal"},
        "ppo": {"minibatch_size": 32, "hidden": [16, 16], "epochs": 2},
        "eval": {"every": 0, "games": 4},
    }
    return from_dict(merged(data, extra))


def _fingerprint(model) -> tuple[float, float, float]:
    """(sum, sum of squares, sum weighted by a fixed ramp) of every parameter."""
    flat = torch.cat([p.detach().double().flatten() for p in model.parameters()])
    ramp = torch.linspace(-1.0, 1.0, len(flat), dtype=torch.float64)
    return float(flat.sum()), float((flat * flat).sum()), float((flat * ramp).sum())


# config, fingerprint after three rollouts and updates (recorded before the refactor),
# and the loss term the case exists for (it must have been nonzero)
GOLDEN = {
    "plain": ({}, (-7.028903727194461, 129.02802714880434, 6.50502967533415), "ent"),
    "aux": (
        {"env": {"belief": "aux"}},
        (-6.327258272624704, 131.3637794780758, -2.828560590714814),
        "aux",
    ),
    "signal": (
        {"env": {"belief": "policy"}, "ppo": {"signal_coef": 0.5, "signal_games": 8}},
        (-7.088779170852604, 129.01307711716456, 6.628382536774888),
        "signal",
    ),
}


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_three_updates_give_the_recorded_parameters(case):
    extra, expected, term = GOLDEN[case]
    trainer = Trainer(_config(**extra))
    try:
        losses = [trainer.train_step() for _ in range(3)]
    finally:
        trainer.close()
    assert all(x[term] > 0 for x in losses), (term, losses)
    # a changed loss moves the fingerprint by far more (see the module's docstring)
    assert _fingerprint(trainer.model) == pytest.approx(expected, rel=1e-6), case
