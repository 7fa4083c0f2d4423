"""Replay records: a game as its configuration, seed and actions, and the states they give.

The evaluator writes them (``evaluate --record DIR``) and the apps (``shipwreck_apps``)
write and show them; this module sits below both and imports neither.

A record is JSON::

    {"format": "shipwreck-arcana-replay", "version": 1,
     "config": GameConfig.to_dict(),
     "seed": {"entropy": int, "spawn_key": [int, ...]},
     "actions": [int, ...],
     "players": {"play": spec, "group": spec, "humans": [player, ...]},
     "result": {"score": int, "doom": int, "turns": int, "won": bool, "truncated": bool}}

The game's random generator is ``default_rng(SeedSequence(entropy, spawn_key).spawn(2)[0])``
(the second child seeds the policies): the evaluator's :func:`~shipwreck_agents.evaluation.evaluate.game_seed`
and a table's ``--seed S`` (``SeedSequence(S)``) both fit. Replaying the actions with that
generator rebuilds every state exactly; :func:`replay_states` checks the result against
the record's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import IllegalActionError, new_game, step_inplace
from shipwreck_env.rules.state import State

__all__ = [
    "FORMAT",
    "VERSION",
    "ReplayError",
    "game_rng",
    "load_record",
    "make_record",
    "record_game",
    "record_name",
    "record_seed",
    "replay_states",
    "result_of",
    "write_record",
]

FORMAT = "shipwreck-arcana-replay"
VERSION = 1


class ReplayError(ValueError):
    """A replay record that cannot be replayed exactly."""


def game_rng(seed: np.random.SeedSequence) -> np.random.Generator:
    """The game's generator for a seed sequence (its first child; the second seeds the
    policies)."""
    return np.random.default_rng(seed.spawn(2)[0])


def _seed_dict(seed: np.random.SeedSequence) -> dict:
    return {"entropy": int(seed.entropy), "spawn_key": [int(k) for k in seed.spawn_key]}


def result_of(s: State) -> dict:
    """A state's scoreboard as a record's ``result``."""
    return {
        "score": s.score,
        "doom": s.doom,
        "turns": s.turn,
        "won": s.won,
        "truncated": s.truncated,
        "over": s.over,
    }


def make_record(
    config: GameConfig,
    seed: np.random.SeedSequence,
    actions: Sequence[int],
    result: dict,
    players: dict,
) -> dict:
    """The record of a game played from ``seed`` with ``actions``, ending in ``result``
    (:func:`result_of` its last state)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "config": config.to_dict(),
        "seed": _seed_dict(seed),
        "actions": [int(a) for a in actions],
        "players": players,
        "result": dict(result),
    }


def record_game(
    directory: str | Path,
    config: GameConfig,
    seed: np.random.SeedSequence,
    actions: Sequence[int],
    players: dict,
    game: int,
    result: dict,
) -> Path:
    """Write the record of game number ``game`` of an evaluation into ``directory`` as
    :func:`record_name` of its difficulty and number."""
    record = make_record(config, seed, actions, result, players)
    return write_record(directory, record_name(config.difficulty, game), record)


def record_name(difficulty: str, game: int) -> str:
    """File name of game ``game`` of ``difficulty`` in a record directory."""
    return f"{difficulty}-{game:05d}.json"


def write_record(directory: str | Path, name: str, record: dict) -> Path:
    """Write ``record`` as ``directory/name`` (the directory is created)."""
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    out = path / name
    out.write_text(json.dumps(record))
    return out


def load_record(source: str | Path | dict) -> dict:
    """A record from a file path, JSON text or dict, checked for format and fields.

    Raises:
        ReplayError: not a replay record of this format and version, or a bad field.
    """
    if isinstance(source, dict):
        data = source
    else:
        text = str(source)
        if not text.lstrip().startswith("{"):
            try:
                text = Path(source).read_text()
            except OSError as exc:
                raise ReplayError(f"cannot read replay {str(source)!r}: {exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"replay is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayError(f"replay format must be {FORMAT!r}")
    if data.get("version") != VERSION:
        raise ReplayError(f"replay version {data.get('version')!r} is not supported; allowed: 1")
    seed = data.get("seed")
    if (
        not isinstance(seed, dict)
        or type(seed.get("entropy")) is not int
        or not isinstance(seed.get("spawn_key"), list)
        or not all(type(k) is int for k in seed["spawn_key"])
    ):
        raise ReplayError(f"replay seed {seed!r} must be {{'entropy': int, 'spawn_key': [int]}}")
    actions = data.get("actions")
    if not isinstance(actions, list) or not all(type(a) is int for a in actions):
        raise ReplayError("replay actions must be a list of action numbers")
    try:
        GameConfig.from_dict(data.get("config"))
    except (TypeError, ValueError) as exc:
        raise ReplayError(f"replay config is invalid: {exc}") from None
    return data


def record_seed(record: dict) -> np.random.SeedSequence:
    """The record's seed sequence."""
    seed = record["seed"]
    return np.random.SeedSequence(seed["entropy"], spawn_key=tuple(seed["spawn_key"]))


def replay_states(record: dict) -> list[State]:
    """Every state of the recorded game: before the first action, then after each one.

    Raises:
        ReplayError: an action is illegal where it is replayed, or the end differs from
            the record's result.
    """
    record = load_record(record)
    config = GameConfig.from_dict(record["config"])
    rng = game_rng(record_seed(record))
    s = new_game(config, rng)
    states = [s.copy()]
    for i, action in enumerate(record["actions"]):
        try:
            step_inplace(s, action, rng)
        except IllegalActionError as exc:
            raise ReplayError(f"action {i} of the replay cannot be replayed: {exc}") from None
        states.append(s.copy())
    result = record.get("result")
    if isinstance(result, dict):
        got = {"score": s.score, "doom": s.doom, "turns": s.turn, "won": s.won}
        want = {key: result.get(key) for key in got}
        if got != want:
            raise ReplayError(f"replayed game ends {got}, but the record says {want}")
    return states
