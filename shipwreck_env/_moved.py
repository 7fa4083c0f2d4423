"""Old import paths, still working or refused in one line naming the new one.

Until ``shipwreck_env`` was split into the reference rules (``rules/``), the compiled
rules (``vector/``) and the environments (``envs/``), every module sat at its top
(``shipwreck_env.engine``, ``shipwreck_env.aec_env``, ``shipwreck_env.vector.gym_roles``).
Code, saved objects and notebooks written then keep working: importing an old path gives
the module at its new path (the same module object, not a copy) and warns once with a
``DeprecationWarning`` that names the new path. :data:`MOVED` is this package's list.

The packages above (``shipwreck_agents``, ``shipwreck_training``, ``shipwreck_apps``)
register their own lists with :func:`register` when they are imported: modules that moved
(imported as above) and modules that were removed, which raise ``ImportError`` with one
line naming what replaced them (``python -m shipwreck_training.train`` says to run
``python -m shipwreck_training.sb3``). A class or function renamed inside a module keeps
its old name through :func:`renamed`. This module names no package above it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

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
"""Old import path -> new import path of every module of ``shipwreck_env`` that moved."""

_MOVED: dict[str, str] = dict(MOVED)
"""Old path -> new path of every registered package's moved modules."""
_REMOVED: dict[str, str] = {}
"""Old path -> what replaces it, of every registered package's removed modules."""


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds a registered old path: a moved one loads as the module at its new path, a
    removed one raises ``ImportError`` naming its replacement."""

    def __init__(self) -> None:
        self._specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname in _REMOVED:
            raise ImportError(f"{fullname} was removed; use {_REMOVED[fullname]}", name=fullname)
        if fullname not in _MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = _MOVED[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new}; import it from there", DeprecationWarning, stacklevel=2
        )
        module = importlib.import_module(new)
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run (the module at the new path ran when it was imported); the
        import machinery set its ``__spec__`` to the old path's, so give its own back."""
        own = self._specs.pop(module.__spec__.name, None) if module.__spec__ else None
        if own is not None:
            module.__spec__ = own


def register(moved: Mapping[str, str], removed: Mapping[str, str] | None = None) -> None:
    """Make a package's old paths import: each of ``moved`` (old path -> new path) as the
    module at its new path with a ``DeprecationWarning``; each of ``removed`` (old path ->
    what to use instead, e.g. ``"python -m shipwreck_training.sb3"``) refused with one
    ``ImportError`` line naming it. A package calls it from its ``__init__``, so an old
    path under it is known before Python looks for it."""
    _MOVED.update(moved)
    _REMOVED.update(removed or {})
    install()


def renamed(module: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for names renamed inside ``module``: an old name
    of ``names`` (old -> new) gives the object under its new name, with a
    ``DeprecationWarning`` naming it; any other name is missing as usual.

    Use: ``__getattr__ = renamed(__name__, {"PPOSettings": "FastPPOSettings"})``."""

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new = names[name]
        warnings.warn(
            f"{module}.{name} was renamed {module}.{new}; import it by its new name",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(sys.modules[module], new)

    return __getattr__


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
