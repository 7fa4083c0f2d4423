"""The fast trainer's PPO loss and minibatch step as pure functions (CleanRL's, masked).

:class:`~shipwreck_training.fast.ppo.Trainer` keeps the orchestration (rollouts,
epochs, shuffling, the signalling batches, the KL stop); what one minibatch does is
here, each term a function of tensors alone. Every mean runs over the decisions the
network learns (``learn`` true); a scripted role's decisions train the value only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from shipwreck_training.common.signal import NUM_PLAYS, signal_loss

if TYPE_CHECKING:
    from shipwreck_agents.learned.actor_critic import ActorCritic
    from shipwreck_env.rules.observation import ObservationLayout
    from shipwreck_training.fast.config import FastPPOSettings

__all__ = [
    "clipped_policy_loss",
    "entropy_bonus",
    "fate_loss",
    "minibatch_step",
    "normalise_advantages",
    "ppo_loss",
    "ratio_figures",
    "value_loss",
]


def _mean(x: torch.Tensor, learn: torch.Tensor, count: torch.Tensor) -> torch.Tensor:
    return (x * learn).sum() / count


def normalise_advantages(
    adv: torch.Tensor, learn: torch.Tensor, count: torch.Tensor
) -> torch.Tensor:
    """``adv`` centred and scaled by the mean and spread of the learned decisions'."""
    mean = _mean(adv, learn, count)
    std = _mean((adv - mean) ** 2, learn, count).sqrt()
    return (adv - mean) / (std + 1e-8)


def clipped_policy_loss(
    ratio: torch.Tensor,
    adv: torch.Tensor,
    learn: torch.Tensor,
    count: torch.Tensor,
    clip_coef: float,
) -> torch.Tensor:
    """PPO's clipped surrogate, to minimise: the worse of the plain and clipped gains."""
    pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip_coef, 1 + clip_coef))
    return _mean(pg, learn, count)


def value_loss(values: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Half the squared error of the value over every decision (scripted ones too)."""
    return 0.5 * ((values - target) ** 2).mean()


def entropy_bonus(
    logits: torch.Tensor, logp_all: torch.Tensor, learn: torch.Tensor, count: torch.Tensor
) -> torch.Tensor:
    """Mean entropy of the learned decisions' masked policies."""
    # softmax, not logp_all.exp(): exp of the masked log-probabilities (about -1e9)
    # underflows through a slow path on CPU, a quarter of the whole update
    return _mean(-(torch.softmax(logits, -1) * logp_all).sum(-1), learn, count)


def fate_loss(fate_logits: torch.Tensor, fate: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the kept-fate head where a fate was kept (``fate >= 0``)."""
    valid = fate >= 0
    if not valid.any():
        return torch.zeros(())
    return torch.nn.functional.cross_entropy(fate_logits[valid], fate[valid])


def ratio_figures(
    ratio: torch.Tensor,
    log_ratio: torch.Tensor,
    learn: torch.Tensor,
    count: torch.Tensor,
    clip_coef: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(approximate KL to the behaviour policy, fraction of ratios clipped): figures,
    not gradients."""
    with torch.no_grad():
        kl = _mean((ratio - 1) - log_ratio, learn, count)
        clip = _mean(((ratio - 1).abs() > clip_coef).float(), learn, count)
    return kl, clip


def ppo_loss(
    model: ActorCritic,
    batch: dict[str, torch.Tensor],
    cfg: FastPPOSettings,
    layout: ObservationLayout | None = None,
    signal: dict[str, torch.Tensor] | None = None,
) -> dict[str, torch.Tensor]:
    """The loss of one minibatch and its terms.

    Args:
        model: the actor-critic learning.
        batch: ``obs``, ``mask``, ``actions``, ``logp`` (the behaviour policy's),
            ``adv``, ``target``, ``learn``, ``fate`` (-1: none), one row per decision.
        cfg: the coefficients (``clip_coef``, ``vf_coef``, ``ent_coef``, ``aux_coef``,
            ``signal_coef``).
        layout: the observation layout (needed with ``signal``).
        signal: this minibatch's share of the signalling decisions (``obs``, ``mask``,
            ``w``, ``masks``; :mod:`shipwreck_training.common.signal`), or None.

    Returns:
        ``loss`` (to minimise) and the figures ``pg``, ``vf``, ``ent``, ``aux``,
        ``signal``, ``kl``, ``clip``.
    """
    logits, values, fate_logits = model(batch["obs"], batch["mask"])
    logp_all = torch.log_softmax(logits, -1)
    logp = logp_all.gather(-1, batch["actions"][:, None]).squeeze(-1)
    learn = batch["learn"].float()
    count = learn.sum().clamp(min=1.0)
    adv = normalise_advantages(batch["adv"], learn, count)
    log_ratio = logp - batch["logp"]
    ratio = log_ratio.exp()
    pg = clipped_policy_loss(ratio, adv, learn, count, cfg.clip_coef)
    vf = value_loss(values, batch["target"])
    ent = entropy_bonus(logits, logp_all, learn, count)
    loss = pg + cfg.vf_coef * vf - cfg.ent_coef * ent
    aux = torch.zeros(())
    if fate_logits is not None:
        aux = fate_loss(fate_logits, batch["fate"])
        loss = loss + cfg.aux_coef * aux
    sig = torch.zeros(())
    if signal is not None and len(signal["obs"]):
        if layout is None:
            raise ValueError("ppo_loss with signal needs the observation layout; got None")
        real = model.logits(signal["obs"], signal["mask"])[:, :NUM_PLAYS]
        sig = signal_loss(
            model,
            signal["obs"],
            layout,
            real,
            signal["mask"][:, :NUM_PLAYS],
            signal["w"],
            signal["masks"],
        )
        loss = loss + cfg.signal_coef * sig
    kl, clip = ratio_figures(ratio, log_ratio, learn, count, cfg.clip_coef)
    return {
        "loss": loss,
        "pg": pg,
        "vf": vf,
        "ent": ent,
        "aux": aux,
        "signal": sig,
        "kl": kl,
        "clip": clip,
    }


def minibatch_step(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    loss: torch.Tensor,
    max_grad_norm: float,
) -> None:
    """One gradient step on ``loss``, the gradient's norm clipped to ``max_grad_norm``."""
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
