"""Scripted teams, each beside its batched twin.

- ``simple``: random, literal and the cheating oracle; ``knowledge``: what a scripted
  player works out from its view (number lines, the literal posterior, fading cards).
- ``heuristic`` (the heuristic player) with ``heuristic_batched``, and ``bayes`` (the
  Bayesian group) with ``bayes_batched``: the per-game policy and its compiled twin that
  decides for many games at once; ``twins`` hands the twin to a vector env
  (``Policy.batched``).
- ``natural`` and ``noisy``: strangers of the ad-hoc benchmark.

Floor: imports only ``shipwreck_agents.base`` and the game (``tests/project/test_boundaries.py``).
Build teams through :mod:`shipwreck_agents.registry`.
"""
