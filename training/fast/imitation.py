"""Behaviour cloning of a scripted team before PPO (the ``imitation`` part of a config).

The teacher team (registry specs, e.g. ``convention`` + ``convention``) plays games on
the batched engine; every decision is recorded as (observation, legal mask, action)
and the policy network is fitted to them by cross-entropy over its masked logits. The
scripted policies decide one game at a time in Python (a few hundred decisions per
second here), so recording, not fitting, takes the time. Observations carry the literal
belief block: the policy-conditioned one needs a learned play policy first.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from shipwreck_training.common.games import Games, ScriptedRole, learner_decides
from shipwreck_training.fast.config import ImitationSettings

__all__ = ["imitate", "record_teacher"]


def record_teacher(
    trainer, settings: ImitationSettings, num_games: int = 256
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observations, masks, actions) of ``settings.steps`` teacher decisions, on games
    seeded apart from the training games."""
    cfg = trainer.cfg
    n = num_games - num_games % len(cfg.env.difficulties)
    games = Games(cfg.env, n, cfg.seed + 7919)
    play = ScriptedRole(settings.play, n, cfg.seed + 1)
    group = ScriptedRole(settings.group, n, cfg.seed + 2)
    obs, masks, actions = [], [], []
    recorded = 0
    while recorded < settings.steps:
        o, m = games.observe(), games.legal_mask()
        active = learner_decides(games, "play")
        a = np.zeros(n, np.int64)
        for role, which in ((play, np.flatnonzero(active)), (group, np.flatnonzero(~active))):
            if len(which):
                a[which] = role.act(games, which)
        obs.append(o)
        masks.append(m.copy())
        actions.append(a)
        _, _, _, info = games.step(a)
        ended = np.flatnonzero(info["_final"])
        play.restart(ended)
        group.restart(ended)
        recorded += n
    cut = settings.steps
    return (np.concatenate(obs)[:cut], np.concatenate(masks)[:cut], np.concatenate(actions)[:cut])


def imitate(trainer, settings: ImitationSettings) -> dict:
    """Record the teacher and fit ``trainer.model``'s policy to it; returns the figures
    (decisions, seconds, final agreement with the teacher on the recorded decisions)."""
    start = time.perf_counter()
    obs, masks, actions = record_teacher(trainer, settings)
    recorded = time.perf_counter()
    o, m, a = torch.from_numpy(obs), torch.from_numpy(masks), torch.from_numpy(actions)
    size = trainer.cfg.ppo.minibatch_size
    for _ in range(settings.epochs):
        order = torch.randperm(len(a), generator=trainer.generator)
        for i in range(0, len(a), size):
            idx = order[i : i + size]
            loss = torch.nn.functional.cross_entropy(trainer.model.logits(o[idx], m[idx]), a[idx])
            trainer.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            trainer.optimizer.step()
    with torch.no_grad():
        agree = float((trainer.model.greedy(o, m) == a).float().mean())
    return {
        "teacher": f"{settings.play}+{settings.group}",
        "decisions": len(a),
        "record_seconds": recorded - start,
        "fit_seconds": time.perf_counter() - recorded,
        "agreement": agree,
    }
