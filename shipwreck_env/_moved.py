"""Import paths from before ``shipwreck_env`` had rooms, still working.

Until the package was split into the reference rules (``rules/``), the compiled rules
(``vector/``) and the environments (``envs/``), every module sat at its top
(``shipwreck_env.engine``, ``shipwreck_env.aec_env``, ``shipwreck_env.vector.gym_roles``).
Code, saved objects and notebooks written then keep working: importing an old path gives
the module at its new path (the same module object, not a copy) and warns once with a
``DeprecationWarning`` that names the new path. :data:`MOVED` is the whole list.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType

MOVED: dict[str, str] = {
    "shipwreck_env.actions": "shipwreck_env.rules.actions",
    "shipwreck_env.arcana": "shipwreck_env.rules.arcana",
    "shipwreck_env.cards": "shipwreck_env.rules.cards",
    "shipwreck_env.config": "shipwreck_env.rules.config",
    "shipwreck_env.engine": "shipwreck_env.rules.engine",
    "shipwreck_env.fading": "shipwreck_env.rules.fading",
    "shipwreck_env.number_lines": "shipwreck_env.rules.number_lines",
    "shipwreck_env.plays": "shipwreck_env.rules.plays",
    "shipwreck_env.powers": "shipwreck_env.rules.powers",
    "shipwreck_env.predictions": "shipwreck_env.rules.predictions",
    "shipwreck_env.public_record": "shipwreck_env.rules.public_record",
    "shipwreck_env.questions": "shipwreck_env.rules.questions",
    "shipwreck_env.reference_game": "shipwreck_env.rules.reference_game",
    "shipwreck_env.rewards": "shipwreck_env.rules.rewards",
    "shipwreck_env.saving": "shipwreck_env.rules.saving",
    "shipwreck_env.scenario": "shipwreck_env.rules.scenario",
    "shipwreck_env.seating": "shipwreck_env.rules.seating",
    "shipwreck_env.state": "shipwreck_env.rules.state",
    "shipwreck_env.turn_start": "shipwreck_env.rules.turn_start",
    "shipwreck_env.view": "shipwreck_env.rules.view",
    "shipwreck_env.observation": "shipwreck_env.rules.observation",
    "shipwreck_env.aec_env": "shipwreck_env.envs.aec_env",
    "shipwreck_env.gym_env": "shipwreck_env.envs.gym_env",
    "shipwreck_env.episodes": "shipwreck_env.envs.episodes",
    "shipwreck_env.policy": "shipwreck_env.envs.policy",
    "shipwreck_env.render": "shipwreck_env.envs.render",
    "shipwreck_env.render_image": "shipwreck_env.envs.render_image",
    "shipwreck_env.vector.gym_vector": "shipwreck_env.envs.gym_vector",
    "shipwreck_env.vector.gym_roles": "shipwreck_env.envs.gym_roles",
}
"""Old import path -> new import path of every module that moved."""


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path of :data:`MOVED` and loads it as the module at its new path."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new}; import it from there", DeprecationWarning, stacklevel=2
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at the new path ran when it was imported."""


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
