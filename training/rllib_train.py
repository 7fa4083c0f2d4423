"""Deprecated: ``python -m shipwreck_training.rllib_train`` is ``python -m shipwreck_training.rllib``."""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """:func:`shipwreck_training.rllib.train.main`, after a deprecation note."""
    from shipwreck_training.common.run import deprecated_command
    from shipwreck_training.rllib.train import main as rllib_main

    old = "shipwreck_training.rllib_train"
    return deprecated_command(old, "shipwreck_training.rllib", rllib_main, argv)


if __name__ == "__main__":
    raise SystemExit(main())
