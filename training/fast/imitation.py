"""Behaviour cloning of a scripted team before PPO (the ``imitation`` part of a config).

The teacher team (registry specs, e.g. ``convention`` + ``convention``) plays games on
the batched engine; every decision is recorded as (observation, legal mask, action)
and the policy network is fitted to them by cross-entropy over its masked logits, with
its own Adam optimiser, step size and minibatch (PPO's optimiser starts fresh after it).
The scripted policies decide one game at a time in Python (a few hundred decisions per
second here), so recording, not fitting, takes the time.

Why the fit has its own settings: with PPO's minibatch (2,048) and four epochs, 100,000
decisions give about 200 gradient steps, and the group's head never leaves the majority
class (pass); a group that never predicts scores nothing and every game is lost.

The belief block. With ``env.belief: policy`` the network will read, at group
decisions, the posterior under its *own* play policy (``training/common/belief.py``),
which needs a fitted play policy first. So the fit runs in two rounds: the first on
observations with the literal block; then the teacher plays again, the group's
observations carry the policy-conditioned block computed with the network of round
one, and the second round fits the group's decisions of those games (and the player's
decisions of both recordings). Any other belief setting fits once, on what the games show.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from shipwreck_training.common.belief import PolicyBelief
from shipwreck_training.common.games import Games, ScriptedRole, learner_decides
from shipwreck_training.fast.config import ImitationSettings

__all__ = ["Recording", "agreement", "fit_policy", "imitate", "record_teacher"]

_RECORD_GAMES = 256
"""Games the teacher plays side by side while recording."""


class Recording:
    """Recorded teacher decisions: ``obs`` float32[n, D], ``masks`` bool[n, A],
    ``actions`` int64[n], ``play`` bool[n] (the decider is the active player),
    ``returns`` float32[n] (the discounted team reward from the decision to its game's
    end; NaN in the games the recording cut before their end)."""

    def __init__(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        actions: np.ndarray,
        play: np.ndarray,
        returns: np.ndarray,
    ) -> None:
        self.obs, self.masks, self.actions, self.play = obs, masks, actions, play
        self.returns = returns

    def __len__(self) -> int:
        return len(self.actions)

    def take(self, rows: np.ndarray | slice) -> Recording:
        """The decisions ``rows``."""
        return Recording(*(getattr(self, k)[rows] for k in _FIELDS))

    @staticmethod
    def join(parts: list[Recording]) -> Recording:
        """The decisions of every part, in order."""
        return Recording(*(np.concatenate([getattr(p, k) for p in parts]) for k in _FIELDS))


_FIELDS = ("obs", "masks", "actions", "play", "returns")


def record_teacher(
    trainer,
    settings: ImitationSettings,
    num_games: int = _RECORD_GAMES,
    seed_offset: int = 7919,
    belief_model=None,
) -> Recording:
    """``settings.steps`` teacher decisions, on games seeded ``cfg.seed + seed_offset``
    (apart from the training games).

    Args:
        belief_model: if given, every group observation carries the belief block
            conditioned on this network's play policy (``PolicyBelief``), as PPO with
            ``env.belief: policy`` shows it; else the block the games show (literal).
    """
    cfg = trainer.cfg
    n = num_games - num_games % len(cfg.env.difficulties)
    games = Games(cfg.env, n, cfg.seed + seed_offset)
    play = ScriptedRole(settings.play, n, cfg.seed + 1)
    group = ScriptedRole(settings.group, n, cfg.seed + 2)
    carry = cfg.policy_belief == "carry"
    belief = (
        PolicyBelief(games, carry=carry, after_play=cfg.belief_after_play)
        if belief_model is not None
        else None
    )
    parts, rewards, ends = [], [], []
    recorded = 0
    while recorded < settings.steps:
        o, m = games.observe(), games.legal_mask()
        if belief is not None:
            belief.fill(o, games)
        active = learner_decides(games, "play")
        a = np.zeros(n, np.int64)
        for role, which in ((play, np.flatnonzero(active)), (group, np.flatnonzero(~active))):
            if len(which):
                a[which] = role.act(games, which)
        if belief is not None:
            with torch.no_grad():
                belief.record(games, o, m, a, belief_model)
        parts.append(Recording(o, m.copy(), a, active, np.zeros(n, np.float32)))
        reward, terminated, truncated, info = games.step(a)
        rewards.append(reward)
        ends.append(terminated | truncated)
        ended = np.flatnonzero(info["_final"])
        play.restart(ended)
        group.restart(ended)
        if belief is not None:
            belief.restart(ended)
        recorded += n
    ahead = np.full(n, np.nan)  # a game the recording cut has no known return
    for part, reward, end in zip(parts[::-1], rewards[::-1], ends[::-1], strict=True):
        ahead = np.where(end, reward, reward + cfg.ppo.gamma * ahead)
        part.returns[:] = ahead
    return Recording.join(parts).take(slice(0, settings.steps))


@torch.no_grad()
def agreement(model, data: Recording) -> dict[str, float]:
    """Share of ``data``'s decisions where ``model``'s most likely legal action is the
    teacher's: all of them, the player's and the group's."""
    same = np.zeros(len(data), bool)
    for i in range(0, len(data), 65536):  # bounded memory for large recordings
        rows = slice(i, i + 65536)
        chosen = model.greedy(torch.from_numpy(data.obs[rows]), torch.from_numpy(data.masks[rows]))
        same[rows] = chosen.numpy() == data.actions[rows]
    play = data.play
    return {
        "all": float(same.mean()) if len(same) else 0.0,
        "play": float(same[play].mean()) if play.any() else 0.0,
        "group": float(same[~play].mean()) if (~play).any() else 0.0,
    }


def fit_policy(model, data: Recording, settings: ImitationSettings, generator) -> dict:
    """Fit ``model``'s policy to ``data`` by cross-entropy and its value to the teacher's
    returns (squared error; the policy and value networks share no weights), in
    ``settings.epochs`` passes, minibatches of ``settings.minibatch_size``, Adam at
    ``settings.learning_rate``; returns the mean losses of the last epoch.

    The value is fitted too so that PPO's first advantages come from a critic of this
    policy's games, not from a random one that would push the copied policy about."""
    o, m, a = (torch.from_numpy(x) for x in (data.obs, data.masks, data.actions))
    returns = torch.from_numpy(data.returns)
    known = ~returns.isnan()
    optimizer = torch.optim.Adam(model.parameters(), settings.learning_rate)
    size = settings.minibatch_size
    policy_losses: list[float] = []
    value_losses: list[float] = []
    for _ in range(settings.epochs):
        order = torch.randperm(len(a), generator=generator)
        policy_losses, value_losses = [], []
        for i in range(0, len(a), size):
            idx = order[i : i + size]
            policy = torch.nn.functional.cross_entropy(model.logits(o[idx], m[idx]), a[idx])
            idx_v = idx[known[idx]]
            value = 0.5 * ((model.value(o[idx_v]) - returns[idx_v]) ** 2).mean()
            loss = policy + value if len(idx_v) else policy
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            policy_losses.append(float(policy.detach()))
            if len(idx_v):
                value_losses.append(float(value.detach()))
    return {
        "policy_loss": float(np.mean(policy_losses)) if policy_losses else 0.0,
        "value_loss": float(np.mean(value_losses)) if value_losses else 0.0,
    }


def imitate(trainer, settings: ImitationSettings) -> dict:
    """Record the teacher and fit ``trainer.model``'s policy to it (two rounds with the
    policy-conditioned belief, see the module docstring); returns the figures
    (decisions, seconds, agreement with the teacher on the decisions fitted)."""
    start = time.perf_counter()
    data = record_teacher(trainer, settings)
    record_seconds = time.perf_counter() - start
    loss = fit_policy(trainer.model, data, settings, trainer.generator)
    fitted = data
    if trainer.cfg.env.belief == "policy":
        again = time.perf_counter()
        second = record_teacher(trainer, settings, seed_offset=7927, belief_model=trainer.model)
        record_seconds += time.perf_counter() - again
        fitted = Recording.join([data.take(data.play), second])
        loss = fit_policy(trainer.model, fitted, settings, trainer.generator)
    return {
        "teacher": f"{settings.play}+{settings.group}",
        "decisions": len(fitted),
        "record_seconds": record_seconds,
        "fit_seconds": time.perf_counter() - start - record_seconds,
        **loss,
        **{
            ("agreement" if k == "all" else f"agreement_{k}"): v
            for k, v in agreement(trainer.model, fitted).items()
        },
    }
