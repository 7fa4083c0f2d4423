"""The batched engine: thousands of games of Shipwreck Arcana held as numpy arrays and
stepped at once, exact to the reference engine (:mod:`shipwreck_env.rules.engine`).

Start with :class:`~shipwreck_env.vector.game.VectorGame`. The package holds the array
layout (``arrays``), per-game random streams (``chance``), the rules as compiled scalar
code over one game at a time (``jit`` compiles them with numba; ``tables`` and ``ops``
beneath modules named as the reference engine's: ``turn_start``, ``plays``,
``predictions``, ``fading``, ``powers``, ``arcana``, ``number_lines``, ``engine``), the
conversion from reference states (``convert``) and back to them (``to_states``), and
batched observations (``observe``). Covered: every card set, in every configuration.
"""

from shipwreck_env.vector.game import VectorGame

__all__ = ["VectorGame"]
