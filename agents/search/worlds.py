"""The worlds a seat cannot tell apart from the real game, drawn for a search.

A world is the public start of the turn (``view.turn_start``) with every hidden fact filled
in -- the fates in the other seats' hands and the order of the face-down deck -- and then
replayed through the turn's public actions on the reference engine. A world that does not
reproduce every public event is dropped. Nothing is read from the real game's state, only
from the deciding seat's :class:`~shipwreck_env.rules.view.AgentView`.

The active seat's kept fate is drawn from a belief the caller gives (a learned team's
posterior, or a scripted team's reading); every other hidden fate from its number line
times the copies the observer cannot place; the deck below its visible top card is
shuffled. Both searches draw their worlds here: the learned team's
(:mod:`shipwreck_agents.search.sparta`) and the scripted blueprint's
(:mod:`shipwreck_agents.search.blueprint`).
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.cards import CARD_INDEX, CARDS, FATE_COPIES
from shipwreck_env.rules.engine import legal_actions, step_inplace
from shipwreck_env.rules.scenario import ForcedDraws, hypothetical_turn_start
from shipwreck_env.rules.state import PHASES, State
from shipwreck_env.rules.view import AgentView

__all__ = ["line_weights", "sample_worlds"]

_VALUES = np.arange(1, 8)


def _bit(line: int, value: int) -> bool:
    return bool(line >> (value - 1) & 1)


def line_weights(line: int) -> np.ndarray:
    """float[7]: 1 for each value 1..7 the number line ``line`` still allows, else 0."""
    return np.array([_bit(line, v) for v in _VALUES], np.float64)


def _start_pool(view: AgentView) -> list[int]:
    """Copies of each value the observer could not place at the start of the turn: not
    exiled, not on the table then, not in its own hand then."""
    start = view.turn_start
    pool = [FATE_COPIES - e for e in start.exiled]
    for fates in start.table:
        for v in fates:
            pool[v - 1] -= 1
    for v in _own_start_fates(view):
        pool[v - 1] -= 1
    return pool


def _own_start_fates(view: AgentView) -> list[int]:
    """The observer's fates at the turn start: its hands now, its plays this turn if it
    is active, the fates it revealed this turn."""
    out = [v for hand in view.my_hands for v in hand]
    if view.is_active:
        out += [value for value, _, _ in view.plays]
    out += [e[2] for e in view.events if e[0] == "reveal" and e[1] in view.my_seats]
    return out


def _revealed(view: AgentView) -> dict[int, int]:
    return {e[1]: e[2] for e in view.events if e[0] == "reveal"}


def _draw(weights: np.ndarray, rng: np.random.Generator) -> int | None:
    """A value 1..7 with probability proportional to ``weights`` (None if all zero)."""
    total = weights.sum()
    if total <= 0:
        return None
    return int(rng.choice(7, p=weights / total)) + 1


def _hidden_deck(view: AgentView, rng: np.random.Generator) -> list[int]:
    """The deck of one world: the visible top card, then every card whose place is not
    public, shuffled (the few cards put back under the deck this game are shuffled in
    too: a base game never reaches them)."""
    start = view.turn_start
    if start.deck_top < 0:
        return []
    known = {*start.slots, *start.faded, start.deck_top, *start.sands_waiting}
    known |= {c for cards in start.attached for c in cards}
    rest = [i for i, c in enumerate(CARDS) if c.set in view.config.card_sets and i not in known]
    rng.shuffle(rest)
    return [start.deck_top, *rest[: start.deck_size - 1]]


def _world(view: AgentView, kept_belief: np.ndarray, rng: np.random.Generator) -> State | None:
    """One world at the turn start, or None if the draw was impossible."""
    start, seat = view.turn_start, view.active_seat
    pool = np.array(_start_pool(view), np.float64)
    revealed = _revealed(view)
    if view.is_active:
        hand = list(view.my_hands[view.my_seats.index(seat)])
        hand += [value for value, _, _ in view.plays]
        if view.carried_into_turn and view.my_carried in hand:  # the carried fate first
            hand.remove(view.my_carried)
            hand = [view.my_carried, *hand]
    else:
        kept = _draw(kept_belief * (pool > 0), rng)
        if kept is None:
            return None
        pool[kept - 1] -= 1
        hand = [kept] + [value for value, _, _ in view.plays]
        if view.carried_into_turn:  # which of the two it carried: any the start line allows
            orders = [h for h in (hand, hand[::-1]) if _bit(start.lines[seat], h[0])]
            if not orders:
                return None
            hand = orders[int(rng.integers(len(orders)))]
    held: dict[int, int] = {}
    for other, count in enumerate(start.holding):
        if other == seat or other in view.my_seats or count == 0:
            continue
        value = revealed.get(other)
        if value is None:
            value = _draw(pool.clip(min=0) * line_weights(start.lines[other]), rng)
        if value is None or pool[value - 1] <= 0:
            return None
        pool[value - 1] -= 1
        held[other] = value
    try:
        s = hypothetical_turn_start(view, hand, carried=view.carried_into_turn)
    except ValueError:
        return None
    for other, value in held.items():
        s.hands[other] = [value]
        s.bag[value - 1] -= 1
    for own in view.my_seats:
        if own != seat:
            s.hands[own] = list(view.my_hands[view.my_seats.index(own)])
            s.hands[own] += [e[2] for e in view.events if e[0] == "reveal" and e[1] == own]
            for v in s.hands[own]:
                s.bag[v - 1] -= 1
    if min(s.bag) < 0:
        return None
    s.deck = _hidden_deck(view, rng)
    return _replay(s, view)


def _replay(s: State, view: AgentView) -> State | None:
    """``s`` after the turn's public actions, or None if it shows another public course."""
    draws = ForcedDraws(s, [])
    for action in view.turn_actions:
        if action not in legal_actions(s):
            return None
        try:
            step_inplace(s, action, draws, check=False)
        except ForcedDraws.Impossible:
            return None
    if view.deck_top is not None and s.deck and CARDS[s.deck[0]].id != view.deck_top:
        # a card cycled this turn (Sparrows) showed the next one: put it where it is seen
        seen = CARD_INDEX[view.deck_top]
        if seen not in s.deck:
            return None
        where = s.deck.index(seen)
        s.deck[0], s.deck[where] = s.deck[where], s.deck[0]
    same = (
        s.events == list(view.events)
        and PHASES[s.phase] == view.phase
        and s.decider == view.decider
        and tuple(s.lines) == view.lines
        and [len(h) for h in s.hands] == list(view.holding)
    )
    return s if same else None


def sample_worlds(
    view: AgentView,
    kept_belief: np.ndarray,
    rng: np.random.Generator,
    count: int,
    tries: int = 8,
) -> list[State]:
    """Up to ``count`` worlds consistent with everything ``view`` shows (fewer if
    ``count * tries`` draws did not give them).

    Args:
        view: the deciding player's view.
        kept_belief: float[7], the team's belief over the active seat's kept fate (unused
            when the observer is the active player).
        rng: the only source of randomness.
        count: worlds wanted.
        tries: draws allowed per world wanted.
    """
    worlds: list[State] = []
    for _ in range(count * tries):
        world = _world(view, kept_belief, rng)
        if world is not None:
            worlds.append(world)
            if len(worlds) == count:
                break
    return worlds
