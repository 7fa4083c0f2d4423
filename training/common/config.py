"""The config floor every trainer stands on: YAML reading, overrides, errors, the game.

A trainer's config is a pydantic model built from :class:`Section` (frozen, unknown
keys refused) whose root subclasses :class:`RunConfig` (``name``, ``seed``, ``env``).
:func:`load` reads a YAML file, applies dotted ``key=value`` overrides (each value
parsed as a YAML scalar, so ``ppo.learning_rate=1e-4``, ``env.reveal=false`` and
``eval.difficulties=[easy, hard]`` work) and validates; every failure is one
``ValueError`` line naming the dotted key, the bad value and what is allowed
(:func:`validate`). It is the one loader: every trainer's config class reads itself with
:meth:`RunConfig.load` and :meth:`RunConfig.from_dict`, which call it. The sections
every trainer shares are defined here once (:class:`PPOSettings`, :class:`EvalSettings`,
:class:`ImitationSettings`), each trainer's own section extending them. :class:`GameSettings` is the one game section, with the per-episode
difficulty mix (:meth:`GameSettings.episode_difficulty`).

This module knows no trainer and imports no training library.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, TypeVar

import numpy as np
import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from shipwreck_env.rules.config import DIFFICULTIES, GameConfig

__all__ = [
    "BELIEFS",
    "REGIMES",
    "Count",
    "Difficulty",
    "EvalSettings",
    "Fraction",
    "GameSettings",
    "ImitationSettings",
    "PPOSettings",
    "Positive",
    "PositiveInt",
    "RunConfig",
    "Section",
    "apply_overrides",
    "check_policy_spec",
    "check_split",
    "load",
    "plain",
    "read_yaml",
    "validate",
]

Difficulty = Literal["easy", "normal", "hard", "doomed"]
PositiveInt = Annotated[StrictInt, Field(gt=0)]
Count = Annotated[StrictInt, Field(ge=0)]
Positive = Annotated[StrictFloat, Field(gt=0)]
Fraction = Annotated[StrictFloat, Field(gt=0, le=1)]
assert set(Difficulty.__args__) == set(DIFFICULTIES)  # one list of difficulties
Config = TypeVar("Config", bound=BaseModel)
"""A config class (a :class:`RunConfig` or one section) as the loader returns it."""

REGIMES = ("selfplay", "play", "predict")
"""Which decisions a run learns, in every trainer: ``selfplay`` every one; ``play`` the
active player's, the group's from ``partner``; ``predict`` the group's, the active
player's from ``partner``. (The SB3 trainer adds its own ``alternating``.)"""

BELIEFS = ("none", "literal", "policy", "aux")
"""What the network sees of the kept fate: ``none`` (no belief block), ``literal`` (the
environment's number-line x unseen block), ``policy`` (the posterior under the current
play policy, :mod:`shipwreck_training.common.policy_belief_batched`), ``aux`` (the literal block, plus
an auxiliary head trained to predict the kept fate). ``true`` and ``false`` read as
``literal`` and ``none`` (configs written before the four kinds)."""


class Section(BaseModel):
    """A config section: frozen, unknown keys refused, old key names refused by name.

    ``RENAMED`` maps a key a section once had to what replaced it; a config that still
    writes the old key gets one line saying what to write instead."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    RENAMED: ClassVar[dict[str, str]] = {}

    @model_validator(mode="before")
    @classmethod
    def _refuse_old_names(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for old, new in cls.RENAMED.items():
                if old in data:
                    raise ValueError(f"{old!r} is an old key name; allowed: {new}")
        return data


class PPOSettings(Section):
    """PPO hyperparameters in the words every trainer shares. Each trainer names the rest
    as its library does (the fast trainer CleanRL's ``learning_rate``, ``clip_coef``; SB3
    sb3-contrib's ``learning_rate``, ``clip_range``; RLlib its own ``lr``,
    ``clip_param``), so each trainer's section (``FastPPOSettings``, ``SB3PPOSettings``,
    ``RLlibPPOSettings``) extends this one with only its own keys; the config files keep
    the keys their trainer's library uses."""

    gamma: Fraction = 0.99
    """Discount of future rewards."""


class EvalSettings(Section):
    """Win-rate evaluation, in the words every trainer shares: ``games`` per difficulty,
    on deals from ``seed``, at ``difficulties``. Each trainer's section subclasses it,
    sets its own defaults and adds only what it alone does (when to evaluate, a final
    evaluation, worker processes)."""

    games: Count = 200
    """Games per difficulty."""
    seed: Count = 1_000_003
    """Seed of the evaluation deals (never a training seed)."""
    difficulties: tuple[Difficulty, ...] = tuple(DIFFICULTIES)


class ImitationSettings(Section):
    """Fitting the policy to a scripted team's choices before reinforcement learning, in
    the words every trainer shares: the team (``play`` and ``group`` policy specs) and the
    fit (``epochs``, ``minibatch_size``, ``learning_rate``, its own optimiser). Each
    trainer's section subclasses it and says how much it records (games or decisions)."""

    play: str = "convention"
    """The active player's policy spec whose choices are imitated."""
    group: str = "convention"
    """The group's policy spec whose choices are imitated."""
    epochs: PositiveInt = 4
    minibatch_size: PositiveInt = 256
    """Decisions per gradient step of the fit."""
    learning_rate: Positive = 1e-3
    """Adam step size of the fit."""
    RENAMED: ClassVar[dict[str, str]] = {
        "team": "'play' and 'group', one policy spec each",
        "batch_size": "'minibatch_size'",
    }


def check_split(num_games: int, difficulties: tuple[str, ...]) -> int:
    """Games per difficulty when ``num_games`` are split evenly between ``difficulties``.

    Raises:
        ValueError: ``num_games`` is not a multiple of their number.
    """
    if num_games % len(difficulties):
        raise ValueError(
            f"num_games {num_games} is not allowed; allowed: a multiple of the "
            f"{len(difficulties)} difficulties {list(difficulties)} (one share each)"
        )
    return num_games // len(difficulties)


def check_policy_spec(spec: str) -> str:
    """``spec`` if it builds a policy (``shipwreck_agents.registry``); else its
    ``ValueError``, which names the spec and the allowed ones."""
    from shipwreck_agents.registry import make_policy

    make_policy(spec)
    return spec


class GameSettings(Section):
    """The games the learner plays (the game fields as in
    ``shipwreck_env.rules.config.GameConfig``, plus reward, belief and the difficulty mix)."""

    num_players: StrictInt = 3
    difficulties: Annotated[tuple[Difficulty, ...], Field(min_length=1)] = tuple(DIFFICULTIES)
    """The difficulty mix: each episode's difficulty is drawn uniformly from this list
    (the batched trainers split their games evenly between them instead)."""
    card_sets: str | tuple[str, ...] = "base"
    group_decision: str = "leader"
    challenge_mode: StrictBool = False
    reveal: StrictBool = True
    max_turns: PositiveInt | None = 200
    reward: Literal["win_loss", "score_doom"] = "score_doom"
    belief: Literal["none", "literal", "policy", "aux"] = "literal"
    """One of :data:`BELIEFS`."""

    @field_validator("belief", mode="before")
    @classmethod
    def _old_belief(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return "literal" if value else "none"
        return value

    @model_validator(mode="after")
    def _a_valid_game(self) -> GameSettings:
        self.game_config(self.difficulties[0])  # GameConfig names a bad field
        return self

    @property
    def belief_block(self) -> bool:
        """Observations carry the 7-value belief block."""
        return self.belief != "none"

    def game_config(self, difficulty: str | None = None) -> GameConfig:
        """The engine configuration of an episode at ``difficulty`` (default: the first)."""
        return GameConfig(
            num_players=self.num_players,
            difficulty=difficulty or self.difficulties[0],
            card_sets=self.card_sets,
            group_decision=self.group_decision,
            challenge_mode=self.challenge_mode,
            reveal=self.reveal,
            max_turns=self.max_turns,
        )

    def engine_kwargs(self, difficulty: str) -> dict:
        """``GameConfig`` fields for ``VectorGame(..., **kwargs)`` at ``difficulty``."""
        return self.game_config(difficulty).to_dict()

    def episode_difficulty(self, rng: np.random.Generator) -> str:
        """The difficulty of a new episode: uniform over :attr:`difficulties`."""
        return self.difficulties[int(rng.integers(len(self.difficulties)))]


class RunConfig(Section):
    """What every trainer's run has: a name, a seed and the games."""

    name: Annotated[str, Field(min_length=1, pattern=r"^[^/]+$")]
    """Run name (the run folder starts with it)."""
    seed: Count = 0
    """Seeds the model, the games and the evaluations."""
    env: GameSettings = Field(default_factory=GameSettings)

    def to_dict(self) -> dict:
        """Plain data (lists for tuples), as written to ``config.yaml``."""
        return plain(self.model_dump())

    @classmethod
    def from_dict(cls: type[Config], data: Any) -> Config:
        """A validated config of this class from plain data (:func:`validate`).

        Raises:
            ValueError: the first problem, in one line naming the dotted key, the value
                and what is allowed.
        """
        return validate(cls, data)

    @classmethod
    def load(cls: type[Config], path: str | Path, overrides: list[str] | None = None) -> Config:
        """Read a YAML config file, apply dotted ``key=value`` ``overrides``, validate as
        this class (:func:`load`).

        Raises:
            ValueError: a missing file, unreadable YAML or a bad value (one line).
        """
        return load(cls, path, overrides)


def plain(value: Any) -> Any:
    """``value`` with tuples as lists, recursively (what YAML writes back)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


# --- errors ---------------------------------------------------------------------------


def _fields(model: Any) -> dict:
    return model.model_fields if isinstance(model, type) and issubclass(model, BaseModel) else {}


def _key_path(root: type[BaseModel], loc: tuple, kind: str) -> tuple[tuple, Any]:
    """(``loc`` without pydantic's union member tags such as ``env.card_sets.str``, the
    model the last key belongs to)."""
    model: Any = root
    owner: Any = root
    out = []
    for i, part in enumerate(loc):
        fields = _fields(model)
        if (
            isinstance(part, int)
            or part in fields
            or (kind == "extra_forbidden" and i == len(loc) - 1)
        ):
            out.append(part)
            owner = model
            annotation = fields[part].annotation if part in fields else None
            model = annotation if isinstance(annotation, type) else None
    return tuple(out), owner


def _message(root: type[BaseModel], error: dict) -> str:
    """One pydantic error as this project writes errors: the key, the value, the allowed."""
    loc, owner = _key_path(root, tuple(error["loc"]), error["type"])
    key = ".".join(str(p) for p in loc) or "config"
    kind, text = error["type"], error["msg"]
    if kind == "extra_forbidden":
        allowed = sorted(_fields(owner)) or "the documented keys"
        return f"{key} is not a known key; allowed: {allowed}"
    if kind == "missing":
        return f"{key} is missing; allowed: {text.lower()}"
    if kind in ("model_type", "dict_type"):
        return f"{key} {error['input']!r} is not allowed; allowed: a mapping"
    if kind == "value_error":
        text = text.removeprefix("Value error, ")
        if text.startswith("allowed:"):
            return f"{key} {error['input']!r} is not allowed; {text}"
        return text if loc == () else f"{key}: {text}"
    return f"{key} {error['input']!r} is not allowed; allowed: {text[0].lower()}{text[1:]}"


def validate(cls: type[Config], data: Any) -> Config:
    """A validated ``cls`` from plain data (an empty section may be written ``key:``).

    Raises:
        ValueError: the first problem, naming the dotted key, the value and what is
            allowed.
    """
    if not isinstance(data, dict):
        raise ValueError(f"config {data!r} is not allowed; allowed: a mapping")
    sections = {k for k, f in cls.model_fields.items() if isinstance(f.annotation, type)}
    data = {k: ({} if k in sections and v is None else v) for k, v in data.items()}
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        raise ValueError(_message(cls, exc.errors()[0])) from None


# --- YAML and overrides ---------------------------------------------------------------


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


def apply_overrides(data: dict, overrides: list[str]) -> dict:
    """``data`` with each dotted ``key=value`` set (values parsed as YAML scalars)."""
    data = plain(data)
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
        node[parts[-1]] = read_yaml(text)
    return data


def load(cls: type[Config], path: str | Path, overrides: list[str] | None = None) -> Config:
    """Read a YAML config, apply ``overrides``, validate as ``cls``.

    Raises:
        ValueError: a missing file, unreadable YAML or a bad value (one line).
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"config file {str(path)!r} does not exist; allowed: a YAML file")
    try:
        data = read_yaml(path.read_text()) or {}
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" at line {where.line + 1}" if where else ""
        problem = getattr(exc, "problem", None) or "unreadable"
        raise ValueError(
            f"config file {str(path)!r} is not YAML{line} ({problem}); allowed: a YAML mapping"
        ) from None
    return validate(cls, apply_overrides(data, overrides or []))
