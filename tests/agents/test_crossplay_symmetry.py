"""Why Other-Play does not fit this game: no relabelling of the fate values maps the
base cards' conditions onto themselves, so there is no value symmetry to train over.

Other-Play (Hu et al., 2020) needs a relabelling of the game's values under which the
rules stay the same (Hanabi's colours). Here a relabelling would have to send every
arcana card's condition (on the played and the kept fate) to the condition of some card,
even allowing the cards themselves to be relabelled too. The tests check all 5,040
orders of 1..7 against the base cards whose condition reads only the two fates.
Authority: issue 21 (the cross-play benchmark, item 3), docs/agents.md "Cross-play".
"""

from __future__ import annotations

import itertools

from shipwreck_env.rules.cards import CARDS, FATE_VALUES, fate_hours
from shipwreck_env.rules.conditions import CONDITIONS, CONTEXT_KIND

BASE_HAND_CARDS = [c.id for c in CARDS if c.set == "base" and CONTEXT_KIND[c.id] == "hand"]
IDENTITY = dict(zip(FATE_VALUES, FATE_VALUES, strict=True))


def _table(card: str, relabel: dict[int, int]) -> frozenset[tuple[int, int]]:
    """The (played, kept) pairs that meet ``card``'s condition once values are relabelled."""
    cond = CONDITIONS[card]
    return frozenset(
        (p, k)
        for p in FATE_VALUES
        for k in FATE_VALUES
        if cond(relabel[p], relabel[k], fate_hours(relabel[k]), None)
    )


ORIGINAL = {_table(card, IDENTITY) for card in BASE_HAND_CARDS}


def _preserved(relabel: dict[int, int]) -> bool:
    """Every card's relabelled condition is some card's condition (one-to-one, as the
    relabelled tables are as many as the originals)."""
    return all(_table(card, relabel) in ORIGINAL for card in BASE_HAND_CARDS) and len(
        {_table(card, relabel) for card in BASE_HAND_CARDS}
    ) == len(ORIGINAL)


def test_no_relabelling_of_fate_values_preserves_the_base_cards() -> None:
    kept = [
        order
        for order in itertools.permutations(FATE_VALUES)
        if _preserved(dict(zip(FATE_VALUES, order, strict=True)))
    ]
    assert kept == [tuple(FATE_VALUES)]


def test_the_mirror_relabelling_fails_at_the_belltower_and_the_engine() -> None:
    # v -> 8 - v is the nearest miss: it swaps Dawn and Midnight, The Deep and Leviathan,
    # The Lord and The Servant, but a sum that is a multiple of 3 (The Belltower) and a
    # double or triple (The Engine) become conditions no card has; it also swaps the
    # 1-hour fates with the 3-hour 7.
    mirror = {v: 8 - v for v in FATE_VALUES}
    broken = [card for card in BASE_HAND_CARDS if _table(card, mirror) not in ORIGINAL]
    assert broken == ["belltower", "engine"]
    assert fate_hours(mirror[1]) != fate_hours(1)
