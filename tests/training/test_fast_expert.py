"""Expert iteration's trainer pieces (issue 40, item 3): the search's decisions recorded
with the network input the blueprint read, and their distillation."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
import torch

from shipwreck_agents.learned.actor_critic import load_sb3
from shipwreck_agents.models import model_path
from shipwreck_env.rules.config import GameConfig
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


def _save(data: Recording, path, difficulty: str = "doomed", **search) -> str:
    """``data`` saved as ``--save-recording`` writes it, with made-up counts."""
    data.save(path)
    settings = {"samples": 3, "margin": 0.0, "uncertain": 1.0, "phases": ["play", "group"]}
    counts = {
        difficulty: {
            "games": 1,
            "wins": 1,
            "decisions": len(data),
            "searched": 2,
            "changed": int((data.note == 1).sum()),
            "cpu_seconds": 0.5,
        }
    }
    made = {"command": f"record {path}", "recording": counts, **settings, **search}
    expert._counts_path(path).write_text(json.dumps(made))
    return str(path)


def test_saved_recordings_join_in_order_with_their_counts_summed(recorded, tmp_path) -> None:
    """Recordings made by separate processes (``--record-only``) are distilled together:
    joined in the order given, counts summed, the search settings and commands kept."""
    data, _ = recorded
    half = len(data) // 2
    first = _save(data.take(slice(0, half)), tmp_path / "a.npz")
    second = _save(data.take(slice(half, None)), tmp_path / "b.npz")
    joined, counts, made = expert.join_recordings([first, second])
    assert np.array_equal(joined.obs, data.obs) and np.array_equal(joined.note, data.note)
    assert counts["doomed"]["decisions"] == len(data) and counts["doomed"]["games"] == 2
    assert made["recordings"] == [first, second] and made["samples"] == 3
    assert made["recording_commands"] == [f"record {first}", f"record {second}"]


def test_recordings_that_do_not_match_are_refused(recorded, tmp_path) -> None:
    data, _ = recorded
    first = _save(data, tmp_path / "a.npz")
    hard = _save(data, tmp_path / "b.npz", difficulty="hard")
    with pytest.raises(ValueError, match=r"difficulties \['hard'\]; allowed: .*\['doomed'\]"):
        expert.join_recordings([first, hard])
    wider = _save(data, tmp_path / "c.npz", samples=32)
    with pytest.raises(ValueError, match="allowed: the same search settings"):
        expert.join_recordings([first, wider])
    data.save(tmp_path / "bare.npz")
    with pytest.raises(ValueError, match=r"needs the \.npz and its bare\.counts\.json"):
        expert.join_recordings([first, str(tmp_path / "bare.npz")])


def test_the_command_line_records_apart_and_distils_the_joined_recordings(tmp_path) -> None:
    """Two ``--record-only`` runs write their recordings and counts and no network;
    ``--recordings`` then distils exactly what ``distil`` fits on their join (distilling
    only the first recording fails this)."""
    files = []
    for seed in (5, 6):
        path = tmp_path / f"r{seed}.npz"
        args = ["--model", BEST, "--games", "1", "--difficulties", "doomed", "--seed", str(seed)]
        args += ["--samples", "3", "--margin", "0", "--uncertain", "1.0"]
        assert expert.main([*args, "--save-recording", str(path), "--record-only"]) == 0
        assert path.is_file() and expert._counts_path(path).is_file()
        files.append(str(path))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "r5.counts.json",
        "r5.npz",
        "r6.counts.json",
        "r6.npz",
    ]
    out = tmp_path / "round.pth"
    fit = ["--epochs", "2", "--learning-rate", "0.001", "--changed-weight", "3", "--seed", "9"]
    argv = ["--model", BEST, "--out", str(out), "--recordings", ",".join(files), *fit]
    assert expert.main(argv) == 0
    joined = Recording.join([Recording.load(f) for f in files])
    model = load_sb3(BEST)
    expert.distil(model, joined, epochs=2, learning_rate=1e-3, changed_weight=3, seed=9)
    made = load_sb3(str(out))
    for mine, theirs in zip(model.parameters(), made.parameters(), strict=True):
        assert torch.equal(mine, theirs)
    info = json.loads(out.with_suffix(".meta.json").read_text())["expert_iteration"]
    assert info["recordings"] == files and info["samples"] == 3 and info["uncertain"] == 1.0
    assert info["recording"]["doomed"]["games"] == 2


def test_the_command_line_refuses_what_it_cannot_do(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit):
        expert.main(["--model", BEST, "--record-only"])
    assert "--record-only needs --save-recording" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        expert.main(["--model", BEST])
    assert "--out FILE.pth is needed unless --record-only" in capsys.readouterr().err
    assert (
        expert.main(
            [
                "--model",
                BEST,
                "--out",
                str(tmp_path / "x.pth"),
                "--recordings",
                str(tmp_path / "none.npz"),
            ]
        )
        == 2
    )
    assert "none.counts.json beside it" in capsys.readouterr().err
    assert not (tmp_path / "x.pth").exists()
