"""Measure the type-inference team (agents/search/type_inference.py) with strangers.

For each partner team, the cross-play cells of ``agents/evaluation/crossplay.py`` (one player of a
team among hosts of another, the newcomer's seat turning with the game, the
evaluator's deals): ``types`` as newcomer and as host, and ``heuristic+bayes`` in the
same cells on the same deals; then the milliseconds per decision of ``types``, by role.
Writes ``results/type_inference/type_inference.json`` and prints Markdown tables.

    .venv/bin/python lab/studies/type_inference_eval.py --games 200 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from shipwreck_agents.evaluation.crossplay import MixedTable, team_labels
from shipwreck_agents.evaluation.evaluate import game_seed, map_tasks, play_game, wilson_interval
from shipwreck_agents.registry import make_team
from shipwreck_agents.search.type_inference import TypeGroup
from shipwreck_env.envs.policy import Team
from shipwreck_env.rules.config import GameConfig

PARTNERS = ("heuristic+bayes", "convention", "fast:results/models/fast_selfplay.pth")
TEAMS = ("types", "heuristic+bayes")


def team(spec: str) -> Team:
    """``types`` (one TypeGroup in both roles, default options), ``types:M`` (its margin
    set to M), ``types:nosignal`` (its player plays as the heuristic player) or a
    registry team."""
    name, _, arg = spec.partition(":")
    if name == "types":
        if arg == "nosignal":
            policy = TypeGroup(signal=False)
        else:
            policy = TypeGroup(margin=float(arg)) if arg else TypeGroup()
        return Team(policy, policy)
    return make_team(spec)


def _run(task: tuple) -> int:
    config_dict, newcomer_spec, host_spec, seed, games = task
    config = GameConfig.from_dict(config_dict)
    newcomer, hosts = team(newcomer_spec), team(host_spec)
    wins = 0
    for i in games:
        seat = i % config.num_players
        table = MixedTable([newcomer if p == seat else hosts for p in range(config.num_players)])
        wins += play_game(config, table, game_seed(seed, config.difficulty, i)).won
    return wins


def _rate(wins: int, games: int) -> dict:
    low, high = wilson_interval(wins, games)
    return {"wins": wins, "games": games, "win_rate": wins / games, "ci95": [low, high]}


def cells(
    config: GameConfig, games: int, seed: int, jobs: int, teams: list[str], partners: list[str]
) -> dict:
    """{team: {partner: {"newcomer": rate, "host": rate}}}."""
    chunk = max(1, min(50, games // max(1, 2 * jobs)))
    pairs = [(t, p, role) for t in teams for p in partners for role in ("newcomer", "host")]
    tasks = []
    for t, p, role in pairs:
        newcomer, host = (t, p) if role == "newcomer" else (p, t)
        for start in range(0, games, chunk):
            tasks.append(
                (config.to_dict(), newcomer, host, seed, range(start, min(games, start + chunk)))
            )
    wins: dict[tuple, int] = {}
    per_pair = len(tasks) // len(pairs)
    for n, won in enumerate(map_tasks(_run, tasks, jobs)):
        key = pairs[n // per_pair]
        wins[key] = wins.get(key, 0) + won
    out: dict = {}
    for (t, p, role), w in wins.items():
        out.setdefault(t, {}).setdefault(p, {})[role] = _rate(w, games)
    return out


def timing(config: GameConfig, games: int, seed: int) -> dict:
    """Milliseconds per decision of ``types`` by role, as newcomer among heuristic+bayes."""
    spent = {"play": [0.0, 0], "group": [0.0, 0]}

    class Timed(TypeGroup):
        def act(self, observation, mask, view, rng, state=None):
            start = time.perf_counter()
            action = super().act(observation, mask, view, rng, state)
            role = "play" if view.decider == view.active_player else "group"
            spent[role][0] += time.perf_counter() - start
            spent[role][1] += 1
            return action

    policy = Timed()
    newcomer, hosts = Team(policy, policy), make_team("heuristic+bayes")
    for i in range(games):
        seat = i % config.num_players
        table = MixedTable([newcomer if p == seat else hosts for p in range(config.num_players)])
        play_game(config, table, game_seed(seed, config.difficulty, i))
    return {role: {"decisions": n, "ms": 1000 * t / max(1, n)} for role, (t, n) in spent.items()}


def markdown(report: dict) -> str:
    """The cells and the timing as Markdown."""
    label = team_labels(report["partners"])
    lines = [
        "| team | partner | newcomer | host |",
        "|---|---|---|---|",
    ]
    for t in report["teams"]:
        for p in report["partners"]:
            row = report["cells"][t][p]
            shown = [
                f"{row[r]['win_rate']:.3f} [{row[r]['ci95'][0]:.3f}, {row[r]['ci95'][1]:.3f}]"
                for r in ("newcomer", "host")
            ]
            lines.append(f"| {t} | {label[p]} | {shown[0]} | {shown[1]} |")
    ms = report["timing"]
    lines += [
        "",
        f"ms per decision of types: play {ms['play']['ms']:.1f} ({ms['play']['decisions']} "
        f"decisions), group {ms['group']['ms']:.1f} ({ms['group']['decisions']} decisions)",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--difficulty", default="normal")
    parser.add_argument("--timing-games", type=int, default=20)
    parser.add_argument("--teams", nargs="+", default=list(TEAMS))
    parser.add_argument("--partners", nargs="+", default=list(PARTNERS))
    parser.add_argument("--out", default="results/type_inference/type_inference.json")
    args = parser.parse_args()
    config = GameConfig(num_players=3, difficulty=args.difficulty)
    report = {
        "config": config.to_dict(),
        "games": args.games,
        "seed": args.seed,
        "teams": args.teams,
        "partners": args.partners,
        "timing": timing(config, args.timing_games, args.seed),
        "cells": cells(config, args.games, args.seed, args.jobs, args.teams, args.partners),
    }
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    print(markdown(report))


if __name__ == "__main__":
    main()
