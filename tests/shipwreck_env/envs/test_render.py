"""The text picture of the table (:mod:`shipwreck_env.envs.render`): the deck top it shows is
the card the next refill takes, and a viewer sees their own held fates and nobody
else's.

Authority: the module docstring of ``shipwreck_env/envs/render.py``; the rulebook's set-up
and end of turn (a faded card's slot is refilled from the top of the deck).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from shipwreck_env.envs.render import render
from shipwreck_env.rules.cards import CARDS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace

NAME_OF_ID = {card.id: card.name for card in CARDS}


def shown_top(text: str) -> str:
    """The deck top's card name as the picture shows it."""
    match = re.search(r"^Deck: \d+ cards, top: (.*)$", text, re.MULTILINE)
    assert match, text
    top = match.group(1)
    return top if top == "empty" else top.split(" [")[0]


@pytest.mark.parametrize("card_sets", ["base", "all"])
def test_deck_top_shown_is_the_card_the_next_refill_takes(card_sets: str) -> None:
    """Read from the outside: whenever a turn ends with a refill, the first card refilled
    is the one the picture showed on top of the deck just before the turn's last
    decision (nothing touches the deck in between but fades, which add at the bottom)."""
    checked = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        s = new_game(GameConfig(num_players=3, card_sets=card_sets), rng)
        while not s.over:
            top = shown_top(render(s))
            turn = s.turn
            legal = legal_actions(s)
            step_inplace(s, legal[int(rng.integers(len(legal)))], rng)
            if s.turn != turn or s.over:
                ended = s.events if s.over else s.last_events
                refills = [e for e in ended if e[0] == "refill"]
                if refills:
                    assert NAME_OF_ID[refills[0][2]] == top, (seed, turn, ended)
                    checked += 1
    assert checked > 20


def test_viewer_sees_own_fates_and_no_one_elses() -> None:
    s = new_game(GameConfig(num_players=3), np.random.default_rng(2))
    for viewer in range(3):
        text = render(s, viewer)
        for seat, hand in enumerate(s.hands):
            line = next(x for x in text.splitlines() if x.startswith(f"  seat {seat} "))
            if seat == viewer:
                assert "holds " + " ".join(map(str, hand)) in line
            else:
                assert "[?]" in line or "holds nothing" in line
    public = render(s)
    assert all(
        "[?]" in x or "holds nothing" in x for x in public.splitlines() if x.startswith("  seat")
    )
