"""Scripted teams, trained-model loaders, the evaluator and replay records (the command
line and the game table are ``shipwreck_apps``, one floor up).

This folder is installed as the package ``shipwreck_agents`` (``pyproject.toml``,
``[tool.setuptools.package-dir]``): import ``shipwreck_agents``, never ``agents``, a name
other distributions also use.
"""

if __name__ != "shipwreck_agents":
    raise ImportError(
        f"the folder agents/ is the package 'shipwreck_agents' (imported here as "
        f"{__name__!r}); install the project (pip install -e .) and import shipwreck_agents"
    )
