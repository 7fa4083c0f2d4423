"""``WarmingVectorGame``: a :class:`~shipwreck_env.vector.game.VectorGame` whose games
run on the reference engine while a background process compiles the batched kernels.

A first ``VectorGame(...)`` on a machine whose numba cache does not hold the kernels
would compile them for about a minute before its first step. It gets this class instead
(see ``VectorGame.__new__``): the same games, seeded alike (game ``g`` replays
``StreamGenerator(game_keys(seed, N)[g])`` on the reference engine, which is what the
batched engine draws), the same observations, masks, rewards, ``final_info`` and errors,
while ``python -m shipwreck_env.vector.warm --part batch`` compiles the kernels into the
cache (:mod:`shipwreck_env.vector.background`, one logged line). At the first
:meth:`step` or :meth:`reset` after that, the games are converted to arrays
(:func:`~shipwreck_env.vector.convert.from_states`, streams where they are) and the
object becomes a plain ``VectorGame``; conversion is exact, so the switch may fall inside
a game.

Reading :attr:`arrays` (the compiled engine's own state, which the batched partners and
trainers work on with their own kernels) cannot be served from reference states: it
waits for the background compile (or compiles in this process if that failed) and
switches first.

Must not: keep arrays in step with the states while warming (they are built at the
switch), or let a game's stream differ from the batched engine's for the same seed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.rewards import team_reward
from shipwreck_env.rules.state import State
from shipwreck_env.vector import background, chance, convert
from shipwreck_env.vector.arrays import Arrays
from shipwreck_env.vector.game import VectorGame, batch_ready
from shipwreck_env.vector.single import cache_dir

__all__ = ["WarmingVectorGame"]


class WarmingVectorGame(VectorGame):
    """A :class:`VectorGame` on the reference engine until the batched kernels are
    compiled (see the module docstring); its API and its games are ``VectorGame``'s."""

    compiled = False

    def _setup(self, num_games: int, reward: str, belief: bool, autoreset: bool) -> None:
        self._setup_common(num_games, reward, belief, autoreset)

    def _setup_common(self, num_games: int, reward: str, belief: bool, autoreset: bool) -> None:
        VectorGame._setup_common(self, num_games, reward, belief, autoreset)
        self._states: list[State] = []
        self._streams: list[chance.StreamGenerator] = []
        background.start_background(cache_dir(), part="batch")

    # --- the switch -----------------------------------------------------------------

    def _switch_when_ready(self) -> bool:
        """Become a compiled :class:`VectorGame` if the kernels are ready now; whether
        this game is compiled after the call."""
        if background.background_finished(cache_dir(), part="batch") and batch_ready():
            self._switch()
        return self.compiled

    def _switch(self) -> None:
        """Convert the games to arrays (streams where they are) and become compiled."""
        arrays = convert.from_states(self._states)
        arrays.key[:] = [int(s.key[0]) for s in self._streams]
        arrays.draws[:] = [s.counter for s in self._streams]
        self.__class__ = VectorGame
        del self._states, self._streams
        self._setup_engine(arrays)
        self._mask = None

    def _compiled_now(self) -> None:
        """Wait for the background compile, then switch (the kernels load from the
        cache, or compile here if that compile failed)."""
        while not background.background_finished(cache_dir(), part="batch"):
            time.sleep(background.LOOK_EVERY)
        self._switch()

    @property
    def arrays(self) -> Arrays:
        """The compiled engine's arrays: reading them waits for the kernels (see
        :meth:`_compiled_now`) and switches this game first."""
        self._compiled_now()
        return self.arrays

    @arrays.setter
    def arrays(self, value: Arrays) -> None:
        self._compiled_now()
        self.arrays = value

    # --- the API: the switch, then VectorGame's own methods ---------------------------

    def reset(self, seed: int | None = None) -> None:
        """Start new games (see :meth:`VectorGame.reset`)."""
        if self._switch_when_ready():
            VectorGame.reset(self, seed)
            return
        if seed is not None or not self._streams:
            keys = chance.game_keys(seed, self.num_games)
            self._streams = [chance.StreamGenerator(int(k)) for k in keys]
        self._states = [None] * self.num_games  # type: ignore[list-item]
        self._deal_games(self._all)
        self._mask = None
        self.final_info = self._no_final()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One decision in every game (see :meth:`VectorGame.step`)."""
        self._switch_when_ready()
        return VectorGame.step(self, actions)

    def to_states(self, games: Sequence[int] | None = None) -> list[State]:
        """Copies of the games' reference ``State`` objects (all by default)."""
        picked = range(self.num_games) if games is None else games
        return [self._states[g].copy() for g in picked]

    def stream(self, game: int) -> chance.StreamGenerator:
        """A generator that replays game ``game``'s random stream from where it is now."""
        s = self._streams[game]
        return chance.StreamGenerator(int(s.key[0]), s.counter)

    def memory_per_game(self) -> float:
        """Bytes of state (and observation buffer) per game, as the compiled batch holds."""
        one = Arrays(1, self.config, len(self.cards)).nbytes()
        return one + self._obs.nbytes / self.num_games

    def _hold(self, arrays: Arrays, states: Sequence[State], keys: np.ndarray) -> None:
        self._states = [s.copy() for s in states]
        self._streams = [chance.StreamGenerator(int(k)) for k in keys]

    # --- the kernels, on the reference engine ----------------------------------------

    def _deciders(self) -> np.ndarray:
        return np.array([s.decider for s in self._states], np.int64)

    def _actives(self) -> np.ndarray:
        return np.array([s.active for s in self._states], np.int64)

    def _over(self) -> np.ndarray:
        return np.array([s.over for s in self._states], bool)

    def _tallies(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rows = np.array([(s.score, s.doom, s.won) for s in self._states], np.int64)
        return rows[:, 0], rows[:, 1], rows[:, 2]

    def _deal_games(self, games: np.ndarray) -> None:
        for g in games:
            self._states[g] = new_game(self.config, self._streams[g])

    def _legal_masks(self, mask: np.ndarray) -> None:
        mask[:] = False
        for g, s in enumerate(self._states):
            if not s.over:
                mask[g, legal_actions(s)] = True

    def _count_illegal(self, mask: np.ndarray, actions: np.ndarray) -> int:
        live = ~self._over()
        inside = (actions >= 0) & (actions < NUM_ACTIONS)
        allowed = mask[self._all, np.where(inside, actions, 0)] & inside
        return int((live & ~allowed).sum())

    def _encode_rows(self, games: np.ndarray, observers: np.ndarray, out: np.ndarray) -> None:
        encoder = self.layout.encoder
        for row, (g, player) in enumerate(zip(games.tolist(), observers.tolist(), strict=True)):
            out[row] = encoder(self._states[g], player)

    def _step_games(
        self, actions: np.ndarray, reward: np.ndarray, ended: np.ndarray, final: np.ndarray
    ) -> int:
        reward[:] = 0.0
        ended[:] = False
        final[:] = 0
        count = 0
        for g, s in enumerate(self._states):
            if s.over:
                continue
            score, doom = s.score, s.doom
            step_inplace(s, int(actions[g]), self._streams[g], check=False)
            reward[g] = team_reward(self.reward_kind, s, score, doom)
            if s.over:
                count += 1
                ended[g] = True
                final[g] = (s.score, s.doom, s.won, s.truncated)
        if self.autoreset and count:
            self._deal_games(np.flatnonzero(ended))
        return count
