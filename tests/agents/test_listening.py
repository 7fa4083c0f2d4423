"""Tests of listening (agents/search/listening.py): how the leader ended a player's own
turn, the replays of that turn with a model leader, and type inference's evidence from
it (``TypeGroup(listen=True)``, spec ``types:listen``)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from twins import swapped

from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.evaluation.crossplay import MixedTable
from shipwreck_agents.registry import make_policy, make_team
from shipwreck_agents.scripted.bayes import BayesGroup
from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_agents.search.listening import (
    ENDINGS,
    PlayedTurn,
    ending_likelihood,
    leader_holdings,
    outcome_seen,
    replay_leader,
)
from shipwreck_agents.search.type_inference import (
    SCRIPTED_TYPES,
    TypeGroup,
    make_leader,
    make_reader,
)
from shipwreck_env.envs.policy import Team, decide, let_watch, observation_layouts
from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS, PASS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.view import make_view

CONFIG = GameConfig(num_players=3, difficulty="normal")


def _act(policy, s: State, rng=None) -> int:
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[legal_actions(s)] = 1
    view = make_view(s, s.decider)
    return policy.act(None, mask, view, rng or np.random.default_rng(0), state=s)


def _turns(partner: Team, games: int, seed: int):
    """Seat 0 (a heuristic player) plays its turns among ``partner``'s players: for each
    of seat 0's turns that ended, ``(state at its first decision, its record, the view
    seat 0 has at the next turn's start)``."""
    rng = np.random.default_rng(seed)
    me = Team(HeuristicPlayer(), BayesGroup())
    for _ in range(games):
        table = MixedTable([me, partner, partner])
        table.reset()
        s = new_game(CONFIG, rng)
        start = played = None
        while not s.over:
            if s.active_player == 0 and s.decider == 0:
                view = make_view(s, 0)
                if played is None or played.start.turn != s.turn:
                    start = s.copy()
                    played = PlayedTurn(
                        view, ConventionPolicy.hand_key(view), view.carried_into_turn, [], s.score
                    )
            action = decide(table, s, observation_layouts(CONFIG), rng).action
            if played is not None and s.decider == 0 and s.turn == played.start.turn:
                played.actions[:] = [*s.turn_actions, action]
                played.score = s.score
            turn = s.turn
            step_inplace(s, action, rng)
            if played is not None and turn == played.start.turn and s.turn != turn and not s.over:
                yield start, played, make_view(s, 0)
                played = None


def _real_ending(start: State, played: PlayedTurn, held: int, leader) -> str | None:
    """The brute force: the real game at the turn's start with the leader's fate made
    ``held`` (its own one back in the bag; ``None`` if no copy is left there), the
    player's actions played on the real engine, then a fresh ``leader`` deciding for
    the group until the turn ends."""
    s = start.copy()
    reader = played.start.leader % CONFIG.num_players
    if held:
        for v in s.hands[reader]:
            s.bag[v - 1] += 1
        if s.bag[held - 1] <= 0:
            return None
        s.bag[held - 1] -= 1
        s.hands[reader] = [held]
    rng = np.random.default_rng(1)
    for action in played.actions:
        step_inplace(s, action, rng)
    leader.reset()
    guessed = False
    while not s.over and s.turn == start.turn:
        if s.decider != reader:
            step_inplace(s, PASS, rng)
            continue
        action = decide(leader, s, observation_layouts(CONFIG), rng).action
        if ACTIONS[action].kind == "predict":
            if ACTIONS[action].value == s.kept_eff:
                return "right"
            guessed = True
        elif action == PASS and s.phase in (Phase.GROUP, Phase.VOTE):
            break
        step_inplace(s, action, rng)
    return "wrong" if guessed else "pass"


@pytest.mark.parametrize("type_name", ["heuristic", "convention", "fast"])
def test_each_replay_ends_the_turn_as_the_real_game_would(type_name):
    """For every fate the leader may hold (that the real game has a copy of), the
    replay from the player's own view of its turn ends it as the real game does with
    the leader holding that fate and the type's team's group deciding (another
    construction: the real state, its deck and the other players' real fates), on the
    turns that carried nothing in (the ones type inference listens to)."""
    leader = make_leader(type_name)
    checked = 0
    partner = make_team("heuristic+bayes")
    for start, played, _ in _turns(partner, games=20, seed=7):
        if played.carried:
            continue
        for held, _ in leader_holdings(played.start):
            expected = _real_ending(start, played, held, copy.deepcopy(leader))
            got = replay_leader(played, held, leader)
            if expected is None or got is None:
                continue
            assert got == expected, (start.turn, held)
            checked += 1
    assert checked > 40


def test_the_ending_s_likelihood_weighs_the_leader_s_fates_by_the_copies_unseen():
    """``ending_likelihood`` is the weight (copies the player cannot place, on the
    leader's number line) of the fates whose replay ends as seen, over all of them,
    mixed with epsilon of a uniform ending; the three endings' likelihoods sum to 1."""
    leader = make_reader("heuristic", epsilon=0.0)
    checked = 0
    for _, played, _ in _turns(make_team("heuristic+bayes"), games=8, seed=2):
        holdings = leader_holdings(played.start)
        start = played.start
        reader = start.leader % CONFIG.num_players
        if start.holding[reader] == 1:
            line = start.lines[reader]
            allowed = [v for v in range(1, 8) if line >> (v - 1) & 1 and start.unseen[v - 1]]
            assert holdings == [(v, float(start.unseen[v - 1])) for v in allowed]
        endings = [replay_leader(played, held, leader) for held, _ in holdings]
        if None in endings:
            continue
        total = sum(w for _, w in holdings)
        likelihoods = [ending_likelihood(played, seen, leader, 0.1) for seen in ENDINGS]
        for seen, got in zip(ENDINGS, likelihoods, strict=True):
            share = sum(w for (_, w), e in zip(holdings, endings, strict=True) if e == seen)
            assert got == pytest.approx(0.9 * share / total + 0.1 / 3)
        assert sum(likelihoods) == pytest.approx(1.0)
        checked += 1
    assert checked > 20


@pytest.mark.parametrize(
    ("partner", "type_name"),
    [("heuristic+bayes", "heuristic"), ("convention", "convention"), ("fast:best", "fast")],
)
def test_a_leader_of_the_type_is_never_out_of_its_type_s_endings(partner, type_name):
    """Among a type's own team, on turns that carry nothing in (the real leader's memory
    of earlier turns then plays no part), the ending the player sees is always one the
    type's leader gives for some fate it may hold: with no noise mixed into the endings,
    its likelihood is never 0."""
    leader = make_leader(type_name)
    checked = 0
    for _, played, later in _turns(make_team(partner), games=14, seed=4):
        seen = outcome_seen(played, later)
        if played.carried or seen is None:
            continue
        likelihood = ending_likelihood(played, seen, leader, 0.0)
        if likelihood is not None:
            assert likelihood > 0, (played.start.turn, seen)
            checked += 1
    assert checked > 20


def test_listening_moves_the_belief_about_the_reader_toward_its_type():
    """One type-inference player (not watching, so its only evidence on its reader is
    how that reader ended its turns) among convention players: with listening, the
    evidence of three games pooled puts most of the belief about the reader on the
    convention; without, there is none."""
    for listen in (True, False):
        group = TypeGroup(types=SCRIPTED_TYPES, watch=False, listen=listen)
        convention = make_team("convention")
        evidence = np.zeros(len(SCRIPTED_TYPES))
        rng = np.random.default_rng(12)
        for _ in range(3):
            table = MixedTable([Team(group, group), convention, convention])
            table.reset()
            s = new_game(CONFIG, rng)
            while not s.over:
                step_inplace(s, _act(table.policy_for(make_view(s, s.decider)), s, rng), rng)
                let_watch(table, s)
            evidence += group.log_evidence(0, 1)
        if listen:
            pooled = np.exp(evidence - evidence.max())
            assert pooled[SCRIPTED_TYPES.index("convention")] / pooled.sum() > 0.9, pooled
        else:
            assert not evidence.any()


def _hidden_from(s: State, player: int) -> list[State]:
    """Every twin of ``s`` that changes one fate ``player`` cannot see."""
    hidden = [
        (seat, i) for seat in range(len(s.hands)) if s.owner(seat) != player
        for i in range(len(s.hands[seat]))
    ]  # fmt: skip
    twins = (swapped(s, seat, i, w) for seat, i in hidden for w in range(1, 8))
    return [t for t in twins if t is not None]


def test_a_listening_player_reads_no_hidden_fate():
    """Twin states that differ only in a fate player 0 cannot see, its memory copied: a
    listening type-inference player decides the same where it decides, and keeps the
    same evidence where it only looks at the table (where it mostly listens)."""
    group = make_policy("types:uniform,heuristic,convention,listen")
    assert group.listening
    partner = make_team("heuristic+bayes")
    table = MixedTable([Team(group, group), partner, partner])
    rng = np.random.default_rng(9)
    decided = looked = 0
    for _ in range(3):
        table.reset()
        s = new_game(CONFIG, rng)
        while not s.over:
            if s.decider == 0:
                reference = _act(copy.deepcopy(group), s)
                for t in _hidden_from(s, 0)[::2]:
                    assert _act(copy.deepcopy(group), t) == reference, (s.turn, s.phase)
                    decided += 1
            else:
                probe = copy.deepcopy(group)
                probe.watch(make_view(s, 0))
                for t in _hidden_from(s, 0)[::3]:
                    twin = copy.deepcopy(group)
                    twin.watch(make_view(t, 0))
                    assert twin._evidence.keys() == probe._evidence.keys()
                    for key, value in probe._evidence.items():
                        assert np.array_equal(twin._evidence[key], value), (s.turn, key)
                    looked += 1
            step_inplace(s, _act(table.policy_for(make_view(s, s.decider)), s, rng), rng)
            let_watch(table, s)
    assert decided > 15 and looked > 40, (decided, looked)
