"""Twin games: a state changed only in facts some player cannot see (a held fate, the deck
below its top card), for the hidden-information tests of every room (imported as
``twins``: pytest puts the tests folder on the path)."""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.cards import CARD_INDEX
from shipwreck_env.rules.state import Phase, State

FALL = CARD_INDEX["fall"]
"""The Fall's card index: its public announcement must stay true in a twin."""


def swapped(s: State, seat: int, index: int, w: int) -> State | None:
    """``s`` with the fate ``s.hands[seat][index]`` (value v) replaced by ``w`` -- v goes
    back to the bag, a copy of w leaves it -- or ``None`` if that would make a public fact
    false.

    Public facts kept true:
    * a copy of w is in the bag and not publicly known to be there
      (``bag[w-1] - bag_known[w-1] >= 1``);
    * the seat's number line still allows w, for every fate the line speaks about: a
      held fate of a seat that is not playing now; the active seat's kept fate after the
      play; during the play, the fate carried from the previous turn (``hands[a][0]``
      while ``old_fate`` is set) or, after The Feast's first play, the kept fate
      (``hands[a][0]``); a fate drawn this turn and not yet constrained is free;
    * The Fall's public announcement (``fall_fading``) is unchanged.
    The engine's own notes about the active seat (``kept_eff``, ``fall_kept``,
    ``old_fate``) follow the new value.
    """
    hand = s.hands[seat]
    v = hand[index]
    if w == v or s.bag[w - 1] - s.bag_known[w - 1] < 1:
        return None
    playing = seat == s.active and not s.over
    if playing and s.phase == Phase.PLAY:
        constrained = index == 0 and bool(s.old_fate or s.feast_done)
    else:
        constrained = True
    if constrained and not s.lines[seat] >> (w - 1) & 1:
        return None
    t = s.copy()
    t.bag[v - 1] += 1
    t.bag[w - 1] -= 1
    t.hands[seat][index] = w
    if playing:
        if index == 0 and t.old_fate:
            t.old_fate = w  # the carried fate is hands[active][0] while it is in hand
        if t.phase != Phase.PLAY:
            t.kept_eff = w + (1 if t.shadows else 0)
            if t.fall_kept > 0:
                if FALL in t.slots and t.fall_fading >= 0:
                    slot = t.slots.index(FALL)
                    fades = sum(t.table[slot]) >= 2 * t.kept_eff
                    if fades != bool(t.fall_fading):
                        return None
                t.fall_kept = t.kept_eff
    return t


def decider_twins(s: State) -> list[State]:
    """Every :func:`swapped` twin of ``s`` that changes one fate its decider cannot see
    (any fate of a seat it does not own, the active seat's kept fate included)."""
    hidden = [
        (seat, index) for seat in range(len(s.hands)) if s.owner(seat) != s.decider
        for index in range(len(s.hands[seat]))
    ]  # fmt: skip
    twins = (swapped(s, seat, index, w) for seat, index in hidden for w in range(1, 8))
    return [t for t in twins if t is not None]


def twin(s: State, rng: np.random.Generator) -> State:
    """``s`` with the face-down deck below its top card reshuffled."""
    t = s.copy()
    below = t.deck[1:]
    rng.shuffle(below)
    t.deck[1:] = below
    return t


def swap_held_fate(a, g: int, seat: int, rng: np.random.Generator) -> bool:
    """Swap the fate ``seat`` holds in game ``g`` with a different one from the bag
    (a fact hidden from everyone but that seat); False if the bag has none."""
    held = int(a.hands[g, seat, 0])
    hidden = a.bag[g] - a.bag_known[g]
    others = [v for v in range(1, 8) if v != held and hidden[v - 1] > 0]
    if not others:
        return False
    new = int(rng.choice(others))
    a.hands[g, seat, 0] = new
    a.bag[g, new - 1] -= 1
    a.bag[g, held - 1] += 1
    return True


def shuffle_deck_below_top(a, g: int, rng: np.random.Generator) -> None:
    """Shuffle game ``g``'s deck below its face-up top card."""
    n, head, m = int(a.deck_len[g]), int(a.deck_head[g]), a.num_cards
    if n > 2:
        places = (head + 1 + np.arange(n - 1)) % m
        a.deck[g, places] = a.deck[g, rng.permutation(places)]
