"""Reasoning at play time on top of other teams.

- ``sparta``: test-time search over a learned blueprint (``search:PATH``), its settings
  and spec in ``options``;
- ``blueprint``: search over a scripted blueprint (``search:convention``);
- ``worlds``: the worlds a seat cannot tell from the real game, drawn for both searches;
- ``type_inference``: a group and player that infer which kind of partner they sit with
  (``types``).

Floor: may import the scripted, convention and learned rooms, never the registry or the
evaluation (``tests/project/test_boundaries.py``). Build them through
:mod:`shipwreck_agents.registry`.
"""
