"""The ad-hoc benchmark: how a team plays with partners it never trained or was written
with.

The pool. Partner teams of every kind a team meets at a table -- literal and noisy
players, the scripted players, the convention with other options, learned teams of other
seeds and methods, and a natural player (:mod:`shipwreck_agents.scripted.natural`) -- split once,
here, into two fixed lists:

* :data:`TRAINING_PARTNERS` may be used by any method: trained with, modelled at play
  time, tuned against.
* :data:`HELD_OUT_PARTNERS` are the benchmark's strangers: no training config, type
  library or tuning run may name them (``tests/agents/test_adhoc.py`` reads every file under
  ``configs/`` and fails if one does). They are capable teams (self-play 0.5 or more at
  normal), because the question is whether a team plays well with a good partner whose
  conventions it does not know; weak and erratic partners are in the training list.

The measurement. For a team ``T`` and each held-out partner ``P``, at each difficulty,
two cells of the cross-play machinery (:mod:`shipwreck_agents.evaluation.crossplay`, the seat of the
odd one out turning with the game number):

* **stranger joins**: one player of ``P`` at a table of ``T`` (``P`` is the newcomer);
* **joins strangers**: one player of ``T`` at a table of ``P`` (``T`` is the newcomer).

The team's **ad-hoc** win rate at a difficulty pools every game of both cells over every
held-out partner; its **self-play** is the whole table of ``T`` on the same deals. The
deals come from :data:`ADHOC_SEED`, which no training or tuning run uses (the same test
checks the configs), each game's deal from
:func:`~shipwreck_agents.evaluation.evaluate.game_seed`: every team meets the same deals, and the
figures do not depend on the number of worker processes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from shipwreck_agents.evaluation.crossplay import rate, run_cell, shown_rate
from shipwreck_agents.evaluation.evaluate import check_counts, map_tasks
from shipwreck_agents.registry import make_team
from shipwreck_env.rules.config import DIFFICULTIES, GameConfig

__all__ = [
    "ADHOC_DIFFICULTIES",
    "ADHOC_SEED",
    "HELD_OUT_PARTNERS",
    "TRAINING_PARTNERS",
    "Partner",
    "adhoc",
    "adhoc_markdown",
    "cell_wins",
    "model_files",
]


@dataclasses.dataclass(frozen=True)
class Partner:
    """A partner team of the pool: its spec (:func:`~shipwreck_agents.registry.make_team`),
    its kind and a line on what it stands for."""

    spec: str
    kind: str
    about: str


TRAINING_PARTNERS: tuple[Partner, ...] = (
    Partner("heuristic+bayes", "scripted", "the heuristic player and the Bayesian group"),
    Partner("convention", "convention", "the convention team at its default options"),
    Partner("literal", "literal", "random plays; predicts only what the cards prove"),
    Partner("noisy:0.1:heuristic+bayes", "noisy", "heuristic+bayes, plays random 10% of the time"),
    Partner("fast:results/models/fast_selfplay.pth", "learned", "fast trainer, plain self-play"),
    Partner(
        "fast:results/models/crossplay/fast_zsc_s1.pth",
        "learned",
        "fast trainer, random partners (zero-shot), seed 1",
    ),
    Partner("ppo:results/models/selfplay.pth", "learned", "Stable-Baselines3 self-play"),
)
"""Partners any method may use (see the module docstring)."""

HELD_OUT_PARTNERS: tuple[Partner, ...] = (
    Partner("natural", "natural", "plays and reads as the rulebook suggests a newcomer would"),
    Partner(
        "convention:0.9,noplan,noown",
        "convention",
        "the convention with other options: another race value, no planned group powers, "
        "no player powers",
    ),
    Partner(
        "noisy:0.1:convention:0.9,noplan,noown",
        "noisy",
        "the convention with other options above, plays random 10% of the time",
    ),
    Partner(
        "fast:results/models/fast_selfplay_imitation_carry.pth",
        "learned",
        "fast trainer started from imitation, another run than the shipped team's",
    ),
)
"""The benchmark's strangers: never trained with, modelled or tuned against."""

ADHOC_SEED = 390_001
"""The benchmark's deals; no training config or tuning run uses this seed."""

ADHOC_DIFFICULTIES = ("normal", "hard")
"""The difficulties the benchmark reports by default."""

_POSITIONS = ("stranger_joins", "joins_strangers")


def model_files(spec: str) -> list[str]:
    """The model files a spec names (``fast:``/``search:``/``ppo:``/``rllib:`` paths,
    inside noisy wrappers and teams too): what a config must not mention for a held-out
    partner."""
    while spec.startswith("noisy:"):
        spec = spec.split(":", 2)[2]
    files = []
    for part in spec.split("+"):
        name, _, arg = part.partition(":")
        if name in ("fast", "search", "ppo", "rllib") and arg:
            files.append(arg.split(",")[0])
    return files


def cell_wins(
    cells: Sequence[tuple[str, str]],
    difficulties: Sequence[str],
    games: int,
    seed: int,
    players: int = 3,
    jobs: int = 1,
    **config: object,
) -> dict[tuple[str, str, str], int]:
    """Games won in each cell ``(newcomer spec, host spec)`` at each difficulty, on the
    deals of ``seed`` (one newcomer at a table of hosts, its seat turning with the game
    number: :func:`~shipwreck_agents.evaluation.crossplay.run_cell`), keyed by
    ``(difficulty, newcomer, host)``; the same for any ``jobs``. No team is checked
    here: :func:`adhoc` refuses cheating ones first."""
    chunk = max(1, min(100, games // max(1, 2 * jobs)))
    tasks = []
    for difficulty in difficulties:
        base = GameConfig(num_players=players, difficulty=difficulty, **config).to_dict()
        for newcomer, host in cells:
            for start in range(0, games, chunk):
                tasks.append((base, newcomer, host, seed, range(start, min(games, start + chunk))))
    won: dict[tuple[str, str, str], int] = {}
    for task, out in zip(tasks, map_tasks(run_cell, tasks, jobs), strict=True):
        key = (task[0]["difficulty"], task[1], task[2])
        won[key] = won.get(key, 0) + sum(out)
    return won


def adhoc(
    team: str,
    *,
    partners: Sequence[str] | None = None,
    difficulties: Sequence[str] = ADHOC_DIFFICULTIES,
    games: int = 1000,
    seed: int = ADHOC_SEED,
    players: int = 3,
    jobs: int = 1,
    **config: object,
) -> dict:
    """Measure ``team`` with ``partners`` (default: :data:`HELD_OUT_PARTNERS`); see the
    module docstring.

    Returns ``{"team", "partners", "config", "seed", "games", "results": {difficulty:
    {"self", "adhoc", "cells": {partner: {"stranger_joins", "joins_strangers"}}}}}``,
    every rate with its wins, games, win rate and 95% interval; the same for any
    ``jobs``.

    Raises:
        ValueError: an unknown or cheating team or partner, the team among its own
            partners, an unknown difficulty, a bad count or game option.
    """
    partners = [p.spec for p in HELD_OUT_PARTNERS] if partners is None else list(partners)
    check_counts(games=games, jobs=jobs)
    if not partners or len(set(partners)) != len(partners) or team in partners:
        raise ValueError(
            f"partners {partners!r} are not allowed; allowed: one or more distinct team specs "
            f"other than the team measured ({team!r})"
        )
    for difficulty in difficulties:
        if difficulty not in DIFFICULTIES:
            raise ValueError(
                f"difficulty {difficulty!r} is not allowed; allowed: {list(DIFFICULTIES)}"
            )
    for spec in (team, *partners):  # fail early, here, on an unknown or cheating team
        if make_team(spec).cheating:
            raise ValueError(f"team {spec!r} cheats (reads hidden fates); the benchmark is fair")
    cells = [(team, team)] + [(p, team) for p in partners] + [(team, p) for p in partners]
    won = cell_wins(cells, difficulties, games, seed, players, jobs, **config)
    results = {}
    for difficulty in difficulties:
        cells = {
            p: {
                "stranger_joins": rate(won[(difficulty, p, team)], games),
                "joins_strangers": rate(won[(difficulty, team, p)], games),
            }
            for p in partners
        }
        pooled = sum(c[pos]["wins"] for c in cells.values() for pos in _POSITIONS)
        results[difficulty] = {
            "self": rate(won[(difficulty, team, team)], games),
            "adhoc": rate(pooled, 2 * games * len(partners)),
            "cells": cells,
        }
    return {
        "team": team,
        "partners": partners,
        "config": GameConfig(num_players=players, **config).to_dict(),
        "seed": seed,
        "games": games,
        "results": results,
    }


def adhoc_markdown(reports: Sequence[dict], labels: dict[str, str] | None = None) -> str:
    """Tables of :func:`adhoc` reports: one summary row per team and difficulty (self-play,
    pooled ad-hoc, gap), then each team's cells by partner."""
    labels = labels or {}
    lines = [
        "| team | difficulty | self-play | ad-hoc (pooled) | gap |",
        "|---|---|---|---|---:|",
    ]
    for report in reports:
        name = labels.get(report["team"], report["team"])
        for difficulty, result in report["results"].items():
            gap = result["self"]["win_rate"] - result["adhoc"]["win_rate"]
            lines.append(
                f"| {name} | {difficulty} | {shown_rate(result['self'])} | "
                f"{shown_rate(result['adhoc'])} | {gap:+.3f} |"
            )
    for report in reports:
        name = labels.get(report["team"], report["team"])
        lines += [
            "",
            f"**{name}**, by held-out partner (a stranger joins the team / one of the team "
            "joins strangers):",
            "",
            "| partner | difficulty | stranger joins | joins strangers |",
            "|---|---|---|---|",
        ]
        for difficulty, result in report["results"].items():
            for partner, cell in result["cells"].items():
                lines.append(
                    f"| {labels.get(partner, partner)} | {difficulty} | "
                    f"{shown_rate(cell['stranger_joins'])} | {shown_rate(cell['joins_strangers'])} |"
                )
    return "\n".join(lines)
