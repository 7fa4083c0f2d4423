"""``VectorGame``: many games of Shipwreck Arcana stepped at once.

The batched counterpart of the AEC loop: every game has one decider at a time;
:meth:`VectorGame.observe` gives each decider's observation (the same vector the AEC
env gives that agent), :meth:`VectorGame.legal_mask` its legal actions, and
:meth:`VectorGame.step` applies one action in every game and returns the team reward.

Finished games restart in the same call (Gymnasium's ``SAME_STEP`` autoreset): the
step that ends a game returns its final reward and ``terminated`` / ``truncated``, and
:attr:`VectorGame.final_info` holds the ended games' ``score``, ``doom`` and ``won``
until the next step; observations and masks already show the new game. Pass
``autoreset=False`` to keep finished games over instead (their actions are then
ignored and their masks are empty).

A first ``VectorGame(...)`` on a machine whose numba cache does not hold the batched
kernels would compile them for about a minute before its first step. It gets a
:class:`WarmingVectorGame` instead (unless ``SHIPWRECK_ARCANA_COMPILE=foreground``): the
same games, seeded alike (game ``g`` replays ``StreamGenerator(game_keys(seed, N)[g])`` on
the reference engine, which is what the batched engine draws), the same observations,
masks, rewards, ``final_info`` and errors, while ``python -m shipwreck_env.vector.warm
--part batch`` compiles the kernels into the cache (:mod:`shipwreck_env.vector.background`,
one logged line). At the first :meth:`VectorGame.step` or :meth:`VectorGame.reset` after
that, its games are converted to arrays (:func:`~shipwreck_env.vector.convert.from_states`,
streams where they are) and the object becomes a plain ``VectorGame``; the conversion is
exact, so the switch may fall inside a game. Reading ``arrays`` (the compiled engine's own
state, which the batched partners and trainers work on with their own kernels) waits for
the compile and switches first. :func:`batch_ready` says whether the kernels are ready;
every kernel a game calls goes through the hooks at the end of :class:`VectorGame`, which
the warming game replaces.

Must not: keep arrays in step with the states while warming (they are built at the
switch), or let a warming game's stream differ from the batched engine's for the same seed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from shipwreck_env.rules.actions import NUM_ACTIONS, describe
from shipwreck_env.rules.cards import CARDS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.rules.rewards import check_reward, team_reward
from shipwreck_env.rules.state import State
from shipwreck_env.vector import background, chance, convert, engine, to_states
from shipwreck_env.vector.arrays import Arrays
from shipwreck_env.vector.jit import (
    GAME_REF,
    RULES_REF,
    load_cached,
    pack,
    rules_for,
    struct_signatures,
)
from shipwreck_env.vector.observe import encode_rows, layout_offsets
from shipwreck_env.vector.single import _compile_here, cache_dir
from shipwreck_env.vector.tables import COVERED_SETS

_LOG = logging.getLogger("shipwreck_env")

__all__ = ["VectorGame", "WarmingVectorGame", "batch_ready", "batch_signatures"]


def batch_signatures() -> list[tuple[Any, tuple]]:
    """Every compiled kernel a :class:`VectorGame` calls, with its argument types (the
    same for every configuration and batch size)."""
    import numba  # here: the module imports without numba, so that jit can name it
    from numba.core import types

    config = GameConfig()
    arrays = Arrays(1, config, len(CARDS))
    typeof = numba.typeof
    game, rules = GAME_REF, RULES_REF
    ints = typeof(np.zeros(1, np.int64))
    mask = typeof(np.zeros((1, NUM_ACTIONS), bool))
    frozen = np.zeros((1, NUM_ACTIONS), bool)
    frozen.flags.writeable = False
    offsets = typeof(layout_offsets(ObservationLayout.for_config(config, False)))
    return [
        *struct_signatures(),
        (engine.deal_games, (game, rules, ints)),
        (engine.legal_masks, (game, rules, mask)),
        (engine.count_illegal, (typeof(frozen), ints, typeof(arrays.over))),
        (
            engine.step_games,
            (
                game,
                rules,
                ints,
                types.boolean,
                types.boolean,
                typeof(np.zeros(1, np.float32)),
                typeof(np.zeros(1, bool)),
                typeof(np.zeros((1, 4), np.int64)),
            ),
        ),
        (encode_rows, (game, rules, offsets, ints, ints, typeof(np.zeros((1, 1), np.float32)))),
    ]


_ready = False


def batch_ready() -> bool:
    """Whether every kernel a :class:`VectorGame` calls is compiled in this process or in
    numba's disk cache (then loaded now); never compiles."""
    global _ready
    if not _ready:
        _ready = all(load_cached(f, argtypes) for f, argtypes in batch_signatures())
    return _ready


def _check_covered(config: GameConfig) -> None:
    missing = [s for s in config.card_sets if s not in COVERED_SETS]
    if missing:
        raise ValueError(
            f"card_sets {list(config.card_sets)!r} are not covered by the batched engine "
            f"({missing!r} missing); covered: {list(COVERED_SETS)!r}. Use the reference "
            "engine (shipwreck_env.rules.engine or the AEC env) for the other sets."
        )


class VectorGame:
    """``num_games`` games of one configuration, held as numpy arrays.

    Args:
        num_games: how many games run side by side (>= 1).
        seed: seed of every game's random stream (game ``g``'s chance outcomes depend
            only on ``seed`` and ``g``); ``None`` takes one from the operating system.
        reward: ``"win_loss"`` or ``"score_doom"`` (as the AEC env).
        belief: append the literal belief block to observations (as the AEC env).
        autoreset: restart finished games in the step that ends them (default).
        **config: every :class:`~shipwreck_env.rules.config.GameConfig` field.

    Raises:
        ValueError: a bad argument, or card sets the batched engine does not cover.
    """

    compiled = True
    """Whether this batch runs on the compiled kernels (else on the reference engine)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> VectorGame:
        if cls is VectorGame and not _compile_here() and not batch_ready():
            cls = WarmingVectorGame
        return super().__new__(cls)

    def __init__(
        self,
        num_games: int,
        seed: int | None = None,
        *,
        reward: str = "win_loss",
        belief: bool = False,
        autoreset: bool = True,
        **config: object,
    ) -> None:
        if not isinstance(num_games, (int, np.integer)) or isinstance(num_games, bool):
            raise ValueError(f"num_games {num_games!r} is not allowed; allowed: an integer >= 1")
        if num_games < 1:
            raise ValueError(f"num_games {num_games!r} is not allowed; allowed: an integer >= 1")
        unknown = sorted(set(config) - set(GameConfig.__dataclass_fields__))
        if unknown:
            raise ValueError(
                f"config keys {unknown} are unknown; allowed: "
                f"{sorted(GameConfig.__dataclass_fields__)}"
            )
        self.config = GameConfig(**config)  # type: ignore[arg-type]
        self._setup(int(num_games), reward, belief, autoreset)
        self.reset(seed)

    def _setup(self, num_games: int, reward: str, belief: bool, autoreset: bool) -> None:
        self._setup_common(num_games, reward, belief, autoreset)
        self._setup_engine()

    def _setup_common(self, num_games: int, reward: str, belief: bool, autoreset: bool) -> None:
        """Check the arguments; the layout, cards and output buffers (no compiled code)."""
        _check_covered(self.config)
        self.num_games = num_games
        self.reward_kind = check_reward(reward)
        if not isinstance(belief, bool) or not isinstance(autoreset, bool):
            raise ValueError(
                f"belief {belief!r} / autoreset {autoreset!r} is not allowed; allowed: True, False"
            )
        self.autoreset = autoreset
        self.layout = ObservationLayout.for_config(self.config, belief=belief)
        self.cards = np.array(
            [i for i, c in enumerate(CARDS) if c.set in self.config.card_sets], np.int64
        )
        self._offsets = layout_offsets(self.layout)
        self._all = np.arange(num_games)
        self._mask: np.ndarray | None = None
        self._obs = np.zeros((num_games, self.layout.size), np.float32)
        self._reward = np.zeros(num_games, np.float32)
        self._ended = np.zeros(num_games, bool)
        self._final = np.zeros((num_games, 4), np.int64)
        self.final_info: dict[str, np.ndarray] = self._no_final()

    def _setup_engine(self, arrays: Arrays | None = None) -> None:
        """The state arrays (``arrays``, or new ones) and the compiled structures."""
        if arrays is None:
            arrays = Arrays(self.num_games, self.config, len(self.cards))
        self.arrays = arrays
        self._rules = rules_for(self.config, self.cards)

    @property
    def arrays(self) -> Arrays:
        """The games' state arrays (see :mod:`shipwreck_env.vector.arrays`)."""
        return self._arrays

    @arrays.setter
    def arrays(self, value: Arrays) -> None:
        self._arrays = value
        self._packed = pack(value)

    # --- API ----------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> None:
        """Start new games. With ``seed``, every game's stream starts again from it;
        without, each game's stream goes on where it was (a fresh seed the first time)."""
        a = self.arrays
        if seed is not None or not a.key.any():
            a.key[:] = chance.game_keys(seed, self.num_games)
            a.draws[:] = 0
        self._deal_games(self._all)
        self._mask = None
        self.final_info = self._no_final()

    @property
    def decider(self) -> np.ndarray:
        """int[N]: the player deciding now in each game (-1 for a finished game)."""
        return self._deciders().astype(np.int64)

    def tallies(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(score, doom, won) of every game as it is now: int64[N], int64[N], bool[N]
        (a game that just ended and was restarted shows its new deal: its end is in
        :attr:`final_info`)."""
        score, doom, won = self._tallies()
        return score.astype(np.int64), doom.astype(np.int64), won.astype(bool)

    def roles(self) -> tuple[np.ndarray, np.ndarray]:
        """(games whose decider is the active player, games where a group member
        decides): the split a team acts on when one policy plays and another guesses.
        Finished games are in neither."""
        deciders = self.decider
        live = deciders >= 0
        mine = deciders == self._actives().astype(np.int64) % self.config.num_players
        return np.flatnonzero(live & mine), np.flatnonzero(live & ~mine)

    @staticmethod
    def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """int[N]: one legal action per row of ``mask`` drawn uniformly by ``rng`` (a
        row with no legal action gets 0: a finished game, which ignores it)."""
        u = rng.random(mask.shape)
        u[~mask] = -1.0
        return u.argmax(axis=1)

    def legal_mask(self) -> np.ndarray:
        """bool[N, 259]: the legal actions of each game's decider (a read-only view)."""
        if self._mask is None:
            # a new array per step: callers may keep the masks of earlier steps
            mask = np.empty((self.num_games, NUM_ACTIONS), bool)
            self._legal_masks(mask)
            mask.flags.writeable = False
            self._mask = mask
        return self._mask

    def observe(
        self, games: np.ndarray | None = None, observer: np.ndarray | None = None
    ) -> np.ndarray:
        """Observations, as the AEC env gives them.

        Args:
            games: which games (default: all). With ``games``, a new array of
                ``len(games)`` rows is returned.
            observer: the player seeing each of those games (default: its decider; a
                finished game is seen by player 0).

        Returns:
            float32[N or len(games), D]. Without ``games`` the array is reused by the
            next call: copy it to keep it.
        """
        out = self._obs
        if games is None:
            games = self._all
        else:
            games = np.asarray(games)
            if (
                games.ndim != 1
                or games.dtype.kind not in "iu"
                or (games.size and (games.min() < 0 or games.max() >= self.num_games))
            ):
                raise ValueError(
                    f"games {games.tolist()} are not allowed; allowed: game indexes "
                    f"0..{self.num_games - 1} in a 1-d integer array"
                )
            games = games.astype(np.int64)
            out = np.empty((len(games), self.layout.size), np.float32)
        if observer is None:  # each decider, player 0 once over: valid by construction
            deciders = np.maximum(self._deciders()[games], 0).astype(np.int64)
            self._encode_rows(games, deciders, out)
            return out
        observer = np.asarray(observer)
        players = self.config.num_players
        if (
            observer.shape != games.shape
            or observer.dtype.kind not in "iu"
            or ((observer < 0) | (observer >= players)).any()
        ):
            raise ValueError(
                f"observer {observer.tolist()} is not allowed; allowed: one player "
                f"0..{players - 1} per game of {games.tolist()}"
            )
        self._encode_rows(games, observer.astype(np.int64), out)
        return out

    def restart(self, games: np.ndarray) -> None:
        """Start new games in the places ``games`` (their streams go on), as autoreset
        does; the others are untouched."""
        games = np.unique(np.asarray(games, np.int64))
        if games.size and (games[0] < 0 or games[-1] >= self.num_games):
            raise ValueError(
                f"games {games.tolist()} are not allowed; allowed: 0..{self.num_games - 1}"
            )
        self._deal_games(games)
        self._mask = None

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One decision in every game.

        Args:
            actions: int[N] action numbers (``shipwreck_env.rules.actions``), one per game.

        Returns:
            ``(reward, terminated, truncated)``: float32[N] team reward, bool[N] the
            game ended (won or lost), bool[N] it hit ``max_turns``.

        Raises:
            ValueError: ``actions`` has the wrong shape or dtype, or an action is
                illegal in some game; then no game changes.
        """
        actions = self._check_actions(actions)
        reward, ended, final = self._reward, self._ended, self._final
        count = self._step_games(actions, reward, ended, final)
        self._mask = None
        self.final_info = self._no_final()
        if not count:
            none = np.zeros(self.num_games, bool)
            return reward.copy(), none, none.copy()
        cut = final[:, 3].astype(bool)
        self.final_info = {
            "_final": ended.copy(),
            "score": final[:, 0].copy(),
            "doom": final[:, 1].copy(),
            "won": final[:, 2].astype(bool),
        }
        return reward.copy(), ended & ~cut, ended & cut

    def to_states(self, games: Sequence[int] | None = None) -> list[State]:
        """Reference ``State`` objects of the games (all by default): inspect, save,
        render or continue them in the reference engine."""
        return to_states.to_states(self.arrays, games)

    @classmethod
    def from_states(
        cls,
        states: Sequence[State],
        seed: int | None = None,
        *,
        reward: str = "win_loss",
        belief: bool = False,
        autoreset: bool = True,
    ) -> VectorGame:
        """A batch holding exactly ``states`` (one configuration). Their later chance
        outcomes come from fresh streams under ``seed``."""
        arrays = convert.from_states(states)  # checks the states
        game = cls.__new__(cls)
        game.config = arrays.config
        game._setup_common(len(states), reward, belief, autoreset)
        game._hold(arrays, states, chance.game_keys(seed, len(states)))
        return game

    def _hold(self, arrays: Arrays, states: Sequence[State], keys: np.ndarray) -> None:
        """Hold ``arrays`` (``states`` converted), their streams starting at ``keys``."""
        arrays.key[:] = keys
        arrays.draws[:] = 0
        self._setup_engine(arrays)

    def stream(self, game: int) -> chance.StreamGenerator:
        """A generator that replays game ``game``'s random stream from where it is now:
        ``engine.step(state, action, vg.stream(g))`` draws what this batch would."""
        return chance.StreamGenerator(int(self.arrays.key[game]), int(self.arrays.draws[game]))

    def memory_per_game(self) -> float:
        """Bytes of state (and observation buffer) per game."""
        return (self.arrays.nbytes() + self._obs.nbytes) / self.num_games

    # --- helpers --------------------------------------------------------------------

    def _no_final(self) -> dict[str, np.ndarray]:
        n = self.num_games
        zero = np.zeros(n, np.int64)
        return {"_final": np.zeros(n, bool), "score": zero, "doom": zero, "won": zero.astype(bool)}

    def _check_actions(self, actions: object) -> np.ndarray:
        arr = np.asarray(actions)
        if arr.shape != (self.num_games,):
            raise ValueError(
                f"actions of shape {arr.shape} are not allowed; allowed: shape "
                f"({self.num_games},), one action per game"
            )
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(
                f"actions of dtype {arr.dtype} are not allowed; allowed: an integer dtype"
            )
        arr = arr.astype(np.int64)
        mask = self.legal_mask()
        if self.compiled and not engine.count_illegal(mask, arr, self.arrays.over):
            return arr  # the compiled count: nothing illegal (the checks below say what)
        live = ~self._over()
        out_of_range = live & ((arr < 0) | (arr >= NUM_ACTIONS))
        if out_of_range.any():
            bad = np.flatnonzero(out_of_range)[:10]
            raise ValueError(
                f"actions {arr[bad].tolist()} in games {bad.tolist()} are not action "
                f"numbers; allowed: 0..{NUM_ACTIONS - 1}"
            )
        illegal = live & ~mask[self._all, np.where(live, arr, 0)]
        if illegal.any():
            bad = np.flatnonzero(illegal)[:10]
            parts = []
            for g in bad:
                legal = np.flatnonzero(mask[g]).tolist()
                parts.append(
                    f"game {g}: action {arr[g]} [{describe(int(arr[g]))}] is not legal; "
                    f"legal: {legal}"
                )
            more = int(illegal.sum()) - len(bad)
            tail = f" (and {more} more games)" if more > 0 else ""
            raise ValueError("illegal actions, no game changed: " + "; ".join(parts) + tail)
        return arr

    # --- the compiled kernels (a warming game replaces these) -----------------------

    def _deciders(self) -> np.ndarray:
        """Each game's decider (-1 once over)."""
        return self.arrays.decider

    def _actives(self) -> np.ndarray:
        """Each game's active seat."""
        return self.arrays.active

    def _over(self) -> np.ndarray:
        """bool[N]: which games are over."""
        return self.arrays.over

    def _tallies(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each game's score, doom and whether it is won."""
        a = self.arrays
        return a.score, a.doom, a.won

    def _deal_games(self, games: np.ndarray) -> None:
        engine.deal_games(self._packed, self._rules, games)

    def _legal_masks(self, mask: np.ndarray) -> None:
        engine.legal_masks(self._packed, self._rules, mask)

    def _encode_rows(self, games: np.ndarray, observers: np.ndarray, out: np.ndarray) -> None:
        encode_rows(self._packed, self._rules, self._offsets, games, observers, out)

    def _step_games(
        self, actions: np.ndarray, reward: np.ndarray, ended: np.ndarray, final: np.ndarray
    ) -> int:
        return engine.step_games(
            self._packed,
            self._rules,
            actions,
            self.reward_kind == "score_doom",
            self.autoreset,
            reward,
            ended,
            final,
        )


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
        """Convert the games to arrays (streams where they are) and become compiled; a
        batch that has dealt no game yet (the compile finished while it was being
        built) becomes a fresh compiled batch."""
        arrays = None
        if self._states:
            arrays = convert.from_states(self._states)
            arrays.key[:] = [int(s.key[0]) for s in self._streams]
            arrays.draws[:] = [s.counter for s in self._streams]
        self.__class__ = VectorGame
        del self._states, self._streams
        self._setup_engine(arrays)
        self._mask = None

    def _compiled_now(self) -> None:
        """Wait for the background compile (saying so on one line if it is not done),
        then switch (the kernels load from the cache, or compile here if that compile
        failed)."""
        if not background.background_finished(cache_dir(), part="batch"):
            _LOG.warning(background.WAIT_NOTICE)
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
