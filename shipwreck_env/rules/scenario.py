"""Set up a chosen table: for tests, tutorials, puzzles, analysis -- and hypotheses.

:func:`arrange` builds a consistent :class:`~shipwreck_env.rules.state.State` at the start of
a seat's play (after its draw), with the cards, fates, hands and faded powers you name;
every token and card you do not place goes to the bag or the deck, so the game's
invariants hold and play continues with :func:`shipwreck_env.rules.engine.step`.

:func:`hypothetical_turn_start` rebuilds the public start of the current turn from an
agent's view with a guessed hand for the active seat, and :class:`ForcedDraws` makes
the engine draw guessed values: together they let a scripted agent replay what the
active player did under each hypothesis (see ``agents/scripted/bayes.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from shipwreck_env.rules.cards import CARD_INDEX, CARDS, FATE_COPIES
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.state import ALL_VALUES, State
from shipwreck_env.rules.turn_start import public_snapshot, reset_turn
from shipwreck_env.rules.view import AgentView

__all__ = ["ForcedDraws", "arrange", "hypothetical_turn_start"]


def _card(name: str) -> int:
    try:
        return CARD_INDEX[name]
    except KeyError:
        raise ValueError(f"card {name!r} is not a card id; allowed: {sorted(CARD_INDEX)}") from None


def arrange(
    config: GameConfig | None = None,
    *,
    slots: Sequence[str | None],
    hand: Sequence[int],
    table: Sequence[Sequence[int]] = ((), (), (), ()),
    held: Mapping[int, int] | None = None,
    carried: int | None = None,
    lines: Mapping[int, int] | None = None,
    faded: Sequence[str] = (),
    attached: Mapping[int, Sequence[str]] | None = None,
    deck: Sequence[str] = (),
    active: int = 0,
    score: int = 0,
    doom: int | None = None,
    turn: int = 1,
) -> State:
    """A state where seat ``active`` has drawn ``hand`` and must play.

    Args:
        config: the game's rules (default ``GameConfig()``).
        slots: card id (or ``None`` for an empty slot) of each of the four slots.
        hand: the active seat's two fates.
        table: fates in front of each slot.
        held: fate held by other seats (seat -> value).
        carried: which value of ``hand`` the active seat kept from its previous turn
            (its number line is ``lines[active]``); ``None`` if both were drawn now.
        lines: number line masks by seat (bit ``v - 1``), default everything possible.
        faded: card ids whose powers are available, oldest first.
        attached: card ids attached to slots (Scions, Sands), by slot.
        deck: card ids on top of the deck, top first; the rest of the card sets' cards
            follow in card order.
        active, score, doom, turn: as in ``State``; ``doom`` defaults to the
            difficulty's starting doom.
    """
    config = config if config is not None else GameConfig()
    if len(slots) != 4 or len(table) != 4:
        raise ValueError(f"slots {slots!r} and table {table!r} must have 4 entries each")
    if len(hand) != 2:
        raise ValueError(f"hand {list(hand)!r} must hold 2 fates")
    held = dict(held or {})
    attached = {slot: [_card(c) for c in cards] for slot, cards in (attached or {}).items()}
    slot_cards = [(-1 if c is None else _card(c)) for c in slots]
    attached_cards = [attached.get(slot, []) for slot in range(4)]
    faded_cards = [_card(c) for c in faded]
    placed = (
        [c for c in slot_cards if c >= 0] + faded_cards + [c for a in attached_cards for c in a]
    )
    top = [_card(c) for c in deck]
    in_sets = [i for i, card in enumerate(CARDS) if card.set in config.card_sets]
    used = placed + top
    if len(set(used)) != len(used) or not set(used) <= set(in_sets):
        raise ValueError(
            f"cards {sorted(CARDS[c].id for c in used)} repeat or are outside the card sets"
        )
    hands: list[list[int]] = [[] for _ in range(config.num_seats)]
    hands[active] = list(hand)
    for seat, value in held.items():
        hands[seat] = [value]
    number_lines = [ALL_VALUES] * config.num_seats
    for seat, mask in (lines or {}).items():
        number_lines[seat] = mask
    fates = [list(f) for f in table]
    bag = [FATE_COPIES] * 7
    for row in (*fates, *hands):
        for v in row:
            bag[v - 1] -= 1
    if min(bag) < 0:
        raise ValueError(f"more than {FATE_COPIES} fates of one value placed")
    s = State(
        config,
        deck=top + [c for c in in_sets if c not in used],
        slots=slot_cards,
        table=fates,
        attached=attached_cards,
        sands_waiting=[-1] * 4,
        faded=faded_cards,
        bag=bag,
        bag_known=[0] * 7,
        exiled=[0] * 7,
        hands=hands,
        lines=number_lines,
        score=score,
        doom=config.starting_doom if doom is None else doom,
        turn=turn,
    )
    if carried is not None:
        if carried not in hand:
            raise ValueError(f"carried {carried!r} is not in hand {list(hand)!r}")
        s.hands[active] = [carried, *([v for v in hand if v != carried] or [carried])]
        reset_turn(s, active)
    else:
        s.hands[active] = []
        s.lines[active] = ALL_VALUES
        reset_turn(s, active)
        s.hands[active] = list(hand)
    s.events = [("draw", active, 1 if carried is not None else 2)]  # as after a real draw
    s.turn_start = public_snapshot(s)
    return s


class ForcedDraws:
    """A stand-in for the game's random generator that makes the engine draw chosen
    values, in order: for replaying a turn under a hypothesis about hidden fates.

    Bound to the state it draws for. Drawing a value the bag does not hold, or more
    values than were given, raises :class:`ForcedDraws.Impossible`.
    """

    class Impossible(Exception):
        """The hypothesis needs a draw the bag cannot give."""

    def __init__(self, state: State, values: Sequence[int]) -> None:
        self.state = state
        self.values = list(values)

    def random(self) -> float:
        """The uniform number that makes ``turn_start.draw_fate`` pick the next forced value."""
        if not self.values:
            raise ForcedDraws.Impossible("no forced draw left")
        value = self.values.pop(0)
        bag = self.state.bag
        total = sum(bag)
        if total <= 0 or bag[value - 1] <= 0:
            raise ForcedDraws.Impossible(f"no {value} in the bag")
        return (sum(bag[: value - 1]) + 0.5) / total


def hypothetical_turn_start(view: AgentView, hand: Sequence[int], carried: bool) -> State:
    """The public start of the current turn (``view.turn_start``) with the active seat
    holding ``hand`` -- ``hand[0]`` being the fate it carried if ``carried`` -- and no
    other hidden fates: a state to replay the active player's decisions under a
    hypothesis. Only the deck's top card is known, so the rest of the deck is a
    placeholder; do not play such a state past the active player's decisions.
    """
    start = view.turn_start
    exiled = list(start.exiled)
    bag = [FATE_COPIES - e for e in exiled]
    for row in (*start.table, hand):
        for v in row:
            bag[v - 1] -= 1
    if min(bag) < 0:
        raise ValueError(f"hand {list(hand)!r} needs more copies than exist")
    s = State(
        view.config,
        deck=([start.deck_top] if start.deck_top >= 0 else []) + [-1] * max(0, start.deck_size - 1),
        slots=list(start.slots),
        table=[list(fates) for fates in start.table],
        attached=[list(cards) for cards in start.attached],
        sands_waiting=list(start.sands_waiting),
        faded=list(start.faded),
        bag=bag,
        bag_known=[0] * 7,
        exiled=exiled,
        hands=[[] for _ in range(view.config.num_seats)],
        lines=list(start.lines),
        score=start.score,
        doom=start.doom,
        turn=start.turn,
    )
    active = view.active_seat
    s.hands[active] = [hand[0]] if carried else []
    reset_turn(s, active)
    s.hands[active] = list(hand)
    s.events = [("draw", active, 1 if carried else 2)]
    s.turn_start = start.raw
    return s
