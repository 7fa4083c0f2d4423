"""Argument types of the command line: each checks its value while argparse reads it, so
a bad one ends the command with the usage, one line naming the option's value and what
is allowed, and exit code 2 (never a traceback)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["at_least", "between", "positive_float"]


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def at_least(low: int) -> Callable[[str], int]:
    """An integer option that must be ``>= low``."""

    def check(text: str) -> int:
        value = _integer(text)
        if value < low:
            raise argparse.ArgumentTypeError(
                f"{value} is not allowed; allowed: an integer >= {low}"
            )
        return value

    check.__name__ = f"integer >= {low}"
    return check


def between(low: int, high: int) -> Callable[[str], int]:
    """An integer option that must lie in ``low..high``."""

    def check(text: str) -> int:
        value = _integer(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{value} is not allowed; allowed: an integer from {low} to {high}"
            )
        return value

    check.__name__ = f"integer {low}..{high}"
    return check


def positive_float(text: str) -> float:
    """A number option that must be > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:  # NaN too
        raise argparse.ArgumentTypeError(f"{text} is not allowed; allowed: a number > 0")
    return value
