"""The numpy env runner (``training/rllib/runner.py``) against the engine it steps.

The runner is built in this process (``num_env_runners: 0``, no Ray cluster): its
episodes must be exactly what the vector env returned, cut the way RLlib's own runner
cuts them. Runs in ``.venv-rllib`` (``./test.sh``); skipped in the main environment.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip(
    "ray", reason="ray[rllib] is installed only in .venv-rllib (./test.sh runs this file there)"
)

import torch
from ray.rllib.core.columns import Columns

from shipwreck_training.rllib.config import from_dict
from shipwreck_training.rllib.env import register
from shipwreck_training.rllib.runner import BatchedEnvRunner
from shipwreck_training.rllib.train import algorithm_config

ROOT = Path(__file__).resolve().parents[2]
GAMES = 8
# each runner built here registers RLlib's gymnasium env again (RLlib's note, expected)
pytestmark = pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-single-agent")


def _merge(base: dict, extra: dict) -> dict:
    """``base`` with ``extra`` written over it, section by section."""
    out = dict(base)
    for key, value in extra.items():
        out[key] = _merge(base.get(key, {}), value) if isinstance(value, dict) else value
    return out


def _cfg(**sections):
    base = {
        "name": "runner",
        "seed": 4,
        "engine": "batched",
        "env": {"difficulties": ["easy", "hard"], "belief": "literal"},
        "env_runners": {"num_env_runners": 0, "num_envs_per_env_runner": GAMES},
        "ppo": {"hidden": [32]},
    }
    return from_dict(_merge(base, sections))


def _runner():
    register()
    config = algorithm_config(_cfg())
    assert config.env_runner_cls is BatchedEnvRunner  # runner auto, engine batched
    return BatchedEnvRunner(config=config)


def _record_steps(runner) -> list[tuple]:
    """Wrap the runner's vector env: every step's (actions, obs, reward, term, trunc)."""
    env = runner.env.unwrapped
    seen, step = [], env.step

    def recording(actions):
        out = step(actions)
        seen.append((np.array(actions), *(np.array(x) for x in out[:4])))
        return out

    env.step = recording
    return seen


def _reference_episodes(first_obs: np.ndarray, steps: list[tuple]) -> list[dict]:
    """The episodes of each game from the raw steps, the way RLlib's stock runner builds
    them one step at a time (NEXT_STEP autoreset: after an ending step, the next step's
    action is ignored and its observation starts the next episode)."""
    games = first_obs.shape[0]
    current = [{"obs": [first_obs[g]], "actions": [], "rewards": []} for g in range(games)]
    restarting = np.zeros(games, bool)
    out = []
    for actions, obs, reward, term, trunc in steps:
        for g in range(games):
            if restarting[g]:
                current[g] = {"obs": [obs[g]], "actions": [], "rewards": []}
                continue
            ep = current[g]
            ep["obs"].append(obs[g])
            ep["actions"].append(actions[g])
            ep["rewards"].append(reward[g])
            if term[g] or trunc[g]:
                out.append({**ep, "terminated": bool(term[g]), "truncated": bool(trunc[g])})
        restarting = (term | trunc) & ~restarting
    for g in range(games):
        if current[g]["actions"]:
            out.append({**current[g], "terminated": False, "truncated": False})
    return out


def _key(obs, actions, rewards, terminated, truncated) -> tuple:
    return (
        np.asarray(obs, np.float32).tobytes(),
        np.asarray(actions, np.int64).tobytes(),
        np.asarray(rewards, np.float32).tobytes(),
        terminated,
        truncated,
    )


def test_episodes_are_the_engines_steps_cut_as_rllib_cuts_them():
    """Three samples of 8 games: chunks of one episode share its id, follow on in
    ``t_started`` and join (cut observation repeated) into exactly the games the vector
    env played, as a step-by-step reference builds them; each action was legal and its
    stored log-probability is the one of the stored distribution inputs."""
    runner = _runner()
    steps = _record_steps(runner)
    runner._start_games()
    first = runner._rollout["obs"].copy()
    samples = [runner.sample(num_timesteps=n, explore=True) for n in (150, 40, 300)]
    chunks = defaultdict(list)
    sampled = 0
    for episodes in samples:
        for ep in episodes:
            sampled += len(ep)
            chunks[ep.id_].append(ep)
            obs, actions = ep.get_observations(), ep.get_actions()
            size = obs.shape[1] - 259
            assert (obs[np.arange(len(actions)), size + actions] == 1).all()  # legal
            logits = torch.from_numpy(ep.get_extra_model_outputs(Columns.ACTION_DIST_INPUTS))
            logp = torch.log_softmax(logits, -1)[torch.arange(len(actions)), actions]
            np.testing.assert_allclose(
                ep.get_extra_model_outputs(Columns.ACTION_LOGP), logp.numpy(), atol=1e-5
            )
    assert sampled >= 490 and sum(len(c) for c in chunks.values()) > GAMES
    joined = []
    for parts in chunks.values():
        t = parts[0].t_started
        obs, actions, rewards = [parts[0].get_observations()[:1]], [], []
        for ep in parts:
            assert ep.t_started == t and not any(p.is_done for p in parts[:-1])
            assert np.array_equal(ep.get_observations()[0], obs[-1][-1])  # cut obs repeated
            obs.append(ep.get_observations()[1:])
            actions.append(ep.get_actions())
            rewards.append(ep.get_rewards())
            t += len(ep)
        assert parts[0].t_started == 0  # fresh games: every episode seen from its start
        joined.append(
            _key(
                np.concatenate(obs),
                np.concatenate(actions),
                np.concatenate(rewards),
                parts[-1].is_terminated,
                parts[-1].is_truncated,
            )
        )
    reference = [
        _key(e["obs"], e["actions"], e["rewards"], e["terminated"], e["truncated"])
        for e in _reference_episodes(first, steps)
    ]
    assert len(joined) == len(reference) and sorted(joined) == sorted(reference)
    assert any(k[3] for k in reference)  # some games ended within the samples


def test_first_observations_are_the_stock_runners():
    """Same config and seed: RLlib's stock runner and this one reset the same games."""
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    register()
    stock = SingleAgentEnvRunner(config=algorithm_config(_cfg(env_runners={"runner": "rllib"})))
    ours = _runner()
    a = stock.sample(num_timesteps=GAMES, explore=False)
    b = ours.sample(num_timesteps=GAMES, explore=False)
    first = sorted(ep.get_observations()[0].tobytes() for ep in a)
    assert first == sorted(ep.get_observations()[0].tobytes() for ep in b)
    assert all(len(ep) == 1 for ep in b)


def test_greedy_sampling_and_metrics():
    """explore False takes the arg-max action; finished episodes reach RLlib's metrics."""
    runner = _runner()
    episodes = runner.sample(num_timesteps=400, explore=False)
    for ep in episodes:
        logits = ep.get_extra_model_outputs(Columns.ACTION_DIST_INPUTS)
        assert np.array_equal(ep.get_actions(), logits.argmax(axis=1))
    metrics = runner.get_metrics()
    assert metrics["num_env_steps_sampled"].peek() >= 400
    done = sum(ep.is_done for ep in episodes)
    assert done and metrics["num_episodes"].peek() == done


def test_same_seed_same_episodes():
    """Two runners of one config sample the same exploring actions on the same games
    (RLlib seeds the torch stream from the config's seed when it builds a runner: each is
    built, then sampled, as in its own process)."""
    seen = []
    for _ in range(2):
        runner = _runner()
        episodes = runner.sample(num_timesteps=200, explore=True)
        seen.append([(e.get_observations().tobytes(), e.get_actions().tobytes()) for e in episodes])
    first, second = seen
    assert first == second


def test_bad_runner_settings_fail_in_one_line(tmp_path):
    """env_runners.runner batched on the AEC engine, or an unknown runner: exit 2, one line."""
    argv = [sys.executable, "-m", "shipwreck_training.rllib"]
    argv += ["--config", str(ROOT / "configs" / "rllib" / "selfplay.yaml")]
    argv += ["--output-dir", str(tmp_path)]
    for override, expected in (
        ("env_runners.runner=batched", "env_runners.runner 'batched' is not allowed"),
        ("env_runners.runner=fast", "env_runners.runner"),
    ):
        done = subprocess.run([*argv, override], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and expected in done.stderr, done.stderr
    assert not any(tmp_path.iterdir())


def test_runner_refuses_per_episode_callbacks():
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class Counting(RLlibCallback):
        def on_episode_step(self, **kwargs):
            pass

    config = algorithm_config(_cfg()).callbacks(Counting)
    with pytest.raises(ValueError, match=r"does not call on_episode_step \(Counting\)"):
        BatchedEnvRunner(config=config)


@pytest.mark.slow
def test_batched_runner_learns_and_resumes(tmp_path):
    """A real local Ray, one remote env runner of 64 easy games: 10 iterations, resumed
    to 30 from the algorithm state; the greedy team then wins more of 300 held-out easy
    games, and scores more, than a random team. (At 20 iterations, with the packages a
    fresh .venv-rllib resolved on 2026-12-02, the run won 1 of the 300 games, scoring
    1.55 against the random team's 0.62, and the same run at the previous commit did the
    same, so the cause lies outside this code (the packages installed or the machine);
    the margin was too thin. At 30 it won 28, scoring 2.98.)"""
    code = f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); " + (
        "import test_rllib_runner as t; print(json.dumps(t._learn(sys.argv[1])))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["resumed"]
    trained, random = out["trained"]["easy"], out["random"]["easy"]
    assert trained["win_rate"] > random["win_rate"] and trained["wins"] >= 3
    assert trained["mean_score"] > random["mean_score"] + 0.5


def _learn(folder: str) -> dict:
    """The slow test's run (in its own process: its own Ray, one torch thread)."""
    import ray

    from shipwreck_agents.learned.rllib import load_network
    from shipwreck_training.common.greedy_eval import evaluate_greedy
    from shipwreck_training.rllib.train import train

    torch.set_num_threads(1)
    data = {
        "seed": 0,
        "iterations": 10,
        "checkpoint_every": 5,
        "env": {"difficulties": ["easy"], "belief": "literal"},
        "env_runners": {"num_env_runners": 1, "num_envs_per_env_runner": 64},
        "eval": {"games": 0},
        "ppo": {"train_batch_size_per_learner": 2048, "minibatch_size": 512, "lr": 1e-3},
    }
    data["ppo"]["hidden"] = [64, 64]
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    run = Path(folder) / "run"
    train(_cfg(**data), run, log=lambda _: None)
    lines: list[str] = []
    out = train(_cfg(**{**data, "iterations": 30}), run, log=lines.append)
    ray.shutdown()
    net, _ = load_network(out["checkpoint"])

    class RandomTeam:
        """A uniformly random legal decision in every seat."""

        generator = torch.Generator().manual_seed(0)

        def greedy(self, obs, mask):
            noise = torch.rand(mask.shape, generator=self.generator)
            return torch.where(mask.bool(), noise, -1.0).argmax(-1)

    env = _cfg().env.model_copy(update={"difficulties": ("easy",)})
    results = {
        name: evaluate_greedy(model, env, games=300, seed=123, difficulties=["easy"])
        for name, model in (("trained", net), ("random", RandomTeam()))
    }
    return {"resumed": any(line.startswith("resumed from") for line in lines), **results}


def _learner_connector(config, runner):
    """PPO's learner connector pipeline of ``config`` with a learner module holding the
    runner's weights (each connector piece once: building the learner by hand adds PPO's
    default pieces a second time)."""
    learner = config.build_learner(env=runner.env.unwrapped, spaces=runner.get_spaces())
    learner.build()
    learner.module.set_state(runner.module.get_state())
    pipeline, seen = learner._learner_connector, set()
    pipeline.connectors[:] = [
        c for c in pipeline.connectors if not (type(c) in seen or seen.add(type(c)))
    ]
    return learner.module, pipeline


def _stock_chunks(first_obs, calls, spaces) -> list[list]:
    """Per sample call, the episodes RLlib's own runner builds from the same steps: one
    ``add_env_step`` per game and step, ``cut`` (lookback 1) at the call's end."""
    from ray.rllib.env.single_agent_episode import SingleAgentEpisode
    from ray.rllib.utils.metrics import WEIGHTS_SEQ_NO

    def new(obs):
        ep = SingleAgentEpisode(observation_space=spaces[0], action_space=spaces[1])
        ep.add_env_reset(observation=obs)
        return ep

    episodes = [new(obs) for obs in first_obs]
    restarting = np.zeros(len(first_obs), bool)
    out = []
    for steps in calls:
        returned = []
        for actions, obs, reward, term, trunc, extra in steps:
            for g, ep in enumerate(episodes):
                if restarting[g]:
                    episodes[g] = new(obs[g])
                    continue
                ep.add_env_step(
                    observation=obs[g],
                    action=actions[g],
                    reward=reward[g],
                    terminated=bool(term[g]),
                    truncated=bool(trunc[g]),
                    extra_model_outputs={k: v[g] for k, v in extra.items()} | {WEIGHTS_SEQ_NO: 0},
                )
                if ep.is_done:
                    returned.append(ep.to_numpy())
            restarting = (term | trunc) & ~restarting
        for g, ep in enumerate(episodes):
            if not ep.is_done and len(ep):
                episodes[g] = ep.cut(len_lookback_buffer=1)
                returned.append(ep.to_numpy())
        out.append(returned)
    return out


def test_the_learner_gets_what_rllibs_runner_would_give_it():
    """Two samples (the second continues the first's cut games): PPO's learner connector
    (GAE bootstrapping cut chunks) makes the same train batch, advantages and value
    targets included, from this runner's episodes as from the episodes RLlib's own runner
    builds step by step from the same steps."""
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

    register()
    config = algorithm_config(_cfg())
    runner = BatchedEnvRunner(config=config)
    module, pipeline = _learner_connector(config, runner)
    calls: list[list] = []
    env, act, step = runner.env.unwrapped, runner._act, runner.env.unwrapped.step
    pending = {}

    def acting(obs, explore):
        actions, extra = act(obs, explore)
        pending["extra"] = extra
        return actions, extra

    def recording(actions):
        out = step(actions)
        calls[-1].append((np.array(actions), *(np.array(x) for x in out[:4]), pending["extra"]))
        return out

    runner._act, env.step = acting, recording
    runner._start_games()
    first = runner._rollout["obs"].copy()
    ours = []
    for n in (100, 120):
        calls.append([])
        ours.append(runner.sample(num_timesteps=n, explore=True))
    spaces = (env.single_observation_space, env.single_action_space)
    stock = _stock_chunks(first, calls, spaces)

    def batch(episodes):
        episodes = sorted(
            episodes,
            key=lambda e: (e.get_observations()[0].tobytes(), e.get_actions().tobytes()),
        )
        out = pipeline(
            rl_module=module, batch={}, episodes=episodes, shared_data={}, metrics=MetricsLogger()
        )
        return {k: v.numpy() for k, v in out["default_policy"].items()}

    for mine, theirs in zip(ours, stock, strict=True):
        assert len(mine) == len(theirs) and any(not e.is_done for e in mine)
        a, b = batch(mine), batch(theirs)
        assert set(a) == set(b) and {"advantages", "value_targets", "loss_mask"} <= set(a)
        for column in a:
            np.testing.assert_allclose(a[column], b[column], rtol=1e-6, err_msg=column)
