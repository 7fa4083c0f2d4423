"""Import paths of ``shipwreck_apps`` modules that moved, still working.

Importing an old path gives the module at its new path with a ``DeprecationWarning``
naming it (the mechanism is :mod:`shipwreck_env._moved`; ``shipwreck_apps/__init__.py``
registers these maps).
"""

from __future__ import annotations

MOVED: dict[str, str] = {
    # "adhoc" is the benchmark (shipwreck_agents.evaluation.adhoc); this is its command
    "shipwreck_apps.adhoc": "shipwreck_apps.adhoc_command",
}
"""Old import path -> new import path of every module that moved."""

REMOVED: dict[str, str] = {}
"""Old import path -> what to use instead, of every module that was removed."""
