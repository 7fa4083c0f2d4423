"""The ceiling measurements of the convention (lab/studies/convention_ceiling.py) and the
search problem they read (``codebook.code_problem``)."""

from __future__ import annotations

import pytest
from conftest import load_script

from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.state import Phase

pytest.importorskip("scipy")  # the bound's integer program (scipy.optimize.milp)


@pytest.fixture(scope="module")
def ceiling():
    # it imports its sibling convention_losses
    return load_script("convention_ceiling")


def test_code_problem_lists_the_hands_and_weights_the_code_uses(ceiling):
    """The problem the ceiling reads is the one the shipped code was chosen on: same
    hands, same weights, one line per hand among that hand's options."""
    config = GameConfig(num_players=3, difficulty="doomed")
    player = ConventionPolicy()
    seen = []

    def before(s):
        first = s.phase == Phase.PLAY and not s.plays and not s.power_used
        if first and ceiling.forced(s):
            view = ceiling.make_view(s, s.decider)
            code = player.convention(view)
            hands, weights, options, _, forced = ceiling._problem(player, view)
            assert tuple(hands) == code.hands
            assert weights == pytest.approx(code.weights)
            lines = zip(code.before, code.choice, code.power, code.steal, strict=True)
            for opts, line in zip(options, lines, strict=True):
                assert any(shows == line for shows, _, _ in opts)
            seen.append(sum(forced))

    ceiling._play(config, 1, 4, ceiling.Team(player, ConventionPolicy()), before, lambda *a: 0)
    assert seen and all(n > 0 for n in seen)  # a forced turn has forced hands


def test_bound_is_above_what_the_shipped_and_restarted_codes_read(ceiling):
    config = GameConfig(num_players=3, difficulty="doomed")
    report = ceiling.forced_turns(config, seed=1, games=4, options={}, restarts=2)
    assert report["forced mass"] > 0
    bound = report["forced mass read, bound"]
    assert report["forced mass"] + 1e-9 >= bound
    assert bound + 1e-9 >= report["forced mass read, shipped"]
    assert bound + 1e-9 >= report["forced mass read, restarts"]


def test_tie_ahead_is_off_by_default():
    assert ConventionPolicy().settings.tie_ahead == 0.0
