"""What a decision will do, said before it is taken (issue 51, items 3-5): a play's
preview is the number line the engine then gives the player's hidden fate, and the cards
it says will fade do; the fade warning names the cards that fade at the end of the turn
with their doom; the reveal is explained where it is decided; none of it depends on a
hidden fact (twin states give the same words, and a preview that peeks fails that)."""

from __future__ import annotations

import numpy as np
import pytest
from web_helpers import twins

import shipwreck_apps.play.seat_view as seat_view
from shipwreck_apps.play.preview import decision_help, fade_warnings, play_preview
from shipwreck_apps.play.seat_view import faded_cards, view_data
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.cards import CARDS
from shipwreck_env.rules.conditions import mask_values
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.state import PHASES
from shipwreck_env.rules.view import make_view

CONFIGS = [
    GameConfig(num_players=3),
    GameConfig(num_players=4, card_sets="all", difficulty="easy"),
    GameConfig(num_players=2, challenge_mode=True, card_sets="all"),
    GameConfig(num_players=5, group_decision="vote", card_sets="base,kickstarter"),
]


def states(config: GameConfig, games: int, seed: int):
    """Every state of ``games`` random games."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        s = new_game(config, rng)
        while not s.over:
            yield s
            legal = legal_actions(s)
            step_inplace(s, int(rng.choice(legal)), rng)


def _announces(t) -> bool:
    """Did the play bring an announcement that narrows the kept fate further (The
    Chalice's tell, The Fall's), which the preview leaves to the moment it is made?"""
    return any(e[0] in ("chalice", "fall") for e in t.events)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.card_sets}")
def test_a_play_preview_is_the_line_the_engine_then_gives(config: GameConfig) -> None:
    rng = np.random.default_rng(1)
    checked = fades = 0
    for s in states(config, 25, 7):
        view = make_view(s, s.decider)
        for action in view.legal:
            preview = play_preview(view, action)
            if ACTIONS[action].kind != "play" or PHASES[s.phase] != "play":
                assert preview is None
                continue
            t = s.copy()
            step_inplace(t, action, rng)
            line = mask_values(t.lines[s.active])
            if _announces(t):
                assert set(line) <= set(preview["values"])
            else:
                assert preview["values"] == line, (s.turn, action)
            # a card the preview says this play makes fade fades at the turn's end
            after = {w["slot"] for w in fade_warnings(make_view(t, s.decider))}
            assert set(preview["fades"]) <= after
            fades += bool(preview["fades"])
            checked += 1
    assert checked > 200 and fades > 3, (checked, fades)


def test_the_fade_warning_names_what_fades_and_its_doom() -> None:
    """Item 5: The Huntress at hours 3 (fades at 1) while the group decides: a pass or a
    wrong prediction costs 2 doom, and the end of the turn agrees."""
    rng = np.random.default_rng(3)
    warned = 0
    for s in states(GameConfig(num_players=3, card_sets="all"), 30, 11):
        if PHASES[s.phase] not in ("group", "vote"):
            continue
        warnings = fade_warnings(make_view(s, s.decider))
        for w in warnings:
            card = CARDS[s.slots[w["slot"]]]
            assert w["card"] == card.name
            sands = "sands" in make_view(s, 0).attached[w["slot"]]
            assert w["doom"] == (0 if card.id == "blind_man" else 2 + sands)
            said = f"+{w['doom']} doom unless the group predicts right" in w["text"]
            assert said == bool(w["doom"])
        if not warnings:
            continue
        t = s.copy()  # the group passes (or votes pass) until the turn ends
        while t.turn == s.turn and not t.over:
            step_inplace(t, 0 if 0 in legal_actions(t) else legal_actions(t)[-1], rng)
        faded = {e[1] for e in (t.last_events if t.turn != s.turn else t.events) if e[0] == "fade"}
        assert {w["slot"] for w in warnings} <= faded
        warned += 1
    assert warned > 5


RENDERING: list = [None]
"""The state whose view :func:`seen` is building (for the planted leak below)."""


def seen(s, player: int) -> dict:
    RENDERING[0] = s
    return view_data(make_view(s, player), (), None, faded_cards(s))


def check_twins(config: GameConfig, games: int, seed: int) -> int:
    """Each decider's page data (previews, fade warnings, help) is the same in every
    twin state; returns the states checked."""
    rng = np.random.default_rng(seed)
    checked = 0
    for s in states(config, games, seed):
        p = s.decider
        mine = seen(s, p)
        for twin in twins(s, p, rng, per_fate=1):
            assert seen(twin, p) == mine
        checked += 1
    return checked


@pytest.mark.parametrize("config", CONFIGS[:3], ids=lambda c: f"{c.num_players}p-{c.card_sets}")
def test_previews_and_warnings_are_the_same_in_twin_states(config: GameConfig) -> None:
    assert check_twins(config, 8, 5) > 60


def test_a_preview_that_peeks_at_a_hidden_fate_fails_the_twin_check(monkeypatch) -> None:
    """The check above is able to fail: a preview that says the next seat's hidden fate."""
    honest = seat_view.play_preview

    def peeking(view, action):  # as if it read the game it is shown for
        preview = honest(view, action)
        if preview is not None:
            s = RENDERING[0]
            preview["text"] += f" (the next seat holds {s.hands[(s.active + 1) % len(s.hands)]})"
        return preview

    monkeypatch.setattr(seat_view, "play_preview", peeking)
    with pytest.raises(AssertionError):
        check_twins(CONFIGS[0], 4, 5)


def test_the_reveal_is_explained_where_it_is_decided() -> None:
    """Item 3: "keep my held fate hidden / reveal" came with no word on what a reveal
    does or why."""
    for s in states(GameConfig(num_players=3), 20, 2):
        if PHASES[s.phase] == "reveal":
            data = seen(s, s.decider)
            assert "face up" in data["decision_help"] and "back to the bag" in data["decision_help"]
            assert {o["text"] for o in data["legal"]} == {
                "keep the held fate hidden",
                "reveal: discard the held fate face up",
            }
            assert decision_help(make_view(s, (s.decider + 1) % 3)) is None  # not theirs
            return
    raise AssertionError("no reveal decision reached")


# --- the teammates' model reading of each play (item 4) -------------------------------


def model_states(teammates: str, games: int):
    """(table, state) at each play decision of the person (seat 0) in whole games."""
    from shipwreck_apps.play.table import Table

    for seed in range(games):
        table = Table(GameConfig(num_players=3), [0], teammates, seed)
        table.advance()
        while not table.closed:
            data = table.seat_data(0)
            if data["phase"] == "play" and data["legal"]:
                yield table, table.state.copy()
            table.play(0, data["legal"][-1]["action"], data["version"])


def check_model_twins(teammates: str, games: int) -> int:
    from shipwreck_apps.play.table import model_readings

    rng = np.random.default_rng(9)
    checked = 0
    for table, s in model_states(teammates, games):
        model = table.group_model(0)
        shown = table.seat_data(0)["model_previews"]
        assert shown == model_readings(model, s, 0)
        assert shown and all(
            v.startswith("the teammates' model would read it as") for v in shown.values()
        )
        for twin in twins(s, 0, rng, per_fate=1):
            assert model_readings(model, twin, 0) == shown
        checked += 1
    return checked


@pytest.mark.parametrize("teammates", ["bayes", "types", "convention"])
def test_the_model_reading_of_each_play_is_the_same_in_twin_states(teammates: str) -> None:
    assert check_model_twins(teammates, 4) > 10


def test_a_model_reading_from_a_teammates_own_view_fails_the_twin_check(monkeypatch) -> None:
    """The tempting way -- run the model on a teammate's real view of the game after the
    play -- reads with that teammate's hidden hand: the twin check catches it."""
    import shipwreck_apps.play.table as table_module

    def teammates_view(after, player):
        return make_view(after, (player + 1) % after.config.num_players)

    monkeypatch.setattr(table_module, "reader_view", teammates_view)
    with pytest.raises(AssertionError):
        check_model_twins("bayes", 2)
