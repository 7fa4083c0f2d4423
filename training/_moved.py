"""Import paths of ``shipwreck_training`` modules that moved or were removed.

Importing a moved path gives the module at its new path with a ``DeprecationWarning``
naming it; importing (or running with ``python -m``) a removed path raises
``ImportError`` in one line naming what replaced it. The mechanism is
:mod:`shipwreck_env._moved`; ``shipwreck_training/__init__.py`` registers these maps.
"""

from __future__ import annotations

MOVED: dict[str, str] = {
    # one meaning per word: "evaluate" is the evaluator (shipwreck_agents.evaluation),
    # "belief" the policy belief (shipwreck_agents.learned.policy_belief)
    "shipwreck_training.common.evaluate": "shipwreck_training.common.greedy_eval",
    "shipwreck_training.fast.evaluate": "shipwreck_training.fast.run",
    "shipwreck_training.common.belief": "shipwreck_training.common.policy_belief_batched",
    "shipwreck_training.rllib.belief": "shipwreck_training.rllib.belief_callback",
}
"""Old import path -> new import path of every module that moved."""

REMOVED: dict[str, str] = {
    # the deprecated commands from before one package per trainer
    "shipwreck_training.train": "python -m shipwreck_training.sb3 (shipwreck_training.sb3.train)",
    "shipwreck_training.rllib_train": (
        "python -m shipwreck_training.rllib (shipwreck_training.rllib.train)"
    ),
}
"""Old import path -> what to use instead, of every module that was removed."""
