"""Shipwreck Arcana: an exact rules engine and a PettingZoo / Gymnasium environment.

Three rooms, each a subpackage whose docstring lists what lives there, stacked so that
imports point down only:

* :mod:`shipwreck_env.envs` -- the environments: the AEC env, the Gymnasium ids and
  their vector envs, the policy interface they take, rendering;
* :mod:`shipwreck_env.vector` -- the compiled rules: the batched engine
  (:class:`~shipwreck_env.vector.VectorGame`), its kernels, arrays and conversion;
* :mod:`shipwreck_env.rules` -- the reference rules: cards, state, the engine, the
  turn's parts, observations, saving and scenarios.

The rules and the batched engine need neither gymnasium nor pettingzoo: importing this
package loads neither of them itself. The RL adapters sit on top and load on first use.
Modules imported by their paths from before the rooms (``shipwreck_env.engine``) still
load, with a ``DeprecationWarning`` naming the new path (:mod:`shipwreck_env._moved`).

When gymnasium is installed, ``import shipwreck_env`` registers the Gymnasium ids
(Gymnasium >= 1.0 has no entry-point plugins, so registration happens here):

* ``ShipwreckArcana-v0`` -- self-play: one learner decides for whichever player must;
* ``ShipwreckArcana-Play-v0`` -- the learner is every active player, partners the group;
* ``ShipwreckArcana-Predict-v0`` -- the learner is the group, partners the active player.

Each id also has a batched vector env, the default of ``gymnasium.make_vec``:
:class:`~shipwreck_env.envs.gym_vector.ShipwreckVectorEnv` for self-play and
:class:`~shipwreck_env.envs.gym_roles.ShipwreckRoleVectorEnv` for the other two.

``shipwreck_env.env(**config)`` / ``raw_env(**config)`` give the PettingZoo AEC env
(imported from :mod:`shipwreck_env.envs.aec_env` when first asked for; needs pettingzoo).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from shipwreck_env import _moved
from shipwreck_env.rules.config import GameConfig

if TYPE_CHECKING:  # for type checkers and editors; at run time they load on first use
    from shipwreck_env.envs.aec_env import env, raw_env

__all__ = ["GameConfig", "env", "raw_env"]
__version__ = "0.1.0"

_GYM_IDS = {
    "ShipwreckArcana-v0": "self",
    "ShipwreckArcana-Play-v0": "play",
    "ShipwreckArcana-Predict-v0": "predict",
}
_VECTOR_ENTRY_POINTS = {
    "self": "shipwreck_env.envs.gym_vector:ShipwreckVectorEnv",
    "play": "shipwreck_env.envs.gym_roles:ShipwreckRoleVectorEnv",
    "predict": "shipwreck_env.envs.gym_roles:ShipwreckRoleVectorEnv",
}
"""Role -> the batched vector env ``gymnasium.make_vec(..., "vector_entry_point")`` makes."""
_LAZY = {"env": "shipwreck_env.envs.aec_env", "raw_env": "shipwreck_env.envs.aec_env"}
"""Public names of the RL adapters -> the module that defines them (loaded on first use,
so that the rules import without pettingzoo)."""


def _register_gym_ids() -> None:
    """Register the Gymnasium ids when gymnasium is installed, each with its single env
    and its batched vector env; only entry-point strings, so no adapter is imported
    here."""
    try:
        from gymnasium.envs.registration import register, registry
    except ModuleNotFoundError as error:
        if error.name == "gymnasium":  # the rules alone: nothing to register with
            return
        raise
    for env_id, role in _GYM_IDS.items():
        if env_id not in registry:
            register(
                id=env_id,
                entry_point="shipwreck_env.envs.gym_env:ShipwreckGymEnv",
                vector_entry_point=_VECTOR_ENTRY_POINTS[role],
                kwargs={"role": role},
            )


def __getattr__(name: str) -> Any:
    """Load ``env`` / ``raw_env`` from their module on first access (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'shipwreck_env' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


_moved.install()
_register_gym_ids()
