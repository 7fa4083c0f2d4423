"""The convention team: player and group share one code computed afresh every turn.

- ``team``: :class:`~shipwreck_agents.convention.team.ConventionPolicy`, the method;
- ``settings``: :class:`~shipwreck_agents.convention.settings.ConventionSettings`, one
  frozen value the team, its codebook and the tools that study it read;
- ``codebook``: one turn's public code from public inputs only, picking one line of play
  per hand; ``lines``: the hands the active seat may hold and their lines of play;
  ``outcomes``: what an observation is worth (the race value, the group's reply);
- ``ahead``: what a line of play leaves for the next turn; ``rescue``: a power before the
  play that saves a fade.

Floor: imports the scripted teams and ``base`` only (``tests/project/test_boundaries.py``).
Build it through :mod:`shipwreck_agents.registry` (``convention[:...]``).
"""
