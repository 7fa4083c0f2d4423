"""SB3 on the batched engine (shipwreck_training.sb3.vector): the VecEnv contract, the
partner's forced steps, and MaskablePPO learning on it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from shipwreck_env.vector import VectorGame
from shipwreck_training.common.config import GameSettings
from shipwreck_training.sb3.vector import BatchedVecEnv

EASY = GameSettings(difficulties=("easy",))


def _random_steps(env: BatchedVecEnv, steps: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    ended = []
    for _ in range(steps):
        masks = env.action_masks()
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        _, _, done, infos = env.step_wait()
        ended += [infos[i] for i in np.flatnonzero(done)]
    return ended


def test_an_ended_game_reports_sb3s_terminal_observation_and_restarts():
    env = BatchedVecEnv(EASY, 8, 0)
    obs = env.reset()
    assert obs.shape == (8, env.observation_space.shape[0])
    ended = _random_steps(env, 60)
    assert ended, "no game ended in 60 random decisions"
    for info in ended:
        assert info["terminal_observation"].shape == obs.shape[1:]
        assert info["TimeLimit.truncated"] is False
        assert info["episode"]["l"] >= 1 and info["difficulty"] == "easy"
    assert env.action_masks().any(axis=1).all()  # every place holds a live game again
    assert env.learner_steps == 60 * 8


def test_masks_reach_maskable_ppo_one_row_per_game():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = BatchedVecEnv(EASY, 4, 0)
    env.reset()
    assert is_masking_supported(env)
    assert np.array_equal(get_action_masks(env), env.action_masks())


@pytest.mark.parametrize(("role", "partner"), [("play", "bayes"), ("predict", "heuristic")])
def test_a_partners_decision_is_a_step_with_only_the_partners_choice_legal(role, partner):
    env = BatchedVecEnv(EASY, 8, 1, role=role, partner=partner)
    env.reset()
    _random_steps(env, 40, seed=1)
    masks = env.action_masks()
    active = env.games.field("active") % 3 == env.games.field("decider")
    partners = ~active if role == "play" else active
    assert partners.any() and (masks[partners].sum(axis=1) == 1).all()
    assert 0 < env.learner_steps < 40 * 8


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="role 'group' is not allowed"):
        BatchedVecEnv(EASY, 4, 0, role="group")
    with pytest.raises(ValueError, match="partner None is not allowed with role 'play'"):
        BatchedVecEnv(EASY, 4, 0, role="play")
    with pytest.raises(ValueError, match=r"env\.belief 'policy' is not allowed with role 'play'"):
        BatchedVecEnv(GameSettings(belief="policy"), 4, 0, role="play", partner="bayes")


def _greedy_easy_games(choose, games: int = 500, seed: int = 123) -> tuple[float, float]:
    """(win rate, mean score) of ``choose(obs, mask) -> actions`` in every seat, over
    ``games`` easy games stepped together until each is over (public VectorGame API)."""
    g = VectorGame(games, seed, autoreset=False, belief=True, difficulty="easy")
    won = np.zeros(games, bool)
    score = np.zeros(games)
    while (g.decider >= 0).any():
        g.step(choose(g.observe().copy(), g.legal_mask()))
        final = g.final_info
        won |= final["won"]
        score += np.where(final["_final"], final["score"], 0)
    return won.mean(), score.mean()


def test_maskable_ppo_learns_on_the_batched_engine():
    """40,000 self-play steps at easy: the greedy team wins games a random team never
    wins and scores more (same 500 held-out games)."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = BatchedVecEnv(EASY, 64, 0)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=512,
        n_epochs=4,
        learning_rate=1e-3,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [64, 64]},
    )
    model.learn(40_000)
    rng = np.random.default_rng(0)

    def random_team(obs, mask):
        return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])

    def trained(obs, mask):
        # VectorGame's masks are read-only views; torch warns on tensors over those
        return model.predict(obs, action_masks=mask.copy(), deterministic=True)[0]

    random_win, random_score = _greedy_easy_games(random_team)
    win, score = _greedy_easy_games(trained)
    print(json.dumps({"random": [random_win, random_score], "trained": [win, score]}))
    assert win > random_win and win >= 0.01
    assert score > random_score + 0.5


def _sb3_belief_blocks(seed: int, belief: str, steps: int = 120) -> np.ndarray:
    """The belief blocks of ``steps`` steps of 8 normal games (first legal action each
    time) whose belief comes from a fresh MaskablePPO policy of weights ``seed``."""
    from sb3_contrib import MaskablePPO

    from shipwreck_training.sb3.vector import PolicyLogits

    env = BatchedVecEnv(GameSettings(difficulties=("normal",), belief=belief), 8, 5)
    model = MaskablePPO("MlpPolicy", env, n_steps=8, seed=seed, policy_kwargs={"net_arch": [32]})
    if belief == "policy":
        env.use_model(lambda: PolicyLogits(model.policy))
    obs = env.reset()
    start = env.games.layout.offsets["belief"]
    seen = []
    for _ in range(steps):
        seen.append(obs[:, start : start + 7].copy())
        env.step_async(np.argmax(env.action_masks(), axis=1))
        obs, *_ = env.step_wait()
    return np.stack(seen)


def test_policy_belief_follows_the_policy_being_trained():
    """belief policy: the group's belief block is the posterior under the policy the env
    is given (other weights, other blocks on the same games), the literal block elsewhere."""
    first = _sb3_belief_blocks(0, "policy")
    second = _sb3_belief_blocks(1, "policy")
    literal = _sb3_belief_blocks(0, "literal")
    changed = np.abs(first - literal).max(axis=-1) > 1e-6
    assert changed.sum() >= 20
    assert np.allclose(first[~changed], literal[~changed])
    assert np.abs(first - second)[changed].max() > 1e-3
    assert np.allclose(first[changed].sum(-1), 1.0, atol=1e-5)


def test_policy_logits_are_the_policys_masked_distribution():
    import torch
    from sb3_contrib import MaskablePPO

    from shipwreck_training.sb3.vector import PolicyLogits

    env = BatchedVecEnv(EASY, 4, 0)
    model = MaskablePPO("MlpPolicy", env, n_steps=8, policy_kwargs={"net_arch": [32]})
    obs, mask = torch.from_numpy(env.reset()), torch.from_numpy(env.action_masks())
    dist = model.policy.get_distribution(obs, action_masks=mask.numpy())
    expected = dist.distribution.probs if hasattr(dist, "distribution") else dist.p
    got = torch.softmax(PolicyLogits(model.policy).logits(obs, mask), -1)
    torch.testing.assert_close(got, expected.detach())


def test_selfplay_with_the_policy_belief_trains_and_evaluates_with_it(tmp_path):
    from shipwreck_agents.registry import make_policy
    from shipwreck_training.sb3.train import main

    runs = tmp_path / "runs"
    config = Path(__file__).resolve().parents[2] / "configs" / "sb3" / "selfplay.yaml"
    args = ["--config", str(config), "--runs-dir", str(runs), "env.belief=policy"]
    args += ["num_games=8", "ppo.n_steps=32", "total_timesteps=256", "ppo.net_arch=[32]"]
    args += ["eval.every=0", "eval.final_games=4", "checkpoint_every=256"]
    assert main(args) == 0
    (run,) = runs.iterdir()
    summary = json.loads((run / "summary.json").read_text())
    assert summary["final_eval"]["evaluator"] == "batched engine, greedy, policy belief"
    assert summary["final_eval"]["results"]["normal"]["games"] == 4
    assert make_policy(f"fast:{run / 'final_model.pth'}").belief_kind == "policy"
