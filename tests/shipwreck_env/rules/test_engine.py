"""Tests of the rules engine (:mod:`shipwreck_env.rules.engine`) against the rulebook.

Authorities: the printed rulebook of Shipwreck Arcana (its sections Setup, Player Turn,
Fading, Ending the Game, Strategy, 2-Player Challenge Mode and FAQ; "Setup N", "Turn step
N" and "Fading step N" below are the numbered steps of Setup, Player Turn and Fading
there) and ``docs/rules.md`` (One turn, steps 1-10; our decisions; Number lines). Each
test's docstring cites the section or ruling it checks. States are built with
``scenario.arrange`` and driven with ``step``.

The faded powers of the base set have their own file, ``tests/shipwreck_env/rules/test_powers.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import mask, run

from shipwreck_env.rules.actions import (
    HOURS_TARGET,
    PASS,
    REVEAL,
    cost_action,
    play_action,
    power_action,
    predict_action,
)
from shipwreck_env.rules.cards import CARD_INDEX
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import (
    IllegalActionError,
    legal_actions,
    new_game,
    slot_hours,
    step,
    step_inplace,
)
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import ALL_VALUES, Phase

ALL_PREDICTS = [predict_action(v) for v in range(1, 8)]
SLOTS = ["midnight", "leviathan", "shore", "judge"]
"""A quiet table: with a hand (1, k), k > 1, the 1 may go on Midnight (Lower)."""
NO_REVEAL = GameConfig(num_players=3, reveal=False)
EASY = GameConfig(num_players=3, difficulty="easy", reveal=False)


def card(name: str) -> int:
    return CARD_INDEX[name]


def kinds(s) -> list[str]:
    return [e[0] for e in s.events]


# ---------------------------------------------------------------------------------------
# Turn order (rulebook, Player Turn; docs/rules.md, One turn)
# ---------------------------------------------------------------------------------------


def test_step1_draw_new_game_deals_the_first_seat_two_fates():
    """Turn step 1 (Draw): draw fates from the bag until you have 2 in hand."""
    s = new_game(GameConfig(num_players=3), 7)
    assert len(s.hands[0]) == 2
    assert sum(s.bag) == 21 - 2
    assert s.hands[1] == [] and s.hands[2] == []
    assert s.events == [("draw", 0, 2)]
    assert s.phase == Phase.PLAY and s.active == 0 and s.decider == 0


def test_step1_draw_only_one_fate_when_one_was_kept_from_the_previous_turn():
    """Turn step 1: holding a fate from your previous turn, you only draw 1 new fate."""
    cfg = GameConfig(num_players=2, reveal=False)
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], held={1: 4})
    s = run(s, play_action(1, 0), PASS)  # leader (player 1) makes no prediction
    assert s.active == 1
    assert s.events == [("draw", 1, 1)]
    assert len(s.hands[1]) == 2 and 4 in s.hands[1]
    assert sum(s.bag) == 21 - 4  # 1 on the table, 6 held by seat 0, two in seat 1's hand


def test_step2_pre_play_power_is_offered_to_the_active_player_before_the_play():
    """docs/rules.md, One turn step 2 and decision 1: sparrows may be used before the play
    if no power was used yet this turn."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6], faded=["prophet"])
    legal = legal_actions(s)
    assert s.phase == Phase.PLAY and s.decider == 0
    assert power_action("sparrows", slot=0) in legal
    s = run(s, power_action("sparrows", slot=0))
    assert s.phase == Phase.PLAY and s.decider == 0  # the play still follows
    assert all(a in [play_action(v, t) for v in (1, 6) for t in range(5)] for a in legal_actions(s))


def test_step3_play_only_where_the_card_condition_allows():
    """Turn step 2 (Play): play one fate in front of a card, obeying its ability text."""
    s = arrange(NO_REVEAL, slots=["midnight", "dawn", "mirror", "leviathan"], hand=[2, 6])
    assert legal_actions(s) == sorted([play_action(2, 0), play_action(6, 1)])
    with pytest.raises(IllegalActionError):
        step(s, play_action(6, 0), np.random.default_rng(0))  # 6 is not the lower fate


def test_step3_the_hours_is_legal_only_when_no_arcana_card_allows_either_fate():
    """The Hours: 'If you can play anywhere else, you cannot play on The Hours.'"""
    s = arrange(NO_REVEAL, slots=["midnight", "dawn", "leviathan", "huntress"], hand=[3, 3])
    assert legal_actions(s) == [play_action(3, HOURS_TARGET)]
    s2 = arrange(NO_REVEAL, slots=["midnight", "dawn", "leviathan", "huntress"], hand=[3, 4])
    assert play_action(3, HOURS_TARGET) not in legal_actions(s2)
    assert play_action(4, HOURS_TARGET) not in legal_actions(s2)


def test_step4_hours_play_slides_at_once_to_the_leftmost_arcana_card():
    """The Hours: 'play one of your fates here. Then move it one card to the right.'"""
    s = arrange(NO_REVEAL, slots=["midnight", "dawn", "leviathan", "huntress"], hand=[3, 3])
    s = run(s, play_action(3, HOURS_TARGET))
    assert s.table[0] == [3]
    assert s.events[1] == ("play", 3, HOURS_TARGET, 0)


def test_step4_chalice_tell_is_announced_right_after_the_play():
    """docs/rules.md, One turn step 4: The Chalice's tell is an automatic public
    announcement."""
    s = arrange(NO_REVEAL, slots=["chalice", "leviathan", "shore", "judge"], hand=[2, 5])
    s = run(s, play_action(2, 0))
    assert s.events[1:] == [("play", 2, 0, 0), ("chalice", True)]
    assert s.phase == Phase.GROUP


def test_step5_after_play_powers_are_decided_by_the_active_player():
    """docs/rules.md, One turn step 5: after the play the active player may use shells or
    sinners."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6], faded=["key"], active=1)
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.AFTER_PLAY
    assert s.decider == 1
    assert legal_actions(s) == [PASS, power_action("shells")]
    s = run(s, PASS)
    assert s.phase == Phase.GROUP and s.decider == 2


def test_step6_group_phase_one_group_power_then_predict_or_pass():
    """docs/rules.md, One turn step 7: the group may use one group power, then predict or
    pass."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6], faded=["dawn", "servant"])
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.GROUP and s.decider == 1
    legal = legal_actions(s)
    assert set(ALL_PREDICTS) | {PASS, power_action("secrets")} <= set(legal)
    s = run(s, power_action("secrets"))
    assert s.phase == Phase.GROUP and s.decider == 1
    assert legal_actions(s) == [*ALL_PREDICTS, PASS]  # no second power this turn


def test_step7_resolve_correct_prediction_scores_and_frees_the_fate():
    """Turn step 4 (Resolve): correct -> score 1; after any prediction discard the fate to
    the bag and reset the number line."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6])
    bag6 = s.bag[5]
    s = run(s, play_action(1, 0), predict_action(6))
    assert s.score == 1 and s.doom == 2
    assert s.hands[0] == []
    assert s.lines[0] == ALL_VALUES
    assert s.active == 1
    assert s.bag[5] + s.hands[1].count(6) == bag6 + 1


def test_step7_resolve_wrong_prediction_advances_doom_and_discards_the_fate():
    """Turn step 4 (Resolve): incorrect -> doom +1; the fate goes back to the bag."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6])
    s = run(s, play_action(1, 0), predict_action(5))
    assert s.score == 0 and s.doom == 3
    assert s.hands[0] == [] and s.lines[0] == ALL_VALUES


def test_step7_no_prediction_keeps_the_fate_and_its_number_line():
    """Turn step 3: no prediction -> keep your fate face-down, do not reset the line."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6])
    s = run(s, play_action(1, 0), PASS)
    assert s.hands[0] == [6]
    assert s.lines[0] == mask(2, 3, 4, 5, 6, 7)
    assert s.score == 0 and s.doom == 2


def test_step8_sails_comes_after_a_correct_prediction_and_before_fading():
    """docs/rules.md, One turn step 9: Sails (only after a correct prediction) is used
    before fading; Sails Q/A: a card that no longer reaches its duration does not fade."""
    cfg = GameConfig(num_players=3, reveal=False, card_sets="all")
    s = arrange(
        cfg,
        slots=["dawn", "leviathan", "shore", "judge"],
        table=[[5], [], [], []],
        hand=[6, 2],
        faded=["musicians", "midnight"],
    )
    s = run(s, play_action(6, 0), predict_action(2))
    assert s.phase == Phase.SAILS and s.decider == 1
    assert power_action("sails", slot=0, value=5) in legal_actions(s)
    s = run(s, power_action("sails", slot=0, value=5))
    assert s.phase == Phase.COST
    s = run(s, cost_action("saints"))
    assert s.slots[0] == card("dawn")  # 6 alone is 2 hours < 3 moons: no fade
    assert s.table[0] == [6]
    assert s.exiled[4] == 1
    assert s.score == 1
    assert s.deck[-2:] == [card("musicians"), card("midnight")]


def test_step8_no_sails_phase_without_a_correct_prediction():
    """docs/rules.md, One turn step 9: Sails only after a correct prediction."""
    cfg = GameConfig(num_players=3, reveal=False, card_sets="all")
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], faded=["musicians", "dawn"])
    s = run(s, play_action(1, 0), predict_action(5))
    assert s.phase == Phase.PLAY and s.active == 1


def test_step9_fade_when_hours_reach_the_duration():
    """Fading: a card fades when its hours are greater than or equal to its moons; its
    fates go back to the bag, the card goes to the faded area, doom +2, refill."""
    s = arrange(NO_REVEAL, slots=SLOTS, table=[[5], [], [], []], hand=[1, 6], deck=["dawn", "key"])
    bag = list(s.bag)
    s = run(s, play_action(1, 0), PASS)  # Midnight: 5 (2 hours) + 1 (1 hour) = 3 moons
    assert s.faded == [card("midnight")]
    assert s.slots[0] == card("dawn")
    assert s.deck[0] == card("key")
    assert s.table[0] == []
    assert s.doom == 2 + 2
    assert sum(s.bag) + len(s.hands[1]) == sum(bag) + 2  # the 5 and the 1 came back


def test_step9_no_fade_below_the_duration():
    """Fading: a card fades only once its hours reach its moons."""
    s = arrange(NO_REVEAL, slots=SLOTS, table=[[], [], [], []], hand=[1, 6])
    s = run(s, play_action(1, 0), PASS)
    assert s.slots[0] == card("midnight") and s.table[0] == [1]
    assert s.faded == [] and s.doom == 2


def test_step9_faded_power_becomes_available_next_turn():
    """Faded Card Powers: a faded card's power can be used once by the players."""
    s = arrange(NO_REVEAL, slots=SLOTS, table=[[5], [], [], []], hand=[1, 6], deck=["dawn"])
    s = run(s, play_action(1, 0), PASS)
    assert s.faded == [card("midnight")]
    s = run(s, legal_actions(s)[0])  # seat 1 plays whatever it may
    assert s.phase == Phase.GROUP and s.decider == 2
    saints = [power_action("saints", value=x) for x in range(1, 7)]
    assert legal_actions(s) == [*ALL_PREDICTS, PASS, *saints]


def test_step9_refill_takes_the_top_card_of_the_deck():
    """Fading step 4: refill the row with the top card of the arcana deck."""
    s = arrange(
        NO_REVEAL, slots=SLOTS, table=[[5], [], [], []], hand=[1, 6], deck=["servant", "dawn"]
    )
    n = len(s.deck)
    s = run(s, play_action(1, 0), PASS)
    assert s.slots[0] == card("servant")
    assert s.deck[0] == card("dawn")
    assert len(s.deck) == n - 1


def test_step10_win_at_score_seven():
    """Ending the Game: the players win by making 7 correct predictions."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6], score=6)
    s = run(s, play_action(1, 0), predict_action(6))
    assert s.over and s.won and not s.truncated
    assert s.score == 7 and s.phase == Phase.GAME_OVER
    assert legal_actions(s) == [] and s.decider == -1


def test_step10_lose_at_doom_seven():
    """Ending the Game: the players lose if their doom reaches 7."""
    s = arrange(NO_REVEAL, slots=SLOTS, table=[[5], [], [], []], hand=[1, 6], doom=5)
    s = run(s, play_action(1, 0), PASS)
    assert s.over and not s.won and s.doom == 7


@pytest.mark.parametrize(("active", "following"), [(0, 1), (1, 2), (2, 0)])
def test_step10_next_player_clockwise_becomes_active(active, following):
    """Setup 5 / docs/rules.md, One turn step 10: play proceeds clockwise."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6], active=active)
    s = run(s, play_action(1, 0), PASS)
    assert s.active == following and s.decider == following
    assert s.phase == Phase.PLAY and len(s.hands[following]) == 2


# ---------------------------------------------------------------------------------------
# Engine decisions where the rules are open (docs/rules.md, "Our decisions ...")
# ---------------------------------------------------------------------------------------


def test_one_faded_power_per_turn_across_phases():
    """Faded Card Powers: 'Only one faded power may be used per turn.'"""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6], faded=["prophet", "key", "dawn"])
    s = run(s, power_action("sparrows", slot=0))
    s = run(s, play_action(1, 2))  # The Beast replaced Midnight; 1 and 6 fit The Shore
    assert s.phase == Phase.GROUP  # no shells after sparrows: AFTER_PLAY is skipped
    assert legal_actions(s) == [*ALL_PREDICTS, PASS]


def test_same_power_on_several_faded_cards_takes_the_earliest_faded():
    """docs/rules.md, decision 2: the card that faded first is used; it goes to the deck
    bottom."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6], faded=["deep", "dawn"])
    s = run(s, play_action(1, 0), power_action("saints", value=3))
    assert s.faded == [card("dawn")]
    assert s.deck[-1] == card("deep")


def test_equal_fates_with_one_carried_play_the_fresh_one():
    """docs/rules.md, decision 3: with two equal fates, one carried, the freshly drawn one
    is played (Shells then answers "no")."""
    s = arrange(
        NO_REVEAL,
        slots=["mirror", "leviathan", "shore", "judge"],
        hand=[3, 3],
        carried=3,
        lines={0: mask(3, 4)},
        faded=["key"],
    )
    s = run(s, play_action(3, 0), power_action("shells"))
    assert s.events[-1] == ("power", "shells", 3, False)
    assert s.lines[0] == mask(3)


def test_missed_fate_returns_to_the_bag_unseen():
    """docs/rules.md, decision 5: a fate missed by a wrong prediction goes to the bag; its
    value is not announced (event ("resolve", False))."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6], doom=6)
    bag6 = s.bag[5]
    s = run(s, play_action(1, 0), predict_action(2))
    assert s.over and not s.won  # doom 7 ends the game: this turn's events stay readable
    assert ("resolve", False) in s.events
    assert ("predict", 2, False) in s.events
    assert not any(6 in e[1:] for e in s.events if e[0] != "play")
    assert s.bag[5] == bag6 + 1


def test_correct_prediction_event_resolve_true():
    """Turn step 4: a correct prediction frees the fate (event ("resolve", True))."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6], score=6)
    s = run(s, play_action(1, 0), predict_action(6))
    assert s.events[-2:] == [("predict", 6, True), ("resolve", True)]


def test_predictions_name_the_real_value_after_shadows():
    """docs/rules.md, decision 12: after shadows a prediction is correct only when it names
    the kept fate's real value."""
    cfg = GameConfig(num_players=3, reveal=False, card_sets=("base", "kickstarter"))
    s = arrange(
        cfg, slots=["mirror", "leviathan", "shore", "judge"], hand=[4, 5], faded=["fortune"]
    )
    s = run(s, power_action("shadows"), play_action(5, 0))
    right = run(s, predict_action(4))
    assert right.score == 1
    wrong = run(s, predict_action(5))
    assert wrong.score == 0 and wrong.doom == 2 + 1 + 2  # miss, and The Mirror fades


def test_scions_card_goes_to_the_deck_bottom_when_its_card_fades():
    """docs/rules.md, decision 22: Scions stays attached until that card leaves play; then
    it goes to the bottom of the deck. Its card counts 1 hour per fate."""
    cfg = GameConfig(num_players=3, reveal=False, card_sets="all")
    s = arrange(
        cfg, slots=SLOTS, table=[[7, 7], [], [], []], hand=[1, 6], attached={0: ["north_wind"]}
    )
    assert slot_hours(s, 0) == 2
    s = run(s, play_action(1, 0), PASS)
    assert s.faded == [card("midnight")]
    assert s.deck[-1] == card("north_wind")
    assert s.attached[0] == []


def test_sands_attaches_to_the_card_that_takes_its_slot():
    """docs/rules.md, decision 22: Sands attaches to the card that takes its card's slot."""
    cfg = GameConfig(num_players=3, reveal=False, card_sets="all")
    s = arrange(
        cfg,
        slots=["fall", "leviathan", "shore", "judge"],
        table=[[6], [], [], []],
        hand=[5, 1],
        deck=["dawn"],
    )
    s = run(s, play_action(5, 0), PASS)  # 6 + 5 >= 2 * 1: The Fall fades
    assert s.slots[0] == card("dawn")
    assert s.attached[0] == [card("fall")]
    assert card("fall") not in s.faded


def test_sands_amplifies_doom_of_every_fade_that_turn():
    """docs/rules.md, decision 22: when the amplified card fades, every fade that turn costs
    +1 doom; then sands goes to the bottom of the deck."""
    cfg = GameConfig(num_players=3, reveal=False, card_sets="all", difficulty="easy")
    s = arrange(cfg, slots=SLOTS, table=[[5], [], [], []], hand=[1, 6], attached={0: ["fall"]})
    s = run(s, play_action(1, 0), PASS)
    assert s.doom == 3
    assert card("fall") in s.deck[-1:]


def test_sands_amplifies_a_correct_prediction_by_one_point():
    """docs/rules.md, One turn steps 8-9: correct -> score +1, +1 more if an amplified card
    fades."""
    cfg = GameConfig(num_players=3, reveal=False, card_sets="all", difficulty="easy")
    s = arrange(cfg, slots=SLOTS, table=[[5], [], [], []], hand=[1, 6], attached={0: ["fall"]})
    s = run(s, play_action(1, 0), predict_action(6))
    assert s.score == 2 and s.doom == 0


def test_sparrows_takes_the_cycled_cards_attachment_to_the_deck_bottom():
    """docs/rules.md, decision 8: a card removed by sparrows takes its attachment with
    it."""
    cfg = GameConfig(num_players=3, reveal=False, card_sets="all")
    s = arrange(
        cfg,
        slots=SLOTS,
        hand=[1, 6],
        attached={0: ["north_wind"]},
        faded=["prophet"],
        deck=["dawn"],
    )
    s = run(s, power_action("sparrows", slot=0))
    assert s.slots[0] == card("dawn") and s.attached[0] == []
    assert s.deck[-3:] == [card("midnight"), card("north_wind"), card("prophet")]


# --- The Hours (docs/rules.md, Number lines) -------------------------------------------


def test_hours_number_line_keeps_values_that_could_go_nowhere_else():
    """docs/rules.md, Number lines: after an Hours play the line is the kept values for
    which that hand could go nowhere but The Hours."""
    s = arrange(NO_REVEAL, slots=["midnight", "dawn", "leviathan", "huntress"], hand=[3, 3])
    s = run(s, play_action(3, HOURS_TARGET))
    assert s.lines[0] == mask(3)


def test_hours_number_line_lists_every_blocked_kept_value():
    """docs/rules.md, Number lines / rulebook, Strategy: a player forced onto The Hours
    tells which hands could go nowhere else."""
    s = arrange(NO_REVEAL, slots=["mirror", "leviathan", "huntress", "beast"], hand=[1, 7])
    assert legal_actions(s) == sorted([play_action(1, 4), play_action(7, 4)])
    s = run(s, play_action(1, HOURS_TARGET))
    # (1, k) is blocked everywhere for k = 4..7 (sum < 11, not equal, not 1 or 2 apart)
    assert s.lines[0] == mask(4, 5, 6, 7)


# --- Empty bag, empty deck (docs/rules.md, One turn step 1 and decision 23) --------------


def test_empty_bag_returns_table_fates_before_a_draw():
    """docs/rules.md, One turn step 1: with an empty bag, every fate on the table returns to
    the bag (no fade, no doom) before the draw; event ("table_to_bag", n)."""
    s = arrange(NO_REVEAL, slots=SLOTS, table=[[], [3], [], []], hand=[1, 6])
    # set the rest of the tokens aside so that the bag is empty
    for i in range(7):
        s.exiled[i] += s.bag[i]
        s.bag[i] = 0
    s = run(s, play_action(1, 0), PASS)
    assert s.active == 1
    assert s.events[0] == ("table_to_bag", 2)
    assert s.table == [[], [], [], []]
    assert sorted(s.hands[1]) == [1, 3]
    assert sum(s.bag) == 0
    assert s.doom == 2 and s.faded == []
    assert s.slots == [card(c) for c in SLOTS]


def test_empty_deck_leaves_the_faded_slot_empty():
    """docs/rules.md, decision 23: a slot that cannot be refilled stays empty (slots[i] ==
    -1)."""
    s = arrange(NO_REVEAL, slots=SLOTS, table=[[5], [], [], []], hand=[1, 6])
    s.deck.clear()
    s = run(s, play_action(1, 0), PASS)
    assert s.slots[0] == -1 and s.faded == [card("midnight")]
    assert not any(play_action(v, 0) in legal_actions(s) for v in range(1, 8))


def test_empty_slot_cannot_be_played_on_and_hours_slides_to_leftmost_occupied_slot():
    """docs/rules.md, decision 23: an empty slot can't be played on; The Hours slides a fate
    to the leftmost occupied arcana card."""
    s = arrange(NO_REVEAL, slots=[None, "dawn", "leviathan", "huntress"], hand=[3, 3])
    s.deck.clear()
    assert legal_actions(s) == [play_action(3, HOURS_TARGET)]
    s = run(s, play_action(3, HOURS_TARGET))
    assert s.events[1] == ("play", 3, HOURS_TARGET, 1)
    assert s.table == [[], [3], [], []]


def test_empty_slot_refills_at_a_later_end_of_turn():
    """docs/rules.md, decision 23: the empty slot refills at the end of a later turn once
    the deck has a card (a used power goes to the deck bottom)."""
    s = arrange(
        NO_REVEAL, slots=[None, "midnight", "leviathan", "shore"], hand=[1, 6], faded=["dawn"]
    )
    s.deck.clear()
    s = run(s, play_action(1, 1), power_action("saints", value=3), PASS)
    assert s.slots[0] == card("dawn") and s.deck == []


# --- max_turns (docs/rules.md, decision 18) --------------------------------------------


def test_max_turns_ends_the_game_as_truncated_not_won():
    """docs/rules.md, decision 18: max_turns ends the game as truncated, not a win."""
    cfg = GameConfig(num_players=3, reveal=False, max_turns=1)
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], score=6, turn=1)
    s = run(s, play_action(1, 0), PASS)
    assert s.over and s.truncated and not s.won
    assert legal_actions(s) == []


def test_max_turns_default_is_200():
    """docs/rules.md, decision 18: max_turns defaults to 200."""
    assert GameConfig().max_turns == 200


def test_random_game_ends_within_max_turns():
    """docs/rules.md, decision 18: a game driven by legal actions ends (won, lost or
    truncated)."""
    cfg = GameConfig(num_players=3, max_turns=30)
    rng = np.random.default_rng(3)
    s = new_game(cfg, rng)
    for _ in range(2000):
        if s.over:
            break
        legal = legal_actions(s)
        step_inplace(s, legal[int(rng.integers(len(legal)))], rng)
    assert s.over
    assert s.won or s.truncated or s.doom >= 7


# --- Number lines (docs/rules.md, Number lines; rulebook, Strategy) -----------------------


def test_number_line_strategy_example_is_literal():
    """Strategy: 1 on Midnight (The Deep in play) -- the engine's line is every value
    Midnight allows, 2..7 (it does not draw the Deep inference)."""
    s = arrange(NO_REVEAL, slots=["midnight", "deep", "leviathan", "shore"], hand=[1, 5])
    s = run(s, play_action(1, 0))
    assert s.lines[0] == mask(2, 3, 4, 5, 6, 7)


def test_number_line_of_a_seat_that_carried_nothing_is_the_condition_set():
    """Number lines: a seat that carried nothing gets the set its play's condition allows."""
    s = arrange(NO_REVEAL, slots=["judge", "leviathan", "shore", "midnight"], hand=[2, 4])
    s = run(s, play_action(2, 0))  # Judge (even sum): the kept fate is even
    assert s.lines[0] == mask(2, 4, 6)


def test_number_line_played_value_could_be_the_carried_one():
    """Number lines: if the played fate could have been the old one, the new set is every
    value consistent with the card condition."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[5, 6], carried=5, lines={0: mask(5, 6)})
    s = run(s, play_action(5, 0))  # Midnight: kept > 5; 5 is in the old line
    assert s.lines[0] == mask(6, 7)


def test_number_line_played_value_cannot_be_the_carried_one():
    """Number lines: otherwise only the old set's values consistent with the condition."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[5, 2], carried=5, lines={0: mask(5, 6)})
    s = run(s, play_action(2, 0))  # 2 is not in the old line: the kept fate is the old one
    assert s.lines[0] == mask(5, 6)


def test_number_line_chalice_tell_narrows_it():
    """The Chalice: holding 4 and 4, play a 4 and say 'not higher'; the line is 1..4."""
    s = arrange(NO_REVEAL, slots=["chalice", "leviathan", "shore", "judge"], hand=[4, 4])
    s = run(s, play_action(4, 0))
    assert s.events[-1] == ("chalice", False)
    assert s.lines[0] == mask(1, 2, 3, 4)


def test_number_line_resets_after_any_prediction():
    """Turn step 4: after any prediction, correct or incorrect, reset your number line."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6])
    s = run(s, play_action(1, 0), predict_action(3))
    assert s.lines[0] == ALL_VALUES


def test_number_line_kept_without_prediction_is_used_next_turn():
    """Number Line Tokens: don't reset your number line unless your allies predict."""
    cfg = GameConfig(num_players=2, reveal=False)
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], held={1: 2})
    s = run(s, play_action(1, 0), PASS)  # seat 0 keeps 6 with line 2..7
    assert s.lines[0] == mask(2, 3, 4, 5, 6, 7)
    assert s.active == 1
    # seat 1's turn: make it end without touching seat 0
    s = run(s, legal_actions(s)[0])
    while s.active == 1 and not s.over:
        s = run(s, PASS)
    assert s.active == 0 and s.tracked == mask(2, 3, 4, 5, 6, 7)
    assert s.old_fate == 6 and s.lines[0] == mask(2, 3, 4, 5, 6, 7)


# --- Doom and score (docs/rules.md, One turn steps 8-10) ----------------------------------


@pytest.mark.parametrize(
    ("difficulty", "doom"), [("easy", 0), ("normal", 2), ("hard", 4), ("doomed", 6)]
)
def test_starting_doom_by_difficulty(difficulty, doom):
    """Setup 1: 0 doom easy, 2 normal, 4 hard, 6 doomed."""
    s = new_game(GameConfig(difficulty=difficulty), 0)
    assert s.doom == doom and s.score == 0


def test_fade_with_correct_prediction_costs_no_doom():
    """Fading step 3: doom +2 unless your allies made a correct prediction this turn."""
    s = arrange(EASY, slots=SLOTS, table=[[5], [], [], []], hand=[1, 6])
    s = run(s, play_action(1, 0), predict_action(6))
    assert s.doom == 0 and s.score == 1 and s.faded == [card("midnight")]


def test_wrong_prediction_and_fade_doom_stack():
    """FAQ: 'Doom advances by 1 for the incorrect prediction, plus another 2 for each card
    fading.'"""
    s = arrange(EASY, slots=SLOTS, table=[[5], [], [], []], hand=[1, 6])
    s = run(s, play_action(1, 0), predict_action(2))
    assert s.doom == 3


def test_two_fades_and_a_wrong_prediction_cost_five_doom():
    """FAQ: 1 for the wrong prediction plus 2 for each card fading (two cards: 5)."""
    cfg = GameConfig(
        num_players=3, reveal=False, difficulty="easy", card_sets=("base", "kickstarter")
    )
    s = arrange(
        cfg,
        slots=["midnight", "huntress", "leviathan", "shore"],
        table=[[2, 3], [], [], []],
        hand=[4, 7],
        faded=["lantern"],
    )
    s = run(s, power_action("skies", slot=0, value=2, to_slot=1))  # Huntress: 1 >= 1 moon
    s = run(s, play_action(4, 0), predict_action(1))  # Midnight: 3 + 4 = 3 hours
    assert sorted(s.faded) == sorted([card("midnight"), card("huntress")])
    assert s.doom == 5


def test_blind_man_fading_adds_no_doom():
    """The Blind Man: 'I don't further your doom when I fade.'"""
    s = arrange(EASY, slots=["blind_man", "leviathan", "shore", "judge"], hand=[2, 6])
    s = run(s, play_action(2, 0), PASS)
    assert s.faded == [card("blind_man")]
    assert s.doom == 0


def test_blind_man_fading_with_wrong_prediction_costs_one_doom():
    """Blind Man + Resolve: only the wrong prediction's 1 doom."""
    s = arrange(EASY, slots=["blind_man", "leviathan", "shore", "judge"], hand=[2, 6])
    s = run(s, play_action(2, 0), predict_action(1))
    assert s.doom == 1


# --- Player counts, config --------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_player_counts_two_to_five(players):
    """Components: number lines for up to 5 players; each player is one seat."""
    s = new_game(GameConfig(num_players=players), 1)
    assert len(s.hands) == players and len(s.lines) == players
    assert s.lines == [ALL_VALUES] * players


@pytest.mark.parametrize("players", [1, 6])
def test_player_counts_outside_two_to_five_are_rejected(players):
    """Components: 7 number line tokens per player, 35 tokens: at most 5 players."""
    with pytest.raises(ValueError, match="num_players"):
        GameConfig(num_players=players)


def test_game_has_five_cards_four_slots_and_a_deck():
    """Setup 2: the top 4 arcana cards are placed right of The Hours; the rest is the deck."""
    s = new_game(GameConfig(), 4)
    assert len(s.slots) == 4 and all(c >= 0 for c in s.slots)
    assert len(s.deck) == 16 and not set(s.deck) & set(s.slots)


# --- Challenge mode (rulebook, 2-Player Challenge Mode; docs/rules.md, decision 24) ------


def test_challenge_mode_has_four_seats_with_their_own_hand_and_line():
    """2-Player Challenge Mode: each player has two number lines (A and B)."""
    s = new_game(GameConfig(num_players=2, challenge_mode=True), 0)
    assert len(s.hands) == 4 and len(s.lines) == 4


def test_challenge_mode_turn_order_1a_2a_1b_2b():
    """2-Player Challenge Mode: turn order 1A, 2A, 1B, 2B; seat s is player s % 2."""
    cfg = GameConfig(num_players=2, challenge_mode=True, reveal=False)
    s = arrange(cfg, slots=SLOTS, hand=[1, 6])
    seen = []
    rng = np.random.default_rng(5)
    for _ in range(5):
        seen.append((s.active, s.decider))
        step_inplace(s, legal_actions(s)[0], rng)  # play
        while s.phase != Phase.PLAY and not s.over:
            step_inplace(s, PASS, rng)
    assert seen == [(0, 0), (1, 1), (2, 0), (3, 1), (0, 0)]


def test_challenge_mode_hidden_fates_of_a_and_b_are_separate():
    """2-Player Challenge Mode: hidden fates for A and B turns are kept separate."""
    cfg = GameConfig(num_players=2, challenge_mode=True, reveal=False)
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], active=0)
    s = run(s, play_action(1, 0), PASS)  # 1A keeps 6
    assert s.hands[0] == [6] and s.active == 1
    assert s.lines[0] == mask(2, 3, 4, 5, 6, 7)
    s = run(s, legal_actions(s)[0])
    while s.active == 1:
        s = run(s, PASS)
    assert s.active == 2 and s.decider == 0
    assert len(s.hands[2]) == 2 and s.hands[0] == [6]  # 1B draws two fresh fates
    assert s.events[0] == ("draw", 2, 2)
    assert s.lines[2] == ALL_VALUES


def test_challenge_mode_leader_is_the_other_player():
    """docs/rules.md, decisions 7 and 24: the leader is the first player clockwise: the
    other player."""
    cfg = GameConfig(num_players=2, challenge_mode=True, reveal=False)
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], active=2)
    assert s.decider == 0
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.GROUP and s.decider == 1


def test_challenge_mode_requires_two_players():
    """2-Player Challenge Mode is for two-player games."""
    with pytest.raises(ValueError, match="challenge_mode"):
        GameConfig(num_players=3, challenge_mode=True)


# --- Leader and vote (docs/rules.md, One turn step 7 and decision 7) ---------------------


@pytest.mark.parametrize(("active", "leader"), [(0, 1), (1, 2), (2, 0)])
def test_leader_is_first_player_clockwise_from_the_active_player(active, leader):
    """docs/rules.md, One turn step 7: the leader (first player clockwise) decides in phase
    GROUP."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6], active=active)
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.GROUP and s.decider == leader
    assert legal_actions(s) == [*ALL_PREDICTS, PASS]


def test_leader_pass_makes_no_prediction():
    """docs/rules.md, One turn step 7 / Turn step 3: PASS means no prediction; the fate is
    kept."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6])
    s = run(s, play_action(1, 0), PASS)
    assert s.hands[0] == [6] and s.doom == 2 and s.score == 0


def test_vote_mode_without_group_power_goes_straight_to_the_vote():
    """docs/rules.md, decision 7: in vote mode phase GROUP exists only if a group power is
    available; then each non-active player clockwise from the leader votes."""
    cfg = GameConfig(num_players=4, reveal=False, group_decision="vote")
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], active=2)
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.VOTE and s.decider == 3
    assert legal_actions(s) == [*ALL_PREDICTS, PASS]
    s = run(s, predict_action(6))
    assert s.phase == Phase.VOTE and s.decider == 0
    s = run(s, PASS)
    assert s.phase == Phase.VOTE and s.decider == 1


def test_vote_mode_strict_majority_makes_the_prediction():
    """docs/rules.md, decision 7: a value with a strict majority of votes is predicted."""
    cfg = GameConfig(num_players=4, reveal=False, group_decision="vote")
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], score=6)
    s = run(s, play_action(1, 0), predict_action(6), predict_action(3), predict_action(6))
    assert s.over and s.won
    assert ("vote", 1, 6) in s.events and ("vote", 2, 3) in s.events
    assert ("predict", 6, True) in s.events


def test_vote_mode_without_majority_makes_no_prediction():
    """docs/rules.md, decision 7: otherwise no prediction."""
    cfg = GameConfig(num_players=3, reveal=False, group_decision="vote")
    s = arrange(cfg, slots=SLOTS, hand=[1, 6])
    s = run(s, play_action(1, 0), predict_action(6), predict_action(3))
    assert s.hands[0] == [6] and s.score == 0 and s.doom == 2


def test_vote_mode_half_of_the_votes_is_not_a_majority():
    """docs/rules.md, decision 7: a strict majority is needed (one of two votes is not
    enough)."""
    cfg = GameConfig(num_players=3, reveal=False, group_decision="vote")
    s = arrange(cfg, slots=SLOTS, hand=[1, 6])
    s = run(s, play_action(1, 0), predict_action(6), PASS)
    assert s.hands[0] == [6] and s.score == 0


def test_vote_mode_leader_alone_decides_a_group_power_then_the_vote():
    """docs/rules.md, decision 7: with a group power available the leader chooses a power or
    PASS in phase GROUP, then phase VOTE."""
    cfg = GameConfig(num_players=3, reveal=False, group_decision="vote")
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], faded=["servant"])
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.GROUP and s.decider == 1
    assert legal_actions(s) == [PASS, power_action("secrets")]
    s = run(s, power_action("secrets"))
    assert s.phase == Phase.VOTE and s.decider == 1
    s2 = run(s.copy(), PASS, PASS)
    assert s2.active == 1 and s2.hands[0] == [6]


def test_vote_mode_group_pass_still_votes():
    """docs/rules.md, decision 7: the leader passing on powers leads to the vote."""
    cfg = GameConfig(num_players=3, reveal=False, group_decision="vote")
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], faded=["servant"])
    s = run(s, play_action(1, 0), PASS)
    assert s.phase == Phase.VOTE and s.decider == 1


# --- Reveal (docs/rules.md, decision 6; rulebook, FAQ) ----------------------------------


def test_reveal_asks_seats_holding_fates_clockwise_from_the_active_seat():
    """docs/rules.md, decision 6: every non-active seat holding a fate, clockwise from the
    active seat, decides REVEAL or PASS at the start of the group phase."""
    cfg = GameConfig(num_players=4)
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], active=1, held={0: 3, 3: 5})
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.REVEAL and s.decider == 3
    assert legal_actions(s) == sorted([PASS, REVEAL])
    s = run(s, PASS)
    assert s.phase == Phase.REVEAL and s.decider == 0
    s = run(s, PASS)
    assert s.phase == Phase.GROUP and s.decider == 2


def test_reveal_discards_the_fate_face_up_and_resets_the_line():
    """FAQ: 'You may discard your fate to reveal its value to the group'; it goes to the
    bag, its value is public and the seat's number line resets."""
    cfg = GameConfig(num_players=3)
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], held={2: 3}, lines={2: mask(3, 5)})
    bag3 = s.bag[2]
    s = run(s, play_action(1, 0), REVEAL)
    assert s.events[-1] == ("reveal", 2, 3)
    assert s.hands[2] == [] and s.bag[2] == bag3 + 1
    assert s.lines[2] == ALL_VALUES
    assert s.phase == Phase.GROUP


def test_reveal_pass_keeps_the_fate():
    """FAQ: if you don't discard it, you keep it hidden."""
    cfg = GameConfig(num_players=3)
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], held={2: 3}, lines={2: mask(3, 5)})
    s = run(s, play_action(1, 0), PASS)
    assert s.hands[2] == [3] and s.lines[2] == mask(3, 5)
    assert not any(e[0] == "reveal" for e in s.events)


def test_reveal_off_skips_the_reveal_phase():
    """docs/rules.md, One turn step 6: the reveal option can be switched off in the
    configuration."""
    cfg = GameConfig(num_players=3, reveal=False)
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], held={2: 3})
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.GROUP


def test_reveal_default_is_on():
    """docs/rules.md, decision 6: reveal=True by default."""
    assert GameConfig().reveal is True


def test_reveal_is_not_offered_to_seats_without_a_fate():
    """docs/rules.md, decision 6: only seats holding a fate are asked."""
    cfg = GameConfig(num_players=3)
    s = arrange(cfg, slots=SLOTS, hand=[1, 6])
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.GROUP


def test_reveal_in_challenge_mode_skips_the_active_players_other_seat():
    """docs/rules.md, decisions 6 and 24: only seats of non-active players are asked."""
    cfg = GameConfig(num_players=2, challenge_mode=True)
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], active=0, held={1: 2, 2: 4, 3: 5})
    s = run(s, play_action(1, 0))
    assert s.phase == Phase.REVEAL and s.queue == [1, 3] and s.decider == 1
    s = run(s, PASS)
    assert s.decider == 1 and s.queue == [3]
    s = run(s, REVEAL)
    assert s.events[-1] == ("reveal", 3, 5) and s.hands[2] == [4]


# --- Illegal actions and the API (shipwreck_env/rules/engine.py: step, step_inplace) -----------


def test_illegal_action_raises_and_names_the_action_and_the_legal_ones():
    """Engine API (``shipwreck_env/rules/engine.py``): IllegalActionError names the action and the
    legal ones."""
    s = arrange(NO_REVEAL, slots=["midnight", "dawn", "mirror", "leviathan"], hand=[2, 6])
    before = s.copy()
    bad = play_action(6, 0)
    with pytest.raises(IllegalActionError) as err:
        step(s, bad, np.random.default_rng(0))
    message = str(err.value)
    assert str(bad) in message
    for a in legal_actions(s):
        assert str(a) in message
    assert s == before


def test_illegal_action_in_place_leaves_the_state_unchanged():
    """Engine API (``shipwreck_env/rules/engine.py``): the state is unchanged after an illegal
    action (step_inplace)."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6])
    before = s.copy()
    with pytest.raises(IllegalActionError):
        step_inplace(s, predict_action(3), np.random.default_rng(0))
    assert s == before


def test_step_returns_a_new_state_and_leaves_the_old_one():
    """API: step returns a NEW state."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6])
    before = s.copy()
    new = step(s, play_action(1, 0), np.random.default_rng(0))
    assert new is not s and s == before and new != before


def test_no_action_is_legal_once_the_game_is_over():
    """Ending the Game: once it ends nobody decides."""
    s = arrange(NO_REVEAL, slots=SLOTS, hand=[1, 6], score=6)
    s = run(s, play_action(1, 0), predict_action(6))
    with pytest.raises(IllegalActionError):
        step(s, PASS, np.random.default_rng(0))


def test_same_seed_same_actions_same_game():
    """API: all randomness comes from the generator passed in."""
    a = new_game(GameConfig(), 11)
    b = new_game(GameConfig(), 11)
    assert a == b


# --- Card behaviour checked through the engine ------------------------------------------


def test_mirror_equal_fates_can_play_and_tell_the_value():
    """The Mirror: with equal fates play one here; the allies know the hidden fate."""
    s = arrange(NO_REVEAL, slots=["mirror", "leviathan", "shore", "judge"], hand=[5, 5])
    assert play_action(5, 0) in legal_actions(s)
    s = run(s, play_action(5, 0))
    assert s.lines[0] == mask(5)


def test_mirror_unequal_fates_cannot_play():
    """The Mirror: only if both fates are exactly the same."""
    s = arrange(NO_REVEAL, slots=["mirror", "leviathan", "shore", "judge"], hand=[5, 6])
    assert not any(play_action(v, 0) in legal_actions(s) for v in (5, 6))


@pytest.mark.parametrize("name", ["dawn", "midnight"])
def test_dawn_and_midnight_equal_fates_cannot_play(name):
    """Dawn / Midnight: with two equal fates neither is higher (lower): cannot play."""
    s = arrange(NO_REVEAL, slots=[name, "leviathan", "shore", "beast"], hand=[4, 4])
    assert play_action(4, 0) not in legal_actions(s)


def test_chalice_kept_four_played_four_says_not_higher():
    """The Chalice: holding 4 and 4, play a 4 and say 'No, my remaining fate is not
    higher'."""
    s = arrange(NO_REVEAL, slots=["chalice", "leviathan", "shore", "judge"], hand=[4, 4])
    s = run(s, play_action(4, 0))
    assert ("chalice", False) in s.events


def test_chalice_is_always_playable():
    """The Chalice: you can always play either of your fates on The Chalice."""
    s = arrange(NO_REVEAL, slots=["chalice", "leviathan", "shore", "judge"], hand=[3, 6])
    legal = legal_actions(s)
    assert play_action(3, 0) in legal and play_action(6, 0) in legal


def test_fates_return_to_the_bag_when_a_card_fades():
    """Fading step 1: discard all fates in front of it back to the bag."""
    s = arrange(EASY, slots=["huntress", "leviathan", "shore", "judge"], hand=[2, 4])
    bag = list(s.bag)
    s = run(s, play_action(2, 0), PASS)
    assert s.faded == [card("huntress")]
    assert s.table[0] == []
    twos = s.bag[1] + s.hands[1].count(2)
    assert twos == bag[1] + 1


def test_hours_slide_can_make_the_leftmost_card_fade():
    """The Hours: the slid fate 'may also cause that card to fade at the end of the turn'."""
    s = arrange(EASY, slots=["huntress", "midnight", "dawn", "leviathan"], hand=[3, 3])
    assert legal_actions(s) == [play_action(3, HOURS_TARGET)]
    s = run(s, play_action(3, HOURS_TARGET), PASS)
    assert s.faded == [card("huntress")]
    assert s.doom == 2


def test_vote_mode_sorrows_gives_a_second_vote_after_a_wrong_prediction():
    """docs/rules.md, decision 7 and One turn step 7: after a wrong prediction with Sorrows
    the group predicts again -- in vote mode by a new vote."""
    cfg = GameConfig(num_players=3, reveal=False, group_decision="vote")
    s = arrange(cfg, slots=SLOTS, hand=[1, 6], faded=["beast"])
    s = run(s, play_action(1, 0), power_action("sorrows"))
    s = run(s, predict_action(3), predict_action(3))
    assert ("predict", 3, False) in s.events
    assert s.phase == Phase.VOTE and s.decider == 1 and s.votes == []
    s = run(s, predict_action(6), predict_action(6))
    assert s.score == 1 and s.doom == 2
