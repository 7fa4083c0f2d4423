"""Greedy evaluation of a fast-trained network, read from its config.

The evaluation itself is :func:`shipwreck_training.common.evaluate.evaluate_greedy`,
shared with the other trainers; this module only reads a :class:`FastConfig`'s game,
``eval`` section, regime and partner. The evaluation seeds are the config's
``eval.seed``, never a training seed.
"""

from __future__ import annotations

from shipwreck_agents.learned.actor_critic import ActorCritic
from shipwreck_training.common.evaluate import evaluate_greedy
from shipwreck_training.fast.config import FastConfig

__all__ = ["evaluate_network"]


def evaluate_network(
    model: ActorCritic, cfg: FastConfig, games: int | None = None, seed: int | None = None
) -> dict[str, dict]:
    """Per difficulty of ``cfg.eval``: games, wins, win rate with a 95% interval, mean
    score and doom, and games cut at ``max_turns`` (``games`` and ``seed`` override the
    config's ``eval.games`` and ``eval.seed``; the scripted partner keeps ``eval.seed``)."""
    return evaluate_greedy(
        model,
        cfg.env,
        games=games or cfg.eval.games,
        seed=cfg.eval.seed if seed is None else seed,
        difficulties=cfg.eval.difficulties,
        regime=cfg.regime,
        partner=cfg.partner,
        partner_seed=cfg.eval.seed,
        carry=cfg.policy_belief == "carry",
        after_play=cfg.belief_after_play,
    )
