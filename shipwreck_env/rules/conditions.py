"""Card conditions: may a fate be played in front of an arcana card?

Each of the 36 arcana cards has a condition on the two fates in the active player's
hand (the one played, the one kept hidden) and, for some cards, on the fates visible on
the table. This module states every condition once, as a small predicate, and exposes:

* :func:`can_play` -- the public question for one play;
* :func:`kept_mask` -- the same answer for all seven kept values at once, read from
  tables computed ahead of time over (played, kept) pairs and a small summary of the
  visible fates (see :func:`summary_key`). The engine and any batched engine use these
  tables; the number lines are built from them too.

Shadows ("+1") makes the kept fate count one higher for conditions but leaves its hours
unchanged, so predicates receive the kept fate's effective value *and* its hours.
The Hours is not an arcana card: whether a fate may go there depends on every card in
play, which :func:`hours_allowed` answers.

This module knows nothing about game state; it must stay free of engine imports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from shipwreck_env.rules.cards import CARD_INDEX, CARDS, FATE_VALUES, HOURS_ID, fate_hours

__all__ = [
    "CONTEXT_KIND",
    "can_play",
    "hours_allowed",
    "kept_mask",
    "mask_values",
    "summary_key",
    "visible_mask",
]

ALL_VALUES_MASK = (1 << len(FATE_VALUES)) - 1
"""Bit ``v - 1`` set for every fate value ``v``."""


class _Ctx:
    """What a condition may look at besides the hand (a small, table-friendly summary)."""

    __slots__ = ("max_on_card", "visible", "visible_sum")

    def __init__(self, visible: frozenset[int], visible_sum: int, max_on_card: int) -> None:
        self.visible = visible
        self.visible_sum = visible_sum
        self.max_on_card = max_on_card


# A predicate sees: played value, kept (effective) value, kept fate's hours, context.
Predicate = Callable[[int, int, int, _Ctx], bool]


def _exactly_one_in(group: frozenset[int]) -> Predicate:
    """Lord / Noble / Servant / Captain: one fate in the group, the other not; play it."""
    return lambda p, k, kh, c: p in group and k not in group


def _fortune(p: int, k: int, kh: int, c: _Ctx) -> bool:
    if p == k:
        return False
    p_odd, k_odd = p % 2 == 1, k % 2 == 1
    if p_odd and k_odd:
        return p > k
    if p_odd != k_odd:
        return p < k
    return False


def _passage(p: int, k: int, kh: int, c: _Ctx) -> bool:
    lo, hi = min(p, k), max(p, k)
    return sum(1 for v in c.visible if lo < v < hi) == 1


def _engine(p: int, k: int, kh: int, c: _Ctx) -> bool:
    lo, hi = min(p, k), max(p, k)
    return hi in (2 * lo, 3 * lo)


def _ghost(p: int, k: int, kh: int, c: _Ctx) -> bool:
    return not any(abs(v - p) == 1 or abs(v - k) == 1 for v in c.visible)


_ALWAYS: Predicate = lambda p, k, kh, c: True  # noqa: E731
_NEVER: Predicate = lambda p, k, kh, c: False  # noqa: E731

CONDITIONS: dict[str, Predicate] = {
    "beast": lambda p, k, kh, c: abs(p - k) == 1,
    "belltower": lambda p, k, kh, c: (p + k) % 3 == 0,
    "blind_man": _ALWAYS,
    "chalice": _ALWAYS,
    "dawn": lambda p, k, kh, c: p > k,
    "deep": lambda p, k, kh, c: p + k <= 5,
    "engine": _engine,
    "huntress": lambda p, k, kh, c: abs(p - k) == 2,
    "judge": lambda p, k, kh, c: (p + k) % 2 == 0,
    "key": lambda p, k, kh, c: 7 <= p + k <= 9,
    "leviathan": lambda p, k, kh, c: p + k >= 11,
    "lord": _exactly_one_in(frozenset({5, 6, 7})),
    "midnight": lambda p, k, kh, c: p < k,
    "mirror": lambda p, k, kh, c: p == k,
    "noble": _exactly_one_in(frozenset({3, 4, 5})),
    "prophet": lambda p, k, kh, c: k in c.visible,
    "rider": lambda p, k, kh, c: p != k and p not in c.visible and k not in c.visible,
    "servant": _exactly_one_in(frozenset({1, 2, 3})),
    "shore": lambda p, k, kh, c: abs(p - k) >= 4,
    "stranger": lambda p, k, kh, c: (p + k) % 2 == 1,
    "asunder": lambda p, k, kh, c: p > k and (p - k) in c.visible,
    "captain": _exactly_one_in(frozenset({1, 4, 7})),
    "feast": _ALWAYS,  # once a turn: the engine enforces it
    "fortune": _fortune,
    "ghost": _ghost,
    "iron": lambda p, k, kh, c: k > c.max_on_card,  # max_on_card is 0 with no fates there
    "lantern": lambda p, k, kh, c: (p + k + c.visible_sum) % 4 == 0,
    "pallbearers": lambda p, k, kh, c: 1 <= abs(p - k) <= 2,
    "passage": _passage,
    "wish": _ALWAYS,
    "imago": _ALWAYS,
    "ash": lambda p, k, kh, c: p == 7,
    "fall": _ALWAYS,
    "musicians": lambda p, k, kh, c: p + k == 11 or (11 - p - k) in c.visible,
    "north_wind": lambda p, k, kh, c: abs(fate_hours(p) - kh) == 1,
    "thief": _NEVER,
}
assert set(CONDITIONS) == {card.id for card in CARDS}

# What summary of the table each condition reads; the table key of each kind:
#   hand       -> 0
#   visible    -> bit mask of the distinct visible values (0..127)
#   sum_mod4   -> sum of the visible fates modulo 4 (0..3)
#   max_on     -> highest fate already in front of this card, 0 if none (0..7)
CONTEXT_KIND: dict[str, str] = {card.id: "hand" for card in CARDS}
CONTEXT_KIND.update(
    prophet="visible",
    rider="visible",
    asunder="visible",
    ghost="visible",
    passage="visible",
    musicians="visible",
    lantern="sum_mod4",
    iron="max_on",
)
_KEY_RANGE = {"hand": 1, "visible": 1 << len(FATE_VALUES), "sum_mod4": 4, "max_on": 8}


def visible_mask(values: Sequence[int]) -> int:
    """Bit mask (bit ``v - 1``) of the distinct values in ``values``."""
    mask = 0
    for v in values:
        mask |= 1 << (v - 1)
    return mask


def mask_values(mask: int) -> list[int]:
    """The fate values whose bits are set in ``mask``, ascending."""
    return [v for v in FATE_VALUES if mask >> (v - 1) & 1]


def summary_key(card: str, visible: Sequence[int], on_card: Sequence[int]) -> int:
    """The table key of ``card`` for this table: see ``CONTEXT_KIND``."""
    kind = CONTEXT_KIND[card]
    if kind == "visible":
        return visible_mask(visible)
    if kind == "sum_mod4":
        return sum(visible) % 4
    if kind == "max_on":
        return max(on_card, default=0)
    return 0


def _ctx_from_key(kind: str, key: int) -> _Ctx:
    if kind == "visible":
        return _Ctx(frozenset(mask_values(key)), 0, 0)
    if kind == "sum_mod4":
        return _Ctx(frozenset(), key, 0)
    if kind == "max_on":
        return _Ctx(frozenset(), 0, key)
    return _Ctx(frozenset(), 0, 0)


def _build_tables() -> list[list[list[list[int]]]]:
    """``table[card][shadows][key][played - 1]`` = mask of real kept values allowed."""
    tables = []
    for card in CARDS:
        pred = CONDITIONS[card.id]
        kind = CONTEXT_KIND[card.id]
        per_shadow = []
        for shadows in (0, 1):
            per_key = []
            for key in range(_KEY_RANGE[kind]):
                ctx = _ctx_from_key(kind, key)
                row = []
                for p in FATE_VALUES:
                    mask = 0
                    for k in FATE_VALUES:
                        if pred(p, k + shadows, fate_hours(k), ctx):
                            mask |= 1 << (k - 1)
                    row.append(mask)
                per_key.append(row)
            per_shadow.append(per_key)
        tables.append(per_shadow)
    return tables


KEPT_MASKS: list[list[list[list[int]]]] = _build_tables()
"""``KEPT_MASKS[card_index][shadows][key][played - 1]``: bit ``k - 1`` is set when the
real kept value ``k`` allows the play. Read through :func:`kept_mask`."""


def _check_card(card: str) -> int:
    if card == HOURS_ID:
        raise ValueError(
            "card 'hours': The Hours is not an arcana card; whether a fate may go there "
            "depends on every card in play (use hours_allowed)"
        )
    try:
        return CARD_INDEX[card]
    except KeyError:
        raise ValueError(f"card {card!r} is not a card id; allowed: {sorted(CARD_INDEX)}") from None


def _check_value(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 7:
        raise ValueError(f"{name} {value!r} is not a fate value; allowed: integers 1 to 7")


def _check_values(name: str, values: Sequence[int]) -> None:
    for v in values:
        _check_value(f"{name} entry", v)


def kept_mask(
    card: str,
    played: int,
    visible: Sequence[int] = (),
    on_card: Sequence[int] = (),
    *,
    shadows: bool = False,
) -> int:
    """Bit mask (bit ``k - 1``) of the kept values ``k`` that allow playing ``played`` on
    ``card``, given the visible fates and those already on the card (see :func:`can_play`).
    """
    index = _check_card(card)
    _check_value("played", played)
    _check_values("visible", visible)
    _check_values("on_card", on_card)
    key = summary_key(card, visible, on_card)
    return KEPT_MASKS[index][int(shadows)][key][played - 1]


def can_play(
    card: str,
    played: int,
    kept: int,
    visible: Sequence[int] = (),
    on_card: Sequence[int] = (),
    *,
    shadows: bool = False,
) -> bool:
    """May ``played`` go in front of ``card`` while ``kept`` stays hidden?

    Args:
        card: an arcana card id (``cards.CARDS``); not ``"hours"``.
        played: the fate being played, 1-7.
        kept: the fate that stays in hand, 1-7 (its real value).
        visible: every fate in front of the arcana cards in play before this play
            (including those in front of ``card``).
        on_card: the fates already in front of ``card``.
        shadows: the Shadows power is active: ``kept`` counts one higher (a 7 counts 8)
            for the condition, but its hours do not change.

    The Feast answers True (its once-a-turn limit belongs to the engine) and The Thief
    False (nobody plays on it).

    Raises:
        ValueError: an unknown card, ``"hours"``, or a value outside 1-7.
    """
    _check_value("kept", kept)
    return bool(kept_mask(card, played, visible, on_card, shadows=shadows) >> (kept - 1) & 1)


def hours_allowed(
    cards: Sequence[str],
    hand: Sequence[int],
    visible: Sequence[int] = (),
    on_cards: Sequence[Sequence[int]] | None = None,
    *,
    shadows: bool = False,
    feast_used: bool = False,
) -> bool:
    """May the active player play on The Hours: can neither fate of ``hand`` go on any
    card of ``cards`` (the arcana cards in play)?

    Args:
        cards: ids of the arcana cards in play.
        hand: the two fates in hand.
        visible: every visible fate.
        on_cards: fates in front of each of ``cards`` (default: none).
        shadows: Shadows is active (the fate kept counts one higher).
        feast_used: The Feast was already played on this turn, so it no longer counts.
    """
    if len(hand) != 2:
        raise ValueError(f"hand {list(hand)!r} must hold exactly 2 fates")
    on_cards = on_cards if on_cards is not None else [() for _ in cards]
    if len(on_cards) != len(cards):
        raise ValueError(f"on_cards {on_cards!r} must have one entry per card of {list(cards)!r}")
    a, b = hand
    for card, on_card in zip(cards, on_cards, strict=True):
        if card == "feast" and feast_used:
            continue
        for played, kept in ((a, b), (b, a)):
            if can_play(card, played, kept, visible, on_card, shadows=shadows):
                return False
    return True
