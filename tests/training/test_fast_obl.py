"""Off-Belief Learning (training/fast/obl.py): the fictitious targets against a
brute-force computation on the reference engine, and the trainer's use of them."""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from shipwreck_agents.learned.actor_critic import ActorCritic, export_sb3  # noqa: E402
from shipwreck_agents.learned.policy_belief import PLAY_VALUE  # noqa: E402
from shipwreck_env.rules import engine  # noqa: E402
from shipwreck_env.rules.actions import NUM_ACTIONS  # noqa: E402
from shipwreck_env.rules.observation import encode  # noqa: E402
from shipwreck_env.rules.rewards import team_reward  # noqa: E402
from shipwreck_env.rules.state import Phase  # noqa: E402
from shipwreck_training.common.config import GameSettings  # noqa: E402
from shipwreck_training.common.games import Games  # noqa: E402
from shipwreck_training.fast.config import from_dict  # noqa: E402
from shipwreck_training.fast.obl import OBL, UniformPlay, fictitious_arrays  # noqa: E402
from shipwreck_training.fast.ppo import Trainer  # noqa: E402

GAMMA = 0.9


# --- brute force, on reference states ------------------------------------------------


def _pool(s) -> list[int]:
    """Copies of each value no one sees publicly (every held fate and the bag's
    unknown copies)."""
    pool = [3 - e - k for e, k in zip(s.exiled, s.bag_known, strict=True)]
    for slot in s.table:
        for v in slot:
            pool[v - 1] -= 1
    return pool


def _with_hand(s, seat: int, x: int, y: int, carried: bool):
    h = copy.deepcopy(s)
    h.hands[seat] = [x, y]
    h.old_fate = x if carried else 0
    return h


def _grounding_likelihood(s_play, action: int, policy) -> np.ndarray:
    """float[7]: Σ over every ordered hand the active seat may hold, keeping each
    value, of prior(hand) · policy(action | hand), the policy given the legal actions of
    that hand as the reference engine lists them."""
    seat, carried = s_play.active, s_play.old_fate != 0
    pool, v = _pool(s_play), int(PLAY_VALUE[action])
    lik = np.zeros(7)
    for x in range(1, 8):
        for y in range(1, 8):
            if v not in (x, y):
                continue
            prior = pool[x - 1] * (pool[y - 1] - (x == y))
            if carried:
                prior *= (s_play.lines[seat] >> (x - 1)) & 1
            if prior <= 0:
                continue
            legal = engine.legal_actions(_with_hand(s_play, seat, x, y, carried))
            if action in legal:
                kept = y if x == v else x
                lik[kept - 1] += prior * policy(legal, action)
    return lik


def _uniform(legal: list[int], action: int) -> float:
    return 1.0 / len(legal)


def _swapped(s, k: int, num_players: int):
    """The state with the active seat's kept fate ``k`` (None: no copy to swap in)."""
    f = copy.deepcopy(s)
    seat, real = f.active, f.hands[f.active][0]
    if k != real:
        if f.bag[k - 1] - f.bag_known[k - 1] > 0:
            f.bag[k - 1] -= 1
            f.bag[real - 1] += 1
        else:
            for q in range(len(f.hands)):
                if q == seat or q % num_players == f.decider or k not in f.hands[q]:
                    continue
                f.hands[q][f.hands[q].index(k)] = real
                break
            else:
                return None
        f.hands[seat][0] = k
        shadow = 1 if f.shadows else 0
        f.old_fate = k if f.old_fate else 0
        f.kept_eff = k + shadow if f.kept_eff else 0
        f.fall_kept = k + shadow if f.fall_kept else 0
    return f


def _brute_q(part, local: int, s_play, action_play: int, action: int, model, layout):
    """(belief float[7], Q) of the group decision ``action`` in game ``local``."""
    s = part.to_states([local])[0]
    seat = s.active
    lik = _grounding_likelihood(s_play, action_play, _uniform)
    line = np.array([(s.lines[seat] >> i) & 1 for i in range(7)], float)
    belief = lik * line
    belief /= belief.sum()
    total = q = 0.0
    for k in range(1, 8):
        if belief[k - 1] <= 0:
            continue
        f = _swapped(s, k, s.config.num_players)
        if f is None:
            continue
        after = engine.step(f, action, part.stream(local))
        reward = team_reward(part.reward_kind, after, f.score, f.doom)
        value = 0.0
        if not after.over:
            obs = encode(after, engine.current_player(after), layout)
            with torch.no_grad():
                value = float(model.value(torch.from_numpy(obs[None]))[0])
        total += belief[k - 1]
        q += belief[k - 1] * (reward + GAMMA * value)
    return belief, q / total


# --- the batched computation, stepped with random legal actions ----------------------


def _games(seed: int) -> Games:
    env = GameSettings(
        num_players=3, difficulties=("normal", "hard"), reward="score_doom", belief="literal"
    )
    return Games(env, 24, seed)


def _first_plays(games: Games, actions: np.ndarray) -> np.ndarray:
    phase, decider = games.field("phase"), games.field("decider").astype(np.int64)
    active = games.field("active").astype(np.int64) % games.num_players
    return np.flatnonzero(
        (phase == Phase.PLAY)
        & (decider == active)
        & (games.field("plays_len") == 0)
        & (PLAY_VALUE[actions] > 0)
        & ~games.field("over")
    )


def _random_step(games: Games, rng: np.random.Generator) -> tuple:
    """(observations, masks, one uniformly random legal action per game)."""
    obs, mask = games.observe(), games.legal_mask()
    return obs, mask, games.parts[0].random_legal(mask, rng)


def _compare(seed: int, steps: int, model) -> int:
    """Step random games; at every covered group decision compare the batched belief
    and target with the brute force. Returns the number of decisions compared."""
    games = _games(seed)
    obl = OBL(games, UniformPlay(), GAMMA)
    rng = np.random.default_rng(seed)
    plays: dict[int, tuple] = {}
    compared = 0
    for _ in range(steps):
        obs, mask, actions = _random_step(games, rng)
        rows, belief = obl.weights(games)
        got_rows, q = obl.targets(games, actions, torch_model := model)
        np.testing.assert_array_equal(got_rows, rows)  # every swap has k = real at least
        for i, g in enumerate(rows):
            k, local = divmod(int(g), games.per_part)
            s_play, a_play = plays[int(g)]
            want_b, want_q = _brute_q(
                games.parts[k], local, s_play, a_play, int(actions[g]), torch_model, games.layout
            )
            np.testing.assert_allclose(belief[i], want_b, rtol=1e-6, atol=1e-9)
            assert q[i] == pytest.approx(want_q, rel=1e-5, abs=1e-5), (g, actions[g])
            compared += 1
        for g in _first_plays(games, actions):
            k, local = divmod(int(g), games.per_part)
            plays[int(g)] = (games.parts[k].to_states([local])[0], int(actions[g]))
        obl.record(games, obs, mask, actions)
        _, _, _, info = games.step(actions)
        ended = np.flatnonzero(info["_final"])
        obl.restart(ended)
        for g in ended:
            plays.pop(int(g), None)
    return compared


def _model(games_layout_size: int, seed: int) -> ActorCritic:
    torch.manual_seed(seed)
    model = ActorCritic(games_layout_size, NUM_ACTIONS, (32, 32))
    with torch.no_grad():  # values far from 0, so a wrong next state shows
        model.value_net.bias.fill_(0.7)
        for p in model.mlp_extractor.value_net.parameters():
            p.mul_(3.0)
    return model


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_fictitious_targets_equal_the_brute_force_over_every_hand(seed):
    """At every covered group decision of random games, the batched belief under the
    uniform grounding policy equals the enumeration of every hand the active seat could
    hold (reference engine's legal actions, public pool prior, number lines), and the
    target equals the belief-weighted reward plus discounted value of the fictitious
    next state stepped by the reference engine with the kept fate swapped."""
    model = _model(_games(0).layout.size, seed)
    assert _compare(seed, 120, model) >= 150


@pytest.mark.slow
def test_the_real_kept_fate_reproduces_the_real_step():
    """The fictitious world of the real kept fate is the real game: same reward, same
    next observation, and the real game is not changed by the fictitious steps."""
    games = _games(5)
    obl = OBL(games, UniformPlay(), GAMMA)
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(80):
        obs, mask, actions = _random_step(games, rng)
        rows, _ = obl.weights(games)
        before = games.state_dict()
        part = games.parts[0]
        local = rows[rows < games.per_part]
        if len(local):
            seat = part.arrays.active[local].astype(np.int64)
            real = part.arrays.hands[local, seat, 0].astype(np.int64)
            arrays, ok = fictitious_arrays(part.arrays, local, real, games.num_players)
            assert ok.all()
            step = OBL.step(part, arrays, actions[local], _model(games.layout.size, 0))
            reward_f = step[0]
        obl.targets(games, actions, _model(games.layout.size, 0))
        after = games.state_dict()
        for x, y in zip(before, after, strict=True):
            for name in x:
                np.testing.assert_array_equal(x[name], y[name], err_msg=name)
        obl.record(games, obs, mask, actions)
        reward, _, _, _ = games.step(actions)
        if len(local):
            np.testing.assert_allclose(reward_f, reward[local])
            checked += len(local)
    assert checked > 20


def test_a_swap_takes_an_unknown_bag_copy_and_keeps_the_fate_counts():
    """Swapping in a kept fate keeps every value's count over hands, bag, table and
    exile (the real kept fate goes where the copy was)."""
    games = _games(3)
    obl = OBL(games, UniformPlay(), GAMMA)
    rng = np.random.default_rng(3)
    swapped = 0
    for _ in range(60):
        obs, mask, actions = _random_step(games, rng)
        part = games.parts[0]
        rows, _ = obl.weights(games)
        local = rows[rows < games.per_part]
        for k in range(1, 8):
            if not len(local):
                break
            arrays, ok = fictitious_arrays(part.arrays, local, np.full(len(local), k), 3)

            def counts(a, rows):
                c = a.bag[rows].astype(int) + a.exiled[rows] + a.tcount[rows].sum(1)
                for i, r in enumerate(rows):
                    for q in range(a.hands.shape[1]):
                        for v in a.hands[r, q, : a.hand_len[r, q]]:
                            c[i, v - 1] += 1
                return c

            np.testing.assert_array_equal(
                counts(arrays, np.arange(len(local))), counts(part.arrays, local)
            )
            seat = arrays.active.astype(np.int64)
            kept = arrays.hands[np.arange(len(local)), seat, 0]
            assert (kept[ok] == k).all()
            swapped += int(ok.sum())
        obl.record(games, obs, mask, actions)
        obl.restart(np.flatnonzero(games.step(actions)[3]["_final"]))
    assert swapped > 50


def _config(**extra) -> dict:
    return {
        "name": "test",
        "num_games": 64,
        "rollout_steps": 16,
        "torch_threads": 1,
        "env": {"belief": "literal", "difficulties": ["normal", "hard"]},
        "ppo": {"hidden": [32, 32], "minibatch_size": 256, "epochs": 1},
        **extra,
    }


def test_the_trainer_replaces_group_targets_by_the_fictitious_ones(monkeypatch):
    """With obl.grounding set, the update's advantages and value targets at the covered
    group decisions are Q - V and Q, and elsewhere the real GAE ones."""
    import shipwreck_training.fast.ppo as ppo

    trainer = Trainer(from_dict(_config(obl={"grounding": "uniform"})))
    r = trainer.collect()
    assert r.obl_on.any() and not r.obl_on.all()
    seen = {}
    real = ppo.advantages

    def spy(rollout, gamma, lam):
        adv, target = real(rollout, gamma, lam)
        seen["gae"] = (adv.clone(), target.clone())
        return adv, target

    monkeypatch.setattr(ppo, "advantages", spy)
    used = {}
    original = trainer._loss

    def loss(batch, signal=None):
        used.setdefault("target", []).append(batch["target"])
        return original(batch, signal)

    monkeypatch.setattr(trainer, "_loss", loss)
    trainer.update(r)
    _, target = seen["gae"]
    want = torch.where(r.obl_on, r.obl_q, target).flatten().sort().values
    got = torch.cat(used["target"]).sort().values
    torch.testing.assert_close(got, want)
    assert not torch.allclose(want, target.flatten().sort().values)


def test_obl_is_refused_with_the_policy_belief_a_bad_spec_and_a_missing_network():
    """The config refuses the policy belief and a spec that is not a network; a run
    whose grounding network is missing stops when it starts."""
    with pytest.raises(ValueError, match=r"obl\.grounding 'uniform' is not allowed"):
        from_dict({**_config(obl={"grounding": "uniform"}), "env": {"belief": "policy"}})
    with pytest.raises(ValueError, match=r"obl\.grounding 'convention' is not allowed"):
        from_dict(_config(obl={"grounding": "convention"}))
    cfg = from_dict(_config(obl={"grounding": "nope.pth"}))  # may be made by an earlier run
    with pytest.raises(ValueError, match=r"'nope\.pth' is not allowed; allowed: .* existing"):
        Trainer(cfg)


def test_a_level_two_run_grounds_in_a_frozen_exported_network(tmp_path):
    """A run grounded in an exported network uses that network's play policy, frozen:
    its likelihoods do not move while the trained network learns."""
    model = _model(_games(0).layout.size, 3)
    path = tmp_path / "level1.pth"
    export_sb3(model, path)
    trainer = Trainer(from_dict(_config(obl={"grounding": str(path)})))
    grounding = trainer.obl.grounding
    before = [p.clone() for p in grounding.parameters()]
    trainer.update(trainer.collect())
    assert all(torch.equal(a, b) for a, b in zip(before, grounding.parameters(), strict=True))
    assert trainer.collect().obl_on.any()


def test_a_run_with_obl_resumes_exactly():
    """The grounding belief's memory is in the checkpoint: a run loaded from one
    collects the same rollout."""
    cfg = from_dict(_config(obl={"grounding": "uniform"}))
    a = Trainer(cfg)
    a.update(a.collect())
    state = copy.deepcopy(a.state_dict())
    want = a.collect()
    b = Trainer(cfg)
    b.load_state_dict(state)
    got = b.collect()
    torch.testing.assert_close(got.obl_q, want.obl_q)
    assert torch.equal(got.obl_on, want.obl_on)


def test_an_obl_model_names_its_grounding_in_its_meta_and_plain_runs_do_not():
    from shipwreck_training.fast.run import meta

    obl = meta(from_dict(_config(obl={"grounding": "uniform"})), "ppo:x.pth")
    plain = meta(from_dict(_config()), "ppo:x.pth")
    assert obl["obl_grounding"] == "uniform"
    assert "obl_grounding" not in plain
    assert {k: v for k, v in obl.items() if k != "obl_grounding"} == plain
