"""Training: the Stable-Baselines3 trainer, the fast trainer (``fast``) and RLlib.

This folder is installed as the package ``shipwreck_training`` (``pyproject.toml``,
``[tool.setuptools.package-dir]``): import ``shipwreck_training``, never ``training``, a
name other distributions also use.
"""

if __name__ != "shipwreck_training":
    raise ImportError(
        f"the folder training/ is the package 'shipwreck_training' (imported here as "
        f"{__name__!r}); install the project (pip install -e .) and import shipwreck_training"
    )
