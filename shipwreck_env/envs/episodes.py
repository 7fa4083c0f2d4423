"""What both environments do between episodes: the next game's seed and configuration.

Seeding follows Gymnasium and PettingZoo: ``reset(seed=n)`` plays the game of seed ``n``
(in the Gymnasium env and the AEC env's version 0 the engine's generator is
``default_rng(n)``, so they and ``engine.new_game(config, default_rng(n))`` agree; the
AEC env's version 1 deals the batched engine's game of seed ``n``), and ``reset()``
without a seed draws
the next game's seed from the environment's own generator, seeded by the last seeded
reset -- so ``reset(seed=1); reset()`` always gives the same second game, whatever was
played in the first.
"""

from __future__ import annotations

import numpy as np

from shipwreck_env.rules.config import GameConfig

__all__ = ["FIXED_PER_ENV", "apply_reset_options", "episode_seed"]

FIXED_PER_ENV: tuple[str, ...] = ("num_players", "challenge_mode")
"""Fields an environment cannot change between episodes: they fix its agents and its
observation and action spaces."""


def episode_seed(seeding_rng: np.random.Generator | None, seed: int | None) -> int:
    """The seed of the next game: ``seed`` if given (``seeding_rng`` is then not read and
    may be ``None``), else the next draw of ``seeding_rng`` (the generator
    ``reset(seed=...)`` re-seeded last)."""
    if seed is not None:
        return seed
    assert seeding_rng is not None, "an unseeded reset needs the seeding generator"
    return int(seeding_rng.integers(2**63))


def apply_reset_options(config: GameConfig, options: dict | None) -> GameConfig:
    """The configuration of the next episode: ``config`` with the fields given in an
    environment's ``reset(options=...)`` changed (``None`` or ``{}`` changes nothing).
    Keys that are not config fields are left to whoever else reads the options (a
    wrapper; PettingZoo's API test passes one) with a warning naming them.

    Raises:
        ValueError: a field in :data:`FIXED_PER_ENV` changed, or a bad value (named with
            the allowed ones).
    """
    if not options:
        return config
    if not isinstance(options, dict):
        raise ValueError(f"reset options {options!r} are not allowed; allowed: a dict or None")
    allowed = set(GameConfig.__dataclass_fields__)
    unknown = set(options) - allowed
    if unknown:
        import warnings

        warnings.warn(
            f"reset option keys {sorted(unknown)} are not config fields and were ignored; "
            f"config fields: {sorted(allowed)}",
            stacklevel=3,
        )
        options = {k: v for k, v in options.items() if k in allowed}
    for name in FIXED_PER_ENV:
        if name in options and options[name] != getattr(config, name):
            raise ValueError(
                f"reset option {name} {options[name]!r} is not allowed: it would change the "
                f"spaces; allowed: {getattr(config, name)!r} (make a new environment instead)"
            )
    return GameConfig.from_dict({**config.to_dict(), **options})
