"""Test-time search for a fast-trained team (shipwreck_agents.search.sparta)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_fast_team import (  # noqa: E402
    sparrows_before_play,
    with_after_play_powers,
    with_sparrows,
)
from twins import swapped, twin  # noqa: E402

from shipwreck_agents.registry import make_policy  # noqa: E402
from shipwreck_agents.search.options import (  # noqa: E402
    SEARCH_PHASES,
    parse_phases,
    parse_search_spec,
)
from shipwreck_agents.search.sparta import SearchTeamPolicy, rollout_values  # noqa: E402
from shipwreck_agents.search.worlds import sample_worlds  # noqa: E402
from shipwreck_env.envs.policy import decide, observation_layouts  # noqa: E402
from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS  # noqa: E402
from shipwreck_env.rules.config import GameConfig  # noqa: E402
from shipwreck_env.rules.engine import new_game, step_inplace  # noqa: E402
from shipwreck_env.rules.observation import ObservationLayout, encode  # noqa: E402
from shipwreck_env.rules.state import Phase  # noqa: E402
from shipwreck_env.rules.view import make_view  # noqa: E402

MODEL = str(Path(__file__).resolve().parents[2] / "results/models/fast_selfplay.pth")
CARRY = str(
    Path(__file__).resolve().parents[2] / "results/models/fast_selfplay_imitation_carry.pth"
)
MODELS = {"policy": MODEL, "policy_carry": CARRY}
LAYOUT = ObservationLayout(3, belief=True)


def _searched_decisions(games: int, seed: int, model: str = MODEL):
    """(policy before the decision, state, view, observation, mask) at every decision the
    search considers, along games the blueprint plays (the copies search every decision)."""
    policy = SearchTeamPolicy(model, samples=4, uncertain=1e-9)  # never searches here
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


@pytest.fixture(scope="module", params=["policy", "policy_carry"])
def kind_decisions(request):
    """The searched decisions of a blueprint of each policy belief kind."""
    return _searched_decisions(games=2, seed=3, model=MODELS[request.param])


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
    with pytest.raises(ValueError, match="samples=0 is not allowed; allowed: samples=N"):
        parse_search_spec("a.pth,samples=0")
    with pytest.raises(ValueError, match=r"uncertain=1\.5 is not allowed"):
        parse_search_spec("a.pth,uncertain=1.5")
    assert parse_search_spec("a.pth,confirm=16") == ("a.pth", {"confirm": 16})
    with pytest.raises(ValueError, match="confirm=-1 is not allowed; allowed: samples=N"):
        parse_search_spec("a.pth,confirm=-1")


@pytest.mark.parametrize(
    "setting, shown",
    [
        ({"samples": 0}, "samples=0"),
        ({"samples": 2.5}, "samples=2.5"),
        ({"margin": -0.1}, "margin=-0.1"),
        ({"margin": float("nan")}, "margin=nan"),
        ({"uncertain": 0.0}, "uncertain=0.0"),
        ({"uncertain": 1.01}, "uncertain=1.01"),
        ({"confirm": -4}, "confirm=-4"),
        ({"confirm": 0.5}, "confirm=0.5"),
    ],
)
def test_the_constructor_refuses_settings_out_of_range_before_loading(tmp_path, setting, shown):
    """Built directly (not from a ``search:`` spec) the policy checks its settings too,
    before it looks for the model."""
    with pytest.raises(
        ValueError, match=re.escape(f"search {shown} is not allowed; allowed: samples=N")
    ):
        SearchTeamPolicy(str(tmp_path / "none.pth"), **setting)


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


@pytest.mark.parametrize("second, changed", [(0.0, False), (0.4, True)])
def test_a_change_must_also_win_on_the_confirming_sample(decisions, monkeypatch, second, changed):
    """With ``confirm``, an action that beat the blueprint's choice by the margin on the
    first sample is rolled out again beside that choice on fresh worlds, and played only
    if it still wins by the margin over both samples together (here 0.3 ahead on 4
    worlds, then ``second`` ahead on 4 more: 0.15 or 0.35 pooled, margin 0.2)."""
    import shipwreck_agents.search.sparta as search

    policy, s, view, obs, mask = next(d for d in decisions if len(np.flatnonzero(d[4])) >= 2)
    searcher = copy.deepcopy(policy)
    searcher.margin, searcher.confirm = 0.2, 4
    legal = np.flatnonzero(mask)
    blueprint = copy.deepcopy(policy)
    blueprint.uncertain = 1e-9  # plays the blueprint's choice
    own = blueprint.act(obs, mask, view, np.random.default_rng(0), s)
    other = int(next(a for a in legal if a != own))
    calls = []

    def fake(worlds, actions, *args, **kwargs):
        calls.append(np.asarray(actions).tolist())
        values = np.full(len(actions), 0.5)
        ahead = 0.3 if len(calls) == 1 else second
        values[list(actions).index(other)] += ahead
        return values

    monkeypatch.setattr(search, "rollout_values", fake)
    action = searcher.act(obs, mask, view, np.random.default_rng(0), s)
    assert calls[0] == legal.tolist() and calls[1] == sorted([own, other])
    assert action == (other if changed else own)
    assert searcher.stats.confirmed == 1 and searcher.stats.changed == int(changed)


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


def test_the_search_decides_the_same_in_games_that_differ_only_in_hidden_facts(kind_decisions):
    """Leak test: the policy is even handed the real state, and must not read it (for a
    blueprint of each belief kind: the carried memory is the team's own, public)."""
    checked = 0
    for k, (policy, s, view, obs, mask) in enumerate(kind_decisions[:5]):
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


def _reference_blocks(policies, vg, obs, mask, actions, rng):
    """Per game of ``vg``: (the belief block :class:`FastTeamPolicy` writes at this
    decision on the reference engine (None where it writes none), whether Sparrows was
    used this turn), after which it records the turn's first play ``actions[g]`` when
    there is one (its own memory)."""
    out = []
    for g, state in enumerate(vg.to_states()):
        if state.over:
            out.append((None, False))
            continue
        view = make_view(state, state.decider)
        reference_obs = encode(state, state.decider, LAYOUT)
        assert np.array_equal(reference_obs, obs[g])  # the two engines show the same
        policy = policies[g]
        if view.decider != view.active_player:
            policy.act(reference_obs, mask[g], view, rng)
            out.append((policy.last_belief, sparrows_before_play(view)))
        else:
            legal = mask[g].astype(bool)
            policy.remember_play(reference_obs, legal, view, int(actions[g]))
            policy.remember_after_play(reference_obs, legal, view, int(actions[g]))
            out.append((None, False))
    return out


_PASS = next(a.index for a in ACTIONS if a.kind == "pass")


@pytest.mark.parametrize(
    ("kind", "after_play"),
    [("policy", False), ("policy_carry", False), ("policy", True), ("policy_carry", True)],
)
def test_the_rollout_belief_is_the_reference_teams_belief_along_random_games(kind, after_play):
    """Differential: along random trajectories on the batched engine, the block
    :class:`RolloutBelief` writes into every observation equals the one the reference
    team (:class:`FastTeamPolicy` on the reference engine's state of the same game)
    writes, for both policy belief kinds, with and without the after-play factor;
    halfway through, the rollout belief is started again from each reference team's
    memory (:meth:`RolloutBelief.load`, as a search does at its decision) and must go on
    agreeing. Every active player who may use Sparrows does, so some blocks follow a
    table changed before the play."""
    from shipwreck_agents.learned.fast_team import FastTeamPolicy
    from shipwreck_agents.search.sparta import RolloutBelief
    from shipwreck_env.vector import VectorGame

    vg = VectorGame(32, 4, belief=True, autoreset=False, num_players=3, difficulty="normal")
    policies = [FastTeamPolicy(MODELS[kind], after_play=after_play) for _ in range(vg.num_games)]
    assert policies[0].belief_kind == kind
    belief = RolloutBelief(vg, kind, after_play)
    rng = np.random.default_rng(4)
    written = carried = after_sparrows = multiplied = compared_after = 0
    for step in range(400):
        if vg.arrays.over.all():
            break
        if step == 60:  # hand over from each reference team's memory
            belief = RolloutBelief(vg, kind, after_play)
            for g, policy in enumerate(policies):
                current = (policy._likelihood, policy._turn) if policy._turn >= 0 else None
                belief.load(np.array([g]), current, policy._memory, policy._play)
        obs, mask = vg.observe().copy(), np.array(vg.legal_mask())
        ours = obs.copy()
        belief.fill(ours)
        # the blueprint's choice mostly (games last long enough to carry), else at random
        greedy = policies[0].model.greedy(torch.from_numpy(ours), torch.from_numpy(mask))
        actions = np.array(
            [
                rng.choice(np.flatnonzero(m)) if m.any() and rng.random() < 0.3 else a
                for m, a in zip(mask, greedy.numpy(), strict=True)
            ]
        )
        actions = with_sparrows(mask, actions, rng)
        if after_play:
            actions = with_after_play_powers(mask, actions, rng)
        # the group passes half the time it may: more seats carry their fate to a turn
        passes = (vg.arrays.phase == Phase.GROUP) & mask[:, _PASS]
        actions = np.where(passes & (rng.random(len(actions)) < 0.5), _PASS, actions)
        reference = _reference_blocks(policies, vg, obs, mask, actions, rng)
        for g, (block, sparrows) in enumerate(reference):
            got = ours[g, belief.offset : belief.offset + 7]
            if block is None:
                assert np.array_equal(got, obs[g, belief.offset : belief.offset + 7]), g
            else:
                # equal up to float rounding: one network call per game against one per batch
                np.testing.assert_allclose(got, block, rtol=1e-4, atol=1e-6, err_msg=str(g))
                written += 1
                after_sparrows += sparrows
        a = vg.arrays
        seat = a.active.astype(np.int64)
        first = (a.phase == Phase.PLAY) & (a.plays_len == 0) & ~a.over.astype(bool)
        kept_on = belief.memory_turn[np.arange(vg.num_games), seat]
        last = (kept_on >= 0) & (kept_on == a.turn - 3)  # -1: no memory kept
        carried += int((first & last & (mask[:, : belief.memory.shape[2]].any(1))).sum())
        after = (a.phase == Phase.AFTER_PLAY) & (belief.turn == a.turn) & ~a.over.astype(bool)
        after &= a.hand_len[np.arange(vg.num_games), seat] == 1
        multiplied += int(after.sum())
        belief.record(ours, mask, actions, policies[0].model)
        if kind == "policy_carry":  # the memory just multiplied is the reference team's
            for g in np.flatnonzero(after):
                turn, weights = policies[g]._memory[int(seat[g])]
                assert belief.memory_turn[g, seat[g]] == turn
                np.testing.assert_allclose(belief.memory[g, seat[g]], weights, rtol=1e-4)
                compared_after += 1
        vg.step(actions)
    assert written > 80 and after_sparrows >= 5, (written, after_sparrows)
    assert multiplied >= 15, multiplied  # after-play choices the factor is asked of
    assert (carried > 20) == (kind == "policy_carry"), carried  # next turns read memory
    # the memory of every seat at an after-play choice (rewritten by it with the factor)
    assert (compared_after >= 10) == (kind == "policy_carry"), compared_after


def test_a_changed_first_play_leaves_the_memory_the_blueprint_keeps_for_that_play():
    """When the search makes another first decision of the turn, the team's belief is
    the blueprint's for the action taken: the likelihood of the play made (none if it
    was a power) and, for carried memory, the memory that play keeps, computed from the
    seat's memory before the decision (not from what the blueprint's own choice had
    just written)."""
    compared = 0
    for k, (policy, _, view, obs, mask) in enumerate(
        _searched_decisions(games=3, seed=5, model=CARRY)
    ):
        if SearchTeamPolicy._phase(view) != "play":
            continue
        searcher = copy.deepcopy(policy)
        searcher.margin = -1.0  # always play the rollouts' best, even the blueprint's own
        action = searcher.act(obs, mask, view, np.random.default_rng(k))
        if not searcher.stats.changed:
            continue
        reference = copy.deepcopy(policy)
        reference.remember_play(np.asarray(obs, np.float32), mask.astype(bool), view, action)
        assert searcher._turn == reference._turn  # not this turn if it made no play
        np.testing.assert_array_equal(searcher._likelihood, reference._likelihood)
        assert searcher._memory.keys() == reference._memory.keys()
        for seat, (turn, weights) in reference._memory.items():
            assert searcher._memory[seat][0] == turn
            np.testing.assert_array_equal(searcher._memory[seat][1], weights)
        compared += view.turn >= view.config.num_seats  # a seat with memory to carry
    assert compared >= 3, compared


def test_a_searched_after_play_choice_starts_from_and_leaves_the_blueprints_belief(monkeypatch):
    """With the after-play factor, the rollouts of an after-play decision start from the
    belief the team held before it (not from one that already multiplied in the
    blueprint's own choice), and when the search plays another choice the team's
    likelihood, per-hand terms and memory are the blueprint's for the choice made."""
    from shipwreck_agents.learned.fast_team import FastTeamPolicy
    from shipwreck_agents.search import sparta as search

    real, seen = search.rollout_values, []

    def spy(worlds, actions, model, seed, memory=None, *args, **kwargs):
        seen.append((memory, kwargs["play"], kwargs["after_play"]))
        return real(worlds, actions, model, seed, memory, *args, **kwargs)

    monkeypatch.setattr(search, "rollout_values", spy)
    compared = other = 0
    for k, (policy, _, view, obs, mask) in enumerate(
        _searched_decisions(games=6, seed=6, model=CARRY)
    ):
        if SearchTeamPolicy._phase(view) != "after_play" or policy._turn != view.turn:
            continue
        policy.after_play = True
        searcher = copy.deepcopy(policy)
        searcher.margin = -1.0  # always play the rollouts' best, even the blueprint's own
        seen.clear()
        action = searcher.act(obs, mask, view, np.random.default_rng(k))
        memory, play, after_play = seen[0]
        assert after_play and memory[1] == policy._turn
        np.testing.assert_array_equal(memory[0], policy._likelihood)
        np.testing.assert_array_equal(play[2], policy._play[2])
        reference = copy.deepcopy(policy)
        legal = mask.astype(bool)
        reference.remember_after_play(np.asarray(obs, np.float32), legal, view, action)
        np.testing.assert_array_equal(searcher._likelihood, reference._likelihood)
        np.testing.assert_array_equal(searcher._play[2], reference._play[2])
        seat = view.active_seat
        np.testing.assert_array_equal(searcher._memory[seat][1], reference._memory[seat][1])
        blueprint = copy.deepcopy(policy)
        other += action != FastTeamPolicy.act(blueprint, obs, mask, view, None)
        compared += 1
    assert compared >= 4 and other >= 2, (compared, other)


def test_a_literal_blueprints_rollouts_keep_the_engines_block_and_unknown_kinds_are_refused():
    from shipwreck_agents.search.sparta import RolloutBelief
    from shipwreck_env.vector import VectorGame

    vg = VectorGame(8, 2, belief=True, autoreset=False, num_players=3, difficulty="hard")
    model = SearchTeamPolicy(MODEL).model
    literal, policy = RolloutBelief(vg, "literal"), RolloutBelief(vg, "policy")
    differs = 0
    for _ in range(40):
        obs, mask = vg.observe().copy(), np.array(vg.legal_mask())
        ours, theirs = obs.copy(), obs.copy()
        literal.fill(ours)
        policy.fill(theirs)
        assert np.array_equal(ours, obs)
        differs += int((theirs != obs).any(1).sum())
        actions = model.greedy(torch.from_numpy(theirs), torch.from_numpy(mask)).numpy()
        literal.record(ours, mask, actions, model)
        policy.record(theirs, mask, actions, model)
        vg.step(actions)
    assert differs > 0 and (literal.turn == -1).all()
    with pytest.raises(ValueError, match=r"'bayes' is not known; allowed: \['literal', 'policy'"):
        RolloutBelief(vg, "bayes")
    with pytest.raises(ValueError, match=r"after_play needs a policy belief, not 'literal'"):
        RolloutBelief(vg, "literal", after_play=True)
