"""Seat orders of a turn, decided once for both engines.

Who is asked after whom is a rule (clockwise from the active seat, a player's own other
seat skipped in challenge mode); the reference engine reads :func:`others_after` and
:func:`voters`, the batched engine the same orders as tables
(:func:`others_after_table`, :func:`voters_table`). This module must not change state.
"""

from __future__ import annotations

import numpy as np

__all__ = ["leader", "others_after", "others_after_table", "voters", "voters_table"]

_OTHERS: dict[int, tuple[int, ...]] = {}


def others_after(seats: int, players: int, active: int) -> tuple[int, ...]:
    """Seats of the players other than the active one, clockwise from the active seat
    ``active`` (in challenge mode the active player's second seat is not among them)."""
    key = (seats * 8 + players) * 16 + active  # one int: cheaper to hash than a tuple
    order = _OTHERS.get(key)
    if order is None:
        me = active % players
        clockwise = [(active + i) % seats for i in range(1, seats)]
        order = _OTHERS[key] = tuple(seat for seat in clockwise if seat % players != me)
    return order


def others_after_table(seats: int, players: int) -> np.ndarray:
    """int8[seats, L]: row ``active`` is :func:`others_after` of that seat."""
    return np.array([others_after(seats, players, a) for a in range(seats)], np.int8)


def leader(players: int, active_player: int) -> int:
    """The first player clockwise from the active player: speaks for the group."""
    return (active_player + 1) % players


def voters(players: int, active_player: int) -> tuple[int, ...]:
    """Every player but the active one, clockwise from the leader: the order of votes."""
    return tuple((active_player + i) % players for i in range(1, players))


def voters_table(players: int) -> np.ndarray:
    """int8[players, players - 1]: row ``p`` is :func:`voters` when ``p`` is active."""
    return np.array([voters(players, p) for p in range(players)], np.int8)
