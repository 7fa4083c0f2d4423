"""Behaviour cloning of the convention team (shipwreck_training.fast.imitation)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from shipwreck_training.common.games import Games, ScriptedRole, learner_decides  # noqa: E402
from shipwreck_training.common.greedy_eval import evaluate_greedy  # noqa: E402
from shipwreck_training.fast.config import ImitationSettings, load_config  # noqa: E402
from shipwreck_training.fast.imitation import (  # noqa: E402
    Recording,
    agreement,
    dagger,
    fit_policy,
    imitate,
    record_games,
    record_teacher,
    same_deals,
)
from shipwreck_training.fast.ppo import Trainer  # noqa: E402

CONFIG = "configs/fast/imitation.yaml"


def _trainer(*overrides: str) -> Trainer:
    return Trainer(load_config(CONFIG, ["torch_threads=1", "num_games=32", *overrides]))


@pytest.mark.slow
def test_the_fit_copies_the_convention_group_not_only_its_passes():
    # PPO's minibatch (2,048 in this config) gave a fit of one step per epoch: the group
    # only ever passed, and a group that never predicts loses every game
    trainer = _trainer("env.belief=literal")
    settings = ImitationSettings(play="convention", group="convention", steps=2048, epochs=30)
    figures = imitate(trainer, settings)
    assert figures["decisions"] == 2048
    assert figures["agreement_group"] > 0.85 and figures["agreement_play"] > 0.85


def test_with_the_policy_belief_group_decisions_carry_the_networks_block():
    trainer = _trainer()
    settings = ImitationSettings(play="convention", group="convention", steps=768)
    literal = record_teacher(trainer, settings)
    policy = record_teacher(trainer, settings, belief_model=trainer.model)
    block = trainer.games.layout.offsets["belief"]
    # the teacher plays the same games: only group blocks may differ, and some do
    np.testing.assert_array_equal(literal.actions, policy.actions)
    np.testing.assert_array_equal(literal.obs[:, :block], policy.obs[:, :block])
    changed = (literal.obs[:, block:] != policy.obs[:, block:]).any(1)
    assert changed.any() and not (changed & literal.play).any()


def test_agreement_counts_the_player_and_the_group_apart():
    trainer = _trainer("env.belief=literal")
    data = record_teacher(trainer, ImitationSettings(steps=256))
    split = agreement(trainer.model, data)
    share = data.play.mean()
    assert split["all"] == pytest.approx(share * split["play"] + (1 - share) * split["group"])


def test_the_fit_brings_the_value_to_the_teachers_returns():
    trainer = _trainer("env.belief=literal")
    data = record_teacher(trainer, ImitationSettings(steps=1024))
    known = ~np.isnan(data.returns)
    assert known.any() and not known.all()  # the last games are cut by the recording

    def value_error() -> float:
        with torch.no_grad():
            value = trainer.model.value(torch.from_numpy(data.obs[known])).numpy()
        return float(((value - data.returns[known]) ** 2).mean())

    before = value_error()
    fit_policy(trainer.model, data, ImitationSettings(steps=1024, epochs=20), torch.Generator())
    assert value_error() < 0.5 * before


def _replayed_labels(cfg, data: Recording, num_games: int, seed_offset: int) -> np.ndarray:
    """The teacher's choice at each recorded decision, found by replaying the recorded
    actions (``taken``) on fresh games of the same seed with a fresh teacher, kept in
    step with the games as they were played; each state must be the one recorded."""
    games = Games(cfg.env, num_games, cfg.seed + seed_offset)
    play = ScriptedRole(cfg.imitation.play, num_games, cfg.seed + 1)
    group = ScriptedRole(cfg.imitation.group, num_games, cfg.seed + 2)
    labels = []
    for i in range(0, len(data), num_games):
        rows = slice(i, i + num_games)
        np.testing.assert_array_equal(games.observe(), data.obs[rows])
        active = learner_decides(games, "play")
        label = np.zeros(num_games, np.int64)
        for role, which in ((play, np.flatnonzero(active)), (group, np.flatnonzero(~active))):
            if len(which):
                label[which] = role.act(games, which)
        labels.append(label)
        info = games.step(data.taken[rows])[3]
        play.restart(np.flatnonzero(info["_final"]))
        group.restart(np.flatnonzero(info["_final"]))
    return np.concatenate(labels)


def test_dagger_labels_are_the_conventions_act_on_the_states_the_network_reached():
    trainer = _trainer("env.belief=literal")
    cfg = trainer.cfg
    torch.manual_seed(3)
    data = record_games(
        cfg, ImitationSettings(steps=32 * 40), actor=trainer.model, num_games=32, seed_offset=11
    )
    # the network played (its greedy actions) and the teacher would often not have
    with torch.no_grad():
        greedy = trainer.model.greedy(torch.from_numpy(data.obs), torch.from_numpy(data.masks))
    np.testing.assert_array_equal(data.taken, greedy.numpy())
    assert (data.taken != data.actions).mean() > 0.2
    np.testing.assert_array_equal(data.actions, _replayed_labels(cfg, data, 32, 11))


def test_without_a_network_the_teacher_plays_its_own_labels():
    cfg = _trainer("env.belief=literal").cfg
    data = record_games(cfg, ImitationSettings(steps=32 * 10), num_games=32, seed_offset=5)
    np.testing.assert_array_equal(data.taken, data.actions)
    assert set(np.unique(data.difficulty)) == set(range(len(cfg.env.difficulties)))


def test_a_dagger_round_adds_the_networks_own_games_to_the_data():
    trainer = _trainer("env.belief=literal")
    cfg = trainer.cfg
    teacher = record_games(cfg, ImitationSettings(steps=512), num_games=32)
    before = type(trainer.model)(trainer.obs_dim, trainer.model.num_actions, cfg.ppo.hidden)
    before.load_state_dict(trainer.model.state_dict())
    seen = []
    union = dagger(
        trainer.model,
        cfg,
        ImitationSettings(steps=0, epochs=1),
        teacher,
        rounds=1,
        steps=512,
        generator=torch.Generator().manual_seed(0),
        num_games=32,
        on_round=lambda r, figures, data: seen.append(figures),
    )
    assert len(union) == 1024 and seen[0]["decisions"] == 1024
    fresh = union.take(slice(512, None))
    with torch.no_grad():  # the new states are those of the network as it was
        greedy = before.greedy(torch.from_numpy(fresh.obs), torch.from_numpy(fresh.masks))
    np.testing.assert_array_equal(fresh.taken, greedy.numpy())
    assert (fresh.taken != fresh.actions).any()
    assert seen[0]["on_policy_before_fit"] == pytest.approx((fresh.taken == fresh.actions).mean())
    # and the fit moved the network towards the labels of the union
    assert not torch.equal(before.action_net.weight, trainer.model.action_net.weight)


def test_same_deals_counts_the_wins_the_greedy_evaluation_counts():
    trainer = _trainer("env.belief=literal")
    cfg = trainer.cfg
    won = same_deals(cfg, 99, 4, ("normal", "hard"), model=trainer.model)
    greedy = evaluate_greedy(
        trainer.model, cfg.env, games=4, seed=99, difficulties=("normal", "hard")
    )
    assert {d: int(w.sum()) for d, w in won.items()} == {d: r["wins"] for d, r in greedy.items()}


def test_a_recording_survives_saving(tmp_path):
    cfg = _trainer("env.belief=literal").cfg
    data = record_games(cfg, ImitationSettings(steps=64), num_games=32)
    data.save(tmp_path / "r.npz")
    back = Recording.load(tmp_path / "r.npz")
    for name in ("obs", "masks", "actions", "play", "returns", "difficulty", "taken", "note"):
        np.testing.assert_array_equal(getattr(back, name), getattr(data, name))
