"""Deprecated: ``python -m shipwreck_training.train`` is ``python -m shipwreck_training.sb3``."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """:func:`shipwreck_training.sb3.train.main`, after a deprecation note."""
    from shipwreck_training.common.run import deprecated_command
    from shipwreck_training.sb3.train import main as sb3_main

    return deprecated_command("shipwreck_training.train", "shipwreck_training.sb3", sb3_main, argv)


if __name__ == "__main__":
    raise SystemExit(main())
