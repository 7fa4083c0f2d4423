"""The policy-conditioned belief (shipwreck_training.common.belief) against a brute-force posterior."""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from shipwreck_agents.actor_critic import ActorCritic  # noqa: E402
from shipwreck_env.actions import ACTIONS, NUM_ACTIONS  # noqa: E402
from shipwreck_env.observation import encode  # noqa: E402
from shipwreck_env.state import Phase  # noqa: E402
from shipwreck_env.view import make_view  # noqa: E402
from shipwreck_training.common.belief import PolicyBelief, hypothetical_inputs  # noqa: E402
from shipwreck_training.common.config import GameSettings  # noqa: E402
from shipwreck_training.common.games import Games  # noqa: E402


def _setup(seed: int, games: int = 32):
    torch.manual_seed(seed)
    g = Games(GameSettings(difficulties=("normal",)), games, seed)
    model = ActorCritic(g.layout.size, NUM_ACTIONS, (32,))
    return g, model, PolicyBelief(g), np.random.default_rng(seed)


def _brute_force(s, action: int, model, layout) -> np.ndarray:
    """Unnormalised weight of each kept value: every ordered hand, its prior from the
    reference state, the policy probability of ``action`` on the reference encoding."""
    seat, player = s.active, s.decider
    pool = [3 - e - k for e, k in zip(s.exiled, s.bag_known, strict=True)]
    for fates in s.table:
        for v in fates:
            pool[v - 1] -= 1
    carried = s.old_fate != 0
    played = ACTIONS[action].value
    weight = np.zeros(7)
    torch.set_grad_enabled(False)
    for x in range(1, 8):
        for y in range(1, 8):
            prior = max(pool[x - 1], 0) * max(pool[y - 1] - (x == y), 0)
            if carried:
                prior *= s.lines[seat] >> (x - 1) & 1
            if prior == 0 or played not in (x, y):
                continue  # a hand without the played fate cannot make the play
            h = copy.deepcopy(s)
            h.hands[seat] = [x, y]
            h.old_fate = x if carried else 0
            legal = make_view(h, player).legal
            if action not in legal:
                continue
            mask = np.zeros(NUM_ACTIONS, bool)
            mask[list(legal)] = True
            obs = torch.from_numpy(encode(h, player, layout))[None]
            probs = torch.softmax(model.logits(obs, torch.from_numpy(mask)[None]), -1)[0]
            kept = y if x == played else x
            weight[kept - 1] += prior * float(probs[action])
    torch.set_grad_enabled(True)
    return weight


def _possible_hands(s) -> list[tuple[int, int]]:
    """Ordered hands the active seat may hold, as far as copies go."""
    pool = [3 - e - k for e, k in zip(s.exiled, s.bag_known, strict=True)]
    for fates in s.table:
        for v in fates:
            pool[v - 1] -= 1
    return [
        (x, y)
        for x in range(1, 8)
        for y in range(1, 8)
        if pool[x - 1] > 0 and pool[y - 1] - (x == y) > 0
    ]


def _random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(1)


def test_hypothetical_inputs_equal_the_reference_encoding_of_that_hand():
    g, _, _, rng = _setup(1, games=16)
    part = g.parts[0]
    checked = 0
    for _ in range(20):
        obs, mask = g.observe(), g.legal_mask()
        playing = np.flatnonzero((g.field("phase") == Phase.PLAY) & (g.field("plays_len") == 0))
        for game in playing[:3]:
            s = part.to_states([int(game)])[0]
            for x, y in _possible_hands(s)[::7]:
                ob, ma = hypothetical_inputs(
                    part, np.array([game]), obs[[game]], mask[[game]], np.array([x]), np.array([y])
                )
                h = copy.deepcopy(s)
                h.hands[s.active] = [x, y]
                h.old_fate = x if s.old_fate else 0
                np.testing.assert_array_equal(ob[0], encode(h, s.decider, part.layout))
                assert sorted(np.flatnonzero(ma[0]).tolist()) == sorted(
                    make_view(h, s.decider).legal
                )
                checked += 1
        g.step(_random_legal(mask, rng))
    assert checked > 20


def test_belief_equals_brute_force_posterior_and_keeps_the_true_fate():
    g, model, belief, rng = _setup(2, games=12)
    part = g.parts[0]
    pending: dict[int, np.ndarray] = {}  # game -> brute-force weights of its turn's play
    compared = carried = 0
    for _ in range(40):
        obs, mask = g.observe(), g.legal_mask()
        games_with, post = belief.posterior(g)
        for game, p in zip(games_with, post, strict=True):
            s = part.to_states([int(game)])[0]
            line = s.lines[s.active]
            weights = pending[int(game)] * [(line >> v) & 1 for v in range(7)]
            np.testing.assert_allclose(p, weights / weights.sum(), rtol=1e-4, atol=1e-6)
            assert p[s.hands[s.active][0] - 1] > 0  # the true kept fate is never ruled out
            compared += 1
        actions = _random_legal(mask, rng)
        belief.fill(obs, g)
        belief.record(g, obs, mask, actions, model)
        first = np.flatnonzero(
            (g.field("phase") == Phase.PLAY) & (g.field("plays_len") == 0) & (actions < 35)
        )
        for game in first:
            s = part.to_states([int(game)])[0]
            carried += s.old_fate != 0
            pending[int(game)] = _brute_force(s, int(actions[game]), model, part.layout)
        _, _, _, info = g.step(actions)
        belief.restart(np.flatnonzero(info["_final"]))
    assert compared > 10 and carried > 2


def test_fill_writes_the_posterior_only_into_group_decisions():
    g, model, belief, rng = _setup(3)
    offset = g.layout.offsets["belief"]
    for _ in range(20):
        obs, mask = g.observe(), g.legal_mask()
        literal = obs.copy()
        belief.fill(obs, g)
        changed = np.flatnonzero((obs != literal).any(1))
        assert (obs[:, :offset] == literal[:, :offset]).all()
        active = g.field("active") % g.num_players
        assert (g.field("decider")[changed] != active[changed]).all()
        np.testing.assert_allclose(obs[changed, offset : offset + 7].sum(1), 1.0, rtol=1e-5)
        actions = _random_legal(mask, rng)
        belief.record(g, obs, mask, actions, model)
        _, _, _, info = g.step(actions)
        belief.restart(np.flatnonzero(info["_final"]))
