"""The batched Bayesian group (agents/scripted/bayes_batched.py) against the Python one
(agents/scripted/bayes.py): the same action at every group decision of many random games, with
the group's memory carried from turn to turn; nothing hidden read; and the fast
trainer's partner using it with the same actions and checkpoints."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from twins import shuffle_deck_below_top, swap_held_fate
from vector_helpers import sweep_rules

from shipwreck_agents.scripted.bayes import BayesGroup
from shipwreck_agents.scripted.bayes_batched import BatchedBayes
from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_agents.scripted.heuristic_batched import heuristic_actions
from shipwreck_env.envs.policy import decide, observation_layouts
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.state import PHASES
from shipwreck_env.vector import VectorGame
from shipwreck_env.vector.to_states import to_states


def _situations(s, group: BayesGroup, action: int) -> list[str]:
    """What a compared group decision exercised (for the coverage checks)."""
    out = [PHASES[s.phase], ACTIONS[action].kind]
    if ACTIONS[action].kind == "power":
        out.append(ACTIONS[action].power)
    if s.feast_done:
        out.append("feast")
    if any(e[0] == "draw" and e[2] == 1 for e in s.events):
        out.append("carried")
        stored = group._likelihood.get((s.decider, s.active))
        if stored is not None and stored[0] == s.turn - len(s.hands):
            out.append("remembered")  # the prior came from an earlier turn's posterior
    return out


def compare_games(
    games: int, steps: int, seed: int, explore: float = 0.2, **config: object
) -> Counter:
    """Run ``games`` random games for ``steps`` steps; the active player plays the
    heuristic (the group's model) or, with probability ``explore``, a random action; at
    every group decision assert the batched group's action equals the Python group's
    on the reference state, each side keeping its own memory. Returns the situations."""
    game = VectorGame(games, seed, **config)
    layouts = observation_layouts(game.config)
    python = [BayesGroup() for _ in range(games)]
    batched = BatchedBayes(games, game.config.num_players, game.config.num_seats)
    rng = np.random.default_rng(seed)
    seen: Counter = Counter()
    for _ in range(steps):
        mask = game.legal_mask()
        actions = VectorGame.random_legal(mask, rng)
        players, group = game.roles()
        if len(players):
            model = heuristic_actions(game.arrays, players, mask)
            keep = rng.random(len(players)) >= explore
            actions[players[keep]] = model[keep]
        if len(group):
            fast = batched.act(game.arrays, game.cards, group, mask, 0)
            for k, s in enumerate(to_states(game.arrays, group.tolist())):
                g = int(group[k])
                seen.update(_situations(s, python[g], int(fast[k])))
                expected = decide(python[g], s, layouts, rng).action
                assert fast[k] == expected, (
                    f"game {g} ({config}), phase {PHASES[s.phase]}: batched "
                    f"{ACTIONS[fast[k]]}, Python {ACTIONS[expected]}; state {s!r}"
                )
            actions[group] = fast
        ended = game.step(actions)[2]
        done = np.flatnonzero(ended)
        for g in done:
            python[g].reset()
        batched.restart(done)
    return seen


@pytest.mark.parametrize(
    ("card_sets", "players", "difficulty", "rules"),
    [
        ("base", 3, "normal", {}),
        ("all", 4, "hard", {"group_decision": "vote"}),
        ("all", 5, "doomed", {}),
        ("base,stars_below", 3, "easy", {"reveal": False}),
    ],
)
def test_batched_group_takes_the_python_groups_actions(card_sets, players, difficulty, rules):
    seen = compare_games(
        24, 90, 3 + players, num_players=players, difficulty=difficulty, card_sets=card_sets,
        **rules,
    )  # fmt: skip
    assert seen["group"] + seen["vote"] > 100 and seen["carried"] > 20


@pytest.mark.slow
def test_batched_group_equals_python_in_every_difficulty_player_count_and_card_set():
    seen = sweep_rules(compare_games, (16, 100, 200), (24, 120, 9))
    for situation in ("remembered", "feast", "predict", "power", "cost", "vote", "reveal"):
        assert seen[situation] > 0, situation


def _hide_differently(game: VectorGame, which: np.ndarray, rng: np.random.Generator) -> int:
    """Change, in the games ``which``, facts their deciding player cannot see: the
    active seat's kept fate (swapped with a different fate of the bag) and the deck
    below its face-up top card. Returns how many fates changed."""
    a = game.arrays
    changed = 0
    for g in which:
        seat = int(a.active[g])
        if a.hand_len[g, seat] == 1:
            changed += swap_held_fate(a, g, seat, rng)
        shuffle_deck_below_top(a, g, rng)
    return changed


def _heuristic_step(game: VectorGame, rng: np.random.Generator) -> tuple:
    """(legal mask, actions: random, the heuristic's for active players, group games)."""
    mask = game.legal_mask()
    actions = VectorGame.random_legal(mask, rng)
    mine, which = game.roles()
    actions[mine] = heuristic_actions(game.arrays, mine, mask)
    return mask, actions, which


def test_batched_group_reads_nothing_its_player_cannot_see():
    """Twin games that differ only in the active seat's kept fate, the bag and the deck
    below its top, each with its own copy of the same memory: the same actions."""
    rng = np.random.default_rng(5)
    checked = 0
    for players, card_sets in ((3, "base"), (4, "all")):
        game = VectorGame(32, 21, num_players=players, card_sets=card_sets)
        twin = VectorGame(32, 21, num_players=players, card_sets=card_sets)
        group = BatchedBayes(32, players, game.config.num_seats)
        other = BatchedBayes(32, players, game.config.num_seats)
        for _ in range(120):
            mask, actions, which = _heuristic_step(game, rng)
            if len(which):
                for name in game.arrays.fields():
                    getattr(twin.arrays, name)[...] = getattr(game.arrays, name)
                for name in ("mem_turn", "mem_lik", "cache_key", "cache_val"):
                    getattr(other, name)[...] = getattr(group, name)
                checked += _hide_differently(twin, which, rng)
                fast = group.act(game.arrays, game.cards, which, mask, 0)
                assert np.array_equal(fast, other.act(twin.arrays, twin.cards, which, mask, 0))
                actions[which] = fast
            group.restart(np.flatnonzero(game.step(actions)[2]))
    assert checked > 500  # the twins did differ


def test_an_active_players_decision_is_refused_with_the_games_named():
    game = VectorGame(4, 3, num_players=3)
    with pytest.raises(ValueError, match=r"games \[0, 1, 2, 3\] wait for the active player"):
        BatchedBayes(4, 3, 3).act(game.arrays, game.cards, np.arange(4), game.legal_mask(), 0)


def test_another_model_is_refused():
    class Other(HeuristicPlayer):
        pass

    with pytest.raises(ValueError, match="model Other is not allowed"):
        BatchedBayes(4, 3, 3, BayesGroup(model=Other()))


def test_another_race_value_is_refused_and_gets_no_twin():
    from shipwreck_agents.scripted.bayes import RaceTable
    from shipwreck_agents.scripted.twins import twin_of
    from shipwreck_env.rules.config import GameConfig

    group = BayesGroup(accuracy=0.95, fail_doom=2)
    with pytest.raises(ValueError, match=r"accuracy 0\.95 is not allowed for the batched group"):
        BatchedBayes(4, 3, 3, group)
    assert twin_of(group, 4, GameConfig(num_players=3), "group") is None
    assert twin_of(BayesGroup(), 4, GameConfig(num_players=3), "group") is not None
    measured = BayesGroup(race_table=RaceTable({"hard": np.full((7, 7), 0.5)}, 3, source="t"))
    with pytest.raises(ValueError, match="race table 't' is not allowed for the batched group"):
        BatchedBayes(4, 3, 3, measured)
    assert twin_of(measured, 4, GameConfig(num_players=3), "group") is None


def test_memory_goes_to_a_python_group_and_back_unchanged():
    game = VectorGame(8, 4, num_players=3)
    group = BatchedBayes(8, 3, 3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        mask, actions, which = _heuristic_step(game, rng)
        if len(which):
            actions[which] = group.act(game.arrays, game.cards, which, mask, 0)
        game.step(actions)
    assert (group.mem_turn > -1).any()
    back = BatchedBayes(8, 3, 3)
    for g in range(8):
        policy = BayesGroup()
        group.to_policy(g, policy)
        back.from_policy(g, policy)
    for name in ("mem_turn", "mem_lik", "cache_key", "cache_val"):
        assert np.array_equal(getattr(group, name), getattr(back, name)), name
