"""Fit the value of the race a group weighs to the games a team actually plays.

A group deciding to guess or pass weighs ``V(score, doom)``, the chance to win from the
start of a turn at that score and doom. The rough race and :func:`race_win` model it;
this program measures it instead: it plays ``TEAM`` with itself and with every training
partner (:data:`~shipwreck_agents.evaluation.adhoc.TRAINING_PARTNERS`, both seatings,
never a held-out one), notes the score and doom at the start of every turn and whether
that game was won, and writes per difficulty the win rate from each (score, doom)
shrunk toward the rough race by ``--prior`` games and made monotone (never lower with
more score, never higher with more doom). The file is read by ``BayesGroup(race_table=)``
and ``types:racetable=PATH``.

    .venv/bin/python lab/runs/fit_race.py --team types --games 100 --jobs 2 \
        --out agents/models/race_types.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from shipwreck_agents.evaluation.adhoc import TRAINING_PARTNERS
from shipwreck_agents.evaluation.crossplay import cell_games
from shipwreck_agents.evaluation.evaluate import map_tasks, play_game
from shipwreck_agents.scripted.bayes import BayesGroup, RaceTable, race_value
from shipwreck_env.rules.config import GameConfig

FIT_SEED = 510_001
"""The fit's deals: not the ad-hoc benchmark's seed (390 001)."""

SIZE = 7  # scores and dooms 0..6 start a turn; 7 ends the game


def _cell(task: tuple) -> list[tuple[bool, list[tuple[int, int]]]]:
    """(won, score and doom at the start of each turn) of every game of one cell."""
    out = []
    for config, table, seed in cell_games(task):
        starts: list[tuple[int, int]] = []
        out.append((play_game(config, table, seed, turn_starts=starts).won, starts))
    return out


def fitted(wins: np.ndarray, visits: np.ndarray, prior: float) -> np.ndarray:
    """The win rate per (score, doom) shrunk toward the rough race by ``prior`` games,
    then made non-increasing in doom and non-decreasing in score by raising a cell to the
    best of those with more doom or less score (cells no game visits, such as a doom
    below the start's, take their neighbours' value rather than drag them down)."""
    rough = np.array([[race_value(s, d) for d in range(SIZE)] for s in range(SIZE)])
    value = (wins + prior * rough) / (visits + prior)
    value = np.maximum.accumulate(value[:, ::-1], axis=1)[:, ::-1]  # less doom is never worse
    return np.maximum.accumulate(value, axis=0)  # more score is never worse


def guess_readings(
    group: BayesGroup, doom: int, fade: int, config: GameConfig
) -> list[float | None]:
    """Per score 0-6, the reading at which ``group`` (by its own race,
    :meth:`BayesGroup.race_outcomes`) names a value rather than pass, on a turn of
    ``config``'s game at ``doom`` whose fades cost ``fade`` (None: a right guess is worth
    no more than a wrong one)."""
    out: list[float | None] = []
    for score in range(SIZE):
        calm, right, wrong = group.race_outcomes(score, doom, fade, config=config)
        out.append(round((calm - wrong) / (right - wrong), 2) if right > wrong else None)
    return out


def show(path: Path) -> None:
    """Print a fit's tables and, beside the rough race and the convention's (0.95, 2),
    the reading each needs to guess at the difficulty's starting doom and the next two."""
    table = RaceTable.load(path)
    counts = json.loads(Path(path).read_text()).get("counts", {})
    races = {
        "rough": BayesGroup(),
        "convention": BayesGroup(accuracy=0.95, fail_doom=2),
        "measured": BayesGroup(race_table=table),
    }
    for difficulty, values in table.tables.items():
        config = GameConfig(num_players=table.players, difficulty=difficulty)
        print(f"{difficulty}: win rate from a turn's start, [score][doom]")
        print(np.array2string(values, precision=2))
        start = config.starting_doom
        for cell in counts.get(difficulty, {}).get("cells", []):  # each cell's games won
            games, won = cell["visits"][0][start], cell["wins"][0][start]
            print(f"  {cell['newcomer']} joins {cell['hosts']}: {won / games:.3f} of {games:.0f}")
        for doom in range(start, min(start + 3, SIZE)):
            for fade in (0, 1):
                for name, group in races.items():
                    readings = guess_readings(group, doom, fade, config)
                    print(f"  doom {doom} fade {fade} {name:>10}: {readings}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--team", default="types")
    parser.add_argument("--games", type=int, default=100, help="games per cell and seating")
    parser.add_argument("--difficulty", default="normal,hard")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--prior", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=FIT_SEED)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--show", type=Path, help="print this fit's tables and readings; no games")
    args = parser.parse_args(argv)
    if args.show is not None:
        show(args.show)
        return
    if args.out is None:
        parser.error("--out is required (or --show FILE)")
    partners = [p.spec for p in TRAINING_PARTNERS if p.spec != args.team]  # itself: self-play
    cells = [(args.team, args.team)]
    cells += [(p, args.team) for p in partners] + [(args.team, p) for p in partners]
    tables = {}
    counts = {}
    for difficulty in args.difficulty.split(","):
        config = GameConfig(num_players=args.players, difficulty=difficulty).to_dict()
        chunk = max(1, args.games // max(1, args.jobs))
        tasks = [
            (config, a, b, args.seed, range(lo, min(lo + chunk, args.games)))
            for a, b in cells
            for lo in range(0, args.games, chunk)
        ]
        by_cell = {cell: np.zeros((2, SIZE, SIZE)) for cell in cells}  # visits, wins
        won_games = played = 0
        for task, games in zip(tasks, map_tasks(_cell, tasks, args.jobs), strict=True):
            tally = by_cell[task[1], task[2]]
            for won, starts in games:
                played += 1
                won_games += won
                for score, doom in set(starts):  # a state counts once per game
                    tally[:, score, doom] += (1, won)
        visits, wins = sum(by_cell.values())
        tables[difficulty] = np.round(fitted(wins, visits, args.prior), 4).tolist()
        counts[difficulty] = {
            "games": played,
            "won": won_games,
            "visits": visits.tolist(),
            "wins": wins.tolist(),
            "cells": [  # each (newcomer, hosts) cell's own counts, to fit one kind apart
                {"newcomer": a, "hosts": b, "visits": v.tolist(), "wins": w.tolist()}
                for (a, b), (v, w) in by_cell.items()
            ],
        }
        print(f"{difficulty}: {played} games, win rate {won_games / played:.3f}", flush=True)
    record = {
        "about": "win rate from the start of a turn at [score][doom], fitted by lab/runs/fit_race.py",
        "team": args.team,
        "partners": partners,
        "players": args.players,
        "prior": args.prior,
        "seed": args.seed,
        "games_per_cell": args.games,
        "command": " ".join(
            ["lab/runs/fit_race.py", *(argv if argv is not None else sys.argv[1:])]
        ),
        "tables": tables,
        "counts": counts,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
