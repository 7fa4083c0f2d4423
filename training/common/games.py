"""The batched games of a run: one ``VectorGame`` per difficulty, seen as one batch.

:class:`Games` concatenates the parts' observations, masks, rewards and end-of-game
figures, so the learner sees ``num_games`` rows whatever the difficulties, and can save
and restore every game exactly (:meth:`Games.state_dict`). :class:`ScriptedRole` plays
the decisions of one role with a registry policy (one policy object per game place,
reset when its game restarts, since policies may keep memory within a game), through
``shipwreck_env.envs.policy.decide``, which refuses an illegal choice. The fast trainer and
the SB3 trainer's batched environment both step these.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.envs.policy import decide, observation_layouts
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.vector.game import VectorGame
from shipwreck_training.common.config import GameSettings, check_split

__all__ = ["Games", "ScriptedRole", "learner_decides"]


class Games:
    """``num_games`` games split evenly over ``difficulties`` (default: the settings').

    Part ``k`` (difficulty ``difficulties[k]``) is seeded ``64 * seed + k``.
    """

    def __init__(
        self,
        env: GameSettings,
        num_games: int,
        seed: int,
        *,
        autoreset: bool = True,
        difficulties: tuple[str, ...] | None = None,
    ) -> None:
        self.difficulties = tuple(difficulties or env.difficulties)
        self.per_part = check_split(num_games, self.difficulties)
        self.parts = [
            VectorGame(
                self.per_part,
                64 * seed + k,
                reward=env.reward,
                belief=env.belief_block,
                autoreset=autoreset,
                **env.engine_kwargs(d),
            )
            for k, d in enumerate(self.difficulties)
        ]
        self.num_games = num_games
        self.num_players = env.num_players
        self.layout = self.parts[0].layout

    def locate(self, games: np.ndarray) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """Per part holding some of ``games``: (part, positions in ``games``, local index)."""
        part_of = games // self.per_part
        out = []
        for k in np.unique(part_of):
            pos = np.flatnonzero(part_of == k)
            out.append((int(k), pos, games[pos] - k * self.per_part))
        return out

    def observe(self) -> np.ndarray:
        """float32[N, D]: every decider's observation (a new array)."""
        return np.concatenate([p.observe() for p in self.parts])

    def legal_mask(self) -> np.ndarray:
        """bool[N, 259]: every decider's legal actions."""
        return np.concatenate([p.legal_mask() for p in self.parts])

    @property
    def decider(self) -> np.ndarray:
        """int[N]: the player deciding now in each game (-1 for a finished game)."""
        return np.concatenate([p.decider for p in self.parts])

    def observe_games(self, which: np.ndarray, observer: np.ndarray) -> np.ndarray:
        """float32[len(which), D]: game ``which[i]`` seen by player ``observer[i]``."""
        out = np.zeros((len(which), self.layout.size), np.float32)
        for k, pos, local in self.locate(np.asarray(which, np.int64)):
            out[pos] = self.parts[k].observe(local, np.asarray(observer)[pos])
        return out

    def restart(self, which: np.ndarray) -> None:
        """Start new games in the places ``which`` (their streams go on)."""
        for k, _, local in self.locate(np.asarray(which, np.int64)):
            self.parts[k].restart(local)

    def difficulty_of(self, which: np.ndarray) -> list[str]:
        """The difficulty of each game place in ``which``."""
        return [self.difficulties[int(g) // self.per_part] for g in which]

    def field(self, name: str) -> np.ndarray:
        """The engine array ``name`` of every game (``shipwreck_env.vector.arrays``)."""
        return np.concatenate([getattr(p.arrays, name) for p in self.parts])

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """(reward, terminated, truncated, final_info) of one decision in every game."""
        outs, infos = [], []
        for k, part in enumerate(self.parts):
            outs.append(part.step(actions[k * self.per_part : (k + 1) * self.per_part]))
            infos.append(part.final_info)
        reward, terminated, truncated = (np.concatenate(x) for x in zip(*outs, strict=True))
        info = {key: np.concatenate([i[key] for i in infos]) for key in infos[0]}
        return reward, terminated, truncated, info

    def state_dict(self) -> list[dict[str, np.ndarray]]:
        """Copies of every engine array of every part (restores the games exactly)."""
        return [{f: getattr(p.arrays, f).copy() for f in p.arrays.fields()} for p in self.parts]

    def load_state_dict(self, state: list[dict[str, np.ndarray]]) -> None:
        """Put back games saved by :meth:`state_dict`."""
        for part, arrays in zip(self.parts, state, strict=True):
            for name, value in arrays.items():
                getattr(part.arrays, name)[...] = value
            part._mask = None  # the cached mask belongs to the games replaced


def learner_decides(games: Games, regime: str) -> np.ndarray:
    """bool[N]: the decision now in each game is the learner's (``selfplay``: all;
    ``play``: the active player's; ``predict``: everyone else's)."""
    if regime == "selfplay":
        return np.ones(games.num_games, bool)
    active_player = games.field("active").astype(np.int64) % games.num_players
    active = games.field("decider").astype(np.int64) == active_player
    return active if regime == "play" else ~active


class ScriptedRole:
    """A registry policy taking the decisions the learner does not take.

    Args:
        spec: registry spec (``shipwreck_agents.registry``).
        num_games: game places.
        seed: seeds the policy's generator.
    """

    def __init__(self, spec: str, num_games: int, seed: int) -> None:
        from shipwreck_agents.registry import make_policy

        self.spec = spec
        self.policies = [make_policy(spec) for _ in range(num_games)]
        self.rng = np.random.default_rng(seed)
        self._layouts: dict[GameConfig, dict[bool, ObservationLayout]] = {}

    def restart(self, games: np.ndarray) -> None:
        """The games in places ``games`` restarted: their policies forget them."""
        for g in games:
            self.policies[int(g)].reset()

    def act(self, games: Games, which: np.ndarray) -> np.ndarray:
        """Actions of the scripted policy in the games ``which`` (global indices)."""
        out = np.zeros(len(which), np.int64)
        for k, pos, local in games.locate(which):
            part = games.parts[k]
            for i, s in zip(pos, part.to_states(local.tolist()), strict=True):
                layouts = self._layouts.get(s.config)
                if layouts is None:  # building a layout compiles its encoder: keep it
                    layouts = self._layouts[s.config] = observation_layouts(s.config)
                out[i] = decide(self.policies[int(which[i])], s, layouts, self.rng).action
        return out
