"""Training: three trainers side by side on one common floor.

``common`` (config base, game section, run folders, metadata, the batched games, the
policy-conditioned belief over them and their greedy evaluation), then one package per trainer, each
keeping only its algorithm: ``sb3`` (Stable-Baselines3 MaskablePPO), ``fast`` (PPO in
torch on the batched engine) and ``rllib`` (Ray RLlib). Run one with
``python -m shipwreck_training.<trainer> --config configs/<trainer>/<name>.yaml``. The
network they train is ``shipwreck_agents.learned.actor_critic``.

This folder is installed as the package ``shipwreck_training`` (``pyproject.toml``,
``[tool.setuptools.package-dir]``): import ``shipwreck_training``, never ``training``, a
name other distributions also use. Module paths that moved still import, with a
warning, and removed ones say what replaced them (:mod:`shipwreck_training._moved`).
"""

if __name__ != "shipwreck_training":
    raise ImportError(
        f"the folder training/ is the package 'shipwreck_training' (imported here as "
        f"{__name__!r}); install the project (pip install -e .) and import shipwreck_training"
    )

from shipwreck_env._moved import register
from shipwreck_training import _moved

register(_moved.MOVED, _moved.REMOVED)
