"""Play many games with a team and summarise them, reproducibly and in parallel.

Game ``i`` of difficulty ``d`` draws its deck, fates and every policy choice from
:func:`game_seed` -- ``SeedSequence(seed, spawn_key=(d, i))`` -- so the results are identical whatever the
number of worker processes. :func:`evaluate` returns, per difficulty, the win rate with
a 95% Wilson interval, mean final score, doom and turns, prediction accuracy,
predictions per turn, and the doom that came from fades and from wrong predictions.
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from shipwreck_agents.registry import make_policy
from shipwreck_env.envs.policy import Policy, Team, decide, let_watch, observation_layouts
from shipwreck_env.rules.config import DIFFICULTIES, GameConfig
from shipwreck_env.rules.engine import new_game, step_inplace

__all__ = [
    "GameRecord",
    "PolicyLike",
    "check_counts",
    "evaluate",
    "format_table",
    "game_seed",
    "map_tasks",
    "play_game",
    "wilson_interval",
    "wins_by_game",
    "write_outputs",
]

T = TypeVar("T")


@dataclass(frozen=True)
class GameRecord:
    """The outcome of one game."""

    won: bool
    truncated: bool
    score: int
    doom: int
    turns: int
    predictions: int
    correct: int
    doom_fades: int
    doom_wrong: int


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends, no rounding dust
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def _turn_outcome(events: Iterable[tuple]) -> tuple[int, bool]:
    guesses = correct = 0
    for event in events:
        if event[0] == "predict":
            guesses += 1
            correct = correct or event[2]
    return guesses, bool(correct)


def play_game(
    config: GameConfig,
    team: Team,
    seed_seq: np.random.SeedSequence,
    actions: list[int] | None = None,
    turn_starts: list[tuple[int, int]] | None = None,
) -> GameRecord:
    """Play one game; ``seed_seq`` seeds the game and the policies (two streams).

    Policies that read observation vectors get them in the layout they were built for
    (``policy.belief``, default off). With ``actions``, every action taken is appended
    to it (a replay record: ``shipwreck_agents.evaluation.records``); with
    ``turn_starts``, the score and doom at the start of every turn.
    """
    game_seed, policy_seed = seed_seq.spawn(2)
    game_rng = np.random.default_rng(game_seed)
    policy_rng = np.random.default_rng(policy_seed)
    team.reset()
    layouts = observation_layouts(config)
    s = new_game(config, game_rng)
    guesses = correct = doom_fades = doom_wrong = 0
    if turn_starts is not None:
        turn_starts.append((s.score, s.doom))
    while not s.over:
        action = decide(team, s, layouts, policy_rng).action
        turn, doom = s.turn, s.doom
        step_inplace(s, action, game_rng, check=False)
        let_watch(team, s)
        if actions is not None:
            actions.append(action)
        if s.turn != turn or s.over:  # a turn ended: attribute its doom
            turn_guesses, turn_correct = _turn_outcome(s.events if s.over else s.last_events)
            guesses += turn_guesses
            correct += turn_correct
            wrong = 1 if turn_guesses and not turn_correct else 0
            doom_wrong += wrong
            doom_fades += s.doom - doom - wrong
            if turn_starts is not None and not s.over:
                turn_starts.append((s.score, s.doom))
    return GameRecord(
        won=s.won,
        truncated=s.truncated,
        score=s.score,
        doom=s.doom,
        turns=s.turn,
        predictions=guesses,
        correct=correct,
        doom_fades=doom_fades,
        doom_wrong=doom_wrong,
    )


def game_seed(seed: int, difficulty: str, game: int) -> np.random.SeedSequence:
    """The seed of game number ``game`` (from 0) of ``difficulty`` in an evaluation with
    ``seed``: ``SeedSequence(seed, spawn_key=(index of difficulty in DIFFICULTIES, game))``.
    :func:`play_game` with it replays that game of the report exactly."""
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty {difficulty!r} is not allowed; allowed: {list(DIFFICULTIES)}")
    return np.random.SeedSequence(seed, spawn_key=(list(DIFFICULTIES).index(difficulty), game))


PolicyLike = str | Policy
"""A registry spec (``shipwreck_agents.registry``) or a policy object."""


def _policy(policy: PolicyLike) -> Policy:
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, str):
        return make_policy(policy)
    raise ValueError(f"policy {policy!r} is not allowed; allowed: a registry spec or a Policy")


def _label(policy: PolicyLike) -> str:
    return policy if isinstance(policy, str) else policy.name


def _run_chunk(task: tuple) -> list[tuple[int, dict]]:
    config_dict, play, group, seed, difficulty, games, record = task
    config = GameConfig.from_dict(config_dict)
    team = Team(_policy(play), _policy(group))
    if record is None:
        return [(i, asdict(play_game(config, team, game_seed(seed, difficulty, i)))) for i in games]
    from shipwreck_agents.evaluation.records import record_game

    out = []
    for i in games:
        actions: list[int] = []
        result = play_game(config, team, game_seed(seed, difficulty, i), actions)
        players = {"play": _label(play), "group": _label(group), "humans": []}
        outcome = {
            "score": result.score,
            "doom": result.doom,
            "turns": result.turns,
            "won": result.won,
            "truncated": result.truncated,
            "over": True,
        }
        record_game(record, config, game_seed(seed, difficulty, i), actions, players, i, outcome)
        out.append((i, asdict(result)))
    return out


def summarise(records: Sequence[GameRecord], starting_doom: int) -> dict:
    """Every figure of one difficulty from its game records."""
    n = len(records)
    wins = sum(r.won for r in records)
    low, high = wilson_interval(wins, n)
    guesses = sum(r.predictions for r in records)
    turns = sum(r.turns for r in records)
    return {
        "games": n,
        "wins": wins,
        "win_rate": wins / n,
        "win_rate_ci95": [low, high],
        "truncated": sum(r.truncated for r in records),
        "mean_score": float(np.mean([r.score for r in records])),
        "mean_doom": float(np.mean([r.doom for r in records])),
        "mean_turns": turns / n,
        "prediction_accuracy": sum(r.correct for r in records) / guesses if guesses else 0.0,
        "predictions_per_turn": guesses / turns if turns else 0.0,
        "mean_doom_from_fades": float(np.mean([r.doom_fades for r in records])),
        "mean_doom_from_wrong_predictions": float(np.mean([r.doom_wrong for r in records])),
        "starting_doom": starting_doom,
    }


def _game_tasks(
    play: PolicyLike,
    group: PolicyLike,
    players: int,
    difficulties: Sequence[str],
    games: int,
    seed: int,
    jobs: int,
    config: dict,
) -> tuple[Team, GameConfig, list[tuple]]:
    """The team (built here first, so a bad spec fails before any game), the game
    settings and the worker tasks ``(config, play, group, seed, difficulty, games)``
    of an evaluation: chunks of game numbers small enough to spread over ``jobs``."""
    check_counts(games=games, jobs=jobs)
    team = Team(_policy(play), _policy(group))
    base = GameConfig(num_players=players, **config)
    chunk = max(1, min(100, games // max(1, 4 * jobs)))
    tasks = []
    for difficulty in difficulties:
        config_dict = {**base.to_dict(), "difficulty": difficulty}
        for start in range(0, games, chunk):
            games_range = range(start, min(games, start + chunk))
            tasks.append((config_dict, play, group, seed, difficulty, games_range))
    return team, base, tasks


def evaluate(
    play: PolicyLike,
    group: PolicyLike,
    *,
    players: int = 3,
    difficulties: Sequence[str] = tuple(DIFFICULTIES),
    games: int = 2000,
    seed: int = 0,
    jobs: int = 1,
    progress: bool = True,
    record: str | None = None,
    **config: object,
) -> dict:
    """Evaluate the team ``play`` + ``group`` on each difficulty.

    Each of ``play`` and ``group`` is a registry spec (``"heuristic"``, ``"ppo:PATH"``,
    ...) or a :class:`~shipwreck_env.envs.policy.Policy` object -- a user's own agent gets the
    same seeds (:func:`game_seed`), worker processes (it must then be picklable) and
    report. Returns ``{"config", "play", "group", "seed", "games", "cheating",
    "results": {difficulty: summary}}`` (``play``/``group`` are the spec, or the
    policy's ``name``); identical for any ``jobs``. With ``record`` (a folder), every
    game is also written there as a replay record (``DIFFICULTY-GAME.json``:
    ``shipwreck_agents.evaluation.records``).
    """
    team, base, tasks = _game_tasks(play, group, players, difficulties, games, seed, jobs, config)
    tasks = [(*task, record) for task in tasks]
    bar = _progress(len(tasks) and games * len(difficulties), progress, team.name)
    by_task: list[list[tuple[int, dict]]] = []
    for task, out in zip(tasks, map_tasks(_run_chunk, tasks, jobs), strict=True):
        by_task.append(out)
        bar.update(len(task[5]))
    bar.close()
    results = {}
    for difficulty in difficulties:
        records = [
            GameRecord(**rec)
            for task, out in zip(tasks, by_task, strict=True)
            if task[0]["difficulty"] == difficulty
            for _, rec in sorted(out)
        ]
        results[difficulty] = summarise(records, DIFFICULTIES[difficulty])
    return {
        "config": base.to_dict(),
        "play": _label(play),
        "group": _label(group),
        "team": team.name,
        "cheating": team.cheating,
        "seed": seed,
        "games": games,
        "results": results,
    }


def _won_chunk(task: tuple) -> list[bool]:
    config_dict, play, group, seed, difficulty, games = task
    team = Team(_policy(play), _policy(group))
    config = GameConfig.from_dict(config_dict)
    return [play_game(config, team, game_seed(seed, difficulty, i)).won for i in games]


def wins_by_game(
    play: PolicyLike,
    group: PolicyLike,
    *,
    players: int = 3,
    difficulties: Sequence[str] = tuple(DIFFICULTIES),
    games: int = 2000,
    seed: int = 0,
    jobs: int = 1,
    **config: object,
) -> dict[str, list[bool]]:
    """Whether the team won each game, per difficulty: the games :func:`evaluate` plays
    with the same arguments (game ``i`` seeded by :func:`game_seed`), so two teams'
    lists pair deal by deal. Identical for any ``jobs``."""
    tasks = _game_tasks(play, group, players, difficulties, games, seed, jobs, config)[2]
    won: dict[str, list[bool]] = {d: [] for d in difficulties}
    for task, out in zip(tasks, map_tasks(_won_chunk, tasks, jobs), strict=True):
        won[task[4]].extend(out)
    return won


def check_counts(**counts: object) -> None:
    """Refuse a count (games, jobs, ...) that is not an integer >= 1, naming it.

    Raises:
        ValueError: the first such count, its value and what is allowed.
    """
    for name, value in counts.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} {value!r} is not allowed; allowed: an integer >= 1")


def map_tasks(run: Callable[[tuple], T], tasks: Sequence[tuple], jobs: int) -> Iterator[T]:
    """``run(task)`` for every task, in order: in this process for ``jobs <= 1``, else in
    ``jobs`` worker processes (one thread each), so results do not depend on ``jobs``."""
    if jobs <= 1:
        yield from map(run, tasks)
        return
    # spawn, not fork: a forked child of a process that already ran torch (a trained
    # policy was loaded) can hang in torch's thread pool.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_one_thread_per_worker
    ) as pool:
        yield from pool.map(run, tasks)


def _one_thread_per_worker() -> None:
    """Workers already fill the cores: torch's own thread pool (sized when torch is first
    imported, which a trained policy does later) would oversubscribe them."""
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["MKL_NUM_THREADS"] = "1"


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool, label: str):
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, desc=label, unit="game", file=sys.stderr, leave=False)


def format_table(report: dict) -> str:
    """Markdown table of one evaluation (one row per difficulty)."""
    flag = " (CHEATS: upper bound)" if report["cheating"] else ""
    cfg = report["config"]
    lines = [
        f"{report['team']}{flag}: {cfg['num_players']} players, card sets "
        f"{','.join(cfg['card_sets'])}, {cfg['group_decision']}, {report['games']} games "
        f"per difficulty, seed {report['seed']}",
        "",
        "| difficulty | win rate | 95% CI | score | doom | turns | accuracy | predictions/turn "
        "| doom: fades | doom: wrong |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for difficulty, r in report["results"].items():
        low, high = r["win_rate_ci95"]
        lines.append(
            f"| {difficulty} | {r['win_rate']:.3f} | [{low:.3f}, {high:.3f}] | "
            f"{r['mean_score']:.2f} | {r['mean_doom']:.2f} | {r['mean_turns']:.2f} | "
            f"{r['prediction_accuracy']:.3f} | {r['predictions_per_turn']:.3f} | "
            f"{r['mean_doom_from_fades']:.2f} | {r['mean_doom_from_wrong_predictions']:.2f} |"
        )
    return "\n".join(lines)


def write_outputs(reports: list[dict], path: str) -> list[str]:
    """Write ``path`` (JSON) and the same figures as CSV beside it (``.csv``); returns
    the two paths written (their folder is created)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        json.dump(reports if len(reports) > 1 else reports[0], fh, indent=2)
    csv_path = path[:-5] + ".csv" if path.endswith(".json") else path + ".csv"
    with open(csv_path, "w", newline="") as fh:
        writer = csv.writer(fh)
        header = [
            "team",
            "play",
            "group",
            "cheating",
            "players",
            "card_sets",
            "group_decision",
            "seed",
            "difficulty",
            "games",
            "wins",
            "win_rate",
            "ci_low",
            "ci_high",
            "mean_score",
            "mean_doom",
            "mean_turns",
            "prediction_accuracy",
            "predictions_per_turn",
            "doom_from_fades",
            "doom_from_wrong_predictions",
        ]
        writer.writerow(header)
        for rep in reports:
            cfg = rep["config"]
            for difficulty, r in rep["results"].items():
                writer.writerow(
                    [
                        rep["team"],
                        rep["play"],
                        rep["group"],
                        rep["cheating"],
                        cfg["num_players"],
                        ",".join(cfg["card_sets"]),
                        cfg["group_decision"],
                        rep["seed"],
                        difficulty,
                        r["games"],
                        r["wins"],
                        r["win_rate"],
                        *r["win_rate_ci95"],
                        r["mean_score"],
                        r["mean_doom"],
                        r["mean_turns"],
                        r["prediction_accuracy"],
                        r["predictions_per_turn"],
                        r["mean_doom_from_fades"],
                        r["mean_doom_from_wrong_predictions"],
                    ]
                )
    return [path, csv_path]
