"""Training configuration: one YAML file per run, every value explicit and checked.

A config file maps to :class:`TrainConfig` (with nested :class:`EnvSettings`,
:class:`PPOSettings`, :class:`EvalSettings`, :class:`AlternatingSettings`,
:class:`ImitationSettings`): pydantic models, so types, ranges and unknown keys are
checked by the library and every field carries its description. A bad config raises
``ValueError`` naming the dotted key, the value and what is allowed (the first problem;
:func:`from_dict`). Command-line overrides use dotted keys:
``ppo.learning_rate=1e-4 env.num_players=4``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

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
    "from_dict",
    "load_config",
    "read_yaml",
]

REGIMES = ("play", "predict", "selfplay", "alternating")

Difficulty = Literal["easy", "normal", "hard", "doomed"]
PositiveInt = Annotated[StrictInt, Field(gt=0)]
Count = Annotated[StrictInt, Field(ge=0)]
Positive = Annotated[StrictFloat, Field(gt=0)]
Fraction = Annotated[StrictFloat, Field(gt=0, le=1)]
assert set(Difficulty.__args__) == set(DIFFICULTIES)  # one list of difficulties


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _check_policy_spec(spec: str) -> str:
    """A policy spec must build (``shipwreck_agents.registry``)."""
    from shipwreck_agents.registry import make_policy

    make_policy(spec)  # its ValueError names the spec and the allowed ones
    return spec


class EnvSettings(_Section):
    """The games the learner plays (the game fields as in
    ``shipwreck_env.config.GameConfig``)."""

    num_players: StrictInt = 3
    difficulties: Annotated[tuple[Difficulty, ...], Field(min_length=1)] = ("normal",)
    """One difficulty per episode, drawn uniformly from this list."""
    card_sets: str | tuple[str, ...] = "base"
    group_decision: str = "leader"
    challenge_mode: StrictBool = False
    reveal: StrictBool = True
    max_turns: PositiveInt | None = 200
    reward: Literal["win_loss", "score_doom"] = "score_doom"
    belief: StrictBool = True
    """Append the literal posterior block to observations."""

    @model_validator(mode="after")
    def _a_valid_game(self) -> EnvSettings:
        self.game_config(self.difficulties[0])  # GameConfig names a bad field
        return self

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


class PPOSettings(_Section):
    """MaskablePPO hyperparameters (sb3-contrib names)."""

    learning_rate: Positive = 3e-4
    n_steps: PositiveInt = 1024
    batch_size: PositiveInt = 256
    n_epochs: PositiveInt = 5
    gamma: Fraction = 0.99
    gae_lambda: Fraction = 0.95
    clip_range: Positive = 0.2
    ent_coef: Annotated[StrictFloat, Field(ge=0)] = 0.01
    vf_coef: Positive = 0.5
    max_grad_norm: Positive = 0.5
    net_arch: Annotated[tuple[PositiveInt, ...], Field(min_length=1)] = (256, 256)
    """Hidden layer sizes of the policy and value networks."""


class EvalSettings(_Section):
    """Win-rate evaluation during and after training."""

    every: Count = 100_000
    """Training steps between evaluations (0: only at the end)."""
    games: PositiveInt = 200
    """Games per difficulty during training."""
    final_games: PositiveInt = 1000
    """Games per difficulty for the final evaluation."""
    difficulties: tuple[Difficulty, ...] = tuple(DIFFICULTIES)
    jobs: PositiveInt = 1
    """Worker processes for evaluation."""


class AlternatingSettings(_Section):
    """The alternating regime: each round trains the play model, then the predict model."""

    rounds: PositiveInt = 4
    first_partner_group: str = "bayes"
    """The play model's group partner (a policy spec) in round 0, before any predict
    model exists; afterwards each model trains against the latest other one."""


class ImitationSettings(_Section):
    """Optional warm start by imitating a scripted team (``training/imitation.py``)."""

    team: str = "heuristic+bayes"
    """``play+group`` policy specs whose choices are imitated."""
    games: Count = 0
    """Games recorded (0: no warm start)."""
    epochs: PositiveInt = 20
    batch_size: PositiveInt = 256
    learning_rate: Positive = 1e-3

    @field_validator("team")
    @classmethod
    def _a_team(cls, team: str) -> str:
        play, sep, group = team.partition("+")
        if not sep or not play or not group:
            raise ValueError("allowed: 'play+group', e.g. heuristic+bayes")
        for spec in (play, group):
            _check_policy_spec(spec)
        return team


class TrainConfig(_Section):
    """One training run."""

    name: Annotated[str, Field(min_length=1, pattern=r"^[^/]+$")]
    """Run name (the run directory starts with it)."""
    regime: Literal["play", "predict", "selfplay", "alternating"]
    """``play`` (learn the active player's decisions), ``predict`` (the group's),
    ``selfplay`` (one policy for every decision), ``alternating`` (a play and a predict
    model trained in turn against each other)."""
    seed: Count = 0
    """Seeds the model, the environments and the evaluations."""
    partner: str = ""
    """The fixed partner's policy spec (``shipwreck_agents.registry``) for ``play`` (a group
    policy) and ``predict`` (a play policy); unused otherwise."""
    total_timesteps: PositiveInt = 1_000_000
    """Learner steps (per model and round in ``alternating``: the budget is split evenly
    across rounds and models)."""
    n_envs: PositiveInt = 2
    vec_env: Literal["subproc", "dummy"] = "subproc"
    """``subproc`` runs the environments in processes."""
    checkpoint_every: PositiveInt = 50_000
    env: EnvSettings = Field(default_factory=EnvSettings)
    ppo: PPOSettings = Field(default_factory=PPOSettings)
    eval: EvalSettings = Field(default_factory=EvalSettings)
    alternating: AlternatingSettings = Field(default_factory=AlternatingSettings)
    imitation: ImitationSettings = Field(default_factory=ImitationSettings)

    @model_validator(mode="after")
    def _regime_needs(self) -> TrainConfig:
        if self.regime == "alternating" and self.imitation.games:
            raise ValueError(
                f"imitation.games {self.imitation.games} is not allowed with regime "
                "alternating; allowed: 0 (warm starts exist for play, predict and selfplay)"
            )
        if self.regime in ("play", "predict"):
            if not self.partner:
                raise ValueError(
                    f"partner '' is not allowed for regime {self.regime}; allowed: a policy spec"
                )
            try:
                _check_policy_spec(self.partner)
            except ValueError as exc:
                raise ValueError(f"partner: {exc}") from None
        return self

    def to_dict(self) -> dict:
        """Plain data (lists for tuples), as written to ``config.yaml``."""
        return _plain(self.model_dump())


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _model_at(loc: tuple) -> type[BaseModel] | None:
    """The model class a (dotted) location's last key belongs to."""
    model: Any = TrainConfig
    for part in loc[:-1]:
        field = model.model_fields.get(part) if isinstance(part, str) else None
        if field is None or not isinstance(field.annotation, type):
            return None
        model = field.annotation
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _key_path(loc: tuple, kind: str) -> tuple:
    """``loc`` without pydantic's union member tags (``env.card_sets.str``): only field
    names and list indexes (and, for an unknown key, that key)."""
    model: Any = TrainConfig
    out = []
    for i, part in enumerate(loc):
        fields = (
            model.model_fields if isinstance(model, type) and issubclass(model, BaseModel) else {}
        )
        if (
            isinstance(part, int)
            or part in fields
            or (kind == "extra_forbidden" and i == len(loc) - 1)
        ):
            out.append(part)
            annotation = fields[part].annotation if part in fields else None
            model = annotation if isinstance(annotation, type) else None
    return tuple(out)


def _message(error: dict) -> str:
    """One pydantic error as this project writes errors: the key, the value, the allowed."""
    loc = _key_path(tuple(error["loc"]), error["type"])
    key = ".".join(str(p) for p in loc) or "config"
    kind, text = error["type"], error["msg"]
    if kind == "extra_forbidden":
        model = _model_at(loc)
        allowed = sorted(model.model_fields) if model else "the documented keys"
        return f"{key} is not a known key; allowed: {allowed}"
    if kind == "missing":
        return f"{key} is missing; allowed: {text.lower()}"
    if kind == "model_type" or kind == "dict_type":
        return f"{key} {error['input']!r} is not allowed; allowed: a mapping"
    if kind == "value_error":
        text = text.removeprefix("Value error, ")
        if text.startswith("allowed:"):
            return f"{key} {error['input']!r} is not allowed; {text}"
        return text if loc == () else f"{key}: {text}"
    return f"{key} {error['input']!r} is not allowed; allowed: {text[0].lower()}{text[1:]}"


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
        node[parts[-1]] = read_yaml(text)
    return data


def from_dict(data: dict) -> TrainConfig:
    """A validated config from plain data.

    Raises:
        ValueError: the first problem, naming the dotted key, the value and what is
            allowed.
    """
    if not isinstance(data, dict):
        raise ValueError(f"config {data!r} is not allowed; allowed: a mapping")
    sections = ("env", "ppo", "eval", "alternating", "imitation")
    data = {k: ({} if k in sections and v is None else v) for k, v in data.items()}
    try:
        return TrainConfig.model_validate(data)
    except ValidationError as exc:
        raise ValueError(_message(exc.errors()[0])) from None


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config, apply overrides, validate."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"config file {str(path)!r} does not exist")
    data = read_yaml(path.read_text()) or {}
    return from_dict(apply_overrides(data, overrides or []))
