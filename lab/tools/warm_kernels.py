"""Compile the batched kernels once, into their disk caches, so that the first command or
test that needs them loads machine code instead of compiling for minutes.

    .venv/bin/python lab/tools/warm_kernels.py [--only engine|partners]

``./test.sh`` runs it after the set-up: the batched engine and its observations
(``shipwreck_env.vector``, about half a minute cold), then the batched heuristic and
Bayesian group (``agents/scripted/heuristic_batched.py``, ``agents/scripted/bayes_batched.py``, which compile
the engine's rules in: a few minutes cold), each in its own process so the two cores
compile at once. The engine part also plays the AEC env (its single-game entry points,
``shipwreck_env.vector.single``); the partners part also steps the Play and Predict
vector envs with both batched partners (``shipwreck_env.envs.gym_roles``). A warm
cache makes it a few seconds. Caches go stale by themselves when
a source they were compiled from changes (``shipwreck_env.vector.jit.stamp_cache``).
"""

from __future__ import annotations

import argparse
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
        _play_aec()
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


def main(argv: list[str] | None = None) -> int:
    """Compile every part in parallel processes (or ``--only`` one, in this process)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=PARTS, help="compile this part here and stop")
    args = parser.parse_args(argv)
    if args.only:
        start = time.perf_counter()
        _play(args.only)
        print(f"warm_kernels: {args.only} ready in {time.perf_counter() - start:.0f} s")
        return 0
    children = [subprocess.Popen([sys.executable, __file__, "--only", part]) for part in PARTS]
    codes = [child.wait() for child in children]
    return max(codes)


if __name__ == "__main__":
    sys.exit(main())
