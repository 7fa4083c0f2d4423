"""A faster masked categorical for MaskablePPO, with the same probabilities.

sb3-contrib's ``MaskableCategoricalDistribution`` builds a ``torch.distributions``
``Categorical`` three times per minibatch (once from the raw logits, twice more when the
mask is applied), each time normalising the logits with a ``logsumexp`` and checking
its arguments. Profiling MaskablePPO's update on the batched engine (256 x 256 network,
259 actions) put a large share of the update's time there, beside the network's own
forward and backward passes and Adam. :class:`FastMaskedCategorical`
computes the same quantities once per minibatch, as plain tensor operations:

- illegal logits are set to sb3-contrib's ``-1e8`` (so an illegal action's probability
  is exactly 0 in float32, as there);
- one ``log_softmax`` and one ``softmax``: log-probabilities, probabilities and the
  entropy (which, as in sb3-contrib, counts legal actions only) come from them;
- sampling draws from those probabilities with ``torch.multinomial``, as
  ``Categorical.sample`` does.

The model's saved file does not name this class (the policy keeps sb3-contrib's class;
:func:`use_fast_update` swaps the distribution object of a built or loaded model),
so saved models load anywhere without this module. ``tests/test_sb3_vector.py`` compares
it with sb3-contrib's distribution on random logits and masks.
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

__all__ = ["FastMaskedCategorical", "use_fast_update"]

_ILLEGAL = -1e8  # sb3-contrib's value for a masked logit


class FastMaskedCategorical(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical, computed once per minibatch (see the module
    docstring). A drop-in for ``MaskableCategoricalDistribution(action_dim)``."""

    def __init__(self, action_dim: int) -> None:
        super().__init__(action_dim)
        self._raw: torch.Tensor | None = None
        self._mask: torch.Tensor | None = None
        self._log_p: torch.Tensor | None = None
        self._p: torch.Tensor | None = None
        self._masked: torch.Tensor | None = None

    def proba_distribution(self, action_logits: torch.Tensor) -> FastMaskedCategorical:
        self._raw = action_logits.view(-1, self.action_dim)
        self._mask = None
        self._log_p = self._p = self._masked = None
        return self

    def apply_masking(self, masks: Any) -> None:
        if masks is None:
            self._mask = None
        else:
            self._mask = torch.as_tensor(masks, dtype=torch.bool, device=self._raw.device).reshape(
                self._raw.shape
            )
        self._log_p = self._p = self._masked = None

    def _logits(self) -> torch.Tensor:
        if self._mask is None:
            return self._raw
        if self._masked is None:
            self._masked = self._raw.masked_fill(~self._mask, _ILLEGAL)
        return self._masked

    @property
    def log_p(self) -> torch.Tensor:
        """float[n, actions]: log-probabilities (masked actions: about -1e8)."""
        if self._log_p is None:
            self._log_p = torch.log_softmax(self._logits(), -1)
        return self._log_p

    @property
    def p(self) -> torch.Tensor:
        """float[n, actions]: probabilities (masked actions: 0). A softmax of its own,
        since ``exp`` of a log-probability near -1e8 takes the slow path of torch's
        vectorised ``exp`` (40 times slower per element)."""
        if self._p is None:
            self._p = torch.softmax(self._logits(), -1)
        return self._p

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.log_p.gather(-1, actions.long().view(-1, 1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        p_log_p = self.p * self.log_p
        if self._mask is not None:  # a masked action carries no uncertainty
            p_log_p = p_log_p.masked_fill(~self._mask, 0.0)
        return -p_log_p.sum(-1)

    def sample(self) -> torch.Tensor:
        return torch.multinomial(self.p, 1, True).squeeze(-1)

    def mode(self) -> torch.Tensor:
        return self.log_p.argmax(-1)


def use_fast_update(model: Any) -> None:
    """Give a MaskablePPO ``model`` (built or loaded) :class:`FastMaskedCategorical` and
    torch's fused Adam step (the same update in one kernel per tensor instead of about a
    dozen)."""
    model.policy.action_dist = FastMaskedCategorical(model.policy.action_space.n)
    for group in model.policy.optimizer.param_groups:
        group["fused"] = True
