"""The batched twins of the scripted partners: what ``Policy.batched`` returns.

A vector env over the batched engine asks its partner policy for a twin
(:meth:`shipwreck_env.envs.policy.Policy.batched`) that decides in many games at once; these
are the twins of the heuristic player and the Bayesian group, each for one role:

| policy | ``"play"`` (the active player's decisions) | ``"group"`` (everyone else's) |
|---|---|---|
| :class:`~shipwreck_agents.scripted.heuristic.HeuristicPlayer` | :class:`BatchedHeuristic` | :class:`BatchedFirstChoice` |
| :class:`~shipwreck_agents.scripted.bayes.BayesGroup` | :class:`BatchedHeuristic` of its model | :class:`BatchedBayesGroup` |

Each returns exactly the action of its policy's ``act`` on the game's reference state
(the compiled kernels are checked against the Python policies in
``tests/agents/test_vector_partner.py`` and ``tests/agents/test_vector_bayes.py``; the role vector env
against the per-game env in ``tests/shipwreck_env/envs/test_gym_vector_roles.py``). The numba kernels load
only when a twin is built.

Must not: import anything from ``training``.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.envs.policy import BATCHED_DECISIONS, BatchedPartner, Policy
from shipwreck_env.rules.actions import PASS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.vector.game import VectorGame

__all__ = [
    "BatchedBayesGroup",
    "BatchedFirstChoice",
    "BatchedHeuristic",
    "check_decisions",
    "twin_of",
]


def check_decisions(decisions: str) -> str:
    """``decisions`` if it is one of :data:`~shipwreck_env.envs.policy.BATCHED_DECISIONS`.

    Raises:
        ValueError: anything else.
    """
    if decisions not in BATCHED_DECISIONS:
        raise ValueError(
            f"decisions {decisions!r} are not allowed; allowed: {list(BATCHED_DECISIONS)}"
        )
    return decisions


class BatchedHeuristic:
    """``HeuristicPlayer(doom_weight, power_margin)`` as the active player (no memory)."""

    def __init__(self, doom_weight: float, power_margin: float) -> None:
        from shipwreck_agents.scripted.heuristic_batched import heuristic_actions

        self._actions = heuristic_actions
        self.doom_weight, self.power_margin = doom_weight, power_margin

    def restart(self, games: np.ndarray) -> None:
        """Nothing to forget: the heuristic player keeps no memory."""

    def act(self, game: VectorGame, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The heuristic player's action in each game ``games``."""
        return self._actions(game.arrays, games, mask, self.doom_weight, self.power_margin)


class BatchedFirstChoice:
    """A decision outside the play phases as ``HeuristicPlayer.act`` takes it: pass when
    passing is legal, else the lowest legal action (no memory)."""

    def restart(self, games: np.ndarray) -> None:
        """Nothing to forget."""

    def act(self, game: VectorGame, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Pass, or the lowest legal action, in each game ``games``."""
        rows = mask[games]
        return np.where(rows[:, PASS], PASS, rows.argmax(axis=1)).astype(np.int64)


class BatchedBayesGroup:
    """``group`` (a ``BayesGroup``) as the group in ``num_games`` game places, with its
    memory per place (:class:`~shipwreck_agents.scripted.bayes_batched.BatchedBayes`)."""

    def __init__(self, group: Policy, num_games: int, config: GameConfig) -> None:
        from shipwreck_agents.scripted.bayes_batched import BatchedBayes

        self.group = BatchedBayes(num_games, config.num_players, config.num_seats, group)

    def restart(self, games: np.ndarray) -> None:
        """The games in ``games`` restarted: forget them (``BayesGroup.reset``)."""
        self.group.restart(games)

    def act(self, game: VectorGame, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The Bayesian group's action in each game ``games``."""
        return self.group.act(game.arrays, game.cards, games, mask, 0)


def twin_of(
    policy: Policy, num_games: int, config: GameConfig, decisions: str
) -> BatchedPartner | None:
    """The batched twin of a scripted ``policy`` for ``decisions`` (see the module
    table), or ``None`` for a policy of another kind or with another model."""
    from shipwreck_agents.scripted.bayes import BayesGroup
    from shipwreck_agents.scripted.heuristic import HeuristicPlayer

    check_decisions(decisions)
    if type(policy) is BayesGroup:
        if decisions == "group":
            rough = policy.accuracy <= 0 and policy.race_table is None
            if type(policy.model) is not HeuristicPlayer or not rough:
                return None  # the compiled group: the heuristic player, the rough race
            return BatchedBayesGroup(policy, num_games, config)
        policy = policy.model  # BayesGroup plays as its model
    if type(policy) is HeuristicPlayer:
        if decisions == "group":
            return BatchedFirstChoice()
        return BatchedHeuristic(policy.doom_weight, policy.power_margin)
    return None
