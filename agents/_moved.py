"""Import paths of ``shipwreck_agents`` modules that moved, still working.

Importing an old path gives the module at its new path with a ``DeprecationWarning``
naming it (the mechanism is :mod:`shipwreck_env._moved`; ``shipwreck_agents/__init__.py``
registers these maps). :data:`MOVED` and :data:`REMOVED` are the whole lists.
"""

from __future__ import annotations

MOVED: dict[str, str] = {
    # the convention's code, named apart from play-time search (agents/search/)
    "shipwreck_agents.convention.search": "shipwreck_agents.convention.codebook",
}
"""Old import path -> new import path of every module that moved."""

REMOVED: dict[str, str] = {}
"""Old import path -> what to use instead, of every module that was removed."""
