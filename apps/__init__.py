"""The applications on top of the agents: the ``shipwreck-arcana`` command line
(:mod:`shipwreck_apps.cli`), the game table with people and AI teammates, terminal play
and replays (:mod:`shipwreck_apps.play`), and the local web app (:mod:`shipwreck_apps.web`).

This folder is installed as the package ``shipwreck_apps`` (``pyproject.toml``,
``[tool.setuptools.package-dir]``). It sits on the top floor: it imports ``shipwreck_env``
and ``shipwreck_agents``, not the trainers (``shipwreck_training``); nothing imports it.
Inside it, imports point one way: ``cli`` -> ``commands`` (with the subcommands' own
modules beside it: ``adhoc_command``, ``bench``) -> ``web``
-> ``play``.
"""

if __name__ != "shipwreck_apps":
    raise ImportError(
        f"the folder apps/ is the package 'shipwreck_apps' (imported here as "
        f"{__name__!r}); install the project (pip install -e .) and import shipwreck_apps"
    )

from shipwreck_apps import _moved
from shipwreck_env._moved import register

register(_moved.MOVED, _moved.REMOVED)
