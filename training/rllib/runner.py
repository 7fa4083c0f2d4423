"""An RLlib env runner that samples a batched vector env with numpy arrays.

RLlib 2.60's :class:`~ray.rllib.env.single_agent_env_runner.SingleAgentEnvRunner`
spends most of a sampling step in Python per game: it unbatches the observations,
appends to one ``SingleAgentEpisode`` per game, runs its env-to-module connectors over
those episodes to rebuild the batch, and unbatches the actions again (profiled in
docs/training-rllib.md: with 64 games per runner about three quarters of its time,
the engine and the network the rest). :class:`BatchedEnvRunner` keeps everything of that
runner (env creation and its callback, the RLModule, weight sync through
``get_state``/``set_state``, checkpoints, ``get_metrics``) except the sampling loop of
``sample(num_timesteps=...)``: for a whole rollout it steps the vector env with one
module forward for all games per step, keeps observations, actions, rewards,
log-probabilities and action-distribution inputs in arrays, and builds one
``SingleAgentEpisode`` per finished game or per game cut at the rollout's end, from
slices of those arrays. The learner receives the same episodes as from the stock
runner: finished ones with their final observation and ``terminated``/``truncated``, cut
ones not done, ending on the observation at the cut (PPO's GAE bootstraps on it), and
continued in the next ``sample()`` under the same episode id with ``t_started`` where
the cut chunk ended.

What it needs (checked when it is built; ``ValueError`` naming what is wrong): a
Gymnasium ``VectorEnv`` with ``NEXT_STEP`` autoreset (the step after a game ends starts
a new one and its action is ignored), a ``Box`` observation and a ``Discrete`` action
space, RLlib's default connectors (none added by ``env_to_module_connector`` or
``module_to_env_connector``: this loop does not run connector pipelines) and no
per-episode callbacks (``on_episode_created/start/step/end``: there are no per-step
episode objects to hand them). ``sample(num_episodes=...)`` and
``sample(random_actions=True)`` are left to the stock loop (after a reset of every game).
Episodes carry no lookback buffer and empty ``infos``.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import gymnasium
import numpy as np
import torch
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.utils.metrics import WEIGHTS_SEQ_NO

__all__ = ["EPISODE_CALLBACKS", "BatchedEnvRunner"]

EPISODE_CALLBACKS = ("on_episode_created", "on_episode_start", "on_episode_step", "on_episode_end")
"""RLlib callbacks that need per-step episode objects, which this runner does not build."""


class BatchedEnvRunner(SingleAgentEnvRunner):
    """RLlib's single-agent env runner with a numpy sampling loop (module docstring).

    Chosen by ``config.env_runners(env_runner_cls=BatchedEnvRunner)``; the trainer does so
    for ``env_runners.runner: batched`` (:mod:`shipwreck_training.rllib.train`).
    """

    def __init__(self, *, config: Any, **kwargs: Any) -> None:
        _check_config(config)
        super().__init__(config=config, **kwargs)
        if self.env is not None:
            _check_env(self.env.unwrapped)
        self._rollout: dict[str, Any] | None = None  # the games' state between samples

    def _sample(
        self,
        *,
        num_timesteps: int | None = None,
        num_episodes: int | None = None,
        explore: bool,
        random_actions: bool = False,
        force_reset: bool = False,
    ) -> list[SingleAgentEpisode]:
        if num_timesteps is None or random_actions or self.module is None:
            # the stock loop, from fresh games; ours restarts every game after it
            self._needs_initial_reset = True
            self._rollout = None
            done = super()._sample(
                num_timesteps=num_timesteps,
                num_episodes=num_episodes,
                explore=explore,
                random_actions=random_actions,
                force_reset=True,
            )
            self._needs_initial_reset = True
            return done
        if force_reset or self._needs_initial_reset or self._rollout is None:
            self._start_games()
        return self._sample_steps(num_timesteps, explore)

    def _start_games(self) -> None:
        """Reset every game (with the runner's seed the first time, as RLlib does)."""
        self._ongoing_episodes_for_metrics.clear()
        obs, _ = self._try_env_reset(
            seed=self._seed if self._needs_initial_reset else None, options=None
        )
        self._needs_initial_reset = False
        n = self.num_envs
        self._rollout = {
            "obs": np.asarray(obs),
            "ids": [uuid.uuid4().hex for _ in range(n)],
            "t": np.zeros(n, np.int64),  # env steps of each game's episode so far
            "started": np.full(n, time.perf_counter()),  # its start, for the duration metric
            "restarting": np.zeros(n, bool),  # ended last step: this step's action is ignored
        }

    def _act(self, obs: np.ndarray, explore: bool) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """One forward for every game: the actions and what the episodes keep of it
        (``action_dist_inputs``, ``action_logp``), as RLlib's ``GetActions`` computes them."""
        module = self.module
        batch = {Columns.OBS: torch.from_numpy(obs)}
        if explore:
            out = module.forward_exploration(batch)
            dist_cls = module.get_exploration_action_dist_cls()
        else:
            out = module.forward_inference(batch)
            dist_cls = module.get_inference_action_dist_cls()
        inputs = out[Columns.ACTION_DIST_INPUTS]
        with torch.no_grad():
            if dist_cls is TorchCategorical:  # its law, without torch.distributions' checks
                logp_all = torch.log_softmax(inputs, dim=-1)
                if explore:  # Gumbel-max: argmax(log p + Gumbel noise) is a draw from p
                    noise = -torch.log(-torch.log(torch.rand_like(logp_all)))
                    actions = (logp_all + noise).argmax(dim=-1)
                else:
                    actions = inputs.argmax(dim=-1)
                logp = logp_all.gather(-1, actions[:, None])[:, 0]
            else:  # any other distribution: as RLlib's GetActions connector does it
                dist = dist_cls.from_logits(inputs)
                if not explore:
                    dist = dist.to_deterministic()
                actions = dist.sample()
                logp = dist.logp(actions)
        return actions.numpy(), {
            Columns.ACTION_DIST_INPUTS: inputs.numpy(),
            Columns.ACTION_LOGP: logp.numpy().astype(np.float32),
        }

    def _sample_steps(self, num_timesteps: int, explore: bool) -> list[SingleAgentEpisode]:
        """Step every game until ``num_timesteps`` env steps (restart steps not counted,
        as in RLlib), then cut each game's episode into the returned chunks."""
        env, state = self.env.unwrapped, self._rollout
        observations, actions, rewards, terminated, truncated, valid, clock = (
            [state["obs"]],
            [],
            [],
            [],
            [],
            [],
            [],
        )
        outputs: dict[str, list[np.ndarray]] = {}
        restarting, ts = state["restarting"], 0
        while ts < num_timesteps:
            action, extra = self._act(observations[-1], explore)
            obs, reward, term, trunc, _ = env.step(action)
            acted = ~restarting
            ts += int(acted.sum())
            observations.append(np.asarray(obs))
            actions.append(action)
            rewards.append(np.asarray(reward, np.float32))
            terminated.append(np.asarray(term, bool))
            truncated.append(np.asarray(trunc, bool))
            valid.append(acted)
            clock.append(time.perf_counter())
            for key, value in extra.items():
                outputs.setdefault(key, []).append(value)
            restarting = (terminated[-1] | truncated[-1]) & acted
        state["obs"], state["restarting"] = observations[-1], restarting
        arrays = {
            "obs": np.stack(observations),
            "actions": np.stack(actions),
            "rewards": np.stack(rewards),
            "terminated": np.stack(terminated),
            "truncated": np.stack(truncated),
            "valid": np.stack(valid),
            "clock": np.asarray(clock),
            "outputs": {k: np.stack(v) for k, v in outputs.items()},
        }
        done, cut = [], []
        for game in range(self.num_envs):
            self._cut_game(game, arrays, done, cut)
        self._done_episodes_for_metrics.extend(done)
        for chunk in cut:
            self._ongoing_episodes_for_metrics[chunk.id_].append(chunk)
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=ts)
        self._increase_sampled_metrics(ts, len(done))
        return done + cut

    def _cut_game(self, game: int, a: dict[str, Any], done: list, cut: list) -> None:
        """The episodes of one game in this rollout: finished ones to ``done``, the one
        still running (if it made a step here) to ``cut``; the runner's per-game state
        (episode id, steps so far, start time) moves on to the running one."""
        state = self._rollout
        valid = a["valid"][:, game]
        steps = len(valid)
        ends = np.flatnonzero((a["terminated"][:, game] | a["truncated"][:, game]) & valid)
        # a new episode's first observation follows each ignored (restart) step
        starts = ([0] if valid[0] else []) + [int(r) + 1 for r in np.flatnonzero(~valid)]
        for start in starts:
            if start > 0:  # a new game began: its own episode id
                state["ids"][game] = uuid.uuid4().hex
                state["t"][game] = 0
                state["started"][game] = a["clock"][start - 1]
            k = np.searchsorted(ends, start)
            stop = int(ends[k]) + 1 if k < len(ends) else steps
            if stop == start:  # began on the rollout's last step: nothing sampled yet
                continue
            finished = k < len(ends)
            episode = self._episode(game, a, start, stop, finished)
            (done if finished else cut).append(episode)
            state["t"][game] += stop - start

    def _episode(
        self, game: int, a: dict[str, Any], start: int, stop: int, finished: bool
    ) -> SingleAgentEpisode:
        """Steps ``start..stop-1`` of ``game`` as one episode (chunk) from the arrays."""
        state = self._rollout
        length = stop - start
        extra = {k: v[start:stop, game] for k, v in a["outputs"].items()}
        extra[WEIGHTS_SEQ_NO] = np.full(length, self._weights_seq_no, np.int64)
        episode = SingleAgentEpisode(
            id_=state["ids"][game],
            observations=a["obs"][start : stop + 1, game],
            observation_space=self.env.single_observation_space,
            infos=[{} for _ in range(length + 1)],
            actions=a["actions"][start:stop, game],
            action_space=self.env.single_action_space,
            rewards=a["rewards"][start:stop, game],
            terminated=bool(finished and a["terminated"][stop - 1, game]),
            truncated=bool(finished and a["truncated"][stop - 1, game]),
            extra_model_outputs=extra,
            t_started=int(state["t"][game]),
            len_lookback_buffer=0,
        )
        episode._start_time = float(state["started"][game])
        episode._last_step_time = float(a["clock"][stop - 1])
        state["started"][game] = episode._last_step_time  # the next chunk's duration
        return episode


def _check_config(config: Any) -> None:
    """``ValueError`` for what this runner would silently ignore."""
    extra = [
        name
        for name in ("_env_to_module_connector", "_module_to_env_connector")
        if getattr(config, name, None) is not None
    ]
    if extra:
        raise ValueError(
            f"BatchedEnvRunner does not run custom connectors ({', '.join(n[1:] for n in extra)} "
            "set); allowed: RLlib's default connectors, or env_runners.runner: rllib"
        )
    for which in EPISODE_CALLBACKS:
        functions = getattr(config, f"callbacks_{which}", None)
        overridden = [
            cls.__name__
            for cls in _as_list(config.callbacks_class)
            if getattr(cls, which, None) is not getattr(RLlibCallback, which)
        ]
        if functions or overridden:
            raise ValueError(
                f"BatchedEnvRunner does not call {which} "
                f"({', '.join(overridden) or 'callbacks_' + which}); allowed: callbacks "
                "without per-episode hooks (on_environment_created, on_sample_end, "
                "on_train_result...), or env_runners.runner: rllib"
            )


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _check_env(env: Any) -> None:
    """``ValueError`` unless ``env`` is a NEXT_STEP vector env with Box obs, Discrete actions."""
    mode = getattr(env, "metadata", {}).get("autoreset_mode")
    problems = []
    if not isinstance(env, gymnasium.vector.VectorEnv):
        problems.append(f"env {type(env).__name__} is not a gymnasium VectorEnv")
    if mode != gymnasium.vector.AutoresetMode.NEXT_STEP:
        problems.append(f"autoreset_mode {mode!r} (allowed: NEXT_STEP)")
    if not isinstance(env.single_observation_space, gymnasium.spaces.Box):
        problems.append(f"observation space {env.single_observation_space} (allowed: Box)")
    if not isinstance(env.single_action_space, gymnasium.spaces.Discrete):
        problems.append(f"action space {env.single_action_space} (allowed: Discrete)")
    if problems:
        raise ValueError(
            "BatchedEnvRunner cannot step this env: "
            + "; ".join(problems)
            + " (env_runners.runner: rllib steps any env)"
        )
