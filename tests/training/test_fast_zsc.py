"""Random partners for zero-shot coordination in the fast trainer (shipwreck_training.fast.zsc)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from test_fast_ppo import _config  # noqa: E402

from shipwreck_env.rules.state import Phase  # noqa: E402
from shipwreck_training.fast.ppo import Trainer  # noqa: E402
from shipwreck_training.fast.run import train  # noqa: E402
from shipwreck_training.fast.zsc import RandomPartners  # noqa: E402

ZSC = {"method": "random_partner", "prob": 0.5}


def test_random_partners_replace_only_their_own_plays_with_legal_actions():
    trainer = Trainer(_config(num_games=64))
    games = trainer.games
    partners = RandomPartners(games.num_games, games.num_players, 0.5, seed=0)
    replaced = kept = 0
    for _ in range(40):
        obs, mask = trainer._observe()
        chosen = trainer.model.greedy(torch.from_numpy(obs), torch.from_numpy(mask)).numpy()
        learn = np.ones(games.num_games, bool)
        actions, learn_after = partners.apply(games, chosen, mask, learn)
        decider = games.field("decider").astype(np.int64)
        playing = games.field("phase") == Phase.PLAY
        noisy = playing & partners.random_seat[np.arange(games.num_games), decider]
        assert (learn_after == ~noisy).all()
        assert (actions[~noisy] == chosen[~noisy]).all()
        assert mask[np.arange(games.num_games), actions].all()
        replaced += int((actions != chosen).sum())
        kept += int(noisy.sum())
        _, _, _, info = games.step(actions)
        partners.restart(np.flatnonzero(info["_final"]))
    assert replaced > 0 and kept > replaced // 2


def test_each_game_draws_its_random_partners_anew_at_its_start():
    partners = RandomPartners(2000, 3, 0.25, seed=1)
    assert abs(partners.random_seat.mean() - 0.25) < 0.02
    before = partners.random_seat.copy()
    partners.restart(np.arange(1000))
    assert (partners.random_seat[1000:] == before[1000:]).all()
    assert (partners.random_seat[:1000] != before[:1000]).any()


def resumes_exactly_and_learns_fewer_steps(zsc: dict, tmp_path) -> None:
    """A run with ``zsc`` stopped and resumed ends with the parameters of a straight run,
    and one rollout of it counts fewer learner steps than plain self-play's (the
    partners' decisions are not learned)."""
    cfg = _config(env={"belief": "policy"}, zsc=zsc)
    straight = train(cfg, tmp_path / "a")
    train(cfg, tmp_path / "b", stop_after=256)
    resumed = train(cfg, tmp_path / "b", resume=True)
    assert resumed.global_step == straight.global_step
    for p, q in zip(straight.model.parameters(), resumed.model.parameters(), strict=True):
        assert torch.equal(p, q)
    plain = Trainer(_config(env={"belief": "policy"}))
    mixed = Trainer(cfg)
    plain.collect(), mixed.collect()
    assert mixed.global_step < plain.global_step


def test_a_zsc_run_resumes_exactly_and_counts_only_the_learners_steps(tmp_path):
    resumes_exactly_and_learns_fewer_steps(ZSC, tmp_path)


def test_a_bad_zsc_setting_is_refused():
    with pytest.raises(ValueError, match="zsc"):
        _config(zsc={"method": "other_play"})
    with pytest.raises(ValueError, match="zsc"):
        _config(zsc={"method": "random_partner", "prob": 0.0})


def test_random_partners_plays_are_recorded_by_the_learners_belief():
    partners = RandomPartners(4, 3, 0.5, seed=0)
    chosen = np.array([3, 5, 7, 9])
    learn = np.array([True, False, True, False])
    assert partners.belief_actions(chosen, learn).tolist() == [3, 5, 7, 9]
