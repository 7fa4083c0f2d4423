"""Configuration of a fast PPO run (``configs/fast/``): one YAML file, every value checked.

A file maps to :class:`FastConfig`: the common
:class:`~shipwreck_training.common.config.GameSettings` as ``env``, plus
:class:`FastPPOSettings`, :class:`EvalSettings` and :class:`ImitationSettings`, each
extending the common section of its name. Reading, overrides (``ppo.learning_rate=1e-4
num_games=1024``) and error messages are the common floor's one loader
(:mod:`shipwreck_training.common.config`). The old name ``PPOSettings`` still imports,
with a warning naming ``FastPPOSettings``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool, StrictFloat, field_validator, model_validator

from shipwreck_env._moved import renamed
from shipwreck_training.common import config as common
from shipwreck_training.common.config import (
    BELIEFS,
    REGIMES,
    Count,
    Fraction,
    GameSettings,
    Positive,
    PositiveInt,
    RunConfig,
    Section,
    check_policy_spec,
    check_split,
)
from shipwreck_training.fast.obl import OBLSettings
from shipwreck_training.fast.zsc import ZSCSettings

__all__ = [
    "BELIEFS",
    "REGIMES",
    "EvalSettings",
    "FastConfig",
    "FastPPOSettings",
    "GameSettings",
    "ImitationSettings",
    "PartnerSettings",
    "from_dict",
    "load_config",
]

NonNegative = Annotated[StrictFloat, Field(ge=0)]


class FastPPOSettings(common.PPOSettings):
    """The fast trainer's PPO hyperparameters (CleanRL names), beside the common ones."""

    learning_rate: Positive = 3e-4
    """Adam step size (annealed linearly to 2% of it if ``anneal_lr``)."""
    epochs: PositiveInt = 4
    """Passes over each rollout (the update's CPU time is proportional to it)."""
    minibatch_size: PositiveInt = 8192
    gae_lambda: Fraction = 0.95
    clip_coef: Positive = 0.2
    ent_coef: NonNegative = 0.01
    vf_coef: NonNegative = 0.5
    aux_coef: NonNegative = 0.5
    """Weight of the kept-fate auxiliary loss (belief ``aux`` only)."""
    signal_coef: NonNegative = 0.0
    """Weight of the signalling loss (``training/common/signal.py``: the expected
    surprise of the kept fate to a group that inverts the play policy; env.belief
    ``policy`` only). 0: off, and the run is exactly what it was before this key."""
    signal_games: PositiveInt = 1024
    """Games (spread over the difficulties) whose first-play decisions the signalling
    loss learns from (all of them when there are fewer)."""
    max_grad_norm: Positive = 0.5
    hidden: Annotated[tuple[PositiveInt, ...], Field(min_length=1)] = (128, 128)
    """Widths of the actor's and the critic's hidden layers (tanh, as SB3)."""
    shared_first_layer: StrictBool = False
    """One first layer for the actor and the critic (computed once; exported as two
    equal layers, so every loader plays it unchanged). About 1.2x fewer CPU seconds per
    learner step (``lab/bench/bench_fast_ppo.py``); off by default until its learning is
    measured on its own."""
    anneal_lr: StrictBool = True
    target_kl: NonNegative = 0.0
    """Stop the epochs of one update early past this KL (0: never)."""


class EvalSettings(common.EvalSettings):
    """Greedy evaluation on the batched engine during training (held-out seeds)."""

    every: Count = 2_000_000
    """Learner steps between evaluations (0: only at the end)."""
    games: PositiveInt = 1000
    """Games per difficulty, during training and at the end."""


class ImitationSettings(common.ImitationSettings):
    """Behaviour cloning of a scripted team before PPO (``steps`` 0: none)."""

    steps: Count = 0
    """Recorded decisions."""


class PartnerSettings(Section):
    """How the scripted partner (``partner``) decides."""

    batched: StrictBool = True
    """Decide for every game at once on the batched engine when the spec has a batched
    form (``heuristic``, ``bayes``: the same actions, seeds and checkpoints); false
    decides game by game in Python (in ``partner_workers`` processes), to compare."""


class FastConfig(RunConfig):
    """One run of the fast trainer (the run folder is ``<name>__<seed>__<time>``)."""

    regime: Literal["selfplay", "play", "predict"] = "selfplay"
    partner: str = ""
    """Registry spec of the scripted role (``play``: the group, ``predict``: the
    player); empty for ``selfplay``."""
    partner_workers: Count = 0
    """Processes deciding for the partner (0: the trainer's own); the actions are the
    same for any number (each game place has its own generator). Not used by a partner
    deciding on the batched engine (``partners.batched``)."""
    partners: PartnerSettings = Field(default_factory=PartnerSettings)
    total_steps: PositiveInt = 10_000_000
    """Learner decisions to train on."""
    num_games: PositiveInt = 4096
    """Games stepped side by side (split evenly over the difficulties)."""
    rollout_steps: PositiveInt = 32
    """Decisions per game in one rollout (batch = games x steps)."""
    checkpoint_every: PositiveInt = 2_000_000
    torch_threads: PositiveInt = 2
    overlap: Literal["off", "thread", "process"] = "off"
    """Collect the next rollout while the network learns from the last one. The rollout
    then comes from a copy of the network one update behind, and PPO's ratio is taken
    against the log-probabilities it stored, so it stays correct; same seed, same
    parameters in both forms. ``thread``: the collection in a second thread (on a loaded
    2-core machine it waits on the learner's hold of Python's global lock: more CPU per
    step, not less wall). ``process``: a collector process owns the games and writes
    the rollouts into shared memory (:mod:`shipwreck_training.fast.collector`).
    ``true``/``false`` read as ``thread``/``off``. One update of staleness costs
    learning per step, the more the more the update moves the network: with 4 epochs,
    1M steps won 0.24 at easy where the synchronous run won 0.55; the headline config
    pairs it with 2 epochs (docs/fast_trainer.md)."""
    policy_belief: Literal["first_play", "carry"] = "first_play"
    """With ``env.belief: policy``: ``first_play`` conditions the group's belief on the
    turn's first play alone (belief kind ``policy``); ``carry`` also starts a carried
    fate from the posterior of the turn it was kept (kind ``policy_carry``,
    ``training/common/policy_belief_batched.py``). Runs and models from before this key read as
    ``first_play``."""
    belief_after_play: bool = False
    """With ``env.belief: policy``: also multiply the active player's own after-play
    choice (Shells, Sinners or pass) under each hand into the likelihood the group reads
    (``PolicyBelief(after_play=True)``, ``training/common/policy_belief_batched.py``); the exported
    model's ``.meta.json`` then says ``belief_after_play: true`` and ``FastTeamPolicy``
    does the same. Off: training is exactly what it was before this key."""
    ppo: FastPPOSettings = Field(default_factory=FastPPOSettings)
    eval: EvalSettings = Field(default_factory=EvalSettings)
    imitation: ImitationSettings = Field(default_factory=ImitationSettings)
    zsc: ZSCSettings = Field(default_factory=ZSCSettings)
    """Zero-shot-coordination training (:mod:`shipwreck_training.fast.zsc`)."""
    obl: OBLSettings = Field(default_factory=OBLSettings)
    """Off-Belief Learning (:mod:`shipwreck_training.fast.obl`): the group's targets
    from fictitious transitions grounded in ``obl.grounding``. Off by default."""

    @field_validator("overlap", mode="before")
    @classmethod
    def _overlap_flag(cls, value: object) -> object:
        # configs and checkpoints written before the collector process said true/false
        return (
            {False: "off", True: "thread"}.get(value, value) if isinstance(value, bool) else value
        )

    @model_validator(mode="after")
    def _consistent(self) -> FastConfig:
        if (self.regime == "selfplay") != (self.partner == ""):
            raise ValueError(
                f"partner {self.partner!r} is not allowed with regime {self.regime!r}; "
                "allowed: empty for selfplay, a registry spec for play and predict"
            )
        if self.regime == "selfplay" and self.partner_workers:
            raise ValueError(
                f"partner_workers {self.partner_workers} is not allowed with regime "
                "'selfplay'; allowed: 0 (only play and predict have a partner)"
            )
        specs = [("partner", self.partner)] if self.partner else []
        if self.imitation.steps:
            specs += [("imitation.play", self.imitation.play)]
            specs += [("imitation.group", self.imitation.group)]
        for key, spec in specs:  # a bad spec (fast:missing.pth) fails now, not mid-run
            try:
                check_policy_spec(spec)
            except ValueError as exc:
                raise ValueError(f"{key}: {exc}") from None
        check_split(self.num_games, self.env.difficulties)
        if self.env.belief == "policy" and self.regime != "selfplay":
            raise ValueError(
                f"env.belief 'policy' is not allowed with regime {self.regime!r}; allowed: "
                "selfplay (the belief inverts the learned play policy)"
            )
        if self.policy_belief != "first_play" and self.env.belief != "policy":
            raise ValueError(
                f"policy_belief {self.policy_belief!r} is not allowed with env.belief "
                f"{self.env.belief!r}; allowed: 'first_play' (or env.belief 'policy')"
            )
        if self.belief_after_play and self.env.belief != "policy":
            raise ValueError(
                f"belief_after_play true is not allowed with env.belief {self.env.belief!r}; "
                "allowed: false (or env.belief 'policy')"
            )
        if self.ppo.signal_coef and self.env.belief != "policy":
            raise ValueError(
                f"ppo.signal_coef {self.ppo.signal_coef} is not allowed with env.belief "
                f"{self.env.belief!r}; allowed: 0 (or env.belief 'policy')"
            )
        if self.obl.on:
            self._check_obl()
        return self

    def _check_obl(self) -> None:
        from shipwreck_training.fast.obl import check_grounding

        if self.regime != "selfplay" or self.env.belief not in ("literal", "none"):
            raise ValueError(
                f"obl.grounding {self.obl.grounding!r} is not allowed with regime "
                f"{self.regime!r} and env.belief {self.env.belief!r}; allowed: regime "
                "'selfplay' with env.belief 'literal' or 'none' (the fictitious next states "
                "are observed as the engine encodes them)"
            )
        check_grounding(self.obl.grounding)  # the file itself is read when the run starts

    @property
    def belief_kind(self) -> str:
        """What the group's belief block holds (a model's ``.meta.json`` ``belief_kind``)."""
        if self.env.belief == "policy" and self.policy_belief == "carry":
            return "policy_carry"
        return self.env.belief

    @property
    def batch_size(self) -> int:
        """Decisions in one rollout."""
        return self.num_games * self.rollout_steps


from_dict = FastConfig.from_dict
"""A validated :class:`FastConfig` from plain data (the common loader)."""
load_config = FastConfig.load
"""A :class:`FastConfig` read from a YAML file with dotted overrides (the common loader)."""
__getattr__ = renamed(__name__, {"PPOSettings": "FastPPOSettings"})
