"""Tests of :class:`shipwreck_env.rules.config.GameConfig`.

Defaults; every bad value of every field raises ``ValueError`` whose message names the
field, the value given and what is allowed; card set spellings; challenge mode only with
two players; only selections with the base set are playable; ``to_dict`` / ``from_dict`` round trip and its errors.
"""

from __future__ import annotations

import dataclasses
import itertools
import json

import numpy as np
import pytest

from shipwreck_env.envs.aec_env import raw_env
from shipwreck_env.envs.gym_env import ShipwreckGymEnv
from shipwreck_env.rules.cards import CARD_SETS, CARDS
from shipwreck_env.rules.config import DIFFICULTIES, EXPANSIONS, GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.vector import VectorGame

FIELDS = ("num_players", "difficulty", "card_sets", "group_decision", "challenge_mode", "reveal")


def test_defaults() -> None:
    config = GameConfig()
    assert config.num_players == 3
    assert config.difficulty == "normal"
    assert config.card_sets == ("base",)
    assert config.group_decision == "leader"
    assert config.challenge_mode is False
    assert config.reveal is True
    assert config.max_turns == 200
    assert config.starting_doom == 2
    assert config.num_seats == 3


def test_field_names() -> None:
    names = {f.name for f in dataclasses.fields(GameConfig)}
    assert names == {*FIELDS, "max_turns"}


def test_frozen() -> None:
    config = GameConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.num_players = 4  # type: ignore[misc]


def test_hashable_and_equal() -> None:
    assert GameConfig(card_sets="base") == GameConfig(card_sets=["base"])
    assert hash(GameConfig(card_sets="all")) == hash(GameConfig(card_sets=list(CARD_SETS)))


@pytest.mark.parametrize(
    ("difficulty", "doom"), [("easy", 0), ("normal", 2), ("hard", 4), ("doomed", 6)]
)
def test_difficulty_sets_starting_doom(difficulty: str, doom: int) -> None:
    config = GameConfig(difficulty=difficulty)
    assert config.starting_doom == doom
    assert new_game(config, 0).doom == doom


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_valid_player_counts(players: int) -> None:
    config = GameConfig(num_players=players)
    assert config.num_seats == players
    assert len(new_game(config, 0).hands) == players


def test_challenge_mode_two_seats_per_player() -> None:
    config = GameConfig(num_players=2, challenge_mode=True)
    assert config.num_seats == 4
    assert len(new_game(config, 0).hands) == 4


@pytest.mark.parametrize("players", [3, 4, 5])
def test_challenge_mode_needs_two_players(players: int) -> None:
    with pytest.raises(ValueError) as info:
        GameConfig(num_players=players, challenge_mode=True)
    message = str(info.value)
    assert "challenge_mode" in message
    assert str(players) in message
    assert "2" in message


def test_challenge_mode_default_players_is_an_error() -> None:
    with pytest.raises(ValueError, match="challenge_mode"):
        GameConfig(challenge_mode=True)


# --- card sets ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("base", ("base",)),
        ("all", CARD_SETS),
        ("base,kickstarter", ("base", "kickstarter")),
        ("kickstarter, base", ("base", "kickstarter")),
        (" base , stars_below ", ("base", "stars_below")),
        (["base"], ("base",)),
        (["stars_below", "base"], ("base", "stars_below")),
        (("gencon", "base"), ("base", "gencon")),
        (["base", "base"], ("base",)),
        (["all"], CARD_SETS),
        (["base", "all"], CARD_SETS),
        ("base,all", CARD_SETS),
        (list(CARD_SETS), CARD_SETS),
    ],
)
def test_card_sets_spellings(given: object, expected: tuple[str, ...]) -> None:
    config = GameConfig(card_sets=given)
    assert config.card_sets == expected
    assert isinstance(config.card_sets, tuple)


def test_all_card_sets_make_the_whole_deck() -> None:
    s = new_game(GameConfig(card_sets="all"), 0)
    cards = [*s.deck, *s.slots]
    assert sorted(cards) == list(range(len(CARDS)))


def test_each_selection_makes_its_deck() -> None:
    for selection in PLAYABLE_SELECTIONS:
        s = new_game(GameConfig(card_sets=selection), 0)
        cards = sorted(c for c in (*s.deck, *s.slots) if c >= 0)
        assert cards == [i for i, card in enumerate(CARDS) if card.set in selection]


PLAYABLE_SELECTIONS = [
    ("base", *extra)
    for n in range(len(EXPANSIONS) + 1)
    for extra in itertools.combinations(EXPANSIONS, n)
]
"""Every selection docs/rules.md (decision 25) allows: base plus any expansions."""
UNPLAYABLE_SELECTIONS = [
    list(extra)
    for n in range(1, len(EXPANSIONS) + 1)
    for extra in itertools.combinations(EXPANSIONS, n)
]
"""Every selection without the base set."""


def test_the_playable_selections_are_base_plus_any_expansions() -> None:
    assert len(PLAYABLE_SELECTIONS) == 8
    assert len(UNPLAYABLE_SELECTIONS) == 7
    assert set(EXPANSIONS) == set(CARD_SETS) - {"base"}


@pytest.mark.parametrize("selection", UNPLAYABLE_SELECTIONS, ids=",".join)
def test_a_selection_without_the_base_set_is_refused_by_name(selection: list[str]) -> None:
    """Decision 25: expansions join the base deck; the Gen Con promo alone would make a
    table of one card (every game used to crash in ``legal_mask``)."""
    for spelling in (selection, ",".join(selection)):
        with pytest.raises(ValueError) as info:
            GameConfig(num_players=3, card_sets=spelling)
        message = str(info.value)
        assert repr(spelling) in message, message
        assert f"allowed: 'base' plus any of {list(EXPANSIONS)}, or 'all'" in message, message


@pytest.mark.parametrize("make", ["VectorGame", "raw_env", "ShipwreckGymEnv"])
def test_the_envs_refuse_a_selection_without_the_base_set_with_the_config_message(
    make: str,
) -> None:
    """The batched engine and both environments build a ``GameConfig`` from their
    keywords, so they refuse the selection with its message and build nothing."""
    with pytest.raises(ValueError) as expected:
        GameConfig(num_players=3, card_sets="gencon")
    constructors = {
        "VectorGame": lambda **kw: VectorGame(4, seed=0, **kw),
        "raw_env": raw_env,
        "ShipwreckGymEnv": ShipwreckGymEnv,
    }
    with pytest.raises(ValueError) as info:
        constructors[make](num_players=3, card_sets="gencon")
    assert str(info.value) == str(expected.value)


@pytest.mark.parametrize("selection", PLAYABLE_SELECTIONS, ids=",".join)
def test_every_playable_selection_plays_to_the_end(selection: tuple[str, ...]) -> None:
    """Random legal play ends every game without error, for 2-5 players (and the
    2-player challenge) at every difficulty."""
    rng = np.random.default_rng(0)
    ended = 0
    for players, difficulty, challenge in [
        *itertools.product((2, 3, 4, 5), DIFFICULTIES, (False,)),
        *itertools.product((2,), DIFFICULTIES, (True,)),
    ]:
        config = GameConfig(
            num_players=players,
            difficulty=difficulty,
            card_sets=selection,
            challenge_mode=challenge,
        )
        for _ in range(3):
            s = new_game(config, rng)
            while not s.over:
                legal = legal_actions(s)
                step_inplace(s, legal[int(rng.integers(len(legal)))], rng)
            ended += 1
    assert ended == 3 * 20


# --- bad values -----------------------------------------------------------------------

BAD_VALUES = [
    ("num_players", 1),
    ("num_players", 6),
    ("num_players", 0),
    ("num_players", -3),
    ("num_players", 3.0),
    ("num_players", "3"),
    ("num_players", True),
    ("num_players", None),
    ("difficulty", "insane"),
    ("difficulty", "Normal"),
    ("difficulty", ""),
    ("difficulty", 2),
    ("difficulty", None),
    ("card_sets", "expansion"),
    ("card_sets", "base,nope"),
    ("card_sets", ["base", "nope"]),
    ("card_sets", ""),
    ("card_sets", []),
    ("card_sets", " , "),
    ("card_sets", 5),
    ("card_sets", None),
    ("card_sets", [1]),
    ("card_sets", "Base"),
    ("group_decision", "dictator"),
    ("group_decision", "Vote"),
    ("group_decision", None),
    ("group_decision", 0),
    ("challenge_mode", 1),
    ("challenge_mode", "yes"),
    ("challenge_mode", None),
    ("reveal", 0),
    ("reveal", "false"),
    ("reveal", None),
    ("max_turns", 0),
    ("max_turns", -1),
    ("max_turns", 2.5),
    ("max_turns", "100"),
    ("max_turns", True),
]


@pytest.mark.parametrize(("name", "value"), BAD_VALUES, ids=repr)
def test_bad_value_message(name: str, value: object) -> None:
    """The message names the field, the given value and what is allowed."""
    kwargs = {name: value}
    if name == "challenge_mode":
        kwargs["num_players"] = 2
    with pytest.raises(ValueError) as info:
        GameConfig(**kwargs)
    message = str(info.value)
    assert name in message, message
    shown = [value]
    if name == "card_sets":  # naming the offending entry of the list is enough
        parts = value.split(",") if isinstance(value, str) else value
        if isinstance(parts, list):
            shown += [
                p.strip() if isinstance(p, str) else p for p in parts if p not in ("base", "", " ")
            ]
    assert any(repr(v) in message or str(v) in message for v in shown), message
    assert "allowed" in message, message


ALLOWED_WORDS = {
    "num_players": ["2", "5"],
    "difficulty": ["easy", "normal", "hard", "doomed"],
    "card_sets": [*CARD_SETS, "all"],
    "group_decision": ["leader", "vote"],
    "challenge_mode": ["True", "False"],
    "reveal": ["True", "False"],
    "max_turns": ["None", "1"],
}


@pytest.mark.parametrize("name", sorted(ALLOWED_WORDS))
def test_bad_value_message_lists_allowed_values(name: str) -> None:
    value = {"num_players": 7, "max_turns": 0, "card_sets": "nope"}.get(name, "nope")
    with pytest.raises(ValueError) as info:
        GameConfig(**{name: value})
    message = str(info.value)
    for word in ALLOWED_WORDS[name]:
        assert word in message, (word, message)


def test_card_set_error_names_the_bad_entry() -> None:
    with pytest.raises(ValueError) as info:
        GameConfig(card_sets=["base", "promo"])
    assert "'promo'" in str(info.value)


# --- to_dict / from_dict --------------------------------------------------------------

ROUND_TRIP = [
    GameConfig(),
    GameConfig(num_players=2, challenge_mode=True, difficulty="doomed"),
    GameConfig(num_players=5, card_sets="all", group_decision="vote", reveal=False),
    GameConfig(num_players=4, card_sets="base,kickstarter", max_turns=None),
    GameConfig(num_players=3, card_sets=["stars_below", "base"], max_turns=1),
]


@pytest.mark.parametrize("config", ROUND_TRIP, ids=str)
def test_to_dict_round_trip(config: GameConfig) -> None:
    data = config.to_dict()
    assert set(data) == {f.name for f in dataclasses.fields(GameConfig)}
    assert isinstance(data["card_sets"], list)
    assert GameConfig.from_dict(data) == config
    assert GameConfig.from_dict(json.loads(json.dumps(data))) == config


def test_from_dict_partial_uses_defaults() -> None:
    assert GameConfig.from_dict({}) == GameConfig()
    assert GameConfig.from_dict({"num_players": 4}) == GameConfig(num_players=4)


def test_from_dict_unknown_key() -> None:
    with pytest.raises(ValueError) as info:
        GameConfig.from_dict({"num_players": 3, "players": 4})
    message = str(info.value)
    assert "players" in message and "unknown" in message
    assert "num_players" in message  # what is allowed


@pytest.mark.parametrize("data", [None, [], "num_players=3", 3])
def test_from_dict_not_a_mapping(data: object) -> None:
    with pytest.raises(ValueError, match="config"):
        GameConfig.from_dict(data)  # type: ignore[arg-type]


def test_from_dict_bad_value() -> None:
    with pytest.raises(ValueError, match="difficulty"):
        GameConfig.from_dict({"difficulty": "nightmare"})
