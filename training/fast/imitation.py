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
decisions, the posterior under its *own* play policy (``training/common/policy_belief_batched.py``),
which needs a fitted play policy first. So the fit runs in two rounds: the first on
observations with the literal block; then the teacher plays again, the group's
observations carry the policy-conditioned block computed with the network of round
one, and the second round fits the group's decisions of those games (and the player's
decisions of both recordings). Any other belief setting fits once, on what the games show.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from shipwreck_training.common.games import Games, ScriptedRole, learner_decides
from shipwreck_training.common.policy_belief_batched import PolicyBelief
from shipwreck_training.fast.config import FastConfig, ImitationSettings

__all__ = [
    "Recording",
    "agreement",
    "dagger",
    "fit_policy",
    "imitate",
    "record_games",
    "record_teacher",
    "same_deals",
    "teacher_labels",
]

_RECORD_GAMES = 256
"""Games the teacher plays side by side while recording."""


class Recording:
    """Recorded decisions: ``obs`` float32[n, D], ``masks`` bool[n, A], ``actions``
    int64[n] (the teacher's choice: the label), ``play`` bool[n] (the decider is the
    active player), ``returns`` float32[n] (the discounted team reward from the decision
    to its game's end; NaN in the games the recording cut before their end),
    ``difficulty`` int8[n] (index into the games' difficulties), ``taken`` int64[n] (the
    action played: the label when the teacher plays, the network's under DAgger) and
    ``note`` int32[n] (what an ``annotate`` hook said of the decision; -1 if none)."""

    def __init__(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        actions: np.ndarray,
        play: np.ndarray,
        returns: np.ndarray,
        difficulty: np.ndarray | None = None,
        taken: np.ndarray | None = None,
        note: np.ndarray | None = None,
    ) -> None:
        self.obs, self.masks, self.actions, self.play = obs, masks, actions, play
        self.returns = returns
        n = len(actions)
        self.difficulty = np.zeros(n, np.int8) if difficulty is None else difficulty
        self.taken = actions.copy() if taken is None else taken
        self.note = np.full(n, -1, np.int32) if note is None else note

    def __len__(self) -> int:
        return len(self.actions)

    def take(self, rows: np.ndarray | slice) -> Recording:
        """The decisions ``rows``."""
        return Recording(*(getattr(self, k)[rows] for k in _FIELDS))

    @staticmethod
    def join(parts: list[Recording]) -> Recording:
        """The decisions of every part, in order."""
        return Recording(*(np.concatenate([getattr(p, k) for p in parts]) for k in _FIELDS))

    def save(self, path: str | Path) -> None:
        """Write every field to an ``.npz`` file (:meth:`load` reads it back)."""
        np.savez(path, **{k: getattr(self, k) for k in _FIELDS})

    @staticmethod
    def load(path: str | Path) -> Recording:
        """A recording written by :meth:`save`."""
        with np.load(path) as data:
            return Recording(*(data[k] for k in _FIELDS))


_FIELDS = ("obs", "masks", "actions", "play", "returns", "difficulty", "taken", "note")

Annotate = Callable[[Games, dict[bool, ScriptedRole], np.ndarray], np.ndarray]
"""A hook called at each step of a recording, after the teacher chose: (games, the
teacher's roles keyed by "the decider is the active player", bool[N] active) ->
int[N], stored as the decisions' ``note``."""


def teacher_labels(
    games: Games, play: ScriptedRole, group: ScriptedRole, annotate: Annotate | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The teacher's choice at every game's decision now: (bool[N] the active player
    decides, int64[N] the action of ``play`` there and of ``group`` elsewhere, int32[N]
    what ``annotate`` said of each decision, -1 without a hook). Every game's teacher is
    asked, so its memory keeps in step with the games whoever plays them."""
    n = games.num_games
    active = learner_decides(games, "play")
    label = np.zeros(n, np.int64)
    for role, which in ((play, np.flatnonzero(active)), (group, np.flatnonzero(~active))):
        if len(which):
            label[which] = role.act(games, which)
    note = (
        np.asarray(annotate(games, {True: play, False: group}, active), np.int32)
        if annotate is not None
        else np.full(n, -1, np.int32)
    )
    return active, label, note


def record_teacher(
    trainer,
    settings: ImitationSettings,
    num_games: int = _RECORD_GAMES,
    seed_offset: int = 7919,
    belief_model=None,
) -> Recording:
    """``settings.steps`` teacher decisions, on games seeded ``cfg.seed + seed_offset``
    (apart from the training games), the teacher playing every one.

    Args:
        belief_model: if given, every group observation carries the belief block
            conditioned on this network's play policy (``PolicyBelief``), as PPO with
            ``env.belief: policy`` shows it; else the block the games show (literal).
    """
    return record_games(
        trainer.cfg,
        settings,
        num_games=num_games,
        seed_offset=seed_offset,
        belief_model=belief_model,
    )


def record_games(
    cfg: FastConfig,
    settings: ImitationSettings,
    *,
    actor=None,
    num_games: int = _RECORD_GAMES,
    seed_offset: int = 7919,
    belief_model=None,
    annotate: Annotate | None = None,
) -> Recording:
    """``settings.steps`` decisions labelled by the teacher (``settings.play`` for the
    active player, ``settings.group`` for the rest), on ``num_games`` games seeded
    ``cfg.seed + seed_offset``.

    Args:
        actor: the network that plays the games (its greedy legal action is stepped,
            ``taken``) while the teacher, kept in step with the games as they are
            played, only labels each decision (DAgger: the states are the network's);
            ``None``: the teacher plays its own labels.
        belief_model: as in :func:`record_teacher`.
        annotate: an optional hook noting each decision (:data:`Annotate`).
    """
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
    difficulty = (np.arange(n) // games.per_part).astype(np.int8)
    parts, rewards, ends = [], [], []
    recorded = 0
    while recorded < settings.steps:
        o, m = games.observe(), games.legal_mask()
        if belief is not None:
            belief.fill(o, games)
        active, label, note = teacher_labels(games, play, group, annotate)
        taken = label
        if actor is not None:
            with torch.no_grad():
                taken = actor.greedy(torch.from_numpy(o), torch.from_numpy(m)).numpy().copy()
        if belief is not None:
            with torch.no_grad():
                belief.record(games, o, m, taken, belief_model)
        returns = np.zeros(n, np.float32)
        parts.append(Recording(o, m.copy(), label, active, returns, difficulty, taken, note))
        reward, terminated, truncated, info = games.step(taken)
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


def fit_policy(
    model, data: Recording, settings: ImitationSettings, generator, anneal: bool = False
) -> dict:
    """Fit ``model``'s policy to ``data`` by cross-entropy and its value to the teacher's
    returns (squared error; the policy and value networks share no weights), in
    ``settings.epochs`` passes, minibatches of ``settings.minibatch_size``, Adam at
    ``settings.learning_rate``; returns the mean losses of the last epoch.

    The value is fitted too so that PPO's first advantages come from a critic of this
    policy's games, not from a random one that would push the copied policy about.
    ``anneal`` lowers the step size linearly to zero over the fit (the last epochs
    settle on the rare decisions instead of jumping around them)."""
    o, m, a = (torch.from_numpy(x) for x in (data.obs, data.masks, data.actions))
    returns = torch.from_numpy(data.returns)
    known = ~returns.isnan()
    optimizer = torch.optim.Adam(model.parameters(), settings.learning_rate)
    size = settings.minibatch_size
    total = settings.epochs * -(-len(a) // size)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda k: max(0.0, 1.0 - k / total) if anneal else 1.0
    )
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
            schedule.step()
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


def dagger(
    model,
    cfg: FastConfig,
    settings: ImitationSettings,
    data: Recording,
    *,
    rounds: int,
    steps: int,
    generator: torch.Generator,
    num_games: int = _RECORD_GAMES,
    seed_offset: int = 104729,
    anneal: bool = True,
    on_round: Callable[[int, dict, Recording], None] | None = None,
) -> Recording:
    """DAgger: ``rounds`` times, ``model`` plays ``steps`` decisions (greedy) while the
    teacher of ``settings`` labels each one, and the model is fitted again
    (:func:`fit_policy` with ``settings``) on the union of ``data`` and every round's
    decisions; returns that union.

    Each round plays fresh games (seed ``cfg.seed + seed_offset + round``). With
    ``env.belief: policy`` the group's block is conditioned on ``model`` as it stands.
    ``on_round(round, figures, union)`` is called after each fit with the model's
    agreement on the states it reached before the fit (``on_policy``), the decisions
    it took that the teacher would not (``off_label``), and the fit's losses.
    """
    for r in range(rounds):
        start = time.perf_counter()
        fresh = record_games(
            cfg,
            settings.model_copy(update={"steps": steps}),
            actor=model,
            num_games=num_games,
            seed_offset=seed_offset + r,
            belief_model=model if cfg.env.belief == "policy" else None,
        )
        recorded = time.perf_counter() - start
        data = Recording.join([data, fresh])
        loss = fit_policy(model, data, settings, generator, anneal=anneal)
        figures = {
            "round": r + 1,
            "decisions": len(data),
            "on_policy_before_fit": float((fresh.taken == fresh.actions).mean()),
            "record_seconds": recorded,
            "fit_seconds": time.perf_counter() - start - recorded,
            **loss,
        }
        if on_round is not None:
            on_round(r + 1, figures, data)
    return data


def same_deals(
    cfg: FastConfig,
    seed: int,
    games: int,
    difficulties: tuple[str, ...],
    model=None,
    teacher: tuple[str, str] = ("convention", "convention"),
) -> dict[str, np.ndarray]:
    """bool[games] per difficulty: which games were won, played greedily by ``model``
    at every seat and decision or, if ``None``, by the ``teacher`` team (play, group),
    on the batched engine seeded ``seed`` (the same deals for either: paired figures).
    With ``env.belief: policy`` the model's group reads its own play policy's block."""
    g = Games(cfg.env, games * len(difficulties), seed, autoreset=False, difficulties=difficulties)
    belief = None
    if model is not None and cfg.env.belief == "policy":
        belief = PolicyBelief(
            g, carry=cfg.policy_belief == "carry", after_play=cfg.belief_after_play
        )
    roles = None
    if model is None:
        roles = (
            ScriptedRole(teacher[0], g.num_games, seed),
            ScriptedRole(teacher[1], g.num_games, seed + 1),
        )
    while not (over := g.field("over")).all():
        obs, mask = g.observe(), g.legal_mask()
        if roles is None:
            if belief is not None:
                belief.fill(obs, g)
            with torch.no_grad():
                actions = model.greedy(torch.from_numpy(obs), torch.from_numpy(mask)).numpy().copy()
            if belief is not None:
                with torch.no_grad():
                    belief.record(g, obs, mask, actions, model)
        else:
            actions = np.zeros(g.num_games, np.int64)
            active = learner_decides(g, "play")
            for role, which in ((roles[0], active & ~over), (roles[1], ~active & ~over)):
                if which.any():
                    actions[which] = role.act(g, np.flatnonzero(which))
        g.step(actions)
    won = g.field("won").astype(bool)
    return {d: won[k * games : (k + 1) * games] for k, d in enumerate(difficulties)}
