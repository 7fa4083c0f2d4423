"""The batched engine against the reference engine with every expansion card set: Gen
Con (The Imago), Kickstarter (10 cards; Shackles, Shadows, Skies, Storms), Stars Below
(5 cards; Sails, Sands, Scions, Scythes) and all sets at once.

One family per selection, over 2-5 players, leader and vote, every difficulty (the
``all`` family adds challenge mode, no reveals and a turn limit). After every step every
game's full state, legal mask, observation, reward and end flags must equal the
reference's (``vector_helpers.Twins``). The games are driven three ways: random legal
actions that favour powers and right predictions (``lucky_chooser``: games last, and
Sails, which needs a correct prediction, comes up), and the strong scripted teams
(heuristic+bayes, convention) deciding on the reference side.

Each family asserts how often each new rule fired -- every new card played on (The
Thief: its steal), every new power used (Sails: its phase and cost, Sands: its
attachment and its amplified fade), and the set's special situations (The Feast's draw,
The Fall's announcement and fade, The Ash's fade, a 7 in front of The Imago, hours under
Scions, every phase) -- so a rule that never fires cannot pass. The rarest ones (Sails'
exile, Shadows in The Thief's phase) are reached from crafted states.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence

import pytest
from vector_helpers import Mismatch, Twins, lucky_chooser, team_chooser, twins_from_states

from shipwreck_env.rules.cards import CARDS, POWERS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import State

SETS: dict[str, tuple[str, ...]] = {
    "gencon": ("base", "gencon"),
    "kickstarter": ("base", "kickstarter"),
    "stars_below": ("base", "stars_below"),
    "all": ("base", "kickstarter", "gencon", "stars_below"),
}

_SIGNED = {"sails": ("phase:sails",), "sands": ("sands_attached", "sands_amplified")}
"""What shows that a power without a power event of its own was offered or used (Sails'
exile itself is rarer: the crafted states below assert it)."""
_EXTRA = {
    "gencon": ("imago_seven", "fade:imago"),
    "kickstarter": ("feast_draw", "fade:feast", "fade:wish"),
    "stars_below": (
        "steal",
        "steal_nothing",
        "phase:steal",
        "phase:cost",
        "fall_announced",
        "fade:fall",
        "fade:ash",
        "fade:thief",
        "scions_hours",
    ),
}


def fire_names(family: str) -> list[str]:
    """Every count the family must reach: each new card played on, each new power used,
    and the set's special situations."""
    sets = [s for s in SETS[family] if s != "base"]
    names: list[str] = []
    for card in CARDS:
        if card.set in sets and card.id != "thief":  # nobody plays on The Thief
            names.append(f"card:{card.id}")
    for power in POWERS:
        if power.set in sets:
            names += _SIGNED.get(power.id, (f"power:{power.id}",))
    for s in sets:
        names += _EXTRA[s]
    return names


def configs(family: str, slow: bool) -> list[dict]:
    """2-5 players, leader and vote, every difficulty (all in the slow run, a spread of
    them in the fast one); the ``all`` family adds challenge mode, no reveals and a turn
    limit."""
    rows = [
        (2, "easy", "leader"),
        (3, "normal", "vote"),
        (4, "hard", "leader"),
        (5, "doomed", "vote"),
    ]
    if slow:
        rows += [
            (2, "doomed", "leader"),
            (3, "easy", "leader"),
            (4, "normal", "vote"),
            (5, "hard", "leader"),
            (3, "hard", "vote"),
            (4, "easy", "vote"),
            (5, "normal", "leader"),
        ]
    out = [
        dict(num_players=p, difficulty=d, group_decision=g, card_sets=SETS[family])
        for p, d, g in rows
    ]
    if family == "all":
        sets = SETS[family]
        out += [
            dict(num_players=2, challenge_mode=True, group_decision="vote", card_sets=sets),
            dict(num_players=3, reveal=False, card_sets=sets),
            dict(num_players=4, max_turns=6, group_decision="vote", card_sets=sets),
        ]
    return out


def run_family(
    family: str, slow: bool, games: int, steps: int, team_games: int, seed: int
) -> Counter:
    """Lucky random play in every configuration of the family, then each strong team
    in its first two; the summed counts (a mismatch fails the test at once)."""
    counts: Counter[str] = Counter()
    for i, config in enumerate(configs(family, slow)):
        runs = [(Twins.new(config, games, seed + i, lucky_chooser(0.5, 0.5)), steps)]
        if i < 2:
            for team in (("heuristic", "bayes"), ("convention", "convention")):
                choose, on_restart = team_chooser(*team, team_games)
                twins = Twins.new(config, team_games, seed + i, choose, on_restart=on_restart)
                runs.append((twins, steps))
        for twins, n in runs:
            _run_into(counts, twins, n, config)
    return counts


def _run_into(counts: Counter, twins: Twins, steps: int, where: object) -> None:
    """Run ``twins`` ``steps`` steps (a mismatch fails naming ``where``); add its counts."""
    try:
        twins.run(steps)
    except Mismatch as exc:
        raise AssertionError(f"{where}: {exc}") from None
    counts.update(twins.counts)


def assert_at_least(counts: Counter, names: Sequence[str], at_least: int, where: str) -> None:
    low = {name: counts[name] for name in names if counts[name] < at_least}
    assert not low, f"{where}: fired fewer than {at_least} times: {low}"


@pytest.mark.parametrize("family", sorted(SETS))
def test_every_card_set_agrees_with_the_reference_and_fires_every_new_rule(family: str) -> None:
    counts = run_family(family, False, games=12, steps=120, team_games=3, seed=300)
    names = fire_names(family)
    if family == "all":
        # With every set's 36 cards in play, Sails' phase is rare in this short run (once,
        # since the convention team learned ways out that avoid its cost); the stars_below
        # family and the crafted states below require it more often.
        assert_at_least(counts, ["phase:sails"], 1, family)
        names = [name for name in names if name != "phase:sails"]
    assert_at_least(counts, names, 2, family)


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(SETS))
def test_every_card_set_agrees_over_many_games(family: str) -> None:
    counts = run_family(family, True, games=16, steps=200, team_games=4, seed=3000)
    assert counts["won"] + counts["lost"] + counts["truncated"] >= 200, dict(counts)
    assert_at_least(counts, fire_names(family), 10, family)


# --- crafted states: the rarest expansion rules within a turn or two ------------------


def _crafted(config: GameConfig) -> list[State]:
    """States at seat 0's play (every set in play) that reach Sails' exile, Shadows in
    The Thief's phase, Sands on a fading card, The Ash, Skies beside an empty slot and
    The Feast at once."""
    held = {seat: 1 + seat % 7 for seat in range(1, config.num_seats)}
    return [
        # The Thief with fates to take, and two Shadows cards faded
        arrange(
            config,
            slots=["thief", "judge", "key", "dawn"],
            hand=[2, 4],
            table=[[], [3], [5], [6]],
            held=held,
            faded=["fortune", "ghost"],
        ),
        # Sails faded beside two Sparrows cards that cannot be used (no card without
        # fates): after a correct prediction nothing but Sails was possible
        arrange(
            config,
            slots=["beast", "judge", "key", "dawn"],
            hand=[3, 5],
            table=[[1], [2], [3], [4]],
            held=held,
            faded=["musicians", "prophet", "rider"],
        ),
        # Sands on a card about to fade, The Ash, Scions and Skies ready
        arrange(
            config,
            slots=["ash", "judge", "north_wind", "iron"],
            hand=[1, 6],
            table=[[], [4, 4], [1], [2]],
            held=held,
            attached={1: ["fall"]},
            faded=["feast", "asunder"],
        ),
        # an empty slot (a fate may not be moved there) with Skies faded
        arrange(
            config,
            slots=[None, "judge", "key", "dawn"],
            hand=[3, 6],
            table=[[], [2], [5], [1]],
            held=held,
            faded=["lantern", "thief"],
        ),
        # The Feast and The Thief in play, 7s in front of The Imago and The Wish
        arrange(
            config,
            slots=["feast", "thief", "wish", "imago"],
            hand=[2, 5],
            table=[[], [], [7], [7]],
            held=held,
            faded=["iron", "captain"],
        ),
    ]


CRAFTED_CONFIGS = [
    dict(num_players=p, difficulty=d, group_decision=g, card_sets="all")
    for p, d, g in [(2, "easy", "leader"), (3, "normal", "vote"), (4, "easy", "leader")]
]
CRAFTED_FIRES = (
    "exile",
    "phase:sails",
    "phase:cost",
    "shadows_in_steal",
    "steal",
    "sands_amplified",
    "fade:ash",
    "feast_draw",
    "imago_seven",
    "power:skies",
)


def _run_crafted(copies: int, steps: int, seed: int) -> Counter:
    counts: Counter[str] = Counter()
    for i, kwargs in enumerate(CRAFTED_CONFIGS):
        config = GameConfig(**kwargs)  # type: ignore[arg-type]
        states = [copy.deepcopy(s) for s in _crafted(config) for _ in range(copies)]
        _run_into(
            counts, twins_from_states(states, seed + i, lucky_chooser(0.7, 0.9)), steps, kwargs
        )
    return counts


def test_crafted_expansion_states_agree_and_reach_the_rarest_rules() -> None:
    counts = _run_crafted(copies=6, steps=25, seed=90)
    assert_at_least(counts, CRAFTED_FIRES, 2, "crafted states")


@pytest.mark.slow
def test_crafted_expansion_states_agree_over_many_streams() -> None:
    counts = _run_crafted(copies=30, steps=40, seed=190)
    assert_at_least(counts, CRAFTED_FIRES, 20, "crafted states")
