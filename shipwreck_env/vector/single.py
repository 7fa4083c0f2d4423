"""One game on the compiled rules, cheap to call once per decision: what the AEC env
(``shipwreck_arcana_v1``) plays on.

:class:`SingleGame` holds a one-game batch (:class:`~shipwreck_env.vector.arrays.Arrays`)
and steps it through three compiled entry points: :func:`reset_one` (deal), :func:`step_one`
(one decision, the rest of the turn, the team reward and the next decider's legal
mask) and :func:`observe_one` (one player's observation vector). They are the batched
engine's own rules (``vector.engine``, ``vector.observe``) at game 0, so a game here is
the batched engine's game 0 under the same seed, and the reference engine replays it
with :meth:`SingleGame.stream`.

Why not :class:`~shipwreck_env.vector.game.VectorGame` at N=1: numba types a
:class:`~shipwreck_env.vector.jit.Ref` argument through a Python callback, some 10 us
per argument and call, more than the rules of a whole step. The entry points here take
the two structures' addresses as plain integers (read back into typed pointers by
:func:`_game_at` / :func:`_rules_at`), so a call costs about a microsecond.

A new process on a machine whose numba cache does not hold these entry points yet would
compile them for about a minute before the first step. Instead, ``SingleGame(...)``
then gives a :class:`WarmingGame`: the same games on the reference engine, seeded as
here (``engine.new_game(config, StreamGenerator(game_key(seed)))``, the replay the
differential test checks step by step), while a background process compiles the entry
points into the cache (:mod:`shipwreck_env.vector.warm`); at the first ``reset()`` after
that, it loads them and plays on (as a :class:`SingleGame`). It logs one line when it
starts (:class:`~shipwreck_env.vector.game.WarmingVectorGame` does the same for a
batch). ``SHIPWRECK_ARCANA_COMPILE=foreground`` compiles in the process instead (the
test suite does, so that its differential tests always run the compiled rules).

Must not: keep a reference ``State`` in step with the arrays (that is rebuilt on demand,
:meth:`SingleGame.state`), or check legality (the caller does, from :attr:`SingleGame.mask`).
"""

from __future__ import annotations

import logging
import os
from typing import Any

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic

from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.cards import CARDS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import new_game
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.rules.reference_game import ReferenceGame
from shipwreck_env.rules.state import State
from shipwreck_env.vector import background, chance, convert, to_states
from shipwreck_env.vector.arrays import Arrays
from shipwreck_env.vector.engine import deal, legal_masks, step_rewarded
from shipwreck_env.vector.jit import (
    GAME_REF,
    RULES_REF,
    load_cached,
    njit,
    pack,
    rules_for,
    struct_signatures,
)
from shipwreck_env.vector.observe import _encode, layout_offsets
from shipwreck_env.vector.tables import COVERED_SETS

__all__ = [
    "COMPILE_MODE",
    "SingleGame",
    "WarmingGame",
    "cache_dir",
    "compiled_ready",
    "observe_one",
    "reset_one",
    "step_one",
]

COMPILE_MODE = "SHIPWRECK_ARCANA_COMPILE"
"""Environment variable: ``background`` (default: a missing cache is compiled by a
background process while games run on the reference engine) or ``foreground`` (compiled
in this process at the first game)."""
_LOG = logging.getLogger("shipwreck_env")


# status[] entries filled by reset_one / step_one
DECIDER, OVER, TRUNCATED, WON, SCORE, DOOM = range(6)
_FLOAT32 = np.dtype(np.float32)  # a dtype object: numpy need not look it up per call


@intrinsic
def _game_at(typingctx, address):
    """The game structure whose fields are at ``address`` (``Ref.address``)."""

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(GAME_REF))

    return GAME_REF(types.intp), codegen


@intrinsic
def _rules_at(typingctx, address):
    """The rules structure whose fields are at ``address`` (``Ref.address``)."""

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(RULES_REF))

    return RULES_REF(types.intp), codegen


@njit
def _status(s, r, mask, status) -> None:
    """The decider's legal mask (``mask``: bool[1, 259]) and the game's status numbers."""
    legal_masks(s, r, mask)
    status[DECIDER] = s.decider[0]
    status[OVER] = s.over[0]
    status[TRUNCATED] = s.truncated[0]
    status[WON] = s.won[0]
    status[SCORE] = s.score[0]
    status[DOOM] = s.doom[0]


@njit
def reset_one(game_at, rules_at, mask, status) -> None:
    """Deal a new game (from the stream of ``key[0]`` at ``draws[0]``); fill ``mask`` and
    ``status`` (int64[6]: decider, over, truncated, won, score, doom)."""
    s, r = _game_at(game_at), _rules_at(rules_at)
    deal(s, r, 0)
    _status(s, r, mask, status)


@njit
def step_one(game_at, rules_at, action, score_doom, mask, status) -> float:
    """Apply the legal ``action`` (the automatic rest of the turn included); fill
    ``mask`` and ``status`` as :func:`reset_one`; return the team reward (``score_doom``
    or win/loss, as ``rewards.team_reward``)."""
    s, r = _game_at(game_at), _rules_at(rules_at)
    reward = step_rewarded(s, r, 0, action, score_doom)
    _status(s, r, mask, status)
    return reward


@njit
def observe_one(game_at, rules_at, offsets, observer, out) -> None:
    """``out`` (float32[D]) = what player ``observer`` sees of the game."""
    s, r = _game_at(game_at), _rules_at(rules_at)
    out[:] = 0.0
    _encode(s, r, offsets, 0, observer, out, r.work_unseen)


def _signatures() -> list[tuple[Any, tuple]]:
    """Every compiled entry point a :class:`SingleGame` calls, with its argument types
    (the same for every configuration)."""
    config = GameConfig()
    typeof = numba.typeof
    i64, mask = types.int64, typeof(np.zeros((1, NUM_ACTIONS), bool))
    status = typeof(np.zeros(6, np.int64))
    offsets = typeof(layout_offsets(ObservationLayout.for_config(config, False)))
    out = typeof(np.zeros(1, np.float32))
    return [
        *struct_signatures(),
        (_status, (GAME_REF, RULES_REF, mask, status)),
        (reset_one, (i64, i64, mask, status)),
        (step_one, (i64, i64, i64, types.boolean, mask, status)),
        (observe_one, (i64, i64, offsets, i64, out)),
    ]


_ready = False


def compiled_ready() -> bool:
    """Whether every entry point of :class:`SingleGame` is compiled in this process or
    in numba's disk cache (then loaded now); never compiles."""
    global _ready
    if not _ready:
        _ready = all(load_cached(f, argtypes) for f, argtypes in _signatures())
    return _ready


class SingleGame:
    """One game of ``config`` on the compiled rules.

    Args:
        config: the game's configuration (every card set is covered).
        layout: the observation layout (``belief`` decides the belief block).
        score_doom: reward +1 per point and -1 per doom (else win/loss).

    After :meth:`reset` and :meth:`step`, :attr:`status` holds ``[decider, over,
    truncated, won, score, doom]`` and :attr:`mask` (int8[259]) the decider's legal
    actions (all zero once the game is over); both are overwritten in place.

    Constructing one gives a :class:`WarmingGame` instead while the entry points are
    neither compiled nor cached (and ``SHIPWRECK_ARCANA_COMPILE`` is not ``foreground``).
    """

    compiled = True
    """Whether this game runs on the compiled rules (else on the reference engine)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> SingleGame:
        if cls is SingleGame and not _compile_here() and not compiled_ready():
            cls = WarmingGame
        return super().__new__(cls)

    def __init__(self, config: GameConfig, layout: ObservationLayout, score_doom: bool) -> None:
        missing = [s for s in config.card_sets if s not in COVERED_SETS]
        if missing:  # every set is covered today; say so clearly if one ever is not
            raise ValueError(
                f"card_sets {missing!r} are not allowed here; allowed: {list(COVERED_SETS)!r}"
            )
        self.config = config
        self.layout = layout
        self.score_doom = bool(score_doom)
        cards = np.array([i for i, c in enumerate(CARDS) if c.set in config.card_sets], np.int64)
        self.arrays = Arrays(1, config, len(cards))
        self._cards = cards
        self._start()

    def _start(self) -> None:
        """Get ready to play (here: on the compiled rules)."""
        self._bind()

    def _bind(self) -> None:
        """Build the compiled structures over ``self.arrays`` (kept alive here)."""
        self._packed = pack(self.arrays)
        self._rules = rules_for(self.config, self._cards)
        self._game_at, self._rules_at = self._packed.address, self._rules.address
        self._offsets = layout_offsets(self.layout)
        self._size = self.layout.size
        self._mask2d = np.zeros((1, NUM_ACTIONS), bool)
        self.mask = self._mask2d.view(np.int8)[0]
        self.status = np.zeros(6, np.int64)

    def __getstate__(self) -> dict:
        # the compiled structures are raw pointers: pickle the arrays, rebuild the rest
        return {
            "config": self.config,
            "layout": self.layout,
            "score_doom": self.score_doom,
            "arrays": self.arrays,
            "cards": self._cards,
        }

    def __setstate__(self, state: dict) -> None:
        self._take(state)
        self._bind()
        _status(self._packed, self._rules, self._mask2d, self.status)

    def _take(self, state: dict) -> None:
        """Take the pickled fields of ``state``."""
        self.config, self.layout = state["config"], state["layout"]
        self.score_doom, self.arrays, self._cards = (
            state["score_doom"],
            state["arrays"],
            state["cards"],
        )

    def __reduce__(self) -> tuple:
        # unpickled as a SingleGame whichever class pickled it: __new__ picks again
        return (_unpickle, (self.__getstate__(),))

    def reset(self, seed: int) -> None:
        """Deal the game of ``seed`` (the batched engine's game 0 under that seed)."""
        self.arrays.key[0] = chance.game_key(seed)
        self.arrays.draws[0] = 0
        reset_one(self._game_at, self._rules_at, self._mask2d, self.status)

    def step(self, action: int) -> float:
        """Apply ``action``, which must be legal (see :attr:`mask`); the team reward."""
        return step_one(
            self._game_at, self._rules_at, action, self.score_doom, self._mask2d, self.status
        )

    def observe(self, player: int) -> np.ndarray:
        """A new float32 observation vector of ``player``."""
        out = np.empty(self._size, _FLOAT32)
        observe_one(self._game_at, self._rules_at, self._offsets, player, out)
        return out

    def load(self, state: State) -> None:
        """Hold ``state`` instead (same configuration); its later chance outcomes go on
        from this game's stream where it is now."""
        self._check_config(state)
        arrays = convert.from_states([state])
        arrays.key[:] = self.arrays.key
        arrays.draws[:] = self.arrays.draws
        self.arrays = arrays
        self._bind()
        _status(self._packed, self._rules, self._mask2d, self.status)

    def _check_config(self, state: State) -> None:
        if state.config != self.config:
            raise ValueError(
                f"state of config {state.config!r} is not allowed; allowed: {self.config!r}"
            )

    def state(self) -> State:
        """The game as a reference ``State`` (hidden fates included), built now."""
        return to_states.to_states(self.arrays, [0])[0]

    def stream(self) -> chance.StreamGenerator:
        """A generator replaying this game's random stream from where it is now."""
        return chance.StreamGenerator(int(self.arrays.key[0]), int(self.arrays.draws[0]))


def cache_dir() -> str:
    """The folder numba caches the one-game entry points in (where the background
    compile writes, and holds its lock)."""
    return step_one._cache._cache_path


def _compile_here() -> bool:
    return os.environ.get(COMPILE_MODE, "background") == "foreground"


def _unpickle(state: dict) -> SingleGame:
    """A game of the pickled ``state`` (compiled or warming, as this process can)."""
    cls = SingleGame if _compile_here() or compiled_ready() else WarmingGame
    game = object.__new__(cls)
    if cls is SingleGame and "reference" in state:  # a warming game's, onto the arrays
        reference, key, counter = state.pop("reference")
        if reference is not None:
            state["arrays"] = convert.from_states([reference])
        state["arrays"].key[0], state["arrays"].draws[0] = key, counter
    game.__setstate__(state)
    return game


class WarmingGame(SingleGame):
    """A :class:`SingleGame` that plays on the reference engine while a background
    process compiles the compiled rules into numba's cache (see the module docstring).

    Its games, observations, masks, rewards and streams are the compiled game's for the
    same seed and actions (both replay ``StreamGenerator(game_key(seed))``). At the first
    :meth:`reset` after the compiled rules are ready, it becomes a :class:`SingleGame`.
    """

    compiled = False

    def _start(self) -> None:
        self._ref = ReferenceGame(self.config, self.layout, self.score_doom)
        self._ref.rng = chance.StreamGenerator(int(self.arrays.key[0]), int(self.arrays.draws[0]))
        self.mask, self.status = self._ref.mask, self._ref.status
        background.start_background(cache_dir())

    def _switch_when_ready(self) -> None:
        """Become a :class:`SingleGame` if the compiled rules are ready now."""
        if background.background_finished(cache_dir()) and compiled_ready():
            self.__class__ = SingleGame
            self._bind()

    def __getstate__(self) -> dict:
        reference = (self._ref.game, self._ref.rng.key[0], self._ref.rng.counter)
        return {**SingleGame.__getstate__(self), "reference": reference}

    def __setstate__(self, state: dict) -> None:
        self._take(state)
        self._start()
        if "reference" in state:
            reference, key, counter = state["reference"]
            self._ref.rng = chance.StreamGenerator(int(key), int(counter))
        elif self.arrays.draws[0]:  # a compiled game's, dealt (a deal draws numbers)
            reference = to_states.to_states(self.arrays, [0])[0]
        else:
            reference = None
        if reference is not None:
            self._ref.load(reference)

    def reset(self, seed: int) -> None:
        """Deal the game of ``seed`` (on the compiled rules once they are ready)."""
        self._switch_when_ready()
        if self.compiled:
            SingleGame.reset(self, seed)
            return
        self._ref.rng = chance.StreamGenerator(chance.game_key(seed))
        self._ref.load(new_game(self.config, self._ref.rng))

    def step(self, action: int) -> float:
        """Apply ``action``, which must be legal (see :attr:`mask`); the team reward."""
        return self._ref.step(action)

    def observe(self, player: int) -> np.ndarray:
        """A new float32 observation vector of ``player``."""
        return self._ref.observe(player)

    def load(self, state: State) -> None:
        """Hold a copy of ``state`` (same configuration); its later chance outcomes go
        on from this game's stream where it is now."""
        self._check_config(state)
        self._ref.load(state.copy())

    def state(self) -> State:
        """The game as a reference ``State`` (a copy)."""
        return self._ref.state().copy()

    def stream(self) -> chance.StreamGenerator:
        """A generator replaying this game's random stream from where it is now."""
        return chance.StreamGenerator(int(self._ref.rng.key[0]), self._ref.rng.counter)
