"""The batched engine against the reference engine in the two situations that random
play, the scripted teams and the other crafted states never reach:

- **a draw that finds the bag and the table empty**: every fate not held is exiled, so
  the draw first takes back the table (nothing) and then the exiled fates
  (``turn_start.draw_fate``; docs/rules.md, decision 17). Crafted: the bag moved to
  the exiled pile at the start of seat 0's play with nothing on the table and no other
  seat holding a fate; seat 0 plays one fate and the group passes, so the next seat's
  first draw takes that fate back from the table (or from the bag, if its card faded
  or it was played on The Hours with no card in play) and its second draw finds the
  bag and the table empty.
- **The Fall's announcement after Sails**: after the turn's one (correct) prediction,
  Sails exiles a fate from in front of The Fall, and The Fall says again whether it
  fades -- here it said yes after the play and says no after the exile; the prediction
  already made, the new answer tells nothing about the kept fate (``arcana.announce_fall``).

Each crafted state is a reference ``State`` built by ``scenario.arrange`` and edited into
the situation with every fate and card kept (:func:`assert_whole`); it is loaded with
``VectorGame.from_states`` and in the reference engine, and the two are stepped in lock
step and compared after every step (state, legal mask, observation, reward, end flags:
``vector_helpers.Twins``). The situation counts (``vector_helpers.SITUATIONS``, read
from public events) show that each situation occurred.
"""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import pytest
from vector_helpers import Chooser, Mismatch, fall_after_sails, twins_from_states

from shipwreck_env.rules.actions import ACTIONS, HOURS_TARGET, PASS, predict_action
from shipwreck_env.rules.cards import CARD_INDEX, CARDS, FATE_COPIES
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.turn_start import public_snapshot

FALL = CARD_INDEX["fall"]


def assert_whole(s: State) -> None:
    """Every fate and every card of the game is in exactly one place (a crafted state
    that lost or doubled one is not a state the game can reach)."""
    where = [0] * 7
    for row in (*s.table, *s.hands):
        for v in row:
            where[v - 1] += 1
    for i in range(7):
        where[i] += s.bag[i] + s.exiled[i]
        assert s.bag_known[i] <= s.bag[i], f"value {i + 1}: bag_known exceeds the bag"
    assert where == [FATE_COPIES] * 7, f"fates by value {where}, expected {FATE_COPIES} each"
    cards = [c for c in s.slots if c >= 0] + s.deck + s.faded
    cards += [c for a in s.attached for c in a] + [c for c in s.sands_waiting if c >= 0]
    in_sets = [i for i, c in enumerate(CARDS) if c.set in s.config.card_sets]
    assert sorted(cards) == in_sets, "a card is missing or repeated"


def _run(states: list[State], choose: Chooser, seed: int, steps: int, where: str) -> Counter:
    """Lock-step run of ``states`` in both engines; the situations met."""
    for s in states:
        assert_whole(s)
    twins = twins_from_states([copy.deepcopy(s) for s in states], seed, choose)
    try:
        twins.run(steps)
    except Mismatch as exc:
        raise AssertionError(f"{where}: {exc}") from None
    return twins.counts


def _assert_met(counts: Counter, names: dict[str, int], where: str) -> None:
    short = {n: counts[n] for n, least in names.items() if counts[n] < least}
    assert not short, f"{where}: met {short}, needed {names}"


# --- (a) the bag and the table empty: the exiled fates go back -----------------------------


def exile_the_bag(s: State) -> State:
    """``s`` with every fate of its bag moved to the exiled pile (and its turn's public
    snapshot taken again)."""
    s.exiled = [e + b for e, b in zip(s.exiled, s.bag, strict=True)]
    s.bag = [0] * 7
    s.bag_known = [0] * 7
    s.turn_start = public_snapshot(s)
    return s


def _empty_bag_and_table(config: GameConfig) -> list[State]:
    """Seat 0 holds two fates, no other seat holds one, the table is empty and every
    other fate is exiled: cards in play, no card in play (The Hours sends the fate to
    the bag), and a seat that kept a fate from its last turn."""
    base = [c.id for c in CARDS if c.set == "base"]
    return [
        exile_the_bag(
            arrange(config, slots=["judge", "stranger", "blind_man", "key"], hand=[2, 5])
        ),
        exile_the_bag(arrange(config, slots=["beast", "shore", "deep", "leviathan"], hand=[6, 6])),
        exile_the_bag(arrange(config, slots=[None] * 4, hand=[1, 7], faded=base)),
        exile_the_bag(
            arrange(
                config,
                slots=["dawn", "midnight", "chalice", "prophet"],
                hand=[3, 4],
                carried=4,
                lines={0: 0b1111000},
            )
        ),
    ]


def passing_chooser(rate: float) -> Chooser:
    """A random legal action, but the group passes (no prediction) with probability
    ``rate`` when it may: the kept fate stays in hand and the bag stays empty."""

    def choose(g: int, s: State, rng: np.random.Generator) -> int:
        legal = legal_actions(s)
        if s.phase in (Phase.GROUP, Phase.VOTE) and PASS in legal and rng.random() < rate:
            return PASS
        return legal[int(rng.random() * len(legal))]

    return choose


EMPTY_BAG_CONFIGS = [
    dict(num_players=2, difficulty="easy"),
    dict(num_players=3, difficulty="normal", group_decision="vote"),
    dict(num_players=4, difficulty="easy", reveal=False),
    dict(num_players=2, difficulty="easy", challenge_mode=True, group_decision="vote"),
    dict(num_players=5, difficulty="hard"),
]


def _run_empty_bag(copies: int, steps: int, seed: int) -> Counter:
    counts: Counter[str] = Counter()
    for i, kwargs in enumerate(EMPTY_BAG_CONFIGS):
        states = _empty_bag_and_table(GameConfig(**kwargs))  # type: ignore[arg-type]
        states = [s for s in states for _ in range(copies)]
        counts += _run(states, passing_chooser(0.9), seed + i, steps, str(kwargs))
    return counts


def test_a_draw_from_an_empty_bag_and_table_takes_back_the_exiled_fates_in_both_engines() -> None:
    counts = _run_empty_bag(copies=3, steps=12, seed=300)
    # 5 configurations x 4 states x 3 copies; a prediction on the first turn (10%)
    # or a lost game can spare one
    _assert_met(counts, {"exiled_to_bag": 40, "empty_bag_draw": 40, "hours_no_card": 5}, "(a)")


@pytest.mark.slow
def test_empty_bag_and_table_agree_over_many_streams() -> None:
    counts = _run_empty_bag(copies=20, steps=40, seed=400)
    _assert_met(counts, {"exiled_to_bag": 300}, "(a), many streams")


# --- (b) The Fall announced again after Sails ----------------------------------------------


def sails_on_the_fall_chooser() -> Chooser:
    """Plays away from The Fall when another play is legal, predicts right, and has
    Sails exile the highest fate in front of The Fall; anything else at random."""

    def choose(g: int, s: State, rng: np.random.Generator) -> int:
        legal = legal_actions(s)
        fall = s.slots.index(FALL) if FALL in s.slots else -1
        preferred: list[int] = []
        if s.phase in (Phase.GROUP, Phase.VOTE):  # the right value, else no power
            right = predict_action(s.hands[s.active][0])
            preferred = [right] if right in legal else [PASS] if PASS in legal else []
        elif s.phase == Phase.SAILS and fall >= 0:
            mine = [a for a in legal if ACTIONS[a].kind == "power" and ACTIONS[a].slot == fall]
            preferred = sorted(mine, key=lambda a: ACTIONS[a].value)[-1:]
        elif s.phase == Phase.PLAY:
            preferred = [
                a
                for a in legal
                if ACTIONS[a].kind == "play" and ACTIONS[a].slot not in (fall, HOURS_TARGET)
            ]
        options = preferred or legal
        return options[int(rng.random() * len(options))]

    return choose


def _fall_and_sails(config: GameConfig) -> list[State]:
    """The Fall in play with fates in front of it that reach twice either kept fate
    until Sails exiles the highest of them; Sails (The Musicians) and another power
    (Scions: The North Wind) faded to pay its cost. The Blind Man takes any fate, so
    the play can avoid The Fall."""
    held = {seat: (1, 5, 7, 1)[seat - 1] for seat in range(1, config.num_seats)}
    layouts = (  # slots, seat 0's hand, fates in front of The Fall, other arguments
        (["blind_man", "judge", "chalice", "fall"], [2, 3], [3, 4], {}),
        (["fall", "blind_man", "beast", "stranger"], [3, 4], [4, 4], {}),
        (["deep", "fall", "chalice", "stranger"], [2, 6], [1, 6], dict(carried=2, lines={0: 3})),
    )
    states = []
    for slots, hand, fall_fates, kwargs in layouts:
        table = [fall_fates if card == "fall" else [] for card in slots]
        faded = ["musicians", "north_wind"]
        states.append(
            arrange(config, slots=slots, hand=hand, table=table, held=held, faded=faded, **kwargs)
        )
    return states


FALL_CONFIGS = [
    dict(num_players=2, difficulty="easy", card_sets="base,stars_below"),
    dict(num_players=3, difficulty="normal", group_decision="vote", card_sets="all"),
    dict(num_players=4, difficulty="hard", card_sets="all"),
    dict(num_players=2, challenge_mode=True, group_decision="vote", card_sets="all"),
    dict(num_players=5, difficulty="easy", reveal=False, card_sets="base,stars_below"),
]


def _run_fall(copies: int, steps: int, seed: int) -> Counter:
    counts: Counter[str] = Counter()
    for i, kwargs in enumerate(FALL_CONFIGS):
        states = _fall_and_sails(GameConfig(**kwargs))  # type: ignore[arg-type]
        states = [s for s in states for _ in range(copies)]
        counts += _run(states, sails_on_the_fall_chooser(), seed + i, steps, str(kwargs))
    return counts


def test_the_fall_counts_read_the_turns_public_events() -> None:
    fall_yes, fall_no, predict = ("fall", True), ("fall", False), ("predict", 3, True)
    exile = ("exile", 3, 4)
    assert fall_after_sails([fall_yes, predict, ("resolve", True), exile, fall_no]) == (
        "fall_after_sails",
        "fall_changed_by_sails",
    )
    assert fall_after_sails([fall_yes, predict, exile]) == ("fall_after_sails",)
    assert fall_after_sails([predict, exile]) == ()  # The Fall not in play
    assert fall_after_sails([fall_yes, ("predict", 2, False), predict, exile]) == ()
    assert fall_after_sails([fall_yes, predict, fall_no]) == ()  # no exile


def test_the_fall_is_announced_again_after_sails_in_both_engines() -> None:
    counts = _run_fall(copies=2, steps=14, seed=500)
    # 5 configurations x 3 states x 2 copies, each exiling on its first turn
    _assert_met(
        counts,
        {"exile": 30, "fall_after_sails": 30, "fall_changed_by_sails": 20, "fade:fall": 1},
        "(b)",
    )


@pytest.mark.slow
def test_the_fall_after_sails_agrees_over_many_streams() -> None:
    counts = _run_fall(copies=15, steps=40, seed=600)
    _assert_met(counts, {"fall_after_sails": 200, "fall_changed_by_sails": 150}, "(b), many")


def test_the_crafted_states_keep_every_fate_and_card_and_set_up_their_situation() -> None:
    for kwargs in EMPTY_BAG_CONFIGS:
        for s in _empty_bag_and_table(GameConfig(**kwargs)):  # type: ignore[arg-type]
            assert_whole(s)
            others = [hand for seat, hand in enumerate(s.hands) if seat != s.active]
            assert sum(s.bag) == 0 and not any(s.table) and not any(others)
    for kwargs in FALL_CONFIGS:
        for s in _fall_and_sails(GameConfig(**kwargs)):  # type: ignore[arg-type]
            assert_whole(s)
            fall = s.slots.index(FALL)
            assert CARD_INDEX["musicians"] in s.faded and len(s.faded) >= 2
            assert (
                sum(s.table[fall])
                >= 2 * min(s.hands[s.active])
                > sum(s.table[fall]) - max(s.table[fall])
            )
