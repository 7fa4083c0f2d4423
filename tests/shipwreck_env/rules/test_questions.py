"""The question powers' answers (``shipwreck_env.rules.questions``), the one table the engines
and the agents read. Authority: the faded power reference (Secrets 1-3, Songs 1/4/7,
Spires 3-5, Swords 5-7, Scythes 2 or 6, Saints "higher than X", Storms "exactly V",
Shackles "within 2 of the value just played") and docs/rules.md (questions read the kept
fate as conditions do this turn, Shadows' +1 included)."""

from __future__ import annotations

import pytest

from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.questions import HOLDS, QUESTIONS, SHACKLES_HOLDS, holds, yes_values


@pytest.mark.parametrize(
    ("power", "arg", "yes"),
    [
        ("secrets", None, (1, 2, 3)),
        ("songs", None, (1, 4, 7)),
        ("spires", None, (3, 4, 5)),
        ("swords", None, (5, 6, 7)),
        ("scythes", None, (2, 6)),
        ("saints", 1, (2, 3, 4, 5, 6, 7)),
        ("saints", 5, (6, 7)),
        ("storms", 4, (4,)),
        ("shackles", 1, (1, 2, 3)),
        ("shackles", 5, (3, 4, 5, 6, 7)),
    ],
)
def test_each_question_answers_yes_for_its_values(power: str, arg: int | None, yes: tuple) -> None:
    assert yes_values(power, arg) == yes


def test_shadows_reads_the_kept_fate_one_higher() -> None:
    assert yes_values("secrets", None, shadows=True) == (1, 2)  # 1, 2 read as 2, 3
    assert yes_values("saints", 6, shadows=True) == (6, 7)  # 6 read as 7 > 6
    assert yes_values("storms", 1, shadows=True) == ()  # nothing is read as 1


def test_a_power_that_asks_nothing_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"'sorrows' asks no question.*secrets"):
        holds("sorrows", None, 3)


def test_the_tables_are_the_function() -> None:
    asked = 0
    for a in ACTIONS:
        if a.kind == "power" and a.power in QUESTIONS and a.power != "shackles":
            asked += 1
            assert [bool(HOLDS[a.index, k]) for k in range(1, 9)] == [
                holds(a.power, a.value, k) for k in range(1, 9)
            ], a
        else:
            assert not HOLDS[a.index].any(), a
    assert asked == 18  # 4 sets + Scythes + Saints 1-6 + Storms 1-7
    for played in range(1, 8):
        assert [bool(SHACKLES_HOLDS[played, k]) for k in range(1, 9)] == [
            holds("shackles", played, k) for k in range(1, 9)
        ]
