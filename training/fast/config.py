"""Configuration of a fast PPO run: one YAML file, every value explicit and checked.

A file maps to :class:`FastConfig` with nested :class:`GameSettings`,
:class:`PPOSettings`, :class:`EvalSettings` and :class:`ImitationSettings`. Unknown keys
and bad values raise ``ValueError`` naming the key, the value and what is allowed.
Command-line overrides use dotted keys: ``ppo.learning_rate=1e-4 num_games=1024``.

This schema is the fast trainer's own (``training/config.py`` is the Stable-Baselines3
trainer's); the two never import each other.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from shipwreck_env.config import DIFFICULTIES, GameConfig

__all__ = [
    "BELIEFS",
    "REGIMES",
    "EvalSettings",
    "FastConfig",
    "GameSettings",
    "ImitationSettings",
    "PPOSettings",
    "apply_overrides",
    "from_dict",
    "load_config",
]

REGIMES = ("selfplay", "play", "predict")
"""``selfplay``: every decision learned; ``play``: the active player's decisions
learned, the group's from ``partner``; ``predict``: the group's decisions learned, the
active player's from ``partner``."""
BELIEFS = ("none", "literal", "policy", "aux")
"""What the network sees of the kept fate: ``none`` (no belief block), ``literal`` (the
environment's number-line x unseen block), ``policy`` (the block holds the posterior
under the current play policy, :mod:`shipwreck_training.belief`), ``aux`` (literal block, plus an
auxiliary head trained to predict the kept fate)."""


@dataclass(frozen=True)
class GameSettings:
    """The games the learner plays (the batched engine covers the base set only).

    Attributes:
        num_players, group_decision, reveal, max_turns: as in ``GameConfig``.
        difficulties: the games are split evenly between these difficulties.
        reward: ``win_loss`` or ``score_doom`` (team reward after every decision).
        belief: one of :data:`BELIEFS`.
    """

    num_players: int = 3
    difficulties: tuple[str, ...] = ("easy", "normal", "hard", "doomed")
    group_decision: str = "leader"
    reveal: bool = True
    max_turns: int = 200
    reward: str = "score_doom"
    belief: str = "literal"

    def __post_init__(self) -> None:
        object.__setattr__(self, "difficulties", tuple(self.difficulties))
        if not self.difficulties or any(d not in DIFFICULTIES for d in self.difficulties):
            raise ValueError(
                f"env.difficulties {list(self.difficulties)!r} is not allowed; allowed: a "
                f"non-empty list of {list(DIFFICULTIES)}"
            )
        if self.reward not in ("win_loss", "score_doom"):
            raise ValueError(
                f"env.reward {self.reward!r} is not allowed; allowed: win_loss, score_doom"
            )
        if self.belief not in BELIEFS:
            raise ValueError(f"env.belief {self.belief!r} is not allowed; allowed: {BELIEFS}")
        try:
            self.game_config(self.difficulties[0])
        except ValueError as exc:
            raise ValueError(f"env: {exc}") from None

    @property
    def belief_block(self) -> bool:
        """Observations carry the 7-value belief block."""
        return self.belief != "none"

    def game_config(self, difficulty: str) -> GameConfig:
        """The engine configuration of the games at ``difficulty``."""
        return GameConfig(
            num_players=self.num_players,
            difficulty=difficulty,
            card_sets="base",
            group_decision=self.group_decision,
            reveal=self.reveal,
            max_turns=self.max_turns,
        )

    def engine_kwargs(self, difficulty: str) -> dict:
        """Keyword arguments of ``VectorGame`` for ``difficulty``."""
        cfg = self.game_config(difficulty)
        return {
            "num_players": cfg.num_players,
            "difficulty": difficulty,
            "card_sets": "base",
            "group_decision": cfg.group_decision,
            "reveal": cfg.reveal,
            "max_turns": cfg.max_turns,
        }


@dataclass(frozen=True)
class PPOSettings:
    """PPO hyperparameters (CleanRL names).

    Attributes:
        learning_rate: Adam step size (annealed linearly to 0 if ``anneal_lr``).
        epochs: passes over each rollout.
        minibatch_size: samples per gradient step.
        gamma, gae_lambda: discount and GAE lambda over each game's decisions.
        clip_coef: PPO ratio clip.
        ent_coef, vf_coef, aux_coef: weights of the entropy bonus, value loss and the
            kept-fate auxiliary loss (belief ``aux`` only).
        max_grad_norm: gradient clipping.
        hidden: widths of the actor's and the critic's hidden layers (tanh, as SB3).
        anneal_lr: decay the learning rate linearly over ``total_steps``.
        target_kl: stop the epochs of one update early past this KL (0: never).
    """

    learning_rate: float = 3e-4
    epochs: int = 4
    minibatch_size: int = 8192
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    aux_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (128, 128)
    anneal_lr: bool = True
    target_kl: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "hidden", tuple(self.hidden))
        for name in ("learning_rate", "clip_coef", "max_grad_norm"):
            _positive(f"ppo.{name}", getattr(self, name))
        for name in ("epochs", "minibatch_size"):
            _positive_int(f"ppo.{name}", getattr(self, name))
        for name in ("gamma", "gae_lambda"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 < value <= 1:
                raise ValueError(f"ppo.{name} {value!r} is not allowed; allowed: (0, 1]")
        for name in ("ent_coef", "vf_coef", "aux_coef", "target_kl"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"ppo.{name} {value!r} is not allowed; allowed: a number >= 0")
        if not self.hidden or any(not isinstance(h, int) or h < 1 for h in self.hidden):
            raise ValueError(
                f"ppo.hidden {list(self.hidden)!r} is not allowed; allowed: positive widths"
            )


@dataclass(frozen=True)
class EvalSettings:
    """Greedy evaluation on the batched engine during training (held-out seeds).

    Attributes:
        every: learner steps between evaluations (0: only at the end).
        games: games per difficulty.
        seed: seed of the evaluation games (never a training seed).
        difficulties: evaluated difficulties.
    """

    every: int = 2_000_000
    games: int = 1000
    seed: int = 1_000_003
    difficulties: tuple[str, ...] = ("easy", "normal", "hard", "doomed")

    def __post_init__(self) -> None:
        object.__setattr__(self, "difficulties", tuple(self.difficulties))
        if not isinstance(self.every, int) or self.every < 0:
            raise ValueError(f"eval.every {self.every!r} is not allowed; allowed: an int >= 0")
        _positive_int("eval.games", self.games)
        if any(d not in DIFFICULTIES for d in self.difficulties):
            raise ValueError(
                f"eval.difficulties {list(self.difficulties)!r} is not allowed; allowed: "
                f"entries of {list(DIFFICULTIES)}"
            )


@dataclass(frozen=True)
class ImitationSettings:
    """Behaviour cloning of a scripted team before PPO (``steps`` 0: none).

    Attributes:
        play, group: the teacher team (registry specs).
        steps: recorded decisions.
        epochs: passes over them.
    """

    play: str = "convention"
    group: str = "convention"
    steps: int = 0
    epochs: int = 4

    def __post_init__(self) -> None:
        if not isinstance(self.steps, int) or self.steps < 0:
            raise ValueError(f"imitation.steps {self.steps!r} is not allowed; allowed: an int >= 0")
        _positive_int("imitation.epochs", self.epochs)


@dataclass(frozen=True)
class FastConfig:
    """One run of the fast trainer.

    Attributes:
        name: run name (the run folder is ``<name>__<seed>__<time>``).
        regime: one of :data:`REGIMES`.
        partner: registry spec of the scripted role (``play``: the group, ``predict``:
            the player); empty for ``selfplay``.
        seed: seeds the games, the network and every sample.
        total_steps: learner decisions to train on.
        num_games: games stepped side by side (split evenly over the difficulties).
        rollout_steps: decisions per game in one rollout (batch = games x steps).
        checkpoint_every: learner steps between checkpoints.
        torch_threads: torch's intra-op threads.
    """

    name: str
    regime: str = "selfplay"
    partner: str = ""
    seed: int = 0
    total_steps: int = 10_000_000
    num_games: int = 4096
    rollout_steps: int = 32
    checkpoint_every: int = 2_000_000
    torch_threads: int = 2
    env: GameSettings = field(default_factory=GameSettings)
    ppo: PPOSettings = field(default_factory=PPOSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)
    imitation: ImitationSettings = field(default_factory=ImitationSettings)

    def __post_init__(self) -> None:
        if self.regime not in REGIMES:
            raise ValueError(f"regime {self.regime!r} is not allowed; allowed: {REGIMES}")
        if (self.regime == "selfplay") != (self.partner == ""):
            raise ValueError(
                f"partner {self.partner!r} is not allowed with regime {self.regime!r}; "
                "allowed: empty for selfplay, a registry spec for play and predict"
            )
        for name in ("total_steps", "num_games", "rollout_steps", "checkpoint_every"):
            _positive_int(name, getattr(self, name))
        _positive_int("torch_threads", self.torch_threads)
        if self.num_games % len(self.env.difficulties):
            raise ValueError(
                f"num_games {self.num_games} is not allowed; allowed: a multiple of the "
                f"{len(self.env.difficulties)} difficulties"
            )
        if self.env.belief == "policy" and self.regime != "selfplay":
            raise ValueError(
                f"env.belief 'policy' is not allowed with regime {self.regime!r}; allowed: "
                "selfplay (the belief inverts the learned play policy)"
            )

    @property
    def batch_size(self) -> int:
        """Decisions in one rollout."""
        return self.num_games * self.rollout_steps

    def to_dict(self) -> dict:
        """Plain data (lists, not tuples), as written to ``config.yaml``."""
        return _plain(dataclasses.asdict(self))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _positive(name: str, value: object) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} {value!r} is not allowed; allowed: a number > 0")


def _positive_int(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} {value!r} is not allowed; allowed: an integer >= 1")


_NESTED = {
    "env": GameSettings,
    "ppo": PPOSettings,
    "eval": EvalSettings,
    "imitation": ImitationSettings,
}


def _build(cls: type, data: dict, prefix: str) -> Any:
    if not isinstance(data, dict):
        raise ValueError(f"{prefix or 'config'} {data!r} is not allowed; allowed: a mapping")
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{prefix}keys {unknown} are unknown; allowed: {sorted(known)}")
    kwargs = {}
    for key, value in data.items():
        if prefix == "" and key in _NESTED:
            value = _build(_NESTED[key], value, f"{key}.")
        kwargs[key] = value
    return cls(**kwargs)


def from_dict(data: dict) -> FastConfig:
    """Build and check a config from plain data."""
    if "name" not in data:
        raise ValueError("config key 'name' is missing; allowed: a run name")
    return _build(FastConfig, data, "")


def apply_overrides(data: dict, overrides: list[str]) -> dict:
    """``data`` with each ``dotted.key=value`` applied (values parsed as YAML)."""
    out = _plain(data)
    for item in overrides:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ValueError(f"override {item!r} is not allowed; allowed: dotted.key=value")
        node = out
        *parents, last = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = yaml.safe_load(text)
    return out


def load_config(path: str | Path, overrides: list[str] | None = None) -> FastConfig:
    """Read a YAML config and apply ``overrides``."""
    data = yaml.safe_load(Path(path).read_text()) or {}
    return from_dict(apply_overrides(data, overrides or []))
