"""The policy-conditioned belief over the active seat's kept fate (BAD-style, exact).

At the turn's first play the active player chose action ``a`` (fate ``v`` on a card).
Every group member can ask what the *current* play network would have done with each
hand the active seat might hold, because the active player's observation depends on its
hand only through its own fields (its hand, its carried fate, the copies it cannot
see) and its legal mask only through the plays: each hypothetical input is the real one
with those fields rewritten and the plays recomputed by the batched engine's rule
(``play_legal``), all hands of all games in one network call.
The posterior over the kept fate ``k`` is then::

    b(k) ∝ line_now(k) · Σ_{hands h = (x, y) holding v and k} prior(h) · π(a | o(h), m(h))

``h`` is ordered (carried fate, drawn fate) when the seat carried a fate into the turn,
else (first draw, second draw); ``prior(h) = pool[x] · (pool[y] - [x = y])``, times the
seat's number line at the turn start on ``x`` when ``x`` was carried, with ``pool`` the
copies of each value no one sees publicly (3 minus the exiled, the table and the copies
known to be in the bag); ``line_now`` is the seat's number line at the group's decision
(every public fact of the turn: card condition, The Chalice, The Fall, power answers).

The block replaces the literal belief block in the observation of every group decision
of a turn with exactly one play (The Feast's second play, or The Thief handing the
active seat a second fate, leave the literal block in place). Base set only, as the
batched engine. This module must not change any game.
"""

from __future__ import annotations

import numpy as np
import torch

from shipwreck_env.actions import ACTIONS, NUM_ACTIONS
from shipwreck_env.state import Phase
from shipwreck_env.vector.plays import play_legal

__all__ = ["PolicyBelief", "hypothetical_inputs", "play_likelihood", "prior_weights"]

_PLAY_VALUE = np.array([a.value if a.kind == "play" else 0 for a in ACTIONS], np.int64)
_VALUES = np.arange(1, 8)
_HYPOTHESES = 14  # (v, k) for k = 1..7, then (k, v) for k = 1..7
_NUM_PLAYS = int((_PLAY_VALUE > 0).sum())  # the play actions come first in the table


def _bits(lines: np.ndarray) -> np.ndarray:
    """float[n, 7]: 1 where the number line allows the value."""
    return ((lines.astype(np.int64)[:, None] >> (_VALUES - 1)) & 1).astype(np.float64)


def prior_weights(arrays, games: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """float[n]: prior weight of the active seat of ``games[i]`` holding the ordered hand
    ``(x[i], y[i])`` (see the module docstring)."""
    table = arrays.tcount[games].sum(1).astype(np.int64)
    pool = 3 - arrays.exiled[games] - table - arrays.bag_known[games]
    rows = np.arange(len(games))
    px = pool[rows, x - 1].clip(min=0)
    py = (pool[rows, y - 1] - (x == y)).clip(min=0)
    active = arrays.active[games].astype(np.int64)
    line = _bits(arrays.lines[games, active])[rows, x - 1]
    carried = arrays.old_fate[games] != 0
    return np.where(carried, line, 1.0) * px * py


class _Repeated:
    """Rows ``index`` of an ``Arrays``, each field copied when first read (the play
    rules read a handful of the engine's fields; copying all of them costs more)."""

    def __init__(self, arrays, index: np.ndarray) -> None:
        self._arrays, self._index = arrays, index
        self.num_games = len(index)

    def __getattr__(self, name: str):
        value = getattr(self._arrays, name)[self._index]
        setattr(self, name, value)
        return value


def hypothetical_inputs(
    part, games: np.ndarray, obs: np.ndarray, mask: np.ndarray, x: np.ndarray, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The observation and legal mask the active player of ``games[i]`` (deciding its
    play now, observation ``obs[i]`` and mask ``mask[i]``) would have with the ordered
    hand ``(x[i], y[i])`` (``x`` is the carried fate if the seat carried one).

    Only the player's own fields change (its hand, its carried fate, the copies it
    cannot see); in the mask only the plays (the rules' ``play_legal`` on the new hand).
    """
    a = part.arrays
    layout = part.layout
    n = len(games)
    rows = np.arange(n)
    seat = a.active[games].astype(np.int64)
    actual = a.hands[games, seat].astype(np.int64)  # [n, 2]
    old = np.zeros((n, 7))
    np.add.at(old, (rows, actual[:, 0] - 1), 1)
    np.add.at(old, (rows, actual[:, 1] - 1), 1)
    new = np.zeros((n, 7))
    np.add.at(new, (rows, x - 1), 1)
    np.add.at(new, (rows, y - 1), 1)
    obs = obs.copy()
    own, carried, unseen = (layout.by_name[k].slice for k in ("own_hand", "own_carried", "unseen"))
    obs[:, own] = new
    obs[:, unseen] += old - new
    had_carried = a.old_fate[games] != 0
    obs[:, carried] = 0
    obs[rows[had_carried], carried.start + x[had_carried] - 1] = 1
    mask = mask.copy()
    mask[:, :_NUM_PLAYS] = False
    view = _Repeated(a, games)
    view.hands = view.hands.copy()
    view.hands[rows, seat, 0] = x
    view.hands[rows, seat, 1] = y
    play_legal(view, rows, mask)
    return obs, mask


@torch.no_grad()
def play_likelihood(
    part, games: np.ndarray, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray, model
) -> np.ndarray:
    """float64[n, 7]: ``Σ prior(h) π(a | h)`` over the hands keeping each value, for the
    games ``games`` of the ``VectorGame`` ``part``, whose deciders (observations
    ``obs``, masks ``mask``) are about to make their turn's first play ``actions``."""
    n = len(games)
    v = np.repeat(_PLAY_VALUE[actions], _HYPOTHESES)
    k = np.tile(np.concatenate([_VALUES, _VALUES]), n)
    first = np.tile(np.arange(_HYPOTHESES) < 7, n)
    x, y = np.where(first, v, k), np.where(first, k, v)
    idx = np.repeat(games, _HYPOTHESES)
    rep = np.repeat(np.arange(n), _HYPOTHESES)
    weight = prior_weights(part.arrays, idx, x, y)
    weight[~first & (k == v)] = 0.0  # (v, v) is listed twice
    obs_h, mask_h = hypothetical_inputs(part, idx, obs[rep], mask[rep], x, y)
    act = np.repeat(actions, _HYPOTHESES)
    keep = (weight > 0) & mask_h[np.arange(len(idx)), act]
    weight[~keep] = 0.0
    live = np.flatnonzero(keep)
    if len(live):  # the network only sees hands that are possible and allow the play
        logits = model.logits(torch.from_numpy(obs_h[live]), torch.from_numpy(mask_h[live]))
        chosen = torch.from_numpy(act[live])[:, None]
        weight[live] *= torch.softmax(logits, -1).gather(-1, chosen).squeeze(-1).double().numpy()
    return weight.reshape(n, 2, 7).sum(1)


class PolicyBelief:
    """Per game: the turn's play likelihood, written into group observations.

    Args:
        games: the run's :class:`~training.fast.games.Games`.
    """

    def __init__(self, games) -> None:
        self.likelihood = np.zeros((games.num_games, 7))
        self.turn = np.full(games.num_games, -1, np.int64)
        self.offset = games.layout.offsets["belief"]

    def restart(self, games: np.ndarray) -> None:
        """Those games restarted: forget their turn."""
        self.turn[games] = -1

    def record(self, games, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray, model) -> None:
        """Before the step: keep the likelihood of every game whose active player now
        makes the turn's first play."""
        phase, decider = games.field("phase"), games.field("decider").astype(np.int64)
        active = games.field("active").astype(np.int64) % games.num_players
        first = (
            (phase == Phase.PLAY)
            & (decider == active)
            & (games.field("plays_len") == 0)
            & (_PLAY_VALUE[actions] > 0)
            & ~games.field("over")
        )
        which = np.flatnonzero(first)
        turn = games.field("turn")
        for k, pos, local in games.locate(which):
            rows = which[pos]
            self.likelihood[rows] = play_likelihood(
                games.parts[k], local, obs[rows], mask[rows], actions[rows], model
            )
            self.turn[which[pos]] = turn[which[pos]]

    def posterior(self, games) -> tuple[np.ndarray, np.ndarray]:
        """(games with a policy belief now, float32[n, 7] posterior)."""
        n = games.num_games
        active_seat = games.field("active").astype(np.int64)
        active = active_seat % games.num_players
        decider = games.field("decider").astype(np.int64)
        rows = np.arange(n)
        held = games.field("hand_len")[rows, active_seat] == 1
        ok = (
            (decider != active)
            & (decider >= 0)
            & (self.turn == games.field("turn"))
            & (games.field("plays_len") == 1)
            & held
            & ~games.field("over")
        )
        g = np.flatnonzero(ok)
        weights = self.likelihood[g] * _bits(games.field("lines")[g, active_seat[g]])
        total = weights.sum(1)
        good = total > 0
        return g[good], (weights[good] / total[good, None]).astype(np.float32)

    def fill(self, obs: np.ndarray, games) -> None:
        """Write the posterior into the belief block of every group decision it covers."""
        g, belief = self.posterior(games)
        obs[g, self.offset : self.offset + 7] = belief

    def state_dict(self) -> dict:
        """The per-game memory (for checkpoints)."""
        return {"likelihood": self.likelihood.copy(), "turn": self.turn.copy()}

    def load_state_dict(self, state: dict) -> None:
        """Put back :meth:`state_dict`."""
        self.likelihood[...] = state["likelihood"]
        self.turn[...] = state["turn"]


assert len(_PLAY_VALUE) == NUM_ACTIONS and (_PLAY_VALUE[:_NUM_PLAYS] > 0).all()
