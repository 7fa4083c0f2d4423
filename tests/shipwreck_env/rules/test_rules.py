"""Tests of :mod:`shipwreck_env.rules.conditions` against the rulebook.

The authority is the printed rulebook of Shipwreck Arcana: its "Arcana Card Reference"
(every card's text, worked examples and Q/A) and the Shadows entry of its "Faded Power
Reference". Each test names its card and cites that card's entry.

Layout:

1. one test (or parametrized group) per card for every worked example and Q/A about
   playability, deductions checked through ``kept_mask``;
2. the Shadows Q/A;
3. exhaustive checks of the hand-only cards against an independent re-statement of
   each card's text, and ``kept_mask`` against ``can_play``;
4. seeded random checks of the visible-dependent cards against independent statements;
5. ``hours_allowed``;
6. invalid input.

Only public functions are used.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

from shipwreck_env.rules.cards import CARDS, fate_hours
from shipwreck_env.rules.conditions import can_play, hours_allowed, kept_mask

VALUES = (1, 2, 3, 4, 5, 6, 7)
ALL_PAIRS = [(p, k) for p in VALUES for k in VALUES]
CARD_IDS = [card.id for card in CARDS]
EXAMPLE_VISIBLE = (1, 2, 6, 6)
"""The visible fates of the worked examples of The Prophet, The Rider, Asunder, The Ghost,
The Lantern and The Passage ("the fates 1, 2, 6, and 6 are currently visible")."""


def playable(
    card: str,
    hand: tuple[int, int],
    visible: Sequence[int] = (),
    on_card: Sequence[int] = (),
    *,
    shadows: bool = False,
) -> set[int]:
    """The fates of ``hand`` that may be played on ``card`` (keeping the other one)."""
    a, b = hand
    out = set()
    if can_play(card, a, b, visible, on_card, shadows=shadows):
        out.add(a)
    if can_play(card, b, a, visible, on_card, shadows=shadows):
        out.add(b)
    return out


def kept_values(
    card: str,
    played: int,
    visible: Sequence[int] = (),
    on_card: Sequence[int] = (),
    *,
    shadows: bool = False,
) -> set[int]:
    """What the allies may deduce: the kept values that allow playing ``played``."""
    mask = kept_mask(card, played, visible, on_card, shadows=shadows)
    return {k for k in VALUES if mask & (1 << (k - 1))}


# ---------------------------------------------------------------------------------------
# 1. Worked examples and Q/A, card by card (Arcana Card Reference)
# ---------------------------------------------------------------------------------------


def test_card_ids_are_the_36_arcana_cards():
    """Arcana Card Reference: 20 base, 10 Kickstarter, 1 Gen Con, 5 Stars Below cards."""
    assert len(CARD_IDS) == 36
    assert len(set(CARD_IDS)) == 36
    assert "hours" not in CARD_IDS


# --- The Beast -------------------------------------------------------------------------


@pytest.mark.parametrize("hand", [(1, 2), (2, 3), (3, 4), (6, 7)])
def test_beast_sequential_fates_play_either(hand):
    """The Beast: "if you are holding 1 and 2, 2 and 3, and so on" -> either fate."""
    assert playable("beast", hand) == set(hand)


@pytest.mark.parametrize("hand", [(1, 3), (4, 4), (1, 7)])
def test_beast_non_sequential_fates_cannot_play(hand):
    """The Beast: "only play on The Beast if your 2 fates are sequential"."""
    assert playable("beast", hand) == set()


# --- The Belltower ---------------------------------------------------------------------


def test_belltower_2_and_4_play_either():
    """The Belltower: "holding 2 and 4, the sum ... is 6" -> either one."""
    assert playable("belltower", (2, 4)) == {2, 4}


def test_belltower_play_2_allies_deduce_1_4_or_7():
    """The Belltower: "If you play the 2 ... you could have a 1 ..., a 4 ..., or a 7"."""
    assert kept_values("belltower", 2) == {1, 4, 7}


def test_belltower_play_4_allies_deduce_2_or_5():
    """The Belltower: "If you play the 4, ... you have a 2 ... or a 5"."""
    assert kept_values("belltower", 4) == {2, 5}


# --- Always-playable cards: Blind Man, Chalice, Feast, Wish, Imago, Fall ------------------


@pytest.mark.parametrize("card", ["blind_man", "chalice", "feast", "wish", "imago", "fall"])
def test_always_cards_take_any_fate_with_any_kept_fate(card):
    """Blind Man "You can always play either", Chalice, Feast, Wish, Imago, Fall
    ("You can always legally play any fate onto The Fall")."""
    for played in VALUES:
        assert kept_values(card, played) == set(VALUES)
        assert kept_values(card, played, EXAMPLE_VISIBLE, (3,)) == set(VALUES)
        assert kept_values(card, played, shadows=True) == set(VALUES)


def test_chalice_4_and_4_may_play_a_4():
    """The Chalice: "if you are holding 4 and 4, you can play a 4 on The Chalice"."""
    assert playable("chalice", (4, 4)) == {4}


def test_imago_takes_7s():
    """The Imago: "You can always play either of your fates"; 7s included."""
    assert playable("imago", (7, 7)) == {7}
    assert playable("imago", (1, 7)) == {1, 7}


def test_fall_example_play_3_keeping_2_with_1_in_front():
    """The Fall Q/A: "there is a 1 on The Fall, and you are holding a 3 and 2. You play
    the 3 on The Fall"."""
    assert can_play("fall", 3, 2, visible=(1,), on_card=(1,))


def test_feast_example_1_and_7_with_midnight():
    """The Feast: holding "a 1 and a 7" with Midnight in play: the 1 may go on Midnight or
    on The Feast; after drawing a 6 (holding 6 and 7) "You play your 6 on Midnight"."""
    assert playable("midnight", (1, 7)) == {1}
    assert can_play("feast", 1, 7)
    assert playable("midnight", (6, 7), visible=(1,)) == {6}


# --- Dawn / Midnight -------------------------------------------------------------------


@pytest.mark.parametrize("hand", [(1, 2), (3, 6), (7, 1), (5, 4)])
def test_dawn_plays_only_the_higher_fate(hand):
    """Dawn: "You can always play the higher of your two fates on Dawn"."""
    assert playable("dawn", hand) == {max(hand)}


@pytest.mark.parametrize("value", VALUES)
def test_dawn_equal_fates_cannot_play(value):
    """Dawn: "unless both of your fates are exactly the same"."""
    assert playable("dawn", (value, value)) == set()


@pytest.mark.parametrize("hand", [(1, 2), (3, 6), (7, 1), (5, 4)])
def test_midnight_plays_only_the_lower_fate(hand):
    """Midnight: "You can always play the lower of your two fates on Midnight"."""
    assert playable("midnight", hand) == {min(hand)}


@pytest.mark.parametrize("value", VALUES)
def test_midnight_equal_fates_cannot_play(value):
    """Midnight: "unless both of your fates are exactly the same"."""
    assert playable("midnight", (value, value)) == set()


# --- The Deep / The Key / Leviathan ------------------------------------------------------


def test_deep_1_and_3_play_either():
    """The Deep: "holding 1 and 3, the sum ... is 4, so you can play either fate"."""
    assert playable("deep", (1, 3)) == {1, 3}


def test_deep_play_1_allies_deduce_1_to_4():
    """The Deep: "If you play the 1 ... you must have a 1 ..., 2 ..., 3 ..., or 4"."""
    assert kept_values("deep", 1) == {1, 2, 3, 4}


def test_deep_play_3_allies_deduce_1_or_2():
    """The Deep: "If you play the 3, ... you have a 1 ... or 2"."""
    assert kept_values("deep", 3) == {1, 2}


def test_key_2_and_7_play_either():
    """The Key: "holding 2 and 7, the sum ... is 9, so you can play either fate"."""
    assert playable("key", (2, 7)) == {2, 7}


def test_key_play_2_allies_deduce_5_6_or_7():
    """The Key: "If you play the 2 ... you must have a 5 ..., 6 ..., or 7"."""
    assert kept_values("key", 2) == {5, 6, 7}


def test_key_play_7_allies_deduce_1_or_2():
    """The Key: "If you play the 7, ... you have a 1 ... or 2"."""
    assert kept_values("key", 7) == {1, 2}


def test_leviathan_5_and_7_play_either():
    """Leviathan: "holding 5 and 7, the sum ... is 12, so you can play either fate"."""
    assert playable("leviathan", (5, 7)) == {5, 7}


def test_leviathan_play_7_allies_deduce_4_to_7():
    """Leviathan: "If you play the 7 ... you must have a 7 ..., 6 ..., 5 ..., or 4"."""
    assert kept_values("leviathan", 7) == {4, 5, 6, 7}


def test_leviathan_play_5_allies_deduce_6_or_7():
    """Leviathan: "If you play the 5, ... you have a 7 ... or 6"."""
    assert kept_values("leviathan", 5) == {6, 7}


# --- The Engine ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        pytest.param((1, 4), set(), id="1-4-no"),
        pytest.param((1, 2), {1, 2}, id="1-2-double"),
        pytest.param((2, 6), {2, 6}, id="2-6-triple"),
    ],
)
def test_engine_worked_examples(hand, expected):
    """The Engine: "1 and 4 ... can't play", "1 and 2 ... either one", "2 and 6 ... either"."""
    assert playable("engine", hand) == expected


def test_engine_play_2_allies_deduce_1_4_or_6():
    """The Engine: "if you play a 2 ... your fates were 1 and 2 ..., 2 and 4 ..., or 2 and 6"."""
    assert kept_values("engine", 2) == {1, 4, 6}


# --- The Huntress / The Pallbearers ----------------------------------------------------


@pytest.mark.parametrize("hand", [(1, 3), (2, 4), (5, 7)])
def test_huntress_fates_2_apart_play_either(hand):
    """The Huntress: "if you are holding 1 and 3, 2 and 4, and so on" -> either fate."""
    assert playable("huntress", hand) == set(hand)


@pytest.mark.parametrize("hand", [(1, 2), (3, 3), (1, 4)])
def test_huntress_fates_not_2_apart_cannot_play(hand):
    """The Huntress: "exactly 2 more or 2 less"."""
    assert playable("huntress", hand) == set()


@pytest.mark.parametrize("hand", [(3, 4), (3, 5), (6, 7), (1, 3)])
def test_pallbearers_difference_1_or_2_play_either(hand):
    """The Pallbearers: "If the difference is 1 or 2, you can play either one"."""
    assert playable("pallbearers", hand) == set(hand)


@pytest.mark.parametrize("value", VALUES)
def test_pallbearers_equal_fates_difference_0_cannot_play(value):
    """The Pallbearers: "or if the difference is 0 ..., you can't play here"."""
    assert playable("pallbearers", (value, value)) == set()


@pytest.mark.parametrize("hand", [(1, 4), (3, 6), (1, 7)])
def test_pallbearers_difference_above_2_cannot_play(hand):
    """The Pallbearers: "If the difference is larger than 2 ..., you can't play here"."""
    assert playable("pallbearers", hand) == set()


# --- The Judge / The Stranger ----------------------------------------------------------


@pytest.mark.parametrize("played", VALUES)
def test_judge_kept_fate_has_the_parity_of_the_played_fate(played):
    """The Judge: "if you play an even value ... your hidden fate is also even", odd -> odd."""
    same_parity = {k for k in VALUES if k % 2 == played % 2}
    assert kept_values("judge", played) == same_parity


@pytest.mark.parametrize("played", VALUES)
def test_stranger_kept_fate_has_the_other_parity(played):
    """The Stranger: "if you play an even value ... your hidden fate is odd", odd -> even."""
    other_parity = {k for k in VALUES if k % 2 != played % 2}
    assert kept_values("stranger", played) == other_parity


# --- The Lord / The Noble / The Servant / The Captain -----------------------------------

GROUP_CARDS = {
    # card: (the fates it wants, the fates it doesn't want), as listed in its entry
    "lord": ({5, 6, 7}, {1, 2, 3, 4}),
    "noble": ({3, 4, 5}, {1, 2, 6, 7}),
    "servant": ({1, 2, 3}, {4, 5, 6, 7}),
    "captain": ({1, 4, 7}, {2, 3, 5, 6}),
}


@pytest.mark.parametrize("card", sorted(GROUP_CARDS))
def test_group_card_one_wanted_one_not_plays_the_wanted_fate(card):
    """The Lord / Noble / Servant / Captain: "If you have one fate he wants and one he
    doesn't, you can play the fate he wants"."""
    wanted, unwanted = GROUP_CARDS[card]
    for w in wanted:
        for u in unwanted:
            assert playable(card, (w, u)) == {w}, (w, u)


@pytest.mark.parametrize("card", sorted(GROUP_CARDS))
def test_group_card_two_wanted_or_two_unwanted_cannot_play(card):
    """The Lord / Noble / Servant / Captain: "If you have two fates he wants or two fates
    he doesn't, you can't play anything"."""
    wanted, unwanted = GROUP_CARDS[card]
    for group in (wanted, unwanted):
        for a in group:
            for b in group:
                assert playable(card, (a, b)) == set(), (a, b)


# --- The Mirror ------------------------------------------------------------------------


@pytest.mark.parametrize("played", VALUES)
def test_mirror_allies_know_the_hidden_fate_exactly(played):
    """The Mirror: "your allies will immediately know exactly what your hidden fate is"."""
    assert kept_values("mirror", played) == {played}


def test_mirror_different_fates_cannot_play():
    """The Mirror: "only ... if both of your fates are exactly the same"."""
    for a, b in ALL_PAIRS:
        if a != b:
            assert playable("mirror", (a, b)) == set()


# --- The Prophet / The Rider (visible 1, 2, 6, 6) ---------------------------------------


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        pytest.param((2, 5), {5}, id="2-5-play-5"),
        pytest.param((2, 6), {2, 6}, id="2-6-either"),
        pytest.param((4, 5), set(), id="4-5-neither"),
    ],
)
def test_prophet_worked_examples(hand, expected):
    """The Prophet, visible 1, 2, 6, 6: "2 and 5: You can play the 5", "2 and 6: ... either",
    "4 and 5: You cannot play either"."""
    assert playable("prophet", hand, EXAMPLE_VISIBLE) == expected


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        pytest.param((2, 5), set(), id="2-5-no"),
        pytest.param((6, 6), set(), id="6-6-no"),
        pytest.param((4, 5), {4, 5}, id="4-5-either"),
    ],
)
def test_rider_worked_examples(hand, expected):
    """The Rider, visible 1, 2, 6, 6: "2 and 5: You cannot", "6 and 6: You cannot",
    "4 and 5: You can play either"."""
    assert playable("rider", hand, EXAMPLE_VISIBLE) == expected


# --- The Shore -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        pytest.param((1, 3), set(), id="1-3-no"),
        pytest.param((1, 5), {1, 5}, id="1-5-yes"),
        pytest.param((2, 7), {2, 7}, id="2-7-yes"),
        pytest.param((6, 7), set(), id="6-7-no"),
        pytest.param((7, 7), set(), id="7-7-no"),
    ],
)
def test_shore_worked_examples(hand, expected):
    """The Shore: 1 and 3 no, 1 and 5 yes, 2 and 7 yes, 6 and 7 no, 7 and 7 no."""
    assert playable("shore", hand) == expected


# --- Asunder ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        pytest.param((2, 5), set(), id="2-5-no"),
        pytest.param((6, 6), set(), id="6-6-no"),
        pytest.param((4, 5), {5}, id="4-5-play-5"),
    ],
)
def test_asunder_worked_examples(hand, expected):
    """Asunder, visible 1, 2, 6, 6: "2 and 5: ... cannot", "6 and 6: ... cannot",
    "4 and 5: ... You can play your 5"."""
    assert playable("asunder", hand, EXAMPLE_VISIBLE) == expected


def test_asunder_no_visible_fates_cannot_play():
    """Asunder Q/A: "What if there are no visible fates?" -> "You cannot play"."""
    for p, k in ALL_PAIRS:
        assert not can_play("asunder", p, k)
        assert not can_play("asunder", p, k, shadows=True)


# --- Fortune ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        pytest.param((1, 1), set(), id="two-1s-no"),
        pytest.param((2, 4), set(), id="2-4-both-even-no"),
        pytest.param((3, 7), {7}, id="3-7-play-7"),
        pytest.param((3, 6), {3}, id="3-6-play-3"),
        pytest.param((2, 5), {2}, id="2-5-play-2"),
    ],
)
def test_fortune_worked_examples(hand, expected):
    """Fortune: "Two 1s" no, "A 2 and a 4" no, "3 and a 7" -> 7, "3 and a 6" -> 3,
    "2 and a 5" -> 2."""
    assert playable("fortune", hand) == expected


@pytest.mark.parametrize("played", [1, 3, 5, 7])
def test_fortune_odd_played_allies_deduce_even_higher_or_odd_lower(played):
    """Fortune Q/A: play an odd fate -> remaining "must be even and higher or odd and lower"."""
    expected = {k for k in VALUES if (k % 2 == 0 and k > played) or (k % 2 == 1 and k < played)}
    assert kept_values("fortune", played) == expected


@pytest.mark.parametrize("played", [2, 4, 6])
def test_fortune_even_played_allies_deduce_odd_higher(played):
    """Fortune Q/A: play an even fate -> remaining "must be odd and higher"."""
    expected = {k for k in VALUES if k % 2 == 1 and k > played}
    assert kept_values("fortune", played) == expected


# --- The Ghost -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        pytest.param((2, 5), set(), id="2-5-no"),
        pytest.param((3, 4), set(), id="3-4-no"),
        pytest.param((4, 4), {4}, id="4-4-yes"),
    ],
)
def test_ghost_worked_examples(hand, expected):
    """The Ghost, visible 1, 2, 6, 6: "2 and 5: ... cannot", "3 and 4: ... cannot",
    "4 and 4: ... you can play either of your 4s"."""
    assert playable("ghost", hand, EXAMPLE_VISIBLE) == expected


def test_ghost_play_4_allies_deduce_4_or_6():
    """The Ghost: "they've ruled out 1, 2, 3, 5, and 7. So you must have either a 4 or 6"."""
    assert kept_values("ghost", 4, EXAMPLE_VISIBLE) == {4, 6}


def test_ghost_no_visible_fates_play_anything():
    """The Ghost Q/A: "If there are no visible fates, can I play on The Ghost?" "Yes"."""
    for p, k in ALL_PAIRS:
        assert can_play("ghost", p, k)


# --- Iron ------------------------------------------------------------------------------


def test_iron_empty_takes_anything():
    """Iron: "no visible fates in front of Iron: Any fate in your hand will be playable";
    e.g. "holding 1 and 2. You may play either fate"."""
    assert playable("iron", (1, 2)) == {1, 2}
    for p, k in ALL_PAIRS:
        assert can_play("iron", p, k, visible=EXAMPLE_VISIBLE, on_card=())


def test_iron_1_and_3_in_front_hand_2_and_6_plays_only_the_2():
    """Iron: "If 1 and 3 are in front of Iron, and you are holding 2 and 6, you may play
    the 2 ... You may not play the 6"."""
    assert playable("iron", (2, 6), visible=(1, 3), on_card=(1, 3)) == {2}


def test_iron_1_and_3_in_front_hand_5_and_6_plays_either():
    """Iron: "If 1 and 3 are in front of Iron, and you are holding 5 and 6, you may play
    either"."""
    assert playable("iron", (5, 6), visible=(1, 3), on_card=(1, 3)) == {5, 6}


def test_iron_lone_7_blocks_7_and_7():
    """Iron: "If there is a single 7 in front of Iron, and you are holding 7 and 7, you
    cannot play on Iron"."""
    assert playable("iron", (7, 7), visible=(7,), on_card=(7,)) == set()


def test_iron_lone_7_blocks_every_hand():
    """Iron: "If there is a single 7 in front of Iron: No more fates can be played"."""
    for p, k in ALL_PAIRS:
        assert not can_play("iron", p, k, visible=(7,), on_card=(7,))


def test_iron_only_the_highest_fate_in_front_matters():
    """Iron Q/A: "if 1, 3, and 3 are in front of Iron, all that matters is that the highest
    fate is a 3"; fates in front of other cards do not count ("in front of Iron")."""
    for p, k in ALL_PAIRS:
        expected = can_play("iron", p, k, visible=(1, 3), on_card=(1, 3))
        assert can_play("iron", p, k, visible=(1, 3, 3), on_card=(1, 3, 3)) == expected
        assert can_play("iron", p, k, visible=(3,), on_card=(3,)) == expected
        assert can_play("iron", p, k, visible=(1, 3, 7, 6), on_card=(1, 3)) == expected


# --- The Lantern (visible 1, 2, 6, 6) ----------------------------------------------------


def test_lantern_2_and_5_cannot_play():
    """The Lantern: "2 and 5: ... 22, which is not divisible by 4. You cannot play"."""
    assert playable("lantern", (2, 5), EXAMPLE_VISIBLE) == set()


def test_lantern_3_and_6_play_either():
    """The Lantern: "3 and 6: ... 24 ... You can play either one"."""
    assert playable("lantern", (3, 6), EXAMPLE_VISIBLE) == {3, 6}


def test_lantern_play_3_allies_deduce_2_or_6():
    """The Lantern: "If you play the 3 ... you could be holding a 2 ... or a 6"."""
    assert kept_values("lantern", 3, EXAMPLE_VISIBLE) == {2, 6}


def test_lantern_play_6_allies_deduce_3_or_7():
    """The Lantern: "If you play the 6 ... you could be holding a 3 ... or a 7"."""
    assert kept_values("lantern", 6, EXAMPLE_VISIBLE) == {3, 7}


# --- The Passage (visible 1, 2, 6, 6) ----------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        pytest.param((2, 5), set(), id="2-5-none-between"),
        pytest.param((1, 7), set(), id="1-7-two-between"),
        pytest.param((2, 7), {2, 7}, id="2-7-only-6-between"),
    ],
)
def test_passage_worked_examples(hand, expected):
    """The Passage, visible 1, 2, 6, 6: "2 and 5: ... cannot", "1 and 7: ... cannot",
    "2 and 7: ... you may play either" (the 6 counts once, "on two different fates")."""
    assert playable("passage", hand, EXAMPLE_VISIBLE) == expected


def test_passage_play_2_allies_deduce_7():
    """The Passage: "If you play the 2 ... your other fate must be a 7"."""
    assert kept_values("passage", 2, EXAMPLE_VISIBLE) == {7}


# --- The Ash / The Thief -------------------------------------------------------------------


def test_ash_takes_only_7s():
    """The Ash: "The only fates which can be played on The Ash are 7s"."""
    for played in VALUES:
        expected = set(VALUES) if played == 7 else set()
        assert kept_values("ash", played) == expected
        assert kept_values("ash", played, EXAMPLE_VISIBLE, (7,), shadows=True) == expected


def test_thief_never_takes_a_fate():
    """The Thief: "You can never play a fate directly onto The Thief"."""
    for visible in ((), EXAMPLE_VISIBLE, (7, 7, 7)):
        for shadows in (False, True):
            for played in VALUES:
                assert kept_values("thief", played, visible, shadows=shadows) == set()


# --- The Musicians (visible 4 and 7) ---------------------------------------------------


def test_musicians_5_and_2_with_visible_4_and_7_play_either():
    """The Musicians: "holding 5 and 2, and a 4 and 7 are visible, ... play either fate"."""
    assert playable("musicians", (5, 2), (4, 7)) == {5, 2}


def test_musicians_play_5_allies_deduce_6_or_2():
    """The Musicians: "If you play the 5, ... your remaining fate could be a 6 ... or 2"."""
    assert kept_values("musicians", 5, (4, 7)) == {6, 2}


def test_musicians_play_2_allies_deduce_5_or_2():
    """The Musicians: "If you play the 2, ... you must have a 5 ... or 2"."""
    assert kept_values("musicians", 2, (4, 7)) == {5, 2}


def test_musicians_hand_summing_to_11_needs_no_visible_fate():
    """The Musicians: "If the sum is 11, you can play on The Musicians"."""
    assert playable("musicians", (5, 6)) == {5, 6}
    assert playable("musicians", (4, 7)) == {4, 7}


def test_musicians_at_most_one_visible_fate_counts():
    """The Musicians: "plus up to one visible fate": 1 + 3 + 4 + 3 uses two, so no."""
    assert playable("musicians", (1, 3), (4, 3)) == set()
    assert playable("musicians", (1, 3), (7,)) == {1, 3}


# --- The North Wind --------------------------------------------------------------------

PIPS = {1: 1, 2: 1, 3: 1, 4: 2, 5: 2, 6: 2, 7: 3}
"""The North Wind: "1s, 2s, and 3s have one pip", "4s, 5s, and 6s have two", "7s have three"."""


def test_north_wind_pip_table_matches_fate_hours():
    """The North Wind's pip distribution is ``cards.fate_hours``."""
    assert {v: fate_hours(v) for v in VALUES} == PIPS


def test_north_wind_one_pip_and_two_pips_play_either():
    """The North Wind: "if one of your fates is a 1, 2, or 3, and the other is a 4, 5, or 6"."""
    for low in (1, 2, 3):
        for mid in (4, 5, 6):
            assert playable("north_wind", (low, mid)) == {low, mid}


def test_north_wind_two_pips_and_a_7_play_either():
    """The North Wind: "if one of your fates is a 4, 5, or 6, and the other is a 7"."""
    for mid in (4, 5, 6):
        assert playable("north_wind", (mid, 7)) == {mid, 7}


def test_north_wind_one_pip_and_a_7_cannot_play():
    """The North Wind: "a 1, 2, or 3, and the other is a 7, since the difference in pips is
    too large"."""
    for low in (1, 2, 3):
        assert playable("north_wind", (low, 7)) == set()


@pytest.mark.parametrize("tier", [(1, 2, 3), (4, 5, 6), (7,)])
def test_north_wind_same_pips_cannot_play(tier):
    """The North Wind: "if both of your fates are 1s, 2s, and/or 3s", "likewise ... 4s, 5s,
    and/or 6s" (and two 7s have the same pips too)."""
    for a in tier:
        for b in tier:
            assert playable("north_wind", (a, b)) == set()


# ---------------------------------------------------------------------------------------
# 2. Shadows Q/A (Faded Power Reference, Shadows)
# ---------------------------------------------------------------------------------------


def test_shadows_mirror_4_and_5_play_5_keeping_4():
    """Shadows: "has 4 and 5 ... use Shadows to treat their 4 as a 5 ... play on The Mirror"."""
    assert not can_play("mirror", 5, 4)
    assert can_play("mirror", 5, 4, shadows=True)
    assert not can_play("mirror", 4, 5, shadows=True)  # the kept 5 counts 6
    assert playable("mirror", (4, 5), shadows=True) == {5}


def test_shadows_mirror_allies_deduce_the_real_value():
    """Shadows Q/A: "the hidden fate must be a 5 ... the unmodified value must have been 4"."""
    assert kept_values("mirror", 5, shadows=True) == {4}


def test_shadows_dawn_two_4s_still_cannot_play():
    """Shadows Q/A, Dawn: "If you have two 4s ... you still cannot play on it"."""
    assert playable("dawn", (4, 4), shadows=True) == set()


def test_shadows_noble_2_and_6_cannot_play_either():
    """Shadows Q/A, Noble: "If you have a 2 and a 6 ... you still can't play on The Noble"."""
    assert playable("noble", (2, 6)) == set()
    assert playable("noble", (2, 6), shadows=True) == set()


def test_shadows_north_wind_two_3s_hours_unchanged():
    """Shadows Q/A: "Does changing the value affect the number of hours?" "No ... if you
    have two 3's and you change one of them to a 4, you still cannot play on The North
    Wind"."""
    assert playable("north_wind", (3, 3), shadows=True) == set()
    # a real 4 kept would allow it: the difference is the hours, not the value
    assert can_play("north_wind", 3, 4)


def test_shadows_north_wind_kept_6_counts_7_but_keeps_two_pips():
    """Shadows Q/A: "only the value changes": a kept 6 (counting 7) still has two pips."""
    assert not can_play("north_wind", 4, 6, shadows=True)
    assert can_play("north_wind", 7, 6, shadows=True)
    assert can_play("north_wind", 3, 6, shadows=True)


def test_shadows_kept_7_counts_8_on_iron_with_a_lone_7():
    """Shadows: "you can treat a hidden fate of 7 as though it's an 8"; Iron: "Shadows ...
    can potentially be used to help keep Iron from remaining stuck"."""
    for played in VALUES:
        assert not can_play("iron", played, 7, visible=(7,), on_card=(7,))
        assert can_play("iron", played, 7, visible=(7,), on_card=(7,), shadows=True)
        for kept in range(1, 7):
            assert not can_play("iron", played, kept, (7,), (7,), shadows=True)
    assert playable("iron", (7, 7), (7,), (7,), shadows=True) == {7}


def test_shadows_kept_7_counts_8_on_the_lord():
    """Shadows: a hidden 7 counts as "an 8"; The Lord: 8 is not "5, 6, or 7", so the 5 may
    be played while keeping the 7."""
    assert not can_play("lord", 5, 7)
    assert can_play("lord", 5, 7, shadows=True)
    assert kept_values("lord", 5, shadows=True) == {1, 2, 3, 7}


def test_shadows_raises_only_the_kept_fate():
    """Shadows: "treat the fate they don't play this turn as 1 higher" -- never the played
    one: Dawn with 4 and 5 can no longer take the 5 (the kept 4 counts 5), while Midnight
    with two 4s can take a 4 (the kept 4 counts 5)."""
    assert playable("dawn", (4, 5)) == {5}
    assert playable("dawn", (4, 5), shadows=True) == set()
    assert playable("midnight", (4, 4)) == set()
    assert playable("midnight", (4, 4), shadows=True) == {4}


# ---------------------------------------------------------------------------------------
# 3. Hand-only cards: exhaustive, against independent statements of the card texts
# ---------------------------------------------------------------------------------------

# An oracle takes (played, kept value as it counts, kept fate's real value).
HandOracle = Callable[[int, int, int], bool]


def _either_fate(pair_ok: Callable[[int, int], bool]) -> HandOracle:
    """Cards whose text says "play one of them here": a condition on the two fates alone
    (given as lower, higher), and then either fate may be played."""
    return lambda p, k, k_real: pair_ok(min(p, k), max(p, k))


def _one_in_group(wanted: set[int]) -> HandOracle:
    """Lord / Noble / Servant / Captain: the allowed (played, kept) pairs, enumerated."""
    allowed = {(w, u) for w in wanted for u in range(1, 9) if u not in wanted}
    return lambda p, k, k_real: (p, k) in allowed


def _fortune(p: int, k: int, k_real: int) -> bool:
    """Fortune: "unequal and both odd, play your higher"; "only one is odd, play your lower"."""
    odd = {1, 3, 5, 7}
    if p in odd and k in odd:
        return p != k and p == max(p, k)
    if (p in odd) != (k in odd):
        return p == min(p, k)
    return False


ENGINE_PAIRS = {(1, 2), (2, 4), (3, 6), (4, 8), (1, 3), (2, 6)}
"""The Engine: (lower, higher) with higher = 2 x lower or 3 x lower (8 = a kept 7 + 1)."""

HAND_ORACLES: dict[str, HandOracle] = {
    "beast": _either_fate(lambda lo, hi: hi - lo == 1),
    "belltower": _either_fate(lambda lo, hi: lo + hi in {3, 6, 9, 12, 15}),
    "blind_man": lambda p, k, k_real: True,
    "chalice": lambda p, k, k_real: True,
    "dawn": lambda p, k, k_real: p != k and p == max(p, k),
    "deep": _either_fate(lambda lo, hi: lo + hi in {2, 3, 4, 5}),
    "engine": _either_fate(lambda lo, hi: (lo, hi) in ENGINE_PAIRS),
    "huntress": _either_fate(lambda lo, hi: hi - lo == 2),
    "judge": _either_fate(lambda lo, hi: lo % 2 == hi % 2),
    "key": _either_fate(lambda lo, hi: lo + hi in {7, 8, 9}),
    "leviathan": _either_fate(lambda lo, hi: lo + hi in {11, 12, 13, 14, 15}),
    "lord": _one_in_group({5, 6, 7}),
    "midnight": lambda p, k, k_real: p != k and p == min(p, k),
    "mirror": _either_fate(lambda lo, hi: lo == hi),
    "noble": _one_in_group({3, 4, 5}),
    "servant": _one_in_group({1, 2, 3}),
    "shore": _either_fate(lambda lo, hi: hi - lo in {4, 5, 6, 7}),
    "stranger": _either_fate(lambda lo, hi: lo % 2 != hi % 2),
    "captain": _one_in_group({1, 4, 7}),
    "feast": lambda p, k, k_real: True,
    "fortune": _fortune,
    "pallbearers": _either_fate(lambda lo, hi: hi - lo in {1, 2}),
    "wish": lambda p, k, k_real: True,
    "imago": lambda p, k, k_real: True,
    "ash": lambda p, k, k_real: p == 7,
    "fall": lambda p, k, k_real: True,
    "north_wind": lambda p, k, k_real: {PIPS[p], PIPS[k_real]} in ({1, 2}, {2, 3}),
    "thief": lambda p, k, k_real: False,
}

VISIBLE_CARDS = ("prophet", "rider", "asunder", "ghost", "passage", "lantern", "musicians", "iron")


def test_every_card_is_covered_by_an_oracle():
    assert set(HAND_ORACLES) | set(VISIBLE_CARDS) == set(CARD_IDS)
    assert not set(HAND_ORACLES) & set(VISIBLE_CARDS)


@pytest.mark.parametrize("shadows", [False, True], ids=["plain", "shadows"])
@pytest.mark.parametrize("card", sorted(HAND_ORACLES))
def test_hand_card_agrees_with_its_text_on_all_49_pairs(card, shadows):
    """Every (played, kept) pair; with Shadows the kept fate counts one higher but keeps
    its hours (Faded Power Reference, Shadows)."""
    oracle = HAND_ORACLES[card]
    for p, k in ALL_PAIRS:
        expected = oracle(p, k + shadows, k)
        assert can_play(card, p, k, shadows=shadows) == expected, (card, p, k, shadows)


@pytest.mark.parametrize("card", sorted(HAND_ORACLES))
def test_hand_card_ignores_the_visible_fates(card):
    """A hand-only card's text mentions only "your fates"."""
    for visible, on_card in (((), ()), (EXAMPLE_VISIBLE, (6, 6)), ((7, 7, 3), (7,))):
        for p, k in ALL_PAIRS:
            for shadows in (False, True):
                expected = HAND_ORACLES[card](p, k + shadows, k)
                got = can_play(card, p, k, visible, on_card, shadows=shadows)
                assert got == expected, (card, p, k, visible, on_card, shadows)


KEPT_MASK_TABLES = [
    ((), ()),
    (EXAMPLE_VISIBLE, ()),
    (EXAMPLE_VISIBLE, (6, 6)),
    ((4, 7), (4,)),
    ((7,), (7,)),
    ((1, 3, 3, 5, 5), (1, 3)),
]


@pytest.mark.parametrize("card", CARD_IDS)
def test_kept_mask_agrees_with_can_play(card):
    """``kept_mask`` bit k-1 is set exactly when kept value k allows the play."""
    for visible, on_card in KEPT_MASK_TABLES:
        for shadows in (False, True):
            for p in VALUES:
                mask = kept_mask(card, p, visible, on_card, shadows=shadows)
                assert 0 <= mask < 1 << 7
                for k in VALUES:
                    bit = bool(mask >> (k - 1) & 1)
                    assert bit == can_play(card, p, k, visible, on_card, shadows=shadows), (
                        card,
                        p,
                        k,
                        visible,
                        on_card,
                        shadows,
                    )


# ---------------------------------------------------------------------------------------
# 4. Visible-dependent cards: random visible multisets, independent statements
# ---------------------------------------------------------------------------------------

# An oracle takes (played, kept value as it counts, visible fates, fates on this card).
VisibleOracle = Callable[[int, int, Sequence[int], Sequence[int]], bool]


def _ghost(p: int, k: int, visible: Sequence[int], on_card: Sequence[int]) -> bool:
    """The Ghost: "no visible fate is exactly 1 more or 1 less than either of your fates"."""
    neighbours = {v + d for v in visible for d in (-1, 1)}
    return p not in neighbours and k not in neighbours


def _passage(p: int, k: int, visible: Sequence[int], on_card: Sequence[int]) -> bool:
    """The Passage: "exactly one visible value" strictly "higher than one of my fates, and
    lower than the other"."""
    between = {v for v in visible if (p < v < k) or (k < v < p)}
    return len(between) == 1


VISIBLE_ORACLES: dict[str, VisibleOracle] = {
    # "If one of your fates matches a visible fate, play your other fate here."
    "prophet": lambda p, k, vis, on: any(v == k for v in vis),
    # "unique from each other and all visible fates"
    "rider": lambda p, k, vis, on: len({p, k} | set(vis)) == len(set(vis)) + 2,
    # "the difference ... is equal to a visible fate, play your higher fate here"
    "asunder": lambda p, k, vis, on: p > k and any(v == p - k for v in vis),
    "ghost": _ghost,
    "passage": _passage,
    # "the sum of your fates plus all visible fates is a multiple of 4"
    "lantern": lambda p, k, vis, on: (p + k + sum(vis)) % 4 == 0,
    # "the sum of your fates plus up to one visible fate is 11"
    "musicians": lambda p, k, vis, on: any(p + k + extra == 11 for extra in (0, *vis)),
    # "If one of your fates is higher than my highest visible fate, play your other fate"
    "iron": lambda p, k, vis, on: all(k > v for v in on),
}


def _random_tables(count: int = 300) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """``count`` (visible, on_card) pairs: visible drawn from the 21-token bag (three of
    each value), on_card a part of it."""
    rng = random.Random(0)
    bag = [v for v in VALUES for _ in range(3)]
    tables = []
    for _ in range(count):
        visible = rng.sample(bag, rng.randint(0, 12))
        on_card = visible[: rng.randint(0, min(len(visible), 4))]
        tables.append((tuple(visible), tuple(on_card)))
    return tables


RANDOM_TABLES = _random_tables()


def test_random_tables_cover_the_interesting_cases():
    sizes = {len(visible) for visible, _ in RANDOM_TABLES}
    assert 0 in sizes and 12 in sizes
    assert any(on == () for _, on in RANDOM_TABLES)
    assert any(7 in on for _, on in RANDOM_TABLES)


@pytest.mark.parametrize("card", VISIBLE_CARDS)
def test_visible_card_agrees_with_its_text_on_random_tables(card):
    """A few hundred seeded random visible multisets, every (played, kept) pair, with and
    without Shadows (the kept fate counts one higher)."""
    oracle = VISIBLE_ORACLES[card]
    for visible, on_card in RANDOM_TABLES:
        for shadows in (False, True):
            for p in VALUES:
                mask = kept_mask(card, p, visible, on_card, shadows=shadows)
                for k in VALUES:
                    expected = oracle(p, k + shadows, visible, on_card)
                    assert bool(mask >> (k - 1) & 1) == expected, (
                        card,
                        p,
                        k,
                        visible,
                        on_card,
                        shadows,
                    )
            # spot-check the single-play function on the same table
            p, k = VALUES[len(visible) % 7], VALUES[len(on_card) % 7]
            assert can_play(card, p, k, visible, on_card, shadows=shadows) == oracle(
                p, k + shadows, visible, on_card
            )


# ---------------------------------------------------------------------------------------
# 5. The Hours
# ---------------------------------------------------------------------------------------


def test_hours_allowed_when_no_fate_can_go_anywhere():
    """The Hours: "You must play ... on The Hours if you cannot legally play either of your
    fates on any of the other 4 cards"."""
    cards = ["mirror", "lord", "leviathan", "ash"]
    assert hours_allowed(cards, (1, 2))


def test_hours_refused_when_a_fate_can_go_somewhere():
    """The Hours: "If you can play anywhere else, you cannot play on The Hours"."""
    cards = ["mirror", "lord", "leviathan", "ash"]
    assert not hours_allowed(cards, (1, 7))  # the 7 on The Lord (or The Ash)
    assert not hours_allowed(cards, (3, 3))  # The Mirror
    assert not hours_allowed(["mirror", "dawn"], (4, 4))
    assert not hours_allowed(["mirror", "dawn"], (2, 6))


def test_hours_feast_used_no_longer_counts():
    """The Feast: "You can't play on The Feast again" -> only the other cards count."""
    cards = ["feast", "mirror", "ash", "thief"]
    assert not hours_allowed(cards, (1, 2))
    assert hours_allowed(cards, (1, 2), feast_used=True)
    assert not hours_allowed(cards, (2, 2), feast_used=True)  # The Mirror


def test_hours_uses_visible_and_fates_on_each_card():
    """The Prophet reads the visible fates, Iron the fates in front of it."""
    assert hours_allowed(["prophet", "thief"], (4, 5), EXAMPLE_VISIBLE)
    assert not hours_allowed(["prophet", "thief"], (2, 5), EXAMPLE_VISIBLE)
    assert hours_allowed(["iron", "lord"], (7, 7), (7,), [(7,), ()])
    assert not hours_allowed(["iron", "lord"], (7, 7), (7,))  # nothing in front of Iron


def test_hours_with_shadows():
    """The Hours Q/A: "if you do use the power and now can play elsewhere, you must play
    elsewhere" -- and the reverse."""
    assert hours_allowed(["mirror", "ash"], (4, 5))
    assert not hours_allowed(["mirror", "ash"], (4, 5), shadows=True)
    assert hours_allowed(["iron", "lord"], (7, 7), (7,), [(7,), ()])
    assert not hours_allowed(["iron", "lord"], (7, 7), (7,), [(7,), ()], shadows=True)
    # the reverse: The Mirror takes 4 and 4, but not with Shadows (a kept 4 counts 5)
    assert not hours_allowed(["mirror", "ash"], (4, 4))
    assert hours_allowed(["mirror", "ash"], (4, 4), shadows=True)
    # Shadows Q/A, Noble with 2 and 6: still nowhere
    assert hours_allowed(["noble"], (2, 6), shadows=True)


def test_hours_hand_must_hold_two_fates():
    with pytest.raises(ValueError):
        hours_allowed(["mirror"], (1, 2, 3))
    with pytest.raises(ValueError):
        hours_allowed(["mirror"], (1,))


def test_hours_is_not_a_card_for_hours_allowed():
    with pytest.raises(ValueError, match="hours"):
        hours_allowed(["hours"], (1, 2))


# ---------------------------------------------------------------------------------------
# 6. Invalid input
# ---------------------------------------------------------------------------------------

BAD_VALUES = [0, 8, -1, True, False, "3", 3.0, None]


def _names(message: str, bad: object) -> bool:
    return repr(bad) in message or str(bad) in message


@pytest.mark.parametrize("card", ["bogus", "Mirror", "", "the_mirror"])
def test_unknown_card_raises(card):
    for call in (lambda: can_play(card, 1, 2), lambda: kept_mask(card, 1)):
        with pytest.raises(ValueError) as info:
            call()
        assert repr(card) in str(info.value)


def test_hours_card_raises():
    """The Hours is not an arcana card: it has no condition of its own."""
    for call in (lambda: can_play("hours", 1, 2), lambda: kept_mask("hours", 1)):
        with pytest.raises(ValueError) as info:
            call()
        assert "hours" in str(info.value)


@pytest.mark.parametrize("bad", BAD_VALUES, ids=repr)
def test_bad_played_value_raises(bad):
    for call in (lambda: can_play("mirror", bad, 3), lambda: kept_mask("mirror", bad)):
        with pytest.raises(ValueError) as info:
            call()
        message = str(info.value)
        assert _names(message, bad), message
        assert "played" in message


@pytest.mark.parametrize("bad", BAD_VALUES, ids=repr)
def test_bad_kept_value_raises(bad):
    with pytest.raises(ValueError) as info:
        can_play("mirror", 3, bad)
    message = str(info.value)
    assert _names(message, bad), message
    assert "kept" in message


@pytest.mark.parametrize("bad", [0, 8, True, "3"], ids=repr)
def test_bad_visible_or_on_card_value_raises(bad):
    with pytest.raises(ValueError) as info:
        can_play("prophet", 3, 4, visible=(1, bad))
    assert _names(str(info.value), bad)
    with pytest.raises(ValueError) as info:
        can_play("iron", 3, 4, visible=(1,), on_card=(bad,))
    assert _names(str(info.value), bad)
