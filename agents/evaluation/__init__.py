"""Measuring teams: the evaluator, replay records, cross-play, the ad-hoc benchmark and
paired comparisons.

- ``evaluate``: many games, reproducibly and in parallel, with Wilson intervals;
- ``records``: a game as its configuration, seed and actions;
- ``crossplay`` and ``adhoc``: teams with partners they never met;
- ``paired``: two teams on the same deals, and the paired difference with its interval.

Floor: the top of ``shipwreck_agents``; it builds teams through the registry
(``tests/project/test_boundaries.py``).
"""
