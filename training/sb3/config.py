"""Configuration of the Stable-Baselines3 trainer: one YAML file per run (``configs/sb3/``).

A file maps to :class:`SB3Config` (the common :class:`~shipwreck_training.common.config.
GameSettings` as ``env``, plus :class:`SB3PPOSettings`, :class:`EvalSettings`,
:class:`AlternatingSettings`, :class:`ImitationSettings`); reading, overrides and error
messages are the common floor's one loader (:mod:`shipwreck_training.common.config`).
The old name ``PPOSettings`` still imports, with a warning naming ``SB3PPOSettings``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictFloat, field_validator, model_validator

from shipwreck_env._moved import renamed
from shipwreck_training.common import config as common
from shipwreck_training.common.config import REGIMES as COMMON_REGIMES
from shipwreck_training.common.config import (
    Count,
    Fraction,
    Positive,
    PositiveInt,
    RunConfig,
    Section,
    check_policy_spec,
    check_split,
)

__all__ = [
    "REGIMES",
    "AlternatingSettings",
    "EvalSettings",
    "ImitationSettings",
    "SB3Config",
    "SB3PPOSettings",
    "from_dict",
    "load_config",
]

REGIMES = (*COMMON_REGIMES, "alternating")
"""The common regimes, and ``alternating``: a play and a predict model in turn."""


class SB3PPOSettings(common.PPOSettings):
    """MaskablePPO hyperparameters (sb3-contrib names), beside the common ones."""

    learning_rate: Positive = 3e-4
    n_steps: PositiveInt = 1024
    """Steps per environment in one rollout (the rollout is ``n_steps`` x the number of
    environments: ``n_envs``, or ``num_games`` on the batched engine)."""
    batch_size: PositiveInt = 256
    n_epochs: PositiveInt = 5
    gae_lambda: Fraction = 0.95
    clip_range: Positive = 0.2
    ent_coef: Annotated[StrictFloat, Field(ge=0)] = 0.01
    vf_coef: Positive = 0.5
    max_grad_norm: Positive = 0.5
    net_arch: Annotated[tuple[PositiveInt, ...], Field(min_length=1)] = (256, 256)
    """Hidden layer sizes of the policy and value networks."""
    fast_update: bool = True
    """The same algorithm, faster: the masked action distribution computed once per
    minibatch, actions sampled by inverting the cumulative probabilities (the same law
    as ``torch.multinomial``, another random stream), torch's fused Adam step
    (:mod:`shipwreck_training.sb3.distribution`) and minibatches copied once
    (:mod:`shipwreck_training.sb3.buffer`); false: sb3-contrib's distribution, buffer
    and SB3's Adam as they come."""


class EvalSettings(common.EvalSettings):
    """Win-rate evaluation during and after training (reference engine)."""

    every: Count = 100_000
    """Training steps between evaluations (0: only at the end)."""
    games: PositiveInt = 200
    """Games per difficulty during training."""
    final_games: PositiveInt = 1000
    """Games per difficulty for the final evaluation."""
    seed: Count | None = None
    """Seed of the evaluation deals; unset: the run's ``seed`` + 10,000."""
    jobs: PositiveInt = 1
    """Worker processes for evaluation."""

    def seed_for(self, run_seed: int) -> int:
        """The evaluation deals' seed of a run seeded ``run_seed``."""
        return run_seed + 10_000 if self.seed is None else self.seed


class AlternatingSettings(Section):
    """The alternating regime: each round trains the play model, then the predict model."""

    rounds: PositiveInt = 4
    first_partner_group: str = "bayes"
    """The play model's group partner (a policy spec) in round 0, before any predict
    model exists; afterwards each model trains against the latest other one."""


class ImitationSettings(common.ImitationSettings):
    """Optional warm start by imitating a scripted team (``training/sb3/imitation.py``)."""

    play: str = "heuristic"
    group: str = "bayes"
    games: Count = 0
    """Games recorded (0: no warm start)."""
    epochs: PositiveInt = 20

    @field_validator("play", "group")
    @classmethod
    def _a_policy(cls, spec: str) -> str:
        return check_policy_spec(spec)


class SB3Config(RunConfig):
    """One Stable-Baselines3 training run."""

    regime: Literal["play", "predict", "selfplay", "alternating"]
    """``play`` (learn the active player's decisions), ``predict`` (the group's),
    ``selfplay`` (one policy for every decision), ``alternating`` (a play and a predict
    model trained in turn against each other)."""
    partner: str = ""
    """The fixed partner's policy spec (``shipwreck_agents.registry``) for ``play`` (a group
    policy) and ``predict`` (a play policy); unused otherwise."""
    total_timesteps: PositiveInt = 1_000_000
    """Learner steps (per model and round in ``alternating``: the budget is split evenly
    across rounds and models)."""
    engine: Literal["batched", "reference"] = "batched"
    """``batched``: ``num_games`` games on the batched engine in one process
    (:class:`shipwreck_training.sb3.vector.BatchedVecEnv`); ``reference``: ``n_envs``
    Gymnasium envs on the reference engine (``vec_env``), the only choice for card sets
    the batched engine does not cover and for ``alternating``."""
    num_games: PositiveInt = 256
    """Games stepped side by side on the batched engine (a multiple of the number of
    difficulties: they are split evenly)."""
    n_envs: PositiveInt = 2
    """Reference-engine environments."""
    vec_env: Literal["subproc", "dummy"] = "subproc"
    """Reference engine: ``subproc`` runs the environments in processes."""
    checkpoint_every: PositiveInt = 50_000
    ppo: SB3PPOSettings = Field(default_factory=SB3PPOSettings)
    eval: EvalSettings = Field(default_factory=EvalSettings)
    alternating: AlternatingSettings = Field(default_factory=AlternatingSettings)
    imitation: ImitationSettings = Field(default_factory=ImitationSettings)

    @model_validator(mode="after")
    def _regime_needs(self) -> SB3Config:
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
                check_policy_spec(self.partner)
            except ValueError as exc:
                raise ValueError(f"partner: {exc}") from None
        if self.env.belief == "aux" or (
            self.env.belief == "policy"
            and (self.engine != "batched" or self.regime != "selfplay" or self.imitation.games)
        ):
            raise ValueError(
                f"env.belief {self.env.belief!r} is not allowed for the SB3 trainer with "
                f"engine {self.engine} and regime {self.regime}; allowed: 'none', 'literal', "
                "and 'policy' with engine batched and regime selfplay without imitation "
                "('aux' is the fast trainer's)"
            )
        if self.engine == "batched":
            if self.regime == "alternating":
                raise ValueError(
                    "engine 'batched' is not allowed with regime alternating; allowed: "
                    "'reference' (its partners are SB3 models deciding one game at a time)"
                )
            from shipwreck_env.vector import VectorGame

            try:  # the batched engine says which card sets it covers
                VectorGame(1, 0, **self.env.engine_kwargs(self.env.difficulties[0]))
            except ValueError as exc:
                raise ValueError(f"engine 'batched': {exc} Or set engine=reference.") from None
            check_split(self.num_games, self.env.difficulties)
        return self

    @property
    def rollout_size(self) -> int:
        """Steps in one rollout: ``ppo.n_steps`` x the environments."""
        envs = self.num_games if self.engine == "batched" else self.n_envs
        return self.ppo.n_steps * envs


from_dict = SB3Config.from_dict
"""A validated :class:`SB3Config` from plain data (the common loader)."""
load_config = SB3Config.load
"""An :class:`SB3Config` read from a YAML file with dotted overrides (the common loader)."""
__getattr__ = renamed(__name__, {"PPOSettings": "SB3PPOSettings"})
