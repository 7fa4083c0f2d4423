"""The rules engine: start a game, list the legal actions, apply one action.

A game is a :class:`~shipwreck_env.rules.state.State` plus the pure functions here:

* :func:`new_game` -- a fresh game from a configuration and a numpy ``Generator``;
* :func:`legal_actions` -- the action numbers (``shipwreck_env.rules.actions``) that the
  player in ``state.decider`` may choose now;
* :func:`step` -- a new state after one action; the given state is untouched.
  :func:`step_inplace` does the same on the given state (the environment's fast path).

All randomness (shuffling the deck, drawing fates) comes from the ``Generator`` passed
in: the same seed and the same actions always give the same game. The turn follows
``docs/rules.md`` (One turn): draw, powers before the play, play (The Feast: play, draw,
play again), automatic announcements (Hours slide, Thief, Chalice, Fall), powers after
the play, the optional reveals, the group's powers and predictions (leader or vote),
resolve, Sails, fade, refill, end check, next seat.

Whether a phase happens depends only on public facts, so the order in which players
are asked to decide never reveals a hidden fate. This module imports neither
gymnasium nor pettingzoo.

This module holds the public API and dispatches each action by phase; the turn's steps
live in :mod:`~shipwreck_env.rules.turn_start` (draw, per-turn reset),
:mod:`~shipwreck_env.rules.plays` (the active player's plays, The Thief, announcements),
:mod:`~shipwreck_env.rules.predictions` (reveals, the group's powers, votes, predictions) and
:mod:`~shipwreck_env.rules.fading` (score, fades, refill, end of game). Each card's special
effect has one home: card texts in :mod:`~shipwreck_env.rules.arcana` (The Ash, The Fall, The
Imago, The Blind Man), every faded power -- Scions and Sands included -- in
:mod:`~shipwreck_env.rules.powers`.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules import powers
from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS, PASS, REVEAL, describe
from shipwreck_env.rules.cards import CARDS, FATE_COPIES
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.fading import slot_hours
from shipwreck_env.rules.plays import (
    apply_after_play,
    apply_play_phase,
    apply_steal,
    play_legal,
    steal_legal,
)
from shipwreck_env.rules.predictions import (
    apply_cost,
    apply_group,
    apply_reveal,
    apply_sails,
    apply_vote,
)
from shipwreck_env.rules.state import ALL_VALUES, Phase, State
from shipwreck_env.rules.turn_start import start_turn

__all__ = [
    "IllegalActionError",
    "current_player",
    "legal_actions",
    "legal_mask",
    "new_game",
    "slot_hours",
    "step",
    "step_inplace",
]

PREDICTS_AND_PASS: list[int] = [
    *sorted(a.index for a in ACTIONS if a.kind == "predict"),
    PASS,
]


class IllegalActionError(ValueError):
    """An action that is not legal in the current state; the state is unchanged."""


# --- public API -----------------------------------------------------------------------


def new_game(
    config: GameConfig | None = None, rng: np.random.Generator | int | None = None
) -> State:
    """Shuffle the deck, deal four cards and let seat 0 draw: a game ready for its first
    decision.

    Args:
        config: the rules of this game (default: ``GameConfig()``).
        rng: the game's random generator, or an int seed for a new one. Keep passing the
            same generator to :func:`step`: it makes every later draw.
    """
    config = config if config is not None else GameConfig()
    if not isinstance(config, GameConfig):
        raise ValueError(f"config {config!r} is not a GameConfig")
    rng = _as_rng(rng)
    cards = _deck_cards(config.card_sets)
    deck = [cards[i] for i in rng.permutation(len(cards)).tolist()]
    seats = config.num_seats
    s = State(
        config,
        deck=deck[4:],
        slots=deck[:4],
        table=[[], [], [], []],
        attached=[[], [], [], []],
        sands_waiting=[-1, -1, -1, -1],
        faded=[],
        bag=[FATE_COPIES] * 7,
        bag_known=[0] * 7,
        exiled=[0] * 7,
        hands=[[] for _ in range(seats)],
        lines=[ALL_VALUES] * seats,
        score=0,
        doom=config.starting_doom,
        turn=0,
    )
    start_turn(s, 0, rng)
    return s


_DECKS: dict[tuple[str, ...], list[int]] = {}


def _deck_cards(card_sets: tuple[str, ...]) -> list[int]:
    """Card numbers of the chosen sets, in card order (cached: configs repeat)."""
    cards = _DECKS.get(card_sets)
    if cards is None:
        cards = _DECKS[card_sets] = [i for i, c in enumerate(CARDS) if c.set in card_sets]
    return cards


def current_player(s: State) -> int:
    """The player who must decide now (-1 once the game is over)."""
    return s.decider


def legal_actions(s: State) -> list[int]:
    """The legal action numbers for ``current_player(s)``, ascending."""
    return _LEGAL[s.phase](s)


def _legal_group(s: State) -> list[int]:
    if s.config.group_decision == "leader":
        return _with_powers(PREDICTS_AND_PASS[:], s, Phase.GROUP)
    return _with_powers([PASS], s, Phase.GROUP)


# Per phase (index = Phase value): the legal actions, each list new (callers own it).
_LEGAL = [
    lambda s: _with_powers(play_legal(s), s, Phase.PLAY),
    lambda s: _with_powers(steal_legal(s), s, Phase.STEAL),
    lambda s: _with_powers([PASS], s, Phase.AFTER_PLAY),
    lambda s: [PASS, REVEAL],
    _legal_group,
    lambda s: PREDICTS_AND_PASS[:],
    lambda s: powers.cost_legal(s),
    lambda s: _with_powers([PASS], s, Phase.SAILS),
    lambda s: [],
]


def _with_powers(legal: list[int], s: State, phase: int) -> list[int]:
    """``legal`` plus the powers offered in ``phase``, ascending."""
    if s.power_used or not s.faded:  # nothing offered (powers.offered's own first test)
        return legal
    offered = powers.offered(s, phase)
    if not offered:
        return legal
    legal = legal + offered
    legal.sort()
    return legal


def legal_mask(s: State) -> np.ndarray:
    """Legal actions as an int8 array of length ``NUM_ACTIONS`` (1 = legal)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[legal_actions(s)] = 1
    return mask


def step(s: State, action: int, rng: np.random.Generator) -> State:
    """The state after ``current_player(s)`` takes ``action``; ``s`` is not changed.

    Raises:
        IllegalActionError: ``action`` is not in ``legal_actions(s)``.
    """
    _check_legal(s, action)
    new = s.copy()
    _apply(new, action, rng)
    return new


def step_inplace(s: State, action: int, rng: np.random.Generator, *, check: bool = True) -> None:
    """Apply ``action`` to ``s`` itself. With ``check`` (default) an illegal action raises
    :class:`IllegalActionError` before anything changes; ``check=False`` is for callers
    that took ``action`` from :func:`legal_actions` of this very state."""
    if check:
        _check_legal(s, action)
    _apply(s, action, rng)


# --- helpers ----------------------------------------------------------------------


def _as_rng(rng: np.random.Generator | int | None) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    raise ValueError(f"rng {rng!r} is not a numpy Generator or an int seed")


def _check_legal(s: State, action: int) -> None:
    legal = legal_actions(s)
    if action in legal and isinstance(action, (int, np.integer)):
        return
    if s.over:
        raise IllegalActionError(f"action {action!r}: the game is over; no action is legal")
    try:
        what = describe(int(action))
    except (TypeError, ValueError):
        what = f"not an action number (0..{NUM_ACTIONS - 1})"
    options = ", ".join(f"{a} ({describe(a)})" for a in legal)
    raise IllegalActionError(f"action {action!r} [{what}] is not legal now; legal: {options}")


def _apply(s: State, action: int, rng: np.random.Generator) -> None:
    action = int(action)
    apply = _APPLY[s.phase]
    s.turn_actions.append(action)  # every action is public: noted before it is applied
    apply(s, action, rng)


_APPLY = {  # _apply notes every action in turn_actions before calling these
    Phase.PLAY: apply_play_phase,
    Phase.STEAL: apply_steal,
    Phase.AFTER_PLAY: apply_after_play,
    Phase.REVEAL: apply_reveal,
    Phase.GROUP: apply_group,
    Phase.VOTE: apply_vote,
    Phase.COST: apply_cost,
    Phase.SAILS: apply_sails,
}
