"""The natural team: plays the way the rulebook's strategy section suggests a newcomer
would, with no agreement beyond what the cards say.

A stranger of the ad-hoc benchmark (:mod:`shipwreck_agents.evaluation.adhoc`): the kind of partner
a person new to the game is. Nothing here was tuned against our other teams.

Player (:class:`NaturalPlayer`). The rulebook's advice to the active player is to play
where the play narrows the hidden fate down most. So the player counts, for every legal
play, how many values the group's number line would still allow for its kept fate after
the play (and the announcements it triggers), and makes a play that leaves the fewest,
choosing at random among equally good plays (a person has no tie-breaking rule). It
weighs a card fading against what the play tells, as the heuristic player does, never
uses a faded power, and on The Thief takes the
fate that leaves the fewest values. Compared with the heuristic player
(:mod:`shipwreck_agents.scripted.heuristic`), which it reuses for the number lines: it counts
values rather than weighing them by the copies unseen, and breaks ties at random.

Group (:func:`natural_team`). The rulebook's worked example reads a play by asking which
more telling plays the player passed over: that is the Bayesian group
(:mod:`shipwreck_agents.scripted.bayes`) with the natural player as its model of the active
player, and a wide margin for error (``epsilon`` 0.25: a person does not expect a
partner to play exactly like them).
"""

from __future__ import annotations

import numpy as np

from shipwreck_agents.scripted.bayes import BayesGroup
from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_agents.scripted.knowledge import mask_to_array
from shipwreck_env.envs.policy import BatchedPartner
from shipwreck_env.rules.actions import PASS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.view import AgentView

__all__ = ["NATURAL_DOOM_WEIGHT", "NATURAL_EPSILON", "NaturalPlayer", "natural_team"]

NATURAL_DOOM_WEIGHT = 0.25
"""How much a fading card's doom counts against a telling play (the heuristic player's
weight: the rulebook's first pages say a fading card costs 2 doom)."""

NATURAL_EPSILON = 0.25
"""The natural group's weight of "the player did something I would not have done"."""


class NaturalPlayer(HeuristicPlayer):
    """See the module docstring. Random only among plays that tie; otherwise a function
    of the view."""

    name = "natural"

    def __init__(self, doom_weight: float = NATURAL_DOOM_WEIGHT) -> None:
        super().__init__(doom_weight=doom_weight, power_margin=float("inf"))

    def batched(self, num_games: int, config: GameConfig, decisions: str) -> BatchedPartner | None:
        """None: the natural player has no compiled twin (it decides game by game)."""
        return None

    def _clarity(self, line: int, kept: int, counts: np.ndarray) -> float:
        """One over the number of values the line still allows (0 if it rules out the
        kept fate, which a legal play never does); the heuristic player's score weighs
        the doom of fading cards against it."""
        allowed = int(mask_to_array(line).sum())
        return 1.0 / allowed if allowed and line >> (kept - 1) & 1 else 0.0

    def _play(self, view: AgentView, legal: tuple[int, ...], rng: np.random.Generator) -> int:
        """A best-scored play (the heuristic player's scoring, this class's score), at
        random among ties."""
        scored = self._play_scores(view, legal)
        if not scored:
            return PASS if PASS in legal else int(legal[0])
        best = max(score for score, _ in scored)
        ties = [action for score, action in scored if score >= best - 1e-12]
        return int(ties[int(rng.integers(len(ties)))])


def natural_team() -> BayesGroup:
    """The natural team as one policy for both roles: its group reads with the natural
    player as the model, and at the active player's own decisions the group policy plays
    like that model (:class:`~shipwreck_agents.scripted.bayes.BayesGroup` delegates them)."""
    group = BayesGroup(model=NaturalPlayer(), epsilon=NATURAL_EPSILON)
    group.name = "natural"
    return group
