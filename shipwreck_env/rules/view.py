"""A read-only, structured picture of what one player may know.

:func:`make_view` copies out of a state exactly the facts the observation encodes --
public table, announcements, number lines, and the observer's own fates -- into an
immutable :class:`AgentView` (seats and players keep their absolute numbers here).
Scripted agents read this instead of decoding vectors; it holds no reference to the
state, so an agent cannot peek at other hands through it.
"""

from __future__ import annotations

from dataclasses import dataclass

from shipwreck_env.rules.cards import CARD_INDEX, CARDS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, slot_hours
from shipwreck_env.rules.fading import CARD_MOONS
from shipwreck_env.rules.observation import unseen_counts
from shipwreck_env.rules.state import PHASES, State

__all__ = ["AgentView", "TurnStart", "make_view"]


@dataclass(frozen=True)
class TurnStart:
    """The public table right after the active seat drew this turn (all public).

    Cards are numbers (``cards.CARDS`` order); ``deck_top`` is -1 for an empty deck;
    ``holding`` counts the fates each seat held then; ``raw`` is the engine's tuple.
    """

    slots: tuple[int, ...]
    table: tuple[tuple[int, ...], ...]
    attached: tuple[tuple[int, ...], ...]
    sands_waiting: tuple[int, ...]
    faded: tuple[int, ...]
    deck_top: int
    deck_size: int
    exiled: tuple[int, ...]
    lines: tuple[int, ...]
    holding: tuple[int, ...]
    score: int
    doom: int
    turn: int
    raw: tuple


@dataclass(frozen=True)
class AgentView:
    """What player ``player`` knows now. Seats and players are absolute numbers.

    Attributes:
        player: the observer.
        config: the game's rules.
        phase: phase name (``state.PHASES``).
        decider: player who must decide (-1 once over).
        legal: the observer's legal actions (empty unless the observer decides).
        active_seat, active_player, leader: whose turn; who decides for the group.
        my_seats: the observer's seats (two in challenge mode).
        my_hands: fates in each of ``my_seats``.
        my_carried: while the observer is active, the value of the fate carried into
            this turn still in hand (0 if none).
        score, doom, turn, over, won, truncated: the scoreboard.
        slots: card id per slot (``None`` for empty).
        table: fates in front of each slot.
        hours, moons: hours in front of each slot and each card's moons (``None``: none).
        attached: power ids attached to each slot.
        deck_size, deck_top: the face-up deck.
        faded_powers: power id of each available faded card, oldest first.
        exiled: exiled copies by value (index ``v - 1``).
        unseen: copies by value whose place the observer cannot see.
        lines: number line mask of every seat (bit ``v - 1``).
        line_if_fresh, line_if_carried: during the active seat's turn, the values its kept
            fate may have if it was drawn this turn / if it is the fate it carried (or
            tracked before the last play); their union is its number line until Shells
            tells which one holds.
        carried_into_turn: the active seat began its turn holding a fate (it drew one).
        holding: fates held by every seat.
        plays: this turn's plays as (value, target, landed slot).
        events: this turn's public events.
        shadows, feast_done, power_used: this turn's flags.
        votes: this round's votes (0 = pass), clockwise from the leader.
        predictions: this turn's predictions; ``correct``: one was right.
        predictions_left: predictions the group may still make.
        fall_fading: The Fall's announcement (``None`` before it).
        pending: power waiting for its cost (``"sails"``, ``"scythes"`` or ``None``).
        turn_start: the public table right after this turn's draw.
        turn_actions: every action taken this turn, in order (all are public).
    """

    player: int
    config: GameConfig
    phase: str
    decider: int
    legal: tuple[int, ...]
    active_seat: int
    active_player: int
    leader: int
    my_seats: tuple[int, ...]
    my_hands: tuple[tuple[int, ...], ...]
    my_carried: int
    score: int
    doom: int
    turn: int
    over: bool
    won: bool
    truncated: bool
    slots: tuple[str | None, ...]
    table: tuple[tuple[int, ...], ...]
    hours: tuple[int, ...]
    moons: tuple[int | None, ...]
    attached: tuple[tuple[str, ...], ...]
    deck_size: int
    deck_top: str | None
    faded_powers: tuple[str, ...]
    exiled: tuple[int, ...]
    unseen: tuple[int, ...]
    lines: tuple[int, ...]
    line_if_fresh: int
    line_if_carried: int
    carried_into_turn: bool
    holding: tuple[int, ...]
    plays: tuple[tuple[int, int, int], ...]
    events: tuple[tuple, ...]
    shadows: bool
    feast_done: bool
    power_used: bool
    votes: tuple[int, ...]
    predictions: tuple[int, ...]
    correct: bool
    predictions_left: int
    fall_fading: bool | None
    pending: str | None
    turn_start: TurnStart
    turn_actions: tuple[int, ...]

    @property
    def is_active(self) -> bool:
        """Is it the observer's turn?"""
        return self.active_player == self.player

    def slot_numbers(self) -> tuple[int, ...]:
        """The cards in the slots as card numbers (the engine's ``State.slots``: -1 for
        an empty slot), for the engine's public rules that read numbers."""
        return tuple(CARD_INDEX[c] if c is not None else -1 for c in self.slots)

    @property
    def visible(self) -> tuple[int, ...]:
        """Every fate in front of the arcana cards in play."""
        return tuple(v for fates in self.table for v in fates)


def make_view(s: State, player: int) -> AgentView:
    """The view of ``player`` (a player number) of game ``s``."""
    P = s.config.num_players
    if not 0 <= player < P:
        raise ValueError(f"player {player!r} is not in this game; allowed: 0..{P - 1}")
    my_seats = tuple(range(player, len(s.hands), P))
    is_active = s.active % P == player and not s.over
    return AgentView(
        player=player,
        config=s.config,
        phase=PHASES[s.phase],
        decider=s.decider,
        legal=tuple(legal_actions(s)) if s.decider == player else (),
        active_seat=s.active,
        active_player=s.active_player,
        leader=s.leader,
        my_seats=my_seats,
        my_hands=tuple(tuple(s.hands[seat]) for seat in my_seats),
        my_carried=s.old_fate if is_active else 0,
        score=s.score,
        doom=s.doom,
        turn=s.turn,
        over=s.over,
        won=s.won,
        truncated=s.truncated,
        slots=tuple(CARDS[c].id if c >= 0 else None for c in s.slots),
        table=tuple(tuple(fates) for fates in s.table),
        hours=tuple(slot_hours(s, slot) if s.slots[slot] >= 0 else 0 for slot in range(4)),
        moons=tuple(CARD_MOONS[c] if c >= 0 else None for c in s.slots),
        attached=tuple(tuple(CARDS[c].power for c in cards) for cards in s.attached),
        deck_size=len(s.deck),
        deck_top=CARDS[s.deck[0]].id if s.deck else None,
        faded_powers=tuple(CARDS[c].power for c in s.faded),
        exiled=tuple(s.exiled),
        unseen=tuple(unseen_counts(s, player)),
        lines=tuple(s.lines),
        line_if_fresh=s.line_fresh,
        line_if_carried=s.line_tracked,
        carried_into_turn=any(e[0] == "draw" and e[2] == 1 for e in s.events),
        holding=tuple(len(hand) for hand in s.hands),
        plays=tuple(s.plays),
        events=tuple(s.events),
        shadows=s.shadows,
        feast_done=s.feast_done,
        power_used=s.power_used,
        votes=tuple(s.votes),
        predictions=tuple(s.predictions),
        correct=s.correct,
        predictions_left=s.preds_left,
        fall_fading=None if s.fall_fading < 0 else bool(s.fall_fading),
        pending=s.pending[0] if s.pending else None,
        turn_start=TurnStart(*s.turn_start, raw=s.turn_start),
        turn_actions=tuple(s.turn_actions),
    )
