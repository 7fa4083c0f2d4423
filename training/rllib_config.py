"""Configuration of the RLlib trainer (``configs/rllib_*.yaml``), checked by pydantic.

Unknown keys and bad values are refused with a ``ValueError`` naming the dotted key,
the value and what is allowed. Command-line overrides use dotted keys, as the other
trainers: ``ppo.lr=1e-4 env_runners.num_env_runners=2``. YAML is read as
``shipwreck_training.config.read_yaml`` reads it (``1e-4`` is a number).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    ValidationError,
    model_validator,
)

from shipwreck_env.config import GameConfig
from shipwreck_training.config import apply_overrides, read_yaml

__all__ = ["RLlibConfig", "from_dict", "load_config"]

PositiveInt = Annotated[StrictInt, Field(gt=0)]
Count = Annotated[StrictInt, Field(ge=0)]
Positive = Annotated[StrictFloat, Field(gt=0)]
Fraction = Annotated[StrictFloat, Field(gt=0, le=1)]
Difficulty = Literal["easy", "normal", "hard", "doomed"]


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class EnvSection(_Section):
    """The games (fields of ``shipwreck_env.config.GameConfig``, plus reward and belief)."""

    num_players: StrictInt = 3
    difficulties: Annotated[tuple[Difficulty, ...], Field(min_length=1)] = ("normal",)
    """One difficulty per episode, drawn uniformly from this list."""
    card_sets: str | tuple[str, ...] = "base"
    group_decision: str = "leader"
    reveal: StrictBool = True
    max_turns: PositiveInt | None = 200
    reward: Literal["win_loss", "score_doom"] = "score_doom"
    belief: StrictBool = True

    @model_validator(mode="after")
    def _a_valid_game(self) -> EnvSection:
        self.game_config()  # GameConfig names a bad field
        return self

    def game_config(self) -> GameConfig:
        return GameConfig(
            num_players=self.num_players,
            difficulty=self.difficulties[0],
            card_sets=self.card_sets,
            group_decision=self.group_decision,
            reveal=self.reveal,
            max_turns=self.max_turns,
        )

    def env_config(self) -> dict:
        """RLlib's ``env_config`` (``shipwreck_training.rllib_env.env_creator``'s keys)."""
        data = self.model_dump()
        data["difficulties"] = list(data["difficulties"])
        if isinstance(data["card_sets"], tuple):
            data["card_sets"] = list(data["card_sets"])
        return data


class RaySection(_Section):
    """Where Ray runs."""

    address: str | None = None
    """``None``: start a local Ray; ``auto`` or ``HOST:PORT``: join a running cluster."""
    num_cpus: PositiveInt | None = 2
    """CPUs of a local Ray (ignored when joining a cluster)."""


class EnvRunnersSection(_Section):
    """Sampling (``AlgorithmConfig.env_runners``)."""

    num_env_runners: Count = 1
    """Remote sampling actors (0: sample in the driver)."""
    num_envs_per_env_runner: PositiveInt = 1
    """Games each runner steps in a Python loop (RLlib's sync multi-agent vector env)."""
    rollout_fragment_length: PositiveInt | Literal["auto"] = "auto"
    sample_timeout_s: Positive = 600.0
    """How long the driver waits for a runner's samples (RLlib's default, 60 s, is too
    short on a loaded machine: the iteration then gets no samples)."""


class LearnersSection(_Section):
    """Learning (``AlgorithmConfig.learners``)."""

    num_learners: Count = 0
    """Remote learner actors (0: learn in the driver process; on a cluster with GPUs or
    many CPUs, more learners split each batch and average gradients)."""


class MultiAgentSection(_Section):
    """Which RLModule decides for which seat."""

    policies: Annotated[tuple[Annotated[str, Field(min_length=1)], ...], Field(min_length=1)] = (
        "shared",
    )
    """Module ids; each gets its own network."""
    policy_mapping: dict[str, str] = Field(default_factory=lambda: {"default": "shared"})
    """Seat (``player_0`` ...) to module id; ``default`` for the seats not named."""
    play_policy: str = "shared"
    """The module written as the checkpoint's playable policy (``rllib:PATH``)."""

    @model_validator(mode="after")
    def _known_modules(self) -> MultiAgentSection:
        named = {f"policy_mapping.{k}": v for k, v in self.policy_mapping.items()}
        for key, module in {**named, "play_policy": self.play_policy}.items():
            if module not in self.policies:
                raise ValueError(
                    f"{key} {module!r} is not a module; allowed: {list(self.policies)}"
                )
        if "default" not in self.policy_mapping:
            raise ValueError("policy_mapping needs a 'default' entry; allowed: a module id")
        return self


class PPOSection(_Section):
    """RLlib PPO settings (RLlib's names)."""

    lr: Positive = 3e-4
    gamma: Fraction = 0.99
    lambda_: Fraction = 0.95
    clip_param: Positive = 0.2
    entropy_coeff: Annotated[StrictFloat, Field(ge=0)] = 0.01
    vf_loss_coeff: Positive = 0.5
    grad_clip: Positive = 0.5
    train_batch_size_per_learner: PositiveInt = 4000
    minibatch_size: PositiveInt = 500
    num_epochs: PositiveInt = 4
    hidden: Annotated[tuple[PositiveInt, ...], Field(min_length=1)] = (128, 128)
    """Hidden widths of the policy MLP and of the value MLP."""


class EvalSection(_Section):
    """Self-play evaluation of the final checkpoint with ``shipwreck_agents.evaluate``."""

    games: Count = 200
    """Games per difficulty (0: none)."""
    seed: Count = 1000003
    difficulties: tuple[Difficulty, ...] = ("normal",)


class RLlibConfig(_Section):
    """One RLlib training run."""

    name: Annotated[str, Field(min_length=1, pattern=r"^[^/]+$")] = "rllib_selfplay"
    seed: Count = 0
    iterations: PositiveInt = 10
    """Training iterations (``Algorithm.train()`` calls) in all, a resumed run included."""
    checkpoint_every: PositiveInt = 1
    """Iterations between checkpoints (the last iteration always checkpoints)."""
    output_dir: str = "results/runs/rllib"
    torch_threads: PositiveInt = 1
    ray: RaySection = Field(default_factory=RaySection)
    env: EnvSection = Field(default_factory=EnvSection)
    env_runners: EnvRunnersSection = Field(default_factory=EnvRunnersSection)
    learners: LearnersSection = Field(default_factory=LearnersSection)
    multi_agent: MultiAgentSection = Field(default_factory=MultiAgentSection)
    ppo: PPOSection = Field(default_factory=PPOSection)
    eval: EvalSection = Field(default_factory=EvalSection)

    @model_validator(mode="after")
    def _seats(self) -> RLlibConfig:
        seats = {f"player_{i}" for i in range(self.env.num_players)} | {"default"}
        for seat in self.multi_agent.policy_mapping:
            if seat not in seats:
                raise ValueError(
                    f"multi_agent.policy_mapping.{seat} is not a seat; allowed: {sorted(seats)}"
                )
        if self.ppo.minibatch_size > self.ppo.train_batch_size_per_learner:
            raise ValueError(
                f"ppo.minibatch_size {self.ppo.minibatch_size} is not allowed; allowed: at "
                f"most ppo.train_batch_size_per_learner ({self.ppo.train_batch_size_per_learner})"
            )
        return self

    def to_dict(self) -> dict:
        return _plain(self.model_dump())


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _model_at(loc: tuple) -> Any:
    model: Any = RLlibConfig
    for part in loc[:-1]:
        field = model.model_fields.get(part) if isinstance(part, str) else None
        if field is None or not isinstance(field.annotation, type):
            return None
        model = field.annotation
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _message(error: dict) -> str:
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind != "extra_forbidden":  # drop pydantic's union member tags (``str``, ``int``)
        model: Any = RLlibConfig
        kept = []
        for part in loc:
            fields = (
                model.model_fields
                if isinstance(model, type) and issubclass(model, BaseModel)
                else {}
            )
            if isinstance(part, int) or part in fields:
                kept.append(part)
                annotation = fields[part].annotation if part in fields else None
                model = annotation if isinstance(annotation, type) else None
        loc = tuple(kept)
    key = ".".join(str(p) for p in loc) or "config"
    if kind == "extra_forbidden":
        model = _model_at(loc)
        allowed = sorted(model.model_fields) if model else "the documented keys"
        return f"{key} is not a known key; allowed: {allowed}"
    text = error["msg"].removeprefix("Value error, ")
    if kind == "value_error":
        return text if loc == () else f"{key}: {text}"
    return f"{key} {error['input']!r} is not allowed; allowed: {text[0].lower()}{text[1:]}"


def from_dict(data: Any) -> RLlibConfig:
    """A validated config from plain data.

    Raises:
        ValueError: the first problem, naming the dotted key.
    """
    if not isinstance(data, dict):
        raise ValueError(f"config {data!r} is not allowed; allowed: a mapping")
    try:
        return RLlibConfig.model_validate(data)
    except ValidationError as exc:
        raise ValueError(_message(exc.errors()[0])) from None


def load_config(path: str | Path, overrides: list[str] | None = None) -> RLlibConfig:
    """Read a YAML config, apply ``dotted.key=value`` overrides, validate."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"config file {str(path)!r} does not exist")
    data = read_yaml(path.read_text()) or {}
    return from_dict(apply_overrides(data, overrides or []))
