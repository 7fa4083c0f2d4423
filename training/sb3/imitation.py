"""Imitation warm start: teach a fresh policy a scripted team's choices before PPO.

:func:`collect` plays games with a scripted team (for example the heuristic player and
the Bayesian group) and records, for every decision of the role being learned, the
observation the learner would see, the legal mask and the team's action.
:func:`pretrain` fits the policy network to those actions (cross-entropy over the legal
actions). PPO then starts from a policy that already speaks the team's language instead
of from uniform play. Off unless the config's ``imitation.games`` is above 0.
"""

from __future__ import annotations

import numpy as np

from shipwreck_agents.registry import make_policy
from shipwreck_env.envs.policy import Team, decide, observation_layouts
from shipwreck_env.rules.engine import new_game, step_inplace
from shipwreck_env.rules.observation import encode
from shipwreck_training.common.config import GameSettings

__all__ = ["collect", "pretrain"]


def _learner_decides(role: str, decider: int, active_player: int) -> bool:
    if role == "self":
        return True
    return (decider == active_player) == (role == "play")


def collect(
    settings: GameSettings, role: str, play: str, group: str, games: int, seed: int
) -> dict[str, np.ndarray]:
    """Observations, masks and actions of the scripted team ``play`` + ``group`` at the
    decisions of ``role`` (``play``, ``predict`` or ``self``), over ``games`` games with
    difficulties drawn like the training episodes."""
    role = {"predict": "predict", "play": "play"}.get(role, "self")
    team = Team(make_policy(play), make_policy(group))
    rng = np.random.default_rng([seed, 31])
    observations, masks, actions = [], [], []
    for _ in range(games):
        difficulty = settings.episode_difficulty(rng)
        config = settings.game_config(difficulty)
        layouts = observation_layouts(config)
        team.reset()
        s = new_game(config, rng)
        while not s.over:
            player = s.decider
            action, view, mask = decide(team, s, layouts, rng)
            if _learner_decides(role, player, s.active_player) and len(view.legal) > 1:
                observations.append(encode(s, player, layouts[settings.belief_block]))
                masks.append(mask.astype(bool))
                actions.append(action)
            step_inplace(s, action, rng, check=False)
    return {
        "observations": np.asarray(observations, dtype=np.float32),
        "masks": np.asarray(masks, dtype=bool),
        "actions": np.asarray(actions, dtype=np.int64),
    }


def pretrain(
    model,
    data: dict[str, np.ndarray],
    epochs: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
) -> list[float]:
    """Fit ``model.policy`` to the recorded actions; returns the mean loss per epoch."""
    import torch

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    obs = torch.as_tensor(data["observations"])
    masks = data["masks"]
    actions = torch.as_tensor(data["actions"])
    n = len(actions)
    order_rng = np.random.default_rng([seed, 37])
    losses = []
    policy.set_training_mode(True)
    for _ in range(epochs):
        order = order_rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            dist = policy.get_distribution(obs[idx], action_masks=masks[idx])
            loss = -dist.log_prob(actions[idx]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / max(1, n))
    policy.set_training_mode(False)
    return losses
