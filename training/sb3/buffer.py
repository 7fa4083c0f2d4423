"""MaskablePPO's rollout buffer, handing out minibatches with one copy instead of two.

sb3-contrib's ``MaskableRolloutBuffer._get_samples`` gathers a minibatch's rows with
numpy's fancy indexing (a copy) and then passes each of its seven arrays through
``torch.tensor`` (a second copy, and a Python call per array). :class:`FastRolloutBuffer`
wraps the gathered arrays with ``torch.from_numpy`` instead: the same rows, the same
order (the permutation still comes from ``np.random.permutation``), the same dtypes,
one copy fewer of every minibatch (160 per update at the default config).
:func:`shipwreck_training.sb3.distribution.use_fast_update` puts it in place of the
model's buffer; the saved model does not name it. ``tests/training/test_sb3_buffer.py`` checks it
against sb3-contrib's buffer row for row.
"""

from __future__ import annotations

import numpy as np
import torch
from sb3_contrib.common.maskable.buffers import (
    MaskableRolloutBuffer,
    MaskableRolloutBufferSamples,
)

__all__ = ["FastRolloutBuffer", "fast_buffer_for"]


class FastRolloutBuffer(MaskableRolloutBuffer):
    """``MaskableRolloutBuffer`` whose minibatches are copied once (module docstring)."""

    def _get_samples(  # type: ignore[override]
        self, batch_inds: np.ndarray, env: object = None
    ) -> MaskableRolloutBufferSamples:
        if env is not None:
            raise ValueError(f"env {env!r} is not allowed; allowed: None (no VecNormalize)")
        rows = (
            self.observations[batch_inds],
            self.actions[batch_inds],
            self.values[batch_inds].reshape(-1),
            self.log_probs[batch_inds].reshape(-1),
            self.advantages[batch_inds].reshape(-1),
            self.returns[batch_inds].reshape(-1),
            self.action_masks[batch_inds].reshape(-1, self.mask_dims),
        )
        return MaskableRolloutBufferSamples(*(torch.from_numpy(x) for x in rows))


def fast_buffer_for(model: object) -> FastRolloutBuffer:
    """A :class:`FastRolloutBuffer` shaped as MaskablePPO ``model``'s own buffer."""
    old = model.rollout_buffer  # type: ignore[attr-defined]
    if old.device.type != "cpu":
        raise ValueError(f"device {old.device} is not allowed; allowed: cpu")
    return FastRolloutBuffer(
        old.buffer_size,
        old.observation_space,
        old.action_space,
        old.device,
        gae_lambda=old.gae_lambda,
        gamma=old.gamma,
        n_envs=old.n_envs,
    )
