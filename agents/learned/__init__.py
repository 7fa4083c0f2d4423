"""Learned teams and their loaders.

- ``actor_critic``: the masked actor-critic every trainer trains and every loader plays;
- ``policy_belief``: the policy-conditioned belief over the active seat's kept fate;
- ``fast_team`` (``fast:PATH``), ``sb3`` (Stable-Baselines3 zips, and the game metadata
  every model carries) and ``rllib`` (RLlib checkpoints without Ray).

Floor: imports ``base`` only, never the scripted teams (``tests/project/test_boundaries.py``).
Build them through :mod:`shipwreck_agents.registry`.
"""
