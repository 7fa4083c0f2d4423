"""The words the page, the terminal and replays share (issue 51, items 7, 8, 10 and 12):
the log reads the same whoever acted, the end of a turn is not the pass's doing, a pass
after a prediction declines only more predictions, a win is said once, the fade
wording is one, replays name the deck by card, and the terminal wraps to its width."""

from __future__ import annotations

import io
import re

import numpy as np

from shipwreck_apps.play.replay_view import Replay
from shipwreck_apps.play.seat_view import (
    RULES_HELP,
    action_text,
    end_reason,
    end_words,
    screen_text,
    view_data,
)
from shipwreck_apps.play.table import Table
from shipwreck_apps.play.terminal import RULES, play_terminal
from shipwreck_env.rules.actions import PASS
from shipwreck_env.rules.cards import CARD_INDEX, CARDS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.state import PHASES
from shipwreck_env.rules.view import make_view


def finished_tables(count: int, config: GameConfig, teammates: str = "heuristic+bayes"):
    """Whole games with a person at seat 0 who always takes the first option."""
    for seed in range(count):
        table = Table(config, [0], teammates, seed)
        table.advance()
        while not table.closed:
            table.play(0, table.legal(0)[0])
        yield table


def test_the_log_reads_the_same_whoever_acted() -> None:
    """Item 7: "player 1 (AI): keep my held fate hidden" -- the log's words have no
    "my"; the end of a turn (fades, refills, draws) is apart from the action."""
    ended_with_fade = 0
    for table in finished_tables(4, GameConfig(num_players=3)):
        for entry in table.log:
            assert not re.search(r"\bmy\b", entry["action"]), entry
            assert not any("faded (slot" in t or "refilled with" in t for t in entry["events"]), (
                entry
            )
            if any("faded (slot" in t for t in entry["turn_end"]):
                ended_with_fade += 1
                assert entry["action"].startswith(("pass", "predict", "vote", "keep", "reveal"))
    assert ended_with_fade > 3


def test_a_pass_after_a_prediction_declines_only_more_predictions() -> None:
    """Item 7: after a wrong extra guess the pass still said "no prediction"."""
    assert action_text(PASS, "group", "leader") == "pass: no power and no prediction"
    assert action_text(PASS, "group", "leader", None, True) == "pass: no more predictions"
    rng = np.random.default_rng(4)
    config = GameConfig(num_players=3, card_sets="all")
    for _ in range(200):
        s = new_game(config, rng)
        while not s.over:
            if PHASES[s.phase] == "group" and s.predictions and PASS in legal_actions(s):
                data = view_data(make_view(s, s.decider))
                passes = [o["text"] for o in data["legal"] if o["action"] == PASS]
                assert passes == ["pass: no more predictions"]
                return
            step_inplace(s, int(rng.choice(legal_actions(s))), rng)
    raise AssertionError("no group decision after a prediction was reached")


def test_a_prediction_says_what_the_number_line_allowed() -> None:
    """Item 4: "the leader guessed 6 for a kept 7" and nothing said why: the log now says
    the values the number line still allowed when the group named its value."""
    from shipwreck_apps.play.explain import values_text
    from shipwreck_env.rules.conditions import mask_values

    noted = 0
    for table in finished_tables(3, GameConfig(num_players=3)):
        replay = Replay(table.record())
        for i, entry in enumerate(table.log):
            if entry["action"].startswith("predict "):
                before = replay.states[i]
                allowed = values_text(mask_values(before.lines[before.active]))
                assert entry["note"] == f"the number line then allowed {allowed}"
                assert replay.notes[i] == entry["note"]
                noted += 1
    assert noted > 3


def test_a_win_is_said_once() -> None:
    """Item 7: "Score reached 7: the table won. Last turn: the score reached 7." """
    for table in finished_tables(40, GameConfig(num_players=3, difficulty="easy")):
        if table.state.won:
            words = end_words(True, False) + " " + end_reason(table.state, 0)
            assert words.count("7") == 1 and "predicted the hidden fate right" in words
            return
    raise AssertionError("no game was won")


def test_a_card_fades_at_hours_in_one_wording() -> None:
    """Items 7 and 10: "moons", "☾" and "fades at N" for one idea; "fades at 1 hours"."""
    rng = np.random.default_rng(0)
    s = new_game(GameConfig(num_players=3, card_sets="all"), rng)
    text = screen_text(view_data(make_view(s, 0)))
    assert "fades at 1 hours" not in text and "☾" not in text and "moons" not in text
    assert re.search(r"fades at [2-9] hours|fades at 1 hour\b", text)
    data = view_data(make_view(s, 0))
    assert re.search(r"Unseen copies \(value: how many\): 1: \d, 2: \d", screen_text(data))


def test_replays_name_the_deck_by_card() -> None:
    """Item 8: the replay page listed the deck as "mirror, huntress, ..."."""
    (table,) = finished_tables(1, GameConfig(num_players=3))
    order = Replay(table.record()).step_data(0, None)["deck_order"]
    names = {c.name for c in CARDS}
    assert order and all(name in names for name in order)
    assert not set(order) & set(CARD_INDEX)


def test_the_rules_say_what_a_reveal_does() -> None:
    """Items 3 and 10: `r` never mentioned reveals."""
    assert "Reveals" in dict(RULES_HELP)
    assert "Reveals:" in RULES and "face up" in RULES


def test_the_terminal_wraps_to_its_width_without_cutting_words() -> None:
    """Item 10: lines ran past 120 columns and broke mid-word."""

    def session(width: int | None) -> str:
        table = Table(GameConfig(num_players=3), [0], "heuristic+bayes", 5)
        out = io.StringIO()
        commands = "1\n1\n1\nl\nr\nq\n"
        play_terminal(table, 0, io.StringIO(commands), out, None, width=width)
        return out.getvalue()

    plain, wrapped = session(None), session(60)
    assert max(len(line) for line in plain.splitlines()) > 60
    assert plain.split() == wrapped.split()  # the same words, none cut
    for line in wrapped.splitlines():
        assert len(line) <= 60 or " " not in line.strip(), line
