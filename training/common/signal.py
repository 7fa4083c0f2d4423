"""The signalling loss: how well the group could read the kept fate from the first play.

At doomed the learned team loses where the convention wins on turns whose play must
fade a card: the group names a wrong kept fate. PPO sees that only through the team's
reward, many steps later. This auxiliary loss asks it directly, BAD's way: with the
play policy itself as the code, how sure is a group that inverts it (the policy-
conditioned belief, ``training/common/policy_belief_batched.py``) of the kept fate after the play?

For a first-play decision of the active player with observation ``o`` and every
ordered hand ``h = (x, y)`` it might hold (public prior ``w(h)``,
:func:`~shipwreck_agents.learned.policy_belief.prior_weights`, with the seat's carried memory
when the run carries one), let ``π(a | h)`` be the policy over the hand's legal plays
alone (renormalised: a power used before the play is not a play), and ``k(h, a)`` the
fate ``h`` keeps after play ``a``. The group's posterior after ``a`` is
``P(k | a) ∝ Σ_{h : k(h, a) = k} w(h) π(a | h)``, and the loss of the decision is the
expected surprise of the real kept fate::

    L = - Σ_a π(a | h_real) · log P(k(h_real, a) | a)

(the conditional entropy of the kept fate given the play, at the real hand),
differentiable through every hand's policy: it pushes the plays of hands that keep
different fates apart. Public facts the group learns after the play (the number line
now, The Chalice, The Fall) are left out: they only sharpen the posterior further.

Only a fixed subset of the games (``ppo.signal_games``, spread over the difficulties)
records the decisions, each with its 49 hands' prior weights and the legal plays of its
28 unordered hands on the table (asked of the engine's own rule,
:func:`shipwreck_env.vector.public_record.hand_play_masks`, which depends on both fates).
"""

from __future__ import annotations

import numpy as np
import torch

from shipwreck_agents.learned.policy_belief import PLAY_VALUE, hand_play_logits, prior_weights
from shipwreck_env.rules.state import Phase
from shipwreck_env.vector.public_record import hand_play_masks

__all__ = [
    "HANDS_X",
    "HANDS_Y",
    "NUM_PLAYS",
    "PAIRS",
    "first_play_rows",
    "signal_inputs",
    "signal_loss",
]

NUM_PLAYS = int((PLAY_VALUE > 0).sum())
"""The play actions come first in the action table."""
HANDS_X, HANDS_Y = (a.ravel() for a in np.meshgrid(np.arange(1, 8), np.arange(1, 8), indexing="ij"))
"""The 49 ordered hands ``(x, y)`` (``x`` the carried fate when one was carried)."""
PAIRS = [(x, y) for x in range(1, 8) for y in range(x, 8)]
"""The 28 unordered hands ``(x <= y)``."""
_UX = np.array([p[0] for p in PAIRS])
_UY = np.array([p[1] for p in PAIRS])
_UNORDERED = np.array(
    [PAIRS.index((min(x, y), max(x, y))) for x, y in zip(HANDS_X, HANDS_Y, strict=True)]
)
"""Per ordered hand: its unordered pair's row (the legal plays depend on the pair)."""


def _kept_table() -> np.ndarray:
    """float32[49, NUM_PLAYS, 7]: 1 at the fate hand ``h`` keeps after play ``a``
    (zero where ``h`` does not hold the played value; of two equal fates one is kept)."""
    out = np.zeros((len(HANDS_X), NUM_PLAYS, 7), np.float32)
    for h, (x, y) in enumerate(zip(HANDS_X, HANDS_Y, strict=True)):
        for a in range(NUM_PLAYS):
            v = PLAY_VALUE[a]
            if v == x:
                out[h, a, y - 1] = 1
            elif v == y:
                out[h, a, x - 1] = 1
    return out


_KEPT = torch.from_numpy(_kept_table())


def first_play_rows(games, rows: np.ndarray) -> np.ndarray:
    """The games among ``rows`` (of :class:`~shipwreck_training.common.games.Games`)
    whose active player now decides the turn's first play (a power before it included)."""
    phase = games.field("phase")[rows]
    decider = games.field("decider").astype(np.int64)[rows]
    active = games.field("active").astype(np.int64)[rows] % games.num_players
    ok = (
        (phase == Phase.PLAY)
        & (decider == active)
        & (games.field("plays_len")[rows] == 0)
        & ~games.field("over")[rows]
    )
    return rows[ok]


def signal_inputs(
    games, rows: np.ndarray, obs: np.ndarray, carry: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """(float32[n, 49] prior weight of each ordered hand, bool[n, 28, NUM_PLAYS] legal
    plays of each unordered hand on the table now) of the first-play decisions ``rows``
    with observations ``obs`` (float[n, size]); ``carry`` (float[n, 7] or ``None``) is
    the seats' carried memory (:meth:`PolicyBelief.carry_of`)."""
    n, hands = len(rows), len(HANDS_X)
    rep = np.repeat(np.arange(n), hands)
    weights = prior_weights(
        obs[rep],
        games.layout,
        np.tile(HANDS_X, n),
        np.tile(HANDS_Y, n),
        None if carry is None else carry[rep],
    ).reshape(n, hands)
    masks = np.zeros((n, len(PAIRS), NUM_PLAYS), bool)
    pairs = len(PAIRS)
    for k, pos, local in games.locate(rows):
        a = games.parts[k].arrays
        g = np.repeat(local, pairs)
        legal = hand_play_masks(
            a.slots[g],
            a.tcount[g],
            a.shadows[g],
            a.feast_done[g],
            np.tile(_UX, len(local)),
            np.tile(_UY, len(local)),
        )
        masks[pos] = legal[:, :NUM_PLAYS].reshape(len(local), pairs, NUM_PLAYS)
    return weights.astype(np.float32), masks


def signal_loss(
    model,
    obs: torch.Tensor,
    layout,
    real_logits: torch.Tensor,
    real_mask: torch.Tensor,
    weights: torch.Tensor,
    pair_masks: torch.Tensor,
) -> torch.Tensor:
    """The mean signalling loss (module docstring) of ``n`` first-play decisions.

    Args:
        model: the actor-critic being trained.
        obs: float[n, size], the decisions' observations.
        layout: the observation layout.
        real_logits: float[n, NUM_PLAYS], the model's play logits on ``obs`` (any
            masking of illegal plays is redone here).
        real_mask: bool[n, NUM_PLAYS], the real hand's legal plays.
        weights: float[n, 49], from :func:`signal_inputs`.
        pair_masks: bool[n, 28, NUM_PLAYS], from :func:`signal_inputs`.
    """
    own = layout.by_name["own_hand"].slice
    counts = obs[:, own].round().long()  # the real hand: a count per value
    played = torch.from_numpy(PLAY_VALUE[:NUM_PLAYS] - 1)
    # the real hand keeps its other fate: the hand less the played value
    rest = counts[:, None, :].expand(-1, NUM_PLAYS, -1).clone()
    rows = torch.arange(len(obs))[:, None]
    rest[rows, torch.arange(NUM_PLAYS)[None], played[None]] -= 1
    kept = rest.clamp(min=0).argmax(-1)  # [n, plays]: the value (0..6) left
    masks = pair_masks[:, torch.from_numpy(_UNORDERED)]  # [n, 49, plays]
    logits = hand_play_logits(model, obs, layout, HANDS_X, HANDS_Y, NUM_PLAYS)
    policy = torch.softmax(logits.masked_fill(~masks, -1e9), -1) * masks
    joint = torch.einsum("nh,nhp,hpk->npk", weights, policy, _KEPT)  # [n, plays, 7]
    total = joint.sum(-1)
    right = joint.gather(-1, kept[..., None]).squeeze(-1)
    log_post = torch.log(right.clamp(min=1e-30)) - torch.log(total.clamp(min=1e-30))
    legal = real_mask & (total > 0)
    real = torch.softmax(real_logits.masked_fill(~real_mask, -1e9), -1) * legal
    return -(real * log_post).sum(-1).mean()
