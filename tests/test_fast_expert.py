"""Expert iteration's trainer pieces (issue 40, item 3): the search's decisions recorded
with the network input the blueprint read, and their distillation."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
import torch

from shipwreck_agents.learned.actor_critic import load_sb3
from shipwreck_agents.models import model_path
from shipwreck_env.config import GameConfig
from shipwreck_training.fast import expert
from shipwreck_training.fast.imitation import Recording

BEST = str(model_path("fast_selfplay_imitation_150M_carry"))


pytestmark = pytest.mark.slow  # search games on the reference engine: a minute or two


@pytest.fixture(scope="module")
def recorded() -> tuple[Recording, dict]:
    config = GameConfig(num_players=3, difficulty="doomed")
    # every decision searched (uncertain 1.0), no margin: the search changes many
    return expert.record_search(BEST, [config], 2, 77, samples=3, margin=0.0, uncertain=1.0)


def test_each_row_is_the_input_the_blueprint_read(recorded) -> None:
    """Where the search kept the blueprint's action, the network's greedy action on the
    recorded input is that action: the input is the one the blueprint decided from (its
    belief block written in for a group decision). Planting the raw observation instead
    fails this on the group's rows."""
    data, counts = recorded
    model = load_sb3(BEST)
    greedy = model.greedy(torch.from_numpy(data.obs), torch.from_numpy(data.masks)).numpy()
    assert (greedy == data.taken).all()
    kept = data.note == 0
    assert (data.actions[kept] == data.taken[kept]).all()
    assert (~data.play).sum() >= 5 and data.play.sum() >= 5
    assert counts["doomed"]["decisions"] == len(data)


def test_the_changed_rows_are_the_search_s_choices(recorded) -> None:
    data, counts = recorded
    changed = data.note == 1
    assert changed.sum() == counts["doomed"]["changed"] > 0
    assert (data.actions[changed] != data.taken[changed]).all()
    assert data.masks[np.arange(len(data)), data.actions].all()  # every label is legal


def test_the_recording_is_the_same_for_the_same_seed(recorded) -> None:
    data, _ = recorded
    again, _ = expert.record_search(
        BEST,
        [GameConfig(num_players=3, difficulty="doomed")],
        2,
        77,
        samples=3,
        margin=0.0,
        uncertain=1.0,
    )
    assert np.array_equal(again.actions, data.actions)
    assert np.array_equal(again.obs, data.obs)


def test_distillation_weights_the_changed_rows_and_learns_them(recorded, monkeypatch) -> None:
    data, _ = recorded
    model = load_sb3(BEST)
    sizes = []
    real = expert.fit_policy

    def spy(model, fitted, settings, generator, anneal=False):
        sizes.append(len(fitted))
        return real(model, fitted, settings, generator, anneal)

    monkeypatch.setattr(expert, "fit_policy", spy)
    fit = expert.distil(model, data, epochs=30, learning_rate=1e-3, changed_weight=5)
    changed = int((data.note == 1).sum())
    assert sizes == [len(data) + 4 * changed]
    assert fit["agreement_before"]["changed"] == 0.0  # the blueprint chose otherwise
    assert fit["agreement_after"]["changed"] > 0.5


def test_a_changed_weight_below_one_is_refused(recorded) -> None:
    with pytest.raises(ValueError, match="changed_weight=0: allowed a whole number >= 1"):
        expert.distil(load_sb3(BEST), recorded[0], epochs=1, learning_rate=1e-3, changed_weight=0)
