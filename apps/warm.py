"""``shipwreck-arcana warm`` (also ``python -m shipwreck_apps.warm``): compile the batched
kernels once, into their disk caches, so that the first command, game or test that needs
them loads machine code instead of compiling for minutes.

    shipwreck-arcana warm [--only engine|partners]

Two parts, each in its own process so that two cores compile at once: the batched engine
and its observations (``shipwreck_env.vector``, about a minute cold) with the AEC env's
one-game entry points (``shipwreck_env.vector.single``), and the batched heuristic and
Bayesian group (``agents/scripted/heuristic_batched.py``,
``agents/scripted/bayes_batched.py``, which compile the engine's rules in: a few minutes
cold) with the Play and Predict vector envs (``shipwreck_env.envs.gym_roles``). A warm
cache makes it a few seconds. Caches go stale by themselves when a source they were
compiled from changes (``shipwreck_env.vector.jit.stamp_cache``). Without it, a first
``env()`` plays at once on the reference engine while a background process compiles
its part (``shipwreck_env.vector.warm``); so does a first ``VectorGame``
(``shipwreck_env.vector.game.WarmingVectorGame``). ``./test.sh`` runs it after the set-up
(``lab/tools/warm_kernels.py``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

PARTS = ("engine", "partners")


def _play(part: str, steps: int = 60) -> None:
    """Random games of every card set at doomed, the kernels of ``part`` deciding their
    share of the decisions, so every entry point runs at least once."""
    from shipwreck_env.vector import VectorGame

    games = 16
    game = VectorGame(games, 0, num_players=3, card_sets="all", difficulty="doomed")
    rng = np.random.default_rng(0)
    group = None
    if part == "partners":
        from shipwreck_agents.scripted.bayes_batched import BatchedBayes
        from shipwreck_agents.scripted.heuristic_batched import heuristic_actions

        group = BatchedBayes(games, game.config.num_players, game.config.num_seats)
    for _ in range(steps):
        mask = game.legal_mask()
        actions = game.random_legal(mask, rng)
        if part == "engine":
            game.observe()
        else:
            a = game.arrays
            players, others = game.roles()
            if len(players):
                actions[players] = heuristic_actions(a, players, mask)
            if len(others):
                actions[others] = group.act(a, game.cards, others, mask, 0)
        ended = game.step(actions)[2]
        if group is not None:
            group.restart(np.flatnonzero(ended))
    if part == "engine":
        from shipwreck_env.vector.warm import play_single

        _play_aec()
        play_single()  # every one-game entry point, so a later env() finds them all
    else:
        _play_roles()


def _play_aec(steps: int = 200) -> None:
    """A few hundred steps of the AEC env, which runs one game on its own entry points."""
    import shipwreck_env

    env = shipwreck_env.env(num_players=3, card_sets="all", difficulty="doomed")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in env.agent_iter(steps):
        obs, _, term, trunc, _ = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if term or trunc else int(rng.choice(legal)))


def _play_roles(steps: int = 30) -> None:
    """The role vector envs with the batched heuristic and Bayesian partners."""
    import gymnasium

    import shipwreck_env  # noqa: F401 -- registers the ids
    from shipwreck_agents.registry import make_policy

    rng = np.random.default_rng(0)
    for env_id in ("ShipwreckArcana-Play-v0", "ShipwreckArcana-Predict-v0"):
        for partner in ("heuristic", "bayes"):
            envs = gymnasium.make_vec(
                env_id,
                num_envs=4,
                vectorization_mode="vector_entry_point",
                partner=make_policy(partner),
                card_sets="all",
            )
            envs.reset(seed=0)
            for _ in range(steps):
                mask = envs.unwrapped.action_masks()
                envs.step(np.array([rng.choice(np.flatnonzero(row)) for row in mask]))
            envs.close()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``warm`` (here and in ``shipwreck-arcana warm``)."""
    parser.add_argument("--only", choices=PARTS, help="compile this part here and stop")


def run(args: argparse.Namespace) -> int:
    """Compile every part in parallel processes (or ``--only`` one, in this process)."""
    from shipwreck_env.vector.single import COMPILE_MODE

    os.environ[COMPILE_MODE] = "foreground"  # compile here: no game on the reference engine
    if args.only:
        start = time.perf_counter()
        _play(args.only)
        print(f"warm: {args.only} ready in {time.perf_counter() - start:.0f} s")
        return 0
    program = [sys.executable, "-m", "shipwreck_apps.warm", "--only"]
    children = [subprocess.Popen([*program, part]) for part in PARTS]
    codes = [child.wait() for child in children]
    return max(codes)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (``python -m shipwreck_apps.warm``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
