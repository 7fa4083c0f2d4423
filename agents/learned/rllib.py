"""RLlib checkpoints as policies (``rllib:PATH`` in ``shipwreck_agents.registry``), without Ray.

``shipwreck_training.rllib`` trains :class:`~shipwreck_agents.learned.actor_critic.ActorCritic` inside
an RLlib RLModule (``shipwreck_training.rllib.module``) and writes, in every algorithm checkpoint directory, a
``shipwreck_policy.json`` naming the module to play and the game it learned
(:func:`shipwreck_agents.learned.sb3.game_meta`). The module's weights are RLlib's own file
``learner_group/learner/rl_module/<module>/module_state.pkl`` -- a pickled dict of numpy
arrays (names under ``net.``; checkpoints written before the shared network used the
names :data:`~shipwreck_agents.learned.actor_critic.RLLIB_LEGACY_NAMES` maps) -- so this loader
needs only numpy and torch: the project's main environment
(gymnasium 1.4, no Ray) plays a checkpoint trained in ``.venv-rllib``.

``PATH`` is a checkpoint directory (``.../checkpoints/iter_000002``), a run directory
(its latest checkpoint), or a module directory (``.../rl_module/shared``, with the
``shipwreck_policy.json`` of its checkpoint found above it). The policy picks the most
likely legal action (``deterministic=False``: samples with the generator it is given).
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import torch

from shipwreck_agents.learned.actor_critic import MASKED, RLLIB_LEGACY_NAMES, ActorCritic, rename
from shipwreck_agents.learned.sb3 import GameCheck
from shipwreck_env.envs.policy import Policy
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView

__all__ = [
    "MASKED",
    "META_FILE",
    "MaskedActorCritic",
    "RLlibPolicy",
    "find_checkpoint",
    "load_rllib_policy",
]

META_FILE = "shipwreck_policy.json"
"""Written by the trainer in every checkpoint: module id, network sizes, game metadata."""

MaskedActorCritic = ActorCritic
"""The network's name here before it moved to :mod:`shipwreck_agents.learned.actor_critic`."""


def find_checkpoint(path: str | Path) -> tuple[Path, dict]:
    """The checkpoint directory ``path`` names (itself, a run's latest, or the one
    above a module directory) and its :data:`META_FILE` contents.

    Raises:
        ValueError: nothing there is a checkpoint of ``shipwreck_training.rllib``.
    """
    path = Path(path)
    if not path.exists():
        raise ValueError(f"RLlib checkpoint {str(path)!r} does not exist")
    if (path / META_FILE).is_file():
        return path, json.loads((path / META_FILE).read_text())
    latest = path / "checkpoints" / "latest"
    if latest.is_file():  # a run directory
        return find_checkpoint(path / "checkpoints" / latest.read_text().strip())
    for parent in path.parents:  # a module directory inside a checkpoint
        if (parent / META_FILE).is_file():
            return parent, json.loads((parent / META_FILE).read_text())
    raise ValueError(
        f"{str(path)!r} is not a checkpoint of shipwreck_training.rllib (no {META_FILE} there "
        "or above, and no checkpoints/latest); allowed: a checkpoint, run or module directory"
    )


def _module_dir(path: Path, checkpoint: Path, module: str) -> Path:
    if (path / "module_state.pkl").is_file():
        return path
    return checkpoint / "learner_group" / "learner" / "rl_module" / module


def load_network(path: str | Path) -> tuple[ActorCritic, dict]:
    """(network in eval mode, metadata) of the checkpoint or module at ``path``."""
    checkpoint, meta = find_checkpoint(path)
    module_dir = _module_dir(Path(path), checkpoint, meta["module"])
    state_file = module_dir / "module_state.pkl"
    if not state_file.is_file():
        raise ValueError(f"RLlib module state {str(state_file)!r} does not exist")
    with state_file.open("rb") as f:
        state = pickle.load(f)
    prefix = "net."
    weights = {
        k[len(prefix) :]: torch.as_tensor(np.asarray(v))
        for k, v in state.items()
        if k.startswith(prefix)
    }
    if not any(k.startswith("mlp_extractor.") for k in weights):
        weights = rename(weights, RLLIB_LEGACY_NAMES)
    net = ActorCritic(meta["obs_dim"], meta["num_actions"], tuple(meta["hidden"]))
    net.load_state_dict(weights)
    net.eval()
    return net, meta


class RLlibPolicy(Policy):
    """A network trained with RLlib, choosing greedily among legal actions."""

    needs_observation = True

    def __init__(self, net, name: str, meta: dict, deterministic: bool = True) -> None:
        self.net = net
        self.name = name
        self.meta = meta
        self.deterministic = deterministic
        self.belief = bool(meta.get("game", {}).get("belief", False))
        self._check_game = GameCheck(meta.get("game", {}), name)

    def act(
        self,
        observation: np.ndarray | None,
        mask: np.ndarray,
        view: AgentView,
        rng: np.random.Generator,
        state: State | None = None,
    ) -> int:
        self._check_game(view.config)
        if observation is None or observation.shape != (self.net.obs_dim,):
            got = None if observation is None else observation.shape
            raise ValueError(
                f"model {self.name} expects observations of shape ({self.net.obs_dim},), "
                f"got {got}: play it with the options it was trained on"
            )
        with torch.no_grad():
            logits = self.net.logits(
                torch.as_tensor(observation, dtype=torch.float32)[None],
                torch.as_tensor(np.asarray(mask))[None],
            )[0]
        if self.deterministic:
            return int(logits.argmax())
        probs = torch.softmax(logits.double(), -1).numpy() * (mask > 0)
        return int(rng.choice(len(probs), p=probs / probs.sum()))


def load_rllib_policy(path: str, deterministic: bool = True) -> RLlibPolicy:
    """The policy of an RLlib checkpoint of ``shipwreck_training.rllib`` (see the module
    docstring for what ``path`` may be)."""
    net, meta = load_network(path)
    checkpoint, _ = find_checkpoint(path)
    return RLlibPolicy(net, f"rllib:{checkpoint.name}", meta, deterministic)
