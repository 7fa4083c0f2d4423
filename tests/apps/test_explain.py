"""What a play tells, in words (apps/play/explain.py) and the card names in the texts of
apps/play/seat_view.py: true to the hidden fate, no wider than the card allows, and the
same in twin games that differ only in hidden facts (issue 41, finding 5)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from web_helpers import twins

from shipwreck_apps.play.explain import card_name, play_note, turn_reading, values_text
from shipwreck_apps.play.seat_view import end_words, event_text, track_text, view_data
from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET
from shipwreck_env.rules.cards import CARDS
from shipwreck_env.rules.conditions import mask_values
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step
from shipwreck_env.rules.public_record import hand_plays
from shipwreck_env.rules.view import make_view

CARD_IDS = {c.id for c in CARDS if c.id != c.name}
ID_WORD = re.compile(r"\b(" + "|".join(sorted(CARD_IDS, key=len, reverse=True)) + r")\b")
"""A card id as a word ("blind_man"); printed names are capitalised ("The Blind Man")."""


def random_game(config: GameConfig, seed: int):
    """Every state of one game of uniformly random legal actions, with the action that
    led to it (``None`` for the first)."""
    rng = np.random.default_rng(seed)
    s = new_game(config, rng)
    out = [(None, s)]
    while not s.over:
        legal = legal_actions(s)
        action = int(legal[rng.integers(len(legal))])
        s = step(s, action, rng)
        out.append((action, s))
    return out


CONFIGS = [
    GameConfig(num_players=3, card_sets="all"),
    GameConfig(num_players=4, difficulty="easy", card_sets="all", group_decision="vote"),
    GameConfig(num_players=2, challenge_mode=True, card_sets="all"),
]


def test_values_in_words() -> None:
    assert values_text([7, 1, 3]) == "1, 3 or 7"
    assert values_text([4]) == "4"
    assert values_text(range(1, 8)) == "any value from 1 to 7"


def test_a_card_is_named_by_its_printed_name_and_a_bad_id_is_refused() -> None:
    assert card_name("blind_man") == "The Blind Man"
    with pytest.raises(ValueError, match="'nobody' is not an arcana card id"):
        card_name("nobody")


def test_events_name_cards_never_by_id() -> None:
    """Issue 41: the log said "refilled with blind_man" while the cards show names."""
    assert event_text(("refill", 2, "blind_man")) == "slot 2 refilled with The Blind Man"
    assert event_text(("fade", 1, "beast")) == "The Beast faded (slot 1)"
    text = event_text(("power", "sparrows", 0, ("beast", "dawn")))
    assert "The Beast" in text and "Dawn" in text and "beast" not in text.replace("Beast", "")
    slots = ("beast", "dawn", None, "blind_man")
    assert event_text(("play", 5, 3, 3), slots) == "played 5 on The Blind Man (slot 3)"
    assert event_text(("play", 2, HOURS_TARGET, 0), slots) == (
        "played 2 on The Hours (slid to The Beast, slot 0)"
    )


def test_the_texts_of_whole_games_carry_no_card_id() -> None:
    """Every event and legal action shown to a seat names cards as the cards do."""
    for seed, config in enumerate(CONFIGS):
        for _, s in random_game(config, seed):
            data = view_data(make_view(s, s.decider if not s.over else 0))
            texts = data["turn_events"] + [a["text"] for a in data["legal"]]
            if data["reading"]:
                texts.append(data["reading"]["text"])
            for text in texts:
                assert not ID_WORD.search(text), text


def test_the_end_is_said_in_words_within_the_track() -> None:
    assert end_words(False, False) == "Doom reached 7: the table lost."
    assert end_words(True, False) == "Score reached 7: the table won."
    assert "turn limit (200)" in end_words(False, True, 200)
    assert track_text("Doom", 8, 7) == "Doom 7/7 (8 counted)" and "8/7" not in track_text(
        "Doom", 8, 7
    )
    assert track_text("Score", 3, 7) == "Score 3/7"


def test_a_reading_holds_the_real_kept_fate_and_only_what_the_card_allows() -> None:
    """The literal reading is sound (the real kept fate is in it) and literal (a first
    play with no power before it allows no value its card's condition excludes)."""
    checked = narrowed = 0
    for seed, config in enumerate(CONFIGS * 2):
        for _, s in random_game(config, 100 + seed):
            viewer = (s.active_player + 1) % config.num_players
            reading = turn_reading(make_view(s, viewer))
            if reading is None:
                continue
            kept = s.hands[s.active][0]
            assert kept in reading["values"], (reading, kept)
            assert reading["seat"] == s.active and reading["player"] == s.active_player
            assert f"player {s.active_player}'s hidden fate" in reading["text"]
            assert len(reading["plays"]) == len(s.plays)
            start = make_view(s, viewer).turn_start
            first = next(e for e in s.events if e[0] == "play")
            if len(s.plays) == 1 and not any(e[0] == "power" for e in s.events):
                value, target = first[1], first[2]
                allowed = {
                    k
                    for k in range(1, 8)
                    if any(
                        ACTIONS[a].slot == target and ACTIONS[a].value == value
                        for a in hand_plays(start, (value, k))
                    )
                }
                assert set(reading["values"]) <= allowed, (reading, allowed)
                narrowed += len(reading["values"]) < 7
                checked += 1
    assert checked >= 30 and narrowed >= 10, (checked, narrowed)


def test_a_log_note_is_for_plays_and_says_the_number_line() -> None:
    notes = 0
    for seed, config in enumerate(CONFIGS):
        for action, s in random_game(config, 200 + seed):
            if action is None:
                continue
            note = play_note(make_view(s, 0), action)
            if ACTIONS[action].kind != "play":
                assert note is None
            elif note is not None:
                values = values_text(mask_values(s.lines[s.active]))
                assert note.endswith(f" is {values}") and "this play says" in note
                notes += 1
    assert notes >= 10


def test_explanations_are_the_same_in_twin_games() -> None:
    """Leak test: every seat that may not see a hidden fate (another seat's, or the deck
    below its top) gets the same reading, note and texts in twin games that differ only
    there."""
    rng = np.random.default_rng(5)
    compared = 0
    for seed, config in enumerate(CONFIGS):
        for action, s in random_game(config, 300 + seed):
            for p in range(config.num_players):
                view = make_view(s, p)
                reading = turn_reading(view)
                texts = view_data(view)["turn_events"]
                note = play_note(view, action) if action is not None else None
                for twin in twins(s, p, rng, per_fate=1):
                    other = make_view(twin, p)
                    assert turn_reading(other) == reading
                    assert view_data(other)["turn_events"] == texts
                    if action is not None:
                        assert play_note(other, action) == note
                    compared += reading is not None
    assert compared >= 50


def test_the_twin_check_catches_a_reading_that_peeks() -> None:
    """A reading that also used the real kept fate would differ in some twin: the check
    above can fail."""
    rng = np.random.default_rng(6)

    def peeking(s, p):
        return {**turn_reading(make_view(s, p)), "kept": s.hands[s.active][0]}

    for _, s in random_game(CONFIGS[0], 7):
        viewer = (s.active_player + 1) % 3
        if turn_reading(make_view(s, viewer)) is None:
            continue
        if any(peeking(t, viewer) != peeking(s, viewer) for t in twins(s, viewer, rng)):
            return
    pytest.fail("no twin told a peeking reading apart")
