"""Engine tests of the expansion arcana cards and faded powers, against the rulebook.

The authority is the printed rulebook of Shipwreck Arcana: "Kickstarter arcana cards",
"Gen Con promo arcana cards", "Stars Below arcana cards", "Kickstarter faded powers",
"Stars Below faded powers", The Hours' Q/A about Shadows, and the engine's documented
decisions (``docs/rules.md``). Every Q/A answer of those entries has a test named
after its question.

Each scenario is built with :func:`shipwreck_env.rules.scenario.arrange` and driven with
:func:`shipwreck_env.rules.engine.step`. After every step the helper :func:`act` checks the
invariants the rules imply: every fate token is in the bag, on the table, in a hand or
exiled; every card is somewhere; and the number line of every seat holding one fate
still contains that fate's real value (the number lines never lie).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pytest
from helpers import mask

from shipwreck_env.rules.actions import (
    ACTIONS,
    HOURS_TARGET,
    PASS,
    cost_action,
    play_action,
    power_action,
    predict_action,
    steal_action,
)
from shipwreck_env.rules.cards import CARD_INDEX, CARDS, FATE_COPIES
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import IllegalActionError, legal_actions, slot_hours, step
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import Phase, State

CONFIG = GameConfig(card_sets="all")
C = CARD_INDEX
H = HOURS_TARGET
EMPTY = ((), (), (), ())
EXAMPLE_SLOTS = ("shore", "leviathan", None, "mirror")
"""Slot 2 is the card under test; Shore and Leviathan hold the example's visible fates."""
EXAMPLE_TABLE = ((6, 1), (6, 2), (), ())
"""The fates 1, 2, 6 and 6 of the worked examples ("the fates 1, 2, 6, and 6 are
currently visible"), spread so that no card is about to fade."""


# --- helpers ---------------------------------------------------------------------------


def check(s: State) -> None:
    """Invariants of every reachable state."""
    for v in range(1, 8):
        placed = sum(f.count(v) for f in s.table) + sum(h.count(v) for h in s.hands)
        assert s.bag[v - 1] + s.exiled[v - 1] + placed == FATE_COPIES, f"fate {v} lost"
    cards = (
        [c for c in s.slots if c >= 0]
        + s.deck
        + s.faded
        + [c for a in s.attached for c in a]
        + [c for c in s.sands_waiting if c >= 0]
    )
    assert sorted(cards) == list(range(len(CARDS))), "a card is lost or doubled"
    for seat, hand in enumerate(s.hands):
        if len(hand) == 1:
            assert s.lines[seat] >> (hand[0] - 1) & 1, (
                f"seat {seat} holds {hand[0]} but its number line is {s.lines[seat]:07b}"
            )


def setup(
    slots: Sequence[str | None],
    hand: Sequence[int],
    table: Sequence[Sequence[int]] = EMPTY,
    **kwargs,
) -> State:
    """Seat 0 of 3 has drawn ``hand`` and must play; doom starts at 0."""
    kwargs.setdefault("doom", 0)
    s = arrange(CONFIG, slots=list(slots), hand=list(hand), table=table, **kwargs)
    check(s)
    return s


def act(s: State, *actions: int) -> State:
    """Apply ``actions`` in order, checking the invariants after each."""
    for a in actions:
        s = step(s, a, np.random.default_rng(0))
        check(s)
    return s


def feast_play(s: State, action: int, drawn: int) -> State:
    """Play on The Feast and draw ``drawn`` (a seed of the draw that gives it)."""
    for seed in range(2000):
        new = step(s, action, np.random.default_rng(seed))
        if new.hands[new.active][-1] == drawn:
            check(new)
            return new
    raise AssertionError(f"no seed draws a {drawn}")


def finish(s: State, *predictions: int) -> State:
    """Decline every option, make ``predictions`` in the group phase, end the turn."""
    todo = list(predictions)
    turn = s.turn
    while not s.over and s.turn == turn:
        if s.phase == Phase.GROUP and todo:
            s = act(s, predict_action(todo.pop(0)))
        else:
            assert PASS in legal_actions(s), f"cannot pass in phase {s.phase}"
            s = act(s, PASS)
    assert not todo, "a prediction was not made"
    return s


def plays_on(s: State, target: int) -> set[int]:
    """Fate values the active player may play on ``target`` now."""
    return {v for v in range(1, 8) if play_action(v, target) in legal_actions(s)}


def play_targets(s: State) -> set[tuple[int, int]]:
    """Every legal play as (value, target)."""
    legal = set(legal_actions(s))
    return {(v, t) for v in range(1, 8) for t in range(H + 1) if play_action(v, t) in legal}


def power_actions(s: State, power: str) -> set[int]:
    """Legal actions that use ``power``."""
    return {a for a in legal_actions(s) if ACTIONS[a].kind == "power" and ACTIONS[a].power == power}


def any_power(s: State) -> bool:
    return any(ACTIONS[a].kind == "power" for a in legal_actions(s))


def events(s: State, kind: str) -> list[tuple]:
    return [e for e in s.events if e[0] == kind]


def last(s: State, kind: str) -> list[tuple]:
    """Events of kind ``kind`` in the turn that just ended (the last turn's own events
    once the game is over)."""
    return [e for e in (s.events if s.over else s.last_events) if e[0] == kind]


def with_slot(slots: Iterable[str | None], card: str) -> list[str | None]:
    return [card if c is None else c for c in slots]


# --- every expansion card: duration and faded power --------------------------------------

BACKS = {
    "asunder": "storms",
    "captain": "songs",
    "feast": "skies",
    "fortune": "shadows",
    "ghost": "shadows",
    "iron": "shadows",
    "lantern": "skies",
    "pallbearers": "shackles",
    "passage": "storms",
    "wish": "shells",
    "imago": "sparrows",
    "ash": "scythes",
    "fall": "sands",
    "musicians": "sails",
    "north_wind": "scions",
    "thief": "scythes",
}
MOONS = {
    "asunder": 1,
    "captain": 3,
    "feast": 4,
    "fortune": 3,
    "ghost": 2,
    "iron": 4,
    "lantern": 3,
    "pallbearers": 2,
    "passage": 2,
    "wish": 2,
    "imago": 3,
    "musicians": 3,
    "north_wind": 2,
    "thief": 2,
}


@pytest.mark.parametrize("card", sorted(BACKS))
def test_expansion_card_has_its_printed_faded_power(card):
    """The faded power printed on the back of each expansion card (the card data,
    ``shipwreck_env/rules/cards.py``)."""
    assert CARDS[C[card]].power == BACKS[card]


@pytest.mark.parametrize("card", sorted(MOONS))
def test_expansion_card_fades_when_its_hours_reach_its_moons(card):
    """Fading: "An arcana card will fade when the number of hours in front of it ... is
    greater than or equal to its duration"; ``shipwreck_env/rules/cards.py`` gives the moons.
    Skies moves the last hour onto the card; it fades for 2 doom and its power becomes
    available."""
    skies_card = "lantern" if card == "feast" else "feast"
    s = setup(
        [card, "blind_man", "chalice", "dawn"],
        (5, 6),
        table=[(1, 1, 3)[: MOONS[card] - 1], (), (3,), ()],
        faded=[skies_card],
    )
    assert slot_hours(s, 0) == MOONS[card] - 1
    s = act(s, power_action("skies", slot=2, value=3, to_slot=0))
    assert slot_hours(s, 0) == MOONS[card]
    s = act(s, play_action(5, 1))
    s = finish(s)
    assert C[card] in s.faded
    assert C["blind_man"] in s.faded
    assert s.doom == 2  # the card 2, The Blind Man 0


@pytest.mark.parametrize("card", ["ash", "fall"])
def test_ash_and_fall_have_no_moons(card):
    """The Ash Q/A "How many moons does The Ash have?": "None. It has a comet indicator
    instead"; The Fall fades by its own text too."""
    assert CARDS[C[card]].moons is None


# --- Asunder ---------------------------------------------------------------------------


def test_asunder_plays_the_higher_fate_when_the_difference_is_visible():
    """Asunder: "4 and 5: The difference of your fates is 1, which is a visible fate.
    You can play your 5 on Asunder"; allies learn the kept fate is 5 minus a visible."""
    s = setup(with_slot(EXAMPLE_SLOTS, "asunder"), (4, 5), EXAMPLE_TABLE)
    assert plays_on(s, 2) == {5}
    s = act(s, play_action(5, 2))
    assert s.lines[0] == mask(4, 3)


@pytest.mark.parametrize("hand", [(2, 5), (3, 3)])
def test_asunder_rejects_a_difference_that_is_not_visible(hand):
    """Asunder: "2 and 5: The difference of your fates is 3, which is not a visible
    fate"; "6 and 6: The difference ... is 0, which is not (and can never be) a visible
    fate" (a pair of 3s here: three 6s are already in play or in hand)."""
    s = setup(with_slot(EXAMPLE_SLOTS, "asunder"), hand, EXAMPLE_TABLE)
    assert plays_on(s, 2) == set()


@pytest.mark.parametrize("hand", [(1, 2), (2, 3), (3, 7), (4, 5)])
def test_asunder_cannot_be_played_with_no_visible_fates(hand):
    """Asunder Q/A "What if there are no visible fates?": "You cannot play either of your
    fates on Asunder in this case"."""
    s = setup(["asunder", "imago", "mirror", "shore"], hand)
    assert plays_on(s, 0) == set()


# --- The Captain ------------------------------------------------------------------------


@pytest.mark.parametrize(("hand", "playable"), [((4, 2), {4}), ((1, 4), set()), ((2, 3), set())])
def test_captain_takes_the_one_four_or_seven_when_the_other_is_not(hand, playable):
    """The Captain: "If you have one fate she wants and one she doesn't, you can play the
    fate she wants ... If you have two fates she wants or two fates she doesn't, you
    can't play anything on The Captain."""
    s = setup(["captain", "mirror", "shore", "deep"], hand)
    assert plays_on(s, 0) == playable


def test_captain_play_tells_the_hidden_fate_is_not_one_four_or_seven():
    """The Captain: the fates she doesn't want are 2, 3, 5, 6."""
    s = act(setup(["captain", "mirror", "shore", "deep"], (4, 2)), play_action(4, 0))
    assert s.lines[0] == mask(2, 3, 5, 6)


# --- The Feast --------------------------------------------------------------------------


def test_feast_play_draws_a_fate_and_the_player_plays_again():
    """The Feast: "You play your 1 on The Feast instead and draw a new fate. It's a 6!
    ... You play your 6 on Midnight, giving your allies a lot of information"."""
    s = setup(["feast", "midnight", "shore", "deep"], (1, 7))
    s = feast_play(s, play_action(1, 0), drawn=6)
    assert s.phase == Phase.PLAY
    assert sorted(s.hands[0]) == [6, 7]
    assert events(s, "feast_draw") == [("feast_draw", 0)]
    assert (6, 1) in play_targets(s)
    s = act(s, play_action(6, 1))
    assert s.phase == Phase.GROUP
    assert s.table[0] == [1] and s.table[1] == [6]
    assert s.lines[0] == mask(7)


def test_feast_with_a_carried_fate_keeps_the_number_line_true():
    """Number lines (docs/rules.md, Number lines): when the fate carried from the last turn
    goes on The Feast, the kept fate is the one drawn there; the line must still hold it."""
    s = setup(["feast", "dawn", "shore", "deep"], (2, 6), carried=2, lines={0: mask(2, 3)})
    s = feast_play(s, play_action(2, 0), drawn=4)
    s = act(s, play_action(6, 1))
    assert s.hands[0] == [4]
    assert s.lines[0] == mask(1, 2, 3, 4, 5)


def test_feast_cannot_be_played_on_twice_in_a_turn():
    """The Feast: "You may not play here again"; "you can only play on The Feast once
    per turn"."""
    s = setup(["feast", "midnight", "shore", "deep"], (1, 7))
    s = feast_play(s, play_action(1, 0), drawn=6)
    assert plays_on(s, 0) == set()
    with pytest.raises(IllegalActionError):
        act(s, play_action(6, 0))


def test_feast_second_play_may_be_forced_onto_the_hours_and_slide_onto_the_feast():
    """The Feast: "If you play on The Feast, but the new fate you draw doesn't allow you
    to play on any of the 3 other arcana cards, you'll have to play on The Hours. You
    can't play on The Feast again. If The Feast is next to The Hours, the fate you play
    on The Hours will still slide over onto The Feast." The slide draws nothing."""
    s = setup(["feast", "mirror", "deep", "shore"], (3, 6), table=[(5,), (), (), ()])
    assert (3, H) not in play_targets(s)  # The Feast itself is always playable first
    s = feast_play(s, play_action(3, 0), drawn=4)
    assert play_targets(s) == {(4, H), (6, H)}
    s = act(s, play_action(4, H))
    assert s.table[0] == [5, 3, 4]
    assert s.hands[0] == [6]
    assert len(events(s, "feast_draw")) == 1
    assert s.phase == Phase.GROUP
    s = finish(s)
    assert C["feast"] in s.faded  # 2 + 1 + 2 hours >= 4 moons
    assert s.doom == 2


def test_feast_pre_play_powers_may_be_used_before_the_second_play():
    """Shadows: used "before they play a fate"; engine: after a Feast play, a power may
    still be used before the second play if none was used yet this turn."""
    s = setup(["feast", "mirror", "deep", "shore"], (3, 6), faded=["fortune"])
    s = feast_play(s, play_action(3, 0), drawn=5)
    assert (6, 1) not in play_targets(s)
    assert power_actions(s, "shadows")
    s = act(s, power_action("shadows"))
    assert (6, 1) in play_targets(s)  # keeping 5, treated as 6: a pair for The Mirror
    s = act(s, play_action(6, 1))
    assert s.lines[0] == mask(5)
    s = finish(s, 5)
    assert s.score == 1


def test_feast_second_play_gets_no_power_when_one_was_used_before_the_first():
    """ "Only one faded power may be used per turn.\""""
    s = setup(["feast", "mirror", "deep", "shore"], (3, 6), faded=["fortune", "lantern"])
    s = act(s, power_action("shadows"))
    s = feast_play(s, play_action(3, 0), drawn=5)
    assert not any_power(s)


@pytest.mark.parametrize(("predictions", "doom", "score"), [((), 4, 0), ((5,), 0, 1)])
def test_feast_fading_with_the_second_card_costs_doom_for_each(predictions, doom, score):
    """The Feast: "you may actually cause multiple cards to fade in a single turn,
    suffering the penalty (2 doom) for each one! If your allies make a correct
    prediction, they'll still avoid all fading penalties for the turn."""
    s = setup(["feast", "beast", "mirror", "shore"], (1, 5), table=[(5, 1), (), (), ()])
    s = feast_play(s, play_action(1, 0), drawn=4)
    s = act(s, play_action(4, 1))
    s = finish(s, *predictions)
    assert C["feast"] in s.faded and C["beast"] in s.faded
    assert (s.doom, s.score) == (doom, score)


def test_feast_thief_steals_once_after_the_final_play():
    """The Thief: "after you play on another card, you must then move one fate";
    engine: it steals once, after the final play of the turn (not after The Feast)."""
    s = setup(["feast", "thief", "imago", "leviathan"], (1, 3), table=[(), (), (), (6,)])
    s = feast_play(s, play_action(1, 0), drawn=2)
    assert s.phase == Phase.PLAY
    s = act(s, play_action(3, 2))
    assert s.phase == Phase.STEAL
    assert set(legal_actions(s)) == {steal_action(2, 3), steal_action(3, 6)}
    s = act(s, steal_action(3, 6))
    assert events(s, "steal") == [("steal", 3, 6)]
    assert s.table[1] == [6]
    assert s.phase == Phase.GROUP


# --- Fortune ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "playable"),
    [((1, 1), set()), ((2, 4), set()), ((3, 7), {7}), ((3, 6), {3}), ((2, 5), {2})],
)
def test_fortune_rulebook_examples(hand, playable):
    """Fortune: "Two 1s: ... cannot"; "A 2 and a 4: ... cannot"; "A 3 and a 7: ... play
    your higher fate (7)"; "A 3 and a 6: ... lower fate (3)"; "A 2 and a 5: ... lower
    fate (2)"."""
    s = setup(["fortune", "mirror", "shore", "deep"], hand)
    assert plays_on(s, 0) == playable


@pytest.mark.parametrize(("hand", "played", "line"), [((3, 6), 3, (1, 4, 6)), ((4, 7), 4, (5, 7))])
def test_fortune_what_does_this_mean_for_my_allies(hand, played, line):
    """Fortune Q/A "What does this mean for my allies?": an odd fate played leaves a
    kept fate "even and higher or odd and lower"; an even one leaves it "odd and
    higher than the one you played"."""
    s = act(setup(["fortune", "mirror", "shore", "deep"], hand), play_action(played, 0))
    assert s.lines[0] == mask(*line)


# --- The Ghost --------------------------------------------------------------------------


@pytest.mark.parametrize(("hand", "playable"), [((4, 4), {4}), ((2, 5), set()), ((3, 4), set())])
def test_ghost_rulebook_examples(hand, playable):
    """The Ghost with 1, 2, 6, 6 visible: "2 and 5: ... cannot"; "3 and 4: ... cannot";
    "4 and 4: ... you can play either of your 4s"."""
    s = setup(with_slot(EXAMPLE_SLOTS, "ghost"), hand, EXAMPLE_TABLE)
    assert plays_on(s, 2) == playable


def test_ghost_four_tells_the_hidden_fate_is_four_or_six():
    """The Ghost: "Collectively, they've ruled out 1, 2, 3, 5, and 7. So you must have
    either a 4 or 6. Not bad!\""""
    s = act(setup(with_slot(EXAMPLE_SLOTS, "ghost"), (4, 4), EXAMPLE_TABLE), play_action(4, 2))
    assert s.lines[0] == mask(4, 6)


def test_ghost_if_there_are_no_visible_fates_can_i_play_on_it():
    """The Ghost Q/A "If there are no visible fates, can I play on The Ghost?": "Yes ...
    you can legally play either of your fates on The Ghost."""
    s = setup(["ghost", "mirror", "shore", "deep"], (2, 3))
    assert plays_on(s, 0) == {2, 3}


# --- Iron -------------------------------------------------------------------------------


def test_iron_with_no_fates_in_front_takes_either_fate():
    """Iron: "There are no fates in front of Iron, and you are holding 1 and 2. You may
    play either fate in front of Iron."""
    s = setup(["iron", "mirror", "shore", "lord"], (1, 2))
    assert plays_on(s, 0) == {1, 2}


@pytest.mark.parametrize(("hand", "playable"), [((2, 6), {2}), ((5, 6), {5, 6})])
def test_iron_what_if_multiple_fates_with_the_same_value_are_in_front(hand, playable):
    """Iron Q/A "What if multiple fates with the same value are in front of Iron?": "if
    1, 3, and 3 are in front of Iron, all that matters is that the highest fate is a 3";
    with 2 and 6 "you may play the 2"; with 5 and 6 "either of your fates"."""
    s = setup(["iron", "mirror", "shore", "lord"], hand, table=[(1, 3, 3), (), (), ()])
    assert plays_on(s, 0) == playable


def test_iron_play_tells_the_hidden_fate_beats_its_highest_fate():
    """Iron: "If one of your fates is higher than my highest visible fate, play your
    other fate here"."""
    s = setup(["iron", "mirror", "shore", "lord"], (2, 6), table=[(1, 3, 3), (), (), ()])
    s = act(s, play_action(2, 0))
    assert s.lines[0] == mask(4, 5, 6, 7)


IRON_STUCK = dict(slots=["iron", "dawn", "shore", "deep"], hand=(7, 7), table=[(7,), (), (), ()])


def test_iron_with_a_lone_seven_takes_no_more_fates():
    """Iron: "If there is a single 7 in front of Iron: No more fates can be played on
    Iron! ... holding 7 and 7, you cannot play on Iron"."""
    s = setup(**IRON_STUCK)
    assert plays_on(s, 0) == set()


def test_iron_with_a_lone_seven_still_fades_through_the_hours():
    """Iron: "if Iron is next to The Hours, it may still fade when fate slides off of The
    Hours and onto Iron."""
    s = setup(**IRON_STUCK)
    assert play_targets(s) == {(7, H)}
    s = act(s, play_action(7, H))
    assert s.table[0] == [7, 7]
    s = finish(s)
    assert C["iron"] in s.faded
    assert s.doom == 2


def test_iron_stuck_on_a_seven_can_be_unstuck_by_shadows():
    """Iron: "The faded powers Shadows ("+1") and Skies ("Relocate") can potentially be
    used to help keep Iron from remaining stuck" (Shadows: a kept 7 counts as 8)."""
    s = setup(**IRON_STUCK, faded=["ghost"])
    s = act(s, power_action("shadows"))
    assert plays_on(s, 0) == {7}
    s = act(s, play_action(7, 0))
    assert s.lines[0] == mask(7)


def test_iron_stuck_on_a_seven_can_be_unstuck_by_skies():
    """Iron: "faded powers that add, remove, or relocate visible fates may be used to
    affect Iron"; Skies moves the 7 away."""
    s = setup(**IRON_STUCK, faded=["lantern"])
    s = act(s, power_action("skies", slot=0, value=7, to_slot=2))
    assert s.table[0] == [] and s.table[2] == [7]
    assert plays_on(s, 0) == {7}


# --- The Lantern ------------------------------------------------------------------------


@pytest.mark.parametrize(("hand", "playable"), [((2, 5), set()), ((3, 6), {3, 6})])
def test_lantern_rulebook_examples(hand, playable):
    """The Lantern with 1, 2, 6, 6 visible: "2 and 5: ... 22, which is not divisible by
    4"; "3 and 6: ... 24 ... You can play either one"."""
    s = setup(with_slot(EXAMPLE_SLOTS, "lantern"), hand, EXAMPLE_TABLE)
    assert plays_on(s, 2) == playable


@pytest.mark.parametrize(("played", "line"), [(3, (2, 6)), (6, (3, 7))])
def test_lantern_play_tells_the_hidden_fate(played, line):
    """The Lantern: "If you play the 3, ... you could be holding a 2 ... or a 6. If you
    play the 6, ... you could be holding a 3 ... or a 7."""
    s = setup(with_slot(EXAMPLE_SLOTS, "lantern"), (3, 6), EXAMPLE_TABLE)
    s = act(s, play_action(played, 2))
    assert s.lines[0] == mask(*line)


# --- The Pallbearers --------------------------------------------------------------------


@pytest.mark.parametrize(("hand", "playable"), [((3, 5), {3, 5}), ((3, 6), set()), ((4, 4), set())])
def test_pallbearers_difference_of_one_or_two(hand, playable):
    """The Pallbearers: "If the difference is 1 or 2, you can play either one ... If the
    difference is larger than 2, or if the difference is 0 ..., you can't play here."""
    s = setup(["pallbearers", "mirror", "shore", "deep"], hand)
    assert plays_on(s, 0) == playable


def test_pallbearers_play_tells_the_hidden_fate_is_within_two():
    """The Pallbearers: "Within 2"."""
    s = act(setup(["pallbearers", "mirror", "shore", "deep"], (3, 5)), play_action(3, 0))
    assert s.lines[0] == mask(1, 2, 4, 5)


# --- The Passage ------------------------------------------------------------------------


@pytest.mark.parametrize(("hand", "playable"), [((2, 5), set()), ((1, 7), set()), ((2, 7), {2, 7})])
def test_passage_rulebook_examples(hand, playable):
    """The Passage with 1, 2, 6, 6 visible: "2 and 5: ... cannot"; "1 and 7: ... more
    than 1 visible value ... cannot"; "2 and 7: ... you may play either"."""
    s = setup(with_slot(EXAMPLE_SLOTS, "passage"), hand, EXAMPLE_TABLE)
    assert plays_on(s, 2) == playable


def test_passage_two_tells_the_hidden_fate_is_seven():
    """The Passage: "your other fate must be a 7, since no other value would be higher
    than 6. Nice!\""""
    s = setup(with_slot(EXAMPLE_SLOTS, "passage"), (2, 7), EXAMPLE_TABLE)
    s = act(s, play_action(2, 2))
    assert s.lines[0] == mask(7)


# --- The Wish ---------------------------------------------------------------------------

WISH = dict(slots=["wish", "mirror", "shore", "deep"], hand=(3, 5))


def test_wish_gives_the_allies_one_extra_prediction():
    """The Wish: "If you do, your allies may make one extra prediction this turn."""
    s = act(setup(**WISH), play_action(3, 0))
    assert s.preds_left == 2
    s = act(s, predict_action(4))
    assert s.phase == Phase.GROUP
    assert not s.lines[0] >> 3 & 1  # the miss is public: not a 4


def test_wish_if_my_allies_guess_twice_but_one_prediction_is_wrong_does_doom_advance():
    """The Wish Q/A "If my allies guess twice but one of the predictions is wrong, does
    doom advance?": "Not if the other guess is correct."""
    s = act(setup(**WISH), play_action(3, 0))
    s = finish(s, 4, 5)
    assert (s.score, s.doom) == (1, 0)


def test_wish_and_sorrows_three_wrong_predictions_advance_doom_once():
    """The Wish Q/A: "it is possible that they might make as many as three incorrect
    predictions in a single turn. Even if this happens, the doom still only advances
    once"."""
    s = act(setup(**WISH, faded=["beast"]), play_action(3, 0), power_action("sorrows"))
    assert s.preds_left == 3
    s = finish(s, 1, 2, 4)
    assert (s.score, s.doom) == (0, 1)


def test_wish_third_prediction_may_still_be_correct():
    """The Wish Q/A: "If any of the three predictions are correct, doom does not advance
    at all."""
    s = act(setup(**WISH, faded=["beast"]), play_action(3, 0), power_action("sorrows"))
    s = finish(s, 1, 2, 5)
    assert (s.score, s.doom) == (1, 0)


# --- The Imago --------------------------------------------------------------------------


def test_imago_counts_a_seven_played_there_as_one_hour():
    """The Imago: "7s played on The Imago only count as 1 hour when calculating whether
    the card is about to fade, instead of their normal value of 3 hours."""
    s = setup(["imago", "mirror", "shore", "deep"], (7, 3), table=[(7,), (), (), ()])
    s = act(s, play_action(7, 0))
    assert slot_hours(s, 0) == 2
    s = finish(s)
    assert s.slots[0] == C["imago"]


def test_imago_counts_a_seven_moved_there_by_skies_as_one_hour():
    """Our ruling (docs/rules.md, decision 20): The Imago's "7s played on The Imago"
    covers a 7 moved there by Skies too -- any 7 in front of it counts 1 hour. With two
    7s it has 2 hours, under its 3 moons, and stays (3 hours each would fade it)."""
    s = setup(
        ["imago", "mirror", "shore", "deep"], (3, 3), table=[(7,), (7,), (), ()], faded=["feast"]
    )
    s = act(s, power_action("skies", slot=1, value=7, to_slot=0))
    assert s.table[0] == [7, 7]
    assert slot_hours(s, 0) == 2
    plays = [a for a in legal_actions(s) if ACTIONS[a].kind == "play" and ACTIONS[a].slot != 0]
    s = finish(act(s, plays[0]))
    assert s.slots[0] == C["imago"]
    assert C["imago"] not in s.faded


def test_imago_fades_when_its_sevens_reach_three_hours():
    """The Imago: three 7s count 3 hours, its 3 moons."""
    s = setup(["imago", "mirror", "shore", "deep"], (7, 3), table=[(7, 7), (), (), ()])
    s = finish(act(s, play_action(7, 0)))
    assert C["imago"] in s.faded


def test_imago_other_fates_count_their_usual_hours():
    """The Imago: only 7s are delayed; a 5 and a 4 count 2 hours each."""
    s = setup(["imago", "mirror", "shore", "deep"], (4, 3), table=[(5,), (), (), ()])
    s = finish(act(s, play_action(4, 0)))
    assert C["imago"] in s.faded


# --- The Ash ----------------------------------------------------------------------------


@pytest.mark.parametrize(("hand", "playable"), [((7, 3), {7}), ((6, 6), set()), ((1, 2), set())])
def test_ash_takes_only_sevens(hand, playable):
    """The Ash: "The only fates which can be played on The Ash are 7s."""
    s = setup(["ash", "mirror", "shore", "deep"], hand)
    assert plays_on(s, 0) == playable


def test_ash_fades_at_the_end_of_a_turn_when_a_one_or_two_is_played_anywhere():
    """The Ash: "whenever a 1 or a 2 is played on any card in play, The Ash fades at the
    end of the turn."""
    s = act(setup(["ash", "imago", "captain", "dawn"], (2, 5)), play_action(2, 1))
    assert s.slots[0] == C["ash"]  # not before the end of the turn
    s = finish(s)
    assert C["ash"] in s.faded
    assert s.doom == 2


@pytest.mark.parametrize(("predictions", "doom", "score"), [((), 4, 0), ((2,), 0, 1)])
def test_ash_when_exactly_does_it_fade(predictions, doom, score):
    """The Ash Q/A "When exactly does The Ash fade?": "At the end of the turn, alongside
    any other cards which are fading this turn. It also incurs 2 doom ... in addition to
    the doom incurred by other cards ... if the group makes a correct prediction, all
    doom caused by fading this turn will be prevented, and the group will score 1 point."""
    s = act(setup(["ash", "beast", "captain", "shore"], (1, 2)), play_action(1, 1))
    s = finish(s, *predictions)
    assert C["ash"] in s.faded and C["beast"] in s.faded
    assert (s.doom, s.score) == (doom, score)


def test_ash_how_many_moons_does_it_have():
    """The Ash Q/A "How many moons does The Ash have?": "None" -- 7s (9 hours) in front
    of it never make it fade."""
    s = setup(["ash", "mirror", "shore", "deep"], (7, 3), table=[(7, 7), (), (), ()])
    s = finish(act(s, play_action(7, 0)))
    assert s.slots[0] == C["ash"]
    assert s.table[0] == [7, 7, 7]


def test_ash_what_if_ones_or_twos_are_already_in_play_when_it_enters():
    """The Ash Q/A "What if there are 1s or 2s already in play when The Ash enters
    play?": "The Ash ignores any fates already in play. It only cares about new 1s or 2s
    that are played."""
    s = setup(["ash", "imago", "captain", "shore"], (4, 6), table=[(), (1, 2), (), ()])
    s = finish(act(s, play_action(4, 2)))
    assert s.slots[0] == C["ash"]
    assert s.doom == 0


def test_ash_entering_play_on_the_turn_a_one_was_played_does_not_fade():
    """The Ash Q/A: a 1 played before The Ash entered play (it refills the slot of the
    card that 1 made fade) does not count."""
    s = setup(["beast", "imago", "captain", "shore"], (1, 2), deck=["ash"])
    s = finish(act(s, play_action(1, 0)))
    assert s.slots[0] == C["ash"]
    assert C["ash"] not in s.faded


def test_ash_fades_even_if_the_low_fate_was_removed_by_sinners():
    """The Ash Q/A "What if a 1 or 2 is played but then we get rid of it with a faded
    power like Sinners (Discard Lower) ...?": "Even if the offending 1 or 2 is removed
    from the board, The Ash will still fade"."""
    s = setup(["ash", "imago", "captain", "dawn"], (2, 5), faded=["belltower"])
    s = act(s, play_action(2, 1), power_action("sinners", slot=1, value=2))
    assert s.table[1] == []
    s = finish(s)
    assert C["ash"] in s.faded


def test_ash_fades_even_if_the_low_fate_was_exiled_by_sails():
    """The Ash Q/A "... or Sails (Exile)?": "Even if the offending 1 or 2 is removed from
    the board, The Ash will still fade because a 1 or 2 was played this turn."""
    s = setup(["ash", "imago", "captain", "deep"], (2, 5), faded=["musicians", "dawn"])
    s = act(s, play_action(2, 1), predict_action(5))
    assert s.phase == Phase.SAILS
    s = act(s, power_action("sails", slot=1, value=2), cost_action("saints"))
    assert s.exiled[1] == 1
    assert ("fade", 0, "ash") in s.last_events
    assert C["ash"] in s.faded
    assert (s.score, s.doom) == (1, 0)


def test_ash_what_if_i_play_a_one_or_two_on_the_hours():
    """The Ash Q/A "What if I play a 1 or 2 on The Hours?": "The Ash will still fade at
    the end of the turn."""
    s = setup(["lord", "ash", "shore", "mirror"], (1, 3))
    assert play_targets(s) == {(1, H), (3, H)}
    s = act(s, play_action(1, H))
    assert s.table[0] == [1]
    s = finish(s)
    assert C["ash"] in s.faded
    assert s.doom == 2


def test_ash_fades_when_a_low_fate_is_played_on_the_feast():
    """Engine: The Ash fades after a 1 or 2 played anywhere, The Feast included."""
    s = setup(["feast", "ash", "imago", "shore"], (2, 5))
    s = feast_play(s, play_action(2, 0), drawn=6)
    s = finish(act(s, play_action(6, 2)))
    assert C["ash"] in s.faded


def test_ash_can_have_other_fates_in_front_of_it_besides_sevens():
    """The Ash Q/A "Can The Ash have other fates in front of it besides 7s?": "you could
    use a faded power such as Skies to relocate other fates onto The Ash ... adding
    additional fates onto it still won't cause it to fade. You can even move 1s or 2s
    onto it -- as long as they were played before The Ash entered play!\""""
    s = setup(["ash", "imago", "captain", "shore"], (5, 6), [(), (), (1,), ()], faded=["lantern"])
    s = act(s, power_action("skies", slot=2, value=1, to_slot=0), play_action(5, 1))
    s = finish(s)
    assert s.slots[0] == C["ash"]
    assert s.table[0] == [1]
    assert s.doom == 0


# --- The Fall ---------------------------------------------------------------------------

FALL_SLOTS = ["fall", "imago", "captain", "shore"]


@pytest.mark.parametrize("hand", [(1, 2), (4, 7), (6, 6)])
def test_fall_takes_any_fate(hand):
    """The Fall: "You can always legally play any fate onto The Fall."""
    assert plays_on(setup(FALL_SLOTS, hand), 0) == set(hand)


def test_fall_rulebook_example_play_three_keeping_two_fades():
    """The Fall: "there is a 1 on The Fall, and you are holding a 3 and 2. You play the 3
    on The Fall, and announce that it will fade this turn." It fades for 2 doom."""
    s = setup(FALL_SLOTS, (3, 2), table=[(1,), (), (), ()])
    s = act(s, play_action(3, 0))
    assert events(s, "fall") == [("fall", True)]
    assert s.lines[0] == mask(1, 2)  # 4 >= 2 x kept
    s = finish(s)
    assert C["fall"] not in s.slots
    assert s.doom == 2


def test_fall_can_fade_when_the_fate_is_played_elsewhere():
    """The Fall: "The Fall can fade even if you play somewhere else."""
    s = setup(FALL_SLOTS, (6, 2), table=[(5,), (), (), ()])
    s = act(s, play_action(6, 1))
    assert events(s, "fall") == [("fall", True)]
    s = finish(s)
    assert C["fall"] not in s.slots


def test_fall_announces_when_it_does_not_fade():
    """The Fall: "you must then announce whether The Fall will fade this turn"."""
    s = setup(FALL_SLOTS, (3, 5), table=[(5,), (), (), ()])
    s = act(s, play_action(3, 1))
    assert events(s, "fall") == [("fall", False)]
    assert s.lines[0] == mask(3, 4, 5, 6, 7)  # 5 < 2 x kept
    s = finish(s)
    assert s.slots[0] == C["fall"]


@pytest.mark.parametrize(("prediction", "score", "doom"), [(2, 1, 0), (1, 0, 3)])
def test_fall_fades_by_the_hidden_fate_even_after_a_prediction(prediction, score, doom):
    """The Fall Q/A "If I no longer have a hidden fate at the end of the turn, does The
    Fall still fade?": "Yes ... Even if the group makes a prediction, causing you to
    reveal and discard your hidden fate, The Fall still fades based on the value of the
    hidden fate you were holding."""
    s = setup(FALL_SLOTS, (3, 2), table=[(3,), (), (), ()])
    s = finish(act(s, play_action(3, 0)), prediction)
    assert C["fall"] not in s.slots
    assert (s.score, s.doom) == (score, doom)


def test_fall_when_is_the_group_allowed_to_know_if_it_will_fade():
    """The Fall Q/A "When is the group allowed to know if The Fall will fade this
    turn?": "Once the active player is done playing fates" -- announced before the
    group's phase, not before the play."""
    s = setup(FALL_SLOTS, (3, 2), table=[(1,), (), (), ()])
    assert events(s, "fall") == []
    s = act(s, play_action(3, 0))
    assert s.phase == Phase.GROUP
    assert events(s, "fall") == [("fall", True)]


def test_fall_announcement_reflects_a_fate_relocated_by_skies():
    """The Fall Q/A example: "there is a 1 on The Fall, and you are holding a 3 and 2 ...
    use the faded power Skies to relocate the 1 from The Fall to another arcana card. You
    now inform the group that The Fall is no longer fading this turn." (The engine's
    Skies comes before the play, as its own text says.)"""
    s = setup(FALL_SLOTS, (3, 2), table=[(1,), (), (), ()], faded=["lantern"])
    s = act(s, power_action("skies", slot=0, value=1, to_slot=1), play_action(3, 0))
    assert events(s, "fall") == [("fall", False)]
    s = finish(s)
    assert s.slots[0] == C["fall"]


def test_fall_announcement_is_updated_when_sinners_changes_it():
    """The Fall Q/A: "if the answer changes (for example, by using faded powers), the
    active player must update the group ... Other powers that might change whether The
    Fall is fading include Sinners (Discard Lower)"."""
    s = setup(FALL_SLOTS, (2, 3), table=[(1, 3), (), (), ()], faded=["belltower"])
    s = act(s, play_action(2, 0))
    assert events(s, "fall") == [("fall", True)]  # 6 >= 2 x 3
    s = act(s, power_action("sinners", slot=0, value=1))
    assert events(s, "fall") == [("fall", True), ("fall", False)]  # 5 < 6
    assert s.lines[0] == mask(3)
    s = finish(s)
    assert s.slots[0] == C["fall"]


def test_fall_reads_the_hidden_fate_plus_one_under_shadows():
    """The Fall Q/A: "Other powers that might change whether The Fall is fading include
    ... Shadows (+1)": 4 + 3 = 7 is at least twice 3, but not twice 3 + 1."""
    s = setup(FALL_SLOTS, (3, 3), table=[(4,), (), (), ()], faded=["ghost"])
    s = act(s, power_action("shadows"), play_action(3, 0))
    assert events(s, "fall") == [("fall", False)]
    s = finish(s)
    assert s.slots[0] == C["fall"]


def test_fall_how_does_sails_interact_with_it():
    """The Fall Q/A "How does the faded power Sails (Exile) interact with The Fall?": "If
    exiling one fate away causes the remaining sum to no longer be twice the hidden
    fate's value, The Fall will no longer fade this turn."""
    s = setup(FALL_SLOTS, (3, 3), table=[(3,), (), (), ()], faded=["musicians", "dawn"])
    s = act(s, play_action(3, 0))
    assert events(s, "fall") == [("fall", True)]
    s = act(s, predict_action(3), power_action("sails", slot=0, value=3), cost_action("saints"))
    assert last(s, "exile") == [("exile", 0, 3)]
    assert last(s, "fall") == [("fall", True), ("fall", False)]
    assert last(s, "fade") == []
    assert s.slots[0] == C["fall"]
    assert s.table[0] == [3]
    assert (s.score, s.doom, s.exiled[2]) == (1, 0, 1)


def test_fall_is_announced_after_the_thief_steals():
    """Rulings, turn order: "Hours slide, The Thief's steal, The Chalice's tell, The
    Fall's ..." -- The Thief taking the 6 from The Fall stops it fading."""
    s = setup(["thief", "fall", "captain", "imago"], (3, 4), table=[(), (6, 1), (), ()])
    s = act(s, play_action(4, 3))
    assert s.phase == Phase.STEAL
    assert set(legal_actions(s)) == {steal_action(1, 6), steal_action(3, 4)}
    s = act(s, steal_action(1, 6))
    assert events(s, "fall") == [("fall", False)]
    kinds = [e[0] for e in s.events]
    assert kinds.index("steal") < kinds.index("fall")


# --- The Musicians ----------------------------------------------------------------------

MUSICIANS = dict(
    slots=["shore", "leviathan", "musicians", "mirror"], hand=(5, 2), table=[(4,), (7,), (), ()]
)


def test_musicians_rulebook_example_plays_either_fate():
    """The Musicians: "if you are holding 5 and 2, and a 4 and 7 are visible, the sum of
    your fates plus 4 is 11, so you can play either fate on The Musicians."""
    assert plays_on(setup(**MUSICIANS), 2) == {2, 5}


@pytest.mark.parametrize(("played", "line"), [(5, (6, 2)), (2, (5, 2))])
def test_musicians_play_tells_the_hidden_fate(played, line):
    """The Musicians: "If you play the 5, ... a 6 (5+6=11) or 2 (5+2+4=11)"; "If you play
    the 2, ... you must have a 5 (2+4+5 = 11) or 2 (2+2+7 = 11)."""
    s = act(setup(**MUSICIANS), play_action(played, 2))
    assert s.lines[0] == mask(*line)


# --- The North Wind ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "playable"),
    [((2, 5), {2, 5}), ((1, 7), set()), ((4, 7), {4, 7}), ((4, 6), set()), ((3, 3), set())],
)
def test_north_wind_one_fate_has_exactly_one_more_hour(hand, playable):
    """The North Wind: "if one of your fates is a 1, 2, or 3, and the other is a 4, 5, or
    6; if one of your fates is a 4, 5, or 6, and the other is a 7" -- not 1-3 with 7, not
    two fates of the same tier."""
    s = setup(["north_wind", "mirror", "shore", "deep"], hand)
    assert plays_on(s, 0) == playable


def test_shadows_does_changing_the_value_affect_the_number_of_hours():
    """Shadows Q/A "Does changing the value affect the number of hours on the fate?":
    "No ... if you have two 3's and you change one of them to a 4, you still cannot play
    on The North Wind."""
    s = setup(["north_wind", "mirror", "shore", "deep"], (3, 3), faded=["ghost"])
    s = act(s, power_action("shadows"))
    assert plays_on(s, 0) == set()


# --- The Thief --------------------------------------------------------------------------

THIEF = dict(slots=["thief", "imago", "captain", "dawn"], table=[(), (), (), (5,)])


@pytest.mark.parametrize("hand", [(1, 2), (7, 7), (3, 5)])
def test_thief_is_never_played_on(hand):
    """The Thief: "You can never play a fate directly onto The Thief."""
    assert plays_on(setup(["thief", "mirror", "shore", "deep"], hand), 0) == set()


def test_thief_must_steal_a_visible_fate_higher_than_the_hidden_fate():
    """The Thief: "you must then move one fate from in front of any card other than The
    Thief onto The Thief, if that fate is higher than your hidden fate"."""
    s = act(setup(**THIEF, hand=(2, 3)), play_action(3, 1))
    assert s.phase == Phase.STEAL
    assert set(legal_actions(s)) == {steal_action(1, 3), steal_action(3, 5)}  # no pass
    s = act(s, steal_action(3, 5))
    assert events(s, "steal") == [("steal", 3, 5)]
    assert s.table[0] == [5] and s.table[3] == []
    assert s.lines[0] & ~mask(1, 2, 3, 4) == 0  # kept < 5


def test_thief_may_take_the_fate_just_played():
    """The Thief Q/A example: "You play the 3 onto an arcana card. Because the 3 is higher
    than your hidden 2, you must now move it onto The Thief."""
    s = act(setup(**THIEF, hand=(2, 3)), play_action(3, 1), steal_action(1, 3))
    assert s.table[0] == [3] and s.table[1] == []


def test_thief_stealing_may_change_which_cards_fade():
    """The Thief: "This may change which cards fade at the end of the turn": the 4 taken
    from The Captain saves it; The Thief (2 moons) fades instead."""
    s = setup(["thief", "captain", "mirror", "shore"], (4, 3), table=[(), (4,), (), ()])
    s = act(s, play_action(4, 1))
    assert set(legal_actions(s)) == {steal_action(1, 4)}
    s = finish(act(s, steal_action(1, 4)))
    assert s.slots[1] == C["captain"]
    assert C["thief"] in s.faded


def test_thief_what_if_no_visible_fate_is_higher_than_my_hidden_fate():
    """The Thief Q/A "What if no visible fate is higher than my hidden fate?": "Announce
    that you cannot move any visible fates onto The Thief."""
    s = act(setup(**THIEF, hand=(2, 6)), play_action(2, 1))
    assert s.phase == Phase.STEAL
    assert legal_actions(s) == [PASS]
    s = act(s, PASS)
    assert events(s, "steal") == [("steal", -1, 0)]
    assert s.lines[0] == mask(5, 6, 7)  # nothing above it: kept >= 5
    assert s.table[0] == []


def test_thief_takes_nothing_when_shadows_raises_the_hidden_fate():
    """The Thief Q/A "What if I use a faded power to change my hidden fate?": "Say you are
    holding a 2 and 3. You play the 3 ... you use the Shadows (+1) power ... Because
    your hidden 2 is now treated as 2+1=3, no visible fates are higher than your hidden
    fate. You would then announce that you cannot move any fates."""
    s = setup(["thief", "imago", "captain", "dawn"], (2, 3), faded=["fortune"])
    s = act(s, play_action(3, 1))
    assert s.phase == Phase.STEAL
    assert set(legal_actions(s)) == {steal_action(1, 3), power_action("shadows")}
    s = act(s, power_action("shadows"))
    assert legal_actions(s) == [PASS]
    s = act(s, PASS)
    assert events(s, "steal") == [("steal", -1, 0)]
    assert s.table[1] == [3]


def test_thief_what_happens_when_i_play_on_the_hours_and_it_is_next_to_it():
    """The Thief Q/A "What happens when I play on The Hours and The Thief is next to it?":
    "Perform this move before having The Thief steal a fate. That means the fate played
    on The Hours is not available for The Thief to steal"."""
    s = setup(["thief", "mirror", "deep", "beast"], (4, 6), table=[(), (), (5,), ()])
    assert play_targets(s) == {(4, H), (6, H)}
    s = act(s, play_action(6, H))
    assert s.table[0] == [6]
    assert s.phase == Phase.STEAL
    assert set(legal_actions(s)) == {steal_action(2, 5)}
    s = act(s, steal_action(2, 5))
    assert s.table[0] == [6, 5]


def test_thief_does_not_steal_a_fate_already_in_front_of_it():
    """The Thief: "move one fate from in front of any card other than The Thief"."""
    s = setup(["thief", "imago", "captain", "dawn"], (2, 3), table=[(7,), (), (), ()])
    s = act(s, play_action(3, 1))
    assert set(legal_actions(s)) == {steal_action(1, 3)}


# --- Shackles ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "answer", "line"), [((6, 4), True, (4, 5, 6, 7)), ((6, 3), False, (1, 2, 3))]
)
def test_shackles_asks_whether_the_fates_are_within_two(hand, answer, line):
    """Shackles: "if the active player plays a 6 ... If the active player responds "yes,"
    they must have a 4 ..., 5 ..., 6 ..., or 7 ... If ... "no," they must have a 1 ..., 2
    ..., or 3"."""
    s = setup(["imago", "mirror", "shore", "deep"], hand, faded=["pallbearers"])
    s = act(s, play_action(6, 0))
    assert power_actions(s, "shackles") == {power_action("shackles")}
    s = act(s, power_action("shackles"))
    assert events(s, "power") == [("power", "shackles", 6, answer)]
    assert s.lines[0] == mask(*line)
    assert C["pallbearers"] == s.deck[-1]


def test_shackles_what_if_the_active_player_had_more_than_two_fates():
    """Shackles Q/A "What if the active player had more than 2 fates over the course of
    their turn?": "the active player should ignore the value of the fate played on The
    Feast when answering"."""
    s = setup(["feast", "imago", "mirror", "shore"], (1, 7), faded=["pallbearers"])
    s = feast_play(s, play_action(1, 0), drawn=6)
    s = act(s, play_action(6, 1), power_action("shackles"))
    assert events(s, "power") == [("power", "shackles", 6, True)]  # |7 - 1| would say no


def test_shackles_is_used_by_the_group_after_the_play():
    """Shackles: "can only be used by the group, and can only be used after the active
    player has finished playing fates"."""
    s = setup(["imago", "mirror", "shore", "deep"], (6, 4), faded=["pallbearers"])
    assert not power_actions(s, "shackles")
    s = act(s, play_action(6, 0))
    assert s.decider == s.leader


# --- Shadows ----------------------------------------------------------------------------


def test_shadows_treats_a_four_as_a_five_for_the_mirror():
    """Shadows: "the active player has 4 and 5 ... can use Shadows to treat their 4 as a
    5 (4+1 = 5), and then play on The Mirror because both of their fates are now 5s."""
    s = setup(["mirror", "shore", "deep", "dawn"], (4, 5), faded=["fortune"])
    assert plays_on(s, 0) == set()
    s = act(s, power_action("shadows"))
    assert plays_on(s, 0) == {5}
    s = act(s, play_action(5, 0))
    assert s.lines[0] == mask(4)


@pytest.mark.parametrize(("prediction", "score", "doom"), [(4, 1, 0), (5, 0, 3)])
def test_shadows_does_the_group_guess_the_original_or_the_modified_value(prediction, score, doom):
    """Shadows Q/A "Does the group guess the original value of the hidden fate, or the
    modified value?" -- engine decision (docs/rules.md, decision 12): after Shadows a
    prediction is correct only when it names the kept fate's real value."""
    s = setup(["mirror", "shore", "deep", "dawn"], (4, 5), faded=["fortune"])
    s = act(s, power_action("shadows"), play_action(5, 0), predict_action(prediction))
    assert last(s, "predict") == [("predict", prediction, prediction == 4)]
    assert (s.score, s.doom) == (score, doom)  # a miss: 1, The Mirror fading: 2


def test_shadows_if_the_group_does_not_predict_is_the_fate_modified_next_turn():
    """Shadows Q/A "If the group does not make a prediction, does the hidden fate remain
    modified next turn?": "No. Once the turn ends, treat the fate as its original value"
    -- the number line holds the real value."""
    s = setup(["mirror", "shore", "deep", "dawn"], (4, 5), faded=["fortune"])
    s = finish(act(s, power_action("shadows"), play_action(5, 0)))
    assert s.active == 1
    assert not s.shadows
    assert s.hands[0] == [4]
    assert s.lines[0] == mask(4)


def test_shadows_with_two_fours_still_cannot_play_on_dawn():
    """Shadows Q/A "How does Shadows interact with cards like Dawn or The Noble?": "If you
    have two 4s in your hand and use Shadows ... you still cannot play on it."""
    s = setup(["dawn", "shore", "deep", "lord"], (4, 4), faded=["fortune"])
    s = act(s, power_action("shadows"))
    assert plays_on(s, 0) == set()


def test_shadows_with_two_and_six_still_cannot_play_on_the_noble():
    """Shadows Q/A (Dawn or The Noble): "If you have a 2 and a 6 in hand and use Shadows,
    you still can't play on The Noble"."""
    s = setup(["noble", "mirror", "deep", "beast"], (2, 6), faded=["fortune"])
    assert plays_on(s, 0) == set()
    s = act(s, power_action("shadows"))
    assert plays_on(s, 0) == set()


def test_shadows_treats_a_hidden_seven_as_an_eight():
    """Shadows: "you can treat a hidden fate of 7 as though it's an 8. This can allow you
    to create plays that would not be possible otherwise!" (Midnight with 7 and 7)."""
    s = setup(["midnight", "shore", "deep", "lord"], (7, 7), faded=["fortune"])
    assert plays_on(s, 0) == set()
    s = act(s, power_action("shadows"))
    assert plays_on(s, 0) == {7}
    s = act(s, play_action(7, 0))
    assert s.lines[0] == mask(7)


def test_shadows_may_make_the_hours_the_only_play():
    """The Hours Q/A: "If you currently can play elsewhere, but using a power (such as
    Shadows) would make it impossible for you to play anywhere except The Hours, you may
    either: Not use the power, and play elsewhere. Use the power, and play on The Hours."""
    s = setup(["mirror", "lord", "dawn", "shore"], (4, 4), faded=["fortune"])
    assert play_targets(s) == {(4, 0)}
    assert power_actions(s, "shadows")
    s = act(s, power_action("shadows"))
    assert play_targets(s) == {(4, H)}
    s = act(s, play_action(4, H))
    assert s.table[0] == [4]
    assert s.lines[0] >> 3 & 1


def test_hours_may_be_played_instead_of_using_shadows():
    """The Hours Q/A "What if I can't play anywhere except The Hours, but using a power
    (such as Shadows) would let me play elsewhere?": "Not use the power, and play on The
    Hours.\""""
    s = setup(["mirror", "shore", "huntress", "deep"], (4, 5), faded=["fortune"])
    assert play_targets(s) == {(4, H), (5, H)}
    assert power_actions(s, "shadows")
    s = act(s, play_action(4, H))
    assert s.table[0] == [4]


def test_hours_is_forbidden_once_shadows_opens_a_play():
    """The Hours Q/A: "if you do use the power and now can play elsewhere, you must play
    elsewhere."""
    s = setup(["mirror", "shore", "huntress", "deep"], (4, 5), faded=["fortune"])
    s = act(s, power_action("shadows"))
    assert play_targets(s) == {(5, 0), (4, 2)}
    with pytest.raises(IllegalActionError):
        act(s, play_action(4, H))


def test_shadows_raises_the_hidden_fate_for_the_chalice():
    """Shadows: "treat the fate they don't play this turn as 1 higher this turn" --
    The Chalice tells whether the kept fate is higher: a kept 3 counts 4 above a 3."""
    s = setup(["chalice", "mirror", "shore", "deep"], (3, 3), faded=["fortune"])
    s = act(s, power_action("shadows"), play_action(3, 0))
    assert events(s, "chalice") == [("chalice", True)]


def test_shadows_raises_the_hidden_fate_for_the_thief():
    """Shadows used before the play: the Thief finds nothing above a kept 2 counted as 3."""
    s = setup(["thief", "imago", "mirror", "shore"], (2, 3), faded=["fortune"])
    s = act(s, power_action("shadows"), play_action(3, 1))
    assert s.phase == Phase.STEAL
    assert legal_actions(s) == [PASS]


def test_shadows_in_the_thief_window_also_raises_the_fate_for_the_fall():
    """The Thief Q/A: Shadows may be used after the play, before The Thief resolves; The
    Fall Q/A: Shadows may change whether The Fall is fading (4 >= 2 x 2, not 2 x 3)."""
    s = setup(["thief", "fall", "imago", "captain"], (2, 3), [(), (3, 1), (), ()], faded=["iron"])
    s = act(s, play_action(3, 2))
    assert set(legal_actions(s)) == {
        steal_action(1, 3),
        steal_action(2, 3),
        power_action("shadows"),
    }
    s = act(s, power_action("shadows"), PASS)
    assert events(s, "fall") == [("fall", False)]
    s = finish(s)
    assert s.slots[1] == C["fall"]


def test_shadows_is_only_offered_before_the_play():
    """Shadows: "can only be used by the active player ... after they draw ... but before
    they play a fate" (and in The Thief's window, Thief Q/A)."""
    s = setup(["imago", "mirror", "shore", "deep"], (2, 3), faded=["fortune"])
    assert power_actions(s, "shadows") == {power_action("shadows")}
    s = act(s, play_action(3, 0))
    assert s.phase == Phase.GROUP
    assert not power_actions(s, "shadows")


def test_only_one_faded_power_per_turn_whoever_uses_it():
    """Faded Card Powers: "Only one faded power may be used per turn." Shadows used by the
    active player leaves Storms unavailable to the group."""
    s = setup(["mirror", "shore", "deep", "dawn"], (4, 5), faded=["fortune", "passage"])
    s = act(s, power_action("shadows"), play_action(5, 0))
    assert s.phase == Phase.GROUP
    assert not any_power(s)
    assert s.faded == [C["passage"]]


# --- Skies ------------------------------------------------------------------------------


def test_skies_moves_one_visible_fate_to_another_arcana_card():
    """Skies: "they choose a single visible fate in front of an arcana card, and move it
    in front a new arcana card. They then continue their turn."""
    s = setup(["captain", "imago", "mirror", "shore"], (4, 6), [(), (3,), (), ()], faded=["feast"])
    assert power_actions(s, "skies") == {
        power_action("skies", slot=1, value=3, to_slot=t) for t in (0, 2, 3)
    }
    s = act(s, power_action("skies", slot=1, value=3, to_slot=0))
    assert s.table[0] == [3] and s.table[1] == []
    assert s.phase == Phase.PLAY
    assert s.deck[-1] == C["feast"]


@pytest.mark.parametrize(("predictions", "doom", "score"), [((), 4, 0), ((5,), 0, 1)])
def test_skies_what_happens_if_i_cause_multiple_cards_to_fade(predictions, doom, score):
    """Skies Q/A "What happens if I use Skies to cause multiple cards to fade in the same
    turn?": "If your allies make a correct prediction this turn, the doom track won't
    advance no matter how many cards fade. However, if your allies don't make a correct
    prediction, you'll incur doom for each card that fades."""
    s = setup(
        ["beast", "huntress", "chalice", "shore"], (3, 5), [(), (), (3,), ()], faded=["feast"]
    )
    s = act(s, power_action("skies", slot=2, value=3, to_slot=0), play_action(3, 1))
    s = finish(s, *predictions)
    assert C["beast"] in s.faded and C["huntress"] in s.faded
    assert (s.doom, s.score) == (doom, score)


# --- Storms -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "answer", "line"), [((3, 5), False, (1, 2, 4, 5, 6, 7)), ((3, 3), True, (3,))]
)
def test_storms_may_name_the_fate_just_played(hand, answer, line):
    """Storms Q/A "Can the group choose a fate that was just played by the active player
    this turn?": "Yes."""
    s = setup(["imago", "mirror", "shore", "deep"], hand, faded=["passage"])
    s = act(s, play_action(3, 0))
    assert power_actions(s, "storms") == {power_action("storms", value=3)}
    s = act(s, power_action("storms", value=3))
    assert events(s, "power") == [("power", "storms", 3, answer)]
    assert s.lines[0] == mask(*line)


def test_storms_may_name_any_visible_fate():
    """Storms: "they collectively choose a visible fate in front of an arcana card"."""
    s = setup(
        ["imago", "captain", "shore", "deep"], (3, 5), [(), (6,), (), (1,)], faded=["asunder"]
    )
    s = act(s, play_action(3, 0))
    assert power_actions(s, "storms") == {power_action("storms", value=v) for v in (1, 3, 6)}


def test_storms_can_the_group_use_it_if_there_are_no_visible_fates():
    """Storms Q/A "Can the group use this power if there are no visible fates?": "if the
    active player had immediately used the Sinners power to discard the fate they just
    played ... no other powers can be used this turn, including Storms"."""
    s = setup(["imago", "mirror", "shore", "deep"], (2, 5), faded=["belltower", "passage"])
    s = act(s, play_action(2, 0), power_action("sinners", slot=0, value=2))
    assert s.table == [[], [], [], []]
    assert s.phase == Phase.GROUP
    assert not any_power(s)


# --- Sails ------------------------------------------------------------------------------

SAILS = dict(
    slots=["captain", "imago", "mirror", "shore"],
    hand=(4, 3),
    faded=["musicians", "dawn"],
)


def test_sails_exiles_a_visible_fate_after_a_correct_prediction():
    """Sails: "the group ... choose another available faded power to discard, as well as
    a visible fate to remove from the game. The exiled fate token is set aside. It does
    not get returned to the bag until the game is over."""
    s = setup(**SAILS, table=[(), (5,), (), ()])
    s = act(s, play_action(4, 0), predict_action(3))
    assert s.phase == Phase.SAILS
    assert s.decider == s.leader
    assert set(legal_actions(s)) == {
        PASS,
        power_action("sails", slot=0, value=4),
        power_action("sails", slot=1, value=5),
    }
    s = act(s, power_action("sails", slot=1, value=5))
    assert s.phase == Phase.COST
    assert legal_actions(s) == [cost_action("saints")]
    s = act(s, cost_action("saints"))
    assert s.table[1] == []
    assert s.exiled[4] == 1
    assert s.faded == []
    assert s.deck[-2:] == [C["musicians"], C["dawn"]]
    assert s.score == 1
    assert s.active == 1  # the next turn has drawn: the exiled 5 stayed out of the bag


@pytest.mark.parametrize("predictions", [(), (5,)])
def test_sails_is_only_offered_after_a_correct_prediction(predictions):
    """Sails: "can only be used at the end of the turn, after a correct prediction is
    made, but before cards fade."""
    s = act(setup(**SAILS), play_action(4, 0))
    s = finish(s, *predictions)
    assert s.active == 1
    assert C["musicians"] in s.faded


def test_sails_what_if_there_are_not_any_other_faded_powers_to_discard():
    """Sails Q/A "What if there aren't any other faded powers to discard?": "Sails cannot
    be used unless there is at least one other faded power to discard."""
    s = setup(**{**SAILS, "faded": ["musicians"]})
    s = act(s, play_action(4, 0), predict_action(3))
    assert s.active == 1  # no Sails phase
    assert s.faded == [C["musicians"]]


def test_sails_if_a_fate_is_exiled_from_a_card_that_would_have_faded_does_it_still_fade():
    """Sails Q/A "If a fate is exiled from a card that would have faded this turn, does
    it still fade?": "Maybe not. Re-check its fade conditions."""
    s = setup(**SAILS, table=[(4,), (), (), ()])
    s = act(s, play_action(4, 0), predict_action(3))
    assert slot_hours(s, 0) == 4
    s = act(s, power_action("sails", slot=0, value=4), cost_action("saints"))
    assert s.slots[0] == C["captain"]
    assert s.table[0] == [4]


def test_sails_is_not_offered_when_a_power_was_already_used_this_turn():
    """Faded Card Powers: "Only one faded power may be used per turn" -- after Storms, a
    correct prediction does not open Sails."""
    s = setup(**{**SAILS, "faded": ["musicians", "passage", "dawn"]})
    s = act(s, play_action(4, 0), power_action("storms", value=4), predict_action(3))
    assert s.active == 1
    assert C["musicians"] in s.faded


# --- Sands ------------------------------------------------------------------------------


def test_sands_attaches_to_the_card_that_replaces_the_fall():
    """Sands: "As soon as the Sands power becomes available, attach it to the arcana card
    that took its place on the board."""
    s = setup(FALL_SLOTS, (6, 2), table=[(5,), (), (), ()], deck=["dawn"])
    s = finish(act(s, play_action(6, 0)))
    assert last(s, "fade") == [("fade", 0, "fall")]
    assert last(s, "attach") == [("attach", "sands", 0)]
    assert s.slots[0] == C["dawn"]
    assert s.attached[0] == [C["fall"]]
    assert C["fall"] not in s.faded
    assert s.doom == 2


SANDS = dict(
    slots=["ash", "beast", "mirror", "chalice"],
    hand=(1, 2),
    table=[(), (), (), (3,)],
    attached={1: ["fall"]},
    faded=["feast"],
)


def sands_turn(*predictions: int) -> State:
    """Skies moves the 3 onto The Mirror, a 1 goes on The Beast (Sands attached): The
    Ash, The Beast and The Mirror fade."""
    s = setup(**SANDS)
    s = act(s, power_action("skies", slot=3, value=3, to_slot=2), play_action(1, 1))
    return finish(s, *predictions)


def test_sands_three_cards_fading_cost_nine_doom():
    """Sands Q/A "If multiple cards fade on the same turn as a card with Sands attached,
    how much doom do we get?": "each card that fades this turn incurs 3 doom instead of
    2. If 3 cards are fading, that's 3x3=9 doom in a single turn!\""""
    s = sands_turn()
    assert last(s, "fade") == [("fade", 0, "ash"), ("fade", 1, "beast"), ("fade", 2, "mirror")]
    assert s.doom == 9
    assert s.over and not s.won


def test_sands_correct_prediction_cancels_the_doom_and_scores_one_more():
    """Sands Q/A: "making a correct prediction cancels all doom that would be incurred by
    fading this turn"; Sands: "predictions are worth +1 point"."""
    s = sands_turn(2)
    assert (s.doom, s.score) == (0, 2)
    assert {C["ash"], C["beast"], C["mirror"]} <= set(s.faded)


def test_sands_goes_to_the_deck_bottom_after_its_card_fades():
    """Sands: a one-turn effect; engine: then the Sands card goes to the deck bottom."""
    s = sands_turn(2)
    assert s.deck[-1] == C["fall"]
    assert all(C["fall"] not in a for a in s.attached)


def test_sands_amplified_turn_blind_man_still_costs_no_doom():
    """The Blind Man: "I don't further your doom when I fade" -- even when Sands is on
    it; The Beast fading the same turn costs 3."""
    s = setup(
        ["blind_man", "beast", "captain", "imago"],
        (5, 6),
        table=[(), (), (), (3,)],
        attached={0: ["fall"]},
        faded=["feast"],
    )
    s = act(s, power_action("skies", slot=3, value=3, to_slot=1), play_action(5, 0))
    s = finish(s)
    assert C["blind_man"] in s.faded and C["beast"] in s.faded
    assert s.doom == 3


def test_sands_does_nothing_while_its_card_stays():
    """Sands: the effect is only "The turn that card fades"; other fades cost 2."""
    s = setup(["captain", "beast", "imago", "shore"], (1, 2), attached={0: ["fall"]}, table=EMPTY)
    s = finish(act(s, play_action(1, 1)))
    assert s.doom == 2
    assert s.attached[0] == [C["fall"]]


def test_sands_what_if_the_card_it_is_attached_to_leaves_play_without_fading():
    """Sands Q/A "What if the card that Sands is attached to leaves play without fading?":
    "If that card has Sands attached, discard Sands just like any other faded power
    that's been used. It does not cause any other effect"."""
    s = setup(
        ["captain", "beast", "imago", "shore"],
        (4, 4),
        attached={1: ["fall"]},
        faded=["prophet"],
        deck=["mirror"],
    )
    s = act(s, power_action("sparrows", slot=1))
    assert s.slots[1] == C["mirror"]
    assert s.attached[1] == []
    assert s.deck[-3:] == [C["beast"], C["fall"], C["prophet"]]
    s = finish(act(s, play_action(4, 1)))
    assert C["mirror"] in s.faded
    assert s.doom == 2


# --- Scions -----------------------------------------------------------------------------

SCIONS_SLOTS = ["captain", "imago", "dawn", "shore"]


def test_scions_is_attached_by_the_group_after_the_play():
    """Scions: "can only be used by the group ... after the active player has finished
    playing fates ... they collectively choose an arcana card to attach it to"."""
    s = setup(SCIONS_SLOTS, (4, 3), faded=["north_wind"])
    assert not power_actions(s, "scions")
    s = act(s, play_action(4, 0))
    assert power_actions(s, "scions") == {power_action("scions", slot=t) for t in range(4)}
    s = act(s, power_action("scions", slot=0))
    assert s.attached[0] == [C["north_wind"]]
    assert s.faded == []
    assert not any_power(s)


def test_scions_uses_up_the_turns_one_power():
    """Scions is a faded power like the others: "only one faded power may be used per
    turn" (rulebook, Faded powers), so once the group attaches it no other power is
    offered this turn although another one is available."""
    s = setup(SCIONS_SLOTS, (4, 3), faded=["north_wind", "servant"])
    s = act(s, play_action(4, 0))
    assert power_actions(s, "secrets")  # the other power was on offer
    s = act(s, power_action("scions", slot=0))
    assert s.faded == [C["servant"]]
    assert s.power_used
    assert not any_power(s)
    s = finish(s)
    assert s.faded == [C["servant"]]  # never used


def test_scions_why_would_i_want_to_attach_it_to_a_card():
    """Scions Q/A "Why would I want to attach Scions to a card?": "Because Scions reduces
    those pips, it lets that arcana card remain in play longer": two 4s on The Captain (4
    hours, 3 moons) count 2 hours."""
    s = setup(SCIONS_SLOTS, (4, 3), table=[(4,), (), (), ()], faded=["north_wind"])
    s = act(s, play_action(4, 0))
    assert slot_hours(s, 0) == 4
    s = act(s, power_action("scions", slot=0))
    assert slot_hours(s, 0) == 2
    s = finish(s)
    assert s.slots[0] == C["captain"]
    assert s.doom == 0


def test_scions_affects_fates_played_after_it_is_attached():
    """Scions Q/A "Does Scions affect fates that enter play after Scions is attached to a
    card?": "Yes ... This includes fates that are played after Scions is attached" -- a
    7 counts one pip."""
    s = setup(SCIONS_SLOTS, (7, 3), table=[(4,), (), (), ()], attached={0: ["north_wind"]})
    s = act(s, play_action(7, 0))
    assert slot_hours(s, 0) == 2
    s = finish(s)
    assert s.slots[0] == C["captain"]


def test_scions_affects_fates_moved_onto_its_card_by_skies():
    """Scions Q/A: "It also includes fates that are moved from another card onto Scions'
    card, with faded powers such as Skies (Relocate)."""
    s = setup(
        SCIONS_SLOTS,
        (5, 6),
        table=[(4,), (), (7,), ()],
        attached={0: ["north_wind"]},
        faded=["lantern"],
    )
    s = act(s, power_action("skies", slot=2, value=7, to_slot=0))
    assert slot_hours(s, 0) == 2
    s = finish(act(s, play_action(5, 1)))
    assert s.slots[0] == C["captain"]


def test_scions_fates_moved_off_regain_their_hours():
    """Scions Q/A: "if a fate is moved off of Scions' card, it regains its usual number of
    pips": a 7 moved onto Dawn (3 moons) makes it fade."""
    s = setup(
        SCIONS_SLOTS,
        (5, 6),
        table=[(7, 7), (), (), ()],
        attached={0: ["north_wind"]},
        faded=["lantern"],
    )
    assert slot_hours(s, 0) == 2
    s = act(s, power_action("skies", slot=0, value=7, to_slot=2))
    assert slot_hours(s, 2) == 3
    assert slot_hours(s, 0) == 1
    s = finish(act(s, play_action(5, 1)))
    assert C["dawn"] in s.faded
    assert s.slots[0] == C["captain"]


def test_scions_goes_to_the_deck_bottom_when_its_card_leaves_play():
    """Engine (docs/rules.md, decision 22): Scions stays attached to its card until that
    card leaves play; then the Scions card goes to the bottom of the deck."""
    s = setup(["beast", "imago", "dawn", "shore"], (1, 2), attached={0: ["north_wind"]})
    s = finish(act(s, play_action(1, 0)))
    assert C["beast"] in s.faded
    assert s.deck[-1] == C["north_wind"]
    assert C["north_wind"] not in s.faded
    assert s.attached[0] == []


# --- Scythes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "answer", "line"), [((3, 6), True, (2, 6)), ((3, 5), False, (1, 3, 4, 5, 7))]
)
def test_scythes_asks_whether_the_fate_is_two_or_six_after_paying_its_cost(hand, answer, line):
    """Scythes: "they collectively choose another available faded power to discard, then
    collectively ask the active player "Is your hidden fate a 2 or 6?\""""
    s = setup(["imago", "mirror", "shore", "deep"], hand, faded=["ash", "dawn"])
    s = act(s, play_action(3, 0))
    assert power_actions(s, "scythes") == {power_action("scythes")}
    s = act(s, power_action("scythes"))
    assert s.phase == Phase.COST
    assert legal_actions(s) == [cost_action("saints")]
    s = act(s, cost_action("saints"))
    assert events(s, "power") == [("power", "scythes", None, answer)]
    assert s.lines[0] == mask(*line)
    assert s.phase == Phase.GROUP
    assert not any_power(s)
    assert s.faded == []
    assert s.deck[-2:] == [C["ash"], C["dawn"]]


def test_scythes_what_if_there_are_not_any_other_faded_powers_to_discard():
    """Scythes Q/A "What if there aren't any other faded powers to discard?": "Scythes
    cannot be used unless there is at least one other faded power to discard."""
    s = setup(["imago", "mirror", "shore", "deep"], (3, 6), faded=["thief"])
    s = act(s, play_action(3, 0))
    assert s.phase == Phase.GROUP
    assert not power_actions(s, "scythes")


def test_scythes_group_may_still_predict_after_it():
    """Additional FAQ: using a "Before making a prediction" power does not force or forbid
    a prediction."""
    s = setup(["imago", "mirror", "shore", "deep"], (3, 6), faded=["ash", "dawn"])
    s = act(s, play_action(3, 0), power_action("scythes"), cost_action("saints"))
    s = finish(s, 6)
    assert s.score == 1
