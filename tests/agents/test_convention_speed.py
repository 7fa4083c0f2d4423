"""The convention's fast paths decide exactly as before.

The codebook behind the convention (agents/convention/codebook.py) was made faster by
memoising pure functions and by computing a play's outcome and fades once for every
hand that shows the same. None of that may change a decision, so:

- recorded games: the action sequences of games played by the convention team before
  the speed-up (tests/golden/convention_actions.json, written by the code of commit
  0db2dec) must come out the same, action for action;
- each shortcut is compared with the engine function it stands for, on the tables of
  real games (and the Bayesian group's cached question answers with their definition).

When a change to the convention is meant to change its decisions, record the games
again with ``.venv/bin/python tests/agents/test_convention_speed.py --write`` and say so in
the commit.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from shipwreck_agents.base import Team
from shipwreck_agents.convention.lines import Lines
from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.evaluation.evaluate import game_seed, play_game
from shipwreck_agents.scripted.bayes import _question
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.public_record import fading_after, hand_plays, play_outcome
from shipwreck_env.rules.questions import QUESTIONS, yes_values
from shipwreck_env.rules.state import Phase
from shipwreck_env.rules.view import make_view

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden" / "convention_actions.json"
SEED = 5
GAMES = 15  # per card set and difficulty
PLAN = [
    (cards, difficulty) for cards in ("base", "all") for difficulty in ("normal", "hard", "doomed")
]


def record(make_policy=ConventionPolicy, games: int = GAMES) -> dict[str, str]:
    """``{"cards/difficulty/game": sha256 of the game's actions}`` of the convention team
    built by ``make_policy`` on games ``0 .. games - 1`` of seed :data:`SEED` (3 players)."""
    out = {}
    for cards, difficulty in PLAN:
        config = GameConfig(num_players=3, difficulty=difficulty, card_sets=cards)
        team = Team(make_policy(), make_policy())
        for i in range(games):
            actions: list[int] = []
            play_game(config, team, game_seed(SEED, difficulty, i), actions)
            text = json.dumps(actions).encode()
            out[f"{cards}/{difficulty}/{i}"] = hashlib.sha256(text).hexdigest()
    return out


def test_convention_plays_the_recorded_games_action_for_action():
    recorded = json.loads(GOLDEN.read_text())
    assert len(recorded) == GAMES * len(PLAN)
    played = record()
    changed = sorted(k for k in recorded if played[k] != recorded[k])
    assert not changed, f"games whose actions changed: {changed}"


def _turn_starts(config: GameConfig, games: int, seed: int):
    """The view of every turn's first play in ``games`` games of the convention team."""
    team = Team(ConventionPolicy(), ConventionPolicy())
    for g in range(games):
        rng = np.random.default_rng([seed, g])
        s = new_game(config, rng)
        team.reset()
        while not s.over:
            policy = team.play if s.decider == s.active_player else team.group
            view = make_view(s, s.decider)
            if s.phase == Phase.PLAY and not s.turn_actions:
                yield view
            mask = np.zeros(len(ACTIONS), dtype=np.int8)
            mask[legal_actions(s)] = 1
            step_inplace(s, policy.act(None, mask, view, rng), rng)


@pytest.mark.parametrize("cards", ["base", "all"])
def test_shared_play_outcomes_and_fades_match_the_engine(cards):
    """Lines.outcome and Lines.fading (computed once per play, a Sinners removal
    patched in) equal play_outcome and fading_after for every hand, play and removal."""
    config = GameConfig(num_players=3, difficulty="doomed", card_sets=cards)
    checked = 0
    for view in _turn_starts(config, 3, seed=11):
        start = view.turn_start
        lines = Lines(start, 0.01, (0.95, 2), 0.005, True, True)
        for a in range(1, 8):
            for b in range(a, 8):
                for action in hand_plays(start, (a, b), lines.rows):
                    value, target = ACTIONS[action].value, ACTIONS[action].slot
                    for kept in {a, b} - {value} or {value}:
                        out = play_outcome(start, value, target, kept)
                        assert lines.outcome(value, target, kept) == out
                        assert lines.fading(out) == fading_after(start, out)
                        for slot, fates in enumerate(start.table):
                            shown = fates + ((value,) if out.landed == slot else ())
                            for v in set(shown):
                                removed = (slot, v)
                                assert lines.fading(out, removed) == fading_after(
                                    start, out, removed
                                )
                                checked += 1
    assert checked > 100


def test_cached_question_masks_match_their_definition():
    """bayes._question keeps its answers: they equal the yes-values of the question,
    asked again, and no caller can change them."""
    config = GameConfig(num_players=3, difficulty="hard", card_sets="all")
    checked = 0
    for view in _turn_starts(config, 2, seed=4):
        for spec in ACTIONS:
            if spec.kind == "power" and spec.power in QUESTIONS and spec.power != "shackles":
                for _ in range(2):  # the first builds the answer, the second reads it
                    got = _question(view, spec)
                    yes = yes_values(spec.power, spec.value, view.shadows)
                    assert got.tolist() == [v in yes for v in range(1, 8)]
                    assert not got.flags.writeable
                    checked += 1
    assert checked > 20


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/agents/test_convention_speed.py --write")
    GOLDEN.write_text(json.dumps(record(), indent=0, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
