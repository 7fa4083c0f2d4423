"""Tests of :class:`shipwreck_env.config.GameConfig`.

Defaults; every bad value of every field raises ``ValueError`` whose message names the
field, the value given and what is allowed; card set spellings; challenge mode only with
two players; ``to_dict`` / ``from_dict`` round trip and its errors.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from shipwreck_env.cards import CARD_SETS, CARDS
from shipwreck_env.config import GameConfig
from shipwreck_env.engine import new_game

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
        (("gencon",), ("gencon",)),
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


def test_each_card_set_makes_its_deck() -> None:
    for name in CARD_SETS:
        s = new_game(GameConfig(card_sets=name), 0)
        cards = sorted(c for c in (*s.deck, *s.slots) if c >= 0)
        assert cards == [i for i, card in enumerate(CARDS) if card.set == name]


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
    GameConfig(num_players=3, card_sets=["stars_below"], max_turns=1),
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
