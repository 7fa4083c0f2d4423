"""Configuration of the RLlib trainer (``configs/rllib/``), checked by pydantic.

A file maps to :class:`RLlibConfig`: the common
:class:`~shipwreck_training.common.config.GameSettings` as ``env`` plus the RLlib
sections. Reading, overrides (``ppo.lr=1e-4 env_runners.num_env_runners=2``) and error
messages are the common floor's one loader (:mod:`shipwreck_training.common.config`).
Needs no Ray. The old name ``PPOSettings`` still imports, with a warning naming
``RLlibPPOSettings``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictFloat, model_validator

from shipwreck_env._moved import renamed
from shipwreck_training.common import config as common
from shipwreck_training.common.config import (
    Count,
    Difficulty,
    Fraction,
    Positive,
    PositiveInt,
    RunConfig,
    Section,
    check_split,
)

__all__ = [
    "RLlibConfig",
    "RLlibPPOSettings",
    "env_config",
    "from_dict",
    "load_config",
    "runner_of",
]


class RaySettings(Section):
    """Where Ray runs."""

    address: str | None = None
    """``None``: start a local Ray; ``auto`` or ``HOST:PORT``: join a running cluster."""
    num_cpus: PositiveInt | None = 2
    """CPUs of a local Ray (ignored when joining a cluster)."""


class EnvRunnersSettings(Section):
    """Sampling (``AlgorithmConfig.env_runners``)."""

    num_env_runners: Count = 1
    """Remote sampling actors (0: sample in the driver)."""
    num_envs_per_env_runner: PositiveInt = 1
    """Games each runner steps: in a Python loop over AEC envs (``engine: aec``, RLlib's
    sync multi-agent vector env) or in one batched-engine call (``engine: batched``)."""
    runner: Literal["auto", "rllib", "batched"] = "auto"
    """The env runner of ``engine: batched``: ``rllib``, RLlib's own single-agent runner
    (per-game episode objects and connectors at every step); ``batched``, this
    trainer's :class:`~shipwreck_training.rllib.runner.BatchedEnvRunner` (numpy arrays for
    a whole rollout, episodes built once each); ``auto``: ``batched`` with ``engine:
    batched``, ``rllib`` with ``engine: aec`` (the only runner there)."""
    rollout_fragment_length: PositiveInt | Literal["auto"] = "auto"
    sample_timeout_s: Positive = 600.0
    """How long the driver waits for a runner's samples (RLlib's default, 60 s, is too
    short on a loaded machine: the iteration then gets no samples)."""


class LearnersSettings(Section):
    """Learning (``AlgorithmConfig.learners``)."""

    num_learners: Count = 0
    """Remote learner actors (0: learn in the driver process; on a cluster with GPUs or
    many CPUs, more learners split each batch and average gradients)."""


class MultiAgentSettings(Section):
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
    def _known_modules(self) -> MultiAgentSettings:
        named = {f"policy_mapping.{k}": v for k, v in self.policy_mapping.items()}
        for key, module in {**named, "play_policy": self.play_policy}.items():
            if module not in self.policies:
                raise ValueError(
                    f"{key} {module!r} is not a module; allowed: {list(self.policies)}"
                )
        if "default" not in self.policy_mapping:
            raise ValueError("policy_mapping needs a 'default' entry; allowed: a module id")
        return self


class RLlibPPOSettings(common.PPOSettings):
    """RLlib PPO settings (RLlib's names), beside the common ones."""

    lr: Positive = 3e-4
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


class EvalSettings(common.EvalSettings):
    """Self-play evaluation of the final checkpoint with ``shipwreck_agents.evaluation.evaluate``."""

    games: Count = 200
    """Games per difficulty (0: none)."""
    difficulties: tuple[Difficulty, ...] = ("normal",)


class RLlibConfig(RunConfig):
    """One RLlib training run."""

    name: Annotated[str, Field(min_length=1, pattern=r"^[^/]+$")] = "rllib_selfplay"
    iterations: PositiveInt = 10
    """Training iterations (``Algorithm.train()`` calls) in all, a resumed run included."""
    checkpoint_every: PositiveInt = 1
    """Iterations between checkpoints (the last iteration always checkpoints)."""
    output_dir: str = "results/runs/rllib"
    torch_threads: PositiveInt = 1
    engine: Literal["aec", "batched"] = "aec"
    """``aec``: RLlib's multi-agent runner over copies of the AEC env (per-seat modules by
    ``multi_agent``); ``batched``: its single-agent runner over the batched engine
    (:mod:`shipwreck_training.rllib.vector_env`), one module for every seat."""
    ray: RaySettings = Field(default_factory=RaySettings)
    env_runners: EnvRunnersSettings = Field(default_factory=EnvRunnersSettings)
    learners: LearnersSettings = Field(default_factory=LearnersSettings)
    multi_agent: MultiAgentSettings = Field(default_factory=MultiAgentSettings)
    ppo: RLlibPPOSettings = Field(default_factory=RLlibPPOSettings)
    eval: EvalSettings = Field(default_factory=EvalSettings)

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
        if self.engine == "batched":
            ma = self.multi_agent
            if ma.policies != ("shared",) or ma.policy_mapping != {"default": "shared"}:
                raise ValueError(
                    f"multi_agent.policies {list(ma.policies)} is not allowed with engine "
                    "batched; allowed: the default (one module, 'shared', for every seat)"
                )
            check_split(self.env_runners.num_envs_per_env_runner, self.env.difficulties)
        if self.engine == "aec" and self.env_runners.runner == "batched":
            raise ValueError(
                "env_runners.runner 'batched' is not allowed with engine aec; allowed: "
                "'auto' or 'rllib' (the batched runner steps the batched engine)"
            )
        allowed = ("none", "literal", "policy") if self.engine == "batched" else ("none", "literal")
        if self.env.belief not in allowed:
            raise ValueError(
                f"env.belief {self.env.belief!r} is not allowed for the RLlib trainer with "
                f"engine {self.engine}; allowed: {', '.join(map(repr, allowed))}"
                + (" ('policy' needs engine batched)" if self.engine == "aec" else "")
            )
        return self


def runner_of(cfg: RLlibConfig) -> str:
    """The env runner a config samples with: ``rllib`` or ``batched`` (``auto`` resolved)."""
    if cfg.env_runners.runner != "auto":
        return cfg.env_runners.runner
    return "batched" if cfg.engine == "batched" else "rllib"


def env_config(cfg: RLlibConfig) -> dict:
    """RLlib's ``env_config``: the game section as plain data (what
    ``shipwreck_training.rllib.env.env_creator`` reads back)."""
    return cfg.env.model_dump(mode="json")


from_dict = RLlibConfig.from_dict
"""A validated :class:`RLlibConfig` from plain data (the common loader)."""
load_config = RLlibConfig.load
"""An :class:`RLlibConfig` read from a YAML file with dotted overrides (the common loader)."""
__getattr__ = renamed(__name__, {"PPOSettings": "RLlibPPOSettings"})
