"""Seat orders (``shipwreck_env.rules.seating``): who is asked after whom. Authority: the
rulebook's clockwise order from the active player (reveals, votes), the leader as the
first player clockwise, and docs/rules.md on the 2-player challenge mode (two seats per
player: the active player's other seat is not asked)."""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.seating import (
    leader,
    others_after,
    others_after_table,
    voters,
    voters_table,
)


def test_others_are_asked_clockwise_from_the_active_seat() -> None:
    assert others_after(3, 3, 0) == (1, 2)
    assert others_after(4, 4, 2) == (3, 0, 1)


def test_challenge_mode_skips_the_active_players_other_seat() -> None:
    # 2 players, 4 seats: seats 0 and 2 are player 0's, 1 and 3 player 1's
    assert others_after(4, 2, 0) == (1, 3)
    assert others_after(4, 2, 3) == (0, 2)


def test_the_leader_is_the_next_player_and_votes_start_with_the_leader() -> None:
    assert leader(3, 2) == 0
    assert voters(4, 1) == (2, 3, 0)
    assert voters(4, 1)[0] == leader(4, 1)


def test_the_tables_are_the_functions() -> None:
    for seats, players in ((2, 2), (3, 3), (4, 2), (5, 5)):
        table = others_after_table(seats, players)
        for active in range(seats):
            assert tuple(table[active]) == others_after(seats, players, active)
    np.testing.assert_array_equal(voters_table(3), [[1, 2], [2, 0], [0, 1]])
