"""Tests of the ``self`` type of type inference (agents/search/type_inference.py): a
library type that plays as a type-inference player does, so a reader can invert the
team's own signals; and of the readings it shares between hands."""

from __future__ import annotations

import copy

import pytest
from helpers import act_at, decision_states
from twins import decider_twins

from shipwreck_agents.registry import make_policy
from shipwreck_agents.search import type_inference
from shipwreck_agents.search.type_inference import (
    DEFAULT_TYPES,
    SelfModel,
    TypeGroup,
    TypeReader,
    make_reader,
)
from shipwreck_env.envs.policy import Policy, Team
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.scenario import hypothetical_turn_start
from shipwreck_env.rules.state import Phase
from shipwreck_env.rules.view import make_view


def _forget() -> None:
    """Empty the readings type-inference players share, so a call computes its own."""
    type_inference._READINGS.clear()
    type_inference._READINGS_TURN[0] = None


class _Uncached(Policy):
    """The brute force of :class:`SelfModel`: a fresh type-inference player of the
    default library for every decision, nothing shared between hands or calls."""

    name = "uncached-self"

    def act(self, observation, mask, view, rng, state=None) -> int:
        _forget()
        inner = TypeGroup(types=DEFAULT_TYPES)
        inner._meet(view.config)
        action = inner.model.act(observation, mask, view, rng)
        if view.phase == "play" and not view.turn_actions:
            action = inner._signal(view, action)
        _forget()
        return action


def test_a_play_looks_the_same_to_its_reader_whatever_hand_made_it():
    """What the readings are kept under: for every first play of some turns and every
    hand that could make it, the reader's view after the play (built as the player
    builds it) is the same view."""
    config = GameConfig(num_players=3, difficulty="normal")
    player = make_policy("heuristic")
    checked = 0
    for s in decision_states(config, Team(player, make_policy("bayes")), games=3, seed=4):
        if s.phase != Phase.PLAY or s.turn_actions or s.decider != s.active_player:
            continue
        view = make_view(s, s.decider)
        reader = view.leader if view.leader != view.player else view.player + 1
        reader %= config.num_players
        for action in view.legal:
            spec = ACTIONS[action]
            if spec.kind != "play":
                continue
            seen = []
            for other in range(1, 8):
                hand = (spec.value, other)
                try:
                    start = hypothetical_turn_start(view, list(hand), view.carried_into_turn)
                except ValueError:
                    continue  # not enough copies for this hand
                if view.carried_into_turn:
                    continue  # the carried fate is the player's own: one hand to try
                hypothetical = make_view(start, start.active_player)
                seen.append(type_inference._view_after(hypothetical, hand, action, reader))
            seen = [v for v in seen if v is not None]
            assert all(v == seen[0] for v in seen[1:])
            checked += len(seen)
    assert checked > 50


def test_the_self_reader_s_joint_is_the_brute_force_s():
    """At group decisions after a first play, the ``self`` reader (its choices kept per
    turn, the readings shared between hands) gives the joint of a reader whose model is
    a fresh type-inference player for every hand, nothing kept (to 1e-12)."""
    config = GameConfig(num_players=3, difficulty="hard")
    team = make_policy("heuristic")
    checked = 0
    for s in decision_states(config, Team(team, make_policy("bayes")), games=3, seed=8):
        if s.decider == s.active_player or s.phase != Phase.GROUP:
            continue
        if len(s.turn_actions) != 1 or ACTIONS[s.turn_actions[0]].kind != "play":
            continue
        view = make_view(s, s.decider)
        _forget()
        fast = make_reader("self").joint(view)
        slow = TypeReader("self", _Uncached(), 0.05).joint(view)
        assert fast == pytest.approx(slow, abs=1e-12), (s.turn, fast, slow)
        assert fast.sum() > 0
        checked += 1
        if checked == 6:
            break
    assert checked == 6


def test_a_library_with_itself_does_not_depend_on_hidden_fates():
    """Twin states that differ only in fates the decider cannot see, the player's memory
    copied and the shared readings emptied before each: the same decision."""
    config = GameConfig(num_players=3, difficulty="normal")
    types = TypeGroup(types=("heuristic", "convention", "self"))
    checked = 0
    for s in decision_states(config, Team(types, types), games=2, seed=12):
        _forget()
        before = act_at(copy.deepcopy(types), s, state=s)
        for t in decider_twins(s):
            _forget()
            assert act_at(copy.deepcopy(types), t, state=t) == before, (s.turn, s.phase)
            checked += 1
    assert checked > 30


def test_the_spec_adds_the_self_type_and_unknown_types_name_it():
    group = make_policy("types:heuristic,convention,self")
    assert group.types == ("heuristic", "convention", "self")
    assert isinstance(group.readers[2].model, SelfModel)
    assert "fast" not in group.types and "fast" in group.readers[2].model.inner.types
    with pytest.raises(ValueError, match="allowed: uniform, heuristic, convention, fast, self"):
        make_reader("psychic")
