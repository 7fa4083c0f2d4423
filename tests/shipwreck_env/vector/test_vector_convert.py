"""Tests of ``shipwreck_env.vector.convert`` and ``shipwreck_env.vector.to_states``:
reference states -> ``Arrays`` -> states is the identity on games of every base-set
configuration, the derived arrays agree with the states, and everything the arrays
cannot hold is refused by name.

``collect_games`` (random legal play over every base-set configuration, every state
kept) is shared with ``test_vector_observe``.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter

import numpy as np
import pytest

from shipwreck_env.rules import engine
from shipwreck_env.rules.actions import ACTIONS, predict_action
from shipwreck_env.rules.cards import CARD_INDEX, POWER_INDEX, POWERS
from shipwreck_env.rules.config import DIFFICULTIES, GameConfig
from shipwreck_env.rules.powers import CARD_POWER
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.vector.arrays import EVENT, EVENT_CAPACITY, TURN_ACTION_CAPACITY, Arrays
from shipwreck_env.vector.convert import decode_event, encode_event, from_states
from shipwreck_env.vector.to_states import to_states

BASE_POWERS = ("saints", "secrets", "shells", "sinners", "songs", "sorrows", "sparrows")
BASE_POWERS += ("spires", "swords")
VALUE_POWERS = ("saints", "storms", "shackles")  # an argument that is a value


def base_configs() -> list[GameConfig]:
    """Every base-set rules switch: 2-5 players x difficulty x leader/vote x reveal, and
    the 2-player challenge mode; each with a 5-turn limit (truncated ends) and without."""
    out = []
    for players, challenge in ((2, False), (2, True), (3, False), (4, False), (5, False)):
        for difficulty, group, reveal, max_turns in itertools.product(
            DIFFICULTIES, ("leader", "vote"), (True, False), (5, None)
        ):
            out.append(
                GameConfig(
                    num_players=players,
                    challenge_mode=challenge,
                    difficulty=difficulty,
                    group_decision=group,
                    reveal=reveal,
                    max_turns=max_turns,
                )
            )
    return out


def expansion_configs() -> list[GameConfig]:
    """Every expansion selection, 2-5 players, leader and vote, some turn limits."""
    out = []
    for i, (sets, players, group) in enumerate(
        itertools.product(
            ("base,gencon", "base,kickstarter", "base,stars_below", "all"),
            (2, 3, 4, 5),
            ("leader", "vote"),
        )
    ):
        out.append(
            GameConfig(
                num_players=players,
                card_sets=sets,
                group_decision=group,
                difficulty=list(DIFFICULTIES)[i % 4],
                challenge_mode=players == 2 and group == "vote",
                max_turns=5 if i % 3 == 0 else None,
            )
        )
    return out


def _choose(s: State, legal: list[int], rng: np.random.Generator) -> int:
    """Random legal play, biased so that every power and winning games happen: a
    power when one is offered (half the time; a quarter with expansions, except Sails),
    the right prediction (40%; 70% with expansions)."""
    powers = [a for a in legal if ACTIONS[a].kind == "power"]
    # Sails needs a turn without another power: the expansions' games use fewer
    base = s.config.card_sets == ("base",)
    rate = 0.5 if base or s.phase == Phase.SAILS else 0.25
    if powers and rng.random() < rate:
        return powers[int(rng.integers(len(powers)))]
    if s.phase in (Phase.GROUP, Phase.VOTE) and rng.random() < (0.4 if base else 0.7):
        right = predict_action(s.hands[s.active][0])
        if right in legal:
            return right
    return legal[int(rng.integers(len(legal)))]


def play_game(config: GameConfig, seed: int) -> list[State]:
    """Every state of one game of random legal play, from the first decision to the end."""
    rng = np.random.default_rng(seed)
    s = engine.new_game(config, rng)
    states = [s.copy()]
    while not s.over:
        engine.step_inplace(s, _choose(s, engine.legal_actions(s), rng), rng)
        states.append(s.copy())
    return states


@functools.cache
def collect_games() -> tuple[tuple[GameConfig, tuple[State, ...]], ...]:
    """Per configuration (every base-set one, then the expansions'): the states of its games (two games with a turn limit,
    four without), in play order."""
    out = []
    for i, config in enumerate(base_configs() + expansion_configs()):
        games = 2 if config.max_turns else 4 if config.card_sets == ("base",) else 6
        states = [s for k in range(games) for s in play_game(config, 1000 * i + k)]
        out.append((config, tuple(states)))
    return tuple(out)


def coverage() -> Counter:
    """What the collected games reach: phases, powers, announcements, endings. (Random
    play never empties the deck or the bag: ``test_vector_observe`` builds such tables.)"""
    seen: Counter = Counter()
    for _config, states in collect_games():
        for s in states:
            seen[f"phase {s.phase}"] += 1
            for event in s.events:
                seen[event[1] if event[0] == "power" else event[0]] += 1
            if s.over:
                seen["won" if s.won else "truncated" if s.truncated else "lost"] += 1
            if s.correct:
                seen["correct"] += 1
            if s.preds_left > 1:
                seen["two predictions"] += 1
            if len(s.predictions) > 1:
                seen["second prediction"] += 1
    return seen


def test_collected_games_cover_every_phase_power_and_ending() -> None:
    seen = coverage()
    wanted = [f"phase {p}" for p in range(9)]
    wanted += [p.id for p in POWERS if p.id not in ("sails", "sands")]
    wanted += ["steal", "fall", "feast_draw", "attach", "cost", "exile"]
    wanted += [*BASE_POWERS, "chalice", "reveal", "vote", "predict", "resolve", "fade"]
    wanted += ["refill", "won", "lost", "truncated", "correct"]
    wanted += ["two predictions", "second prediction"]
    missing = [w for w in wanted if not seen[w]]
    assert not missing, f"never reached: {missing} (seen: {dict(seen)})"


def _first_difference(a: State, b: State) -> str:
    for name in State.__slots__:
        if getattr(a, name) != getattr(b, name):
            return f"{name}: {getattr(a, name)!r} != {getattr(b, name)!r}"
    return ""


def _assert_same(back: list[State], states: list[State], what: str) -> None:
    assert len(back) == len(states)
    for g, (got, want) in enumerate(zip(back, states, strict=True)):
        if got != want:
            pytest.fail(f"{what}, game {g}: {_first_difference(got, want)}")
        # == cannot tell True from 1: the event tuples must have the reference's types
        for name in ("events", "last_events", "turn_start", "plays"):
            assert repr(getattr(got, name)) == repr(getattr(want, name)), (what, g, name)


def test_round_trip_is_the_identity() -> None:
    for config, states in collect_games():
        arr = from_states(states)
        _assert_same(to_states(arr), list(states), f"{config}")


def test_to_states_picks_games_in_order() -> None:
    _config, states = collect_games()[5]
    arr = from_states(states)
    games = [7, 0, 3, 3]
    _assert_same(to_states(arr, games), [states[g] for g in games], "games [7, 0, 3, 3]")


def _altered_start(s: State, part: int) -> tuple:
    """``s.turn_start`` with part ``part`` (``turn_start.public_snapshot`` order) changed
    to another value the arrays can hold."""
    slots, table, attached, sands, faded, top, deck_len, exiled, lines, hand_len = s.turn_start[:10]
    card = next(c for c in slots if c >= 0)
    changed = [
        tuple(reversed(slots)),
        ((*table[0], 1), *table[1:]),
        ((card,), *attached[1:]),
        (card, *sands[1:]),
        (*faded, card),
        -1 if top != card else slots[-1],
        deck_len + 1,
        (exiled[0] + 1, *exiled[1:]),
        (lines[0] ^ 1, *lines[1:]),
        (hand_len[0] ^ 1, *hand_len[1:]),
        *(x + 1 for x in s.turn_start[10:]),
    ]
    return (*s.turn_start[:part], changed[part], *s.turn_start[part + 1 :])


def test_turn_starts_are_told_apart_by_every_part() -> None:
    """A turn start that differs from one converted before in any single part (of the 13)
    comes back with that part: the conversion remembers turn starts by all they hold."""
    _config, states = collect_games()[5]
    s = next(x for x in states if x.turn_start[1][0] and x.turn_start[0][-1] >= 0)
    assert to_states(from_states([s]))[0].turn_start == s.turn_start
    for part in range(13):
        other = s.copy()
        other.turn_start = _altered_start(s, part)
        assert other.turn_start[part] != s.turn_start[part]
        assert to_states(from_states([other, s])) == [other, s], part


def scramble(arr: Arrays, rng: np.random.Generator) -> None:
    """Change what the contract leaves free: the deck ring's start, the buffer holding
    this turn's events, and every padding entry beyond a length."""
    n, m = arr.num_games, arr.num_cards
    head = rng.integers(0, m, n)
    ring = np.full_like(arr.deck, 9)
    ring[np.arange(n)[:, None], (head[:, None] + np.arange(m)) % m] = arr.deck
    arr.deck[:] = ring
    arr.deck_head[:] = head
    swap = rng.random(n) < 0.5
    arr.events[swap] = arr.events[swap][:, ::-1]
    arr.events_len[swap] = arr.events_len[swap][:, ::-1]
    arr.events_cur[swap] = 1
    for g in range(n):
        arr.plays[g, arr.plays_len[g] :] = (5, 2, 1)
        arr.predictions[g, arr.pred_len[g] :] = 5
        arr.votes[g, arr.votes_len[g] :] = 5
        arr.faded[g, arr.faded_len[g] :] = 3
        arr.turn_actions[g, arr.turn_actions_len[g] :] = 7
        for seat in range(arr.hands.shape[1]):
            arr.hands[g, seat, arr.hand_len[g, seat] :] = 5
        for slot in range(4):
            arr.table[g, slot, arr.table_len[g, slot] :] = 5
        arr.events[g, 0, arr.events_len[g, 0] :] = 4
        arr.events[g, 1, arr.events_len[g, 1] :] = 4
    # a queue already partly consumed: the entries before queue_pos are stale
    arr.queue[:, 1:] = arr.queue[:, :-1].copy()
    arr.queue[:, 0] = 3
    arr.queue_pos += 1
    arr.queue_len += 1


def test_to_states_reads_the_ring_the_current_buffer_and_lengths_only() -> None:
    rng = np.random.default_rng(5)
    for config, states in collect_games()[::7]:
        arr = from_states(states)
        scramble(arr, rng)
        _assert_same(to_states(arr), list(states), f"scrambled {config}")


def test_derived_arrays_agree_with_the_states() -> None:
    for _config, states in collect_games()[::3]:
        arr = from_states(states)
        assert not arr.deck_head.any() and not arr.events_cur.any()
        assert not arr.draws.any() and not arr.key.any()
        for g, s in enumerate(states):
            for slot in range(4):
                counts = np.bincount(s.table[slot], minlength=8)[1:]
                assert arr.tcount[g, slot].tolist() == counts.tolist()
            fcount = np.bincount([CARD_POWER[c] for c in s.faded], minlength=17)
            assert arr.fcount[g].tolist() == fcount.tolist()
            power, value, slot, to, answer, chalice = -1, 0, -1, -1, -1, -1
            steal, cost, exile = (-1, -1, 0), -1, (-1, 0)
            reveal = [0] * s.num_seats
            for event in s.events:
                if event[0] == "power":
                    _, pid, arg, ans = event
                    power = POWER_INDEX[pid]
                    pair = pid in ("sinners", "skies")
                    value = arg[1] if pair else arg if pid in VALUE_POWERS else 0
                    slot = arg[0] if pair else arg if pid in ("sparrows", "scions") else -1
                    to = arg[2] if pid == "skies" else -1
                    answer = -1 if pid == "sparrows" or ans is None else int(ans)
                elif event[0] == "chalice":
                    chalice = int(event[1])
                elif event[0] == "reveal":
                    reveal[event[1]] = event[2]
                elif event[0] == "steal":
                    steal = (int(event[1] >= 0), event[1], event[2])
                elif event[0] == "cost":
                    cost = POWER_INDEX[event[1]]
                elif event[0] == "exile":
                    exile = (event[1], event[2])
            got = (arr.ann_power[g], arr.ann_value[g], arr.ann_slot[g], arr.ann_answer[g])
            assert got == (power, value, slot, answer), (g, s.events)
            assert arr.ann_to_slot[g] == to
            assert arr.ann_chalice[g] == chalice
            assert arr.ann_reveal[g].tolist() == reveal
            assert (arr.ann_steal[g], arr.ann_steal_slot[g], arr.ann_steal_value[g]) == steal
            assert arr.ann_cost[g] == cost
            assert (arr.ann_exile_slot[g], arr.ann_exile_value[g]) == exile


# --- events --------------------------------------------------------------------------

ROWS = [
    (("draw", 2, 1), (EVENT["draw"], 2, 1, -1, -1)),
    (("table_to_bag", 9), (EVENT["table_to_bag"], 9, -1, -1, -1)),
    (("exiled_to_bag", 4), (EVENT["exiled_to_bag"], 4, -1, -1, -1)),
    (("play", 5, 4, -1), (EVENT["play"], 5, 4, -1, -1)),
    (("chalice", True), (EVENT["chalice"], 1, -1, -1, -1)),
    (("reveal", 3, 7), (EVENT["reveal"], 3, 7, -1, -1)),
    (("vote", 1, 0), (EVENT["vote"], 1, 0, -1, -1)),
    (("predict", 6, False), (EVENT["predict"], 6, 0, -1, -1)),
    (("resolve", True), (EVENT["resolve"], 1, -1, -1, -1)),
    (("fade", 2, "judge"), (EVENT["fade"], 2, CARD_INDEX["judge"], -1, -1)),
    (("refill", 0, "beast"), (EVENT["refill"], 0, 0, -1, -1)),
    (("power", "saints", 4, False), (EVENT["power"], 0, 4, -1, 0)),
    (("power", "secrets", None, True), (EVENT["power"], 1, -1, -1, 1)),
    (("power", "songs", None, False), (EVENT["power"], 4, -1, -1, 0)),
    (("power", "spires", None, True), (EVENT["power"], 7, -1, -1, 1)),
    (("power", "swords", None, True), (EVENT["power"], 8, -1, -1, 1)),
    (("power", "sorrows", None, None), (EVENT["power"], 5, -1, -1, -1)),
    (("power", "shells", 6, True), (EVENT["power"], 2, 6, -1, 1)),
    (("power", "sinners", (1, 3), None), (EVENT["power"], 3, 1, 3, -1)),
    (
        ("power", "sparrows", 2, ("prophet", "rider")),
        (EVENT["power"], 6, 2, CARD_INDEX["prophet"], CARD_INDEX["rider"]),
    ),
    (("feast_draw", 2), (EVENT["feast_draw"], 2, -1, -1, -1)),
    (("steal", 3, 6), (EVENT["steal"], 3, 6, -1, -1)),
    (("steal", -1, 0), (EVENT["steal"], -1, 0, -1, -1)),
    (("fall", False), (EVENT["fall"], 0, -1, -1, -1)),
    (("attach", "sands", 2), (EVENT["attach"], 2, -1, -1, -1)),
    (("cost", "saints"), (EVENT["cost"], 0, -1, -1, -1)),
    (("exile", 1, 7), (EVENT["exile"], 1, 7, -1, -1)),
    (("power", "shackles", 4, True), (EVENT["power"], 9, 4, -1, 1)),
    (("power", "shadows", None, None), (EVENT["power"], 10, -1, -1, -1)),
    (("power", "skies", (0, 5, 3), None), (EVENT["power"], 11, 0, 5, 3)),
    (("power", "storms", 2, False), (EVENT["power"], 12, 2, -1, 0)),
    (("power", "scions", 1, None), (EVENT["power"], 15, 1, -1, -1)),
    (("power", "scythes", None, True), (EVENT["power"], 16, -1, -1, 1)),
]


@pytest.mark.parametrize(("event", "row"), ROWS, ids=[r[0][0] + str(i) for i, r in enumerate(ROWS)])
def test_event_rows_follow_the_documented_encoding(event: tuple, row: tuple) -> None:
    assert encode_event(event) == row
    back = decode_event(np.array(row, np.int16))
    assert back == event and repr(back) == repr(event)


def test_every_collected_event_round_trips() -> None:
    for _config, states in collect_games():
        for s in states:
            for event in s.events:
                row = encode_event(event)
                assert len(row) == 5 and all(type(x) is int for x in row)
                assert repr(decode_event(row)) == repr(event)


@pytest.mark.parametrize(
    "event",
    [
        ("steal", -1),
        ("attach", "scions", 1),
        ("cost", "not_a_power"),
        ("power", "skies", (1, 2), None),
        ("power", "sails", (1, 2), None),
        ("power", "saints", 3, None),
        ("play", 5, 4),
        ("fade", 1, "asunder_not_a_card"),
        (),
    ],
)
def test_encode_event_refuses_what_rows_cannot_hold(event: tuple) -> None:
    with pytest.raises(ValueError, match="not allowed"):
        encode_event(event)


# --- what the arrays cannot hold ---------------------------------------------------------


@functools.cache
def _mid_game() -> State:
    """A 3-player state after the play (kept_eff set), with events."""
    for s in play_game(GameConfig(num_players=3), 11):
        if s.phase == Phase.GROUP and s.events and s.faded:
            return s
    raise AssertionError("no group phase reached")


def _refused(bad: State, *words: str) -> None:
    """``from_states([good, bad])`` raises a ValueError naming game 1 and ``words``."""
    with pytest.raises(ValueError) as info:
        from_states([_mid_game(), bad])
    message = str(info.value)
    for word in ("game 1", "not allowed", "allowed:", *words):
        assert word in message, (word, message)


def _changed(**fields: object) -> State:
    s = _mid_game().copy()
    for name, value in fields.items():
        setattr(s, name, value)
    return s


def test_empty_list_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one State"):
        from_states([])


def test_mixed_configs_are_refused() -> None:
    other = engine.new_game(GameConfig(num_players=3, difficulty="hard"), 0)
    _refused(other, "config", "hard")


def test_card_sets_outside_the_covered_ones_are_refused(monkeypatch) -> None:
    from shipwreck_env.vector import convert

    monkeypatch.setattr(convert, "COVERED_CARD_SETS", ("base",))
    s = engine.new_game(GameConfig(num_players=3, card_sets="all"), 0)
    with pytest.raises(ValueError) as info:
        from_states([s])
    assert "game 0" in str(info.value) and "card_sets" in str(info.value)


def test_more_attached_cards_than_a_slot_can_hold_are_refused() -> None:
    _refused(_changed(attached=[[], [3, 4, 5], [], []]), "attached[1]", "at most 2")


def test_a_malformed_pending_cost_is_refused() -> None:
    _refused(_changed(pending=("sails", None, None)), "pending", "'sails'")
    _refused(_changed(pending=("saints", 1, 3)), "pending", "'saints'")


def test_a_fall_announcement_other_than_unknown_yes_or_no_is_refused() -> None:
    _refused(_changed(fall_fading=2), "fall_fading", "2")


def test_card_of_another_set_is_refused() -> None:
    s = _mid_game()
    _refused(_changed(deck=[*s.deck, 20]), "deck", "20", "chosen sets")
    _refused(_changed(slots=[s.slots[0], 25, s.slots[2], s.slots[3]]), "slots", "25")
    _refused(_changed(faded=[*s.faded, 33]), "faded", "33")
    _refused(_changed(attached=[[], [34], [], []]), "attached[1]", "34")
    _refused(_changed(sands_waiting=[-1, 32, -1, -1]), "sands_waiting", "32")
    _refused(_changed(events=[*s.events, ("refill", 1, "asunder")]), "events", "20")


def test_event_kind_outside_the_list_is_refused() -> None:
    s = _mid_game()
    bad = _changed(events=[*s.events, ("swap", -1, 0)])
    _refused(bad, f"events[{len(s.events)}]", "'swap'", "EVENT_KINDS")
    bad = _changed(last_events=[("feast_draw", 0, 1)])
    _refused(bad, "last_events[0]", "'feast_draw'")
    bad = _changed(events=[*s.events, ("power", "sands", None, None)])
    _refused(bad, "events", "'sands'")


def test_too_many_events_are_refused() -> None:
    s = _mid_game()
    bad = _changed(events=s.events + [("draw", 0, 0)] * (EVENT_CAPACITY + 1 - len(s.events)))
    _refused(bad, "events", f"at most {EVENT_CAPACITY}")


def test_too_many_turn_actions_are_refused() -> None:
    _refused(
        _changed(turn_actions=[0] * (TURN_ACTION_CAPACITY + 1)),
        "turn_actions",
        f"at most {TURN_ACTION_CAPACITY}",
    )
