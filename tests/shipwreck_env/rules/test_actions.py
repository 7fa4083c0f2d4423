"""Tests of :mod:`shipwreck_env.rules.actions`: the one numbered list of every decision.

The list has a fixed size (259) that never depends on the card sets, its blocks are
contiguous and in the documented order, every action has a unique readable
description, the helpers agree with the table, bad lookups raise ``ValueError``, and
every power that players choose (all but Sands) has its actions.
"""

from __future__ import annotations

import itertools

import pytest

from shipwreck_env.rules import actions
from shipwreck_env.rules.actions import (
    ACTIONS,
    HOURS_TARGET,
    NUM_ACTIONS,
    NUM_SLOTS,
    PASS,
    REVEAL,
    ActionSpec,
    action_table_markdown,
    cost_action,
    describe,
    find_action,
    play_action,
    power_action,
    predict_action,
    steal_action,
)
from shipwreck_env.rules.cards import POWERS
from shipwreck_env.rules.powers import POWER_RULES
from shipwreck_env.rules.state import Phase

VALUES = range(1, 8)
SLOTS = range(NUM_SLOTS)

# (block name, size) in the documented order of the module table
BLOCKS = [
    ("play", 35),
    ("predict", 7),
    ("pass", 1),
    ("reveal", 1),
    ("saints", 6),
    ("question", 9),
    ("sinners", 28),
    ("sparrows", 4),
    ("skies", 84),
    ("storms", 7),
    ("scions", 4),
    ("sails", 28),
    ("cost", 17),
    ("steal", 28),
]
QUESTIONS = ("secrets", "songs", "spires", "swords", "sorrows", "shackles", "scythes", "shells")
QUESTIONS += ("shadows",)


def block_of(a: ActionSpec) -> str:
    if a.kind == "power":
        return "question" if a.power in QUESTIONS else a.power
    return a.kind


def test_num_actions_is_fixed() -> None:
    assert NUM_ACTIONS == 259
    assert len(ACTIONS) == NUM_ACTIONS
    assert sum(size for _, size in BLOCKS) == NUM_ACTIONS


def test_indexes_are_contiguous() -> None:
    assert [a.index for a in ACTIONS] == list(range(NUM_ACTIONS))
    assert all(isinstance(a, ActionSpec) for a in ACTIONS)


def test_blocks_are_contiguous_and_in_documented_order() -> None:
    runs = [(name, len(list(group))) for name, group in itertools.groupby(ACTIONS, block_of)]
    assert runs == BLOCKS


def test_descriptions_non_empty_and_unique() -> None:
    descriptions = [a.description for a in ACTIONS]
    assert all(isinstance(d, str) and d.strip() for d in descriptions)
    assert len(set(descriptions)) == NUM_ACTIONS
    assert [describe(i) for i in range(NUM_ACTIONS)] == descriptions


def test_fields_are_unique() -> None:
    keys = [(a.kind, a.power, a.slot, a.value, a.to_slot) for a in ACTIONS]
    assert len(set(keys)) == NUM_ACTIONS


def test_kinds() -> None:
    kinds = {a.kind for a in ACTIONS}
    assert kinds == {"play", "predict", "pass", "reveal", "power", "cost", "steal"}
    for a in ACTIONS:
        assert (a.power is not None) == (a.kind in ("power", "cost"))


def test_play_actions() -> None:
    assert HOURS_TARGET == NUM_SLOTS == 4
    plays = [a for a in ACTIONS if a.kind == "play"]
    assert {(a.slot, a.value) for a in plays} == set(itertools.product(range(5), VALUES))
    for target, v in itertools.product(range(5), VALUES):
        a = ACTIONS[play_action(v, target)]
        assert (a.kind, a.slot, a.value, a.to_slot) == ("play", target, v, None)
        assert str(v) in a.description
        assert ("The Hours" in a.description) == (target == HOURS_TARGET)


def test_predict_pass_reveal() -> None:
    for v in VALUES:
        a = ACTIONS[predict_action(v)]
        assert (a.kind, a.value) == ("predict", v)
    assert ACTIONS[PASS].kind == "pass"
    assert ACTIONS[REVEAL].kind == "reveal"
    assert find_action("pass") == PASS
    assert find_action("reveal") == REVEAL


def test_steal_actions() -> None:
    steals = [a for a in ACTIONS if a.kind == "steal"]
    assert {(a.slot, a.value) for a in steals} == set(itertools.product(SLOTS, VALUES))
    for s, v in itertools.product(SLOTS, VALUES):
        a = ACTIONS[steal_action(s, v)]
        assert (a.kind, a.slot, a.value) == ("steal", s, v)


def test_cost_actions_cover_every_power() -> None:
    costs = [a for a in ACTIONS if a.kind == "cost"]
    assert [a.power for a in costs] == [p.id for p in POWERS]
    for p in POWERS:
        a = ACTIONS[cost_action(p.id)]
        assert (a.kind, a.power) == ("cost", p.id)


POWER_ARGUMENTS = {
    "saints": [(None, x, None) for x in range(1, 7)],
    "sinners": [(s, v, None) for s in SLOTS for v in VALUES],
    "sparrows": [(s, None, None) for s in SLOTS],
    "skies": [(s, v, t) for s in SLOTS for v in VALUES for t in SLOTS if t != s],
    "storms": [(None, v, None) for v in VALUES],
    "scions": [(s, None, None) for s in SLOTS],
    "sails": [(s, v, None) for s in SLOTS for v in VALUES],
    **{q: [(None, None, None)] for q in QUESTIONS},
}


def test_table_covers_every_chosen_power() -> None:
    """Every power except Sands (which works by itself) has actions, with exactly the
    arguments the module table lists."""
    chosen = {p.id for p in POWERS} - {"sands"}
    in_table = {a.power for a in ACTIONS if a.kind == "power"}
    assert in_table == chosen
    assert set(POWER_ARGUMENTS) == chosen
    for power, arguments in POWER_ARGUMENTS.items():
        got = [
            (a.slot, a.value, a.to_slot) for a in ACTIONS if a.power == power and a.kind == "power"
        ]
        assert sorted(got, key=repr) == sorted(arguments, key=repr), power
        for slot, value, to_slot in arguments:
            index = power_action(power, slot, value, to_slot)
            a = ACTIONS[index]
            assert (a.kind, a.power, a.slot, a.value, a.to_slot) == (
                "power",
                power,
                slot,
                value,
                to_slot,
            )
            assert power in a.description


def test_engine_has_a_rule_for_every_power_in_the_table() -> None:
    """The engine offers each chosen power in the phase its card's timing names."""
    timing_phase = {
        "before_play": {Phase.PLAY},
        "after_play": {Phase.AFTER_PLAY},
        "group": {Phase.GROUP},
        "after_correct": {Phase.SAILS},
    }
    by_id = {p.id: p for p in POWERS}
    rules = {POWERS[i].id: rule for i, rule in POWER_RULES.items()}
    assert set(rules) == {p.id for p in POWERS} - {"sands"}
    for power, rule in rules.items():
        expected = timing_phase[by_id[power].timing]
        assert expected <= set(rule.phases), power


def test_find_action_round_trip() -> None:
    for a in ACTIONS:
        assert find_action(a.kind, a.power, a.slot, a.value, a.to_slot) == a.index


@pytest.mark.parametrize(
    "args",
    [
        ("jump",),
        ("play",),
        ("play", None, 0, 0),
        ("play", None, 0, 8),
        ("play", None, 5, 1),
        ("play", None, -1, 1),
        ("predict", None, None, 0),
        ("predict", None, None, 8),
        ("pass", None, None, 1),
        ("power", "sands"),
        ("power", "nope"),
        ("power", "saints", None, 7),
        ("power", "saints"),
        ("power", "skies", 0, 1, 0),
        ("power", "sinners", 4, 1),
        ("cost", "nope"),
        ("cost",),
        ("steal", None, 4, 1),
        ("steal", None, 0, 0),
    ],
    ids=repr,
)
def test_find_action_errors(args: tuple) -> None:
    with pytest.raises(ValueError) as info:
        find_action(*args)
    message = str(info.value)
    assert repr(args[0]) in message
    assert str(NUM_ACTIONS) in message


@pytest.mark.parametrize(
    ("helper", "args"),
    [
        (play_action, (0, 0)),
        (play_action, (8, 0)),
        (play_action, (1, 5)),
        (predict_action, (0,)),
        (predict_action, (8,)),
        (power_action, ("sands",)),
        (power_action, ("saints",)),
        (power_action, ("sparrows", 4)),
        (cost_action, ("nope",)),
        (steal_action, (4, 1)),
        (steal_action, (0, 9)),
    ],
    ids=lambda x: getattr(x, "__name__", repr(x)),
)
def test_helper_errors(helper, args: tuple) -> None:
    with pytest.raises(ValueError):
        helper(*args)


@pytest.mark.parametrize("bad", [-1, NUM_ACTIONS, NUM_ACTIONS + 100, "3", 2.0, None, [1]])
def test_describe_bad_number(bad: object) -> None:
    with pytest.raises(ValueError) as info:
        describe(bad)  # type: ignore[arg-type]
    message = str(info.value)
    assert repr(bad) in message
    assert str(NUM_ACTIONS - 1) in message


def test_markdown_table() -> None:
    lines = action_table_markdown().splitlines()
    assert len(lines) == NUM_ACTIONS + 2
    for a, line in zip(ACTIONS, lines[2:], strict=True):
        assert line.startswith(f"| {a.index} | {a.kind} |")
        assert a.description in line


def test_module_does_not_import_the_engine() -> None:
    """The module docstring: 'This module must not import the engine.'"""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(actions))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert not any("engine" in name for name in imported), imported
