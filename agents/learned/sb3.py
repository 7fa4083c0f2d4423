"""Trained Stable-Baselines3 models as policies.

``load_policy("runs/x/final_model.zip")`` loads a MaskablePPO model on the CPU -- or,
for a ``.pth`` file, just its policy network (as exported to ``results/models/``) -- and
wraps it as a :class:`~shipwreck_agents.base.Policy` that picks the most likely legal action.

A ``<model>.meta.json`` file beside the model (written by the training code with
:func:`game_meta`) says what it was trained on: the game's fixed options
(:data:`GAME_KEYS`: players, challenge mode, card sets, group decision, reveals), the
observation options (``belief``) and the observation layout's fingerprint, with the
package version and commit that trained it. A model asked to act in a game whose options
or layout differ from its metadata refuses with an error naming the option, the value it
was trained with and the game's (:func:`check_game`); keys a metadata file lacks (files
older than these fields) are not checked, and without a file the defaults are assumed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np

import shipwreck_env
from shipwreck_agents.base import Policy
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import AgentView

__all__ = [
    "GAME_KEYS",
    "GameCheck",
    "TrainedPolicy",
    "check_game",
    "game_meta",
    "load_policy",
    "read_meta",
]

GAME_KEYS = ("num_players", "challenge_mode", "card_sets", "group_decision", "reveal")
"""Game options a model is trained for and must be played with (difficulty and
``max_turns`` may differ: they change no decision the model sees)."""


def _commit() -> str | None:
    """The checkout's commit (``+dirty`` with uncommitted changes), or None outside git."""
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("+dirty" if dirty else "")


def game_meta(config: GameConfig, belief: bool) -> dict:
    """What a model's metadata records about the game it learns: :data:`GAME_KEYS`,
    ``belief``, ``observation_layout`` (the layout's fingerprint), ``package_version`` and
    ``commit``."""
    data = config.to_dict()
    return {
        **{key: data[key] for key in GAME_KEYS},
        "belief": belief,
        "observation_layout": ObservationLayout.for_config(config, belief).fingerprint,
        "package_version": shipwreck_env.__version__,
        "commit": _commit(),
    }


class GameCheck:
    """:func:`check_game` for one model, run once per game configuration it meets (a
    policy plays many games of one configuration: the check is not repeated per move)."""

    def __init__(self, meta: dict, name: str) -> None:
        self.meta = meta
        self.name = name
        self._checked: GameConfig | None = None

    def __call__(self, config: GameConfig) -> None:
        """Raise ``ValueError`` (see :func:`check_game`) if ``config`` is not the
        model's game."""
        if config is not self._checked:
            check_game(self.meta, config, self.name)
            self._checked = config

    def observation_size(self, got: int, expected: int) -> None:
        """Refuse an observation of ``got`` numbers for a network that takes ``expected``.

        Raises:
            ValueError: naming both sizes and what to do.
        """
        if got != expected:
            raise ValueError(
                f"model {self.name} expects observations of size {expected}, got {got}: "
                "evaluate it with the player count it was trained on"
            )


def check_game(meta: dict, config: GameConfig, name: str = "model") -> None:
    """Refuse to play ``config`` with a model whose metadata says otherwise.

    Raises:
        ValueError: naming the first option (or the observation layout) that differs, the
            value the model was trained with and the game's.
    """
    data = config.to_dict()
    for key in GAME_KEYS:
        if key in meta and _same(meta[key]) != _same(data[key]):
            raise ValueError(
                f"{name} was trained with {key}={meta[key]!r} but this game has "
                f"{key}={data[key]!r}; allowed: play it with the options it was trained on"
            )
    if "observation_layout" in meta:
        layout = ObservationLayout.for_config(config, bool(meta.get("belief", False)))
        if layout.fingerprint != meta["observation_layout"]:
            raise ValueError(
                f"{name} was trained on observation layout {meta['observation_layout']} but "
                f"this package's layout for the game is {layout.fingerprint} (package "
                f"{shipwreck_env.__version__}, model trained with "
                f"{meta.get('package_version', '?')} at commit {meta.get('commit', '?')}); "
                "allowed: the layout it was trained on"
            )


def _same(value: object) -> object:
    return tuple(value) if isinstance(value, list | tuple) else value


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
        self._check_game = GameCheck(meta, name)

    def act(
        self,
        observation: np.ndarray | None,
        mask: np.ndarray,
        view: AgentView,
        rng: np.random.Generator,
        state: State | None = None,
    ) -> int:
        self._check_game(view.config)
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
