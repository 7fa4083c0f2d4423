"""A faster masked categorical for MaskablePPO, with the same probabilities.

sb3-contrib's ``MaskableCategoricalDistribution`` builds a ``torch.distributions``
``Categorical`` three times per minibatch (once from the raw logits, twice more when the
mask is applied), each time normalising the logits with a ``logsumexp`` and checking
its arguments. Profiling MaskablePPO's update on the batched engine (256 x 256 network,
259 actions) put a large share of the update's time there, beside the network's own
forward and backward passes and Adam. :class:`FastMaskedCategorical`
computes the same quantities once per minibatch, as plain tensor operations:

- illegal logits get sb3-contrib's ``-1e8`` added (a bias of 0 or -1e8 built from the
  mask, whether it comes as bools from the env or as 0/1 floats from the rollout buffer;
  cheaper forwards and backwards than ``masked_fill``), so an illegal action's
  probability is exactly 0 in float32, as there, and a legal one's is unchanged;
- one ``log_softmax`` and one ``softmax``: log-probabilities, probabilities and the
  entropy (which, as in sb3-contrib, counts legal actions only) come from them;
- sampling draws from those probabilities by inverting each row's cumulative sum
  (:func:`sample_rows`): the law of ``Categorical.sample``, at one uniform variate per
  row instead of ``torch.multinomial``'s one exponential variate per action, which made
  sampling half of a rollout step's policy time.

The model's saved file does not name this class (the policy keeps sb3-contrib's class;
:func:`use_fast_update` swaps the distribution object of a built or loaded model),
so saved models load anywhere without this module. ``tests/training/test_sb3_distribution.py``
compares it with sb3-contrib's distribution on random logits and masks.
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

__all__ = ["FastMaskedCategorical", "sample_rows", "use_fast_update"]

_ILLEGAL = -1e8  # sb3-contrib's value for a masked logit


class FastMaskedCategorical(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical, computed once per minibatch (see the module
    docstring). A drop-in for ``MaskableCategoricalDistribution(action_dim)``."""

    def __init__(self, action_dim: int) -> None:
        super().__init__(action_dim)
        self._raw: torch.Tensor | None = None
        self._bias: torch.Tensor | None = None
        self._log_p: torch.Tensor | None = None
        self._p: torch.Tensor | None = None
        self._masked: torch.Tensor | None = None

    def proba_distribution(self, action_logits: torch.Tensor) -> FastMaskedCategorical:
        self._raw = action_logits.view(-1, self.action_dim)
        self._bias = None
        self._log_p = self._p = self._masked = None
        return self

    def apply_masking(self, masks: Any) -> None:
        if masks is None:
            self._bias = None
        else:  # bool or 0/1 float (the rollout buffer's): 0 where legal, -1e8 where not
            legal = torch.as_tensor(masks, device=self._raw.device).reshape(self._raw.shape)
            self._bias = (legal.to(self._raw.dtype) - 1.0) * -_ILLEGAL
        self._log_p = self._p = self._masked = None

    def _logits(self) -> torch.Tensor:
        if self._bias is None:
            return self._raw
        if self._masked is None:
            self._masked = self._raw + self._bias
        return self._masked

    @property
    def log_p(self) -> torch.Tensor:
        """float[n, actions]: log-probabilities (masked actions: about -1e8)."""
        if self._log_p is None:
            self._log_p = torch.log_softmax(self._logits(), -1)
        return self._log_p

    @property
    def p(self) -> torch.Tensor:
        """float[n, actions]: probabilities (masked actions: exactly 0). A softmax of its
        own, since ``exp`` of a log-probability near -1e8 takes the slow path of torch's
        vectorised ``exp`` (40 times slower per element)."""
        if self._p is None:
            self._p = torch.softmax(self._logits(), -1)
        return self._p

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.log_p.gather(-1, actions.long().view(-1, 1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        # a masked action's probability is exactly 0 (exp underflows), so its term
        # p * log p is 0 and the sum counts legal actions only, as sb3-contrib's does
        return -(self.p * self.log_p).sum(-1)

    def sample(self) -> torch.Tensor:
        return sample_rows(self.p)

    def mode(self) -> torch.Tensor:
        return self.log_p.argmax(-1)


def sample_rows(p: torch.Tensor) -> torch.Tensor:
    """One action per row of ``p`` (float[n, actions], rows of non-negative weights),
    drawn with probability proportional to its weight, by inverting each row's
    cumulative sum at a uniform draw (``torch.rand``).

    ``torch.multinomial`` draws the same law but spends one exponential variate per
    action (about 2.5 ms for 256 x 259 on one core, half of a rollout step's policy
    time); this costs one uniform per row. An action of weight 0 is never drawn: its
    cumulative sum equals its predecessor's, and ``searchsorted(right=True)`` returns the
    first index whose sum exceeds the draw. The draw stays below the row's total
    (``torch.rand`` < 1, and ``u * total`` with ``u <= 1 - 2**-24`` rounds below
    ``total``); should a draw ever reach it, the row's last action of positive weight
    is taken rather than an index past the row."""
    cdf = p.cumsum(-1)
    total = cdf[:, -1:]
    drawn = torch.searchsorted(cdf, torch.rand(total.shape, dtype=p.dtype) * total, right=True)
    drawn = drawn.squeeze(-1)
    over = drawn >= p.shape[-1]
    if bool(over.any()):
        positions = torch.arange(p.shape[-1], device=p.device).expand(int(over.sum()), -1)
        drawn[over] = torch.where(p[over] > 0, positions, -1).amax(-1)
    return drawn


def use_fast_update(model: Any) -> None:
    """Give a MaskablePPO ``model`` (built or loaded) :class:`FastMaskedCategorical`,
    torch's fused Adam step (the same update in one kernel per tensor instead of about a
    dozen) and :class:`~shipwreck_training.sb3.buffer.FastRolloutBuffer` (minibatches
    copied once)."""
    from shipwreck_training.sb3.buffer import fast_buffer_for

    model.policy.action_dist = FastMaskedCategorical(model.policy.action_space.n)
    for group in model.policy.optimizer.param_groups:
        group["fused"] = True
    model.rollout_buffer = fast_buffer_for(model)
