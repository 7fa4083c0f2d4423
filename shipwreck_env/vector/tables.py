"""Constant lookup tables of the batched engine, built once from the reference modules
(card data, the condition tables of :mod:`shipwreck_env.rules.conditions`, the action list), so
that the batched rules read the same facts as the reference engine."""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules import actions, questions
from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET, NUM_ACTIONS, PASS, REVEAL
from shipwreck_env.rules.arcana import FADES_WITHOUT_DOOM
from shipwreck_env.rules.cards import CARD_INDEX, CARDS, NUM_POWERS, POWER_INDEX, fate_hours
from shipwreck_env.rules.conditions import KEPT_MASKS
from shipwreck_env.rules.number_lines import CARD_CONTEXT
from shipwreck_env.rules.powers import CARD_POWER

__all__ = [
    "ACTION_KIND",
    "ACTION_POWER",
    "ACTION_SLOT",
    "ACTION_VALUE",
    "BIT",
    "CARD_KIND",
    "CARD_MOONS",
    "CARD_POWER_OF",
    "COVERED_SETS",
    "HOURS_OF",
    "KEPT",
    "PLAY_ACTION",
    "PREDICT_ACTIONS",
    "SINNERS_ACTION",
]

COVERED_SETS: tuple[str, ...] = ("base", "kickstarter", "gencon", "stars_below")
"""Card sets the batched engine plays (every selection of them ``GameConfig`` allows)."""

BIT = (1 << np.arange(7)).astype(np.uint8)
"""``BIT[v - 1]``: the number-line bit of value ``v``."""
HOURS_OF = np.array([0] + [fate_hours(v) for v in range(1, 8)], np.int8)
"""Hours of a fate by value (index 0: no fate)."""

_NUM_CARDS = len(CARDS)
CARD_MOONS = np.array([c.moons or 0 for c in CARDS] + [0], np.int8)
"""Moons by card number; index -1 (no card) is 0."""
CARD_POWER_OF = np.array([*CARD_POWER, -1], np.int8)
"""Power on each card's back; index -1 (no card) is -1."""
CARD_FREE_FADE = np.array([i in FADES_WITHOUT_DOOM for i in range(len(CARDS))] + [False])
"""Cards whose fade costs no doom (``arcana.FADES_WITHOUT_DOOM``: The Blind Man)."""
CARD_KIND = np.array([*CARD_CONTEXT, 0], np.int8)
"""Which table summary each card's condition reads (see ``number_lines.CARD_CONTEXT``)."""


def _kept_table() -> np.ndarray:
    """``KEPT[card, shadows, key, played - 1]``: mask of real kept values allowing the
    play; ``key`` is 0..127 for every card (cards reading a smaller summary repeat
    their rows), and card -1 (no card) allows nothing."""
    out = np.zeros((_NUM_CARDS + 1, 2, 128, 7), np.uint8)
    for card in range(_NUM_CARDS):
        for shadows in (0, 1):
            rows = np.array(KEPT_MASKS[card][shadows], np.uint8)
            out[card, shadows, :] = rows[np.arange(128) % len(rows)]
    return out


KEPT = _kept_table()

ACTION_KIND = np.array(
    [
        ("play", "predict", "pass", "reveal", "power", "cost", "steal").index(a.kind)
        for a in ACTIONS
    ],
    np.int8,
)
"""Kind code of each action: 0 play, 1 predict, 2 pass, 3 reveal, 4 power, 5 cost, 6 steal."""
ACTION_VALUE = np.array([a.value or 0 for a in ACTIONS], np.int8)
"""Value argument of each action (fate value, Saints' X), 0 if none."""
ACTION_SLOT = np.array([-1 if a.slot is None else a.slot for a in ACTIONS], np.int8)
"""Slot argument (play target 0-4, or a power's slot), -1 if none."""
ACTION_TO = np.array([-1 if a.to_slot is None else a.to_slot for a in ACTIONS], np.int8)
"""Skies' destination slot, -1 for other actions."""
ACTION_POWER = np.array(
    [POWER_INDEX[a.power] if a.power is not None else -1 for a in ACTIONS], np.int8
)
"""Power number of power and cost actions, -1 otherwise."""

PLAY_ACTION = np.zeros((HOURS_TARGET + 1, 8), np.int16)
"""``PLAY_ACTION[target, value]``: the action playing ``value`` on ``target``."""
SINNERS_ACTION = np.zeros((4, 8), np.int16)
"""``SINNERS_ACTION[slot, value]``: Sinners on the visible fate (slot, value)."""
SPARROWS_ACTION = np.zeros(4, np.int16)
"""``SPARROWS_ACTION[slot]``: Sparrows on that slot."""
SKIES_ACTION = np.zeros((4, 8, 4), np.int16)
"""``SKIES_ACTION[slot, value, to]``: Skies moving the visible fate (slot, value) to
``to`` (0 where ``to == slot``)."""
STORMS_ACTION = np.zeros(8, np.int16)
"""``STORMS_ACTION[value]``: Storms naming the visible ``value``."""
SCIONS_ACTION = np.zeros(4, np.int16)
"""``SCIONS_ACTION[slot]``: Scions attached to that slot's card."""
SAILS_ACTION = np.zeros((4, 8), np.int16)
"""``SAILS_ACTION[slot, value]``: Sails exiling the visible fate (slot, value)."""
STEAL_ACTION = np.zeros((4, 8), np.int16)
"""``STEAL_ACTION[slot, value]``: The Thief taking the visible fate (slot, value)."""
COST_ACTION = np.zeros(NUM_POWERS, np.int16)
"""``COST_ACTION[power]``: discarding a card of ``power`` as a cost."""
_BY_POWER = {
    "sinners": SINNERS_ACTION,
    "sails": SAILS_ACTION,
}
for _a in ACTIONS:
    if _a.kind == "play":
        PLAY_ACTION[_a.slot, _a.value] = _a.index
    elif _a.kind == "steal":
        STEAL_ACTION[_a.slot, _a.value] = _a.index
    elif _a.kind == "cost":
        COST_ACTION[POWER_INDEX[_a.power]] = _a.index
    elif _a.kind == "power" and _a.power in _BY_POWER:
        _BY_POWER[_a.power][_a.slot, _a.value] = _a.index
    elif _a.kind == "power" and _a.power == "sparrows":
        SPARROWS_ACTION[_a.slot] = _a.index
    elif _a.kind == "power" and _a.power == "scions":
        SCIONS_ACTION[_a.slot] = _a.index
    elif _a.kind == "power" and _a.power == "skies":
        SKIES_ACTION[_a.slot, _a.value, _a.to_slot] = _a.index
    elif _a.kind == "power" and _a.power == "storms":
        STORMS_ACTION[_a.value] = _a.index
PREDICT_ACTIONS = np.array([a.index for a in ACTIONS if a.kind == "predict"], np.int64)
"""Predict 1..7, in value order."""
SAINTS_ACTIONS = np.array(
    [a.index for a in ACTIONS if a.kind == "power" and a.power == "saints"], np.int64
)
"""Saints X = 1..6, in order."""
SINGLE_ACTION = {
    power: next(a.index for a in ACTIONS if a.kind == "power" and a.power == power)
    for power in actions.NO_ARGUMENT_POWERS
}
"""The one action of each power without an argument."""
SET_QUESTIONS = tuple(
    POWER_INDEX[power]
    for power in questions.QUESTION_SETS
    if power != "scythes"  # Scythes asks after its cost, not when it is used
)
"""Power numbers of the group's set questions asked when used (their values:
``QUESTION_HOLDS``)."""


SINGLE_ACTIONS = np.full(NUM_POWERS, -1, np.int16)
"""``SINGLE_ACTIONS[power]``: the one action of a power without an argument, else -1."""
for _name, _action in SINGLE_ACTION.items():
    SINGLE_ACTIONS[POWER_INDEX[_name]] = _action
SAINTS_ACTIONS = SAINTS_ACTIONS.astype(np.int16)


QUESTION_HOLDS = questions.HOLDS
SHACKLES_HOLDS = questions.SHACKLES_HOLDS
"""``SHACKLES_HOLDS[played, e]``: Shackles' yes (``shipwreck_env.rules.questions``)."""
"""``QUESTION_HOLDS[action, e]``: the yes of a question action about a kept fate read
as ``e`` (``shipwreck_env.rules.questions.HOLDS``, the table the reference engine's answers
come from)."""

# Indexes of the configuration numbers in ``jit.Rules.config``.
C_PLAYERS, C_SEATS, C_REVEAL, C_LEADER, C_MAX_TURNS, C_STARTING_DOOM, C_SIZE = range(7)

P = POWER_INDEX
CHALICE = CARD_INDEX["chalice"]
BLIND_MAN = CARD_INDEX["blind_man"]
FEAST = CARD_INDEX["feast"]
WISH = CARD_INDEX["wish"]
THIEF = CARD_INDEX["thief"]
ASH = CARD_INDEX["ash"]
FALL = CARD_INDEX["fall"]
IMAGO = CARD_INDEX["imago"]
NUM_POWER_SLOTS = NUM_POWERS
ACTION_COUNT = NUM_ACTIONS
PASS_ACTION = PASS
REVEAL_ACTION = REVEAL
