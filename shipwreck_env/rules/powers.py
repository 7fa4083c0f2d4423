"""Faded powers: when each may be used, with which arguments, and what it does.

Every power is one entry of ``POWER_RULES``: the phase where it is offered, a function
listing its legal action numbers in a state, and a function applying it. The engine
asks this module which powers a phase offers and hands it the chosen action; it never
tests power ids itself.

Only one faded power may be used per turn (``State.power_used``). Using a power takes
the faded card offering it that faded first and puts it face up at the bottom of the
deck -- except Scions, which attaches to a card, and Sands, which is never chosen.
Questions are answered about the kept fate as conditions read it this turn (Shadows'
+1 included); number lines record the answer about its real value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from shipwreck_env.rules.actions import ACTIONS, ActionSpec, find_action
from shipwreck_env.rules.cards import CARDS, POWER_INDEX, POWERS
from shipwreck_env.rules.number_lines import constrain_kept, real_mask
from shipwreck_env.rules.questions import holds
from shipwreck_env.rules.state import Phase, State

__all__ = [
    "CARD_POWER",
    "POWER_RULES",
    "PowerRule",
    "has_power",
    "offered",
    "sands_among",
    "sands_amplifies",
    "sands_attach",
    "sands_waits",
    "scions_among",
    "scions_attached",
    "scions_hours",
    "sinners_actions",
    "take_power",
]

CARD_POWER: list[int] = [POWER_INDEX[card.power] for card in CARDS]
"""Power number on the back of each card number."""
P = POWER_INDEX
SCIONS = P["scions"]
SANDS = P["sands"]


def has_power(s: State, power: int) -> bool:
    """Is a faded card offering ``power`` available?"""
    return any(CARD_POWER[card] == power for card in s.faded)


def other_power_cards(s: State) -> int:
    """Faded cards available besides the one a Sails/Scythes use would take."""
    return len(s.faded) - 1


def take_power(s: State, power: int) -> int:
    """Remove and return the earliest-faded card offering ``power``."""
    for i, card in enumerate(s.faded):
        if CARD_POWER[card] == power:
            del s.faded[i]
            return card
    raise AssertionError(f"power {power} is not available")  # callers check has_power


def _use(s: State, power: int) -> int:
    """Take the card, put it at the deck bottom, mark the turn's power as used."""
    card = take_power(s, power)
    s.deck.append(card)
    s.power_used = True
    return card


def _answer(s: State, power_id: str, arg: object, holds: Callable[[int], bool]) -> None:
    """Answer a yes/no question about the kept fate and record it on the number line."""
    answer = holds(s.kept_eff)
    mask = real_mask(s, holds)
    constrain_kept(s, mask if answer else ~mask)
    s.events.append(("power", power_id, arg, answer))


# --- action number tables -------------------------------------------------------------

_IDX: dict[str, dict[tuple, int]] = {}
for _a in ACTIONS:
    if _a.kind == "power":
        _IDX.setdefault(_a.power, {})[(_a.slot, _a.value, _a.to_slot)] = _a.index


def _idx(
    power: str, slot: int | None = None, value: int | None = None, to: int | None = None
) -> int:
    return _IDX[power][(slot, value, to)]


# --- legal action listers -------------------------------------------------------------


def _single(power: str) -> Callable[[State], list[int]]:
    action = _idx(power)
    return lambda s: [action]


def _saints_legal(s: State) -> list[int]:
    return [_idx("saints", value=x) for x in range(1, 7)]


def _sparrows_legal(s: State) -> list[int]:
    if not s.deck:
        return []
    return [
        _idx("sparrows", slot=slot) for slot in range(4) if s.slots[slot] >= 0 and not s.table[slot]
    ]


def _skies_legal(s: State) -> list[int]:
    out = []
    for src in range(4):
        for v in sorted(set(s.table[src])):
            for dst in range(4):
                if dst != src and s.slots[dst] >= 0:
                    out.append(_idx("skies", slot=src, value=v, to=dst))
    return out


def sinners_actions(table: Sequence[Sequence[int]], kept_eff: int) -> list[int]:
    """Sinners' legal actions (ascending by slot, then value) on the public ``table``
    (the fates in front of each slot) for a kept fate worth ``kept_eff`` as conditions
    read it this turn (Shadows' +1 included): any visible fate below it. The one rule,
    read by the engine and by agents that ask it of hypothetical kept fates."""
    return [
        _idx("sinners", slot=slot, value=v)
        for slot in range(4)
        for v in sorted(set(table[slot]))
        if v < kept_eff
    ]


def _sinners_legal(s: State) -> list[int]:
    return sinners_actions(s.table, s.kept_eff)


def _storms_legal(s: State) -> list[int]:
    values = {v for fates in s.table for v in fates}
    return [_idx("storms", value=v) for v in sorted(values)]


def _scions_legal(s: State) -> list[int]:
    return [_idx("scions", slot=slot) for slot in range(4) if s.slots[slot] >= 0]


def _scythes_legal(s: State) -> list[int]:
    return [_idx("scythes")] if other_power_cards(s) >= 1 else []


def _sails_legal(s: State) -> list[int]:
    if other_power_cards(s) < 1:
        return []
    return [
        _idx("sails", slot=slot, value=v) for slot in range(4) for v in sorted(set(s.table[slot]))
    ]


# --- effects --------------------------------------------------------------------------


def _ask(s: State, power: str, arg: int | None, shown: object = None) -> None:
    """Answer question ``power`` (:mod:`shipwreck_env.rules.questions`) about the kept fate."""
    _answer(s, power, shown, lambda kept: holds(power, arg, kept))


def _apply_set_question(s: State, a: ActionSpec) -> None:
    _use(s, P[a.power])
    _ask(s, a.power, None)


def _apply_saints(s: State, a: ActionSpec) -> None:
    _use(s, P["saints"])
    _ask(s, "saints", a.value, a.value)


def _apply_storms(s: State, a: ActionSpec) -> None:
    _use(s, P["storms"])
    _ask(s, "storms", a.value, a.value)


def _apply_shackles(s: State, a: ActionSpec) -> None:
    _use(s, P["shackles"])
    played = s.plays[-1][0]  # the Feast's first play is ignored (rulebook, Shackles Q/A)
    _ask(s, "shackles", played, played)


def _apply_sorrows(s: State, a: ActionSpec) -> None:
    _use(s, P["sorrows"])
    s.preds_left += 1
    s.events.append(("power", "sorrows", None, None))


def _apply_shells(s: State, a: ActionSpec) -> None:
    _use(s, P["shells"])
    answer = s.played_old
    line = s.line_fresh if answer else s.line_tracked
    s.line_fresh = s.line_tracked = line
    s.lines[s.active] = line
    s.events.append(("power", "shells", s.plays[-1][0], answer))


def _apply_sinners(s: State, a: ActionSpec) -> None:
    _use(s, P["sinners"])
    s.table[a.slot].remove(a.value)
    s.bag[a.value - 1] += 1
    s.bag_known[a.value - 1] += 1
    v = a.value
    constrain_kept(s, real_mask(s, lambda e: e > v))
    s.events.append(("power", "sinners", (a.slot, a.value), None))


def _apply_sparrows(s: State, a: ActionSpec) -> None:
    sparrows_card = take_power(s, P["sparrows"])
    s.power_used = True
    old = s.slots[a.slot]
    new = s.deck.pop(0)
    s.deck.append(old)
    s.deck.extend(s.attached[a.slot])
    s.attached[a.slot] = []
    s.slots[a.slot] = new
    s.deck.append(sparrows_card)
    s.events.append(("power", "sparrows", a.slot, (CARDS[old].id, CARDS[new].id)))


def _apply_shadows(s: State, a: ActionSpec) -> None:
    _use(s, P["shadows"])
    s.shadows = True
    if s.phase == Phase.STEAL:  # the plays are over: the kept fate is known
        s.kept_eff = s.hands[s.active][0] + 1
    s.events.append(("power", "shadows", None, None))


def _apply_skies(s: State, a: ActionSpec) -> None:
    _use(s, P["skies"])
    s.table[a.slot].remove(a.value)
    s.table[a.to_slot].append(a.value)
    s.events.append(("power", "skies", (a.slot, a.value, a.to_slot), None))


def _apply_scions(s: State, a: ActionSpec) -> None:
    card = take_power(s, P["scions"])
    s.power_used = True
    s.attached[a.slot].append(card)
    s.events.append(("power", "scions", a.slot, None))


def scions_attached(s: State, slot: int) -> bool:
    """Is Scions attached to the card on ``slot``? It stays until that card leaves play
    (the fade or Sparrows then sends it to the deck bottom with the card's fates)."""
    return scions_among(s.attached[slot])


def scions_among(attached: Sequence[int]) -> bool:
    """Is Scions among the cards ``attached`` to one arcana card?"""
    return any(CARD_POWER[card] == SCIONS for card in attached)


def scions_hours(fates: Sequence[int]) -> int:
    """Hours in front of a card with Scions attached: 1 per fate, whatever its value."""
    return len(fates)


# --- Sands: never chosen, works by itself when its card fades ---------------------------


def sands_amplifies(s: State, fading: list[int]) -> bool:
    """Does Sands sit on a card fading now? Then every fade this turn costs one more
    doom, and a correct prediction scores one more point."""
    return sands_among(s.attached[slot] for slot in fading)


def sands_among(attached: Iterable[Sequence[int]]) -> bool:
    """Does Sands sit on one of the fading cards, given what is ``attached`` to each?"""
    return any(CARD_POWER[card] == SANDS for cards in attached for card in cards)


def sands_waits(s: State, slot: int, card: int) -> bool:
    """The card on ``slot`` fades: a Sands card does not join the faded powers, it waits
    to attach to the card that refills its slot (True if it does)."""
    if CARD_POWER[card] != SANDS:
        return False
    s.sands_waiting[slot] = card
    return True


def sands_attach(s: State, slot: int) -> None:
    """``slot`` was just refilled: a Sands card waiting for it attaches to the new card."""
    if s.sands_waiting[slot] >= 0:
        s.attached[slot].append(s.sands_waiting[slot])
        s.sands_waiting[slot] = -1
        s.events.append(("attach", "sands", slot))


def _apply_with_cost(s: State, a: ActionSpec) -> None:
    """Sails and Scythes: use now, then the leader names another power to discard."""
    _use(s, P[a.power])
    s.pending = (a.power, a.slot, a.value)
    s.phase = Phase.COST


@dataclass(frozen=True)
class PowerRule:
    """How one power is offered and applied.

    Attributes:
        phase: the phase that offers it (``Phase.PLAY`` before the play, ``Phase.STEAL``,
            ``Phase.AFTER_PLAY``, ``Phase.GROUP``, ``Phase.SAILS``); Shadows is also
            offered in ``Phase.STEAL`` (the Thief Q/A).
        legal: the action numbers it allows now (given that it is available).
        apply: perform it.
    """

    phases: tuple[int, ...]
    legal: Callable[[State], list[int]]
    apply: Callable[[State, ActionSpec], None]


POWER_RULES: dict[int, PowerRule] = {
    P["saints"]: PowerRule((Phase.GROUP,), _saints_legal, _apply_saints),
    P["secrets"]: PowerRule((Phase.GROUP,), _single("secrets"), _apply_set_question),
    P["shells"]: PowerRule((Phase.AFTER_PLAY,), _single("shells"), _apply_shells),
    P["sinners"]: PowerRule((Phase.AFTER_PLAY,), _sinners_legal, _apply_sinners),
    P["songs"]: PowerRule((Phase.GROUP,), _single("songs"), _apply_set_question),
    P["sorrows"]: PowerRule((Phase.GROUP,), _single("sorrows"), _apply_sorrows),
    P["sparrows"]: PowerRule((Phase.PLAY,), _sparrows_legal, _apply_sparrows),
    P["spires"]: PowerRule((Phase.GROUP,), _single("spires"), _apply_set_question),
    P["swords"]: PowerRule((Phase.GROUP,), _single("swords"), _apply_set_question),
    P["shackles"]: PowerRule((Phase.GROUP,), _single("shackles"), _apply_shackles),
    P["shadows"]: PowerRule((Phase.PLAY, Phase.STEAL), _single("shadows"), _apply_shadows),
    P["skies"]: PowerRule((Phase.PLAY,), _skies_legal, _apply_skies),
    P["storms"]: PowerRule((Phase.GROUP,), _storms_legal, _apply_storms),
    P["sails"]: PowerRule((Phase.SAILS,), _sails_legal, _apply_with_cost),
    P["scions"]: PowerRule((Phase.GROUP,), _scions_legal, _apply_scions),
    P["scythes"]: PowerRule((Phase.GROUP,), _scythes_legal, _apply_with_cost),
}
"""Every power a player can choose (Sands works by itself and has no rule here: see
:func:`sands_amplifies`, :func:`sands_waits` and :func:`sands_attach`; the hours Scions
changes are :func:`scions_hours`)."""

PHASE_POWERS: dict[int, tuple[int, ...]] = {}
for _power, _rule in POWER_RULES.items():
    for _phase in _rule.phases:
        PHASE_POWERS[_phase] = (*PHASE_POWERS.get(_phase, ()), _power)
_PHASE_POWER_SET: dict[int, frozenset[int]] = {p: frozenset(v) for p, v in PHASE_POWERS.items()}


def offered(s: State, phase: int) -> list[int]:
    """Power action numbers offered in ``phase`` now (none once a power was used)."""
    if s.power_used or not s.faded:
        return []
    present = {CARD_POWER[card] for card in s.faded}
    out: list[int] = []
    for power in PHASE_POWERS.get(phase, ()):
        if power in present:
            out.extend(POWER_RULES[power].legal(s))
    return out


def any_offered(s: State, phase: int) -> bool:
    """Could a power be offered in ``phase``, judging by public facts only (availability,
    not whether the kept fate allows it)? Used to decide whether the phase happens."""
    if s.power_used or not s.faded:
        return False
    wanted = _PHASE_POWER_SET.get(phase, ())
    for card in s.faded:  # noqa: SIM110 -- a plain loop: no generator on the hot path
        if CARD_POWER[card] in wanted:
            return True
    return False


def apply_power(s: State, action: int) -> None:
    """Apply the power action ``action`` (already known to be legal)."""
    spec = ACTIONS[action]
    POWER_RULES[P[spec.power]].apply(s, spec)


def apply_cost(s: State, action: int) -> None:
    """Discard the power named by cost action ``action`` to the deck bottom."""
    spec = ACTIONS[action]
    s.deck.append(take_power(s, P[spec.power]))
    s.events.append(("cost", spec.power))


def answer_scythes(s: State) -> None:
    """Scythes, once paid: is the kept fate 2 or 6?"""
    _ask(s, "scythes", None)


_COST_ACTION: list[int] = [find_action("cost", power.id) for power in POWERS]


def cost_legal(s: State) -> list[int]:
    """Cost actions: every power with an available card (the used card is already gone)."""
    return [_COST_ACTION[p] for p in sorted({CARD_POWER[card] for card in s.faded})]
