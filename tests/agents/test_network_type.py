"""Tests of a learned network as a type of the type-inference library
(``NetworkReader``, type ``fast`` in agents/search/type_inference.py)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from twins import decider_twins

from shipwreck_agents.evaluation.crossplay import MixedTable
from shipwreck_agents.learned.policy_belief import chosen_probabilities
from shipwreck_agents.registry import make_team
from shipwreck_agents.search.type_inference import (
    DEFAULT_TYPES,
    SCRIPTED_TYPES,
    TypeGroup,
    make_reader,
)
from shipwreck_env.envs.policy import Team, decide, let_watch, observation_layouts
from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.observation import encode
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.view import make_view

CONFIG = GameConfig(num_players=3, difficulty="normal")


def _games(table, config: GameConfig, games: int, seed: int, also=()):
    """(state before each decision, the state's decision) over ``games`` games of
    ``table``, which watches as the evaluator lets it (and so do the policies ``also``)."""
    layouts = observation_layouts(config)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        table.reset()
        s = new_game(config, rng)
        while not s.over:
            before = s.copy()
            action = decide(table, s, layouts, rng).action
            yield before, action
            step_inplace(s, action, rng)
            for who in (table, *also):
                let_watch(who, s)


def _pool(s: State, reader: int) -> np.ndarray:
    """Copies of each value ``reader`` cannot place in ``s``: not exiled, not on the
    table, not in its own hands."""
    pool = np.array([3 - e for e in s.exiled], float)
    for fates in s.table:
        for v in fates:
            pool[v - 1] -= 1
    for seat in range(len(s.hands)):
        if s.owner(seat) == reader:
            for v in s.hands[seat]:
                pool[v - 1] -= 1
    return pool


def _brute_force(before: State, action: int, reader: int, model, layout) -> np.ndarray:
    """P(kept fate) for ``reader`` after the active player of ``before`` (a fresh turn:
    nothing carried, nothing done yet) made the first play ``action``, under the network
    as the only type: over every hand the reader cannot rule out, P(hand) from the
    copies it cannot place times the network's probability of the play, which the
    learned team's own belief gives (the real observation with its hand fields
    rewritten: another path than the reader's, which encodes each replayed state)."""
    pool = _pool(before, reader)
    total = pool.sum()
    played = ACTIONS[action].value
    obs = encode(before, before.active_player, layout)[None]
    out = np.zeros(7)
    for kept in range(1, 8):
        p_hand = pool[played - 1] * (pool[kept - 1] - (kept == played)) / (total * (total - 1))
        if p_hand <= 0:
            continue
        p_hand *= 1 if kept == played else 2
        hyp = before.copy()
        hyp.hands[hyp.active] = [played, kept]
        mask = np.zeros((1, NUM_ACTIONS), bool)
        mask[0, legal_actions(hyp)] = True
        if not mask[0, action]:  # this hand could not have made the play
            continue
        with torch.no_grad():
            p_play = chosen_probabilities(
                model, obs, layout, np.array([0]), np.array([played]), np.array([kept]), mask,
                np.array([action]),
            )[0]  # fmt: skip
        out[kept - 1] = p_hand * p_play
    after = before.copy()
    step_inplace(after, action, np.random.default_rng(0))
    line = np.array([(after.lines[after.active] >> v) & 1 for v in range(7)], float)
    out *= line
    return out / out.sum()


def test_the_network_type_reads_a_first_play_as_a_brute_force_over_hands():
    """At the leader's decision after a turn's first play (a fresh hand, nothing else
    done), a library of the network alone with no uniform play mixed in gives the
    posterior of a brute force over the hands (see :func:`_brute_force`), to float
    rounding, in games of the learned team itself."""
    fast = make_team("fast:best")
    reader_group = TypeGroup(types=("fast",), epsilon=0.0)
    model = make_reader("fast").network
    layout = observation_layouts(CONFIG)[True]
    checked = 0
    for before, action in _games(fast, CONFIG, games=4, seed=5):
        fresh = before.phase == Phase.PLAY and not before.turn_actions
        carried = make_view(before, before.decider).carried_into_turn
        if not fresh or carried or ACTIONS[action].kind != "play":
            continue
        s = before.copy()
        step_inplace(s, action, np.random.default_rng(0))
        if s.phase != Phase.GROUP or len(s.hands[s.active]) != 1:
            continue
        view = make_view(s, s.decider)
        reader_group.reset()
        got = reader_group.posterior(view)
        expected = _brute_force(before, action, s.decider, model, layout)
        assert np.allclose(got, expected, atol=1e-6), (s.turn, got, expected)
        checked += 1
    assert checked >= 10


def test_a_network_reader_finds_its_own_network_at_the_table():
    """A type-inference player with the network in its library, beside two players of
    the learned team, ends its games with most of its belief about its reader (whose
    turns it watches) on the network type."""
    group = TypeGroup()
    fast = make_team("fast:best")
    table = MixedTable([Team(group, group), fast, fast])
    found = 0
    for game in range(3):
        for _ in _games(table, CONFIG, games=1, seed=40 + game):
            pass
        found += int(np.argmax(group.type_posterior(0, 1)) == DEFAULT_TYPES.index("fast"))
    assert found >= 2


def test_the_network_type_reads_no_hidden_fate():
    """Twin states that differ only in a fate the decider cannot see, the group's memory
    copied: the same decision from a library with the network in it, as player and as
    group."""
    group = TypeGroup(types=("heuristic", "fast"))
    fast = make_team("fast:best")

    def act(policy, s: State) -> int:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[legal_actions(s)] = 1
        return policy.act(None, mask, make_view(s, s.decider), np.random.default_rng(0), state=s)

    checked = 0
    table = MixedTable([Team(group, group), fast, fast])
    for before, _ in _games(table, CONFIG, games=2, seed=8):
        if before.decider != 0 or before.turn > 12:
            continue
        reference = act(copy.deepcopy(group), before)
        for t in decider_twins(before)[::5]:
            assert act(copy.deepcopy(group), t) == reference, (before.turn, before.phase)
            checked += 1
    assert checked > 20


@pytest.mark.parametrize(
    "config",
    [GameConfig(num_players=4), GameConfig(num_players=3, card_sets="all")],
    ids=["4p", "3p-all-sets"],
)
def test_in_a_game_the_network_was_not_trained_for_the_type_has_no_say(config):
    """The shipped network plays 3-player base games: elsewhere a library with it
    decides exactly as the library without it, at every decision."""
    with_it = TypeGroup()
    assert not make_reader("fast").supports(config)
    assert make_reader("fast").supports(CONFIG)
    played = [
        [a for _, a in _games(group, config, games=2, seed=3)]
        for group in (with_it, TypeGroup(types=SCRIPTED_TYPES))
    ]
    assert played[0] == played[1]
    assert len(played[0]) > 50


def test_a_library_of_only_a_network_that_cannot_play_the_game_is_refused():
    group = TypeGroup(types=("fast",))
    s = new_game(GameConfig(num_players=4), np.random.default_rng(0))
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[legal_actions(s)] = 1
    with pytest.raises(ValueError, match="cannot play this game"):
        group.act(None, mask, make_view(s, s.decider), np.random.default_rng(0))
