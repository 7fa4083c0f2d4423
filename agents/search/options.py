"""The settings of the learned team's search, and the ``search:`` spec that carries them.

:func:`check_search_options` is the one range check, for
:class:`~shipwreck_agents.search.sparta.SearchTeamPolicy` and for the spec
``search:PATH[,samples=N][,margin=M][,uncertain=U][,confirm=C][,phases=P+Q]`` alike
(:func:`parse_search_spec`); :data:`SEARCH_PHASES` names the decisions the search can
consider.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "DEFAULT_PHASES",
    "MAX_SAMPLES",
    "SEARCH_PHASES",
    "check_search_options",
    "parse_phases",
    "parse_search_spec",
]

SEARCH_PHASES = ("play", "group", "steal", "after_play")
"""Decisions the search can consider: ``play`` is the active player's first play of the
turn, ``group`` the leader's group decisions, ``steal`` and ``after_play`` the active
player's decisions of those phases."""

DEFAULT_PHASES = ("play", "group")


def parse_phases(text: str) -> tuple[str, ...]:
    """``"play+group+steal"`` -> the phases in :data:`SEARCH_PHASES` order.

    Raises:
        ValueError: an unknown phase or none, naming the phases allowed.
    """
    names = [n for n in text.split("+") if n]
    bad = [n for n in names if n not in SEARCH_PHASES]
    if bad or not names:
        raise ValueError(
            f"search phases {text!r}: {bad or 'none given'} not allowed; allowed: "
            f"{'+'.join(SEARCH_PHASES)} (any of them joined by '+')"
        )
    return tuple(p for p in SEARCH_PHASES if p in names)


MAX_SAMPLES = 100_000
"""The most rollouts a search setting may ask for per choice (a bound on one decision's cost)."""

_OPTIONS_ALLOWED = (
    f"samples=N (an integer from 1 to {MAX_SAMPLES}), margin=M (a finite number >= 0), "
    f"uncertain=U (0 < U <= 1), confirm=C (an integer from 0 to {MAX_SAMPLES})"
)


def _is_count(x: object, least: int) -> bool:
    """Is ``x`` an integer (a bool is not one) of at least ``least``?"""
    return not isinstance(x, bool) and isinstance(x, (int, np.integer)) and x >= least


def check_search_options(samples: int, margin: float, uncertain: float, confirm: int = 0) -> None:
    """Refuse search settings out of range (the one check, for the constructor and the
    ``search:`` spec alike).

    Raises:
        ValueError: naming the bad value and what is allowed.
    """
    if not (_is_count(samples, 1) and samples <= MAX_SAMPLES):
        raise ValueError(f"search samples={samples!r} is not allowed; allowed: {_OPTIONS_ALLOWED}")
    if not 0 <= margin < float("inf"):  # also refuses NaN
        raise ValueError(f"search margin={margin!r} is not allowed; allowed: {_OPTIONS_ALLOWED}")
    if not 0 < uncertain <= 1:
        raise ValueError(
            f"search uncertain={uncertain!r} is not allowed; allowed: {_OPTIONS_ALLOWED}"
        )
    if not (_is_count(confirm, 0) and confirm <= MAX_SAMPLES):
        raise ValueError(f"search confirm={confirm!r} is not allowed; allowed: {_OPTIONS_ALLOWED}")


def parse_search_spec(arg: str) -> tuple[str, dict]:
    """``PATH[,samples=N][,margin=M][,uncertain=U][,confirm=C][,phases=P+Q]`` -> (path,
    options).

    Raises:
        ValueError: an unknown option or a bad value, naming what is allowed.
    """
    path, *parts = arg.split(",")
    options: dict = {}
    kinds = {
        "samples": int,
        "margin": float,
        "uncertain": float,
        "confirm": int,
        "phases": parse_phases,
    }
    for part in parts:
        key, _, value = part.partition("=")
        if key not in kinds:
            raise ValueError(
                f"search option {part[:60]!r} is not known; allowed: samples=N, margin=M, "
                "uncertain=U, confirm=C, phases=P+Q"
            )
        try:
            options[key] = kinds[key](value)
        except ValueError as error:
            if key == "phases":
                raise
            raise ValueError(
                f"search option {part[:60]!r} has a bad value; allowed: {_OPTIONS_ALLOWED}"
            ) from error
    given = {k: v for k, v in options.items() if k != "phases"}
    check_search_options(**{"samples": 1, "margin": 0.0, "uncertain": 1.0, **given})  # in range
    return path, options
