"""How long a team takes to decide at the table: wall milliseconds per decision of one
team's players (median, 95th percentile and maximum, by role; ``watch`` is the time a
player takes to look at the table after an action it does not answer, through
``let_watch``, as the play table calls it), in self-play and at the
ad-hoc benchmark's tables (one held-out partner among the team, one of the team among
held-out partners), and the whole game's cost.

One process, one game at a time (as a person's table plays), on the benchmark's deals.
The machine's load average is recorded beside the figures: on a shared machine the
percentiles move with it.

    .venv/bin/python lab/studies/decision_time.py ally types --games 20 --out results/adhoc/time/hard.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from shipwreck_agents.evaluation.adhoc import ADHOC_SEED, HELD_OUT_PARTNERS
from shipwreck_agents.evaluation.crossplay import seated_table
from shipwreck_agents.evaluation.evaluate import game_seed
from shipwreck_agents.registry import make_team
from shipwreck_env.envs.policy import Team, decide, let_watch, observation_layouts
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import new_game, step_inplace


def time_team(spec: str, partners: list[str], games: int, difficulty: str, players: int) -> dict:
    """Milliseconds per decision of ``spec``'s players by role, over ``games`` games of
    each table: self-play, then for each partner one game in two with the partner as the
    newcomer and one in two with ``spec`` as the newcomer."""
    config = GameConfig(num_players=players, difficulty=difficulty)
    layouts = observation_layouts(config)
    team = make_team(spec)
    tables: list[tuple[str, Team]] = [("self", team)]
    for partner_spec in partners:
        partner = make_team(partner_spec)
        tables.append((partner_spec, partner))
    spent: dict[str, list[float]] = {"play": [], "group": [], "watch": []}
    per_game: list[float] = []
    for _name, partner in tables:
        for i in range(games):
            newcomer, host = (partner, team) if i % 2 == 0 else (team, partner)
            table = seated_table(newcomer, host, players, i)
            seed = game_seed(ADHOC_SEED, difficulty, i)
            game_rng, policy_rng = (np.random.default_rng(s) for s in seed.spawn(2))
            table.reset()
            s = new_game(config, game_rng)
            start_game = time.perf_counter()
            while not s.over:
                ours = table is team or table.teams[s.decider] is team
                start = time.perf_counter()
                action = decide(table, s, layouts, policy_rng).action
                if ours:
                    role = "play" if s.decider == s.active_player else "group"
                    spent[role].append(1000 * (time.perf_counter() - start))
                step_inplace(s, action, game_rng, check=False)
                for player in range(players):  # what let_watch does, timed by player
                    own = table if table is team else table.teams[player]
                    start = time.perf_counter()
                    let_watch(own, s, [player])
                    if own is team and own.watchers(player) and player != s.decider:
                        spent["watch"].append(1000 * (time.perf_counter() - start))
            per_game.append(1000 * (time.perf_counter() - start_game))
    out: dict = {"team": spec, "games_per_table": games, "tables": [n for n, _ in tables]}
    for role, values in spent.items():
        array = np.array(values) if values else np.zeros(1)
        out[role] = {
            "decisions": len(values),
            "median_ms": float(np.median(array)),
            "p95_ms": float(np.percentile(array, 95)),
            "max_ms": float(array.max()),
        }
    both = np.array(spent["play"] + spent["group"])
    out["all"] = {
        "decisions": int(both.size),
        "median_ms": float(np.median(both)),
        "p95_ms": float(np.percentile(both, 95)),
        "max_ms": float(both.max()),
    }
    out["ms_per_game"] = float(np.mean(per_game))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("teams", nargs="+", help="team specs")
    parser.add_argument("--games", type=int, default=20, help="games per table")
    parser.add_argument("--difficulty", default="hard")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None, help="write JSON here")
    args = parser.parse_args()
    partners = [p.spec for p in HELD_OUT_PARTNERS]
    if args.players != 3:  # the learned partner plays 3-player games only
        partners = [p for p in partners if not p.startswith("fast:")]
    report = {
        "command": "python lab/studies/decision_time.py " + " ".join(sys.argv[1:]),
        "difficulty": args.difficulty,
        "players": args.players,
        "load_average_start": os.getloadavg()[0],
        "teams": [
            time_team(t, partners, args.games, args.difficulty, args.players) for t in args.teams
        ],
        "load_average_end": os.getloadavg()[0],
    }
    for t in report["teams"]:
        print(
            f"{t['team']}: p95 {t['all']['p95_ms']:.0f} ms per decision (median "
            f"{t['all']['median_ms']:.1f}, max {t['all']['max_ms']:.0f}; play p95 "
            f"{t['play']['p95_ms']:.0f}, group p95 {t['group']['p95_ms']:.0f}; a look at the "
            f"table after an action: p95 {t['watch']['p95_ms']:.1f}, max "
            f"{t['watch']['max_ms']:.0f}), {t['ms_per_game']:.0f} ms per game"
        )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
