"""The RLlib trainer (Ray RLlib, new API stack): :mod:`shipwreck_training.rllib.train`.

``config`` needs no Ray (the main environment checks RLlib configs too); ``env``,
``module``, ``belief_callback`` (hands each env its runner's network for the
policy-conditioned belief) and ``train`` import Ray and run in ``.venv-rllib``.
"""
