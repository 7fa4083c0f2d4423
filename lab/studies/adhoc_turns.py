"""Where a team loses with a stranger: its ad-hoc games turn by turn, by who played and
who led (one of the team, ``A``, or the stranger, ``S``) and which of the active
player's own turns it was (its 1st, 2nd, 3rd or a later one), with the points and doom
each kind of turn brings on average.

One seating of the ad-hoc benchmark (``stranger_joins``: a stranger among the team;
``joins_strangers``: one of the team among strangers), one partner, the benchmark's
deals. With ``--told`` an ally team (``ally...``) is told at the start of each game who
the strangers are (a cheat, for measurement only, as in ``ally_told.py``).

    .venv/bin/python lab/studies/adhoc_turns.py ally types --difficulty hard --games 300 \
        --partner fast:results/models/fast_selfplay_imitation_carry.pth --jobs 2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from ally_told import tell, write_study  # a sibling script: run as one, its folder is on the path

from shipwreck_agents.evaluation.adhoc import ADHOC_SEED
from shipwreck_agents.evaluation.crossplay import seated_table
from shipwreck_agents.evaluation.evaluate import game_seed, map_tasks
from shipwreck_agents.registry import make_team
from shipwreck_env.envs.policy import decide, let_watch, observation_layouts
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import new_game, step_inplace

KINDS = tuple(a + b + str(n) for a in "AS" for b in "AS" for n in range(1, 5))
"""(the active player, the leader: A = the team, S = the stranger, the active player's
own turn: 1, 2, 3, 4 = 4th or later)."""


def run(task: tuple) -> dict:
    """One chunk of games: ``(team spec, partner spec, seating, difficulty, told, game
    numbers)`` -> {"wins", kind: [turns, points, doom]}."""
    spec, partner_spec, seating, difficulty, told, games = task
    config = GameConfig(num_players=3, difficulty=difficulty)
    team, partner = make_team(spec), make_team(partner_spec)
    layouts = observation_layouts(config)
    out = {"wins": 0, **{k: [0, 0, 0] for k in KINDS}}
    for i in games:
        newcomer, host = (partner, team) if seating == "stranger_joins" else (team, partner)
        table = seated_table(newcomer, host, 3, i)
        ours = {p for p in range(3) if table.teams[p] is team}
        table.reset()
        restore = tell(team, ours, 3) if told else (lambda: None)
        game_part, policy_part = game_seed(ADHOC_SEED, difficulty, i).spawn(2)
        game_rng, policy_rng = np.random.default_rng(game_part), np.random.default_rng(policy_part)
        s = new_game(config, game_rng)
        played = [0, 0, 0]  # turns each player has finished
        try:
            while not s.over:
                active = s.active_player
                kind = ("A" if active in ours else "S") + ("A" if s.leader in ours else "S")
                kind += str(min(4, played[active] + 1))
                turn, score, doom = s.turn, s.score, s.doom
                step_inplace(s, decide(table, s, layouts, policy_rng).action, game_rng, check=False)
                let_watch(table, s)
                row = out[kind]
                row[1] += s.score - score
                row[2] += s.doom - doom
                if s.turn != turn or s.over:
                    row[0] += 1
                    played[active] += 1
        finally:
            restore()
        out["wins"] += bool(s.won)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("teams", nargs="+", help="team specs")
    parser.add_argument("--partner", required=True, help="the stranger's spec")
    parser.add_argument(
        "--seating", default="stranger_joins", choices=("stranger_joins", "joins_strangers")
    )
    parser.add_argument("--difficulty", default="hard")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--told", action="store_true", help="also each ally team told (a cheat)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="write JSON (and .md) here")
    args = parser.parse_args()
    rows = [(t, False) for t in args.teams]
    if args.told:
        rows += [(t, True) for t in args.teams if t.startswith("ally")]
    chunk = 50
    tasks = [
        (t, args.partner, args.seating, args.difficulty, told, range(s, min(args.games, s + chunk)))
        for t, told in rows
        for s in range(0, args.games, chunk)
    ]
    sums: dict[tuple, dict] = {}
    for task, out in zip(tasks, map_tasks(run, tasks, args.jobs), strict=True):
        total = sums.setdefault((task[0], task[4]), {"wins": 0, **{k: [0, 0, 0] for k in KINDS}})
        total["wins"] += out["wins"]
        for k in KINDS:
            total[k] = [a + b for a, b in zip(total[k], out[k], strict=True)]
    command = "python lab/studies/adhoc_turns.py " + " ".join(sys.argv[1:])
    report = {"command": command, "seed": ADHOC_SEED, "games": args.games, "rows": []}
    lines = [
        "| team | won | turn (active, leader, its nth) | turns | points a turn | doom a turn |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for (team, told), total in sums.items():
        name = team + (" (told)" if told else "")
        report["rows"].append({"team": team, "told": told, **total})
        for k in KINDS:
            turns, points, doom = total[k]
            if turns:
                lines.append(
                    f"| {name} | {total['wins'] / args.games:.3f} | {k[0]}, {k[1]}, "
                    f"{k[2] if k[2] != '4' else '4+'} | {turns} | "
                    f"{points / turns:.3f} | {doom / turns:.3f} |"
                )
    print("\n".join(lines))
    if args.out:
        caption = (
            f"{args.seating}, {args.difficulty}, partner {args.partner}, {args.games} games, "
            f"seed {ADHOC_SEED}; A = the team, S = the stranger"
        )
        write_study(args.out, report, caption, lines)


if __name__ == "__main__":
    main()
