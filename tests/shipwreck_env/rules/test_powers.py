"""Tests of the nine base faded powers against the "Faded Power Reference" of the printed
rulebook of Shipwreck Arcana.

Saints, Secrets, Shells, Sinners, Songs, Sorrows, Sparrows, Spires and Swords: who may
use each one, when, with which arguments (their Q/A), what it does, and what its answer
does to the active seat's number line (``docs/rules.md``, One turn, Number lines and
our decisions). Each test's docstring cites the power's entry or the ruling it checks.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import mask, run

from shipwreck_env.rules.actions import (
    ACTIONS,
    PASS,
    describe,
    play_action,
    power_action,
    predict_action,
)
from shipwreck_env.rules.cards import CARD_INDEX
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import IllegalActionError, legal_actions, step
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import ALL_VALUES, Phase

CFG = GameConfig(num_players=3, reveal=False)
EASY = GameConfig(num_players=3, difficulty="easy", reveal=False)
SLOTS = ["midnight", "leviathan", "shore", "judge"]
"""With a hand (1, k), k > 1, the 1 may go on Midnight (slot 0); the line is then 2..7."""
AFTER_MIDNIGHT_1 = 0b1111110
ALL_PREDICTS = [predict_action(v) for v in range(1, 8)]
SAINTS = [power_action("saints", value=x) for x in range(1, 7)]
GROUP_QUESTIONS = {
    # power: (card offering it, its set)
    "secrets": ("servant", {1, 2, 3}),
    "songs": ("blind_man", {1, 4, 7}),
    "spires": ("noble", {3, 4, 5}),
    "swords": ("lord", {5, 6, 7}),
}


def card(name: str) -> int:
    return CARD_INDEX[name]


def power_actions(s) -> list[int]:
    """Legal actions that use a faded power."""
    return [a for a in legal_actions(s) if ACTIONS[a].kind == "power"]


def group_state(kept: int, faded, config=CFG, **kw):
    """Seat 0 has played 1 on Midnight, keeping ``kept``; the leader (player 1) decides."""
    s = arrange(config, slots=SLOTS, hand=[1, kept], faded=faded, **kw)
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.GROUP and s.decider == 1
    return s


# ---------------------------------------------------------------------------------------
# Common rules of faded powers
# ---------------------------------------------------------------------------------------


def test_only_one_power_per_turn_in_the_group_phase():
    """Faded Card Powers: 'Only one faded power may be used per turn.'"""
    s = group_state(6, ["dawn", "servant", "lord"])
    s = run(s, power_action("swords"))
    assert legal_actions(s) == [*ALL_PREDICTS, PASS]


def test_only_one_power_per_turn_after_play_power_blocks_group_powers():
    """Faded Card Powers: one power per turn, whoever uses it (docs/rules.md, One turn,
    step 2)."""
    s = arrange(CFG, slots=SLOTS, hand=[1, 6], faded=["key", "dawn"])
    s = run(s, play_action(1, 0), power_action("shells"))
    assert s.phase == Phase.GROUP
    assert legal_actions(s) == [*ALL_PREDICTS, PASS]


def test_only_one_power_per_turn_pre_play_power_skips_after_play_powers():
    """Faded Card Powers: one power per turn: after Sparrows no Shells/Sinners phase."""
    s = arrange(CFG, slots=SLOTS, hand=[1, 6], faded=["prophet", "key", "belltower"])
    s = run(s, power_action("sparrows", slot=3), play_action(1, 0))
    assert s.phase == Phase.GROUP
    assert legal_actions(s) == [*ALL_PREDICTS, PASS]


def test_used_power_leaves_faded_and_goes_to_the_deck_bottom():
    """Faded Card Powers: after using a card's power, place it face-up on the bottom of
    the arcana deck."""
    s = group_state(6, ["servant", "dawn"])
    s = run(s, power_action("secrets"))
    assert s.faded == [card("dawn")]
    assert s.deck[-1] == card("servant")


def test_using_a_power_does_not_force_a_prediction():
    """Faded Card Powers / Additional FAQ: using a power does not force a prediction."""
    s = group_state(6, ["dawn"])
    s = run(s, power_action("saints", value=5), PASS)
    assert s.hands[0] == [6] and s.score == 0 and s.doom == 2
    assert s.lines[0] == mask(6, 7)  # the answer stays on the number line


def test_powers_are_not_offered_without_faded_cards():
    """Faded Card Powers: only faded cards offer powers."""
    s = arrange(CFG, slots=SLOTS, hand=[1, 6])
    assert power_actions(s) == []
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.GROUP and legal_actions(s) == [*ALL_PREDICTS, PASS]


@pytest.mark.parametrize(
    ("faded", "power"),
    [
        ("dawn", "saints"),
        ("servant", "secrets"),
        ("blind_man", "songs"),
        ("beast", "sorrows"),
        ("noble", "spires"),
        ("lord", "swords"),
    ],
)
def test_group_powers_are_offered_only_to_the_leader_in_the_group_phase(faded, power):
    """Faded Power Reference: '...can only be used by the group, and can only be used after
    the active player has finished playing fates, but before the group decides to make a
    prediction.'"""
    s = arrange(CFG, slots=SLOTS, hand=[1, 6], faded=[faded], active=2)
    assert power_actions(s) == []  # not before the play (active player's PLAY phase)
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.GROUP and s.decider == 0  # the leader, not the active seat 2
    offered = power_actions(s)
    assert offered and all(ACTIONS[a].power == power for a in offered)
    assert all(describe(a).startswith("use " + power) for a in offered)


# ---------------------------------------------------------------------------------------
# Saints -- "Higher Than?"
# ---------------------------------------------------------------------------------------


def test_saints_x_is_one_to_six():
    """docs/rules.md, decision 9: Saints' X is 1..6 (the only values a fate can have are
    1-7)."""
    s = group_state(6, ["dawn"])
    assert power_actions(s) == SAINTS


def test_saints_higher_than_4_while_holding_a_4_answers_no():
    """Saints: 'Is your fate higher than 4?' while holding a 4: they must answer 'No'."""
    s = group_state(4, ["dawn"])
    s = run(s, power_action("saints", value=4))
    assert s.events[-1] == ("power", "saints", 4, False)
    assert s.lines[0] == mask(2, 3, 4)


def test_saints_yes_narrows_the_line_to_values_above_x():
    """Saints: 'Is your fate higher than X?' -- yes."""
    s = group_state(4, ["dawn"])
    s = run(s, power_action("saints", value=3))
    assert s.events[-1] == ("power", "saints", 3, True)
    assert s.lines[0] == mask(4, 5, 6, 7)


def test_saints_is_not_offered_after_a_prediction_in_the_same_phase():
    """Saints: before making a prediction; with Sorrows the second guess gets no power."""
    s = group_state(6, ["dawn", "beast"])
    s = run(s, power_action("sorrows"), predict_action(2))
    assert s.phase == Phase.GROUP
    assert legal_actions(s) == [*ALL_PREDICTS, PASS]


# ---------------------------------------------------------------------------------------
# Secrets, Songs, Spires, Swords -- "Is your fate a, b or c?"
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("power", sorted(GROUP_QUESTIONS))
@pytest.mark.parametrize("answer", [True, False])
def test_set_question_answer_and_number_line(power, answer):
    """Secrets / Songs / Spires / Swords: the active player answers 'yes' or 'no'; the
    line keeps the values consistent with the answer."""
    faded, group = GROUP_QUESTIONS[power]
    candidates = [k for k in range(2, 8) if (k in group) == answer]
    kept = candidates[0]
    s = group_state(kept, [faded])
    assert power_actions(s) == [power_action(power)]
    s = run(s, power_action(power))
    assert s.events[-1] == ("power", power, None, answer)
    allowed = {k for k in range(2, 8) if (k in group) == answer}
    assert s.lines[0] == mask(*allowed)
    assert s.faded == [] and s.deck[-1] == card(faded)


def test_secrets_asks_1_2_3():
    """Secrets: 'Is your fate 1, 2, or 3?' -- holding 3: yes."""
    s = group_state(3, ["stranger"])
    s = run(s, power_action("secrets"))
    assert s.events[-1] == ("power", "secrets", None, True)
    assert s.lines[0] == mask(2, 3)


def test_songs_asks_1_4_7():
    """Songs: 'Is your fate 1, 4, or 7?' -- holding 7: yes."""
    s = group_state(7, ["chalice"])
    s = run(s, power_action("songs"))
    assert s.events[-1] == ("power", "songs", None, True)
    assert s.lines[0] == mask(4, 7)


def test_spires_asks_3_4_5():
    """Spires: 'Is your fate 3, 4, or 5?' -- holding 6: no."""
    s = group_state(6, ["noble"])
    s = run(s, power_action("spires"))
    assert s.events[-1] == ("power", "spires", None, False)
    assert s.lines[0] == mask(2, 6, 7)


def test_swords_asks_5_6_7():
    """Swords: 'Is your fate 5, 6, or 7?' -- holding 4: no."""
    s = group_state(4, ["engine"])
    s = run(s, power_action("swords"))
    assert s.events[-1] == ("power", "swords", None, False)
    assert s.lines[0] == mask(2, 3, 4)


def test_question_answer_then_correct_prediction_scores():
    """Secrets..Swords: the group may then predict; a correct one scores 1."""
    s = group_state(5, ["lord"])
    s = run(s, power_action("swords"), predict_action(5))
    assert s.score == 1 and s.lines[0] == ALL_VALUES


# ---------------------------------------------------------------------------------------
# Shells -- "Old?"
# ---------------------------------------------------------------------------------------


def test_shells_is_offered_to_the_active_player_after_the_play_only():
    """Shells: only the active player, after playing, before the group predicts."""
    s = arrange(CFG, slots=SLOTS, hand=[1, 6], faded=["key"], active=1)
    assert power_action("shells") not in legal_actions(s)
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.AFTER_PLAY and s.decider == 1
    assert legal_actions(s) == [PASS, power_action("shells")]
    s = run(s, PASS)
    assert s.phase == Phase.GROUP and s.decider == 2
    assert power_action("shells") not in legal_actions(s)


def test_shells_yes_when_the_played_fate_was_carried():
    """Shells: say whether the fate played was one held during the previous turn.
    docs/rules.md, Number lines: 'yes' -> the kept fate was drawn this turn: the line is the
    play's condition set."""
    s = arrange(CFG, slots=SLOTS, hand=[5, 6], carried=5, lines={0: mask(5, 6)}, faded=["key"])
    s = run(s, play_action(5, 0))
    assert s.lines[0] == mask(6, 7)
    s = run(s, power_action("shells"))
    assert s.events[-1] == ("power", "shells", 5, True)
    assert s.lines[0] == mask(6, 7)


def test_shells_no_when_the_played_fate_was_drawn_this_turn():
    """Shells: 'I did not have this 2 last turn' -> the hidden fate is the old one and the
    old deductions still apply. docs/rules.md, Number lines: the line is the carried fate's
    previous line intersected with the condition set."""
    s = arrange(CFG, slots=SLOTS, hand=[6, 5], carried=6, lines={0: mask(5, 6)}, faded=["key"])
    s = run(s, play_action(5, 0))
    assert s.lines[0] == mask(6, 7)  # 5 might have been the old fate
    s = run(s, power_action("shells"))
    assert s.events[-1] == ("power", "shells", 5, False)
    assert s.lines[0] == mask(6)


def test_shells_no_when_no_fate_was_carried():
    """docs/rules.md, decision 21: with no held fate Shells answers 'no'."""
    s = arrange(CFG, slots=SLOTS, hand=[1, 6], faded=["key"])
    s = run(s, play_action(1, 0), power_action("shells"))
    assert s.events[-1] == ("power", "shells", 1, False)
    assert s.lines[0] == AFTER_MIDNIGHT_1


def test_shells_equal_fates_one_carried_answers_no():
    """docs/rules.md, decision 3: with two equal fates, one carried, the fresh one is
    played: 'no'."""
    s = arrange(
        CFG, slots=["mirror", "leviathan", "shore", "judge"], hand=[4, 4], carried=4, faded=["key"]
    )
    s = run(s, play_action(4, 0), power_action("shells"))
    assert s.events[-1] == ("power", "shells", 4, False)
    assert s.hands[0] == [4]


def test_shells_card_goes_to_the_deck_bottom():
    """Faded Card Powers: the used Key (Shells) goes to the bottom of the deck."""
    s = arrange(CFG, slots=SLOTS, hand=[1, 6], faded=["key"])
    s = run(s, play_action(1, 0), power_action("shells"))
    assert s.faded == [] and s.deck[-1] == card("key")


# ---------------------------------------------------------------------------------------
# Sinners -- "Discard Lower"
# ---------------------------------------------------------------------------------------


def test_sinners_offers_every_visible_fate_lower_than_the_kept_fate():
    """Sinners: discard one visible fate that is lower than their remaining fate."""
    s = arrange(CFG, slots=SLOTS, table=[[], [2], [3, 6], []], hand=[1, 5], faded=["belltower"])
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.AFTER_PLAY and s.decider == 0
    assert legal_actions(s) == [
        PASS,
        power_action("sinners", slot=0, value=1),
        power_action("sinners", slot=1, value=2),
        power_action("sinners", slot=2, value=3),
    ]


def test_sinners_discards_to_the_bag_and_narrows_the_line():
    """Sinners: return the chosen fate to the bag; the kept fate is higher than it."""
    s = arrange(CFG, slots=SLOTS, table=[[], [2], [3], []], hand=[1, 5], faded=["belltower"])
    bag3 = s.bag[2]
    s = run(s, play_action(1, 0), power_action("sinners", slot=2, value=3))
    assert s.table == [[1], [2], [], []]
    assert s.bag[2] == bag3 + 1
    assert s.lines[0] == mask(4, 5, 6, 7)
    assert s.events[-1] == ("power", "sinners", (2, 3), None)
    assert s.faded == [] and s.deck[-1] == card("belltower")
    assert s.phase == Phase.GROUP


def test_sinners_cannot_discard_a_fate_equal_to_the_kept_fate():
    """Sinners: only a fate whose value is less than the hidden fate."""
    s = arrange(CFG, slots=SLOTS, table=[[], [4], [6], []], hand=[1, 4], faded=["belltower"])
    s = run(s, play_action(1, 0))
    assert legal_actions(s) == [PASS, power_action("sinners", slot=0, value=1)]
    with pytest.raises(IllegalActionError):
        step(s, power_action("sinners", slot=1, value=4), np.random.default_rng(0))


def test_sinners_can_discard_the_fate_just_played_if_lower():
    """Sinners Q/A: 'Can I discard the fate that I just played? Yes, if it is lower than
    your hidden fate.'"""
    s = arrange(CFG, slots=SLOTS, hand=[1, 5], faded=["belltower"])
    s = run(s, play_action(1, 0), power_action("sinners", slot=0, value=1))
    assert s.table == [[], [], [], []]
    assert s.lines[0] == AFTER_MIDNIGHT_1


def test_sinners_cannot_discard_the_fate_just_played_if_higher():
    """Sinners Q/A: the fate just played only 'if it is lower than your hidden fate'."""
    s = arrange(
        CFG, slots=["dawn", "leviathan", "shore", "judge"], hand=[6, 2], faded=["belltower"]
    )
    s = run(s, play_action(6, 0))
    assert legal_actions(s) == [PASS]


def test_sinners_cannot_be_used_if_no_visible_fate_is_lower():
    """Sinners Q/A: 'Can I use Sinners if no visible fate is lower than my hidden fate?
    No.'"""
    s = arrange(
        CFG,
        slots=["mirror", "leviathan", "shore", "judge"],
        table=[[], [3], [], []],
        hand=[1, 1],
        faded=["belltower"],
    )
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.AFTER_PLAY
    assert legal_actions(s) == [PASS]
    s = run(s, PASS)
    assert s.faded == [card("belltower")]


def test_sinners_discard_is_seen_by_the_fade_check():
    """Sinners + Fading: a card fades if its hours reach its moons at the end of the
    turn; a discarded fate no longer counts."""
    s = arrange(CFG, slots=SLOTS, table=[[5], [], [], []], hand=[1, 6], faded=["belltower"])
    s = run(s, play_action(1, 0), power_action("sinners", slot=0, value=5), PASS)
    assert s.slots[0] == card("midnight") and s.table[0] == [1]
    assert s.doom == 2


def test_sinners_is_not_offered_to_the_group():
    """Sinners: only the active player, after playing."""
    s = arrange(CFG, slots=SLOTS, table=[[], [2], [], []], hand=[1, 6], faded=["belltower"])
    s = run(s, play_action(1, 0), PASS)
    assert s.phase == Phase.GROUP
    assert legal_actions(s) == [*ALL_PREDICTS, PASS]


# ---------------------------------------------------------------------------------------
# Sorrows -- "Twice"
# ---------------------------------------------------------------------------------------


def test_sorrows_gives_one_extra_prediction_after_a_wrong_one():
    """Sorrows: the group may make an extra prediction this turn (docs/rules.md, One turn
    step 7: only after a wrong one); the wrong value leaves the number line."""
    s = group_state(6, ["beast"])
    s = run(s, power_action("sorrows"))
    assert s.phase == Phase.GROUP and s.decider == 1
    s = run(s, predict_action(3))
    assert s.events[-1] == ("predict", 3, False)
    assert s.phase == Phase.GROUP and s.decider == 1
    assert legal_actions(s) == [*ALL_PREDICTS, PASS]
    assert s.lines[0] == mask(2, 4, 5, 6, 7)


def test_sorrows_two_wrong_predictions_cost_one_doom():
    """Sorrows Q/A: doom only advances a single time, regardless of how many wrong
    predictions are made."""
    s = group_state(6, ["beast"])
    s = run(s, power_action("sorrows"), predict_action(3), predict_action(4))
    assert s.doom == 3 and s.score == 0
    assert s.hands[0] == [] and s.lines[0] == ALL_VALUES


def test_sorrows_second_prediction_correct_scores_without_doom():
    """FAQ: 'If any of the predictions are correct, the entire prediction is treated as
    correct.' Sorrows Q/A: doom does not advance if the other guess is correct."""
    s = group_state(6, ["beast"])
    s = run(s, power_action("sorrows"), predict_action(3), predict_action(6))
    assert s.score == 1 and s.doom == 2


def test_sorrows_second_prediction_correct_cancels_fading_doom():
    """Fading step 3: no fading doom when the allies made a correct prediction."""
    s = arrange(EASY, slots=SLOTS, table=[[5], [], [], []], hand=[1, 6], faded=["mirror"])
    s = run(s, play_action(1, 0), power_action("sorrows"), predict_action(2), predict_action(6))
    assert s.faded == [card("midnight")]
    assert s.score == 1 and s.doom == 0


def test_sorrows_first_prediction_correct_ends_the_predictions():
    """Sorrows: only one of the predictions needs to be correct."""
    s = group_state(6, ["beast"])
    s = run(s, power_action("sorrows"), predict_action(6))
    assert s.score == 1 and s.doom == 2 and s.active == 1


def test_sorrows_is_one_extra_prediction_only():
    """Sorrows: 'one extra prediction' -- two in all."""
    s = group_state(6, ["huntress"])
    s = run(s, power_action("sorrows"), predict_action(2), predict_action(3))
    assert s.active == 1 and s.phase == Phase.PLAY


def test_sorrows_wrong_then_pass_costs_one_doom():
    """Sorrows: the extra prediction is optional; the wrong one still costs 1 doom."""
    s = group_state(6, ["beast"])
    s = run(s, power_action("sorrows"), predict_action(3), PASS)
    assert s.doom == 3 and s.hands[0] == []


def test_without_sorrows_there_is_a_single_prediction():
    """Turn step 3: the entire group gets a single prediction."""
    s = group_state(6, [])
    s = run(s, predict_action(3))
    assert s.active == 1 and s.doom == 3


# ---------------------------------------------------------------------------------------
# Sparrows -- "Cycle"
# ---------------------------------------------------------------------------------------


def test_sparrows_is_offered_only_for_cards_with_no_fates():
    """Sparrows: replace an arcana card (with no fates) with the top card of the deck."""
    s = arrange(CFG, slots=SLOTS, table=[[], [2], [], []], hand=[1, 6], faded=["rider"])
    sparrows = [power_action("sparrows", slot=i) for i in (0, 2, 3)]
    assert power_actions(s) == sparrows


def test_sparrows_brings_in_the_top_card_and_sends_both_to_the_deck_bottom():
    """Sparrows: place the card on the bottom of the deck and replace it with the top card
    of the deck; docs/rules.md, decision 8: then the sparrows card."""
    s = arrange(CFG, slots=SLOTS, hand=[1, 6], faded=["prophet"], deck=["dawn", "key"])
    n = len(s.deck)
    s = run(s, power_action("sparrows", slot=1))
    assert s.slots == [card("midnight"), card("dawn"), card("shore"), card("judge")]
    assert s.deck[0] == card("key")
    assert s.deck[-2:] == [card("leviathan"), card("prophet")]
    assert len(s.deck) == n + 1
    assert s.faded == []
    assert s.events[-1] == ("power", "sparrows", 1, ("leviathan", "dawn"))


def test_sparrows_needs_a_non_empty_deck():
    """docs/rules.md, decision 8: Sparrows needs a non-empty deck."""
    s = arrange(CFG, slots=SLOTS, hand=[1, 6], faded=["prophet"])
    s.deck.clear()
    assert power_actions(s) == []


def test_sparrows_is_used_before_the_play_only():
    """Sparrows: after drawing but before playing."""
    s = arrange(CFG, slots=SLOTS, hand=[1, 6], faded=["prophet"], active=1)
    assert s.phase == Phase.PLAY and s.decider == 1
    assert power_actions(s)
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.GROUP  # no after-play power: AFTER_PLAY is skipped
    assert legal_actions(s) == [*ALL_PREDICTS, PASS]


def test_sparrows_new_card_changes_where_the_fate_may_go():
    """Sparrows + The Hours Q/A: if you use the power and now can play elsewhere, you must
    play elsewhere."""
    s = arrange(
        CFG,
        slots=["midnight", "dawn", "leviathan", "huntress"],
        hand=[3, 3],
        faded=["prophet"],
        deck=["mirror"],
    )
    assert play_action(3, 4) in legal_actions(s)
    s = run(s, power_action("sparrows", slot=3))
    assert s.slots[3] == card("mirror")
    assert legal_actions(s) == [play_action(3, 3)]


def test_sparrows_takes_the_earliest_faded_of_two_cards():
    """docs/rules.md, decision 2: with two faded sparrows cards the earlier one is used, the
    other stays; no second power this turn."""
    s = arrange(CFG, slots=SLOTS, hand=[1, 6], faded=["rider", "prophet"])
    s = run(s, power_action("sparrows", slot=0))
    assert s.faded == [card("prophet")]
    assert s.deck[-1] == card("rider")
    assert power_actions(s) == []


def test_sparrows_on_a_card_with_fates_is_illegal():
    """Sparrows: only an arcana card with no fates in front of it."""
    s = arrange(CFG, slots=SLOTS, table=[[2], [], [], []], hand=[1, 6], faded=["rider"])
    before = s.copy()
    with pytest.raises(IllegalActionError):
        step(s, power_action("sparrows", slot=0), np.random.default_rng(0))
    assert s == before


def test_sparrows_gives_no_number_line_information():
    """Sparrows: the active player may not confirm or deny whether they could have
    legally played on the replaced card: the number line does not change."""
    s = arrange(CFG, slots=SLOTS, hand=[6, 1], carried=6, lines={0: mask(5, 6)}, faded=["prophet"])
    s = run(s, power_action("sparrows", slot=3))
    assert s.lines[0] == mask(5, 6)
