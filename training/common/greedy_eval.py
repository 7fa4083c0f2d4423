"""Greedy evaluation of a masked actor-critic on the batched engine, for every trainer.

``games`` games per difficulty, all stepped together with ``autoreset=False`` until
every one is over; the network takes its most likely legal action (with the
policy-conditioned belief when the game section asks for it), a scripted partner the
other role outside self-play. The caller passes the evaluation seed: a held-out one,
never a training seed. The reference evaluator (``shipwreck_agents.evaluation.evaluate``) plays an
exported ``.pth`` on the reference engine instead, with its own seeds: its figures are
the ones to compare with the scripted teams' table.

Every trainer (fast, SB3, RLlib) imports this from here; none imports another trainer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from shipwreck_agents.evaluation.evaluate import wilson_interval
from shipwreck_agents.learned.actor_critic import ActorCritic
from shipwreck_training.common.config import GameSettings
from shipwreck_training.common.games import Games, ScriptedRole, learner_decides
from shipwreck_training.common.policy_belief_batched import PolicyBelief

__all__ = ["evaluate_greedy"]


@torch.no_grad()
def evaluate_greedy(
    model: ActorCritic,
    env: GameSettings,
    *,
    games: int,
    seed: int,
    difficulties: Sequence[str],
    regime: str = "selfplay",
    partner: str = "",
    partner_seed: int | None = None,
    carry: bool = False,
    after_play: bool = False,
) -> dict[str, dict]:
    """Per difficulty: games, wins, win rate with a 95% Wilson interval, mean score and
    doom, and games cut at ``max_turns``.

    Args:
        model: the network; it decides the learner's role (every decision in self-play).
        env: the game section the network was trained on (its ``belief`` says whether the
            group reads the policy-conditioned belief).
        games: games per difficulty.
        seed: the batched engine's seed for the evaluation games.
        difficulties: one block of ``games`` games per difficulty, in this order.
        regime: ``selfplay``, ``play`` or ``predict`` (which role the network takes).
        partner: the scripted partner's spec outside self-play.
        partner_seed: the scripted partner's seed (``seed`` if ``None``).
        carry: the policy-conditioned belief keeps each seat's posterior for its next
            turn (kind ``policy_carry``, :class:`PolicyBelief`).
        after_play: the belief also multiplies in the active player's after-play choice
            (:class:`PolicyBelief` ``after_play``).
    """
    diffs = tuple(difficulties)
    g = Games(env, games * len(diffs), seed, autoreset=False, difficulties=diffs)
    scripted = (
        ScriptedRole(partner, g.num_games, seed if partner_seed is None else partner_seed)
        if regime != "selfplay"
        else None
    )
    belief = PolicyBelief(g, carry=carry, after_play=after_play) if env.belief == "policy" else None
    while not g.field("over").all():
        obs, mask = g.observe(), g.legal_mask()
        if belief is not None:
            belief.fill(obs, g)
        actions = model.greedy(torch.from_numpy(obs), torch.from_numpy(mask)).numpy().copy()
        learn = learner_decides(g, regime) & ~g.field("over")
        if scripted is not None and (~learn & ~g.field("over")).any():
            which = np.flatnonzero(~learn & ~g.field("over"))
            actions[which] = scripted.act(g, which)
        if belief is not None:
            belief.record(g, obs, mask, actions, model)
        g.step(actions)
    return _summaries(g, games, diffs)


def _summaries(g: Games, games: int, diffs: tuple[str, ...]) -> dict[str, dict]:
    """The per-difficulty figures of finished games laid out in blocks of ``games``."""
    won, score, doom = g.field("won"), g.field("score"), g.field("doom")
    truncated = g.field("truncated")
    out = {}
    for k, difficulty in enumerate(diffs):
        part = slice(k * games, (k + 1) * games)
        wins = int(won[part].sum())
        low, high = wilson_interval(wins, games)
        out[difficulty] = {
            "games": games,
            "wins": wins,
            "win_rate": wins / games,
            "win_rate_ci95": [low, high],
            "mean_score": float(score[part].mean()),
            "mean_doom": float(doom[part].mean()),
            "truncated": int(truncated[part].sum()),
        }
    return out
