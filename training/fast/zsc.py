"""Zero-shot coordination for the fast trainer (config key ``zsc``): random partners, and
population training against a pool of partner teams (``method: population``,
:mod:`shipwreck_training.fast.population`).

Why not Other-Play. Other-Play trains with a random relabelling, per episode, of the
game's symmetries applied to one player's view. This game has almost none: a fate's value
sets its hours (1-3 one hour, 4-6 two, 7 three), and the arcana cards and question
powers ask about values ("lower", "sum 5 or less", "1-2-3?"), so no permutation of
values maps the rules onto themselves; every card's ability is its own, so card
identities are not exchangeable either. The one exact symmetry is the order of the three
arcana slots right of the leftmost one (fates played on The Hours slide to the leftmost
slot; refills go where the faded card stood). Conventions keyed on slot order are a
small part of what a team agrees on, so relabelling them would leave the conventions
that matter (what a play on a given card says about the kept fate) untouched.

What this does instead (``method: random_partner``), in the spirit of Off-Belief
Learning's random base policy: at each game's start every seat is, with probability
``prob``, a *random partner* for that game, whose plays (its decisions in the play phase)
are uniform over the legal actions. Its other decisions (the group's, when it leads)
stay the network's. The group still reads the belief conditioned on the team's own play
policy, so it learns what a play is worth when the player who made it may not share its
convention, and the player learns that its partners may read a play literally. A random
partner's decisions stay in each game's reward sequence (they train the value) but not
the policy, as a scripted partner's do.

The trainer calls :meth:`RandomPartners.apply` after choosing its actions and
:meth:`RandomPartners.restart` when games end; nothing else in the loop changes. The
population (``method: population``) uses the same two hook points.
"""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from pydantic import Field, StrictFloat, model_validator

from shipwreck_env.rules.state import Phase
from shipwreck_training.common.config import Fraction, Positive, Section

__all__ = ["ZSC_METHODS", "RandomPartners", "ZSCSettings", "make_zsc"]

ZSC_METHODS = ("none", "random_partner", "population")

Chance = Annotated[StrictFloat, Field(ge=0, le=1)]


class ZSCSettings(Section):
    """Zero-shot-coordination training (``method`` none: plain self-play)."""

    method: Literal["none", "random_partner", "population"] = "none"
    """``random_partner``: some seats play uniformly at random (module docstring);
    ``population``: partner teams from ``partners`` take some seats of some games
    (:mod:`shipwreck_training.fast.population`)."""
    prob: Fraction = 0.15
    """Chance, per game and seat, that the seat is a random partner for that game."""
    partners: tuple[str, ...] = ()
    """``population``: the partner teams, as registry team specs with a batched twin
    (``heuristic+bayes``, ``literal``, ``fast:PATH``, ``noisy:E:SPEC``)."""
    weights: tuple[Positive, ...] = ()
    """``population``: each partner's relative chance (empty: equal)."""
    selfplay: Chance = 0.25
    """``population``: chance per game that it is plain self-play."""
    newcomer: Chance = 0.5
    """``population``: chance, in a game with a partner, that the partner takes one seat
    (else the learner takes one seat and the partner every other)."""

    @model_validator(mode="after")
    def _partners_fit(self) -> ZSCSettings:
        if self.method != "population":
            if self.partners or self.weights:
                raise ValueError(
                    f"partners and weights are not allowed with method {self.method!r}; "
                    "allowed: method population"
                )
            return self
        if not self.partners or (self.weights and len(self.weights) != len(self.partners)):
            raise ValueError(
                f"{len(self.partners)} partners with {len(self.weights)} weights are not "
                "allowed; allowed: one partner or more, and as many weights or none"
            )
        if self.selfplay == 1.0:
            raise ValueError("selfplay 1.0 is not allowed with population; allowed: 0 to <1")
        from shipwreck_training.fast.population import check_partner_spec

        for spec in self.partners:
            check_partner_spec(spec)
        return self


class RandomPartners:
    """Per game and seat: is it a random partner this game (see the module docstring)?

    Args:
        num_games: games stepped side by side.
        num_players: players per game.
        prob: chance per game and seat of a random partner.
        seed: seeds this object's own random stream (the trainer's are untouched).
    """

    def __init__(self, num_games: int, num_players: int, prob: float, seed: int) -> None:
        self.prob = prob
        self.rng = np.random.default_rng([seed, 0x25C])
        self.random_seat = np.zeros((num_games, num_players), bool)
        self.restart(np.arange(num_games))

    def restart(self, games: np.ndarray) -> None:
        """New games started in the places ``games``: draw their random partners."""
        games = np.asarray(games, np.int64)
        self.random_seat[games] = self.rng.random((len(games), self.random_seat.shape[1])) < (
            self.prob
        )

    def apply(
        self, games, chosen: np.ndarray, mask: np.ndarray, learn: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(actions, learn): ``chosen`` with a uniform legal action wherever a random
        partner decides in the play phase, and ``learn`` False there."""
        decider = games.field("decider").astype(np.int64)
        rows = np.arange(len(decider))
        playing = (games.field("phase") == Phase.PLAY) & (decider >= 0)
        noisy = np.flatnonzero(playing & self.random_seat[rows, decider.clip(min=0)])
        if not len(noisy):
            return chosen, learn
        # a uniform legal action: the argmax of uniform noise over the legal entries
        noise = self.rng.random((len(noisy), mask.shape[1])) * mask[noisy]
        chosen, learn = chosen.copy(), learn.copy()
        chosen[noisy] = noise.argmax(1)
        learn[noisy] = False
        return chosen, learn

    def belief_actions(self, chosen: np.ndarray, learn: np.ndarray) -> np.ndarray:
        """The actions the learner's belief records: all of ``chosen`` (a random
        partner's play is read under the team's own play policy, module docstring)."""
        return chosen

    def state_dict(self) -> dict:
        """Per-game draws and the random stream (for checkpoints)."""
        return {"random_seat": self.random_seat.copy(), "rng": self.rng.bit_generator.state}

    def load_state_dict(self, state: dict) -> None:
        """Put back :meth:`state_dict`."""
        self.random_seat[...] = state["random_seat"]
        self.rng.bit_generator.state = state["rng"]


def make_zsc(settings: ZSCSettings, num_games: int, num_players: int, seed: int):
    """The trainer's hook object for ``settings`` (``None``: plain self-play)."""
    if settings.method == "none":
        return None
    if settings.method == "population":
        from shipwreck_training.fast.population import Population

        return Population(
            settings.partners,
            settings.weights,
            settings.selfplay,
            settings.newcomer,
            num_games,
            num_players,
            seed,
        )
    return RandomPartners(num_games, num_players, settings.prob, seed)
