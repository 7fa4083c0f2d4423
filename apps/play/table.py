"""One game with people in some seats and a team of AI policies in the others.

A :class:`Table` owns the state, the game's and the policies' random generators (both
from one seed, as in replay records), the list of every action, and a public log of the
game. People act through :meth:`Table.act`; :meth:`Table.advance` lets the AI teammates
take every decision until a person must decide or the game ends. Everything a person is
shown comes from :meth:`Table.seat_data` -- their own view only.

Saving writes the replay record (config, seed, actions) plus the seats and teammates and
the exact state; loading replays the actions from the seed, asking the AI teammates
again at their decisions so that their memory of the game is rebuilt, and checks that
the replayed state equals the saved one.
"""

from __future__ import annotations

import copy
import json
import secrets
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from shipwreck_agents.records import game_rng, make_record, result_of
from shipwreck_apps.play.seat_view import view_data
from shipwreck_env import saving
from shipwreck_env.actions import NUM_ACTIONS, describe
from shipwreck_env.config import GameConfig
from shipwreck_env.engine import legal_actions, new_game, step_inplace
from shipwreck_env.policy import Policy, Team, decide, observation_layouts
from shipwreck_env.render import describe_event
from shipwreck_env.state import State
from shipwreck_env.view import make_view

__all__ = ["SAVE_FORMAT", "PlayError", "Table", "log_entry", "make_team", "teammates_label"]

SAVE_FORMAT = "shipwreck-arcana-table"

_PLAY_ONLY = ("heuristic",)
_GROUP_ONLY = ("oracle",)


class PlayError(ValueError):
    """A request the table refuses (not this player's turn, illegal action, bad file);
    the game is unchanged."""


def _role(policy: Policy, spec: str) -> str:
    name = spec.partition(":")[0]
    if name in _PLAY_ONLY:
        return "play"
    if name in _GROUP_ONLY:
        return "group"
    role = getattr(policy, "meta", {}).get("role")
    return {"play": "play", "predict": "group"}.get(role, "both")


def make_team(spec: str) -> Team:
    """The AI teammates' team from ``spec``: ``PLAY+GROUP`` (two registry specs), or one
    spec used for both roles -- a play-only policy (``heuristic``, a model trained to
    play) gets ``bayes`` as its group, a group-only one (``oracle``, a model trained to
    predict) gets ``heuristic`` as its player.

    Raises:
        ValueError: an unknown spec.
    """
    from shipwreck_agents.registry import make_policy

    if "+" in spec:
        play, _, group = spec.partition("+")
        return Team(make_policy(play), make_policy(group))
    policy = make_policy(spec)
    role = _role(policy, spec)
    if role == "play":
        return Team(policy, make_policy("bayes"))
    if role == "group":
        return Team(make_policy("heuristic"), policy)
    return Team(policy, policy)


class Table:
    """A game with people in ``humans`` (player numbers) and ``teammates`` elsewhere.

    Args:
        config: the game's rules.
        humans: players controlled by people (at least one).
        teammates: registry spec of the AI teammates (:func:`make_team`).
        seed: the game's seed (random when ``None``): the deck, the fates and the AI's
            random choices all follow from it.
    """

    def __init__(
        self,
        config: GameConfig,
        humans: Iterable[int],
        teammates: str = "bayes",
        seed: int | None = None,
    ) -> None:
        self.config = config
        self.humans = tuple(sorted(set(int(h) for h in humans)))
        P = config.num_players
        if not self.humans or any(not 0 <= h < P for h in self.humans):
            raise ValueError(f"human seats {list(humans)!r} are not allowed; allowed: 0..{P - 1}")
        self.teammates = teammates
        self.team = make_team(teammates)
        self.seed = int(seed) if seed is not None else secrets.randbits(63)
        seq = np.random.SeedSequence(self.seed)
        self._seq = seq
        self.rng = game_rng(seq)
        self.policy_rng = np.random.default_rng(seq.spawn(2)[1])
        self.layouts = observation_layouts(config)
        self.team.reset()
        self.state = new_game(config, self.rng)
        self.actions: list[int] = []
        self.log: list[dict] = []
        self._advisor = _advisor(self.team)
        self._check_team()

    def _check_team(self) -> None:
        """Ask the teammates once on a copy so a model that cannot play this game fails
        here, with its message, rather than mid-game."""
        from shipwreck_agents.trained import check_game

        for policy in (self.team.play, self.team.group):
            meta = getattr(policy, "meta", None)
            if isinstance(meta, dict):
                try:
                    check_game(meta, self.config, policy.name)
                except ValueError as exc:
                    raise ValueError(f"teammates {self.teammates!r}: {exc}") from None
        if self.state.decider in self.humans:
            return
        try:
            decide(self.team, self.state, self.layouts, np.random.default_rng(0))
        except ValueError as exc:
            raise ValueError(f"teammates {self.teammates!r} cannot play this game: {exc}") from None
        self.team.reset()

    # --- playing -------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Has the game ended?"""
        return self.state.over

    @property
    def waiting_for(self) -> int | None:
        """The person (player number) who must decide now, or ``None``."""
        d = self.state.decider
        return d if not self.state.over and d in self.humans else None

    def legal(self, player: int) -> list[int]:
        """``player``'s legal actions now (empty when someone else decides)."""
        return legal_actions(self.state) if self.waiting_for == player else []

    def act(self, player: int, action: object) -> dict:
        """``player`` (a person) takes ``action``; returns the log entry.

        Raises:
            PlayError: the game is over, it is not ``player``'s decision, or ``action`` is
                not one of their legal action numbers. Nothing changes.
        """
        if self.state.over:
            raise PlayError("the game is over; no action is legal")
        if player not in self.humans:
            raise PlayError(f"player {player!r} is not played by a person at this table")
        if self.state.decider != player:
            raise PlayError(f"it is player {self.state.decider}'s decision, not player {player}'s")
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:
            raise PlayError(f"action {action!r} is not an action number (0..{NUM_ACTIONS - 1})")
        legal = legal_actions(self.state)
        if action not in legal:
            raise PlayError(
                f"action {action} ({describe(action)}) is not legal now; legal: "
                + ", ".join(f"{a} ({describe(a)})" for a in legal)
            )
        return self._apply(action, by="person")

    def advance(self, limit: int | None = None) -> list[dict]:
        """Let the AI teammates decide until a person must, the game ends, or ``limit``
        decisions were taken; returns their log entries."""
        entries = []
        while not self.state.over and self.state.decider not in self.humans:
            if limit is not None and len(entries) >= limit:
                break
            action = decide(self.team, self.state, self.layouts, self.policy_rng).action
            entries.append(self._apply(action, by="ai"))
        return entries

    def _apply(self, action: int, by: str) -> dict:
        s = self.state
        player, turn, seen = s.decider, s.turn, len(s.events)
        step_inplace(s, action, self.rng, check=False)
        self.actions.append(action)
        entry = log_entry(player, turn, seen, s, action, len(self.actions), by)
        self.log.append(entry)
        return entry

    # --- what a seat sees ----------------------------------------------------------------

    def seat_data(self, player: int, log_tail: int | None = None) -> dict:
        """What ``player`` may know now, as data (:func:`~shipwreck_apps.play.seat_view.view_data`),
        with the public log and -- when the group has something to conclude -- the
        teammates' model's posterior computed from this player's own view."""
        view = make_view(self.state, player)
        log = self.log if log_tail is None else self.log[-log_tail:]
        data = view_data(view, log, self._posterior(view))
        data["version"] = len(self.actions)
        data["humans"] = list(self.humans)
        data["teammates"] = teammates_label(self.teammates)
        return data

    def _posterior(self, view) -> list[float] | None:
        if self._advisor is None or view.over or view.active_player == view.player:
            return None
        if view.holding[view.active_seat] != 1 or not view.plays:
            return None
        try:
            return [float(p) for p in self._advisor.posterior(view)]
        except Exception:  # an advisor that cannot read this turn just says nothing
            return None

    # --- saving --------------------------------------------------------------------------

    def record(self) -> dict:
        """The game so far as a replay record."""
        players = {
            "play": self.team.play.name,
            "group": self.team.group.name,
            "teammates": self.teammates,
            "humans": list(self.humans),
        }
        return make_record(self.config, self._seq, self.actions, result_of(self.state), players)

    def dumps(self) -> str:
        """The game as JSON text (see the module docstring)."""
        return json.dumps(
            {
                "format": SAVE_FORMAT,
                "version": 1,
                "seed": self.seed,
                "humans": list(self.humans),
                "teammates": self.teammates,
                "record": self.record(),
                "state": saving.dumps(self.state, self.rng),
            }
        )

    @classmethod
    def loads(cls, text: str) -> Table:
        """A table saved by :meth:`dumps`, replayed to the same moment.

        Raises:
            PlayError: not a saved table, or it does not replay to the saved state.
        """
        try:
            data = json.loads(text)
        except (TypeError, json.JSONDecodeError) as exc:
            raise PlayError(f"saved game is not valid JSON: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
            raise PlayError(f"saved game format must be {SAVE_FORMAT!r}")
        try:
            record = data["record"]
            config = GameConfig.from_dict(record["config"])
            table = cls(config, data["humans"], data["teammates"], data["seed"])
            table._replay(record["actions"])
            saved, saved_rng = saving.loads(data["state"])
        except (KeyError, TypeError, ValueError) as exc:
            raise PlayError(f"saved game cannot be loaded: {exc}") from None
        if saved != table.state or saved_rng.bit_generator.state != table.rng.bit_generator.state:
            raise PlayError("saved game does not replay to its saved state (edited or corrupt)")
        return table

    def _replay(self, actions: Sequence[int]) -> None:
        for action in actions:
            if not self.state.over and self.state.decider not in self.humans:
                # ask the teammates again, so their memory of the game is rebuilt
                decide(self.team, self.state, self.layouts, self.policy_rng)
            if self.state.over or action not in legal_actions(self.state):
                raise PlayError(f"saved action {action!r} is not legal where it is replayed")
            self._apply(int(action), by="person" if self.state.decider in self.humans else "ai")


def teammates_label(spec: str) -> str:
    """``spec`` for people to read: a model by its file name, not its path."""
    parts = []
    for part in spec.split("+", 1):
        name, _, arg = part.partition(":")
        parts.append(f"ppo:{Path(arg).name}" if name == "ppo" else part)
    return "+".join(parts)


def log_entry(
    player: int, turn: int, seen: int, after: State, action: int, index: int, by: str
) -> dict:
    """The public log entry of action number ``index`` (from 1): ``player`` took
    ``action`` in turn ``turn`` when that turn had ``seen`` events, giving ``after``."""
    if after.turn != turn and not after.over:  # the turn ended: its events, then the new one's
        events = after.last_events[seen:] + after.events
    else:
        events = after.events[seen:]
    return {
        "index": index,
        "turn": turn,
        "player": player,
        "by": by,
        "action": describe(action),
        "events": [describe_event(e) for e in events],
    }


def _advisor(team: Team) -> object | None:
    """A fresh copy of the teammates' group model with a ``posterior``, for reading the
    hidden fate from a person's own view (``None`` if the group has no posterior)."""
    group = team.group
    if not hasattr(group, "posterior"):
        return None
    advisor = copy.deepcopy(group)  # same options (convention:A, ...), its own memory
    advisor.reset()
    return advisor
