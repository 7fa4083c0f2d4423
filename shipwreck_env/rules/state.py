"""The state of one game: plain lists and ints, cheap to copy.

A ``State`` holds the whole table -- including every hidden fate -- so it is the
engine's object, never an observation. Everything that a player may not know lives in
``hands`` (and in the order of ``bag`` draws, which is not stored: draws come from the
caller's random generator). All other fields are public.

Values are fate values 1-7; ``bag`` and ``exiled`` are counts indexed by ``value - 1``;
cards and powers are numbers (indexes of ``cards.CARDS`` / ``cards.POWERS``); number
lines are 7-bit masks (bit ``v - 1`` set while the held fate may still be ``v``).

This module defines data only; the rules that change it are in ``engine`` and the
modules it calls.
"""

from __future__ import annotations

from shipwreck_env.rules import seating
from shipwreck_env.rules.config import GameConfig

__all__ = ["ALL_VALUES", "PHASES", "Phase", "State"]

ALL_VALUES = 0b1111111
"""Number line mask with every value still possible."""


class Phase:
    """Who must decide what. Each phase's existence depends only on public facts."""

    PLAY = 0
    """Active player: play a fate (or use Sparrows, Shadows, Skies first)."""
    STEAL = 1
    """Active player: The Thief takes a visible fate above the kept fate (or Shadows)."""
    AFTER_PLAY = 2
    """Active player: use Shells or Sinners, or pass."""
    REVEAL = 3
    """A player who is not active: reveal their held fate or keep it."""
    GROUP = 4
    """Leader: a group power, then (leader mode) predict or pass."""
    VOTE = 5
    """Vote mode: each player who is not active votes a value or pass."""
    COST = 6
    """Leader: choose another faded power to discard for Sails or Scythes."""
    SAILS = 7
    """Leader, after a correct prediction: exile a visible fate with Sails, or pass."""
    GAME_OVER = 8
    """The game has ended; nobody decides."""


PHASES: tuple[str, ...] = (
    "play",
    "steal",
    "after_play",
    "reveal",
    "group",
    "vote",
    "cost",
    "sails",
    "game_over",
)
"""Phase names, indexed by the ``Phase`` constants."""


class State:
    """One game of Shipwreck Arcana at a moment where someone must decide (or it ended).

    Table
        ``deck`` (card numbers, top first), ``slots`` (card number or -1 for each of the
        four slots), ``table`` (fates in front of each slot), ``attached`` (cards whose
        power is attached to each slot: Scions, Sands), ``sands_waiting`` (a Sands card
        waiting for its slot to be refilled, or -1), ``faded`` (faded cards whose power
        is available, oldest first), ``bag`` and ``exiled`` (counts by value),
        ``bag_known`` (fates publicly seen going into the bag since its last draw: they
        are in nobody's hand).
    Players
        ``hands`` (fates held by each seat), ``lines`` (number line of each seat).
    Score
        ``score``, ``doom``, ``turn`` (turns started), ``over``, ``won``, ``truncated``.
    This turn
        ``active`` (seat), ``phase``, ``decider`` (player), ``queue`` (seats or players
        still to act in a reveal or vote round), ``power_used``, ``shadows``,
        ``feast_done``, ``old_fate`` (value of the fate held from the previous turn while
        still in hand, else 0), ``played_old`` (the last play was that fate), ``plays``
        ((value, target, slot landed or -1) per play), ``tracked`` (number line of the
        fate kept before the last play), ``line_fresh`` / ``line_tracked`` (the kept fate's
        possible values if it was drawn this turn / if it is the tracked one), ``kept_eff``
        (kept fate's value as conditions read it), ``preds_left``, ``predictions``,
        ``correct``, ``votes``, ``pending`` (power awaiting its cost, with argument),
        ``fall_kept`` (effective kept value when the plays ended, for The Fall; 0 before),
        ``fall_fading`` (-1 unknown, 0 no, 1 yes), ``ash_trigger``, ``events`` (public
        events of this turn, in order).
    """

    __slots__ = (
        "active",
        "ash_trigger",
        "attached",
        "bag",
        "bag_known",
        "config",
        "correct",
        "decider",
        "deck",
        "doom",
        "events",
        "exiled",
        "faded",
        "fall_fading",
        "fall_kept",
        "feast_done",
        "hands",
        "kept_eff",
        "last_events",
        "line_fresh",
        "line_tracked",
        "lines",
        "old_fate",
        "over",
        "pending",
        "phase",
        "played_old",
        "plays",
        "power_used",
        "predictions",
        "preds_left",
        "queue",
        "sands_waiting",
        "score",
        "shadows",
        "slots",
        "table",
        "tracked",
        "truncated",
        "turn",
        "turn_actions",
        "turn_start",
        "votes",
        "won",
    )

    config: GameConfig
    deck: list[int]
    slots: list[int]
    table: list[list[int]]
    attached: list[list[int]]
    sands_waiting: list[int]
    faded: list[int]
    bag: list[int]
    bag_known: list[int]
    exiled: list[int]
    hands: list[list[int]]
    lines: list[int]
    score: int
    doom: int
    turn: int
    over: bool
    won: bool
    truncated: bool
    active: int
    phase: int
    decider: int
    queue: list[int]
    power_used: bool
    shadows: bool
    feast_done: bool
    old_fate: int
    played_old: bool
    plays: list[tuple[int, int, int]]
    tracked: int
    line_fresh: int
    line_tracked: int
    kept_eff: int
    preds_left: int
    predictions: list[int]
    correct: bool
    votes: list[int]
    pending: tuple
    fall_kept: int
    fall_fading: int
    ash_trigger: bool
    events: list[tuple]
    last_events: list[tuple]
    turn_actions: list[int]
    turn_start: tuple

    def __init__(
        self,
        config: GameConfig,
        *,
        deck: list[int],
        slots: list[int],
        table: list[list[int]],
        attached: list[list[int]],
        sands_waiting: list[int],
        faded: list[int],
        bag: list[int],
        bag_known: list[int],
        exiled: list[int],
        hands: list[list[int]],
        lines: list[int],
        score: int,
        doom: int,
        turn: int,
        over: bool = False,
        won: bool = False,
        truncated: bool = False,
        active: int = 0,
        phase: int = Phase.PLAY,
        decider: int = 0,
        queue: list[int] | None = None,
        power_used: bool = False,
        shadows: bool = False,
        feast_done: bool = False,
        old_fate: int = 0,
        played_old: bool = False,
        plays: list[tuple[int, int, int]] | None = None,
        tracked: int = ALL_VALUES,
        line_fresh: int = ALL_VALUES,
        line_tracked: int = ALL_VALUES,
        kept_eff: int = 0,
        preds_left: int = 1,
        predictions: list[int] | None = None,
        correct: bool = False,
        votes: list[int] | None = None,
        pending: tuple = (),
        fall_kept: int = 0,
        fall_fading: int = -1,
        ash_trigger: bool = False,
        events: list[tuple] | None = None,
        last_events: list[tuple] | None = None,
        turn_actions: list[int] | None = None,
        turn_start: tuple = (),
    ) -> None:
        """The one way to build a state: every field by name (see the class docstring).

        The table, the players and the score must be given. The fields of the turn in
        progress default to their values before any seat is active (as
        ``turn_start.reset_turn`` leaves them, seat 0); callers that start a turn (a new
        game, a scenario) then make a seat active. The lists given are kept, not copied.
        """
        self.config = config
        self.deck = deck
        self.slots = slots
        self.table = table
        self.attached = attached
        self.sands_waiting = sands_waiting
        self.faded = faded
        self.bag = bag
        self.bag_known = bag_known
        self.exiled = exiled
        self.hands = hands
        self.lines = lines
        self.score = score
        self.doom = doom
        self.turn = turn
        self.over = over
        self.won = won
        self.truncated = truncated
        self.active = active
        self.phase = phase
        self.decider = decider
        self.queue = [] if queue is None else queue
        self.power_used = power_used
        self.shadows = shadows
        self.feast_done = feast_done
        self.old_fate = old_fate
        self.played_old = played_old
        self.plays = [] if plays is None else plays
        self.tracked = tracked
        self.line_fresh = line_fresh
        self.line_tracked = line_tracked
        self.kept_eff = kept_eff
        self.preds_left = preds_left
        self.predictions = [] if predictions is None else predictions
        self.correct = correct
        self.votes = [] if votes is None else votes
        self.pending = pending
        self.fall_kept = fall_kept
        self.fall_fading = fall_fading
        self.ash_trigger = ash_trigger
        self.events = [] if events is None else events
        self.last_events = [] if last_events is None else last_events
        self.turn_actions = [] if turn_actions is None else turn_actions
        self.turn_start = turn_start

    def copy(self) -> State:
        """An independent copy (the config is shared: it is immutable)."""
        return State(
            self.config,
            deck=self.deck[:],
            slots=self.slots[:],
            table=[fates[:] for fates in self.table],
            attached=[cards[:] for cards in self.attached],
            sands_waiting=self.sands_waiting[:],
            faded=self.faded[:],
            bag=self.bag[:],
            bag_known=self.bag_known[:],
            exiled=self.exiled[:],
            hands=[hand[:] for hand in self.hands],
            lines=self.lines[:],
            score=self.score,
            doom=self.doom,
            turn=self.turn,
            over=self.over,
            won=self.won,
            truncated=self.truncated,
            active=self.active,
            phase=self.phase,
            decider=self.decider,
            queue=self.queue[:],
            power_used=self.power_used,
            shadows=self.shadows,
            feast_done=self.feast_done,
            old_fate=self.old_fate,
            played_old=self.played_old,
            plays=self.plays[:],
            tracked=self.tracked,
            line_fresh=self.line_fresh,
            line_tracked=self.line_tracked,
            kept_eff=self.kept_eff,
            preds_left=self.preds_left,
            predictions=self.predictions[:],
            correct=self.correct,
            votes=self.votes[:],
            pending=self.pending,
            fall_kept=self.fall_kept,
            fall_fading=self.fall_fading,
            ash_trigger=self.ash_trigger,
            events=self.events[:],
            last_events=self.last_events,  # never mutated: replaced at each turn start
            turn_actions=self.turn_actions[:],
            turn_start=self.turn_start,  # immutable
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in State.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def owner(self, seat: int) -> int:
        """The player who plays ``seat`` (challenge mode: two seats per player)."""
        return seat % self.config.num_players

    @property
    def num_seats(self) -> int:
        """Seats taking turns."""
        return len(self.hands)

    @property
    def active_player(self) -> int:
        """The player whose turn it is."""
        return self.active % self.config.num_players

    @property
    def leader(self) -> int:
        """The first player clockwise from the active player: decides for the group."""
        return seating.leader(self.config.num_players, self.active_player)
