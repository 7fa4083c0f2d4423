"""The convention team's settings: one frozen value that the team, its codebook and the
tools that study it all read.

Every teammate computes the same code from public facts, so the settings are part of
the convention itself: two players with different settings follow different codes. A
frozen dataclass makes them hashable (the codebook caches on them) and keeps a team's
settings from changing under it mid-game.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = ["CODED_BEFORE", "DEFAULT", "ConventionSettings"]

CODED_BEFORE: tuple[str, ...] = ("sparrows", "skies")
"""The powers before the play that the code may hold (with ``pre_play``): they change the
table, publicly. Shadows (it lifts the kept fate's reading) joins them with
``pre_play_shadows``; otherwise it stays a way out only."""


@dataclass(frozen=True)
class ConventionSettings:
    """How the convention team values and searches its code.

    Attributes:
        info_value: value of passing to learn more next turn (in win-chance units).
        power_cost: minimum gain for the group to spend a faded power.
        accuracy, fail_doom: the value of the race
            (:func:`~shipwreck_agents.scripted.bayes.race_win`): the chance a later
            turn is read right, and the doom a failed turn costs.
        plan: plan the group's question powers and Sorrows into the code.
        player_powers: let lines of play use Shells and Sinners after the play.
        rescue: the player may spend a power before the play to save a fade
            (:mod:`shipwreck_agents.convention.rescue`).
        lookahead: above 0, the code values the table each line leaves: the chance it
            forces the next seat, read right with this probability
            (:mod:`shipwreck_agents.convention.ahead`); 0 (the default) looks no further
            than this turn. Measured on tuning seeds it did not help
            (docs/convention-lookahead.md), so it is off.
        read_ahead: with ``lookahead``, read the forced next turn's chance of being read
            right off the table instead: ``1 - read_ahead`` times the misreads of a simple
            code there.
        restarts: how many more searches for the code start from random codes (a fixed
            seed, so the code stays a function of public facts); the best is kept.
        restart_doom: the restarts run only on turns that start with at least this much
            doom (where one misread can end the game).
        rescue_read: a way out may also be a power and a play after which the number line
            alone names the kept fate; it is preferred to a play that fades nothing.
        rescue_score: also spend a power before the play when the code's line would not
            score and a power and play exist that the number line alone reads.
        pre_play: the code also has lines that use Sparrows or Skies before the play.
        pre_play_doom: those lines enter the code only on turns that start with at least
            this much doom.
        pre_play_shadows: with ``pre_play``, the code also has lines that use Shadows.
        pre_play_forced: only hands whose every other line fades a card at a doom cost get
            lines with a power before the play (fewer lines: a cheaper search).
        tie_ahead: above 0 (and without ``lookahead``), each line's value loses this much
            times the chance that the table it leaves forces the next seat: it breaks
            near-ties toward tables where the next seat can play without a fade.
        legible: above 0, each hand's line gains this much times the chance that a
            reader who knows no code (only which hands could show what it sees) names the
            hand's kept value: the code leans toward lines a stranger reads right.
    """

    info_value: float = 0.01
    power_cost: float = 0.005
    accuracy: float = 0.95
    fail_doom: int = 2
    plan: bool = True
    player_powers: bool = True
    rescue: bool = True
    lookahead: float = 0.0
    read_ahead: float = 0.0
    restarts: int = 3
    restart_doom: int = 5
    rescue_read: bool = True
    rescue_score: bool = False
    pre_play: bool = True
    pre_play_doom: int = 4
    pre_play_shadows: bool = False
    pre_play_forced: bool = True
    tie_ahead: float = 0.0
    legible: float = 0.0

    def __post_init__(self) -> None:
        for name in ("accuracy", "lookahead", "read_ahead"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"convention setting {name}={value!r}: allowed 0 to 1")
        for name in ("fail_doom", "restarts", "restart_doom", "pre_play_doom"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"convention setting {name}={value!r}: allowed a whole number >= 0"
                )
        for name in ("info_value", "power_cost", "tie_ahead", "legible"):
            value = getattr(self, name)
            if not value >= 0.0:
                raise ValueError(f"convention setting {name}={value!r}: allowed a number >= 0")

    @classmethod
    def of(cls, **options: Any) -> ConventionSettings:
        """Settings from keyword ``options`` (the default for any left out); an unknown
        name is refused with the names allowed."""
        return DEFAULT.but(**options)

    def but(self, **changes: Any) -> ConventionSettings:
        """These settings with ``changes``; an unknown name is refused with the names
        allowed."""
        names = [f.name for f in fields(self)]
        unknown = sorted(set(changes) - set(names))
        if unknown:
            raise TypeError(
                f"unknown convention setting(s) {', '.join(map(repr, unknown))}; "
                f"allowed: {', '.join(names)}"
            )
        return replace(self, **changes)

    @property
    def coded_before(self) -> tuple[str, ...]:
        """The powers before the play that the code may hold."""
        return CODED_BEFORE + (("shadows",) if self.pre_play_shadows else ())

    def pre_play_at(self, doom: int) -> bool:
        """Does the code of a turn starting with ``doom`` have lines with a power before
        the play?"""
        return self.pre_play and doom >= self.pre_play_doom

    def restarts_at(self, doom: int) -> int:
        """How many restarts the codebook of a turn starting with ``doom`` runs."""
        return self.restarts if doom >= self.restart_doom else 0


DEFAULT = ConventionSettings()
"""The shipped convention team's settings."""
