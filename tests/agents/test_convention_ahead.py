"""Tests of the convention's look-ahead (agents/convention/ahead.py): the table a line
leaves, the share of the next seat's hands it forces, and that the convention's choice
uses it."""

from __future__ import annotations

import numpy as np
import pytest

from shipwreck_agents.convention.ahead import ahead_value, forced_share, table_left
from shipwreck_agents.convention.lines import public_hands
from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.scripted.bayes import race_win
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.cards import CARD_INDEX
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.public_record import (
    fade_doom,
    fading_after,
    hand_plays,
    onlooker_pool,
    play_outcome,
)
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.view import TurnStart, make_view

LOOKAHEAD = {"lookahead": 0.95, "read_ahead": 0.3}


def _forced_play_by_play(start: TurnStart, hand: tuple[int, int]) -> bool:
    """Every legal first play of ``hand`` fades a card at a doom cost, asked of the
    public record one play at a time (written apart from the look-ahead's tables)."""
    for action in hand_plays(start, hand):
        spec = ACTIONS[action]
        kept = hand[1] if hand[0] == spec.value else hand[0]
        out = play_outcome(start, spec.value, spec.slot, kept)
        if fade_doom(start, fading_after(start, out))[0] == 0:
            return False
    return True


@pytest.mark.parametrize("card_sets", ["base", "all"])
def test_forced_share_agrees_with_the_public_record_play_by_play(card_sets):
    config = GameConfig(num_players=3, difficulty="easy", card_sets=card_sets)
    checked = forced = 0
    for game in range(12):
        rng = np.random.default_rng(game)
        s = new_game(config, rng)
        while not s.over:
            start = make_view(s, 0).turn_start
            if start is not None:
                for hand, _ in public_hands(start, 0, False, None, onlooker_pool(start)):
                    expected = _forced_play_by_play(start, hand)
                    assert forced_share(start, [(hand, 1.0)]) == float(expected), hand
                    checked += 1
                    forced += expected
            step_inplace(s, int(rng.choice(legal_actions(s))), rng)
    assert checked > 1000 and 0 < forced < checked  # both kinds of hand were met


def test_forced_share_weighs_the_hands():
    s = arrange(slots=("beast", "dawn", "shore", None), hand=[1, 2], table=((), (), (7,), ()))
    start = make_view(s, 0).turn_start
    hands = public_hands(start, 0, False, None, onlooker_pool(start))
    forced = sum(w for hand, w in hands if _forced_play_by_play(start, hand))
    assert 0 < forced < sum(w for _, w in hands)
    assert forced_share(start, hands) == pytest.approx(forced / sum(w for _, w in hands))
    assert forced_share(start, []) == 0.0


def test_table_left_empties_faded_cards_and_refills_the_first_from_the_deck_top():
    s = arrange(
        slots=("beast", "huntress", "shore", None),
        hand=[1, 2],
        table=((3,), (4,), (5,), ()),
        deck=("dawn",),
    )
    start = make_view(s, 0).turn_start
    left = table_left(start, start.table, [0, 1])
    assert left.slots == (CARD_INDEX["dawn"], -1, CARD_INDEX["shore"], -1)
    assert left.table == ((), (), (5,), ())
    assert onlooker_pool(left)[2] == onlooker_pool(start)[2] + 1  # the 3 is back in the bag
    same = table_left(start, start.table, [])
    assert same.slots == start.slots and same.table == start.table


def test_ahead_value_prices_a_forced_next_turn():
    now, right, wrong = race_win(3, 4, 0.95, 2), race_win(4, 4, 0.95, 2), race_win(3, 7, 0.95, 2)
    assert ahead_value(now, right, wrong, 0.0, 0.9) == now
    assert ahead_value(now, right, wrong, 0.5, 0.9) < now
    assert ahead_value(now, right, wrong, 0.5, 0.8) < ahead_value(now, right, wrong, 0.5, 0.9)


def _next_seat_forced(start: TurnStart, action: int, hand: list[int]) -> float:
    """Share of the next seat's hands forced on the table ``action`` leaves (no fade)."""
    spec = ACTIONS[action]
    kept = hand[1] if hand[0] == spec.value else hand[0]
    out = play_outcome(start, spec.value, spec.slot, kept)
    assert not fading_after(start, out)
    table = tuple((*f, spec.value) if i == out.landed else f for i, f in enumerate(start.table))
    left = table_left(start, table, [])
    return forced_share(left, public_hands(left, 1, False, None, onlooker_pool(left)))


def test_look_ahead_changes_the_play_to_spare_the_next_seat_a_forced_turn():
    # at doomed any fade without a right guess loses; this hand has two quiet plays,
    # and only the look-ahead sees that one of them leaves most next hands a free play
    config = GameConfig(num_players=3, difficulty="doomed")
    hand = [1, 3]
    s = arrange(config, slots=("beast", "midnight", "rider", "servant"), hand=hand, deck=("noble",))
    view = make_view(s, 0)
    mask = np.zeros(len(ACTIONS), dtype=np.int8)
    mask[legal_actions(s)] = 1
    rng = np.random.default_rng(0)
    # the code search without restarts, so that only the look-ahead differs
    plain = ConventionPolicy(restarts=0).act(None, mask, view, rng)
    ahead = ConventionPolicy(**LOOKAHEAD, restarts=0).act(None, mask, view, rng)
    assert plain != ahead
    start = view.turn_start
    assert _next_seat_forced(start, ahead, hand) < _next_seat_forced(start, plain, hand) - 0.1
