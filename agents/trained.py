"""Trained Stable-Baselines3 models as policies.

``load_policy("runs/x/final_model.zip")`` loads a MaskablePPO model on the CPU -- or,
for a ``.pth`` file, just its policy network (as exported to ``results/models/``) -- and
wraps it as a :class:`~agents.base.Policy` that picks the most likely legal action. A
``<model>.meta.json`` file beside the model (written by the training code) says which
observation options it was trained with (``belief``); without it the defaults are assumed.
A model whose observation size does not fit the game raises a clear error when it is
first asked to act.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from agents.base import Policy
from shipwreck_env.state import State
from shipwreck_env.view import AgentView

__all__ = ["TrainedPolicy", "load_policy", "read_meta"]


def read_meta(model_path: str | Path) -> dict:
    """The training metadata saved beside a model (empty if there is none)."""
    meta = Path(str(model_path) + ".meta.json")
    if not meta.exists():
        meta = Path(model_path).with_suffix(".meta.json")
    return json.loads(meta.read_text()) if meta.exists() else {}


class TrainedPolicy(Policy):
    """A trained model choosing greedily among legal actions (``deterministic=False``
    samples from its distribution with the given generator instead)."""

    needs_observation = True

    def __init__(self, policy, name: str, meta: dict, deterministic: bool = True) -> None:
        self.policy = policy
        self.name = name
        self.meta = meta
        self.deterministic = deterministic
        self.belief = bool(meta.get("belief", False))

    def act(
        self,
        observation: np.ndarray | None,
        mask: np.ndarray,
        view: AgentView,
        rng: np.random.Generator,
        state: State | None = None,
    ) -> int:
        expected = self.policy.observation_space.shape
        if observation is None or observation.shape != expected:
            got = None if observation is None else observation.shape
            raise ValueError(
                f"model {self.name} expects observations of shape {expected}, got {got}: "
                "evaluate it with the player count and observation options it was trained on"
            )
        if self.deterministic:
            action, _ = self.policy.predict(
                observation, action_masks=mask.astype(bool), deterministic=True
            )
            return int(action)
        import torch

        obs_tensor, _ = self.policy.obs_to_tensor(observation)
        with torch.no_grad():
            dist = self.policy.get_distribution(obs_tensor, action_masks=mask.astype(bool))
            probs = dist.distribution.probs[0].numpy().astype(float)
        probs = probs * (mask > 0)
        return int(rng.choice(len(probs), p=probs / probs.sum()))


def load_policy(path: str, deterministic: bool = True) -> TrainedPolicy:
    """Load a model saved by ``training`` (any MaskablePPO ``.zip``), or a policy network
    exported with ``policy.save`` (``.pth``)."""
    model_path = Path(path)
    if not model_path.exists():
        raise ValueError(f"model file {path!r} does not exist")
    if model_path.suffix == ".pth":
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        policy = MaskableActorCriticPolicy.load(str(model_path), device="cpu")
    else:
        from sb3_contrib import MaskablePPO

        policy = MaskablePPO.load(str(model_path), device="cpu").policy
    return TrainedPolicy(policy, f"ppo:{model_path.stem}", read_meta(model_path), deterministic)
