"""The action scorer (agents/learned/action_scorer.py) and the team that plays it on the
reference engine (agents/learned/scorer_team.py)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from twins import decider_twins, twin  # noqa: E402

from shipwreck_agents.learned.action_scorer import (  # noqa: E402
    ActionScorer,
    compact,
    load_scorer,
    save_scorer,
)
from shipwreck_agents.learned.actor_critic import MASKED  # noqa: E402
from shipwreck_agents.learned.scorer_team import ScorerTeamPolicy  # noqa: E402
from shipwreck_env.envs.policy import decide, observation_layouts  # noqa: E402
from shipwreck_env.rules.action_features import NUM_FEATURES, action_features  # noqa: E402
from shipwreck_env.rules.actions import NUM_ACTIONS  # noqa: E402
from shipwreck_env.rules.config import GameConfig  # noqa: E402
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace  # noqa: E402
from shipwreck_env.rules.observation import encode  # noqa: E402


def _model(obs_dim: int, seed: int = 0) -> ActionScorer:
    torch.manual_seed(seed)
    model = ActionScorer(obs_dim, NUM_ACTIONS, NUM_FEATURES, (32, 32), 16)
    with torch.no_grad():
        model.score.weight.mul_(300.0)
    return model.eval()


def _states(config: GameConfig, games: int, seed: int):
    """Every decision of random games: (state, observation, mask)."""
    rng = np.random.default_rng(seed)
    layout = observation_layouts(config)[True]
    for _ in range(games):
        s = new_game(config, rng)
        while not s.over:
            legal = legal_actions(s)
            mask = np.zeros(NUM_ACTIONS, bool)
            mask[legal] = True
            yield s.copy(), encode(s, s.decider, layout), mask
            step_inplace(s, int(rng.choice(legal)), rng)


def test_compact_keeps_each_legal_action_with_its_row_in_order():
    rng = np.random.default_rng(0)
    mask = rng.random((50, NUM_ACTIONS)) < 0.03
    mask[0] = False  # a row with no legal action
    block = rng.random((50, NUM_ACTIONS, NUM_FEATURES)).astype(np.float32)
    ids, rows, valid = compact(mask, block)
    assert ids.shape[1] == mask.sum(1).max()
    for i in range(50):
        legal = np.flatnonzero(mask[i])
        assert np.array_equal(ids[i][valid[i]], legal)
        assert np.array_equal(rows[i][valid[i]], block[i, legal])
        assert not rows[i][~valid[i]].any()
    with pytest.raises(ValueError, match="more than the width 2"):
        compact(mask, block, 2)


def test_dense_logits_are_the_compact_ones_and_mask_the_illegal():
    model = _model(40)
    rng = np.random.default_rng(1)
    obs = torch.from_numpy(rng.random((20, 40)).astype(np.float32))
    mask = rng.random((20, NUM_ACTIONS)) < 0.05
    mask[:, 3] = True
    block = rng.random((20, NUM_ACTIONS, NUM_FEATURES)).astype(np.float32)
    dense = model.logits(obs, torch.from_numpy(mask), torch.from_numpy(block)).detach().numpy()
    ids, rows, valid = compact(mask, block)
    rowwise = (
        model.logits_rows(obs, *(torch.from_numpy(x) for x in (ids, rows, valid))).detach().numpy()
    )
    for i in range(20):
        assert np.allclose(dense[i][ids[i][valid[i]]], rowwise[i][valid[i]], atol=1e-6)
        assert (dense[i][~mask[i]] == MASKED).all()
    greedy = model.greedy_rows(obs, *(torch.from_numpy(x) for x in (ids, rows, valid)))
    assert np.array_equal(greedy.numpy(), dense.argmax(1))


def test_a_saved_scorer_loads_the_same_and_a_wrong_file_is_refused(tmp_path):
    model = _model(40, seed=2)
    save_scorer(model, tmp_path / "m.pth")
    again = load_scorer(tmp_path / "m.pth")
    for (k, a), (j, b) in zip(model.state_dict().items(), again.state_dict().items(), strict=True):
        assert k == j and torch.equal(a, b)
    with pytest.raises(ValueError, match="does not exist"):
        load_scorer(tmp_path / "missing.pth")
    torch.save({"weights": 1}, tmp_path / "other.pth")
    with pytest.raises(ValueError, match="not an action scorer"):
        load_scorer(tmp_path / "other.pth")
    (tmp_path / "text.pth").write_text("not a network")
    with pytest.raises(ValueError, match="not an action scorer"):
        load_scorer(tmp_path / "text.pth")


@pytest.fixture
def policy(tmp_path) -> ScorerTeamPolicy:
    config = GameConfig(num_players=3)
    size = observation_layouts(config)[True].size
    save_scorer(_model(size, seed=4), tmp_path / "p.pth")
    return ScorerTeamPolicy(str(tmp_path / "p.pth"))


def test_the_team_plays_the_highest_scored_legal_action(policy):
    config = GameConfig(num_players=3, difficulty="hard")
    layouts = observation_layouts(config)
    rng = np.random.default_rng(0)
    n = 0
    for s, obs, mask in _states(config, 30, seed=3):
        n += 1
        logits = policy.logits(obs, mask, s)
        assert (logits[~mask] == MASKED).all()
        chosen = decide(policy, s, layouts, rng).action
        assert chosen == int(np.argmax(logits)) and mask[chosen]
    assert n > 100


def test_the_team_reads_no_hidden_fate(policy):
    """Twin games (one fate the decider cannot see changed) give the same logits."""
    config = GameConfig(num_players=3, difficulty="normal")
    layout = observation_layouts(config)[True]
    checked = 0
    for n, (s, obs, mask) in enumerate(_states(config, 30, seed=7)):
        if n % 4:
            continue
        base = policy.logits(obs, mask, s)
        for t in decider_twins(s)[::3]:
            twin_obs = encode(t, t.decider, layout)
            assert np.array_equal(twin_obs, obs)
            assert np.array_equal(policy.logits(twin_obs, mask, t), base)
            assert np.array_equal(action_features(t, t.decider), action_features(s, s.decider))
            checked += 1
    assert checked > 50


def test_the_team_refuses_to_be_asked_without_the_state(policy):
    s = new_game(GameConfig(num_players=3), np.random.default_rng(0))
    layout = observation_layouts(s.config)[True]
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[legal_actions(s)] = 1
    from shipwreck_env.rules.view import make_view

    with pytest.raises(ValueError, match="needs the observation and the state"):
        policy.act(encode(s, s.decider, layout), mask, make_view(s, s.decider), None)


def _first_plays(config: GameConfig, games: int, seed: int):
    """(state, action) at the first play of turns of random games."""
    from shipwreck_agents.learned.scorer_team import is_first_play

    for s, _, mask in _states(config, games, seed):
        plays = [a for a in np.flatnonzero(mask) if is_first_play(s, int(a))]
        if plays:
            yield s, int(plays[len(plays) // 2])


def test_the_play_likelihood_is_a_brute_force_over_hands(policy):
    """Each hand the active seat might hold, put into the game and asked of the team as
    it plays (its dense logits), weighted by the copies the player cannot place."""
    from shipwreck_agents.learned.policy_belief import PLAY_VALUE
    from shipwreck_agents.learned.scorer_team import play_likelihood
    from shipwreck_env.rules.view import make_view

    config = GameConfig(num_players=3, difficulty="normal")
    layout = observation_layouts(config)[True]
    checked = 0
    for s, action in list(_first_plays(config, 12, seed=11))[::2]:
        got = play_likelihood(policy.model, s, action, layout)
        view = make_view(s, s.decider)
        pool = np.array(view.unseen) + np.bincount(np.array(s.hands[s.active]) - 1, minlength=7)
        carried = s.old_fate != 0
        v = int(PLAY_VALUE[action])
        want = np.zeros(7)
        for x, y in [(v, k) for k in range(1, 8)] + [(k, v) for k in range(1, 8) if k != v]:
            weight = pool[x - 1] * (pool[y - 1] - (x == y))
            if carried:
                weight *= (view.turn_start.lines[s.active] >> (x - 1)) & 1
            if weight <= 0:
                continue
            t = s.copy()
            t.hands[t.active] = [x, y]
            t.old_fate = x if carried else 0
            legal = legal_actions(t)
            if action not in legal:
                continue
            mask = np.zeros(NUM_ACTIONS, bool)
            mask[legal] = True
            logits = policy.logits(encode(t, t.decider, layout), mask, t).astype(np.float64)
            p = np.exp(logits - logits.max())
            want[(y if x == v else x) - 1] += weight * p[action] / p.sum()
        assert np.allclose(got, want, rtol=1e-5, atol=1e-12)
        checked += int(want.sum() > 0)
    assert checked >= 20


def test_the_play_likelihood_reads_no_hidden_fate(policy):
    from shipwreck_agents.learned.scorer_team import play_likelihood

    config = GameConfig(num_players=3, difficulty="normal")
    layout = observation_layouts(config)[True]
    checked = 0
    rng = np.random.default_rng(0)
    for s, action in list(_first_plays(config, 30, seed=12))[::2]:
        base = play_likelihood(policy.model, s, action, layout)
        assert base.sum() > 0
        # another seat's fate changed, or the deck below its top shuffled
        for t in [*decider_twins(s)[::2], twin(s, rng)]:
            assert np.array_equal(play_likelihood(policy.model, t, action, layout), base)
            checked += 1
    assert checked > 20


def test_the_play_table_refuses_the_scorer_naming_why(tmp_path):
    """It is handed the state (for its features), so a table with a person refuses it."""
    import json

    from shipwreck_apps.play.table import Table

    config = GameConfig(num_players=3)
    save_scorer(_model(observation_layouts(config)[True].size), tmp_path / "s.pth")
    (tmp_path / "s.meta.json").write_text(json.dumps({"network": "action_scorer"}))
    with pytest.raises(ValueError, match="action scorer"):
        Table(config, [0], f"fast:{tmp_path / 's.pth'}", seed=1)


def test_the_team_refuses_an_observation_of_another_size_naming_both(policy):
    s = new_game(GameConfig(num_players=3), np.random.default_rng(0))
    obs = encode(s, s.decider, observation_layouts(s.config)[True])
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[legal_actions(s)] = 1
    from shipwreck_env.rules.view import make_view

    with pytest.raises(ValueError, match=f"size {obs.size}, got {obs.size - 1}: evaluate"):
        policy.act(obs[:-1], mask, make_view(s, s.decider), None, state=s)
