"""Training configuration: one YAML file per run, every value explicit and checked.

A config file maps to :class:`TrainConfig` (with nested :class:`EnvSettings`,
:class:`PPOSettings`, :class:`EvalSettings`, :class:`AlternatingSettings`). Unknown keys
and bad values raise ``ValueError`` naming the key, the value and what is allowed.
Command-line overrides use dotted keys: ``ppo.learning_rate=1e-4 env.num_players=4``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

from shipwreck_env.config import DIFFICULTIES, GameConfig

__all__ = [
    "REGIMES",
    "AlternatingSettings",
    "EnvSettings",
    "EvalSettings",
    "ImitationSettings",
    "PPOSettings",
    "TrainConfig",
    "apply_overrides",
    "load_config",
]

REGIMES = ("play", "predict", "selfplay", "alternating")


@dataclass(frozen=True)
class EnvSettings:
    """The games the learner plays.

    Attributes:
        num_players, card_sets, group_decision, challenge_mode, reveal, max_turns: as in
            ``shipwreck_env.config.GameConfig``.
        difficulties: one difficulty per episode, drawn uniformly from this list.
        reward: ``win_loss`` or ``score_doom``.
        belief: append the literal posterior block to observations.
    """

    num_players: int = 3
    difficulties: tuple[str, ...] = ("normal",)
    card_sets: str = "base"
    group_decision: str = "leader"
    challenge_mode: bool = False
    reveal: bool = True
    max_turns: int = 200
    reward: str = "score_doom"
    belief: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "difficulties", tuple(self.difficulties))
        if not self.difficulties:
            raise ValueError(
                "env.difficulties [] is empty; allowed: a list of " + str(list(DIFFICULTIES))
            )
        for d in self.difficulties:
            if d not in DIFFICULTIES:
                raise ValueError(
                    f"env.difficulties entry {d!r} is not allowed; allowed: {list(DIFFICULTIES)}"
                )
        if self.reward not in ("win_loss", "score_doom"):
            raise ValueError(
                f"env.reward {self.reward!r} is not allowed; allowed: win_loss, score_doom"
            )
        _check_bool("env.belief", self.belief)
        try:
            self.game_config(self.difficulties[0])
        except ValueError as exc:
            raise ValueError(f"env: {exc}") from None

    def game_config(self, difficulty: str) -> GameConfig:
        """The engine configuration for one episode at ``difficulty``."""
        return GameConfig(
            num_players=self.num_players,
            difficulty=difficulty,
            card_sets=self.card_sets,
            group_decision=self.group_decision,
            challenge_mode=self.challenge_mode,
            reveal=self.reveal,
            max_turns=self.max_turns,
        )


@dataclass(frozen=True)
class PPOSettings:
    """MaskablePPO hyperparameters (sb3-contrib names)."""

    learning_rate: float = 3e-4
    n_steps: int = 1024
    batch_size: int = 256
    n_epochs: int = 5
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: tuple[int, ...] = (256, 256)

    def __post_init__(self) -> None:
        object.__setattr__(self, "net_arch", tuple(self.net_arch))
        _positive("ppo.learning_rate", self.learning_rate)
        for name in ("n_steps", "batch_size", "n_epochs"):
            _positive_int(f"ppo.{name}", getattr(self, name))
        for name in ("gamma", "gae_lambda"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 < value <= 1:
                raise ValueError(
                    f"ppo.{name} {value!r} is not allowed; allowed: a number in (0, 1]"
                )
        for name in ("clip_range", "vf_coef", "max_grad_norm"):
            _positive(f"ppo.{name}", getattr(self, name))
        if not isinstance(self.ent_coef, (int, float)) or self.ent_coef < 0:
            raise ValueError(
                f"ppo.ent_coef {self.ent_coef!r} is not allowed; allowed: a number >= 0"
            )
        if not self.net_arch or not all(isinstance(x, int) and x > 0 for x in self.net_arch):
            raise ValueError(
                f"ppo.net_arch {list(self.net_arch)!r} is not allowed; allowed: a list of positive integers"
            )


@dataclass(frozen=True)
class EvalSettings:
    """Win-rate evaluation during and after training.

    Attributes:
        every: training steps between evaluations (0: only at the end).
        games: games per difficulty during training.
        final_games: games per difficulty for the final evaluation.
        difficulties: the difficulties evaluated.
        jobs: worker processes for evaluation.
    """

    every: int = 100_000
    games: int = 200
    final_games: int = 1000
    difficulties: tuple[str, ...] = tuple(DIFFICULTIES)
    jobs: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "difficulties", tuple(self.difficulties))
        if not isinstance(self.every, int) or self.every < 0:
            raise ValueError(f"eval.every {self.every!r} is not allowed; allowed: an integer >= 0")
        for name in ("games", "final_games", "jobs"):
            _positive_int(f"eval.{name}", getattr(self, name))
        for d in self.difficulties:
            if d not in DIFFICULTIES:
                raise ValueError(
                    f"eval.difficulties entry {d!r} is not allowed; allowed: {list(DIFFICULTIES)}"
                )


@dataclass(frozen=True)
class AlternatingSettings:
    """The alternating regime: each round trains the play model, then the predict model.

    Attributes:
        rounds: number of rounds.
        first_partner_group: the group partner (a policy spec) of the play model in round
            0, before any predict model exists; afterwards each model trains against the
            latest other one.
    """

    rounds: int = 4
    first_partner_group: str = "bayes"

    def __post_init__(self) -> None:
        _positive_int("alternating.rounds", self.rounds)


@dataclass(frozen=True)
class ImitationSettings:
    """Optional warm start by imitating a scripted team (``training/imitation.py``).

    Attributes:
        team: ``play+group`` policy specs whose choices are imitated.
        games: games recorded (0: no warm start).
        epochs, batch_size, learning_rate: the supervised fit.
    """

    team: str = "heuristic+bayes"
    games: int = 0
    epochs: int = 20
    batch_size: int = 256
    learning_rate: float = 1e-3

    def __post_init__(self) -> None:
        play, sep, group = self.team.partition("+")
        if not sep or not play or not group:
            raise ValueError(
                f"imitation.team {self.team!r} is not allowed; allowed: 'play+group', e.g. heuristic+bayes"
            )
        for spec in (play, group):
            _check_policy_spec("imitation.team", spec)
        if not isinstance(self.games, int) or isinstance(self.games, bool) or self.games < 0:
            raise ValueError(
                f"imitation.games {self.games!r} is not allowed; allowed: an integer >= 0"
            )
        for name in ("epochs", "batch_size"):
            _positive_int(f"imitation.{name}", getattr(self, name))
        _positive("imitation.learning_rate", self.learning_rate)


@dataclass(frozen=True)
class TrainConfig:
    """One training run.

    Attributes:
        name: run name (the run directory starts with it).
        regime: ``play`` (learn the active player's decisions), ``predict`` (the group's),
            ``selfplay`` (one policy for every decision), ``alternating`` (a play and a
            predict model trained in turn against each other).
        seed: seeds the model, the environments and the evaluations.
        partner: the fixed partner's policy spec (``agents.registry``) for ``play``
            (a group policy) and ``predict`` (a play policy); unused otherwise.
        total_timesteps: learner steps (per model and round in ``alternating``: the
            budget is split evenly across rounds and models).
        n_envs: parallel environments; ``vec_env`` ``subproc`` runs them in processes.
        checkpoint_every: training steps between saved checkpoints.
    """

    name: str
    regime: str
    seed: int = 0
    partner: str = ""
    total_timesteps: int = 1_000_000
    n_envs: int = 2
    vec_env: str = "subproc"
    checkpoint_every: int = 50_000
    env: EnvSettings = field(default_factory=EnvSettings)
    ppo: PPOSettings = field(default_factory=PPOSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)
    alternating: AlternatingSettings = field(default_factory=AlternatingSettings)
    imitation: ImitationSettings = field(default_factory=ImitationSettings)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or "/" in self.name:
            raise ValueError(
                f"name {self.name!r} is not allowed; allowed: a non-empty string without '/'"
            )
        if self.regime not in REGIMES:
            raise ValueError(f"regime {self.regime!r} is not allowed; allowed: {list(REGIMES)}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise ValueError(f"seed {self.seed!r} is not allowed; allowed: an integer >= 0")
        for name in ("total_timesteps", "n_envs", "checkpoint_every"):
            _positive_int(name, getattr(self, name))
        if self.vec_env not in ("subproc", "dummy"):
            raise ValueError(f"vec_env {self.vec_env!r} is not allowed; allowed: subproc, dummy")
        if self.regime == "alternating" and self.imitation.games:
            raise ValueError(
                f"imitation.games {self.imitation.games} is not allowed with regime alternating; "
                "allowed: 0 (warm starts exist for play, predict and selfplay)"
            )
        if self.regime in ("play", "predict"):
            if not self.partner:
                raise ValueError(
                    f"partner '' is not allowed for regime {self.regime}; allowed: a policy spec"
                )
            _check_policy_spec("partner", self.partner)

    def to_dict(self) -> dict:
        """Plain data (lists for tuples), as written to ``config.yaml``."""
        return _plain(dataclasses.asdict(self))


_SECTIONS = {
    "env": EnvSettings,
    "ppo": PPOSettings,
    "eval": EvalSettings,
    "alternating": AlternatingSettings,
    "imitation": ImitationSettings,
}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _check_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{name} {value!r} is not allowed; allowed: true, false")


def _positive(name: str, value: object) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} {value!r} is not allowed; allowed: a number > 0")


def _positive_int(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} {value!r} is not allowed; allowed: an integer > 0")


def _check_policy_spec(name: str, spec: str) -> None:
    """A policy spec must build (``agents.registry``); its error is prefixed with ``name``."""
    from agents.registry import make_policy

    try:
        make_policy(spec)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _build(cls: type, data: dict, prefix: str) -> Any:
    if not isinstance(data, dict):
        raise ValueError(f"{prefix or 'config'} {data!r} is not allowed; allowed: a mapping")
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"{prefix}{unknown[0]} is not a known key; allowed: {sorted(names)}")
    kwargs = {}
    for key, value in data.items():
        if key in _SECTIONS and cls is TrainConfig:
            value = _build(_SECTIONS[key], value or {}, f"{key}.")
        kwargs[key] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:  # a missing required key
        raise ValueError(f"{prefix or 'config'}: {exc}") from None


class _Loader(yaml.SafeLoader):
    """YAML 1.1 reads ``1e-4`` (no dot) as a string; read it as the number people mean."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def read_yaml(text: str) -> Any:
    """Parse YAML text as the config files are read."""
    return yaml.load(text, Loader=_Loader)


def _parse_value(text: str) -> Any:
    return read_yaml(text)


def apply_overrides(data: dict, overrides: list[str]) -> dict:
    """Set dotted ``key=value`` overrides (values parsed as YAML) in a config mapping."""
    data = _plain(data)
    for item in overrides:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ValueError(
                f"override {item!r} is not allowed; allowed: key=value, e.g. ppo.learning_rate=1e-4"
            )
        node = data
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"override {item!r}: {part!r} is not a section")
        node[parts[-1]] = _parse_value(text)
    return data


def from_dict(data: dict) -> TrainConfig:
    """A validated config from plain data."""
    return _build(TrainConfig, data, "")


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config, apply overrides, validate."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"config file {str(path)!r} does not exist")
    data = read_yaml(path.read_text()) or {}
    return from_dict(apply_overrides(data, overrides or []))
