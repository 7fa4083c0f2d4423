"""The reference rules: the game itself, as pure Python, the readable authority.

What lives here, bottom up:

* the game's data: ``cards`` (the 36 arcana cards and 17 faded powers), ``config``
  (:class:`~shipwreck_env.rules.config.GameConfig`), ``actions`` (the action list),
  ``conditions`` (may a fate be played in front of a card?), ``seating`` and
  ``questions`` (decisions both engines read as tables);
* the state and its transitions: ``state``, ``engine`` (the API: ``new_game``,
  ``legal_actions``, ``step``), one module per part of the turn (``turn_start``,
  ``plays``, ``powers``, ``arcana``, ``predictions``, ``fading``, ``number_lines``)
  and ``rewards``;
* what a seat sees: ``view`` (the agent view), ``observation`` (the observation layout
  and its encoder, which the batched engine mirrors), ``public_record`` (public facts
  of a turn for belief-based agents);
* tools over states: ``saving`` (save and load exactly), ``scenario`` (arranged and
  hypothetical states), ``reference_game`` (one game on this engine behind the AEC
  env's interface).

This room imports nothing from the compiled rules (:mod:`shipwreck_env.vector`) or the
environments (:mod:`shipwreck_env.envs`), and never gymnasium or pettingzoo.

Before the rooms, ``shipwreck_env.rules`` was the card conditions' module; its names are
still found here, with a ``DeprecationWarning`` naming
:mod:`shipwreck_env.rules.conditions`.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any


def __getattr__(name: str) -> Any:
    """Old ``shipwreck_env.rules.<name>`` of the card conditions: found in
    ``conditions``, with a warning naming the new path (PEP 562)."""
    if name.startswith("_"):  # dunders and private names: never the old module's
        raise AttributeError(f"module 'shipwreck_env.rules' has no attribute {name!r}")
    # import_module, not a from-import: that would ask this function for "conditions"
    conditions = importlib.import_module("shipwreck_env.rules.conditions")
    if not hasattr(conditions, name):
        raise AttributeError(f"module 'shipwreck_env.rules' has no attribute {name!r}")
    warnings.warn(
        f"shipwreck_env.rules.{name} moved to shipwreck_env.rules.conditions.{name}",
        DeprecationWarning,
        stacklevel=2,
    )
    value = getattr(conditions, name)
    globals()[name] = value  # warned once; later lookups find it here
    return value
