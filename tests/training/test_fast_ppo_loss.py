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


# --- the pure functions, on hand-computed values ---------------------------------------


def test_advantages_are_normalised_over_the_learned_decisions_alone():
    from shipwreck_training.fast.loss import normalise_advantages

    learn = torch.tensor([1.0, 1.0, 1.0, 0.0])
    out = normalise_advantages(torch.tensor([1.0, 2.0, 3.0, 100.0]), learn, learn.sum())
    std = (2.0 / 3.0) ** 0.5  # of 1, 2, 3 (the scripted 100 left out)
    assert out.tolist() == pytest.approx([-1 / std, 0.0, 1 / std, 98 / std], rel=1e-6)


def test_the_policy_loss_takes_the_worse_of_the_plain_and_clipped_gains():
    from shipwreck_training.fast.loss import clipped_policy_loss

    ratio, adv = torch.tensor([1.5, 0.5, 3.0]), torch.tensor([1.0, -1.0, 5.0])
    learn = torch.tensor([1.0, 1.0, 0.0])  # the third is a scripted decision
    # gain 1.5 clipped to 1.2; loss -0.5 clipped to a worse -0.8
    assert float(clipped_policy_loss(ratio, adv, learn, learn.sum(), 0.2)) == pytest.approx(
        (-1.2 + 0.8) / 2
    )


def test_the_value_loss_is_half_the_mean_squared_error_over_every_decision():
    from shipwreck_training.fast.loss import value_loss

    assert float(value_loss(torch.tensor([1.0, 3.0]), torch.zeros(2))) == pytest.approx(2.5)


def test_the_entropy_counts_the_legal_actions_of_learned_decisions():
    from shipwreck_training.fast.loss import entropy_bonus

    logits = torch.tensor([[0.0, 0.0, -1e9, -1e9], [0.0, 0.0, 0.0, 0.0]])
    learn = torch.tensor([1.0, 0.0])
    ent = entropy_bonus(logits, torch.log_softmax(logits, -1), learn, learn.sum())
    assert float(ent) == pytest.approx(float(torch.log(torch.tensor(2.0))))


def test_the_fate_loss_is_zero_without_a_kept_fate_and_cross_entropy_with_one():
    from shipwreck_training.fast.loss import fate_loss

    logits = torch.zeros(2, 7)
    assert float(fate_loss(logits, torch.tensor([-1, -1]))) == 0.0
    expected = float(torch.log(torch.tensor(7.0)))
    assert float(fate_loss(logits, torch.tensor([3, -1]))) == pytest.approx(expected)


def test_kl_and_clip_fraction_are_figures_of_the_learned_decisions():
    from shipwreck_training.fast.loss import ratio_figures

    ratio = torch.tensor([1.5, 1.0, 9.0], requires_grad=True)
    learn = torch.tensor([1.0, 1.0, 0.0])
    kl, clip = ratio_figures(ratio, ratio.log(), learn, learn.sum(), 0.2)
    assert float(kl) == pytest.approx((0.5 - float(torch.log(torch.tensor(1.5)))) / 2)
    assert float(clip) == 0.5 and not kl.requires_grad


def _batch(n: int = 6, obs_dim: int = 5, actions: int = 4) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return {
        "obs": torch.randn(n, obs_dim, generator=g),
        "mask": torch.ones(n, actions, dtype=torch.bool),
        "actions": torch.randint(actions, (n,), generator=g),
        "logp": torch.full((n,), -float(torch.log(torch.tensor(float(actions))))),
        "adv": torch.randn(n, generator=g),
        "target": torch.randn(n, generator=g),
        "learn": torch.tensor([True] * (n - 1) + [False]),
        "fate": torch.tensor([2] + [-1] * (n - 1)),
    }


def test_the_loss_adds_its_terms_with_the_configured_weights():
    from shipwreck_agents.learned.actor_critic import ActorCritic
    from shipwreck_training.fast.config import FastPPOSettings
    from shipwreck_training.fast.loss import ppo_loss

    torch.manual_seed(0)
    model, batch = ActorCritic(5, 4, (8,), fate_head=True), _batch()
    cfg = FastPPOSettings(vf_coef=0.7, ent_coef=0.03, aux_coef=0.4)
    out = ppo_loss(model, batch, cfg)
    expected = out["pg"] + 0.7 * out["vf"] - 0.03 * out["ent"] + 0.4 * out["aux"]
    assert float(out["loss"].detach()) == pytest.approx(float(expected.detach()), rel=1e-6)
    assert float(out["aux"].detach()) > 0 and float(out["signal"]) == 0.0
    with pytest.raises(ValueError, match="layout"):
        ppo_loss(model, batch, cfg, None, {k: batch[k] for k in ("obs", "mask")})


def test_a_minibatch_step_moves_the_parameters_by_a_clipped_gradient():
    from shipwreck_agents.learned.actor_critic import ActorCritic
    from shipwreck_training.fast.config import FastPPOSettings
    from shipwreck_training.fast.loss import minibatch_step, ppo_loss

    torch.manual_seed(0)
    model = ActorCritic(5, 4, (8,))
    before = torch.cat([p.detach().flatten().clone() for p in model.parameters()])
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    loss = 1000.0 * ppo_loss(model, _batch(), FastPPOSettings())["loss"]  # a big gradient
    minibatch_step(model, optimizer, loss, max_grad_norm=0.5)
    after = torch.cat([p.detach().flatten() for p in model.parameters()])
    assert float((after - before).norm()) == pytest.approx(0.5, rel=1e-4)
