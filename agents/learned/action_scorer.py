"""A network that scores each legal action from the action's own features (issue 52).

The flat network (:class:`~shipwreck_agents.learned.actor_critic.ActorCritic`) gives one
logit per action number from the observation alone, so it must work out for itself what
each play would tell the group. :class:`ActionScorer` is given that computation: each
legal action's row of :func:`shipwreck_env.rules.action_features.action_features` (the
batched engine's twin, :func:`shipwreck_env.vector.action_features.action_features`,
gives the same rows), and scores every legal action with one shared scorer:

* the **state**: a tanh MLP on the observation (``hidden``), as the flat network's body;
* the **scorer**: ``tanh(W h + E[a] + F x_a + b)`` for action ``a`` with feature row
  ``x_a`` (``E`` an embedding of the action number, ``W`` and ``F`` linear maps into
  ``score_width`` units), then a linear unit; the masked softmax over the legal actions
  is the policy. With ``belief_at`` (the offset of the observation's belief block) each
  row gets one more column: for a prediction or vote of ``v``, the block's probability
  of ``v`` (0 for other actions). The block is the literal belief, or the belief under
  the team's own play policy when the team writes it (``scorer_team``), so the group
  reads each prediction under both beliefs;
* the **value**: its own tanh MLP on the observation (as the flat network's), for
  fine-tuning with PPO later.

Decisions are handed over *compact*: per decision, the legal action numbers padded to a
width ``L`` (:func:`compact`), their feature rows and a validity mask, so a batch costs
``L`` rows a decision, not all 259. :meth:`ActionScorer.logits` takes the dense form (a
legal mask and the full feature block) and returns dense logits with :data:`MASKED` on
illegal actions, as the flat network does.

A saved scorer is one ``torch.save`` file holding the architecture and the weights
(:func:`save_scorer`, :func:`load_scorer`), with the training metadata beside it as for
every other kind (``<file>.meta.json``; its ``"network"`` is ``"action_scorer"``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from shipwreck_agents.learned.actor_critic import MASKED, tanh_mlp
from shipwreck_env.rules.actions import ACTIONS

__all__ = [
    "NETWORK_KIND",
    "ActionScorer",
    "compact",
    "is_scorer",
    "load_scorer",
    "save_scorer",
]

NETWORK_KIND = "action_scorer"
"""The ``"network"`` of a scorer's file and ``.meta.json``."""


def compact(
    mask: np.ndarray, block: np.ndarray, width: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The legal actions of each decision with their feature rows, padded to ``width``.

    Args:
        mask: bool[N, A], the legal actions.
        block: float[N, A, F], every action's feature row (:func:`action_features`).
        width: the padded width ``L`` (default: the most legal actions of a row).

    Returns:
        (int64[N, L] action numbers in increasing order, 0 where padded;
        float32[N, L, F] their rows, 0 where padded; bool[N, L] valid).

    Raises:
        ValueError: a row has more legal actions than ``width``.
    """
    mask = np.asarray(mask, bool)
    counts = mask.sum(1)
    most = int(counts.max()) if len(counts) else 0
    width = most if width is None else int(width)
    if most > width:
        raise ValueError(
            f"a decision has {most} legal actions, more than the width {width}; allowed: a "
            f"width of at least {most}"
        )
    order = np.argsort(~mask, axis=1, kind="stable")[:, :width]
    valid = np.take_along_axis(mask, order, 1)
    ids = np.where(valid, order, 0).astype(np.int64)
    rows = np.take_along_axis(np.asarray(block), order[:, :, None], 1).astype(np.float32)
    rows[~valid] = 0.0
    return ids, rows, valid


class ActionScorer(nn.Module):
    """Scores each legal action from the state and the action's feature row (see the
    module docstring).

    Args:
        obs_dim: observation size.
        num_actions: size of the action list.
        num_features: columns of a feature row.
        hidden: hidden widths of the state and value MLPs.
        score_width: units of the shared scorer's hidden layer.
        belief_at: offset of the observation's 7-value belief block, whose probability
            of each prediction's value becomes one more feature column (``None``: none).
    """

    def __init__(
        self,
        obs_dim: int,
        num_actions: int,
        num_features: int,
        hidden: tuple[int, ...] = (256, 256),
        score_width: int = 128,
        belief_at: int | None = None,
    ) -> None:
        super().__init__()
        self.obs_dim, self.num_actions, self.num_features = obs_dim, num_actions, num_features
        self.hidden, self.score_width = tuple(int(h) for h in hidden), int(score_width)
        self.belief_at = None if belief_at is None else int(belief_at)
        predicted = [a.value if a.kind == "predict" else 0 for a in ACTIONS[:num_actions]]
        predicted += [0] * (num_actions - len(predicted))
        self.register_buffer("predicted", torch.tensor(predicted, dtype=torch.int64), False)
        self.body = tanh_mlp(obs_dim, self.hidden)
        self.value_body = tanh_mlp(obs_dim, self.hidden)
        self.from_state = nn.Linear(self.hidden[-1], self.score_width)
        self.from_action = nn.Embedding(num_actions, self.score_width)
        extra = 0 if self.belief_at is None else 1
        self.from_features = nn.Linear(num_features + extra, self.score_width, bias=False)
        self.score = nn.Linear(self.score_width, 1)
        self.value_head = nn.Linear(self.hidden[-1], 1)
        for module in (*self.body, *self.value_body, self.from_state, self.from_features):
            if isinstance(module, nn.Linear):  # CleanRL / SB3 initialisation
                nn.init.orthogonal_(module.weight, np.sqrt(2))
                if module.bias is not None:
                    nn.init.zeros_(module.bias)
        nn.init.normal_(self.from_action.weight, 0.0, 0.1)
        nn.init.orthogonal_(self.score.weight, 0.01)
        nn.init.zeros_(self.score.bias)
        nn.init.orthogonal_(self.value_head.weight, 1.0)
        nn.init.zeros_(self.value_head.bias)

    def architecture(self) -> dict:
        """The arguments that rebuild this network (:func:`load_scorer`)."""
        return {
            "obs_dim": self.obs_dim,
            "num_actions": self.num_actions,
            "num_features": self.num_features,
            "hidden": list(self.hidden),
            "score_width": self.score_width,
            "belief_at": self.belief_at,
        }

    def logits_rows(
        self, obs: torch.Tensor, ids: torch.Tensor, rows: torch.Tensor, valid: torch.Tensor
    ) -> torch.Tensor:
        """float[N, L]: the logit of each compact action (:func:`compact`), :data:`MASKED`
        where ``valid`` is False."""
        state = self.from_state(self.body(obs))[:, None, :]
        if self.belief_at is not None:  # each prediction's value under the belief block
            block = obs[:, self.belief_at : self.belief_at + 7]
            block = torch.cat([torch.zeros_like(block[:, :1]), block], 1)
            rows = torch.cat([rows, block.gather(1, self.predicted[ids])[..., None]], -1)
        hidden = torch.tanh(state + self.from_action(ids) + self.from_features(rows))
        return self.score(hidden).squeeze(-1).masked_fill(~valid, MASKED)

    def logits(self, obs: torch.Tensor, mask: torch.Tensor, block: torch.Tensor) -> torch.Tensor:
        """float[N, A]: dense masked logits (:data:`MASKED` where ``mask`` is False or 0)
        from the full feature ``block`` float[N, A, F]."""
        legal = (mask != 0).numpy() if mask.dtype != torch.bool else mask.numpy()
        ids, rows, valid = compact(legal, block.numpy())
        compact_logits = self.logits_rows(
            obs, torch.from_numpy(ids), torch.from_numpy(rows), torch.from_numpy(valid)
        )
        out = torch.full((len(obs), self.num_actions), MASKED, dtype=compact_logits.dtype)
        at = torch.from_numpy(valid)
        decision = torch.arange(len(obs))[:, None].expand_as(at)
        # only the valid places: a padded place names action 0 and must not overwrite it
        return out.index_put((decision[at], torch.from_numpy(ids)[at]), compact_logits[at])

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """State values, shape ``[batch]``."""
        return self.value_head(self.value_body(obs)).squeeze(-1)

    @torch.no_grad()
    def greedy_rows(
        self, obs: torch.Tensor, ids: torch.Tensor, rows: torch.Tensor, valid: torch.Tensor
    ) -> torch.Tensor:
        """int64[N]: the action number of each decision's highest-scored legal action."""
        best = self.logits_rows(obs, ids, rows, valid).argmax(-1, keepdim=True)
        return ids.gather(1, best).squeeze(-1)


def save_scorer(model: ActionScorer, path: str | Path) -> None:
    """Write ``model`` (architecture and weights) to ``path`` (:func:`load_scorer`)."""
    torch.save(
        {
            "network": NETWORK_KIND,
            "architecture": model.architecture(),
            "state": model.state_dict(),
        },
        str(path),
    )


def load_scorer(path: str | Path) -> ActionScorer:
    """The scorer saved at ``path`` by :func:`save_scorer`, in eval mode.

    Raises:
        ValueError: the file does not exist or holds no scorer.
    """
    if not Path(path).exists():
        raise ValueError(f"model file {str(path)!r} does not exist")
    try:
        saved = torch.load(str(path), map_location="cpu", weights_only=True)
    except Exception as exc:
        raise ValueError(
            f"model file {str(path)!r} is not an action scorer ({type(exc).__name__}); "
            "allowed: a file written by save_scorer"
        ) from None
    if not isinstance(saved, dict) or saved.get("network") != NETWORK_KIND:
        raise ValueError(
            f"model file {str(path)!r} is not an action scorer; allowed: a file written by "
            "save_scorer"
        )
    arch = saved["architecture"]
    model = ActionScorer(
        arch["obs_dim"],
        arch["num_actions"],
        arch["num_features"],
        tuple(arch["hidden"]),
        arch["score_width"],
        arch.get("belief_at"),
    )
    model.load_state_dict(saved["state"])
    return model.eval()


def is_scorer(meta: dict) -> bool:
    """Whether a model's ``.meta.json`` says it is an action scorer."""
    return meta.get("network") == NETWORK_KIND
