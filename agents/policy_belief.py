"""The policy-conditioned belief over the active seat's kept fate: the engine-free part.

At the turn's first play the active player chose action ``a`` (fate ``v`` on a card).
Every group member can ask what the *current* play network would have done with each
hand the active seat might hold: the active player's observation depends on its hand
only through its own fields (its hand, its carried fate, the copies it cannot see),
so each hypothetical observation is the real one with those fields rewritten
(:func:`hypothetical_observations`); the legal plays of each hand come from the caller
(the batched engine in ``training/common/belief.py``, the public turn start in
``agents/fast_team.py``). :func:`likelihood` gives, per kept value ``k``,
``Σ_{hands h holding v and k} prior(h) · π(a | o(h), m(h))`` in one network call; the
posterior is that times the seat's number line now, normalised. See
``docs/fast_trainer.md`` for the prior. Pure functions of observation vectors and a
model with ``logits(obs, mask)``; no game state is read.
"""

from __future__ import annotations

import numpy as np
import torch

from shipwreck_env.actions import ACTIONS

__all__ = ["PLAY_VALUE", "hypothetical_observations", "likelihood", "prior_weights"]

PLAY_VALUE = np.array([a.value if a.kind == "play" else 0 for a in ACTIONS], np.int64)
"""Per action number: the fate it plays (0: not a play)."""
_VALUES = np.arange(1, 8)
_HYPOTHESES = 14  # (v, k) for k = 1..7, then (k, v) for k = 1..7


def _fields(layout):
    return (layout.by_name[k].slice for k in ("own_hand", "own_carried", "unseen", "number_lines"))


def prior_weights(obs: np.ndarray, layout, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """float[n]: prior weight of the ordered hand ``(x[i], y[i])`` of the player deciding
    its play with observation ``obs[i]`` (see the module docstring): its own copies plus
    the copies it cannot see are the public pool; its own number line (first seat of the
    field) is the one at the turn start."""
    own, carried, unseen, lines = _fields(layout)
    pool = (obs[:, unseen] + obs[:, own]).astype(np.int64)
    rows = np.arange(len(obs))
    px = pool[rows, x - 1].clip(min=0)
    py = (pool[rows, y - 1] - (x == y)).clip(min=0)
    line = obs[rows, lines.start + x - 1]
    had_carried = obs[:, carried].any(1)
    return np.where(had_carried, line, 1.0) * px * py


def hypothetical_observations(obs: np.ndarray, layout, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The observations ``obs`` (players deciding their turn's play) with the ordered
    hand ``(x[i], y[i])`` instead (``x`` is the carried fate if the player carried one):
    only the player's own fields change (its hand, its carried fate, the copies it
    cannot see)."""
    own, carried, unseen, _ = _fields(layout)
    n = len(obs)
    rows = np.arange(n)
    new = np.zeros((n, 7), np.float32)
    np.add.at(new, (rows, x - 1), 1)
    np.add.at(new, (rows, y - 1), 1)
    out = obs.copy()
    out[:, unseen] += obs[:, own] - new
    out[:, own] = new
    had_carried = obs[:, carried].any(1)
    out[:, carried] = 0
    out[rows[had_carried], carried.start + x[had_carried] - 1] = 1
    return out


@torch.no_grad()
def likelihood(obs: np.ndarray, layout, actions: np.ndarray, model, masks_of) -> np.ndarray:
    """float64[n, 7]: ``Σ prior(h) π(a | h)`` over the hands keeping each value, for
    players deciding their turn's first play ``actions`` with observations ``obs``.
    ``masks_of(rows, x, y)`` gives the legal masks of player ``rows[i]`` with the hand
    ``(x[i], y[i])`` (from the batched engine, or from the reference rules)."""
    n = len(obs)
    v = np.repeat(PLAY_VALUE[actions], _HYPOTHESES)
    k = np.tile(np.concatenate([_VALUES, _VALUES]), n)
    first = np.tile(np.arange(_HYPOTHESES) < 7, n)
    x, y = np.where(first, v, k), np.where(first, k, v)
    rep = np.repeat(np.arange(n), _HYPOTHESES)
    weight = prior_weights(obs[rep], layout, x, y)
    weight[~first & (k == v)] = 0.0  # (v, v) is listed twice
    act = np.repeat(actions, _HYPOTHESES)
    possible = np.flatnonzero(weight > 0)
    mask_h = masks_of(rep[possible], x[possible], y[possible])
    allowed = mask_h[np.arange(len(possible)), act[possible]]
    live = possible[allowed]
    weight[np.setdiff1d(np.arange(len(weight)), live, assume_unique=True)] = 0.0
    if len(live):  # the network only sees hands that are possible and allow the play
        obs_h = hypothetical_observations(obs[rep[live]], layout, x[live], y[live])
        logits = model.logits(torch.from_numpy(obs_h), torch.from_numpy(mask_h[allowed]))
        chosen = torch.from_numpy(act[live])[:, None]
        weight[live] *= torch.softmax(logits, -1).gather(-1, chosen).squeeze(-1).double().numpy()
    return weight.reshape(n, 2, 7).sum(1)
