"""Greedy evaluation of a fast-trained network on the batched engine.

``games`` games per difficulty, all stepped together with ``autoreset=False`` until
every one is over; the network takes its most likely legal action (with the
policy-conditioned belief when it was trained with it), a scripted partner the other
role. The evaluation seeds are the config's ``eval.seed``, never a training seed. The
reference evaluator (``shipwreck_agents.evaluate``) plays the exported ``.pth`` on the reference
engine instead, with its own seeds: its figures are the ones to compare with the
scripted teams' table.
"""

from __future__ import annotations

import numpy as np
import torch

from shipwreck_agents.actor_critic import ActorCritic
from shipwreck_agents.evaluate import wilson_interval
from shipwreck_training.common.belief import PolicyBelief
from shipwreck_training.common.games import Games, ScriptedRole, learner_decides
from shipwreck_training.fast.config import FastConfig

__all__ = ["evaluate_network"]


@torch.no_grad()
def evaluate_network(
    model: ActorCritic, cfg: FastConfig, games: int | None = None, seed: int | None = None
) -> dict[str, dict]:
    """Per difficulty of ``cfg.eval``: games, wins, win rate with a 95% interval, mean
    score and doom, and games cut at ``max_turns``."""
    n = games or cfg.eval.games
    diffs = cfg.eval.difficulties
    g = Games(
        cfg.env,
        n * len(diffs),
        cfg.eval.seed if seed is None else seed,
        autoreset=False,
        difficulties=diffs,
    )
    scripted = (
        ScriptedRole(cfg.partner, g.num_games, cfg.eval.seed) if cfg.regime != "selfplay" else None
    )
    belief = PolicyBelief(g) if cfg.env.belief == "policy" else None
    while not g.field("over").all():
        obs, mask = g.observe(), g.legal_mask()
        if belief is not None:
            belief.fill(obs, g)
        actions = model.greedy(torch.from_numpy(obs), torch.from_numpy(mask)).numpy().copy()
        learn = learner_decides(g, cfg.regime) & ~g.field("over")
        if scripted is not None and (~learn & ~g.field("over")).any():
            which = np.flatnonzero(~learn & ~g.field("over"))
            actions[which] = scripted.act(g, which)
        if belief is not None:
            belief.record(g, obs, mask, actions, model)
        g.step(actions)
    won, score, doom = g.field("won"), g.field("score"), g.field("doom")
    truncated = g.field("truncated")
    out = {}
    for k, difficulty in enumerate(diffs):
        part = slice(k * n, (k + 1) * n)
        wins = int(won[part].sum())
        low, high = wilson_interval(wins, n)
        out[difficulty] = {
            "games": n,
            "wins": wins,
            "win_rate": wins / n,
            "win_rate_ci95": [low, high],
            "mean_score": float(score[part].mean()),
            "mean_doom": float(doom[part].mean()),
            "truncated": int(truncated[part].sum()),
        }
    return out
