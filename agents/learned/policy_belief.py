"""The policy-conditioned belief over the active seat's kept fate: the engine-free part.

At the turn's first play the active player chose action ``a`` (fate ``v`` on a card).
Every group member can ask what the *current* play network would have done with each
hand the active seat might hold: the active player's observation depends on its hand
only through its own fields (its hand, its carried fate, the copies it cannot see),
so each hypothetical observation is the real one with those fields rewritten
(:func:`hypothetical_observations`); the legal plays of each hand come from the caller
(the batched engine in ``training/common/policy_belief_batched.py``, the reference engine's rule on
the public table at the play in ``agents/learned/fast_team.py``; after a power used before the
play, such as Sparrows, both judge the hands on the changed table). :func:`likelihood` gives, per kept value ``k``,
``Σ_{hands h holding v and k} prior(h) · π(a | o(h), m(h))`` in one network call; the
posterior is that times the seat's number line now, normalised. See
``docs/fast_trainer.md`` for the prior. Pure functions of observation vectors and a
model with ``logits(obs, mask)``; no game state is read (but for :class:`AfterPlayTerms`,
below).

With memory (belief kind ``policy_carry``) a carried fate's prior is the group's
posterior about it from the turn it was kept rather than the bare number line:
:func:`carry_weights` turns that turn's likelihood into a weight per value, and
:func:`likelihood` takes it as ``carry``. The play made that turn left the public pool,
so the weight is the likelihood divided by the copies of each value still unknown then
(the pool less the played fate); the prior multiplies the copies unknown now back in.
For exchangeable draws this is exact: every card made public since, drawn from the pool
without the kept one, moves the odds of ``k`` by ``pool_now[k] / pool_then[k]``.

The after-play factor: when Shells or Sinners is faded, the active player decides once
more between its play and the group (use one, or pass). :func:`kept_probabilities` gives
the probability of that choice under each hand, with the legal mask of each kept value
from :func:`kept_masks`. :class:`AfterPlayTerms` is its one home on the batched engine
(the trainer's ``PolicyBelief`` and the search's ``RolloutBelief`` both keep one): it
keeps the per-hand terms of each game's first play and multiplies the factor in at the
after-play decision, reading the engine's arrays by name through the caller's accessor.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.cards import POWER_INDEX
from shipwreck_env.rules.powers import sinners_actions
from shipwreck_env.rules.state import Phase

__all__ = [
    "PLAY_VALUE",
    "AfterPlayTerms",
    "carry_weights",
    "chosen_probabilities",
    "group_belief",
    "hand_play_logits",
    "hypothetical_observations",
    "kept_is_carried",
    "kept_masks",
    "kept_observations",
    "kept_probabilities",
    "likelihood",
    "prior_weights",
]

PLAY_VALUE = np.array([a.value if a.kind == "play" else 0 for a in ACTIONS], np.int64)
"""Per action number: the fate it plays (0: not a play)."""
_VALUES = np.arange(1, 8)
_SINNERS = np.array([a.index for a in ACTIONS if a.kind == "power" and a.power == "sinners"])
_HYPOTHESES = 14  # (v, k) for k = 1..7, then (k, v) for k = 1..7


def _fields(layout):
    return (layout.by_name[k].slice for k in ("own_hand", "own_carried", "unseen", "number_lines"))


def _pool(obs: np.ndarray, layout) -> np.ndarray:
    """int[n, 7]: copies of each value no one sees publicly, as the deciding player's
    observation tells: its own copies plus the copies it cannot see."""
    own, _, unseen, _ = _fields(layout)
    return (obs[:, unseen] + obs[:, own]).astype(np.int64)


def prior_weights(
    obs: np.ndarray, layout, x: np.ndarray, y: np.ndarray, carry: np.ndarray | None = None
) -> np.ndarray:
    """float[n]: prior weight of the ordered hand ``(x[i], y[i])`` of the player deciding
    its play with observation ``obs[i]`` (see the module docstring): its own copies plus
    the copies it cannot see are the public pool; its own number line (first seat of the
    field) is the one at the turn start. ``carry[i]`` (float[7], from
    :func:`carry_weights`) weighs the carried fate ``x`` further (``None``: 1)."""
    _, carried, _, lines = _fields(layout)
    pool = _pool(obs, layout)
    rows = np.arange(len(obs))
    px = pool[rows, x - 1].clip(min=0)
    py = (pool[rows, y - 1] - (x == y)).clip(min=0)
    line = obs[rows, lines.start + x - 1].astype(np.float64)
    if carry is not None:
        line = line * carry[rows, x - 1]
    had_carried = obs[:, carried].any(1)
    return np.where(had_carried, line, 1.0) * px * py


def carry_weights(obs: np.ndarray, layout, actions: np.ndarray, lik: np.ndarray) -> np.ndarray:
    """float64[n, 7]: the memory a kept fate carries into its seat's next turn, from the
    likelihood ``lik`` (:func:`likelihood`) of the first play ``actions`` made with
    observations ``obs``: ``lik`` divided by the copies of each value unknown once that
    play was public (0 where none is), scaled to sum 1 (only ratios matter; the scale
    keeps long chains of turns from underflowing). A row whose likelihood is all zero
    gets ones (no memory: the bare number line)."""
    rows = np.arange(len(obs))
    after = _pool(obs, layout)
    after[rows, PLAY_VALUE[actions] - 1] -= 1
    weight = np.divide(lik, after, out=np.zeros(lik.shape), where=after > 0)
    total = weight.sum(1, keepdims=True)
    return np.divide(weight, total, out=np.ones(lik.shape), where=total > 0)


def _hand_fields(
    own: np.ndarray, carried: np.ndarray, unseen: np.ndarray, x: np.ndarray, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fields ``own_hand``, ``own_carried`` and ``unseen`` (their real values given)
    of a player holding the ordered hand ``(x[i], y[i])`` instead."""
    n = len(own)
    rows = np.arange(n)
    new = np.zeros((n, 7), np.float32)
    np.add.at(new, (rows, x - 1), 1)
    np.add.at(new, (rows, y - 1), 1)
    had_carried = carried.any(1)
    new_carried = np.zeros((n, 7), np.float32)
    new_carried[rows[had_carried], x[had_carried] - 1] = 1
    return new, new_carried, unseen + own - new


def hypothetical_observations(obs: np.ndarray, layout, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The observations ``obs`` (players deciding their turn's play) with the ordered
    hand ``(x[i], y[i])`` instead (``x`` is the carried fate if the player carried one):
    only the player's own fields change (its hand, its carried fate, the copies it
    cannot see)."""
    own, carried, unseen, _ = _fields(layout)
    out = obs.copy()
    values = _hand_fields(obs[:, own], obs[:, carried], obs[:, unseen], x, y)
    for field, value in zip((own, carried, unseen), values, strict=True):
        out[:, field] = value
    return out


def _first_linear(model) -> tuple[torch.nn.Linear, torch.nn.Module, torch.nn.Linear] | None:
    """(first layer, the layers after it, action head) of an actor-critic laid out as
    :class:`~shipwreck_agents.learned.actor_critic.ActorCritic`; None for any other model."""
    extractor = getattr(model, "mlp_extractor", None)
    layers = getattr(extractor, "policy_net", None)
    head = getattr(model, "action_net", None)
    if not isinstance(layers, torch.nn.Sequential) or not isinstance(head, torch.nn.Linear):
        return None
    if not len(layers) or not isinstance(layers[0], torch.nn.Linear):
        return None
    return layers[0], layers[1:], head


def chosen_probabilities(
    model,
    obs: np.ndarray,
    layout,
    rep: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
) -> np.ndarray:
    """float64[m]: ``π(actions[i] | o, masks[i])`` where ``o`` is ``obs[rep[i]]`` with
    the ordered hand ``(x[i], y[i])`` (:func:`hypothetical_observations`).

    For an :class:`~shipwreck_agents.learned.actor_critic.ActorCritic` the hypothetical inputs
    are never built: they differ from the real ones in 21 columns, so the first layer is
    the real row's (computed once per row of ``obs``) plus those columns' share, and the
    head is evaluated only on the actions legal somewhere in ``masks`` (an illegal
    action's probability is exactly 0 either way). Equal to the plain network call up to
    float rounding (``tests/training/test_fast_belief.py``); several times cheaper, and this is
    the largest cost of a rollout with the policy-conditioned belief."""
    from shipwreck_agents.learned.actor_critic import MASKED

    parts = _first_linear(model)
    chosen = torch.from_numpy(actions)[:, None]
    if parts is None:
        obs_h = hypothetical_observations(obs[rep], layout, x, y)
        logits = model.logits(torch.from_numpy(obs_h), torch.from_numpy(masks))
        return torch.softmax(logits, -1).gather(-1, chosen).squeeze(-1).double().numpy()
    first, rest, head = parts
    own, carried, unseen, _ = _fields(layout)
    columns = np.concatenate([np.arange(f.start, f.stop) for f in (own, carried, unseen)])
    real = obs[:, columns][rep]
    hypothetical = np.concatenate(
        _hand_fields(real[:, :7], real[:, 7:14], real[:, 14:], x, y), axis=1
    )
    base = first(torch.from_numpy(obs))[torch.from_numpy(rep)]
    change = torch.from_numpy(hypothetical - real) @ first.weight[:, torch.from_numpy(columns)].T
    features = rest(base + change)
    legal = np.flatnonzero(masks.any(0))  # the chosen actions are among them
    logits = torch.nn.functional.linear(features, head.weight[legal], head.bias[legal])
    logits = logits.masked_fill(torch.from_numpy(~masks[:, legal]), MASKED)
    position = np.searchsorted(legal, actions)
    picked = torch.softmax(logits, -1).gather(-1, torch.from_numpy(position)[:, None])
    return picked.squeeze(-1).double().numpy()


def hand_play_logits(
    model, obs: torch.Tensor, layout, x: np.ndarray, y: np.ndarray, plays: int
) -> torch.Tensor:
    """float[n, H, plays]: the play logits (the first ``plays`` actions, unmasked) of
    the players deciding their turn's play with observations ``obs`` (float[n, size]),
    had each held the ordered hand ``(x[h], y[h])`` for every ``h`` of ``H`` (as
    :func:`hypothetical_observations` rewrites them), differentiable in the model's
    parameters (the fast trainer's signalling loss). Same first-layer shortcut as
    :func:`chosen_probabilities`: the first layer of the real row plus the share of the
    21 columns that change.

    Raises:
        ValueError: the model is not laid out as
            :class:`~shipwreck_agents.learned.actor_critic.ActorCritic`, or the player's own
            fields are not one seat's (7 columns each).
    """
    parts = _first_linear(model)
    if parts is None:
        raise ValueError(
            f"hand_play_logits needs an ActorCritic-shaped model; got {type(model).__name__}"
        )
    first, rest, head = parts
    own, carried, unseen, _ = _fields(layout)
    widths = [f.stop - f.start for f in (own, carried, unseen)]
    if widths != [7, 7, 7]:
        raise ValueError(f"own fields of widths {widths}; allowed: one seat's (7, 7, 7)")
    hands = len(x)
    new = torch.zeros(hands, 7)
    new[torch.arange(hands), torch.from_numpy(np.asarray(x) - 1)] += 1
    new[torch.arange(hands), torch.from_numpy(np.asarray(y) - 1)] += 1
    new_carried = torch.zeros(hands, 7)
    new_carried[torch.arange(hands), torch.from_numpy(np.asarray(x) - 1)] = 1
    real_own, real_carried = obs[:, own], obs[:, carried]
    had = real_carried.sum(1) > 0
    delta_own = new[None] - real_own[:, None]  # [n, H, 7]; unseen moves the other way
    delta_carried = had[:, None, None].float() * new_carried[None] - real_carried[:, None]
    w = first.weight
    change = (
        delta_own @ (w[:, own] - w[:, unseen]).T + delta_carried @ w[:, carried].T
    )  # [n, H, width]
    features = rest(first(obs)[:, None] + change)
    return torch.nn.functional.linear(features, head.weight[:plays], head.bias[:plays])


def kept_is_carried(obs: np.ndarray, layout, actions: np.ndarray) -> np.ndarray:
    """bool[n, 14]: per hand of :func:`likelihood` (``per_hand``), whether the fate kept after the
    play ``actions`` is the one the player carried into the turn (of two equal fates the
    drawn one is played)."""
    _, carried, _, _ = _fields(layout)
    had = obs[:, carried].any(1)[:, None]
    v = PLAY_VALUE[actions][:, None]
    second = np.arange(_HYPOTHESES)[None] >= 7
    return had & (second | (np.concatenate([_VALUES, _VALUES])[None] == v))


def kept_observations(obs: np.ndarray, layout, carried: np.ndarray) -> np.ndarray:
    """float32[n * 14, size]: the observations ``obs`` (float[n, size]) of players after
    their play, had each kept the fate of each hand of :func:`likelihood` (``per_hand``),
    rows ``14 * i + h`` (``carried`` bool[n, 14], or bool[14] for one player: see
    :func:`kept_probabilities`)."""
    own, carried_field, unseen, _ = _fields(layout)
    n = len(obs)
    carried = np.asarray(carried, bool).reshape(n * _HYPOTHESES)
    rows = np.repeat(obs, _HYPOTHESES, axis=0)
    new = np.zeros((n * _HYPOTHESES, 7), np.float32)
    new[np.arange(n * _HYPOTHESES), np.arange(n * _HYPOTHESES) % 7] = 1
    rows[:, unseen] = rows[:, unseen] + rows[:, own] - new
    rows[:, own] = new
    rows[:, carried_field] = new * carried[:, None]
    return rows


def kept_masks(
    legal: np.ndarray,
    tables: Sequence[Sequence[Sequence[int]]],
    shadows: np.ndarray,
    sinners: np.ndarray,
) -> np.ndarray:
    """bool[n, 14, actions]: the legal ``AFTER_PLAY`` masks ``legal`` (bool[n, actions])
    of active players, had each kept the value ``h % 7 + 1`` (hands of :func:`likelihood`,
    ``per_hand``): only Sinners depends on it, asked of the engine's own rule
    (:func:`shipwreck_env.rules.powers.sinners_actions`) on the public table ``tables[i]`` (the
    fates in front of each slot) with the kept value as conditions read it (``shadows[i]``
    adding 1); ``sinners[i]``: Sinners may be used now (available, no power used yet)."""
    masks = np.repeat(np.asarray(legal, bool)[:, None], _HYPOTHESES, axis=1)
    masks[:, :, _SINNERS] = False
    for i in np.flatnonzero(sinners):
        for kept in _VALUES:
            actions = sinners_actions(tables[i], int(kept) + int(shadows[i]))
            masks[i, kept - 1 :: 7, actions] = True
    return masks


@torch.no_grad()
def kept_probabilities(
    obs: np.ndarray,
    layout,
    carried: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    model,
) -> np.ndarray:
    """float64[n, 14]: ``π(actions[i] | o(h), masks[i, h])`` for players deciding after
    their play (observations ``obs``) if each had kept the fate of hand ``h`` of
    :func:`likelihood` (``per_hand``) (value ``h % 7 + 1``; ``carried[i, h]``: the kept
    fate is the one it carried into the turn, which its observation marks): only its own
    fields change (its hand, its carried fate, the copies it cannot see)."""
    n = len(obs)
    rows = kept_observations(obs, layout, carried)
    flat = np.asarray(masks, bool).reshape(n * _HYPOTHESES, -1)
    logits = model.logits(torch.from_numpy(rows), torch.from_numpy(flat))
    chosen = torch.from_numpy(np.repeat(np.asarray(actions, np.int64), _HYPOTHESES))[:, None]
    picked = torch.softmax(logits, -1).gather(-1, chosen).squeeze(-1)
    return picked.double().numpy().reshape(n, _HYPOTHESES)


@torch.no_grad()
def likelihood(
    obs: np.ndarray,
    layout,
    actions: np.ndarray,
    model,
    masks_of,
    carry: np.ndarray | None = None,
    per_hand: bool = False,
) -> np.ndarray:
    """float64[n, 7]: ``Σ prior(h) π(a | h)`` over the hands keeping each value, for
    players deciding their turn's first play ``actions`` with observations ``obs``.
    ``masks_of(rows, x, y)`` gives the legal masks of player ``rows[i]`` with the hand
    ``(x[i], y[i])`` (from the batched engine, or from the reference rules).
    ``carry`` (float[n, 7], :func:`carry_weights` of the seat's last turn, or ``None``)
    weighs the carried fate of the prior.

    ``per_hand``: float64[n, 14] instead, the terms per ordered hand: ``h < 7`` is the
    hand (v, h + 1), ``h >= 7`` the hand (h - 6, v) (``v`` the fate played, the first
    fate the carried one if the player carried one); the kept value is ``h % 7 + 1``."""
    n = len(obs)
    v = np.repeat(PLAY_VALUE[actions], _HYPOTHESES)
    k = np.tile(np.concatenate([_VALUES, _VALUES]), n)
    first = np.tile(np.arange(_HYPOTHESES) < 7, n)
    x, y = np.where(first, v, k), np.where(first, k, v)
    rep = np.repeat(np.arange(n), _HYPOTHESES)
    weight = prior_weights(obs[rep], layout, x, y, None if carry is None else carry[rep])
    weight[~first & (k == v)] = 0.0  # (v, v) is listed twice
    act = np.repeat(actions, _HYPOTHESES)
    possible = np.flatnonzero(weight > 0)
    mask_h = masks_of(rep[possible], x[possible], y[possible])
    allowed = mask_h[np.arange(len(possible)), act[possible]]
    live = possible[allowed]
    weight[np.setdiff1d(np.arange(len(weight)), live, assume_unique=True)] = 0.0
    if len(live):  # the network only sees hands that are possible and allow the play
        weight[live] *= chosen_probabilities(
            model, obs, layout, rep[live], x[live], y[live], mask_h[allowed], act[live]
        )
    return weight.reshape(n, _HYPOTHESES) if per_hand else weight.reshape(n, 2, 7).sum(1)


_SINNERS_POWER = POWER_INDEX["sinners"]


class AfterPlayTerms:
    """Per game of a batched run: the turn's per-hand likelihood terms of its first play,
    and the after-play factor multiplied into them (see the module docstring).

    ``hands`` float64[n, 14] are the terms of :func:`likelihood` (``per_hand``),
    ``carried`` bool[n, 14] :func:`kept_is_carried` of that play, ``play_action`` and
    ``play_obs`` the play and its observation (for :func:`carry_weights`).

    Args:
        num_games: games of the run.
        obs_size: the observation size (with the belief block).
    """

    STATE = ("hands", "carried", "play_action", "play_obs")
    """The attribute names :meth:`state` and :meth:`load_state` save and load."""

    def __init__(self, num_games: int, obs_size: int) -> None:
        self.hands = np.zeros((num_games, _HYPOTHESES))
        self.carried = np.zeros((num_games, _HYPOTHESES), bool)
        self.play_action = np.zeros(num_games, np.int64)
        self.play_obs = np.zeros((num_games, obs_size), np.float32)

    def keep_play(
        self, rows: np.ndarray, hands: np.ndarray, obs: np.ndarray, layout, actions: np.ndarray
    ) -> np.ndarray:
        """Keep the terms ``hands`` (float[len(rows), 14]) of the first plays ``actions``
        made with observations ``obs`` in games ``rows``; returns their likelihood
        float[len(rows), 7] (the terms summed per kept value)."""
        self.hands[rows] = hands
        self.carried[rows] = kept_is_carried(obs, layout, actions)
        self.play_action[rows] = actions
        self.play_obs[rows] = obs
        return self.likelihood(rows)

    def likelihood(self, rows: np.ndarray) -> np.ndarray:
        """float64[len(rows), 7]: the kept terms of games ``rows`` summed per kept value."""
        return self.hands[rows].reshape(-1, 2, 7).sum(1)

    def carry_memory(self, rows: np.ndarray, layout) -> np.ndarray:
        """float64[len(rows), 7]: :func:`carry_weights` of the kept plays of games
        ``rows`` with their likelihood now (the seat's memory, kind ``policy_carry``)."""
        return carry_weights(
            self.play_obs[rows], layout, self.play_action[rows], self.likelihood(rows)
        )

    def multiply(
        self,
        field,
        num_players: int,
        turn: np.ndarray,
        obs: np.ndarray,
        mask: np.ndarray,
        actions: np.ndarray,
        model,
        layout,
    ) -> np.ndarray:
        """Before a step: in every game whose active player now makes its ``AFTER_PLAY``
        choice ``actions[g]`` on the turn ``turn[g]`` whose first play was kept (one play,
        one fate held), multiply the probability of that choice under each hand into the
        terms. ``field(name)`` returns the engine array ``name`` of every game. Returns
        the games changed (their new likelihood is :meth:`likelihood`)."""
        active_seat = field("active").astype(np.int64)
        phase = field("phase")
        hand_len = field("hand_len")[np.arange(len(phase)), active_seat]
        after = (
            (phase == Phase.AFTER_PLAY)
            & (field("decider").astype(np.int64) == active_seat % num_players)
            & (turn == field("turn"))
            & (field("plays_len") == 1)
            & (hand_len == 1)
            & ~field("over").astype(bool)
        )
        g = np.flatnonzero(after)
        if not len(g):
            return g
        tcount = field("tcount")[g]
        tables = [[(np.flatnonzero(fates) + 1).tolist() for fates in table] for table in tcount]
        sinners = ~field("power_used")[g] & (field("fcount")[g, _SINNERS_POWER] > 0)
        masks = kept_masks(mask[g], tables, field("shadows")[g], sinners)
        self.hands[g] *= kept_probabilities(
            obs[g], layout, self.carried[g], masks, actions[g], model
        )
        return g

    def state(self) -> dict[str, np.ndarray]:
        """Copies of the arrays (for checkpoints)."""
        return {key: getattr(self, key).copy() for key in self.STATE}

    def load_state(self, state: dict) -> None:
        """Put back :meth:`state` (the same number of games)."""
        for key in self.STATE:
            getattr(self, key)[...] = state[key]


def group_belief(likelihood: np.ndarray, line: int) -> np.ndarray | None:
    """float[7]: the group's posterior over the active seat's kept fate, ``likelihood``
    (per kept value, :func:`likelihood`) on the values of its number line ``line``,
    normalised; ``None`` when no value of the line has any likelihood (the block is then
    left literal). Both learned teams write it into the group's belief block."""
    weights = np.asarray(likelihood, np.float64) * [(line >> v) & 1 for v in range(7)]
    total = weights.sum()
    return weights / total if total > 0 else None
