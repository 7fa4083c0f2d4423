"""Speed benchmark: ``shipwreck-arcana bench`` (also ``python -m shipwreck_apps.bench``).

Measures, on one core, with uniformly random legal actions:

* ``engine``: engine decisions per second (``legal_actions`` + ``step_inplace``);
* ``batched engine``: agent-steps per second of :class:`~shipwreck_env.vector.VectorGame`
  at several batch sizes N (1 to 16,384), for the base set and for every set (every
  game's decider observed, one random legal action per game and step), with the peak
  memory per game (``tracemalloc``);
* first calls: a fresh process's first AEC game and first ``VectorGame`` step with an
  empty numba cache (cold) and with the cache it left (warm), and how many lines the
  cold run printed;
* ``aec``: agent-steps per second of the wrapped PettingZoo env (``env()``), with the
  acting agent's observation built at every step by ``last()``;
* ``Play-v0``: learner steps per second of ``ShipwreckArcana-Play-v0`` with the Bayesian
  group as partner (the row says why when gymnasium is not installed)
  through ``gymnasium.make_vec`` with ``vectorization_mode="vector_entry_point"`` (the
  batched engine and the compiled group) and with ``"sync"`` (one single env per game),
  same batch size, and the ratio of the two;
* when installed (``pip install "pettingzoo[classic]" open_spiel``), the same loop on
  PettingZoo ``hanabi_v5`` and ``connect_four_v3``, and OpenSpiel's C++ ``hanabi``
  with its ``observation_tensor`` read at every step.

Each figure is the median of ``--repeats`` runs of ``--seconds`` each, taken round-robin
over the benchmarks (the machine is shared: single runs are noisy, and the load
drifts). Prints a table with ratios to OpenSpiel's Hanabi and writes JSON with every run,
the processor's model and its vector extensions beside every figure (:func:`cpu_info`).

It lives with the applications, not in the core package: it measures the game beside
other libraries' games and the agents' batched partner, which the core must not import.
The trainers' benchmarks (they need ``shipwreck_training``) are in the lab, ``lab/bench/``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["BENCHMARKS", "cpu_info", "main", "run_benchmarks"]


def _engine(config_kwargs: dict) -> Callable[[float], float]:
    from shipwreck_env.rules.config import GameConfig
    from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace

    config = GameConfig(**config_kwargs)

    def run(seconds: float) -> float:
        rng = np.random.default_rng(0)
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            s = new_game(config, rng)
            while not s.over:
                legal = legal_actions(s)
                step_inplace(s, legal[int(rng.random() * len(legal))], rng, check=False)
                steps += 1
        return steps / (time.perf_counter() - start)

    return run


def _pettingzoo(make: Callable[[], object]) -> Callable[[float], float]:
    def run(seconds: float) -> float:
        env = make()
        rng = np.random.default_rng(0)
        steps = games = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            env.reset(seed=games)
            games += 1
            for _agent in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    action = None
                else:
                    # the mask's own nonzero(): np.flatnonzero's ravel and dispatch
                    # wrappers cost more than the pick (same legal actions, same order)
                    legal = obs["action_mask"].nonzero()[0]
                    action = int(legal[int(rng.random() * len(legal))])
                env.step(action)
                steps += 1
        return steps / (time.perf_counter() - start)

    return run


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a bool ``[N, A]`` mask (every row
    must allow one): the ``floor(u * count)``-th legal action of each row, with ``u``
    uniform from ``rng`` (compiled: the policy must not cost more than the game)."""
    from shipwreck_env.vector.engine import pick_legal

    out = np.empty(len(mask), np.int64)
    pick_legal(mask, rng.random(len(mask)), out)
    return out


def _batched(num_games: int, config_kwargs: dict) -> Callable[[float], float] | str:
    """The batched engine: every game's decider observed, a random legal action each
    (or why it cannot run these games)."""
    from shipwreck_env.vector import VectorGame

    try:
        VectorGame(1, seed=0, **config_kwargs)
    except ValueError as error:
        return "not covered" if "not covered" in str(error) else f"cannot run: {error}"

    def run(seconds: float) -> float:
        vg = VectorGame(num_games, seed=0, **config_kwargs)
        rng = np.random.default_rng(0)
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            vg.observe()
            vg.step(sample_legal(vg.legal_mask(), rng))
            steps += num_games
        return steps / (time.perf_counter() - start)

    return run


def batched_memory(num_games: int, config_kwargs: dict, steps: int = 20) -> float:
    """Peak bytes per game that numpy allocates to create ``num_games`` batched games
    and step them (observations and masks included), traced with ``tracemalloc``."""
    import tracemalloc

    from shipwreck_env.vector import VectorGame

    rng = np.random.default_rng(0)
    tracemalloc.start()
    try:
        vg = VectorGame(num_games, seed=0, **config_kwargs)
        for _ in range(steps):
            vg.observe()
            vg.step(sample_legal(vg.legal_mask(), rng))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / num_games


def batched_split(num_games: int, seconds: float = 3.0) -> dict[str, float]:
    """Where a batched step's time goes: median milliseconds per call of ``observe``,
    ``legal_mask``, the random policy and ``step`` at ``num_games`` games (3 players,
    base), over ``seconds``."""
    from shipwreck_env.vector import VectorGame

    vg = VectorGame(num_games, seed=0, num_players=3)
    rng = np.random.default_rng(0)
    parts: dict[str, list[float]] = {"observe": [], "legal_mask": [], "policy": [], "step": []}
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        vg.observe()
        t1 = time.perf_counter()
        mask = vg.legal_mask()
        t2 = time.perf_counter()
        actions = sample_legal(mask, rng)
        t3 = time.perf_counter()
        vg.step(actions)
        t4 = time.perf_counter()
        for name, dt in zip(parts, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            parts[name].append(dt * 1e3)
    return {name: statistics.median(values) for name, values in parts.items()}


_FIRST_CALL = """
import time
start = time.perf_counter()
import numpy as np
from shipwreck_env.vector import VectorGame
vg = VectorGame(4096, seed=0, num_players=3)
vg.observe()
vg.step(vg.random_legal(vg.legal_mask(), np.random.default_rng(0)))
print(time.perf_counter() - start, time.process_time(), vg.compiled)
"""
_FIRST_GAME = """
import time
start = time.perf_counter()
import numpy as np
import shipwreck_env
env = shipwreck_env.env()
env.reset(seed=0)
rng = np.random.default_rng(0)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    legal = np.flatnonzero(obs["action_mask"])
    env.step(None if terminated or truncated else int(rng.choice(legal)))
print(time.perf_counter() - start, time.process_time(), env.unwrapped._game.compiled)
"""
FIRST_CALLS = {
    "aec": (_FIRST_GAME, {}),
    "aec_foreground": (_FIRST_GAME, {"SHIPWRECK_ARCANA_COMPILE": "foreground"}),
    "batched": (_FIRST_CALL, {}),
    "batched_foreground": (_FIRST_CALL, {"SHIPWRECK_ARCANA_COMPILE": "foreground"}),
}
"""What a fresh process runs first: ``aec``, ``import shipwreck_env``, ``env()``,
``reset()`` and one whole random game (a missing cache compiled in the background);
``aec_foreground`` the same with the compile in the process (as before issue 50).
Each prints its wall and processor seconds (and the AEC game whether it ran compiled);
``batched``, one ``VectorGame`` observe, mask and step at N=4,096 (a missing cache
compiled in the background, the batch meanwhile on the reference engine);
``batched_foreground`` the same compiled in the process."""


def _timed(program: str, env: dict) -> tuple[float, float, str]:
    """Run ``program`` in a fresh process: its wall and processor seconds, its stderr."""
    out = subprocess.run(
        [sys.executable, "-c", program], env=env, check=True, capture_output=True, text=True
    )
    wall, cpu = out.stdout.split()[:2]
    return float(wall), float(cpu), out.stderr


def compile_seconds(repeats: int = 3) -> dict[str, dict[str, list]]:
    """Seconds from a fresh process's first import to the end of its first call (see
    :data:`FIRST_CALLS`): ``cold`` with an empty numba cache, then ``warm`` with the
    cache it left (after the background compile, if one started, has finished),
    ``repeats`` runs each; ``*_cpu`` the processor time of those runs (what a busy
    machine does not inflate) and ``cold_lines`` the lines the cold run printed on
    stderr."""
    runs: dict[str, dict[str, list]] = {}
    for _ in range(repeats):
        for name, (program, extra) in FIRST_CALLS.items():
            kinds = runs.setdefault(name, {})
            with tempfile.TemporaryDirectory() as cache:
                env = {**os.environ, "NUMBA_CACHE_DIR": cache, **extra}
                env.setdefault("SHIPWRECK_ARCANA_COMPILE", "background")
                for kind in ("cold", "warm"):
                    wall, cpu, err = _timed(program, env)
                    kinds.setdefault(kind, []).append(wall)
                    kinds.setdefault(f"{kind}_cpu", []).append(cpu)
                    if kind == "cold":
                        kinds.setdefault("cold_lines", []).append(len(err.splitlines()))
                        # wait for a background compile to finish: warm means all cached
                        part = "batch" if name.startswith("batched") else "single"
                        wait = [sys.executable, "-m", "shipwreck_env.vector.warm"]
                        wait += ["--wait", "--part", part]
                        subprocess.run(wait, env=env, check=True, capture_output=True)
    return runs


def _shipwreck_aec(config_kwargs: dict) -> Callable[[float], float]:
    import shipwreck_env

    return _pettingzoo(lambda: shipwreck_env.env(**config_kwargs))


def _pz_classic(name: str) -> Callable[[float], float] | str | None:
    try:
        module = __import__(f"pettingzoo.classic.{name}", fromlist=["env"])
    except Exception:  # not installed (pettingzoo[classic] extra)
        return None
    try:
        module.env()  # hanabi_v5 imports without its own dependencies, then fails here
    except ImportError as error:
        return f"not installed ({error.__cause__ or error})"
    return _pettingzoo(module.env)


def _openspiel_hanabi() -> Callable[[float], float] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("hanabi")

    def run(seconds: float) -> float:
        rng = np.random.default_rng(0)
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
                    continue
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
                steps += 1
        return steps / (time.perf_counter() - start)

    return run


def _play_vec(mode: str, num_envs: int) -> Callable[[float], float] | str:
    """``ShipwreckArcana-Play-v0`` with the Bayesian partner through ``make_vec`` in
    ``mode``: learner steps per second, a random legal action per game from the
    masks (or why it cannot run)."""
    try:
        import gymnasium

        import shipwreck_env  # noqa: F401 -- registers the ids
        from shipwreck_agents.registry import make_policy
    except ModuleNotFoundError as error:
        return f"not installed ({error.name})"

    def run(seconds: float) -> float:
        envs = gymnasium.make_vec(
            "ShipwreckArcana-Play-v0",
            num_envs=num_envs,
            vectorization_mode=mode,
            partner=make_policy("bayes"),
            num_players=3,
        )
        masks = (
            envs.action_masks
            if mode == "vector_entry_point"
            else lambda: np.stack(envs.call("action_masks"))
        )
        rng = np.random.default_rng(0)
        envs.reset(seed=0)
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            envs.step(sample_legal(masks(), rng))  # no mask is empty, in either mode
            steps += num_envs
        envs.close()
        return steps / (time.perf_counter() - start)

    return run


PLAY_GAMES = 256
"""Batch size of the ``Play-v0`` rows (both modes)."""
PLAY_VECTOR = f"shipwreck Play-v0 + bayes, make_vec vector_entry_point, N={PLAY_GAMES}"
PLAY_SYNC = f"shipwreck Play-v0 + bayes, make_vec sync, N={PLAY_GAMES}"
BATCH_SIZES = (1, 64, 1024, 4096, 16384)
"""Batch sizes of the batched-engine rows."""

BENCHMARKS: dict[str, Callable[[], Callable[[float], float] | str | None]] = {
    "shipwreck engine (3 players, base)": lambda: _engine({"num_players": 3}),
    "shipwreck engine (3 players, all sets)": lambda: _engine(
        {"num_players": 3, "card_sets": "all"}
    ),
    "shipwreck AEC env (3 players, base)": lambda: _shipwreck_aec({"num_players": 3}),
    "shipwreck AEC env (5 players, all sets)": lambda: _shipwreck_aec(
        {"num_players": 5, "card_sets": "all"}
    ),
    **{
        f"shipwreck batched engine, N={n} (3 players, base)": (
            lambda n=n: _batched(n, {"num_players": 3})
        )
        for n in BATCH_SIZES
    },
    **{
        f"shipwreck batched engine, N={n} (3 players, all sets)": (
            lambda n=n: _batched(n, {"num_players": 3, "card_sets": "all"})
        )
        for n in BATCH_SIZES
    },
    PLAY_VECTOR: lambda: _play_vec("vector_entry_point", PLAY_GAMES),
    PLAY_SYNC: lambda: _play_vec("sync", PLAY_GAMES),
    "PettingZoo hanabi_v5": lambda: _pz_classic("hanabi_v5"),
    "PettingZoo connect_four_v3": lambda: _pz_classic("connect_four_v3"),
    "OpenSpiel hanabi (C++, observation_tensor)": _openspiel_hanabi,
}
REFERENCE = "OpenSpiel hanabi (C++, observation_tensor)"
AEC = "shipwreck AEC env (3 players, base)"


def run_benchmarks(seconds: float, repeats: int, only: Sequence[str] = ()) -> dict:
    """Run every available benchmark ``repeats`` times; medians and every run.

    The repeats go round-robin (run 1 of every benchmark, then run 2, ...): on a shared
    machine the load drifts over minutes, and a ratio between two rows is only fair if
    both rows saw the same stretch of it."""
    results: dict[str, dict] = {}
    runners: dict[str, Callable[[float], float]] = {}
    for name, factory in BENCHMARKS.items():
        if only and not any(key in name for key in only):
            continue
        run = factory()
        if run is None or isinstance(run, str):
            results[name] = {"available": False, "why": run or "not installed"}
            continue
        run(min(0.5, seconds))  # warm up
        runners[name] = run
        results[name] = {"available": True, "runs": []}
    for _ in range(repeats):
        for name, run in runners.items():
            results[name]["runs"].append(run(seconds))
    for name in runners:
        runs = results[name]["runs"]
        results[name]["median"] = statistics.median(runs)
        if name.startswith("shipwreck batched engine"):
            num_games = int(name.split("N=")[1].split(" ")[0])
            sets = {"card_sets": "all"} if "all sets" in name else {}
            results[name]["bytes_per_game"] = batched_memory(num_games, {"num_players": 3, **sets})
    return results


def format_table(results: dict) -> str:
    """Markdown table of medians, with ratios to OpenSpiel's Hanabi and to our AEC env
    measured in the same run, and the batched engine's peak memory per game."""
    ref = results.get(REFERENCE, {}).get("median")
    aec = results.get(AEC, {}).get("median")
    rows = [
        "| benchmark | steps/s (median) | runs | vs OpenSpiel Hanabi | vs our AEC env "
        "| peak memory per game |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        if not r.get("available"):
            rows.append(f"| {name} | {r.get('why', 'not installed')} | - | - | - | - |")
            continue
        ratio = f"{r['median'] / ref:.2f}x" if ref else "-"
        vs_aec = f"{r['median'] / aec:.2f}x" if aec else "-"
        memory = f"{r['bytes_per_game'] / 1024:.1f} KiB" if "bytes_per_game" in r else "-"
        rows.append(
            f"| {name} | {r['median']:,.0f} | {len(r['runs'])} | {ratio} | {vs_aec} | {memory} |"
        )
    return "\n".join(rows)


def format_play_ratio(results: dict) -> str | None:
    """One line: the ``Play-v0`` vector entry point's learner steps/s over the sync
    mode's, measured in the same run (``None`` when either row did not run)."""
    vector, sync = results.get(PLAY_VECTOR, {}), results.get(PLAY_SYNC, {})
    if not (vector.get("available") and sync.get("available")):
        return None
    return (
        f"`ShipwreckArcana-Play-v0` with the Bayesian partner, N={PLAY_GAMES}: the vector "
        f"entry point runs **{vector['median'] / sync['median']:.1f}x** the sync mode's "
        f"learner steps/s ({vector['median']:,.0f} against {sync['median']:,.0f}, same run)."
    )


def format_compile(runs: dict[str, dict[str, list]]) -> str:
    """A table of the first calls' seconds, cold and warm (medians)."""
    what = {
        "aec": "AEC env: import, `env()`, `reset()`, one whole random game",
        "aec_foreground": "the same, compiled in the process (`SHIPWRECK_ARCANA_COMPILE=foreground`)",
        "batched": "batched engine: import, `VectorGame(4096)`, one observe, mask and step",
        "batched_foreground": "the same, compiled in the process",
    }
    rows = [
        "| first call in a fresh process | cold: wall (processor) | lines printed cold "
        "| warm: wall (processor) | runs |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, kinds in runs.items():
        m = {kind: statistics.median(values) for kind, values in kinds.items()}
        rows.append(
            f"| {what.get(name, name)} | {m['cold']:.1f} s ({m['cold_cpu']:.1f} s) "
            f"| {max(kinds['cold_lines'])} | {m['warm']:.1f} s ({m['warm_cpu']:.1f} s) "
            f"| {len(kinds['cold'])} |"
        )
    return "\n".join(rows)


VECTOR_FLAGS = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "avx_vnni",
    "avx512f",
    "avx512bw",
    "avx512_vnni",
    "avx512_bf16",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
)
"""The ``/proc/cpuinfo`` flags of the vector extensions the benchmark records."""


def cpu_info() -> dict:
    """The processor's model name and its vector extensions (from ``/proc/cpuinfo``;
    ``platform.processor()`` elsewhere) and the cores this process may use."""
    model, flags = platform.processor() or platform.machine(), set()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    model = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
                if model and flags:
                    break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "model": model,
        "vector_extensions": [flag for flag in VECTOR_FLAGS if flag in flags],
        "cores": cores,
    }


def format_cpu(cpu: dict) -> str:
    """One line naming the processor, its vector extensions and cores."""
    extensions = ", ".join(cpu["vector_extensions"]) or "none recorded"
    return f"CPU: {cpu['model']} ({extensions}), {cpu['cores']} cores"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        description="Speed benchmark: agent steps per second with random legal actions "
        "(engine, AEC env, batched engine, and peers when installed)."
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="length of one run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per benchmark")
    parser.add_argument("--only", nargs="*", default=(), help="substrings of names to run")
    parser.add_argument("--json", default="results/bench/bench.json", help="where to write results")
    parser.add_argument(
        "--memory-games",
        type=int,
        default=0,
        metavar="N",
        help="only measure the batched engine's peak memory per game at N games "
        "(3 players, base) and the largest batch that fits in 1 GiB",
    )
    parser.add_argument(
        "--split",
        type=int,
        default=0,
        metavar="N",
        help="only show where a batched step's time goes at N games (median ms per call)",
    )
    parser.add_argument(
        "--compile-repeats",
        type=int,
        default=3,
        metavar="K",
        help="time the first calls (AEC game, batched step) K times cold and warm (0: skip)",
    )
    args = parser.parse_args(argv)
    if args.split:
        split = batched_split(args.split, args.seconds)
        total = sum(split.values())
        print(
            f"{format_cpu(cpu_info())}; N={args.split}: "
            + ", ".join(f"{k} {v:.2f} ms ({v / total:.0%})" for k, v in split.items())
            + f"; total {total:.2f} ms = {args.split / total * 1e3:,.0f} agent steps/s"
        )
        return 0
    if args.memory_games:
        per_game = batched_memory(args.memory_games, {"num_players": 3}, steps=10)
        print(
            f"N={args.memory_games}: peak {per_game:,.0f} bytes per game "
            f"({per_game * args.memory_games / 2**30:.3f} GiB); "
            f"largest N in 1 GiB: {int(2**30 // per_game):,}"
        )
        return 0
    load_average = list(os.getloadavg())  # how busy the shared machine was at the start
    cpu = cpu_info()
    results = run_benchmarks(args.seconds, args.repeats, args.only)
    for result in results.values():
        result["cpu"] = cpu["model"]  # beside every figure: a JSON row may travel alone
    table = format_cpu(cpu) + "\n\n" + format_table(results)
    play_ratio = format_play_ratio(results)
    if play_ratio:
        table += "\n\n" + play_ratio
    compile_runs = None
    if args.compile_repeats:
        compile_runs = compile_seconds(args.compile_repeats)
        table += "\n\n" + format_compile(compile_runs)
    print(table)
    payload = {
        "command": shlex.join(
            ["python", "-m", "shipwreck_apps.bench", *(sys.argv[1:] if argv is None else argv)]
        ),
        "load_average": load_average,
        "seconds": args.seconds,
        "repeats": args.repeats,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu": cpu,
        "results": results,
        "compile_seconds": compile_runs,
        "load_average_end": list(os.getloadavg()),
        "table": table,
    }
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(payload, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
