"""One game on the pure-Python reference engine, behind the interface the AEC env
drives (the same as :class:`shipwreck_env.vector.single.SingleGame`): what
``shipwreck_arcana_v0`` plays on.

Seed ``n`` is ``engine.new_game(config, default_rng(n))`` continued with that
generator, as in the Gymnasium env. Must not: hold anything the engine's ``State`` and
generator do not (the env pickles this object as it is).
"""

from __future__ import annotations

import copy

import numpy as np

from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.rules.rewards import team_reward
from shipwreck_env.rules.state import State

__all__ = ["ReferenceGame"]


class ReferenceGame:
    """One game of ``config`` on the reference engine.

    Args:
        config: the game's configuration.
        layout: the observation layout.
        score_doom: reward +1 per point and -1 per doom (else win/loss).

    After :meth:`reset` and :meth:`step`, :attr:`status` holds ``[decider, over,
    truncated, won, score, doom]`` and :attr:`mask` (int8[259]) the decider's legal
    actions; both are overwritten in place.
    """

    def __init__(self, config: GameConfig, layout: ObservationLayout, score_doom: bool) -> None:
        self.config = config
        self.layout = layout
        self.reward_kind = "score_doom" if score_doom else "win_loss"
        self.mask = np.zeros(NUM_ACTIONS, np.int8)
        self.status = np.zeros(6, np.int64)
        self.game: State | None = None
        self.rng: np.random.Generator | None = None

    def reset(self, seed: int) -> None:
        """Deal the game of ``seed``."""
        self.rng = np.random.default_rng(seed)
        self.game = new_game(self.config, self.rng)
        self._refresh()

    def step(self, action: int) -> float:
        """Apply ``action``, which must be legal (see :attr:`mask`); the team reward."""
        s = self.game
        score, doom = s.score, s.doom
        step_inplace(s, action, self.rng, check=False)
        self._refresh()
        return team_reward(self.reward_kind, s, score, doom)

    def observe(self, player: int) -> np.ndarray:
        """A new float32 observation vector of ``player``."""
        return self.layout.encoder(self.game, player)

    def load(self, state: State) -> None:
        """Hold ``state`` itself (later draws from this game's generator)."""
        self.game = state
        self._refresh()

    def state(self) -> State:
        """The engine's own state (not a copy)."""
        return self.game

    def stream(self) -> np.random.Generator:
        """A copy of the game's generator as it is now."""
        return copy.deepcopy(self.rng)

    def _refresh(self) -> None:
        s = self.game
        self.mask[:] = 0
        self.mask[legal_actions(s)] = 1
        self.status[:] = (s.decider, s.over, s.truncated, s.won, s.score, s.doom)
