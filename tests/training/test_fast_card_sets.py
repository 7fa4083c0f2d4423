"""The fast trainer on every card set (``env.card_sets: all``): a short real training."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("torchrl")

from shipwreck_env.rules.cards import CARDS
from shipwreck_env.rules.config import GameConfig
from shipwreck_training.fast.config import from_dict
from shipwreck_training.fast.run import train


def _config(card_sets: str):
    return from_dict(
        {
            "name": "all_sets",
            "num_games": 32,
            "rollout_steps": 8,
            "total_steps": 512,
            "checkpoint_every": 256,
            "torch_threads": 1,
            "env": {"card_sets": card_sets, "belief": "policy"},
            "ppo": {"minibatch_size": 64, "hidden": [32, 32], "epochs": 1},
            "eval": {"every": 0, "games": 4},
        }
    )


def _cards_seen(trainer) -> set[str]:
    """Card sets of every card on a slot, in the deck or faded, in every game now."""
    seen = set()
    for part in trainer.games.parts:
        a = part.arrays
        for cards in (a.slots, a.deck, a.faded):
            seen.update(CARDS[int(c)].set for c in np.unique(cards) if c >= 0)
    return seen


def test_fast_trainer_trains_on_every_card_set(tmp_path):
    trainer = train(_config("all"), tmp_path / "run")
    assert trainer.global_step == 512
    assert _cards_seen(trainer) == {"base", "kickstarter", "gencon", "stars_below"}
    all_sets = GameConfig(num_players=3, card_sets="all").to_dict()["card_sets"]
    meta = json.loads((tmp_path / "run" / "model.meta.json").read_text())
    assert meta["card_sets"] == all_sets  # the exported team refuses a base-only game
    assert trainer.model.obs_dim == trainer.games.layout.size


def test_base_training_sees_only_base_cards(tmp_path):
    """The other side of the test above: the check can tell the settings apart."""
    trainer = train(_config("base"), tmp_path / "run")
    assert _cards_seen(trainer) == {"base"}
