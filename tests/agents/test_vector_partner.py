"""The batched heuristic player (agents/scripted/heuristic_batched.py) against the Python one
(agents/scripted/heuristic.py): the same action at every decision of many random games, nothing
hidden read, and the fast trainer's partner using it with the same results."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from twins import shuffle_deck_below_top, swap_held_fate
from vector_helpers import sweep_rules

from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_agents.scripted.heuristic_batched import heuristic_actions
from shipwreck_env.envs.policy import decide, observation_layouts
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.state import PHASES
from shipwreck_env.vector import VectorGame
from shipwreck_env.vector.to_states import to_states


def _situations(s, action: int) -> list[str]:
    """What a compared decision exercised (for the tests' coverage checks)."""
    spec = ACTIONS[action]
    out = [PHASES[s.phase]]
    if s.shadows:
        out.append("shadows")
    if spec.kind == "play" and spec.slot < 4 and s.slots[spec.slot] >= 0:
        from shipwreck_env.rules.cards import CARDS

        out.append(f"play_on_{CARDS[s.slots[spec.slot]].id}")
    if spec.kind == "play" and spec.slot == 4:
        out.append("play_on_hours")
    if spec.power in ("shells", "sinners"):
        out.append(spec.power)
    return out


def compare_games(
    games: int, steps: int, seed: int, explore: float = 0.3, **config: object
) -> Counter:
    """Run ``games`` random games for ``steps`` steps; at every decision of an active
    player, assert the batched action equals the Python player's on the reference
    state. The other decisions are random; the active player takes the heuristic's
    action, or (with probability ``explore``) a random one, so that Shadows, Skies and
    Sparrows also happen. Returns the situations met."""
    game = VectorGame(games, seed, **config)
    player = HeuristicPlayer()
    rng = np.random.default_rng(seed)
    layouts = observation_layouts(game.config)
    seen: Counter = Counter()
    for _ in range(steps):
        mask = game.legal_mask()
        actions = VectorGame.random_legal(mask, rng)
        which = game.roles()[0]
        if len(which):
            fast = heuristic_actions(game.arrays, which, mask)
            for k, s in enumerate(to_states(game.arrays, which.tolist())):
                expected = decide(player, s, layouts, rng).action
                assert fast[k] == expected, (
                    f"game {int(which[k])} ({config}), phase {PHASES[s.phase]}: batched "
                    f"{ACTIONS[fast[k]]}, Python {ACTIONS[expected]}; state {s!r}"
                )
                seen.update(_situations(s, expected))
            keep = rng.random(len(which)) >= explore
            actions[which[keep]] = fast[keep]
        game.step(actions)
    return seen


@pytest.mark.parametrize(
    ("card_sets", "players", "difficulty"),
    [("base", 3, "normal"), ("all", 4, "hard"), ("all", 5, "doomed"), ("base", 3, "easy")],
)
def test_batched_heuristic_takes_the_python_players_actions(card_sets, players, difficulty):
    seen = compare_games(
        32, 100, 11 + players, num_players=players, difficulty=difficulty, card_sets=card_sets
    )
    assert seen["play"] > 100 and seen["after_play"] > 0


@pytest.mark.slow
def test_batched_heuristic_equals_python_in_every_difficulty_player_count_and_card_set():
    seen = sweep_rules(compare_games, (24, 120, 100), (32, 120, 7))
    # the rules the heuristic weighs were all met
    for situation in (
        "steal", "shells", "sinners", "shadows", "play_on_hours", "play_on_feast",
        "play_on_chalice", "play_on_fall", "play_on_ash", "play_on_imago",
    ):  # fmt: skip
        assert seen[situation] > 0, situation


def _hide_differently(game: VectorGame, which: np.ndarray, rng: np.random.Generator) -> int:
    """Change, in the games ``which``, facts their active player cannot see: swap the
    fate held by each other player (not revealed this turn) with a different fate from
    the bag, and shuffle the deck below its face-up top card. Returns how many fates
    changed."""
    a = game.arrays
    players = game.config.num_players
    changed = 0
    for g in which:
        mine = int(a.active[g]) % players
        for seat in range(a.hands.shape[1]):
            if seat % players == mine or a.ann_reveal[g, seat] or a.hand_len[g, seat] == 0:
                continue
            changed += swap_held_fate(a, g, seat, rng)
        shuffle_deck_below_top(a, g, rng)
    return changed


def test_batched_heuristic_reads_nothing_its_player_cannot_see():
    """Twin games that differ only in other players' fates, the bag and the deck below
    its top: the same actions."""
    rng = np.random.default_rng(5)
    checked = 0
    for players, card_sets in ((3, "base"), (4, "all"), (5, "all")):
        game = VectorGame(64, 21, num_players=players, card_sets=card_sets)
        twin = VectorGame(64, 21, num_players=players, card_sets=card_sets)
        for _ in range(150):
            mask = game.legal_mask()
            which = game.roles()[0]
            for name in game.arrays.fields():
                getattr(twin.arrays, name)[...] = getattr(game.arrays, name)
            changed = _hide_differently(twin, which, rng)
            fast = heuristic_actions(game.arrays, which, mask)
            assert np.array_equal(fast, heuristic_actions(twin.arrays, which, mask))
            checked += changed
            actions = VectorGame.random_legal(mask, rng)
            actions[which] = fast
            game.step(actions)
    assert checked > 2000  # the twins did differ


def test_a_group_decision_is_refused_with_the_games_named():
    game = VectorGame(8, 3, num_players=3)
    game.step(heuristic_actions(game.arrays, np.arange(8), game.legal_mask()))
    group = np.setdiff1d(np.arange(8), game.roles()[0])
    assert len(group)
    with pytest.raises(ValueError, match=r"games \[.*\] wait for a group decision"):
        heuristic_actions(game.arrays, group, game.legal_mask())
