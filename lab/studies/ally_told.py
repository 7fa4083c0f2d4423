"""How much the ally loses to finding its partners out: its ad-hoc cells as it plays,
beside the same cells with every ally told at the start of each game which players are
strangers (a cheat, for measurement only: it refutes them before the first turn).

Both seatings of the ad-hoc benchmark (a stranger joins the allies; an ally joins
strangers), on the benchmark's deals, one process per cell.

    .venv/bin/python lab/studies/ally_told.py --games 300 --difficulty normal --jobs 2
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from shipwreck_agents.evaluation.adhoc import ADHOC_SEED, HELD_OUT_PARTNERS
from shipwreck_agents.evaluation.crossplay import rate, seated_table, shown_rate
from shipwreck_agents.evaluation.evaluate import game_seed, map_tasks, play_game
from shipwreck_agents.registry import make_team
from shipwreck_agents.search.ally import AllyTeam
from shipwreck_env.rules.config import GameConfig


def tell(team, ours: set[int], players: int) -> Callable[[], None]:
    """Tell ``team``'s ally (its policy, if an :class:`AllyTeam`) which players of a
    reset table are strangers (all but ``ours``), a cheat for measurement, and keep the
    evaluator's reset from forgetting it; returns what puts its reset back."""
    ally = team.play
    if not isinstance(ally, AllyTeam):
        return lambda: None
    for me in ours:
        for other in set(range(players)) - ours:
            ally._refute(me, other, "told")
    keep, ally.reset = ally.reset, lambda: None

    def restore() -> None:
        ally.reset = keep

    return restore


def write_study(out: Path, report: dict, caption: str, rows: list[str]) -> None:
    """Write ``report`` as JSON to ``out`` and its table ``rows`` under the study's
    command and ``caption`` to ``out`` with ``.md``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    out.with_suffix(".md").write_text(
        f"`{report['command']}` ({caption})\n\n" + "\n".join(rows) + "\n"
    )
    print(f"wrote {out}")


def run(task: tuple) -> list[bool]:
    """Wins of one cell: ``(difficulty, partner spec, seating, told, game numbers)``."""
    difficulty, partner_spec, seating, told, games = task
    config = GameConfig(num_players=3, difficulty=difficulty)
    ally_team, partner = make_team("ally"), make_team(partner_spec)
    out = []
    for i in games:
        newcomer, host = (
            (partner, ally_team) if seating == "stranger_joins" else (ally_team, partner)
        )
        table = seated_table(newcomer, host, 3, i)
        ours = {p for p in range(3) if table.teams[p] is ally_team}
        table.reset()
        restore = tell(ally_team, ours, 3) if told else (lambda: None)
        try:
            out.append(play_game(config, table, game_seed(ADHOC_SEED, difficulty, i)).won)
        finally:
            restore()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--difficulty", default="normal")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="write JSON here")
    args = parser.parse_args()
    partners = [p.spec for p in HELD_OUT_PARTNERS]
    cells = [
        (p, seating, told)
        for p in partners
        for seating in ("stranger_joins", "joins_strangers")
        for told in (False, True)
    ]
    chunk = 50
    tasks = [
        (args.difficulty, p, seating, told, range(s, min(args.games, s + chunk)))
        for p, seating, told in cells
        for s in range(0, args.games, chunk)
    ]
    wins: dict[tuple, int] = {}
    for task, out in zip(tasks, map_tasks(run, tasks, args.jobs), strict=True):
        key = (task[1], task[2], task[3])
        wins[key] = wins.get(key, 0) + sum(out)
    rows = ["| partner | seating | as it plays | told | difference |", "|---|---|---|---|---:|"]
    report = {"command": "python lab/studies/ally_told.py " + " ".join(sys.argv[1:]), "cells": []}
    for p, seating, told in cells:
        if told:
            continue
        plays, cheat = (
            rate(wins[(p, seating, False)], args.games),
            rate(wins[(p, seating, True)], args.games),
        )
        report["cells"].append({"partner": p, "seating": seating, "plays": plays, "told": cheat})
        rows.append(
            f"| {p} | {seating.replace('_', ' ')} | {shown_rate(plays)} | {shown_rate(cheat)} | "
            f"{cheat['win_rate'] - plays['win_rate']:+.3f} |"
        )
    print("\n".join(rows))
    if args.out:
        caption = f"{args.difficulty}, {args.games} games a cell, seed {ADHOC_SEED}"
        write_study(args.out, report, caption, rows)


if __name__ == "__main__":
    main()
