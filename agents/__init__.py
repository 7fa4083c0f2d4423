"""Scripted teams, trained-model loaders, the evaluator and replay records (the command
line and the game table are ``shipwreck_apps``, one floor up).

This folder is installed as the package ``shipwreck_agents`` (``pyproject.toml``,
``[tool.setuptools.package-dir]``): import ``shipwreck_agents``, never ``agents``, a name
other distributions also use. Module paths that moved still import, with a warning
naming the new one (:mod:`shipwreck_agents._moved`).
"""

if __name__ != "shipwreck_agents":
    raise ImportError(
        f"the folder agents/ is the package 'shipwreck_agents' (imported here as "
        f"{__name__!r}); install the project (pip install -e .) and import shipwreck_agents"
    )

from shipwreck_agents import _moved
from shipwreck_env._moved import register

register(_moved.MOVED, _moved.REMOVED)
