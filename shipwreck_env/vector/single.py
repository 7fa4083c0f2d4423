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

Must not: keep a reference ``State`` in step with the arrays (that is rebuilt on demand,
:meth:`SingleGame.state`), or check legality (the caller does, from :attr:`SingleGame.mask`).
"""

from __future__ import annotations

import numpy as np
from numba.core import types
from numba.extending import intrinsic

from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.cards import CARDS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.rules.state import State
from shipwreck_env.vector import chance, convert, to_states
from shipwreck_env.vector.arrays import Arrays
from shipwreck_env.vector.engine import deal, legal_masks, step_rewarded
from shipwreck_env.vector.jit import GAME_TYPE, RULES_TYPE, _RefType, njit, pack, rules_for
from shipwreck_env.vector.observe import _encode, layout_offsets
from shipwreck_env.vector.tables import COVERED_SETS

__all__ = ["SingleGame", "observe_one", "reset_one", "step_one"]

_GAME_REF = _RefType(GAME_TYPE)
_RULES_REF = _RefType(RULES_TYPE)

# status[] entries filled by reset_one / step_one
DECIDER, OVER, TRUNCATED, WON, SCORE, DOOM = range(6)
_FLOAT32 = np.dtype(np.float32)  # a dtype object: numpy need not look it up per call


@intrinsic
def _game_at(typingctx, address):
    """The game structure whose fields are at ``address`` (``Ref.address``)."""

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(_GAME_REF))

    return _GAME_REF(types.intp), codegen


@intrinsic
def _rules_at(typingctx, address):
    """The rules structure whose fields are at ``address`` (``Ref.address``)."""

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(_RULES_REF))

    return _RULES_REF(types.intp), codegen


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


class SingleGame:
    """One game of ``config`` on the compiled rules.

    Args:
        config: the game's configuration (every card set is covered).
        layout: the observation layout (``belief`` decides the belief block).
        score_doom: reward +1 per point and -1 per doom (else win/loss).

    After :meth:`reset` and :meth:`step`, :attr:`status` holds ``[decider, over,
    truncated, won, score, doom]`` and :attr:`mask` (int8[259]) the decider's legal
    actions (all zero once the game is over); both are overwritten in place.
    """

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
        self.config, self.layout = state["config"], state["layout"]
        self.score_doom, self.arrays, self._cards = (
            state["score_doom"],
            state["arrays"],
            state["cards"],
        )
        self._bind()
        _status(self._packed, self._rules, self._mask2d, self.status)

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
        if state.config != self.config:
            raise ValueError(
                f"state of config {state.config!r} is not allowed; allowed: {self.config!r}"
            )
        arrays = convert.from_states([state])
        arrays.key[:] = self.arrays.key
        arrays.draws[:] = self.arrays.draws
        self.arrays = arrays
        self._bind()
        _status(self._packed, self._rules, self._mask2d, self.status)

    def state(self) -> State:
        """The game as a reference ``State`` (hidden fates included), built now."""
        return to_states.to_states(self.arrays, [0])[0]

    def stream(self) -> chance.StreamGenerator:
        """A generator replaying this game's random stream from where it is now."""
        return chance.StreamGenerator(int(self.arrays.key[0]), int(self.arrays.draws[0]))
