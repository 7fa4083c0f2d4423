"""PPO on the batched engine: thousands of games, one network call per decision step.

    python -m shipwreck_training.fast --config configs/fast/selfplay.yaml [key=value ...]
    python -m shipwreck_training.fast --resume results/runs/fast/<run>

One shared :class:`~shipwreck_agents.learned.actor_critic.ActorCritic` takes every learned decision of
every seat (the observation is seat-relative; its phase and decider fields name the
role). Each rollout steps ``num_games`` games ``rollout_steps`` times; the team reward
after every decision forms one sequence per game, and GAE runs over that sequence
(TorchRL's ``generalized_advantage_estimate``) whoever decided each step, so a play is
credited with the predictions it makes possible. Decisions of a scripted role (regimes
``play`` and ``predict``) stay in the sequence and train the value, not the policy.

Written by hand, CleanRL-style: the rollout loop (no library steps a numpy batch engine
whose deciders change every step), the masked categorical (three lines on logits), and
the clipped PPO loss (TorchRL's ``ClipPPOLoss`` wants TensorDict modules and a
distribution class around the same dozen lines; a minibatch here is two tensors and a
mask, and its loss is the CleanRL one, verbatim). The loss and the minibatch step are
pure functions in :mod:`shipwreck_training.fast.loss`; this module orchestrates.

A run writes ``<runs>/<name>__<seed>__<time>/``: ``config.yaml``, ``command.txt``,
``tb/`` (TensorBoard), ``checkpoints/latest.pt`` (model, optimiser, every game, every
random stream: ``--resume`` continues exactly), ``progress.jsonl`` (steps/s, losses,
episodes), ``eval.jsonl`` (greedy win rate on every difficulty, held-out seeds), the
final ``model.pt`` and its SB3 export ``model.pth`` with ``model.meta.json``.

With ``overlap`` the next rollout is collected while the network learns from the last
one: in the main thread while a second thread learns (``thread``), or in a collector
process of its own (``process``, :mod:`shipwreck_training.fast.collector`; no shared
global lock). The collecting network is a copy frozen at the update's start, so each
rollout is one update stale; its stored log-probabilities are the behaviour policy's,
which is what PPO's ratio needs. Each side has its own random stream, so the result does
not depend on the timing, nor on which form runs. A checkpoint then holds the games as
they were before the rollout in flight and the frozen copy; loading it collects that
rollout again.
"""

from __future__ import annotations

import copy
import itertools
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torchrl.objectives.value.functional import generalized_advantage_estimate

from shipwreck_agents.learned.actor_critic import ActorCritic
from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.state import Phase
from shipwreck_training.common.games import Games, learner_decides
from shipwreck_training.common.policy_belief_batched import PolicyBelief
from shipwreck_training.common.signal import (
    HANDS_X,
    NUM_PLAYS,
    PAIRS,
    first_play_rows,
    signal_inputs,
)
from shipwreck_training.fast.collector import CollectorProcess
from shipwreck_training.fast.config import FastConfig
from shipwreck_training.fast.loss import minibatch_step, ppo_loss
from shipwreck_training.fast.obl import apply_targets, make_obl
from shipwreck_training.fast.partners import Partners
from shipwreck_training.fast.sigint import children_ignore_sigint
from shipwreck_training.fast.zsc import make_zsc

__all__ = ["Rollout", "Trainer", "advantages"]

_GROUP_PHASES = (Phase.REVEAL, Phase.GROUP, Phase.VOTE, Phase.COST)


@dataclass
class Rollout:
    """One rollout, time-major ``[T, N, ...]`` tensors."""

    obs: torch.Tensor
    mask: torch.Tensor
    actions: torch.Tensor
    logp: torch.Tensor
    values: torch.Tensor
    rewards: torch.Tensor
    dones: torch.Tensor
    learn: torch.Tensor
    fate: torch.Tensor  # kept fate 0..6 of the active seat at group decisions, else -1
    last_value: torch.Tensor = field(default_factory=lambda: torch.zeros(0))
    # the signalling loss's games ([T, S]; S = 0 when it is off): a first-play decision
    # of the learner, its hands' prior weights, the legal plays of each unordered hand
    signal_on: torch.Tensor = field(default_factory=lambda: torch.zeros(0, dtype=torch.bool))
    signal_w: torch.Tensor = field(default_factory=lambda: torch.zeros(0))
    signal_masks: torch.Tensor = field(default_factory=lambda: torch.zeros(0, dtype=torch.bool))
    # Off-Belief Learning ([T, N]; [0] when it is off): the decision's target is the
    # fictitious Q of training/fast/obl.py, not its real return
    obl_on: torch.Tensor = field(default_factory=lambda: torch.zeros(0, dtype=torch.bool))
    obl_q: torch.Tensor = field(default_factory=lambda: torch.zeros(0))


def advantages(r: Rollout, gamma: float, lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(advantages, value targets), ``[T, N]``: GAE over each game's own sequence of
    team rewards; a finished game (won, lost or cut at ``max_turns``) is not bootstrapped
    into the next game that autoreset started in its place."""
    next_values = torch.cat([r.values[1:], r.last_value[None]])
    done = r.dones.T[..., None]
    adv, target = generalized_advantage_estimate(
        gamma,
        lam,
        r.values.T[..., None],
        next_values.T[..., None],
        r.rewards.T[..., None],
        done,
        done,
    )
    return adv[..., 0].T, target[..., 0].T


class Trainer:
    """Everything one run holds: config, games, network, optimiser, random streams.

    Args:
        cfg: the run's configuration.
        run_dir: where logs and checkpoints go (``None``: nowhere, for tests).
    """

    def __init__(self, cfg: FastConfig, run_dir: Path | None = None) -> None:
        torch.set_num_threads(cfg.torch_threads)
        self.cfg = cfg
        self.run_dir = run_dir
        torch.manual_seed(cfg.seed)
        self.games = Games(cfg.env, cfg.num_games, cfg.seed)
        self.obs_dim = self.games.layout.size
        self.model = ActorCritic(
            self.obs_dim,
            NUM_ACTIONS,
            cfg.ppo.hidden,
            fate_head=cfg.env.belief == "aux",
            shared_first_layer=cfg.ppo.shared_first_layer,
        )
        self.optimizer = torch.optim.Adam(self.model.parameters(), cfg.ppo.learning_rate, eps=1e-5)
        self.generator = torch.Generator().manual_seed(cfg.seed)
        with children_ignore_sigint():  # Ctrl-C: this process stops its workers
            self.scripted = (
                Partners(
                    cfg.partner,
                    cfg.num_games,
                    cfg.seed,
                    cfg.partner_workers,
                    batched=cfg.partners.batched,
                )
                if cfg.regime != "selfplay"
                else None
            )
        self.belief = (
            PolicyBelief(
                self.games,
                carry=cfg.policy_belief == "carry",
                after_play=cfg.belief_after_play,
            )
            if cfg.env.belief == "policy"
            else None
        )
        self.zsc = make_zsc(cfg.zsc, cfg.num_games, cfg.env.num_players, cfg.seed)
        self.obl = make_obl(cfg.obl, self.games, cfg.ppo.gamma)
        # the games whose first plays teach the signalling loss, spread over the parts
        signal = min(cfg.ppo.signal_games, cfg.num_games) if cfg.ppo.signal_coef else 0
        self.signal_games = np.arange(signal, dtype=np.int64) * cfg.num_games // max(signal, 1)
        self.global_step = 0
        self.update_index = 0
        self.wall = 0.0
        self.episodes: list[tuple[str, bool, int, int]] = []  # (difficulty, won, score, doom)
        # overlap: the collecting copy, the rollout not learned yet, the collection side
        # as it was before that rollout (for checkpoints), the learner's random stream
        overlap = cfg.overlap != "off"
        self.behaviour = copy.deepcopy(self.model) if overlap else None
        self.pending: Rollout | None = None
        self._before_pending: dict | None = None
        self.update_generator = torch.Generator().manual_seed(cfg.seed + 1)
        self._learner = ThreadPoolExecutor(1) if cfg.overlap == "thread" else None
        # overlap process: the collector, its two shared rollouts (the learner reads one
        # while the other fills) and which one holds the pending rollout
        self._collector: CollectorProcess | None = None
        self._buffers: list[Rollout] = []
        self._pending_buffer = 0
        if cfg.overlap == "process":
            self.behaviour.share_memory()  # the collector reads these parameters in place

    # --- acting --------------------------------------------------------------------------

    def _observe(self) -> tuple[np.ndarray, np.ndarray]:
        obs, mask = self.games.observe(), self.games.legal_mask()
        if self.belief is not None:
            self.belief.fill(obs, self.games)
        return obs, mask

    def _fate_targets(self) -> np.ndarray:
        g = self.games
        active = g.field("active").astype(np.int64)
        rows = np.arange(g.num_games)
        held = g.field("hand_len")[rows, active] == 1
        group = np.isin(g.field("phase"), _GROUP_PHASES)
        kept = g.field("hands")[rows, active, 0].astype(np.int64) - 1
        return np.where(held & group & ~g.field("over"), kept, -1)

    def empty_rollout(self) -> Rollout:
        """A rollout of this run's size, to be filled by :meth:`collect`."""
        T, N, S = self.cfg.rollout_steps, self.cfg.num_games, len(self.signal_games)
        obl_shape = (T, N) if self.obl is not None else (0,)
        return Rollout(
            obs=torch.zeros(T, N, self.obs_dim),
            mask=torch.zeros(T, N, NUM_ACTIONS, dtype=torch.bool),
            actions=torch.zeros(T, N, dtype=torch.long),
            logp=torch.zeros(T, N),
            values=torch.zeros(T, N),
            rewards=torch.zeros(T, N),
            dones=torch.zeros(T, N, dtype=torch.bool),
            learn=torch.zeros(T, N, dtype=torch.bool),
            fate=torch.full((T, N), -1, dtype=torch.long),
            last_value=torch.zeros(N),
            signal_on=torch.zeros(T, S, dtype=torch.bool),
            signal_w=torch.zeros(T, S, len(HANDS_X)),
            signal_masks=torch.zeros(T, S, len(PAIRS), NUM_PLAYS, dtype=torch.bool),
            obl_on=torch.zeros(obl_shape, dtype=torch.bool),
            obl_q=torch.zeros(obl_shape),
        )

    def collect(self, model: ActorCritic | None = None, out: Rollout | None = None) -> Rollout:
        """Step every game ``rollout_steps`` times with ``model`` (default: the network
        being trained), into ``out`` if given (every field is written), else a new
        rollout."""
        model = self.model if model is None else model
        cfg, g = self.cfg, self.games
        r = self.empty_rollout() if out is None else out
        for t in range(cfg.rollout_steps):
            obs, mask = self._observe()
            learn = learner_decides(g, cfg.regime)
            r.obs[t], r.mask[t] = torch.from_numpy(obs), torch.from_numpy(mask)
            actions, logp, values = model.act(r.obs[t], r.mask[t], self.generator)
            chosen = actions.numpy().copy()
            if not learn.all():
                scripted = np.flatnonzero(~learn)
                chosen[scripted] = self.scripted.act(g, scripted)
                actions = torch.from_numpy(chosen)
            if self.zsc is not None:
                chosen, learn = self.zsc.apply(g, chosen, mask, learn)
                actions = torch.from_numpy(chosen)
            if self.cfg.env.belief == "aux":  # otherwise -1 throughout, as empty_rollout
                r.fate[t] = torch.from_numpy(self._fate_targets())
            if len(self.signal_games):  # before record writes this turn's memory
                self._signal(r, t, obs, mask, learn)
            if self.belief is not None:  # a partner's play is not read as the learner's
                seen = chosen if self.zsc is None else self.zsc.belief_actions(chosen, learn)
                self.belief.record(g, obs, mask, seen, model)
            if self.obl is not None:
                self._obl(r, t, obs, mask, chosen, model)
            reward, terminated, truncated, info = g.step(chosen)
            r.actions[t], r.logp[t], r.values[t] = actions, logp, values
            r.rewards[t] = torch.from_numpy(reward)
            r.dones[t] = torch.from_numpy(terminated | truncated)
            r.learn[t] = torch.from_numpy(learn)
            self.global_step += int(learn.sum())
            self._ended(info)
        obs, _ = self._observe()
        with torch.no_grad():
            r.last_value[...] = model.value(torch.from_numpy(obs))
        return r

    def _obl(
        self,
        r: Rollout,
        t: int,
        obs: np.ndarray,
        mask: np.ndarray,
        chosen: np.ndarray,
        model: ActorCritic,
    ) -> None:
        """Record step ``t``'s fictitious targets and the grounding belief's plays."""
        rows, q = self.obl.targets(self.games, chosen, model)
        r.obl_on[t] = False
        r.obl_on[t, rows] = True
        r.obl_q[t, rows] = torch.from_numpy(q).float()
        self.obl.record(self.games, obs, mask, chosen)

    def _signal(
        self, r: Rollout, t: int, obs: np.ndarray, mask: np.ndarray, learn: np.ndarray
    ) -> None:
        """Record step ``t``'s first-play decisions of the signalling games."""
        g, games = self.games, self.signal_games
        rows = first_play_rows(g, games[learn[games]])
        rows = rows[mask[rows, :NUM_PLAYS].any(1)]
        r.signal_on[t] = False
        if not len(rows):
            return
        weights, masks = signal_inputs(g, rows, obs[rows], self.belief.carry_of(g, rows))
        pos = torch.from_numpy(np.searchsorted(games, rows))
        r.signal_on[t, pos] = True
        r.signal_w[t, pos] = torch.from_numpy(weights)
        r.signal_masks[t, pos] = torch.from_numpy(masks)

    def _signal_batches(
        self, r: Rollout, chunks: int, generator: torch.Generator
    ) -> list[dict[str, torch.Tensor]]:
        """The signalling decisions of ``r`` shuffled into ``chunks`` parts, one per
        minibatch of an epoch."""
        t, s = r.signal_on.nonzero(as_tuple=True)
        games = torch.from_numpy(self.signal_games)[s]
        order = torch.randperm(len(t), generator=generator)
        t, s, games = t[order], s[order], games[order]
        data = {
            "obs": r.obs[t, games],
            "mask": r.mask[t, games],
            "w": r.signal_w[t, s],
            "masks": r.signal_masks[t, s],
        }
        bounds = np.linspace(0, len(t), chunks + 1).astype(int)
        return [{k: v[a:b] for k, v in data.items()} for a, b in itertools.pairwise(bounds)]

    def _ended(self, info: dict) -> None:
        ended = np.flatnonzero(info["_final"])
        if not len(ended):
            return
        if self.scripted is not None:
            self.scripted.restart(ended)
        if self.belief is not None:
            self.belief.restart(ended)
        if self.zsc is not None:
            self.zsc.restart(ended)
        if self.obl is not None:
            self.obl.restart(ended)
        per = self.games.per_part
        for e in ended:
            self.episodes.append(
                (
                    self.games.difficulties[e // per],
                    bool(info["won"][e]),
                    int(info["score"][e]),
                    int(info["doom"][e]),
                )
            )

    # --- learning ------------------------------------------------------------------------

    def update(
        self, r: Rollout, generator: torch.Generator | None = None, step: int | None = None
    ) -> dict[str, float]:
        """PPO epochs over one rollout; returns the mean losses. ``generator`` shuffles
        the minibatches (default: the trainer's), ``step`` sets the annealed learning
        rate (default: the learner steps so far)."""
        cfg = self.cfg.ppo
        generator = self.generator if generator is None else generator
        step = self.global_step if step is None else step
        if cfg.anneal_lr:
            frac = max(0.0, 1.0 - step / self.cfg.total_steps)
            self.optimizer.param_groups[0]["lr"] = cfg.learning_rate * max(frac, 0.02)
        adv, target = advantages(r, cfg.gamma, cfg.gae_lambda)
        if self.obl is not None:
            adv, target = apply_targets(r.obl_on, r.obl_q, r.values, adv, target)
        flat = {
            "obs": r.obs.flatten(0, 1),
            "mask": r.mask.flatten(0, 1),
            "actions": r.actions.flatten(),
            "logp": r.logp.flatten(),
            "adv": adv.flatten(),
            "target": target.flatten(),
            "learn": r.learn.flatten(),
            "fate": r.fate.flatten(),
        }
        n = flat["actions"].shape[0]
        keys = ("pg", "vf", "ent", "aux", "signal", "kl", "clip")
        stats: dict[str, list[float]] = {k: [] for k in keys}
        chunks = -(-n // cfg.minibatch_size)
        for _ in range(cfg.epochs):
            order = torch.randperm(n, generator=generator)
            signal = self._signal_batches(r, chunks, generator) if len(self.signal_games) else None
            for j, start in enumerate(range(0, n, cfg.minibatch_size)):
                idx = order[start : start + cfg.minibatch_size]
                batch = {k: v[idx] for k, v in flat.items()}
                part = None if signal is None else signal[j]
                losses = self._loss(batch, part)
                minibatch_step(self.model, self.optimizer, losses["loss"], cfg.max_grad_norm)
                for k in stats:
                    stats[k].append(float(losses[k].detach()))
            if cfg.target_kl and np.mean(stats["kl"][-(n // cfg.minibatch_size or 1) :]) > (
                cfg.target_kl
            ):
                break
        return {k: float(np.mean(v)) if v else 0.0 for k, v in stats.items()}

    def _loss(
        self, b: dict[str, torch.Tensor], signal: dict[str, torch.Tensor] | None = None
    ) -> dict[str, torch.Tensor]:
        """:func:`~shipwreck_training.fast.loss.ppo_loss` of this run's network (also
        timed on its own by ``lab/bench/bench_fast_ppo.py``)."""
        return ppo_loss(self.model, b, self.cfg.ppo, self.games.layout, signal)

    def train_step(self) -> dict[str, float]:
        """One rollout and one update; returns its figures (timings included)."""
        if self.cfg.overlap != "off":
            return self._overlapped_step()
        start, cpu_start = time.perf_counter(), time.process_time()
        before = self.global_step
        rollout = self.collect()
        collected, cpu_collected = time.perf_counter(), time.process_time()
        losses = self.update(rollout)
        done, cpu_done = time.perf_counter(), time.process_time()
        # this process's CPU time (all its threads, not the partner's workers): on a
        # loaded machine it shows what the wall-clock figures hide
        cpu = (cpu_collected - cpu_start, cpu_done - cpu_collected)
        return self._figures(
            losses, before, done - start, (collected - start, done - collected), cpu
        )

    def _figures(
        self,
        losses: dict[str, float],
        before: int,
        wall: float,
        walls: tuple[float, float],
        cpus: tuple[float, float],
    ) -> dict[str, float]:
        """Count the update and return its figures: losses, steps, steps/s, and the
        wall and CPU seconds of collection and update."""
        self.update_index += 1
        self.wall += wall
        steps = self.global_step - before
        return {
            **losses,
            "steps": steps,
            "sps": steps / wall,
            "collect_s": walls[0],
            "update_s": walls[1],
            "collect_cpu_s": cpus[0],
            "update_cpu_s": cpus[1],
        }

    def collection_state(self) -> dict:
        """The collecting side: games, sampling stream, per-game memories, step count
        (the collector process's, once it runs)."""
        if self._collector is not None:
            return self._collector.states()[1]
        return {
            "generator": self.generator.get_state(),
            "games": self.games.state_dict(),
            # the partner's spec and memory as plain data: no pickled policy object
            "scripted": self.scripted.state_dict() if self.scripted is not None else None,
            "belief": self.belief.state_dict() if self.belief is not None else None,
            "zsc": self.zsc.state_dict() if self.zsc is not None else None,
            "obl": self.obl.state_dict() if self.obl is not None else None,
            "global_step": self.global_step,
        }

    def load_collection_state(self, state: dict) -> None:
        """Put back :meth:`collection_state` (here and in the collector process)."""
        self.generator.set_state(state["generator"])
        self.games.load_state_dict(state["games"])
        if self.scripted is not None:
            self.scripted.load_state_dict(state["scripted"])
        if self.belief is not None:
            self.belief.load_state_dict(state["belief"])
        if self.zsc is not None:
            self.zsc.load_state_dict(state["zsc"])
        if self.obl is not None:
            self.obl.load_state_dict(state["obl"])
        self.global_step = state["global_step"]
        if self._collector is not None:
            self._collector.load(state)

    def _collect_pending(self) -> float:
        """Collect the next rollout with the frozen copy, keeping the state before it;
        returns the collection's CPU seconds when another process spent them (else 0)."""
        if self.cfg.overlap == "thread":
            self._before_pending = self.collection_state()
            self.pending = self.collect(self.behaviour)
            return 0.0
        if self._collector is None:  # started from this process's games, as they are now
            self._buffers = [self._shared_rollout(), self._shared_rollout()]
            self._collector = CollectorProcess(
                self.cfg, self.behaviour, self._buffers, self.collection_state()
            )
        buffer = 1 - self._pending_buffer if self.pending is not None else 0
        self._collector.start(buffer)
        return self._take(buffer)["collect_cpu_s"]

    def _shared_rollout(self) -> Rollout:
        r = self.empty_rollout()
        for value in vars(r).values():
            value.share_memory_()
        return r

    def _take(self, buffer: int) -> dict:
        """Wait for the collector's rollout into ``buffer``: it becomes the pending one."""
        result = self._collector.result()
        self.pending, self._pending_buffer = self._buffers[buffer], buffer
        self.global_step = result["global_step"]
        self.episodes.extend(result["episodes"])
        return result

    def _learn(self, rollout: Rollout, step: int) -> tuple[dict[str, float], float]:
        """(losses, wall seconds) of one update."""
        start = time.perf_counter()
        losses = self.update(rollout, self.update_generator, step)
        return losses, time.perf_counter() - start

    def _overlapped_step(self) -> dict[str, float]:
        if self.cfg.overlap == "process":
            return self._process_step()
        start, cpu_start = time.perf_counter(), time.process_time()
        thread_cpu, before = time.thread_time(), self.global_step
        if self.pending is None:  # the first rollout has nothing to overlap with
            self._collect_pending()
        rollout, step = self.pending, self.global_step
        self.behaviour.load_state_dict(self.model.state_dict())
        learning = self._learner.submit(self._learn, rollout, step)
        try:
            self._collect_pending()
        finally:
            losses, update_s = learning.result()  # the learner's errors surface here
        collect_s, collect_cpu = time.perf_counter() - start, time.thread_time() - thread_cpu
        done, cpu_done = time.perf_counter(), time.process_time()
        # the two walls overlap; the CPU split is the collecting thread's and the rest
        # of the process's (learner thread, torch's pool), which add up to the process's
        cpu = (collect_cpu, cpu_done - cpu_start - collect_cpu)
        return self._figures(losses, before, done - start, (collect_s, update_s), cpu)

    def _process_step(self) -> dict[str, float]:
        """The overlapped step with the collector process: this process's CPU time is
        the update's, the collector reports its own."""
        start, cpu_start, before = time.perf_counter(), time.process_time(), self.global_step
        first_cpu = 0.0
        if self.pending is None:  # the first rollout has nothing to overlap with
            first_cpu = self._collect_pending()
        rollout, step = self.pending, self.global_step
        self.behaviour.load_state_dict(self.model.state_dict())  # read by the collector
        buffer = 1 - self._pending_buffer
        self._collector.start(buffer)
        try:
            losses, update_s = self._learn(rollout, step)
        finally:
            result = self._take(buffer)  # the collector's errors surface here
        done, cpu_done = time.perf_counter(), time.process_time()
        cpu = (first_cpu + result["collect_cpu_s"], cpu_done - cpu_start)
        walls = (result["collect_s"], update_s)
        return self._figures(losses, before, done - start, walls, cpu)

    def finish(self) -> dict[str, float] | None:
        """Learn from the rollout still in flight (``overlap``), if any, without
        collecting another: the run's last update. Returns its losses."""
        if self.pending is None:
            return None
        losses = self.update(self.pending, self.update_generator, self.global_step)
        self.pending = self._before_pending = None
        self.update_index += 1
        return losses

    # --- checkpoints ---------------------------------------------------------------------

    def state_dict(self) -> dict:
        """Everything needed to continue exactly. With a rollout in flight
        (``overlap``): the collecting side as it was before it, and the frozen copy
        that collected it (a few MB, where the rollout itself is hundreds)."""
        pending = self.pending is not None
        if pending and self._collector is not None:
            before = self._collector.states()[0]
        else:
            before = self._before_pending if pending else self.collection_state()
        return {
            "config": self.cfg.to_dict(),
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            **before,
            "behaviour": self.behaviour.state_dict() if pending else None,
            "update_generator": self.update_generator.get_state(),
            "update_index": self.update_index,
            "wall": self.wall,
        }

    def load_state_dict(self, state: dict) -> None:
        """Continue from :meth:`state_dict` (the config must be the same); a rollout
        that was in flight is collected again, as it was."""
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.load_collection_state(state)
        if "update_generator" in state:  # checkpoints before overlap existed lack it
            self.update_generator.set_state(state["update_generator"])
        self.update_index = state["update_index"]
        self.wall = state["wall"]
        self.pending = self._before_pending = None
        if state.get("behaviour") is not None:
            self.behaviour.load_state_dict(state["behaviour"])
            self._collect_pending()
            self.episodes.clear()  # already counted before the checkpoint

    def close(self) -> None:
        """Stop the learner thread, the collector process and the partner's worker
        processes, if any."""
        if self._learner is not None:
            self._learner.shutdown()
        if self._collector is not None:
            self._collector.close()
            self._collector = None
        if self.scripted is not None:
            self.scripted.close()

    def save(self, path: Path) -> None:
        """Write a checkpoint atomically (a crash mid-write keeps the previous one)."""
        tmp = path.with_suffix(".tmp")
        torch.save(self.state_dict(), tmp)
        tmp.replace(path)

    def write_json(self, name: str, record: dict) -> None:
        """Append ``record`` to ``<run_dir>/<name>.jsonl``."""
        if self.run_dir is not None:
            with open(self.run_dir / f"{name}.jsonl", "a") as fh:
                fh.write(json.dumps(record) + "\n")
