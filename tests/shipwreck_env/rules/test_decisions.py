"""Tests of the engine's own decisions where the rules leave a choice (docs/rules.md)."""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.actions import HOURS_TARGET, PASS, play_action, power_action, steal_action
from shipwreck_env.rules.cards import CARD_INDEX
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, step
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import Phase

ALL = GameConfig(card_sets="all")
BASE = GameConfig()


def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def test_shells_answers_about_the_last_play_after_the_feast():
    """Decision 4: with The Feast, Shells is about the fate played second. The carried 2
    went onto The Feast, so the second play was not carried: "no"."""
    s = arrange(
        ALL,
        slots=["feast", "blind_man", "judge", "lord"],
        hand=[2, 5],
        carried=2,
        faded=["key"],
        lines={0: 0b0000010},
    )
    g = rng()
    s = step(s, play_action(2, 0), g)  # the carried 2 on The Feast, then draw
    second = next(a for a in legal_actions(s) if a == play_action(5, 1))
    s = step(s, second, g)
    assert s.phase == Phase.AFTER_PLAY
    s = step(s, power_action("shells"), g)
    assert ("power", "shells", 5, False) in s.events


def test_thief_lets_the_active_player_choose_among_higher_fates():
    """Decision 10: several visible fates above the kept fate -> one steal action each."""
    s = arrange(
        ALL,
        slots=["blind_man", "thief", "wish", "chalice"],
        hand=[1, 2],
        table=[(), (), (5,), (6,)],
    )
    g = rng()
    s = step(s, play_action(2, 0), g)  # keeps the 1
    assert s.phase == Phase.STEAL
    # the 2 just played counts too: it is a visible fate on another card
    assert set(legal_actions(s)) == {steal_action(0, 2), steal_action(2, 5), steal_action(3, 6)}
    s = step(s, steal_action(2, 5), g)
    assert s.table[1] == [5] and ("steal", 2, 5) in s.events


def test_thief_passes_only_when_no_fate_is_higher():
    """Decision 10: PASS ("cannot steal") is legal exactly when nothing is higher."""
    s = arrange(
        ALL,
        slots=["blind_man", "thief", "wish", "chalice"],
        hand=[7, 6],
        table=[(), (), (5,), (6,)],
    )
    s = step(s, play_action(6, 0), rng())  # keeps the 7
    assert legal_actions(s) == [PASS]


def test_sands_waits_for_an_empty_slot_to_be_refilled():
    """Decision 16: The Fall fades with an empty deck; Sands attaches to the card that
    later fills its slot."""
    s = arrange(
        ALL, slots=["fall", "blind_man", "wish", "chalice"], hand=[1, 2], table=[(3,), (), (), ()]
    )
    s.deck = []  # nothing can refill the slot this turn
    g = rng()
    s = step(s, play_action(1, 0), g)  # The Fall holds 3 + 1 >= 2 x 2: it will fade
    assert s.phase == Phase.GROUP
    s = step(s, PASS, g)  # no prediction: the turn ends and The Fall fades
    assert s.slots[0] == -1
    assert s.sands_waiting[0] == CARD_INDEX["fall"]
    assert CARD_INDEX["fall"] not in s.faded  # Sands is never a power to choose


def test_a_fate_played_on_the_hours_with_no_arcana_card_in_play_returns_to_the_bag():
    """Decision 17: the fate has no card to slide to."""
    s = arrange(BASE, slots=[None, None, None, None], hand=[3, 5])
    assert legal_actions(s) == [play_action(3, HOURS_TARGET), play_action(5, HOURS_TARGET)]
    s = step(s, play_action(3, HOURS_TARGET), rng())
    assert ("play", 3, HOURS_TARGET, -1) in s.events
    assert all(not fates for fates in s.table)


def test_after_play_phase_happens_when_sinners_is_available_even_if_unusable():
    """Decision 19: the phase depends on public facts only -- the kept 1 is below every
    visible fate, so only PASS is legal, but the active player is still asked."""
    s = arrange(
        BASE,
        slots=["blind_man", "chalice", "mirror", "lord"],
        hand=[1, 4],
        table=[(), (5,), (), ()],
        faded=["belltower"],
    )
    s = step(s, play_action(4, 0), rng())  # keeps the 1
    assert s.phase == Phase.AFTER_PLAY
    assert legal_actions(s) == [PASS]
