"""Cross-play: how a team does with partners it never trained or was written with.

Ad-hoc teamwork asks whether a team's players can play with strangers. A cell
``(A, B)`` of the cross-play matrix seats one player of team ``A`` at a table whose
other players all come from team ``B``: ``A`` is the newcomer, ``B`` the hosts. The
newcomer's seat turns with the game number (game ``i``: player ``i mod players``), so no
seat is favoured, and the deals are the evaluator's (:func:`~shipwreck_agents.evaluation.evaluate.game_seed`),
so every cell meets the same games. The diagonal ``(A, A)`` is self-play: the whole
table is team ``A`` (one object, exactly as :func:`~shipwreck_agents.evaluation.evaluate.evaluate`
plays it).

Per team: its **self-play** win rate, its **cross-play** win rate (every game of the
cells where it is newcomer or host with another team, pooled) and the **gap** between
them; each with its 95% Wilson interval. Teams are named as the table's teammates are
(:func:`~shipwreck_agents.registry.make_team`): ``convention``, ``heuristic+bayes``,
``fast:results/models/fast_selfplay.pth``, ...

Nothing here reads a hidden fate: each player's policy sees only its own view
(:func:`shipwreck_env.envs.policy.decide`); a cheating team is refused.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from shipwreck_agents.evaluation.evaluate import (
    check_counts,
    game_seed,
    map_tasks,
    play_game,
    wilson_interval,
)
from shipwreck_agents.registry import make_team
from shipwreck_env.envs.policy import Team
from shipwreck_env.rules.config import DIFFICULTIES, GameConfig
from shipwreck_env.rules.view import AgentView

__all__ = [
    "MixedTable",
    "cell_games",
    "crossplay",
    "crossplay_markdown",
    "method_markdown",
    "method_summary",
    "rate",
    "run_cell",
    "seated_table",
    "shown_rate",
    "team_labels",
]


class MixedTable(Team):
    """A table where player ``p`` plays for ``teams[p]`` in both roles.

    Several players may share one team object (the hosts of a cross-play cell), as the
    players of a self-play team do.
    """

    def __init__(self, teams: Sequence[Team]) -> None:
        self.teams = list(teams)
        super().__init__(self.teams[0].play, self.teams[0].group)

    @property
    def name(self) -> str:
        """The teams by seat, ``|``-separated."""
        return "|".join(team.name for team in self.teams)

    @property
    def cheating(self) -> bool:
        """Any team reads hidden information."""
        return any(team.cheating for team in self.teams)

    def reset(self) -> None:
        """Start a new game for every distinct team."""
        for team in {id(t): t for t in self.teams}.values():
            team.reset()

    def policy_for(self, view: AgentView) -> object:
        """The policy of the deciding player's own team, for the role it decides in."""
        return self.teams[view.player].policy_for(view)

    def watchers(self, player: int) -> list:
        """The watching policies of ``player``'s own team."""
        return self.teams[player].watchers(player)


def seated_table(newcomer: Team, hosts: Team, players: int, game: int) -> Team:
    """The table of game ``game`` of a cell: ``newcomer`` in seat ``game % players``,
    ``hosts`` in every other seat (``hosts`` alone when they are the same team)."""
    if newcomer is hosts:
        return hosts
    seat = game % players
    return MixedTable([newcomer if p == seat else hosts for p in range(players)])


def cell_games(task: tuple) -> Iterator[tuple[GameConfig, Team, np.random.SeedSequence]]:
    """The games of one cell, each as (config, seated table, seed): ``task`` is
    ``(config as a dict, newcomer spec, host spec, seed, game numbers)``; a worker
    process rebuilds the teams from their specs."""
    config_dict, newcomer_spec, host_spec, seed, games = task
    config = GameConfig.from_dict(config_dict)
    newcomer = make_team(newcomer_spec)
    hosts = newcomer if newcomer_spec == host_spec else make_team(host_spec)
    for i in games:
        table = seated_table(newcomer, hosts, config.num_players, i)
        yield config, table, game_seed(seed, config.difficulty, i)


def run_cell(task: tuple) -> list[bool]:
    """Win or loss of each game of one cell (:func:`cell_games`)."""
    return [play_game(config, table, seed).won for config, table, seed in cell_games(task)]


def rate(wins: int, games: int) -> dict:
    """``wins`` of ``games`` as a win rate with its 95% Wilson interval (a table cell)."""
    low, high = wilson_interval(wins, games)
    return {"wins": wins, "games": games, "win_rate": wins / games, "ci95": [low, high]}


def crossplay(
    teams: Sequence[str],
    *,
    players: int = 3,
    difficulty: str = "normal",
    games: int = 500,
    seed: int = 0,
    jobs: int = 1,
    **config: object,
) -> dict:
    """Play every cell of the cross-play matrix of ``teams`` (see the module docstring).

    Returns ``{"config", "teams", "seed", "games", "cells": {newcomer: {host: rate}},
    "summary": {team: {"self", "cross", "gap"}}}``, each rate with its wins, games, win
    rate and 95% interval; identical for any ``jobs``.

    Raises:
        ValueError: fewer than two teams, a repeated or unknown team, a cheating team,
            a bad count or game option.
    """
    teams = list(teams)
    if len(teams) < 2 or len(set(teams)) != len(teams):
        raise ValueError(
            f"teams {teams!r} are not allowed; allowed: two or more distinct team specs"
        )
    check_counts(games=games, jobs=jobs)
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty {difficulty!r} is not allowed; allowed: {list(DIFFICULTIES)}")
    for spec in teams:  # fail early, in this process, on an unknown or cheating team
        if make_team(spec).cheating:
            raise ValueError(
                f"team {spec!r} cheats (reads hidden fates); cross-play is for fair teams"
            )
    base = GameConfig(num_players=players, difficulty=difficulty, **config)
    chunk = max(1, min(100, games // max(1, 2 * jobs)))
    tasks = [
        (base.to_dict(), a, b, seed, range(start, min(games, start + chunk)))
        for a in teams
        for b in teams
        for start in range(0, games, chunk)
    ]
    results = list(map_tasks(run_cell, tasks, jobs))
    won: dict[tuple[str, str], int] = {}
    for task, out in zip(tasks, results, strict=True):
        won[(task[1], task[2])] = won.get((task[1], task[2]), 0) + sum(out)
    cells = {a: {b: rate(won[(a, b)], games) for b in teams} for a in teams}
    summary = {}
    for a in teams:
        cross_wins = sum(won[(a, b)] + won[(b, a)] for b in teams if b != a)
        cross_games = 2 * games * (len(teams) - 1)
        own, cross = rate(won[(a, a)], games), rate(cross_wins, cross_games)
        summary[a] = {"self": own, "cross": cross, "gap": own["win_rate"] - cross["win_rate"]}
    return {
        "config": base.to_dict(),
        "teams": teams,
        "seed": seed,
        "games": games,
        "cells": cells,
        "summary": summary,
    }


def _short(spec: str) -> str:
    kind, sep, path = spec.partition(":")
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    file = sep and "/" in path and "=" not in path  # not an option list (ally:lib=a/b)
    return f"{kind}:{stem}" if file and stem else spec


def team_labels(teams: Sequence[str]) -> dict[str, str]:
    """Short names for the tables and the heatmap: a team read from a file is named by
    its kind and the file's stem (``fast:results/models/fast_selfplay.pth`` ->
    ``fast:fast_selfplay``, each side of a ``PLAY+GROUP`` team on its own); every team
    keeps its full spec if two would share a name."""
    labels = {spec: "+".join(_short(part) for part in spec.split("+")) for spec in teams}
    if len(set(labels.values())) < len(labels):
        return {spec: spec for spec in teams}
    return labels


def shown_rate(cell: dict) -> str:
    """A :func:`rate` as ``0.750 [0.700, 0.800]``."""
    low, high = cell["ci95"]
    return f"{cell['win_rate']:.3f} [{low:.3f}, {high:.3f}]"


def crossplay_markdown(report: dict) -> str:
    """The matrix and the per-team summary as Markdown tables (teams by their
    :func:`team_labels`, with the full spec of each shortened one listed under them)."""
    teams = report["teams"]
    label = team_labels(teams)
    cfg = report["config"]
    lines = [
        f"{cfg['num_players']} players, {cfg['difficulty']}, card sets "
        f"{','.join(cfg['card_sets'])}, {cfg['group_decision']}; {report['games']} games per "
        f"cell, seed {report['seed']}. Row: the newcomer (one seat, turning with the game); "
        "column: the hosts (every other seat). Win rate [95% interval].",
        "",
        "| newcomer \\ hosts | " + " | ".join(label[t] for t in teams) + " |",
        "|---|" + "---|" * len(teams),
    ]
    lines += [
        f"| {label[a]} | " + " | ".join(shown_rate(report["cells"][a][b]) for b in teams) + " |"
        for a in teams
    ]
    lines += ["", "| team | self-play | cross-play | gap |", "|---|---|---|---:|"]
    for a in teams:
        s = report["summary"][a]
        lines.append(
            f"| {label[a]} | {shown_rate(s['self'])} | {shown_rate(s['cross'])} | {s['gap']:+.3f} |"
        )
    files = [f"`{label[t]}` = `{t}`" for t in teams if label[t] != t]
    if files:
        lines += ["", "Teams read from files: " + "; ".join(files) + "."]
    return "\n".join(lines)


def method_summary(report: dict, methods: dict[str, Sequence[str]]) -> dict:
    """Per training method (a name for several teams of a report, e.g. the seeds of one
    recipe): its **self-play** (the diagonal cells of its teams, pooled), its
    **cross-play between its own seeds** (every cell pairing two different teams of the
    method: how independently trained teams of one recipe play together, the measure of
    zero-shot coordination), the **gap** between the two, and its **cross-play with the
    other teams** of the report (both directions, pooled); each with a Wilson interval.

    Raises:
        ValueError: a method naming a team the report does not hold, or fewer than two.
    """
    teams = report["teams"]
    cells = report["cells"]
    out = {}
    for name, members in methods.items():
        members = list(members)
        unknown = [m for m in members if m not in teams]
        if unknown or len(members) < 2:
            raise ValueError(
                f"method {name!r} names {members!r}; allowed: two or more of the report's "
                f"teams {teams!r}"
            )
        others = [t for t in teams if t not in members]

        def pooled(pairs: list[tuple[str, str]]) -> dict:
            wins = sum(cells[a][b]["wins"] for a, b in pairs)
            return rate(wins, sum(cells[a][b]["games"] for a, b in pairs))

        own = pooled([(m, m) for m in members])
        within = pooled([(a, b) for a in members for b in members if a != b])
        outside = pooled([p for m in members for o in others for p in ((m, o), (o, m))])
        out[name] = {
            "teams": members,
            "self": own,
            "within": within,
            "gap": own["win_rate"] - within["win_rate"],
            "others": outside if others else None,
        }
    return out


def method_markdown(summary: dict) -> str:
    """:func:`method_summary` as a Markdown table."""
    lines = [
        "| method | teams | self-play | cross-play between its seeds | gap | cross-play with "
        "the other teams |",
        "|---|---:|---|---|---:|---|",
    ]
    for name, s in summary.items():
        others = shown_rate(s["others"]) if s["others"] else "-"
        lines.append(
            f"| {name} | {len(s['teams'])} | {shown_rate(s['self'])} | {shown_rate(s['within'])} | "
            f"{s['gap']:+.3f} | {others} |"
        )
    return "\n".join(lines)
