"""The policy-conditioned belief (shipwreck_training.common.policy_belief_batched) against a brute-force posterior."""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from shipwreck_agents.learned.actor_critic import ActorCritic  # noqa: E402
from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS  # noqa: E402
from shipwreck_env.rules.observation import encode  # noqa: E402
from shipwreck_env.rules.state import Phase  # noqa: E402
from shipwreck_env.rules.view import make_view  # noqa: E402
from shipwreck_training.common.config import GameSettings  # noqa: E402
from shipwreck_training.common.games import Games  # noqa: E402
from shipwreck_training.common.policy_belief_batched import PolicyBelief, hypothetical_inputs  # noqa: E402

_PASS = next(a.index for a in ACTIONS if a.kind == "pass")
_REVEAL = next(a.index for a in ACTIONS if a.kind == "reveal")


def _setup(seed: int, games: int = 32):
    torch.manual_seed(seed)
    g = Games(GameSettings(difficulties=("normal",)), games, seed)
    model = ActorCritic(g.layout.size, NUM_ACTIONS, (32,))
    return g, model, PolicyBelief(g), np.random.default_rng(seed)


def _public_pool(s) -> list[int]:
    """Copies of each value no one sees publicly, from the reference state."""
    pool = [3 - e - k for e, k in zip(s.exiled, s.bag_known, strict=True)]
    for fates in s.table:
        for v in fates:
            pool[v - 1] -= 1
    return pool


def _brute_force(s, action: int, model, layout, carry=None) -> np.ndarray:
    """Unnormalised weight of each kept value: every ordered hand, its prior from the
    reference state, the policy probability of ``action`` on the reference encoding.
    ``carry`` (float[7]) weighs a carried fate further."""
    seat, player = s.active, s.decider
    pool = _public_pool(s)
    carried = s.old_fate != 0
    played = ACTIONS[action].value
    weight = np.zeros(7)
    torch.set_grad_enabled(False)
    for x in range(1, 8):
        for y in range(1, 8):
            prior = max(pool[x - 1], 0) * max(pool[y - 1] - (x == y), 0)
            if carried:
                prior *= s.lines[seat] >> (x - 1) & 1
                prior *= 1.0 if carry is None else carry[x - 1]
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


class BruteMemory:
    """The carried belief (kind ``policy_carry``) computed from the reference state, by
    brute force: per seat, the weights of the fate it kept (the likelihood of its play
    over the copies unknown once that play was public), used on its next turn."""

    def __init__(self) -> None:
        self.kept: dict[int, tuple[int, np.ndarray]] = {}  # seat -> (turn, weights)
        self.used = 0  # first plays whose carried fate started from memory

    def weights(self, s, action: int, model, layout) -> np.ndarray:
        """:func:`_brute_force` of the first play ``action`` in state ``s`` (just
        before it), with the seat's memory; then remember this turn's kept fate."""
        seat = s.active
        turn, memory = self.kept.get(seat, (-1, None))
        carry = memory if turn == s.turn - s.config.num_seats else None
        self.used += carry is not None and s.old_fate != 0
        weight = _brute_force(s, action, model, layout, carry)
        after = np.array(_public_pool(s), float)
        after[ACTIONS[action].value - 1] -= 1
        kept = np.where(after > 0, weight / np.where(after > 0, after, 1), 0.0)
        self.kept[seat] = (s.turn, kept / kept.sum() if kept.sum() > 0 else np.ones(7))
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


def _carrying(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random legal actions that keep fates held: the group mostly passes, nobody
    reveals a held fate unless forced to."""
    mask = mask.copy()
    mask[:, _REVEAL] &= mask.sum(1) == 1
    actions = _random_legal(mask, rng)
    passing = mask[:, _PASS] & (rng.random(len(mask)) < 0.8)
    return np.where(passing, _PASS, actions)


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


def _walk(g, model, belief, rng, steps: int, choose, on_first, on_end=None):
    """Step the games ``steps`` times with ``choose(mask, rng)``, the belief recording;
    yields ``(state, block)`` for every group block the belief writes, calls
    ``on_first(game, state, action)`` just before each first play and ``on_end(game)``
    when a game ends."""
    part = g.parts[0]
    for _ in range(steps):
        obs, mask = g.observe(), g.legal_mask()
        for game, p in zip(*belief.posterior(g), strict=True):
            yield int(game), part.to_states([int(game)])[0], p
        actions = choose(mask, rng)
        belief.fill(obs, g)
        belief.record(g, obs, mask, actions, model)
        first = np.flatnonzero(
            (g.field("phase") == Phase.PLAY) & (g.field("plays_len") == 0) & (actions < 35)
        )
        for game in first:
            on_first(int(game), part.to_states([int(game)])[0], int(actions[game]))
        _, _, _, info = g.step(actions)
        ended = np.flatnonzero(info["_final"])
        belief.restart(ended)
        for game in ended if on_end else ():
            on_end(int(game))


def _posterior(weights: np.ndarray, s) -> np.ndarray:
    """``weights`` restricted to the active seat's number line now, normalised."""
    line = weights * [(s.lines[s.active] >> v) & 1 for v in range(7)]
    return line / line.sum()


def test_belief_equals_brute_force_posterior_and_keeps_the_true_fate():
    g, model, belief, rng = _setup(2, games=12)
    layout = g.parts[0].layout
    pending: dict[int, np.ndarray] = {}  # game -> brute-force weights of its turn's play
    carried = [0]

    def on_first(game: int, s, action: int) -> None:
        carried[0] += s.old_fate != 0
        pending[game] = _brute_force(s, action, model, layout)

    compared = 0
    for game, s, p in _walk(g, model, belief, rng, 40, _random_legal, on_first):
        np.testing.assert_allclose(p, _posterior(pending[game], s), rtol=1e-4, atol=1e-6)
        assert p[s.hands[s.active][0] - 1] > 0  # the true kept fate is never ruled out
        compared += 1
    assert compared > 10 and carried[0] > 2


def test_carried_belief_equals_brute_force_with_memory():
    """Kind ``policy_carry``: along many random games, every group block equals the
    brute-force posterior whose carried fates start from the seat's memory; the memory
    changes the block on some turns (the test would not see a belief without it)."""
    g, model, _, rng = _setup(4, games=6)
    with torch.no_grad():  # a sharper policy than at initialisation: hands matter
        for p in model.parameters():
            p.mul_(3.0)
    belief, layout = PolicyBelief(g, carry=True), g.parts[0].layout
    memories = [BruteMemory() for _ in range(g.num_games)]
    pending: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # game -> (with, without memory)
    used = [0]

    def on_first(game: int, s, action: int) -> None:
        with_memory = memories[game].weights(s, action, model, layout)
        pending[game] = (with_memory, _brute_force(s, action, model, layout))

    def on_end(game: int) -> None:
        used[0] += memories[game].used
        memories[game] = BruteMemory()

    compared = differs = 0
    for game, s, p in _walk(g, model, belief, rng, 150, _carrying, on_first, on_end):
        with_memory, without = (_posterior(w, s) for w in pending[game])
        np.testing.assert_allclose(p, with_memory, rtol=1e-4, atol=1e-6)
        assert p[s.hands[s.active][0] - 1] > 0  # the true kept fate is never ruled out
        differs += not np.allclose(p, without, rtol=1e-3, atol=1e-4)
        compared += 1
    used = used[0] + sum(m.used for m in memories)
    assert compared > 50 and used > 15 and differs > 10, (compared, used, differs)


def test_carried_belief_state_round_trips_and_refuses_the_other_kind():
    g, model, belief, rng = _setup(5, games=16)
    carried = PolicyBelief(g, carry=True)
    for _ in range(30):
        obs, mask = g.observe(), g.legal_mask()
        actions = _random_legal(mask, rng)
        carried.record(g, obs, mask, actions, model)
        g.step(actions)
    state = carried.state_dict()
    again = PolicyBelief(g, carry=True)
    again.load_state_dict(state)
    for key, value in again.state_dict().items():
        np.testing.assert_array_equal(value, state[key])
    assert (state["memory_turn"] >= 0).any()
    with pytest.raises(ValueError, match="policy_carry"):
        again.load_state_dict(belief.state_dict())
    with pytest.raises(ValueError, match="'policy'"):
        belief.load_state_dict(state)


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
