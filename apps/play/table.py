"""One game with people in some seats and a team of AI policies in the others.

A :class:`Table` owns the state, the game's and the policies' random generators (both
from one seed, as in replay records), the list of every action, and a public log of the
game. People act through :meth:`Table.act`; :meth:`Table.advance` lets the AI teammates
take every decision until a person must decide or the game ends. Everything a person is
shown comes from :meth:`Table.seat_data` -- their own view only.

A table never seats a cheating policy (one that reads hidden fates) beside a person, and
it checks its teammates before the game starts by letting them play on a scratch copy.
:meth:`Table.play` is all-or-nothing: a person's action is applied with every AI
decision after it, or, if anything fails, the game is left exactly as before; a failure
of the AI teammates also ends the game (:attr:`Table.ended`), so nobody waits for them.

Saving writes the replay record (config, seed, actions) plus the seats and teammates and
the exact state; loading replays the actions from the seed, asking the AI teammates
again at their decisions so that their memory of the game is rebuilt, and checks that
the replayed state equals the saved one.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import secrets
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from shipwreck_agents.evaluation.records import game_rng, make_record, result_of
from shipwreck_agents.registry import make_team
from shipwreck_apps.play import DEFAULT_TEAMMATES
from shipwreck_apps.play.explain import play_note, values_text
from shipwreck_apps.play.seat_view import (
    action_text,
    end_reason,
    event_text,
    faded_cards,
    view_data,
)
from shipwreck_env.envs.policy import Team, decide, let_watch, observation_layouts
from shipwreck_env.rules import saving
from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS, describe
from shipwreck_env.rules.cards import CARD_INDEX, CARDS
from shipwreck_env.rules.conditions import mask_values
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.state import PHASES, State
from shipwreck_env.rules.view import AgentView, make_view

__all__ = [
    "DEFAULT_TEAMMATES",
    "SAVE_FORMAT",
    "PlayError",
    "StaleVersion",
    "Table",
    "TeammateError",
    "log_entry",
    "make_team",
    "model_readings",
    "reader_view",
    "reading_due",
    "slot_ids",
    "teammates_label",
]

SAVE_FORMAT = "shipwreck-arcana-table"
FEAST = CARD_INDEX["feast"]


CHECK_DECISIONS = 60
"""Most decisions the teammates play on a scratch copy before a game starts (they stop
as soon as both their play and their group policy have decided once)."""


class PlayError(ValueError):
    """A request the table refuses (not this player's turn, illegal action, bad file);
    the game is unchanged."""


class StaleVersion(PlayError):
    """An action chosen at another version of the game than the current one (a repeated
    or late request); nothing was applied."""


class TeammateError(RuntimeError):
    """The AI teammates failed to decide (an exception inside a policy). Its message is
    fixed -- who failed, never the exception's type nor its text (the text may quote
    the policy's own hand; both belong in the server's log): the exception itself is
    its ``__cause__``."""


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
        if self.team.cheating or any(
            getattr(p, "needs_state", False) for p in (self.team.play, self.team.group)
        ):
            raise ValueError(
                f"teammates {teammates!r} are handed the game's state (cheats, or the "
                "action scorer, whose features are computed from it): a table with a "
                "person seats only policies that play from their own view"
            )
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
        self.ended: str | None = None
        """Why the game was stopped before its end (its AI teammates failed), or None."""
        self.stopped_by: BaseException | None = None
        """The exception that stopped the game, when :attr:`ended` could not say it (for
        a log: its text is not for the people at the table)."""
        self._turn_doom = self.state.doom  # doom when the current turn began
        self._advisors = {h: _advisor(self.team) for h in self.humans}
        self._readings: dict[int, list[float] | None] = {h: None for h in self.humans}
        self._previews: dict[tuple[int, int], dict[str, str]] = {}
        self._check_team()

    def _check_team(self) -> None:
        """Let a copy of the teammates play a scratch copy of the game (every seat theirs)
        until both their play and group policy have decided once, so a team that cannot
        play this game fails here, with its message, rather than mid-game."""
        from shipwreck_agents.learned.sb3 import check_game

        for policy in (self.team.play, self.team.group):
            meta = getattr(policy, "meta", None)
            if isinstance(meta, dict):
                try:
                    check_game(meta, self.config, policy.name)
                except ValueError as exc:
                    raise ValueError(f"teammates {self.teammates!r}: {exc}") from None
        team = copy.deepcopy(self.team)
        s = self.state.copy()
        rng = np.random.default_rng(0)
        asked: set[int] = set()
        try:
            team.reset()
            for _ in range(CHECK_DECISIONS):
                if s.over or asked == {id(team.play), id(team.group)}:
                    break
                asked.add(id(team.policy_for(make_view(s, s.decider))))
                step_inplace(s, decide(team, s, self.layouts, rng).action, rng)
        except Exception as exc:  # any failure of theirs: refuse them, name the spec
            # the scratch game is a copy of the real deal: the exception's text stays out
            raise ValueError(  # to whoever creates the game, before any seat exists
                f"teammates {self.teammates!r} cannot play this game: they failed "
                f"({type(exc).__name__}) when tried on a scratch copy of it"
            ) from exc

    # --- playing -------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Has the game ended by its rules?"""
        return self.state.over

    @property
    def closed(self) -> bool:
        """Is the game over, or stopped (:attr:`ended`)? Nobody acts at a closed table."""
        return self.state.over or self.ended is not None

    @property
    def version(self) -> int:
        """Decisions applied to the game so far (people's and AI's): a seat's view carries
        it, and an action names the version it was chosen at (:meth:`play`)."""
        return len(self.actions)

    @property
    def waiting_for(self) -> int | None:
        """The person (player number) who must decide now, or ``None``."""
        d = self.state.decider
        return d if not self.closed and d in self.humans else None

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
        if self.ended is not None:
            raise PlayError(f"the game was stopped: {self.ended}")
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
        decisions were taken; returns their log entries.

        Raises:
            TeammateError: a teammate failed to decide (the decisions before it stand;
                :meth:`play` undoes them).
        """
        entries = []
        while not self.closed and self.state.decider not in self.humans:
            if limit is not None and len(entries) >= limit:
                break
            try:
                action = decide(self.team, self.state, self.layouts, self.policy_rng).action
            except Exception as exc:
                raise TeammateError(
                    f"the AI teammates ({teammates_label(self.teammates)}) failed to decide "
                    f"for player {self.state.decider}"
                ) from exc
            entries.append(self._apply(action, by="ai"))
        return entries

    def play(self, player: int, action: object, version: int | None = None) -> list[dict]:
        """``player`` takes ``action`` and the AI teammates play until a person must decide
        again: all of it, or nothing. Returns the log entries.

        ``version`` is the :attr:`version` of the view the action was chosen in; an action
        chosen at any other version (a request sent twice, or one overtaken by another) is
        refused rather than applied to a decision its sender never saw. Without it the
        action applies to whatever decision is current (unsafe to repeat).

        Raises:
            StaleVersion: ``version`` is not the current one; nothing changed.
            PlayError: the action is refused (:meth:`act`); nothing changed.
            TeammateError: the teammates failed after the action; the game is put back
                exactly as it was before the action and stopped (:attr:`ended`).
            Exception: anything else that failed; the game is put back as it was.
        """
        if version is not None and version != self.version:
            raise StaleVersion(
                f"this action was chosen at version {version} of the game, which is now at "
                f"version {self.version}: it was sent twice or overtaken, so it was not "
                "applied; look at the table again and choose"
            )
        with self.transaction():
            return [self.act(player, action), *self.advance()]

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """All that happens inside, or nothing: on any exception the game is put back as
        it was when the block began, and the exception goes on. A refusal
        (:class:`PlayError`) changed nothing; a :class:`TeammateError` also stops the game
        (:attr:`ended`); after anything else the teammates' memory is rebuilt too. The web
        app wraps an action and the answer it sends in one, so a failure anywhere in
        between leaves the game as before."""
        saved = self._snapshot()
        try:
            yield
        except PlayError:
            if len(self.actions) != saved[3]:
                self._restore(saved)
                self._rebuild_memory()
            raise
        except TeammateError as exc:
            self._restore(saved)
            self.ended = str(exc)
            raise
        except BaseException:
            self._restore(saved)
            self._rebuild_memory()
            raise

    def _rebuild_memory(self) -> None:
        """Give the teammates and the group readings back the memory of exactly this
        game, by replaying it on a fresh table (their memory may hold steps that were
        undone); if that fails too, stop the game."""
        try:
            fresh = Table(self.config, self.humans, self.teammates, self.seed)
            fresh._replay(self.actions)
            if fresh.state != self.state:
                raise PlayError("the replayed game differs from the restored one")
        except Exception as exc:  # its text may quote a teammate's hand: the log has it
            self.ended = "the game could not be restored after a failure"
            self.stopped_by = exc
            return
        self.team, self._advisors, self._readings = fresh.team, fresh._advisors, fresh._readings
        self.policy_rng.bit_generator.state = fresh.policy_rng.bit_generator.state

    def _snapshot(self) -> tuple:
        """What :meth:`_restore` needs to put the game back: the state, both generators and
        the lengths of the lists that only grow. (Not the teammates' memory: a failure of
        theirs stops the game, and after any other :meth:`_rebuild_memory` replays it.)"""
        return (
            self.state.copy(),
            copy.deepcopy(self.rng.bit_generator.state),
            copy.deepcopy(self.policy_rng.bit_generator.state),
            len(self.actions),
            len(self.log),
            self._turn_doom,
            dict(self._readings),
        )

    def _restore(self, saved: tuple) -> None:
        state, rng, policy_rng, actions, log, turn_doom, readings = saved
        self.state = state
        self.rng.bit_generator.state = rng
        self.policy_rng.bit_generator.state = policy_rng
        del self.actions[actions:]
        del self.log[log:]
        self._turn_doom = turn_doom
        self._readings = readings

    def _apply(self, action: int, by: str) -> dict:
        s = self.state
        player, turn, seen, phase = s.decider, s.turn, len(s.events), PHASES[s.phase]
        slots = slot_ids(s)  # before the action
        predicted, line = bool(s.predictions), s.lines[s.active]
        step_inplace(s, action, self.rng, check=False)
        self.actions.append(action)
        entry = log_entry(
            player, turn, seen, phase, s, action, len(self.actions), by, slots, predicted, line
        )
        self.log.append(entry)
        if s.turn != turn:  # a new turn began (a game ends inside its last turn)
            self._turn_doom = s.doom
        self._read()
        ai = [p for p in range(s.config.num_players) if p not in self.humans]
        with contextlib.suppress(Exception):  # watching only informs: the step stands
            let_watch(self.team, s, ai)
        return entry

    def _read(self) -> None:
        """Feed each person's copy of the group model this step, from that person's view,
        so the reading shown to them has seen every public step of the game."""
        for human, advisor in self._advisors.items():
            reading = None
            view = make_view(self.state, human)
            if advisor is not None and reading_due(view):
                try:
                    reading = [float(p) for p in advisor.posterior(view)]
                except Exception:  # a model that cannot read this step just says nothing
                    reading = None
            self._readings[human] = reading

    # --- what a seat sees ----------------------------------------------------------------

    def seat_data(self, player: int, log_tail: int | None = None) -> dict:
        """What ``player`` may know now, as data (:func:`~shipwreck_apps.play.seat_view.view_data`),
        with the public log and -- when the group has something to conclude -- the
        teammates' model's reading of the hidden fate from this player's own view, fed
        every public step since the start."""
        view = make_view(self.state, player)
        log = self.log if log_tail is None else self.log[-log_tail:]
        reading = self._readings.get(player) if self.ended is None else None
        data = view_data(view, log, reading, faded_cards(self.state))
        data["version"] = self.version
        data["humans"] = list(self.humans)
        data["teammates"] = teammates_label(self.teammates)
        data["ended"] = self.ended
        if self.ended is not None:
            data["legal"] = []  # a stopped game takes no more actions
        data["end_reason"] = end_reason(self.state, self._turn_doom) if self.over else None
        data["model_previews"] = self._model_previews(player) if self.ended is None else {}
        return data

    def group_model(self, player: int) -> object | None:
        """A copy of the teammates' group model as fed from ``player``'s own view of
        every step so far (``None`` when the group has no posterior)."""
        advisor = self._advisors.get(player)
        return None if advisor is None else copy.deepcopy(advisor)

    def _model_previews(self, player: int) -> dict[str, str]:
        """:func:`model_readings` for ``player`` now, computed once per version."""
        key = (player, self.version)
        cached = self._previews.get(key)
        if cached is None:
            advisor = self._advisors.get(player)
            cached = {} if advisor is None else model_readings(advisor, self.state, player)
            self._previews = {
                key: cached,
                **{k: v for k, v in self._previews.items() if k[0] != player},
            }
        return cached

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

    @classmethod
    def from_record(cls, record: dict) -> Table:
        """The table of a replay record made by :meth:`record`, replayed to its last
        action (the teammates are asked again at their decisions).

        Raises:
            PlayError: the record does not replay.
        """
        try:
            players = record["players"]
            table = cls(
                GameConfig.from_dict(record["config"]),
                players["humans"],
                players["teammates"],
                record["seed"]["entropy"],
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise PlayError(f"record cannot be loaded as a table: {exc}") from None
        table._replay(record["actions"])
        return table

    @classmethod
    def replayed(
        cls,
        config: GameConfig,
        humans: Iterable[int],
        teammates: str,
        seed: int,
        actions: Sequence[int],
    ) -> Table:
        """The table of ``config``, ``humans``, ``teammates`` and ``seed`` after
        ``actions`` (the teammates are asked again at their decisions, so their memory of
        the game is rebuilt).

        Raises:
            PlayError: an action is not legal where it is replayed.
            ValueError: the seats or teammates are not allowed.
        """
        table = cls(config, humans, teammates, seed)
        table._replay(actions)
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


def slot_ids(s: State) -> tuple[str | None, ...]:
    """The card id in each slot of ``s`` (``None`` for an empty slot)."""
    return tuple(CARDS[c].id if c >= 0 else None for c in s.slots)


def log_entry(
    player: int,
    turn: int,
    seen: int,
    phase: str,
    after: State,
    action: int,
    index: int,
    by: str,
    slots: Sequence[str | None] | None = None,
    predicted: bool = False,
    line_before: int | None = None,
) -> dict:
    """The public log entry of action number ``index`` (from 1): ``player`` took
    ``action`` in phase ``phase`` of turn ``turn`` when that turn had ``seen`` events,
    giving ``after`` (``predicted``: the group had predicted this turn before it). With
    ``slots`` (the card in each slot before the action), plays name their cards, and a
    play gets a note of what it tells (public facts only:
    :func:`~shipwreck_apps.play.explain.play_note`). What the end of the turn did (fades,
    refills, the next turn's draws) is under ``turn_end``, apart from the action's own
    ``events``: a pass does not fade a card, the end of the turn does. A prediction made
    with ``line_before`` (the active seat's number line just before it) gets a note of
    the values that line still allowed, so a wrong guess among them reads as a guess."""
    if after.turn != turn and not after.over:  # the turn ended: its events, then the new one's
        events = after.last_events[seen:] + after.events
    else:
        events = after.events[seen:]
    own = [e for e in events if e[0] not in TURN_END_EVENTS]
    ending = [e for e in events if e[0] in TURN_END_EVENTS]
    entry = {
        "index": index,
        "turn": turn,
        "player": player,
        "by": by,
        "action": action_text(action, phase, after.config.group_decision, slots, predicted),
        "events": [event_text(e, slots if e[0] == "play" else None) for e in own],
        "turn_end": [event_text(e) for e in ending],
    }
    note = play_note(make_view(after, player), action)
    if note:
        entry["note"] = note
    elif line_before is not None and ACTIONS[action].kind == "predict" and phase != "vote":
        values = values_text(mask_values(line_before))
        entry["note"] = f"the number line then allowed {values}"
    return entry


TURN_END_EVENTS = frozenset({"fade", "refill", "table_to_bag", "exiled_to_bag", "draw"})
"""Events of the end of a turn and the start of the next, never of the action itself."""


def reading_due(view) -> bool:
    """Does the group have a fate to read in ``view``: another player's turn, whose
    active seat holds exactly one fate after plays were made?"""
    return (
        not view.over
        and view.active_player != view.player
        and view.holding[view.active_seat] == 1
        and bool(view.plays)
    )


def reader_view(after: State, player: int) -> AgentView:
    """``player``'s view of ``after`` as a reader who holds no fate sees it: their own
    fates count as unseen and are not in hand. What the teammates' model is given to
    read a play of ``player``'s from public facts only (their own hands are theirs)."""
    view = make_view(after, player)
    held = [v for hand in view.my_hands for v in hand]
    unseen = tuple(n + held.count(v) for v, n in enumerate(view.unseen, 1))
    return dataclasses.replace(view, my_hands=tuple(() for _ in view.my_hands), unseen=unseen)


def model_readings(advisor: object, s: State, player: int) -> dict[str, str]:
    """For ``player`` deciding a play in ``s``: per legal play (action number as text),
    how the teammates' group model ``advisor`` (a copy is used; it is not changed)
    would read the fate kept by that play -- the likeliest values, from public facts
    only (:func:`reader_view`). Empty when ``player`` is not deciding a play. A play on
    The Feast draws a fate from the bag, which only the game may do: it gets none."""
    if s.over or s.decider != player or PHASES[s.phase] != "play":
        return {}
    out = {}
    for action in legal_actions(s):
        spec = ACTIONS[action]
        if spec.kind != "play" or (spec.slot < 4 and s.slots[spec.slot] == FEAST):
            continue
        after = s.copy()
        step_inplace(after, action, np.random.default_rng(0))
        try:
            posterior = np.asarray(copy.deepcopy(advisor).posterior(reader_view(after, player)))
        except Exception:  # a model that cannot read this play just says nothing
            continue
        if posterior.sum() <= 0:
            continue
        order = [int(v) for v in np.argsort(-posterior, kind="stable") if posterior[v] >= 0.1]
        likely = ", ".join(f"{v + 1} ({posterior[v]:.0%})" for v in order[:3])
        out[str(action)] = f"the teammates' model would read it as {likely}"
    return out


def _advisor(team: Team) -> object | None:
    """A fresh copy of the teammates' group model with a ``posterior``, for reading the
    hidden fate from a person's own view (``None`` if the group has no posterior)."""
    group = team.group
    if not hasattr(group, "posterior"):
        return None
    advisor = copy.deepcopy(group)  # same options (convention:A, ...), its own memory
    advisor.reset()
    return advisor
