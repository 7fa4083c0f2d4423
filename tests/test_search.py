"""Test-time search for a fast-trained team (shipwreck_agents.search)."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_leaks import swapped, twin  # noqa: E402

from shipwreck_agents.registry import make_policy  # noqa: E402
from shipwreck_agents.search import (  # noqa: E402
    SEARCH_PHASES,
    SearchTeamPolicy,
    parse_phases,
    parse_search_spec,
    rollout_values,
    sample_worlds,
)
from shipwreck_env.actions import NUM_ACTIONS  # noqa: E402
from shipwreck_env.config import GameConfig  # noqa: E402
from shipwreck_env.engine import new_game, step_inplace  # noqa: E402
from shipwreck_env.observation import ObservationLayout, encode  # noqa: E402
from shipwreck_env.policy import decide, observation_layouts  # noqa: E402
from shipwreck_env.view import make_view  # noqa: E402

MODEL = str(Path(__file__).resolve().parents[1] / "results/models/fast_selfplay.pth")
LAYOUT = ObservationLayout(3, belief=True)


def _searched_decisions(games: int, seed: int):
    """(policy before the decision, state, view, observation, mask) at every decision the
    search considers, along games the blueprint plays (the copies search every decision)."""
    policy = SearchTeamPolicy(MODEL, samples=4, uncertain=1e-9)  # never searches here
    layouts = observation_layouts(GameConfig(num_players=3))
    out = []
    for game in range(games):
        rng = np.random.default_rng([seed, game])
        s = new_game(GameConfig(num_players=3, difficulty="hard"), rng)
        policy.reset()
        while not s.over:
            view = make_view(s, s.decider)
            if SearchTeamPolicy._phase(view) is not None and len(view.legal) > 1:
                mask = np.zeros(NUM_ACTIONS, np.int8)
                mask[list(view.legal)] = 1
                searcher = copy.deepcopy(policy)
                searcher.uncertain, searcher.phases = 1.0, SEARCH_PHASES
                out.append((searcher, s.copy(), view, encode(s, s.decider, LAYOUT), mask))
            step_inplace(s, decide(policy, s, layouts, rng).action, rng)
    return out


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Small network calls: one thread is faster than two fighting for a loaded machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def decisions():
    return _searched_decisions(games=2, seed=3)


def test_parse_search_spec_reads_its_options_and_refuses_unknown_ones():
    assert parse_search_spec("a.pth") == ("a.pth", {})
    assert parse_search_spec("a.pth,samples=8,margin=0.2,uncertain=0.9") == (
        "a.pth",
        {"samples": 8, "margin": 0.2, "uncertain": 0.9},
    )
    with pytest.raises(ValueError, match="'depth=3' is not known; allowed: samples"):
        parse_search_spec("a.pth,depth=3")
    with pytest.raises(ValueError, match="bad value"):
        parse_search_spec("a.pth,samples=many")
    with pytest.raises(ValueError, match="out of range"):
        parse_search_spec("a.pth,samples=0")


def test_the_phases_searched_are_read_in_a_fixed_order_and_unknown_ones_refused():
    assert parse_search_spec("a.pth,phases=after_play+play") == (
        "a.pth",
        {"phases": ("play", "after_play")},
    )
    assert parse_phases("group+steal+play+after_play") == SEARCH_PHASES
    with pytest.raises(ValueError, match=r"\['reveal'\] not allowed; allowed: play\+group"):
        parse_phases("play+reveal")
    with pytest.raises(ValueError, match="none given"):
        parse_search_spec("a.pth,phases=")


def test_the_search_considers_only_the_phases_it_was_given(decisions):
    """Outside its phases the search plays the blueprint's choice without searching."""
    seen = set()
    for k, (policy, s, view, obs, mask) in enumerate(decisions):
        phase = SearchTeamPolicy._phase(view)
        seen.add(phase)
        other = copy.deepcopy(policy)
        other.phases = tuple(p for p in SEARCH_PHASES if p != phase)
        searched, decisions = other.stats.searched, other.stats.decisions
        other.act(obs, mask, view, np.random.default_rng(k), s)
        assert (other.stats.searched, other.stats.decisions) == (searched, decisions + 1)
    assert {"play", "group", "after_play"} <= seen, seen


def test_the_registry_builds_the_search_team_by_its_spec():
    policy = make_policy(f"search:{MODEL},samples=3")
    assert isinstance(policy, SearchTeamPolicy)
    assert policy.samples == 3 and policy.name == "search:fast_selfplay"
    assert make_policy(f"search:{MODEL},samples=3") is policy  # one object for both roles
    assert make_policy(f"search:{MODEL},samples=4") is not policy


def test_a_game_with_card_sets_the_team_was_not_trained_on_is_refused():
    """The batched engine covers every card set, so what refuses an expansion game here
    is the blueprint's own check: it was trained on the base cards."""
    policy = SearchTeamPolicy(MODEL)
    config = GameConfig(num_players=3, card_sets=("base", "kickstarter"))
    s = new_game(config, np.random.default_rng(0))
    view = make_view(s, s.decider)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[list(view.legal)] = 1
    with pytest.raises(ValueError, match=r"trained with card_sets=\['base'\].*allowed"):
        policy.act(encode(s, s.decider, LAYOUT), mask, view, np.random.default_rng(0))


def test_every_world_shows_the_decider_exactly_what_the_real_game_shows(decisions):
    """A world differs from the real game only in what the decider cannot see: its view
    and its observation in the world are the real ones."""
    compared = 0
    for policy, _, view, obs, _ in decisions:
        belief = policy._kept_belief(view)
        for world in sample_worlds(view, belief, np.random.default_rng(compared), 4):
            assert make_view(world, view.player) == view
            assert np.array_equal(encode(world, view.player, LAYOUT), obs)
            compared += 1
    assert compared >= 40, compared


def test_worlds_vary_the_hidden_fates(decisions):
    """The sampler does not copy one guess: over group decisions the active seat's kept
    fate takes several values."""
    kept = set()
    for policy, _, view, _, _ in decisions:
        if view.phase != "group":
            continue
        for world in sample_worlds(view, policy._kept_belief(view), np.random.default_rng(0), 8):
            kept.add((view.turn, view.player, tuple(world.hands[view.active_seat])))
    per_decision = len(kept) / max(1, len({k[:2] for k in kept}))
    assert per_decision > 1.2, kept


def test_rollout_values_are_win_shares_and_repeat_with_the_seed(decisions):
    _, _, view, _, _ = decisions[0]
    policy = SearchTeamPolicy(MODEL)
    worlds = sample_worlds(view, policy._kept_belief(view), np.random.default_rng(1), 6)
    legal = np.array(view.legal)
    a = rollout_values(worlds, legal, policy.model, seed=5)
    b = rollout_values(worlds, legal, policy.model, seed=5)
    assert a.shape == (len(legal),)
    assert np.array_equal(a, b)
    assert ((a >= 0) & (a <= 1)).all()
    assert np.allclose(a * len(worlds), np.round(a * len(worlds)))


def _twins(s, rng):
    """States the decider cannot tell from ``s``: another hidden fate of each other seat
    holding one, and another order of the face-down deck."""
    out = [twin(s, rng)]
    for seat, hand in enumerate(s.hands):
        if seat % s.config.num_players == s.decider:
            continue
        for index in range(len(hand)):
            for w in range(1, 8):
                if w != hand[index] and (t := swapped(s, seat, index, w)) is not None:
                    out.append(t)
                    break
    return out


def test_the_search_decides_the_same_in_games_that_differ_only_in_hidden_facts(decisions):
    """Leak test: the policy is even handed the real state, and must not read it."""
    checked = 0
    for k, (policy, s, view, obs, mask) in enumerate(decisions[:5]):
        base = copy.deepcopy(policy)
        action = base.act(obs, mask, view, np.random.default_rng(k), s)
        for t in _twins(s, np.random.default_rng(k)):
            twin_view, twin_obs = make_view(t, view.player), encode(t, view.player, LAYOUT)
            assert twin_view == view
            other = copy.deepcopy(policy)
            assert other.act(twin_obs, mask, twin_view, np.random.default_rng(k), t) == action
            assert other.stats.worlds == base.stats.worlds
            checked += 1
    assert checked >= 6, checked


def test_the_rollout_belief_is_the_trainers_policy_conditioned_belief():
    """Differential: along games on the batched engine, the block the rollouts write into
    the group's observations equals the one the trainer writes
    (``shipwreck_training.common.belief.PolicyBelief``)."""
    from shipwreck_agents.search import RolloutBelief
    from shipwreck_training.common.belief import PolicyBelief
    from shipwreck_training.common.config import GameSettings
    from shipwreck_training.common.games import Games

    policy = SearchTeamPolicy(MODEL)
    games = Games(GameSettings(belief="policy", difficulties=("hard",)), 64, seed=3)
    ours, theirs = RolloutBelief(games.parts[0]), PolicyBelief(games)
    written = 0
    for _ in range(60):
        obs, mask = games.observe(), games.legal_mask()
        ours_obs, theirs_obs = obs.copy(), obs.copy()
        ours.fill(ours_obs)
        theirs.fill(theirs_obs, games)
        assert np.array_equal(ours_obs, theirs_obs)
        written += int((ours_obs != obs).any(1).sum())
        actions = policy.model.greedy(torch.from_numpy(ours_obs), torch.from_numpy(mask)).numpy()
        ours.record(ours_obs, mask, actions, policy.model)
        theirs.record(games, theirs_obs, mask, actions, policy.model)
        _, _, _, info = games.step(actions)
        ended = np.flatnonzero(info["_final"])
        theirs.restart(ended)
        ours.turn[ended] = -1
    assert written > 50, written
