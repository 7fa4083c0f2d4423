"""The validated configuration of one game of Shipwreck Arcana.

``GameConfig`` is immutable; every field is checked when it is built, and a bad value
raises ``ValueError`` naming the field, the value given and what is allowed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from shipwreck_env.rules.cards import CARD_SETS

__all__ = ["BASE_SET", "DIFFICULTIES", "EXPANSIONS", "GROUP_DECISIONS", "GameConfig"]

DIFFICULTIES: dict[str, int] = {"easy": 0, "normal": 2, "hard": 4, "doomed": 6}
"""Difficulty name -> starting doom."""
GROUP_DECISIONS: tuple[str, ...] = ("leader", "vote")
IMPLEMENTED_CARD_SETS: tuple[str, ...] = CARD_SETS
"""Card sets the engine plays today."""
BASE_SET = "base"
"""The set every playable selection contains: expansions are added to it (docs/rules.md,
decision 25)."""
EXPANSIONS: tuple[str, ...] = tuple(name for name in CARD_SETS if name != BASE_SET)
"""The sets that may be added to the base set, in any combination."""


def _normalise_card_sets(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        names = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, Iterable):
        names = list(value)
    else:
        raise ValueError(
            f"card_sets {value!r} is not a set name or a list of them; allowed: "
            f"{list(CARD_SETS)} or 'all'"
        )
    chosen: set[str] = set()
    for name in names:
        if name == "all":
            chosen.update(CARD_SETS)
        elif name in CARD_SETS:
            chosen.add(name)
        else:
            raise ValueError(
                f"card_sets entry {name!r} is not a card set; allowed: {list(CARD_SETS)} or 'all'"
            )
    if not chosen:
        raise ValueError(f"card_sets {value!r} is empty; allowed: {list(CARD_SETS)} or 'all'")
    missing = chosen - set(IMPLEMENTED_CARD_SETS)
    if missing:
        raise ValueError(
            f"card_sets {sorted(missing)!r} are not playable yet; allowed: "
            f"{list(IMPLEMENTED_CARD_SETS)}"
        )
    selection = tuple(s for s in CARD_SETS if s in chosen)
    if BASE_SET not in chosen:
        raise ValueError(
            f"card_sets {value!r} (the sets {list(selection)}) is not a playable selection: "
            f"expansion cards are shuffled into the base deck; allowed: {BASE_SET!r} plus "
            f"any of {list(EXPANSIONS)}, or 'all'"
        )
    return selection


@dataclass(frozen=True)
class GameConfig:
    """Everything that fixes the rules of one game.

    Attributes:
        num_players: 2 to 5 players.
        difficulty: ``easy`` (doom starts at 0), ``normal`` (2), ``hard`` (4) or
            ``doomed`` (6).
        card_sets: which arcana cards make the deck: ``base`` plus any of
            ``kickstarter``, ``gencon``, ``stars_below`` (expansions join the base deck;
            a selection without ``base`` is refused), or ``all``; a comma-separated
            string or a list. Stored as a tuple in canonical order.
        group_decision: ``leader`` -- the first player clockwise from the active one
            decides the group's powers and predictions; ``vote`` -- every other player
            votes a value or pass, a strict majority makes the prediction, and the
            leader alone decides on powers.
        challenge_mode: the 2-player challenge: each player plays two seats (A and B),
            turn order 1A, 2A, 1B, 2B. Only with ``num_players == 2``.
        reveal: players who are not active may discard their held fate face up during
            the group phase (rulebook FAQ). ``False`` removes the option.
        max_turns: end the game as *truncated* after this many turns (``None``: never).
            Not a rule of the game: a guard for learners that could stall forever.
    """

    num_players: int = 3
    difficulty: str = "normal"
    card_sets: tuple[str, ...] = field(default=("base",))
    group_decision: str = "leader"
    challenge_mode: bool = False
    reveal: bool = True
    max_turns: int | None = 200

    def __post_init__(self) -> None:
        if (
            not isinstance(self.num_players, int)
            or isinstance(self.num_players, bool)
            or not 2 <= self.num_players <= 5
        ):
            raise ValueError(f"num_players {self.num_players!r} is not allowed; allowed: 2 to 5")
        if self.difficulty not in DIFFICULTIES:
            raise ValueError(
                f"difficulty {self.difficulty!r} is not allowed; allowed: {list(DIFFICULTIES)}"
            )
        object.__setattr__(self, "card_sets", _normalise_card_sets(self.card_sets))
        if self.group_decision not in GROUP_DECISIONS:
            raise ValueError(
                f"group_decision {self.group_decision!r} is not allowed; allowed: "
                f"{list(GROUP_DECISIONS)}"
            )
        for name in ("challenge_mode", "reveal"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(
                    f"{name} {getattr(self, name)!r} is not allowed; allowed: True, False"
                )
        if self.challenge_mode and self.num_players != 2:
            raise ValueError(
                f"challenge_mode True is not allowed with num_players {self.num_players}; "
                "allowed: challenge_mode only with num_players 2"
            )
        if self.max_turns is not None and (
            not isinstance(self.max_turns, int)
            or isinstance(self.max_turns, bool)
            or self.max_turns < 1
        ):
            raise ValueError(
                f"max_turns {self.max_turns!r} is not allowed; allowed: None or an integer >= 1"
            )

    @property
    def starting_doom(self) -> int:
        """Doom at the start of the game."""
        return DIFFICULTIES[self.difficulty]

    @property
    def num_seats(self) -> int:
        """Seats taking turns: one per player, two per player in challenge mode."""
        return 2 * self.num_players if self.challenge_mode else self.num_players

    def to_dict(self) -> dict:
        """Plain-data form (JSON-friendly)."""
        data = asdict(self)
        data["card_sets"] = list(self.card_sets)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> GameConfig:
        """Build from :meth:`to_dict` output; unknown keys are an error."""
        if not isinstance(data, dict):
            raise ValueError(f"config {data!r} is not a mapping of field names to values")
        allowed = set(cls.__dataclass_fields__)
        unknown = set(data) - allowed
        if unknown:
            raise ValueError(
                f"config keys {sorted(unknown)} are unknown; allowed: {sorted(allowed)}"
            )
        return cls(**data)
