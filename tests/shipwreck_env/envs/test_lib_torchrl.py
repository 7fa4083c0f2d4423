"""First contact with TorchRL, the way its documentation says.

``PettingZooWrapper(env=shipwreck_env.env(), use_mask=True)`` (TorchRL's own example
for an AEC env such as tic-tac-toe: one group per player, a ``mask`` of who acts),
``check_env_specs`` and a rollout. TorchRL builds the ``info`` entries of its specs
from the info ``reset()`` leaves, so the end-of-game info (``score``, ``doom``, ``won``)
reaches the tensordict only if the env puts those keys there from the start (issue 38,
problem 3); ``action_mask`` in the info or the observation becomes the group's mask.

Versions tested: torchrl 0.14, tensordict 0.14 (``.venv``). Docs page:
``docs/libraries/torchrl.md``.
"""

from __future__ import annotations

import pytest
import torch
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import check_env_specs

import shipwreck_env

GROUPS = ("player_0", "player_1", "player_2")


def _wrapped(seed: int = 0) -> PettingZooWrapper:
    return PettingZooWrapper(
        env=shipwreck_env.env(num_players=3, difficulty="easy"), use_mask=True, seed=seed
    )


def test_one_group_per_player_with_mask_and_action_mask() -> None:
    env = _wrapped()
    assert sorted(env.group_map) == list(GROUPS)
    for group in GROUPS:
        keys = env.observation_spec[group].keys(True, True)
        assert "mask" in keys and "action_mask" in keys
    env.close()


def test_check_env_specs_passes() -> None:
    env = _wrapped()
    check_env_specs(env, seed=0)
    env.close()


def test_the_info_spec_carries_the_end_of_game_info() -> None:
    """``score``, ``doom`` and ``won`` are in every group's ``info`` spec (built from the
    reset info)."""
    env = _wrapped()
    for group in GROUPS:
        assert {"score", "doom", "won"} <= set(env.observation_spec[group, "info"].keys())
    env.close()


def test_a_rollout_ends_a_game_with_score_doom_and_won() -> None:
    """A random rollout long enough to end games; at each end the tensordict holds the
    ended game's counts: seven points (won) or seven doom or more (lost), and ``won``
    says which."""
    env = _wrapped(seed=3)
    torch.manual_seed(0)
    # masked random actions: TorchRL's rollout samples the action spec, which carries
    # the action mask (use_mask=True), so only legal actions are drawn
    rollout = env.rollout(400, break_when_any_done=False)
    ends = 0
    for group in GROUPS:
        done = rollout["next", group, "done"].squeeze(-1).squeeze(-1)
        info = rollout["next", group, "info"][done]
        for score, doom, won in zip(info["score"], info["doom"], info["won"], strict=True):
            assert int(score) >= 7 or int(doom) >= 7
            assert bool(won) == (int(score) >= 7)
            ends += 1
    assert ends > 0
    # the reward is the team's and every player's is the same at an end
    rewards = torch.stack([rollout["next", g, "reward"] for g in GROUPS])
    done = rollout["next", "done"].squeeze(-1)
    assert (rewards[..., done, :, :] != 0).all()
    env.close()


@pytest.mark.parametrize("seed", [0, 1])
def test_a_rollout_is_reproducible(seed: int) -> None:
    rollouts = []
    for _ in range(2):
        env = _wrapped(seed=seed)
        torch.manual_seed(seed)
        rollouts.append(env.rollout(100, break_when_any_done=False))
        env.close()
    for group in GROUPS:
        torch.testing.assert_close(
            rollouts[0]["next", group, "observation"], rollouts[1]["next", group, "observation"]
        )
