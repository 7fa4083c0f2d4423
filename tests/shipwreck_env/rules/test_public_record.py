"""Tests of shipwreck_env/rules/public_record.py: each public service agrees with the engine."""

from __future__ import annotations

import numpy as np
import pytest

from shipwreck_env.rules.actions import ACTIONS, PASS
from shipwreck_env.rules.cards import CARD_INDEX
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step, step_inplace
from shipwreck_env.rules.public_record import (
    DrawNeeded,
    PlayOutcome,
    fade_doom,
    fading_after,
    hand_plays,
    hand_plays_at_play,
    onlooker_pool,
    play_outcome,
    rows_at_play,
    step_without_draws,
    turn_outcomes,
)
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.view import make_view
from shipwreck_env.vector.public_record import hand_play_masks

FEAST = CARD_INDEX["feast"]
THIEF = CARD_INDEX["thief"]


def _turn_starts(config: GameConfig, n: int, seed: int) -> list[State]:
    """States at the first decision of a turn (play phase, nothing done yet), reached by
    random legal play."""
    rng = np.random.default_rng(seed)
    out: list[State] = []
    while len(out) < n:
        s = new_game(config, rng)
        while not s.over and len(out) < n:
            if s.phase == Phase.PLAY and not s.turn_actions:
                out.append(s.copy())
            legal = legal_actions(s)
            step_inplace(s, legal[int(rng.integers(len(legal)))], rng)
    return out


@pytest.mark.parametrize("card_sets", ["base", "all"])
def test_hand_plays_are_the_engines_legal_first_plays(card_sets):
    for s in _turn_starts(GameConfig(card_sets=card_sets), 300, seed=1):
        view = make_view(s, s.active_player)
        hand = tuple(s.hands[s.active])
        engine = sorted(a for a in legal_actions(s) if ACTIONS[a].kind == "play")
        assert hand_plays(view.turn_start, hand) == engine


def test_onlooker_pool_is_what_a_player_holding_nothing_cannot_see():
    for s in _turn_starts(GameConfig(num_players=4), 200, seed=2):
        start = make_view(s, 0).turn_start
        expected = [3 - e for e in s.exiled]
        for fates in s.table:
            for v in fates:
                expected[v - 1] -= 1
        assert onlooker_pool(start) == tuple(expected)
        hidden = [0] * 7
        for hand in s.hands:
            for v in hand:
                hidden[v - 1] += 1
        assert all(p >= h for p, h in zip(onlooker_pool(start), hidden, strict=True))


@pytest.mark.parametrize("card_sets", ["base", "all"])
def test_play_outcome_matches_the_events_the_engine_announces(card_sets):
    rng = np.random.default_rng(3)
    checked = 0
    for s in _turn_starts(GameConfig(card_sets=card_sets), 300, seed=3):
        start = make_view(s, s.active_player).turn_start
        for action in legal_actions(s):
            spec = ACTIONS[action]
            if spec.kind != "play" or (spec.slot < 4 and s.slots[spec.slot] == FEAST):
                continue
            hand = s.hands[s.active]
            kept = hand[1] if hand[0] == spec.value else hand[0]
            t = s.copy()
            step_inplace(t, action, rng)
            got = play_outcome(start, spec.value, spec.slot, kept)
            assert turn_outcomes(t.events) == [got]
            checked += 1
    assert checked > 300


def test_turn_outcomes_reads_plays_and_their_announcements():
    events = [
        ("draw", 0, 2),
        ("play", 3, 1, 1),
        ("chalice", True),
        ("fall", False),
    ]
    assert turn_outcomes(events) == [PlayOutcome(3, 1, 1, True, False)]


@pytest.mark.parametrize("card_sets", ["base", "all"])
def test_fade_doom_is_the_doom_the_engine_adds_when_the_group_passes(card_sets):
    """After one play and nothing else (every later decision passes), the doom added at
    the end of the turn is fade_doom(fading_after(...))."""
    rng = np.random.default_rng(4)
    checked = 0
    for s in _turn_starts(GameConfig(card_sets=card_sets), 300, seed=4):
        if THIEF in s.slots:
            continue  # The Thief moves a fate after the play
        start = make_view(s, s.active_player).turn_start
        for action in legal_actions(s):
            spec = ACTIONS[action]
            if spec.kind != "play" or (spec.slot < 4 and s.slots[spec.slot] == FEAST):
                continue
            hand = s.hands[s.active]
            kept = hand[1] if hand[0] == spec.value else hand[0]
            t = s.copy()
            doom, turn = t.doom, t.turn
            step_inplace(t, action, rng)
            while t.turn == turn and not t.over:
                step_inplace(t, PASS if PASS in legal_actions(t) else legal_actions(t)[0], rng)
            outcome = play_outcome(start, spec.value, spec.slot, kept)
            expected, _ = fade_doom(start, fading_after(start, outcome))
            assert t.doom - doom == expected or t.over, (s.slots, action)
            checked += 1
    assert checked > 300


def test_fading_after_counts_the_played_fate_on_its_card():
    s = arrange(slots=["mirror", "deep", "dawn", "lord"], hand=[2, 2])
    start = make_view(s, 0).turn_start
    assert fading_after(start, play_outcome(start, 2, 0, 2)) == [0]
    assert fading_after(start, play_outcome(start, 2, 1, 2)) == []
    assert fade_doom(start, [0]) == (2, False)


def test_step_without_draws_is_step_for_actions_that_draw_nothing():
    rng = np.random.default_rng(5)
    checked = raised = 0
    s = new_game(GameConfig(card_sets="all"), rng)
    for _ in range(600):
        if s.over:
            s = new_game(GameConfig(card_sets="all"), rng)
        action = legal_actions(s)[int(rng.integers(len(legal_actions(s))))]
        before = s.copy()
        try:
            t = step_without_draws(s, action)
        except DrawNeeded:
            raised += 1
        else:
            assert t == step(s, action, np.random.default_rng(0))
            checked += 1
        assert s == before
        step_inplace(s, action, rng)
    assert checked > 300 and raised > 10


def test_step_without_draws_refuses_a_feast_play():
    s = arrange(
        config=GameConfig(card_sets="all"), slots=["feast", "deep", "dawn", "lord"], hand=[2, 5]
    )
    feast_play = next(
        a for a in legal_actions(s) if ACTIONS[a].kind == "play" and ACTIONS[a].slot == 0
    )
    with pytest.raises(DrawNeeded):
        step_without_draws(s, feast_play)


_BEFORE_PLAY = {"sparrows", "skies", "shadows"}


def _play_decisions(config: GameConfig, n: int, seed: int) -> list[State]:
    """States where the active player decides a play (the first, or The Feast's second),
    reached by random legal play in which a power before the play (Sparrows, Skies,
    Shadows) is used whenever one is offered; half of them come after such a power or
    after The Feast's first play (the table changed before the play)."""
    rng = np.random.default_rng(seed)
    plain: list[State] = []
    changed: list[State] = []
    while len(changed) < n // 2:
        s = new_game(config, rng)
        while not s.over and len(changed) < n // 2:
            legal = legal_actions(s)
            powers = [a for a in legal if ACTIONS[a].power in _BEFORE_PLAY]
            if s.phase == Phase.PLAY and not powers:
                (changed if s.power_used or s.feast_done else plain).append(s.copy())
            action = powers or legal
            step_inplace(s, action[int(rng.integers(len(action)))], rng)
    return plain[: n - len(changed)] + changed


def _engine_plays(s: State, hand: tuple[int, int]) -> list[int]:
    t = s.copy()
    t.hands[t.active] = list(hand)
    return sorted(a for a in legal_actions(t) if ACTIONS[a].kind == "play")


_HANDS = [(x, y) for x in range(1, 8) for y in range(1, 8)]


@pytest.mark.parametrize("card_sets", ["base", "all"])
def test_hand_plays_at_play_are_the_engines_plays_on_the_table_at_the_play(card_sets):
    """Every hand of 1..7 at play decisions of random games, many after Sparrows, Skies
    or Shadows changed the table (or after The Feast's first play): the public record's
    answer, from an onlooker's view, is the engine's legal plays with that hand."""
    changed = 0
    for s in _play_decisions(GameConfig(card_sets=card_sets), 120, seed=6):
        view = make_view(s, (s.active_player + 1) % s.config.num_players)
        rows = rows_at_play(view)
        for hand in _HANDS:
            assert hand_plays_at_play(view, hand, rows) == _engine_plays(s, hand), hand
        changed += s.power_used or s.feast_done
    assert changed == 60, changed


@pytest.mark.parametrize("card_sets", ["base", "all"])
def test_hand_play_masks_are_the_engines_plays_on_the_table_at_the_play(card_sets):
    """The batched answer for all 49 hands of many tables in one call equals the
    engine's legal plays with each hand."""
    states = _play_decisions(GameConfig(card_sets=card_sets), 40, seed=7)
    tcount = np.zeros((len(states), 4, 7), np.int8)
    for i, s in enumerate(states):
        for slot, fates in enumerate(s.table):
            for v in fates:
                tcount[i, slot, v - 1] += 1
    rep = np.repeat(np.arange(len(states)), len(_HANDS))
    x, y = np.array(_HANDS * len(states)).T
    masks = hand_play_masks(
        np.array([s.slots for s in states])[rep],
        tcount[rep],
        np.array([s.shadows for s in states])[rep],
        np.array([s.feast_done for s in states])[rep],
        x,
        y,
    )
    for row, (i, hand) in enumerate(zip(rep, zip(x, y, strict=True), strict=True)):
        expected = _engine_plays(states[i], (int(hand[0]), int(hand[1])))
        assert list(np.flatnonzero(masks[row])) == expected, (i, hand)


def test_hand_plays_at_play_refuses_a_view_outside_the_play():
    s = new_game(GameConfig(), np.random.default_rng(0))
    while s.phase == Phase.PLAY:
        step_inplace(s, legal_actions(s)[0], np.random.default_rng(0))
    view = make_view(s, 0)
    with pytest.raises(ValueError, match=f"phase {view.phase!r}.*allowed: 'play'"):
        hand_plays_at_play(view, (1, 2))


def test_hand_play_masks_refuse_a_fate_outside_one_to_seven():
    slots, tcount = np.zeros((1, 4), np.int8), np.zeros((1, 4, 7), np.int8)
    flags = np.zeros(1, bool)
    with pytest.raises(ValueError, match=r"hand \(0, 3\) at row 0; allowed: fates 1..7"):
        hand_play_masks(slots, tcount, flags, flags, np.array([0]), np.array([3]))
