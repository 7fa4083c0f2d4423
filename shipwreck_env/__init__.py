"""Shipwreck Arcana: an exact rules engine and a PettingZoo / Gymnasium environment.

``import shipwreck_env`` registers the Gymnasium ids (Gymnasium >= 1.0 has no
entry-point plugins, so registration happens here):

* ``ShipwreckArcana-v0`` -- self-play: one learner decides for whichever player must;
* ``ShipwreckArcana-Play-v0`` -- the learner is every active player, partners the group;
* ``ShipwreckArcana-Predict-v0`` -- the learner is the group, partners the active player.

``shipwreck_env.env(**config)`` / ``raw_env(**config)`` give the PettingZoo AEC env.
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from shipwreck_env.aec_env import env, raw_env
from shipwreck_env.config import GameConfig

__all__ = ["GameConfig", "env", "raw_env"]
__version__ = "0.1.0"

_GYM_IDS = {
    "ShipwreckArcana-v0": "self",
    "ShipwreckArcana-Play-v0": "play",
    "ShipwreckArcana-Predict-v0": "predict",
}
for _env_id, _role in _GYM_IDS.items():
    if _env_id not in registry:
        register(
            id=_env_id,
            entry_point="shipwreck_env.gym_env:ShipwreckGymEnv",
            vector_entry_point=(
                "shipwreck_env.vector.gym_vector:ShipwreckVectorEnv" if _role == "self" else None
            ),
            kwargs={"role": _role},
        )
