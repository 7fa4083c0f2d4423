"""Tests of :mod:`shipwreck_env.rules.saving`: save a game to JSON and load it back exactly.

* round trips at the start, mid-game in every phase that random games reach, and at
  game over; the loaded generator continues with the same draws, so a loaded game goes
  on exactly like the original;
* every kind of bad file raises ``SaveGameError`` (a ``ValueError``) whose message
  names the problem, and nothing is returned: no partial state;
* random corruption never raises anything but ``SaveGameError``.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from shipwreck_env.rules.actions import ACTIONS, PASS
from shipwreck_env.rules.cards import CARD_INDEX, CARDS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step, step_inplace
from shipwreck_env.rules.saving import FORMAT, VERSION, SaveGameError, dumps, loads
from shipwreck_env.rules.state import PHASES, Phase, State

CONFIGS = [
    GameConfig(),
    GameConfig(num_players=2, challenge_mode=True, group_decision="vote", card_sets="all"),
    GameConfig(num_players=4, difficulty="easy", card_sets="all"),
    GameConfig(num_players=5, difficulty="easy", group_decision="vote", reveal=False),
    GameConfig(num_players=2, difficulty="easy", card_sets="all", max_turns=None),
]


def policy(s: State, legal: list[int], choice: np.random.Generator) -> int:
    """Random legal play that often predicts right (long games reaching every phase)."""
    if s.phase in (Phase.GROUP, Phase.VOTE):
        powers = [a for a in legal if ACTIONS[a].kind == "power"]
        if powers and choice.random() < 0.5:
            return powers[int(choice.integers(len(powers)))]
        real = s.hands[s.active][0]
        right = [a for a in legal if ACTIONS[a].kind == "predict" and ACTIONS[a].value == real]
        if right and choice.random() < 0.7:
            return right[0]
        if PASS in legal:
            return PASS
    return legal[int(choice.integers(len(legal)))]


def states_by_phase() -> dict[str, tuple[State, dict, int]]:
    """The first state (with its rng state and game index) seen in each phase."""
    found: dict[str, tuple[State, dict, int]] = {}
    for g in range(400):
        config = CONFIGS[g % len(CONFIGS)]
        rng = np.random.default_rng(g)
        choice = np.random.default_rng(10_000 + g)
        s = new_game(config, rng)
        while True:
            name = PHASES[s.phase]
            if name not in found:
                found[name] = (s.copy(), copy.deepcopy(rng.bit_generator.state), g)
            if s.over:
                break
            s = step(s, policy(s, legal_actions(s), choice), rng)
        if len(found) == len(PHASES):
            break
    return found


PHASE_STATES = states_by_phase()


def rng_from(state: dict) -> np.random.Generator:
    bit_generator = np.random.PCG64()
    bit_generator.state = copy.deepcopy(state)
    return np.random.Generator(bit_generator)


def test_every_phase_reached() -> None:
    assert set(PHASE_STATES) == set(PHASES)


@pytest.mark.parametrize("phase", PHASES)
def test_round_trip_in_each_phase(phase: str) -> None:
    s, rng_state, _ = PHASE_STATES[phase]
    text = dumps(s, rng_from(rng_state))
    loaded, rng = loads(text)
    assert isinstance(loaded, State)
    assert loaded == s
    assert loaded.config == s.config
    assert rng is not None and rng.bit_generator.state == rng_state
    assert dumps(loaded, rng) == text, "saving a loaded game gives a different file"
    assert legal_actions(loaded) == legal_actions(s)


@pytest.mark.parametrize("phase", PHASES)
def test_loaded_game_continues_identically(phase: str) -> None:
    s, rng_state, g = PHASE_STATES[phase]
    rng = rng_from(rng_state)
    loaded, loaded_rng = loads(dumps(s, rng))
    choice = np.random.default_rng(g)
    s = s.copy()
    while not s.over:
        action = policy(s, legal_actions(s), choice)
        assert legal_actions(loaded) == legal_actions(s)
        step_inplace(s, action, rng)
        step_inplace(loaded, action, loaded_rng)
        assert loaded == s
    assert loaded.over


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_round_trip_at_start_and_game_over(config: GameConfig) -> None:
    rng = np.random.default_rng(5)
    s = new_game(config, rng)
    loaded, loaded_rng = loads(dumps(s, rng))
    assert loaded == s
    assert loaded_rng.integers(1 << 40, size=8).tolist() == rng.integers(1 << 40, size=8).tolist()
    choice = np.random.default_rng(6)
    while not s.over:
        s = step(s, policy(s, legal_actions(s), choice), rng)
    loaded, _ = loads(dumps(s, rng))
    assert loaded == s and loaded.over and legal_actions(loaded) == []


def test_without_rng() -> None:
    s = new_game(GameConfig(), 3)
    loaded, rng = loads(dumps(s))
    assert rng is None
    assert loaded == s
    assert json.loads(dumps(s))["rng"] is None


def test_file_layout() -> None:
    data = json.loads(dumps(new_game(GameConfig(), 1), np.random.default_rng(1)))
    assert data["format"] == FORMAT
    assert data["version"] == VERSION
    assert GameConfig.from_dict(data["config"]) == GameConfig()
    assert set(data["state"]) == set(State.__slots__) - {"config"}


def test_loaded_state_is_independent() -> None:
    s, rng_state, _ = PHASE_STATES["group"]
    text = dumps(s, rng_from(rng_state))
    a, _ = loads(text)
    b, _ = loads(text)
    a.hands[a.active].clear()
    a.table[0].append(1)
    assert b == s


# --- errors ---------------------------------------------------------------------------


def saved() -> dict:
    """A mid-game save (group phase, fates on the table and in hands) as data."""
    s, rng_state, _ = PHASE_STATES["group"]
    return json.loads(dumps(s, rng_from(rng_state)))


def base_saved() -> dict:
    """A save of a game with only the base set."""
    rng = np.random.default_rng(2)
    s = new_game(GameConfig(card_sets="base"), rng)
    return json.loads(dumps(s, rng))


def assert_error(data: dict | str, *words: str) -> None:
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(SaveGameError) as info:
        loads(text)
    message = str(info.value)
    for word in words:
        assert word.lower() in message.lower(), f"{word!r} not in message {message!r}"
    assert isinstance(info.value, ValueError)


def test_fixture_state_has_fates_everywhere() -> None:
    state = saved()["state"]
    assert any(state["table"]) and any(state["hands"])


@pytest.mark.parametrize("text", ["", "not json", "{", "{'a': 1}", "[1, 2", "nan nan"])
def test_not_json(text: str) -> None:
    assert_error(text, "JSON")


@pytest.mark.parametrize("text", ["[]", "1", '"text"', "null"])
def test_json_but_not_a_save(text: str) -> None:
    assert_error(text, "format")


@pytest.mark.parametrize("tag", ["other", "", None, 1, FORMAT.upper()])
def test_wrong_format_tag(tag: object) -> None:
    data = saved()
    data["format"] = tag
    assert_error(data, "format")


def test_missing_format_tag() -> None:
    data = saved()
    del data["format"]
    assert_error(data, "format")


@pytest.mark.parametrize("version", [0, 2, VERSION + 1, "1", None, True, [1]])
def test_wrong_version(version: object) -> None:
    data = saved()
    data["version"] = version
    assert_error(data, "version")


def test_missing_version() -> None:
    data = saved()
    del data["version"]
    assert_error(data, "version")


@pytest.mark.parametrize("name", ["score", "hands", "bag", "deck", "phase", "events", "over"])
def test_missing_state_field(name: str) -> None:
    data = saved()
    del data["state"][name]
    assert_error(data, "missing", name)


@pytest.mark.parametrize("name", ["config", "state"])
def test_missing_top_level_part(name: str) -> None:
    data = saved()
    del data[name]
    assert_error(data, name)


def test_unknown_state_field() -> None:
    data = saved()
    data["state"]["cheat_mode"] = True
    assert_error(data, "unknown", "cheat_mode")


def test_unknown_top_level_key() -> None:
    data = saved()
    data["comment"] = "hello"
    assert_error(data, "unknown", "comment")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("score", "3"),
        ("score", 1.5),
        ("score", None),
        ("doom", True),
        ("turn", [1]),
        ("over", 0),
        ("over", "false"),
        ("shadows", None),
        ("deck", "0,1,2"),
        ("deck", [0, "1"]),
        ("bag", [3, 3, 3, 3, 3, 3, True]),
        ("hands", [1, 2, 3]),
        ("table", [[1], "2", [], []]),
        ("plays", "none"),
        ("events", {"a": 1}),
        ("state", [1, 2]),
    ],
)
def test_wrong_type(name: str, value: object) -> None:
    data = saved()
    if name == "state":
        data["state"] = value
    else:
        data["state"][name] = value
    assert_error(data, name)


def test_wrong_type_of_a_play_entry() -> None:
    """``plays`` holds (value, target, slot landed) triples."""
    data = saved()
    data["state"]["plays"] = ["x"]
    assert_error(data, "plays")


@pytest.mark.parametrize("value", range(1, 8))
def test_a_fate_token_too_many(value: int) -> None:
    data = saved()
    data["state"]["bag"][value - 1] += 1
    assert_error(data, "fate")


def test_a_fate_token_too_many_in_a_hand() -> None:
    data = saved()
    state = data["state"]
    seat = next(i for i, hand in enumerate(state["hands"]) if len(hand) < 2)
    state["hands"][seat].append(
        state["table"][next(i for i, t in enumerate(state["table"]) if t)][0]
    )
    assert_error(data, "fate")


def test_a_fate_token_missing() -> None:
    data = saved()
    slot = next(i for i, fates in enumerate(data["state"]["table"]) if fates)
    data["state"]["table"][slot].pop()
    assert_error(data, "fate")


def test_a_fate_value_out_of_range() -> None:
    data = saved()
    slot = next(i for i, fates in enumerate(data["state"]["table"]) if fates)
    data["state"]["table"][slot][0] = 8
    assert_error(data, "8")


def test_negative_bag_count() -> None:
    data = saved()
    data["state"]["bag"][0] = -1
    data["state"]["exiled"][0] += 1
    assert_error(data, "bag")


@pytest.mark.parametrize("where", ["deck", "faded", "slots"])
def test_a_card_duplicated(where: str) -> None:
    data = saved()
    state = data["state"]
    card = state["deck"][0]
    if where == "slots":
        state["slots"][3] = state["slots"][0]
        state["deck"].append(card)  # keep the count right: only the duplicate is wrong
    else:
        state[where].append(card)
    assert_error(data, "card")


def test_a_card_missing() -> None:
    data = saved()
    data["state"]["deck"].pop()
    assert_error(data, "card")


def test_a_card_outside_the_config_sets() -> None:
    data = base_saved()
    data["state"]["deck"].append(CARD_INDEX["feast"])
    assert_error(data, "card", "base")


def test_a_card_replaced_by_one_outside_the_sets() -> None:
    data = base_saved()
    data["state"]["deck"][0] = CARD_INDEX["thief"]
    assert_error(data, "card")


def test_a_card_number_that_does_not_exist() -> None:
    data = saved()
    data["state"]["deck"].append(len(CARDS) + 3)
    assert_error(data, "card")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("num_players", 9),
        ("num_players", "3"),
        ("difficulty", "insane"),
        ("card_sets", ["base", "nope"]),
        ("group_decision", "dictator"),
        ("challenge_mode", "yes"),
        ("reveal", 1),
        ("max_turns", 0),
    ],
)
def test_bad_config_value(name: str, value: object) -> None:
    data = saved()
    data["config"][name] = value
    assert_error(data, "config", name)


def test_unknown_config_key() -> None:
    data = saved()
    data["config"]["house_rule"] = 1
    assert_error(data, "config", "house_rule")


def test_config_that_does_not_fit_the_state() -> None:
    """Three seats saved, but the config says four players."""
    data = base_saved()
    data["config"]["num_players"] = 4
    assert_error(data, "hands")


@pytest.mark.parametrize(
    "rng",
    [
        "PCG64",
        12,
        [1, 2],
        {"bit_generator": "MT19937", "state": {"key": [0] * 624, "pos": 0}},
        {"bit_generator": "PCG64"},
        {"bit_generator": "PCG64", "state": "x", "has_uint32": 0, "uinteger": 0},
    ],
)
def test_bad_rng(rng: object) -> None:
    data = saved()
    data["rng"] = rng
    assert_error(data, "rng")


def test_phase_out_of_range() -> None:
    data = saved()
    data["state"]["phase"] = len(PHASES)
    assert_error(data, "phase")


def test_decider_must_match_over() -> None:
    data = saved()
    data["state"]["over"] = True
    assert_error(data, "decider")


CORRUPTIONS = [None, "x", -1, 99, [], {}, True, 1.5, [[]], [-1], ["a"], [[9]]]


def leaves(node: object, path: tuple = ()):  # every (path, value) of the JSON tree
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from leaves(value, (*path, i))
    yield path, node


def test_random_corruption_only_raises_save_game_error() -> None:
    """Replace or delete one random part of a save: loading either works or raises
    ``SaveGameError`` -- never ``KeyError``, ``TypeError``, ``IndexError`` ..."""
    base = saved()
    paths = [p for p, _ in leaves(base) if p and p[0] != "rng"]
    choice = np.random.default_rng(0)
    unexpected = []
    for _ in range(1500):
        data = copy.deepcopy(base)
        path = paths[int(choice.integers(len(paths)))]
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and choice.random() < 0.2:
            del parent[path[-1]]
        else:
            parent[path[-1]] = CORRUPTIONS[int(choice.integers(len(CORRUPTIONS)))]
        try:
            loaded, _ = loads(json.dumps(data))
        except SaveGameError:
            continue
        except Exception as exc:
            unexpected.append((path, type(exc).__name__, str(exc)[:100]))
            continue
        try:  # a file that loads must describe a playable state
            legal = legal_actions(loaded)
            assert loaded.over or legal
        except Exception as exc:
            unexpected.append((path, "loaded but unplayable: " + type(exc).__name__, str(exc)))
    assert not unexpected, f"{len(unexpected)} corruptions: {unexpected[:8]}"
