"""How high the ad-hoc benchmark's pool lets a team go: each held-out partner's own
self-play, and the ad-hoc cells of a team whose group reads every hidden fate (the
``oracle`` group, a cheat kept for measurement: the benchmark refuses it).

In a 3-player leader game each seat reads its predecessor's play. With a cheating
group every turn one of ours reads is read perfectly, so what such a team still loses
is the stranger's reading of our plays and, when two strangers sit together, their
reading of each other: a bound on what better *reading* alone could win with this pool.
The cells are the benchmark's (``run_cell``, its deals and seatings).

    .venv/bin/python lab/studies/adhoc_bounds.py --team types+oracle --games 300 --jobs 2 \
        --out results/adhoc/bounds/bounds.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ally_told import write_study  # a sibling script: run as one, its folder is on the path

from shipwreck_agents.evaluation.adhoc import ADHOC_SEED, HELD_OUT_PARTNERS, cell_wins
from shipwreck_agents.evaluation.crossplay import rate, shown_rate

SEATINGS = ("stranger_joins", "joins_strangers")


def bounds(team: str, games: int, difficulties: list[str], jobs: int) -> dict:
    """Each held-out partner's self-play, and ``team`` with it in both seatings (pooled as
    the benchmark pools), per difficulty."""
    partners = [p.spec for p in HELD_OUT_PARTNERS]
    cells = [(team, team)] + [(p, p) for p in partners]
    cells += [(p, team) for p in partners] + [(team, p) for p in partners]
    won = cell_wins(cells, difficulties, games, ADHOC_SEED, jobs=jobs)
    results = {}
    for d in difficulties:
        by_partner = {
            p: {
                "partner_self": rate(won[(d, p, p)], games),
                "stranger_joins": rate(won[(d, p, team)], games),
                "joins_strangers": rate(won[(d, team, p)], games),
            }
            for p in partners
        }
        pooled = sum(c[s]["wins"] for c in by_partner.values() for s in SEATINGS)
        own = sum(c["partner_self"]["wins"] for c in by_partner.values())
        results[d] = {
            "team_self": rate(won[(d, team, team)], games),
            "partners_self": rate(own, games * len(partners)),
            "adhoc": rate(pooled, 2 * games * len(partners)),
            "cells": by_partner,
        }
    return {
        "team": team,
        "partners": partners,
        "seed": ADHOC_SEED,
        "games": games,
        "results": results,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--team", default="types+oracle", help="the team (its group may cheat)")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--difficulty", default="normal,hard")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("results/adhoc/bounds/bounds.json"))
    args = parser.parse_args(argv)
    report = bounds(args.team, args.games, args.difficulty.split(","), args.jobs)
    report["command"] = "python lab/studies/adhoc_bounds.py " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    rows = [
        "| difficulty | partner | partner with itself | stranger joins | joins strangers |",
        "|---|---|---|---|---|",
    ]
    for d, r in report["results"].items():
        for p, c in r["cells"].items():
            rows.append(
                f"| {d} | `{p}` | {shown_rate(c['partner_self'])} | "
                f"{shown_rate(c['stranger_joins'])} | {shown_rate(c['joins_strangers'])} |"
            )
        rows.append(
            f"| {d} | **all** (team with itself: {shown_rate(r['team_self'])}) | "
            f"{shown_rate(r['partners_self'])} | pooled ad-hoc: {shown_rate(r['adhoc'])} | |"
        )
    write_study(args.out, report, f"{args.games} games a cell, seed {ADHOC_SEED}", rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
