"""The RLlib trainer against a real local Ray (``ray.init(num_cpus=2, include_dashboard=False)``).

Ray and RLlib live in their own virtualenv (``.venv-rllib``, built by
``lab/tools/setup.sh``; ``./test.sh`` runs this file there). In the project's main
environment, which has no Ray by design (ray[rllib] 2.60 pins gymnasium 1.2.2), the
module is skipped.
"""

from __future__ import annotations

import json
import pickle
import subprocess
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip(
    "ray", reason="ray[rllib] is installed only in .venv-rllib (./test.sh runs this file there)"
)

from shipwreck_agents.learned.rllib import load_network  # noqa: E402
from shipwreck_agents.registry import make_policy  # noqa: E402
from shipwreck_training.rllib.config import env_config, from_dict  # noqa: E402
from shipwreck_training.rllib.env import ENV_NAME, ShipwreckMultiAgentEnv, env_creator  # noqa: E402
from shipwreck_training.rllib.train import algorithm_config, main, train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TINY = {
    "name": "tiny",
    "seed": 3,
    "iterations": 2,
    "checkpoint_every": 1,
    "env": {"difficulties": ["easy", "normal"]},
    "env_runners": {"num_env_runners": 1, "num_envs_per_env_runner": 2},
    "ppo": {"train_batch_size_per_learner": 256, "minibatch_size": 128, "num_epochs": 1},
    "eval": {"games": 20, "difficulties": ["normal"]},
}


@pytest.fixture(scope="module")
def local_ray():
    # address="local": never join a `ray start` cluster that may run on the machine
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    from shipwreck_training.rllib.env import register

    register()
    yield
    ray.shutdown()


def _config(**changes):
    data = json.loads(json.dumps(TINY))
    for key, value in changes.items():
        node = data
        *parents, last = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return from_dict(data)


def test_env_creator_pickles_and_plays_a_game():
    env = pickle.loads(pickle.dumps(env_creator({"difficulties": ["hard"], "num_players": 4})))
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(0)
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(10_000):
        (agent,) = obs
        legal = np.flatnonzero(obs[agent]["action_mask"])
        obs, reward, terminated, truncated, _ = env.step({agent: int(rng.choice(legal))})
        for a, r in reward.items():
            rewards[a] += r
        if terminated["__all__"] or truncated["__all__"]:
            break
    else:
        pytest.fail("the game did not end")
    assert set(obs) == set(env.possible_agents) == {f"player_{i}" for i in range(4)}
    assert len(set(rewards.values())) == 1  # the team reward reaches every seat
    with pytest.raises(ValueError, match="difficulties"):
        ShipwreckMultiAgentEnv(difficulties=["impossible"])


def test_train_checkpoint_resume_and_evaluate(local_ray, tmp_path):
    """Two iterations with a remote env runner, checkpoint, restore and continue, then
    20 games from the checkpoint through ``rllib:PATH``."""
    run = tmp_path / "run"
    out = train(_config(), run, log=lambda _: None)
    progress = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    assert [row["iteration"] for row in progress] == [1, 2]
    assert all(row["env_steps"] >= 256 * row["iteration"] for row in progress)
    second = run / "checkpoints" / "iter_000002"
    assert out["checkpoint"] == str(second) and (second / "shipwreck_policy.json").is_file()
    report = json.loads((run / "eval.json").read_text())
    assert report["results"]["normal"]["games"] == 20
    assert report["play"] == report["group"] == f"rllib:{second}"

    lines: list[str] = []
    out = train(_config(iterations=3), run, log=lines.append)
    assert any(line.startswith("resumed from") and "iteration 2" in line for line in lines)
    progress = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    assert [row["iteration"] for row in progress] == [1, 2, 3]
    assert progress[2]["env_steps"] > progress[1]["env_steps"]
    third = run / "checkpoints" / "iter_000003"
    assert (run / "checkpoints" / "latest").read_text().strip() == "iter_000003"
    before, _ = load_network(second)
    after, _ = load_network(third)
    assert any(
        not np.array_equal(a.detach().numpy(), b.detach().numpy())
        for a, b in zip(before.state_dict().values(), after.state_dict().values(), strict=True)
    ), "the resumed iteration did not learn"

    # RLlib's own restore gives the weights the Ray-free loader reads
    algo = algorithm_config(_config(**{"env_runners.num_env_runners": 0})).build_algo()
    try:
        algo.restore_from_path(str(second.resolve()))
        restored = algo.get_module("shared").net.state_dict()
    finally:
        algo.stop()
    for key, value in before.state_dict().items():
        np.testing.assert_array_equal(restored[key].numpy(), value.numpy())

    # the checkpoint as a policy spec: a run directory names its latest checkpoint
    policy = make_policy(f"rllib:{run}")
    assert policy.name == "rllib:iter_000003" and policy.belief

    # and it plays in the project's main environment (gymnasium 1.4, no Ray)
    main_python = ROOT / ".venv" / "bin" / "python"
    if not main_python.exists():
        pytest.skip("no .venv beside .venv-rllib (lab/tools/setup.sh builds both)")
    code = (
        "import sys, gymnasium; from shipwreck_agents.evaluation.evaluate import evaluate; "
        f"r = evaluate('rllib:{run}', 'rllib:{run}', difficulties=['easy'], games=3, "
        "progress=False); "
        "print(gymnasium.__version__, 'ray' in sys.modules, r['results']['easy']['games'])"
    )
    out = subprocess.run(
        [str(main_python), "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[1:] == ["False", "3"] and out[0] != "1.2.2", out


# RLlib's local env runner registers its gymnasium env each time an algorithm is built in
# this process; the second build's "Overriding environment" note is RLlib's, expected here.
_REREGISTERS = pytest.mark.filterwarnings(
    "ignore:.*Overriding environment rllib-multi-agent-env:UserWarning"
)


@_REREGISTERS
def test_masked_actions_never_sampled(local_ray):
    """Thousands of exploration steps of an untrained (near uniform) policy: every action
    is legal in the mask it was sampled with (the raw env would also raise)."""
    algo = algorithm_config(_config(**{"env_runners.num_env_runners": 0})).build_algo()
    try:
        episodes = algo.env_runner.sample(num_timesteps=3000, explore=True)
    finally:
        algo.stop()
    checked, seen = 0, set()
    for episode in episodes:
        for single in episode.agent_episodes.values():
            n = len(single)
            if n == 0:
                continue
            masks = single.get_observations(slice(0, n))["action_mask"]
            actions = np.asarray(single.get_actions(slice(0, n)))
            assert masks[np.arange(n), actions].all(), "an illegal action was sampled"
            checked += n
            seen.update(actions.tolist())
    assert checked >= 2900  # agent steps (RLlib stops a few env steps short)
    assert len(seen) > 20  # exploring, not stuck on one action


@_REREGISTERS
def test_module_puts_all_probability_on_legal_actions(local_ray):
    import torch
    from ray.rllib.core.columns import Columns

    algo = algorithm_config(_config(**{"env_runners.num_env_runners": 0})).build_algo()
    try:
        module = algo.get_module("shared")
    finally:
        algo.stop()
    env = env_creator(env_config(_config()))
    obs, _ = env.reset(seed=1)
    (agent,) = obs
    batch = {Columns.OBS: {k: torch.as_tensor(np.stack([v, v])) for k, v in obs[agent].items()}}
    batch[Columns.OBS]["action_mask"][1] = 0
    batch[Columns.OBS]["action_mask"][1, 7] = 1  # one legal action
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        probs = torch.softmax(logits, -1)
        mask = batch[Columns.OBS]["action_mask"].bool()
        assert torch.all(probs[~mask] == 0)
        assert probs[1, 7] == 1
    values = module.compute_values(batch)
    assert values.shape == (2,) and torch.isfinite(values).all()


def test_command_line_rejects_bad_keys_by_name(tmp_path, capsys):
    config = tmp_path / "bad.yaml"
    config.write_text("name: x\nppo:\n  learning_rate: 0.001\n")
    assert main(["--config", str(config), "--output-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "ppo.learning_rate is not a known key" in err and "'lr'" in err
    assert main(["--resume", str(tmp_path / "nothing")]) == 2
    assert ENV_NAME == "shipwreck_arcana"


def test_vector_env_restarts_a_finished_game_on_the_next_step():
    """Gymnasium's NEXT_STEP autoreset: the ending step shows the final observation (no
    legal action), the next one ignores that place's action and shows a new game."""
    from shipwreck_training.rllib.vector_env import ShipwreckVectorEnv

    env = ShipwreckVectorEnv(4, difficulties=["easy"])
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)

    def random_legal(mask: np.ndarray) -> np.ndarray:
        return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])

    for _ in range(500):
        obs, _, terminated, _, _ = env.step(random_legal(_mask(env, obs)))
        if terminated.any():
            break
    ended = np.flatnonzero(terminated)
    assert ended.size and not _mask(env, obs)[ended].any()
    obs, reward, terminated, _, _ = env.step(random_legal(_mask(env, obs)))
    assert _mask(env, obs)[ended].any(axis=1).all() and (reward[ended] == 0).all()
    assert not terminated[ended].any()


def _mask(env, obs: np.ndarray) -> np.ndarray:
    """The legal masks in the vector env's flat observations (after the observation)."""
    return obs[:, env.games.layout.size :] > 0


def test_vector_env_flat_observation_is_the_dict_one_side_by_side():
    from shipwreck_training.rllib.vector_env import ShipwreckVectorEnv

    flat, parts = ShipwreckVectorEnv(4), ShipwreckVectorEnv(4, flat=False)
    a, _ = flat.reset(seed=2)
    b, _ = parts.reset(seed=2)
    for _ in range(30):
        size = flat.games.layout.size
        assert np.array_equal(a[:, :size], b["observation"])
        assert np.array_equal(a[:, size:], b["action_mask"])
        assert flat.observation_space.contains(a) and parts.observation_space.contains(b)
        actions = np.argmax(b["action_mask"], axis=1)
        a, *_ = flat.step(actions)
        b, *_ = parts.step(actions)


def test_batched_engine_trains_resumes_and_plays(local_ray, tmp_path):
    """engine batched: RLlib's single-agent runner over the batched engine's vector env
    (one module, every seat) trains, checkpoints, resumes, and the checkpoint plays."""
    changes = {"engine": "batched", "env_runners.num_envs_per_env_runner": 16}
    changes |= {"eval.games": 4}
    run = tmp_path / "run"
    train(_config(**changes), run, log=lambda _: None)
    lines: list[str] = []
    out = train(_config(iterations=3, **changes), run, log=lines.append)
    assert any(line.startswith("resumed from") and "iteration 2" in line for line in lines)
    progress = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    assert [row["iteration"] for row in progress] == [1, 2, 3]
    assert all(row["env_steps"] >= 256 * row["iteration"] for row in progress)
    assert out["eval"]["results"]["normal"]["games"] == 4  # every decision legal
    meta = json.loads((run / "checkpoints" / "iter_000003" / "shipwreck_policy.json").read_text())
    assert meta["module"] == "default_policy"
    assert make_policy(f"rllib:{run}").name == "rllib:iter_000003"


def _belief_blocks(seed: int, steps: int = 120) -> tuple[np.ndarray, np.ndarray]:
    """The belief blocks of every observation of ``steps`` steps of 8 games (fixed
    actions: the first legal one), with a network of weights ``seed`` (belief policy),
    and the same games' literal blocks."""
    import torch

    from shipwreck_agents.learned.actor_critic import ActorCritic
    from shipwreck_training.rllib.vector_env import ShipwreckVectorEnv

    blocks = []
    for belief in ("policy", "literal"):
        env = ShipwreckVectorEnv(8, difficulties=["normal"], belief=belief)
        torch.manual_seed(seed)
        net = ActorCritic(env.games.layout.size, 259, (32,))
        env.use_model(lambda net=net: net)
        obs, _ = env.reset(seed=5)
        start = env.games.layout.offsets["belief"]
        seen = []
        for _ in range(steps):
            seen.append(obs[:, start : start + 7].copy())
            obs, *_ = env.step(np.argmax(_mask(env, obs), axis=1))
        blocks.append(np.stack(seen))
    return blocks[0], blocks[1]


def test_vector_env_belief_comes_from_the_given_network():
    """belief policy: the group's belief block is the posterior under the network the env
    is given: other weights, other blocks, on the same games and actions; the literal
    block is replaced only where a policy belief applies."""
    first, literal = _belief_blocks(seed=0)
    second, _ = _belief_blocks(seed=1)
    changed = np.abs(first - literal).max(axis=-1) > 1e-6
    assert changed.sum() >= 20  # group decisions with a policy belief
    assert np.allclose(first[~changed], literal[~changed])
    assert np.abs(first - second)[changed].max() > 1e-3
    assert np.allclose(first[changed].sum(-1), 1.0, atol=1e-5)


def test_vector_env_belief_needs_a_network():
    from shipwreck_training.rllib.vector_env import ShipwreckVectorEnv

    env = ShipwreckVectorEnv(4, belief="policy")
    obs, _ = env.reset(seed=0)
    with pytest.raises(RuntimeError, match="needs a network: call use_model"):
        env.step(np.argmax(_mask(env, obs), axis=1))


def test_batched_engine_belief_uses_each_runners_module(local_ray, tmp_path):
    """belief policy with a remote env runner: its env asks the runner's own module, which
    RLlib updates in place, and the run evaluates with the belief."""
    from shipwreck_training.rllib.belief_callback import runner_network

    cfg = _config(
        engine="batched",
        iterations=1,
        **{"env.belief": "policy", "eval.games": 4, "env_runners.num_envs_per_env_runner": 16},
    )
    out = train(cfg, tmp_path / "run", log=lambda _: None)
    assert out["eval"]["evaluator"] == "batched engine, greedy, policy belief"
    assert out["eval"]["results"]["normal"]["games"] == 4
    algo = algorithm_config(cfg).build_algo()
    try:
        algo.train()

        def probe(runner):
            env = runner.env.unwrapped
            return env._model() is runner_network(runner), int((env.belief.turn >= 0).sum())

        ((same, recorded),) = algo.env_runner_group.foreach_env_runner(
            probe, local_env_runner=False
        )
    finally:
        algo.stop()
    assert same and recorded > 0


def test_a_ray_address_that_does_not_answer_fails_in_one_line(tmp_path):
    """No Ray head at the address (a closed port): one line naming it and what is
    allowed, exit 2, nothing written. (``auto`` is not tested here: it would join a
    cluster that someone started on the machine.)"""
    address = "127.0.0.1:1"
    import os
    import sys

    out = tmp_path / "runs"
    config = str(ROOT / "configs" / "rllib" / "selfplay_batched.yaml")
    argv = ["--config", config, "--address", address, "--output-dir", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "shipwreck_training.rllib", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "RAY_ADDRESS": ""},
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"error: ray.address {address!r} does not answer; allowed: auto (a cluster started "
        "on this machine by `ray start --head`) or the HOST:PORT of a running Ray head "
        "(`ray start --head` prints it), or no address for a local Ray\n"
    )
    assert not out.exists()
