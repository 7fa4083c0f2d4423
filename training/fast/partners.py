"""The scripted partner of the ``play`` and ``predict`` regimes, deciding in worker processes.

A registry policy (``shipwreck_agents.registry``) decides one game at a time in Python,
which bounds those regimes. :class:`Partners` keeps one policy object and one random
generator per game place and hands the places to ``workers`` processes (place ``g`` to
worker ``g % workers``; 0 workers: in this process). Each place's generator is seeded
from ``(seed, place)`` and only that place's decisions draw from it, so the actions are
the same whatever the number of workers.

A spec with a batched twin (:data:`BATCHED`: ``heuristic``, whose batched form is
``shipwreck_agents.scripted.heuristic_batched``, and ``bayes``, whose batched form is
``shipwreck_agents.scripted.bayes_batched``; both return exactly the policy's actions) decides for
every game at once on the batched engine's arrays instead, in this process (``workers``
is then not used), unless ``batched=False`` (the fast trainer's ``partners.batched:
false``) forces the per-game path, to compare the two. The environment variable
``SHIPWRECK_PYTHON_PARTNER=1`` still forces it too (deprecated: use the config key). The
policy objects and generators are kept in both cases, so a checkpoint is the same
whichever path wrote it or reads it: the heuristic player draws nothing from its
generator and keeps no memory; the Bayesian group's memory (what each player concluded
about each seat's kept fate, and its posterior cache) lives in arrays of the batched
group while it plays and is written into the policy objects before a checkpoint is
taken (and read back from them after one is loaded).

A checkpoint holds the spec and, per place, the policy's memory as plain data
(:func:`memory_of`: numbers, strings, arrays, containers of them, generator states),
never a pickled policy object: a renamed module or class cannot break a resume, and the
policies are rebuilt from the spec and their memory put back (:func:`restore_memory`).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import warnings
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from shipwreck_env.envs.policy import decide, observation_layouts
from shipwreck_training.fast.sigint import ignore_sigint

if TYPE_CHECKING:
    from shipwreck_env.rules.state import State
    from shipwreck_training.common.games import Games

__all__ = ["BATCHED", "Partners", "batched_for", "memory_of", "restore_memory"]

BATCHED = ("heuristic", "bayes")
"""Specs decided on the batched engine's arrays (the same actions as the policy's)."""
FORCE_PYTHON = "SHIPWRECK_PYTHON_PARTNER"
"""Environment variable: ``1`` makes every spec decide game by game in Python
(deprecated: the fast trainer's config key ``partners.batched: false`` does it)."""


def batched_for(spec: str, batched: bool = True) -> bool:
    """Does ``spec`` decide on the batched engine here (:data:`BATCHED`, ``batched``
    and not forced off by the deprecated environment variable)?"""
    flag = os.environ.get(FORCE_PYTHON, "")
    if flag not in ("", "0", "1"):
        raise ValueError(f"{FORCE_PYTHON}={flag!r} is not allowed; allowed: '', '0', '1'")
    if flag == "1":
        warnings.warn(
            f"{FORCE_PYTHON}=1 is deprecated; set partners.batched: false in the config",
            DeprecationWarning,
            stacklevel=2,
        )
    return spec in BATCHED and batched and flag != "1"


_PLAIN = (type(None), bool, int, float, str, bytes, np.ndarray, np.generic)
_CONTAINERS = (list, tuple, set, frozenset)
_OWN = ("shipwreck_",)  # objects of our packages are walked; others come back from the spec


def _plain(value: Any) -> bool:
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, _CONTAINERS):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return False


def memory_of(obj: Any) -> dict[str, Any]:
    """``obj``'s attributes as plain data: plain values as they are (copied), a
    generator as its state, an object of our packages as its own :func:`memory_of`;
    objects of other libraries are left out (the spec rebuilds them).

    Raises:
        ValueError: an attribute holds a container of objects (not plain data).
    """
    out: dict[str, Any] = {}
    for name, value in vars(obj).items():
        if isinstance(value, np.random.Generator):
            out[name] = {"generator": value.bit_generator.state}
        elif _plain(value):
            out[name] = {"plain": _copy(value)}
        elif type(value).__module__.startswith(_OWN) and hasattr(value, "__dict__"):
            out[name] = {"object": memory_of(value)}
        elif not (callable(value) or _is_network(value)):
            raise ValueError(
                f"attribute {name!r} of {type(obj).__name__} holds a {type(value).__name__}, "
                "which a checkpoint cannot keep as plain data; allowed: numbers, strings, "
                "arrays, containers of them, generators, objects of shipwreck packages, "
                "networks and functions (both rebuilt from the spec)"
            )
    return out


def _is_network(value: Any) -> bool:
    """A torch module (its weights come from the spec's file, not from memory)."""
    import sys

    torch = sys.modules.get("torch")  # a partner without a network never imports torch
    return torch is not None and isinstance(value, torch.nn.Module)


def restore_memory(obj: Any, memory: dict[str, Any]) -> None:
    """Put :func:`memory_of`'s ``memory`` back into ``obj`` (rebuilt from its spec)."""
    for name, entry in memory.items():
        if "generator" in entry:
            getattr(obj, name).bit_generator.state = entry["generator"]
        elif "plain" in entry:
            setattr(obj, name, _copy(entry["plain"]))
        else:
            restore_memory(getattr(obj, name), entry["object"])


def _copy(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, (tuple, set, frozenset)):
        return type(value)(_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


class _Places:
    """The policies and generators of some game places (in a worker or in-process)."""

    def __init__(self, spec: str, places: list[int], seed: int) -> None:
        from shipwreck_agents.registry import make_policy

        self.policies = {g: make_policy(spec) for g in places}
        self.rngs = {g: np.random.default_rng([seed, g]) for g in places}
        self.layouts: dict = {}

    def act(self, places: list[int], states: list[State]) -> list[int]:
        out = []
        for g, s in zip(places, states, strict=True):
            layouts = self.layouts.get(s.config)
            if layouts is None:  # building a layout compiles its encoder: keep it
                layouts = self.layouts[s.config] = observation_layouts(s.config)
            out.append(decide(self.policies[g], s, layouts, self.rngs[g]).action)
        return out

    def restart(self, places: list[int]) -> None:
        for g in places:
            self.policies[g].reset()

    def state(self) -> dict[int, dict]:
        return {
            g: {"policy": memory_of(p), "rng": self.rngs[g].bit_generator.state}
            for g, p in self.policies.items()
        }

    def load(self, state: dict[int, dict]) -> None:
        for g, entry in state.items():
            if g in self.policies:
                restore_memory(self.policies[g], entry["policy"])
                self.rngs[g].bit_generator.state = entry["rng"]


def _serve(conn, spec: str, places: list[int], seed: int) -> None:
    """A worker: answer the main process's requests until it says ``close``."""
    ignore_sigint()
    try:
        holder = _Places(spec, places, seed)
        conn.send(("ready", None))
    except Exception as exc:
        conn.send(("error", repr(exc)))
        return
    while True:
        try:
            command, args = conn.recv()
        except EOFError:  # the main process ended without saying close
            return
        if command == "close":
            return
        try:
            conn.send(("ok", getattr(holder, command)(*args)))
        except Exception as exc:
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


class Partners:
    """A registry policy taking the decisions the learner does not take.

    Args:
        spec: registry spec (``shipwreck_agents.registry``).
        num_games: game places.
        seed: seeds each place's generator (with the place number).
        workers: processes deciding (0: this process; not used by a batched spec).
        batched: decide a spec of :data:`BATCHED` on the batched engine (False: game by
            game in Python, the same actions).
    """

    def __init__(
        self, spec: str, num_games: int, seed: int, workers: int = 0, batched: bool = True
    ) -> None:
        self.batched = batched_for(spec, batched)
        self._group = None  # the batched Bayesian group, made at its first decision
        if self.batched:
            workers = 0
        self.spec, self.num_games, self.workers = spec, num_games, workers
        if workers == 0:
            self._local = _Places(spec, list(range(num_games)), seed)
            self._conns: list = []
            return
        self._local = None
        context = mp.get_context("spawn")  # torch's threads in this process do not fork well
        self._conns, processes = [], []
        for w in range(workers):
            here, there = context.Pipe()
            places = list(range(w, num_games, workers))
            process = context.Process(target=_serve, args=(there, spec, places, seed), daemon=True)
            process.start()
            self._conns.append(here)
            processes.append(process)
        # stopped even when a Ctrl-C lands before every worker said it is ready
        self._close = weakref.finalize(self, _shutdown, self._conns, processes)
        for conn in self._conns:
            self._answer(conn)

    @staticmethod
    def _answer(conn) -> Any:
        try:
            status, value = conn.recv()
        except EOFError:
            raise RuntimeError("a partner worker stopped without answering") from None
        if status == "error":
            raise RuntimeError(f"a partner worker failed: {value}")
        return value

    def _each(self, command: str, by_worker: dict[int, tuple]) -> dict[int, Any]:
        """Send ``command`` to the workers in ``by_worker`` at once, then collect."""
        for w, args in by_worker.items():
            self._conns[w].send((command, args))
        return {w: self._answer(self._conns[w]) for w in by_worker}

    def restart(self, games: np.ndarray) -> None:
        """The games in places ``games`` restarted: their policies forget them."""
        places = [int(g) for g in games]
        if self._group is not None:
            self._group.restart(np.asarray(places, np.int64))
        if self._local is not None:
            self._local.restart(places)
            return
        split: dict[int, tuple] = {}
        for g in places:
            split.setdefault(g % self.workers, ([],))[0].append(g)
        self._each("restart", split)

    def act(self, games: Games, which: np.ndarray) -> np.ndarray:
        """Actions of the scripted policy in the games ``which`` (global indices)."""
        if self.batched:
            return self._act_batched(games, np.asarray(which, np.int64))
        states: list = [None] * len(which)
        for k, pos, local in games.locate(which):
            for i, s in zip(pos, games.parts[k].to_states(local.tolist()), strict=True):
                states[i] = s
        places = [int(g) for g in which]
        if self._local is not None:
            return np.asarray(self._local.act(places, states), np.int64)
        rows: dict[int, list[int]] = {}
        for i, g in enumerate(places):
            rows.setdefault(g % self.workers, []).append(i)
        answers = self._each(
            "act",
            {w: ([places[i] for i in r], [states[i] for i in r]) for w, r in rows.items()},
        )
        out = np.zeros(len(which), np.int64)
        for w, r in rows.items():
            out[r] = answers[w]
        return out

    def _act_batched(self, games: Games, which: np.ndarray) -> np.ndarray:
        from shipwreck_agents.scripted.heuristic_batched import heuristic_actions

        policy = self._local.policies[0]
        player = getattr(policy, "model", policy)  # the heuristic's own parameters
        out = np.zeros(len(which), np.int64)
        for k, pos, local in games.locate(which):
            part = games.parts[k]
            a, mask = part.arrays, part.legal_mask()
            players = a.config.num_players
            mine = a.decider[local].astype(np.int64) == a.active[local].astype(np.int64) % players
            if mine.any():  # the active player's decisions: the heuristic (the group's model)
                out[pos[mine]] = heuristic_actions(
                    a, local[mine], mask, player.doom_weight, player.power_margin
                )
            if not mine.all():
                group = self._batched_group(a)
                first = k * games.per_part
                out[pos[~mine]] = group.act(a, part.cards, local[~mine], mask, first)
        return out

    def _batched_group(self, arrays):
        """The batched Bayesian group, made with the memory the policy objects hold."""
        if self._group is None:
            from shipwreck_agents.scripted.bayes_batched import BatchedBayes

            if self.spec not in ("bayes",):
                raise ValueError(
                    f"partner {self.spec!r} decides only as the active player; allowed for "
                    "group decisions: 'bayes'"
                )
            config = arrays.config
            policies = self._local.policies
            self._group = BatchedBayes(
                self.num_games, config.num_players, config.num_seats, policies[0]
            )
            for g, policy in policies.items():
                self._group.from_policy(g, policy)
        return self._group

    def state_dict(self) -> dict:
        """The spec and every place's memory and generator, as plain data."""
        if self._group is not None:  # the batched group's memory into the policies
            for g, policy in self._local.policies.items():
                self._group.to_policy(g, policy)
        if self._local is not None:
            places = self._local.state()
        else:
            places = {}
            for part in self._each("state", dict.fromkeys(range(self.workers), ())).values():
                places.update(part)
        return {"spec": self.spec, "places": [places[g] for g in range(self.num_games)]}

    def load_state_dict(self, state: dict) -> None:
        """Put back :meth:`state_dict` (the same spec; any number of workers)."""
        if state["spec"] != self.spec:
            raise ValueError(
                f"checkpoint partner {state['spec']!r} is not allowed for this run; "
                f"allowed: {self.spec!r}"
            )
        places = dict(enumerate(state["places"]))
        if self._local is not None:
            self._local.load(places)
            if self._group is not None:
                for g, policy in self._local.policies.items():
                    self._group.from_policy(g, policy)
            return
        self._each("load", {w: (places,) for w in range(self.workers)})

    def close(self) -> None:
        """Stop the workers (also done when the object is collected)."""
        if self._local is None:
            self._close()


def _shutdown(conns: list, processes: list) -> None:
    for conn in conns:
        with contextlib.suppress(BrokenPipeError, OSError):
            conn.send(("close", ()))
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.terminate()
