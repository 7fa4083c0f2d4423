"""The observation vector (:mod:`shipwreck_env.rules.observation`).

* The layout: contiguous named fields covering the vector, unique names, a meaning for
  each; its size for 2-5 players, challenge mode and belief.
* ``decode`` and ``to_text``.
* Round trip: for many random mid-game states, every decoded field is what the same
  observer's :class:`~shipwreck_env.rules.view.AgentView` says. The expected values are
  computed here from the view and the layout's documented meanings, not from the
  encoder.
* The belief block, and the observer-relative order of seats and players.

Authority: the module docstring and field meanings of ``shipwreck_env/rules/observation.py``.
"""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest

from shipwreck_env.envs.aec_env import raw_env
from shipwreck_env.rules.actions import ACTIONS, PASS, predict_action
from shipwreck_env.rules.cards import CARD_INDEX, CARDS, NUM_CARDS, NUM_POWERS, POWER_INDEX
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.observation import (
    ObservationLayout,
    decode,
    encode,
    to_text,
    unseen_counts,
)
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import PHASES, Phase, State
from shipwreck_env.rules.view import AgentView, make_view

EMPTY = NUM_CARDS

# --- the layout ---------------------------------------------------------------------------

LAYOUTS = [
    ObservationLayout(p, challenge, belief)
    for p, challenge, belief in itertools.product((2, 3, 4, 5), (False, True), (False, True))
    if not challenge or p == 2
]


@pytest.mark.parametrize(
    "layout", LAYOUTS, ids=lambda x: f"P{x.num_players}S{x.num_seats}b{int(x.belief)}"
)
def test_layout_fields_tile_the_vector(layout: ObservationLayout) -> None:
    fields = layout.fields
    assert fields[0].offset == 0
    for a, b in itertools.pairwise(fields):
        assert b.offset == a.offset + a.size, (a.name, b.name)
    assert fields[-1].offset + fields[-1].size == layout.size
    assert sum(f.size for f in fields) == layout.size
    names = [f.name for f in fields]
    assert len(set(names)) == len(names)
    for f in fields:
        assert f.size > 0, f.name
        assert isinstance(f.meaning, str) and len(f.meaning.strip()) > 10, f.name
        assert layout.offsets[f.name] == f.offset
        assert layout.by_name[f.name] == f
        assert f.slice == slice(f.offset, f.offset + f.size)
    assert ("belief" in names) == layout.belief
    table = layout.markdown()
    for f in fields:
        assert f"`{f.name}`" in table


def expected_size(players: int, challenge: bool, belief: bool) -> int:
    """Per the field table: 406 entries that do not depend on the players, 10 per
    player (decider, leader, 8 for votes), 16 per seat (active seat, 7 for the number
    line, holding, 7 for reveals), 7 per own seat, 7 for belief."""
    seats = 2 * players if challenge else players
    own = 2 if challenge else 1
    return 406 + 10 * players + 16 * seats + 7 * own + (7 if belief else 0)


@pytest.mark.parametrize(
    ("players", "challenge", "belief", "size"),
    [
        (2, False, False, 465),
        (3, False, False, 491),
        (4, False, False, 517),
        (5, False, False, 543),
        (2, True, False, 504),
        (3, False, True, 498),
        (2, True, True, 511),
    ],
)
def test_layout_size(players: int, challenge: bool, belief: bool, size: int) -> None:
    assert expected_size(players, challenge, belief) == size
    layout = ObservationLayout(players, challenge, belief)
    assert layout.size == size
    config = GameConfig(num_players=players, challenge_mode=challenge)
    assert ObservationLayout.for_config(config, belief).size == size
    e = raw_env(num_players=players, challenge_mode=challenge, belief=belief)
    assert e.observation_space("player_0")["observation"].shape == (size,)
    e.reset(seed=0)
    assert e.observe("player_0")["observation"].shape == (size,)


def test_layout_sizes_of_fields() -> None:
    layout = ObservationLayout(3, challenge_mode=False, belief=True)
    sizes = {f.name: f.size for f in layout.fields}
    assert sizes["phase"] == len(PHASES)
    assert sizes["slot_card"] == 4 * (NUM_CARDS + 1)
    assert sizes["faded_powers"] == NUM_POWERS
    assert sizes["number_lines"] == 7 * 3
    assert sizes["votes"] == 8 * 3
    assert sizes["belief"] == 7
    challenge = ObservationLayout(2, challenge_mode=True)
    assert challenge.by_name["own_hand"].size == 14
    assert challenge.by_name["number_lines"].size == 28


# --- decode ----------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS[:3], ids=lambda x: f"P{x.num_players}S{x.num_seats}")
def test_decode_splits_by_fields(layout: ObservationLayout) -> None:
    obs = np.arange(layout.size, dtype=np.float32)
    fields = decode(obs, layout)
    assert list(fields) == [f.name for f in layout.fields]
    for f in layout.fields:
        assert np.array_equal(fields[f.name], np.arange(f.offset, f.offset + f.size))
        assert np.shares_memory(fields[f.name], obs)


@pytest.mark.parametrize("shape", [(490,), (492,), (1, 491), (491, 1), ()])
def test_decode_rejects_wrong_shape(shape: tuple) -> None:
    layout = ObservationLayout(3)
    assert layout.size == 491
    with pytest.raises(ValueError, match="shape"):
        decode(np.zeros(shape, dtype=np.float32), layout)


# --- random mid-game states -------------------------------------------------------------------


CONFIGS = [
    GameConfig(num_players=2, difficulty="easy", card_sets="all"),
    GameConfig(num_players=3, difficulty="easy", card_sets="all"),
    GameConfig(num_players=4, difficulty="easy", group_decision="vote", card_sets="all"),
    GameConfig(num_players=5, difficulty="easy"),
    GameConfig(num_players=2, challenge_mode=True, difficulty="easy", card_sets="all"),
    GameConfig(num_players=2, challenge_mode=True, group_decision="vote"),
    GameConfig(num_players=3, reveal=False, card_sets="all"),
]


def choose(s: State, legal: list[int], rng: np.random.Generator) -> int:
    """Random legal play that keeps games going (it peeks at the hidden fate to predict
    it often, and uses powers often)."""
    action = legal[int(rng.integers(len(legal)))]
    if s.phase == Phase.REVEAL:
        return PASS if rng.random() < 0.7 else action
    powers = [a for a in legal if ACTIONS[a].kind == "power"]
    if powers and rng.random() < 0.4:
        return powers[int(rng.integers(len(powers)))]
    hand = s.hands[s.active]
    if s.phase in (Phase.GROUP, Phase.VOTE) and len(hand) == 1:
        r = rng.random()
        if predict_action(hand[0]) in legal and r < 0.6:
            return predict_action(hand[0])
        if PASS in legal and r < 0.85:
            return PASS
    return action


def random_states(config: GameConfig, games: int, seed: int) -> list[State]:
    states = []
    for g in range(games):
        rng = np.random.default_rng([seed, g])
        choice = np.random.default_rng([seed, g, 1])
        s = new_game(config, rng)
        while True:
            states.append(s.copy())
            if s.over:
                break
            step_inplace(s, choose(s, legal_actions(s), choice), rng)
    return states


@pytest.fixture(scope="module")
def samples() -> list[tuple[GameConfig, State]]:
    out = []
    for i, config in enumerate(CONFIGS):
        out += [(config, s) for s in random_states(config, 6, i)]
    phases = collections.Counter(PHASES[s.phase] for _, s in out)
    assert set(PHASES) - {"sails"} <= set(phases), phases
    return out


# --- round trip: decoded fields == the observer's view -----------------------------------------


def counts(values) -> np.ndarray:
    out = np.zeros(7)
    for v in values:
        out[v - 1] += 1
    return out


def one_hot(n: int, i: int | None) -> np.ndarray:
    out = np.zeros(n)
    if i is not None:
        out[i] = 1
    return out


def bits(mask: int) -> np.ndarray:
    return np.array([mask >> i & 1 for i in range(7)], dtype=float)


def expected_from_view(view: AgentView, layout: ObservationLayout) -> dict[str, np.ndarray]:
    """The fields the layout documents, computed from the observer's view alone."""
    P, S = layout.num_players, layout.num_seats
    me = view.player
    rel_seat = [(me + r) % S for r in range(S)]  # seat at relative position r
    exp: dict[str, np.ndarray] = {}
    exp["phase"] = one_hot(len(PHASES), PHASES.index(view.phase))
    exp["decider"] = one_hot(P, (view.decider - me) % P if view.decider >= 0 else None)
    exp["active_seat"] = one_hot(S, (view.active_seat - me) % S)
    exp["leader"] = one_hot(P, (view.leader - me) % P)
    exp["score"] = one_hot(8, min(view.score, 7))
    exp["doom"] = one_hot(8, min(view.doom, 7))
    exp["turn"] = np.array([view.turn / 100])
    exp["own_hand"] = np.concatenate([counts(hand) for hand in view.my_hands])
    exp["own_carried"] = one_hot(7, view.my_carried - 1 if view.my_carried else None)
    exp["slot_card"] = np.concatenate(
        [one_hot(NUM_CARDS + 1, EMPTY if c is None else CARD_INDEX[c]) for c in view.slots]
    )
    exp["slot_fates"] = np.concatenate([counts(fates) for fates in view.table])
    exp["slot_hours"] = np.array(view.hours, dtype=float)
    exp["slot_moons"] = np.array([m or 0 for m in view.moons], dtype=float)
    exp["slot_scions"] = np.array([float("scions" in a) for a in view.attached])
    exp["slot_sands"] = np.array([float("sands" in a) for a in view.attached])
    exp["deck_top"] = one_hot(
        NUM_CARDS + 1, EMPTY if view.deck_top is None else CARD_INDEX[view.deck_top]
    )
    exp["deck_size"] = np.array([view.deck_size / 36])
    faded = np.zeros(NUM_POWERS)
    for power in view.faded_powers:
        faded[POWER_INDEX[power]] += 1
    exp["faded_powers"] = faded
    exp["unseen"] = np.array(view.unseen, dtype=float)
    exp["exiled"] = np.array(view.exiled, dtype=float)
    exp["number_lines"] = np.concatenate([bits(view.lines[seat]) for seat in rel_seat])
    exp["holding"] = np.array([view.holding[seat] for seat in rel_seat], dtype=float)
    play_value, play_target, play_landed = np.zeros(14), np.zeros(10), np.zeros(8)
    for i, (value, target, landed) in enumerate(view.plays[:2]):
        play_value[7 * i + value - 1] = 1
        play_target[5 * i + target] = 1
        if landed >= 0:
            play_landed[4 * i + landed] = 1
    exp["play_value"], exp["play_target"], exp["play_landed"] = play_value, play_target, play_landed
    exp["feast_done"] = np.array([float(view.feast_done)])
    exp["shadows"] = np.array([float(view.shadows)])
    pending = np.zeros(2)
    if view.pending:
        pending[("sails", "scythes").index(view.pending)] = 1
    exp["pending"] = pending
    exp["fall"] = one_hot(2, None if view.fall_fading is None else (0 if view.fall_fading else 1))
    chalice = np.zeros(2)
    reveals = np.zeros(7 * S)
    for event in view.events:
        if event[0] == "chalice":
            chalice[0 if event[1] else 1] = 1
        elif event[0] == "reveal":
            reveals[7 * ((event[1] - me) % S) + event[2] - 1] = 1
    exp["chalice"], exp["reveals"] = chalice, reveals
    votes = np.zeros(8 * P)
    for k, vote in enumerate(view.votes):  # clockwise from the leader
        rel = ((view.leader + k) % P - me) % P
        votes[8 * rel + (vote - 1 if vote else 7)] = 1
    exp["votes"] = votes
    wrong = view.predictions[:-1] if view.correct else view.predictions
    exp["wrong_predictions"] = np.array([float(v in wrong) for v in range(1, 8)])
    group_phase = view.phase in ("group", "vote", "cost")
    exp["predictions_left"] = np.array([view.predictions_left if group_phase else 0.0])
    exp["correct"] = np.array([float(view.correct)])
    return exp


def test_round_trip_fields_agree_with_view(samples) -> None:
    checked = collections.Counter()
    mismatches = []
    layouts = {}
    for config, s in samples:
        layout = layouts.setdefault(config, ObservationLayout.for_config(config))
        for player in range(config.num_players):
            view = make_view(s, player)
            obs = encode(s, player, layout)
            got = decode(obs, layout)
            for name, want in expected_from_view(view, layout).items():
                checked[name] += 1
                if not np.allclose(got[name], want, atol=1e-6):
                    mismatches.append(
                        f"{name} {config} turn {s.turn} {view.phase} observer {player}: "
                        f"got {got[name].tolist()} want {want.tolist()}"
                    )
    assert not mismatches, f"{len(mismatches)} mismatches, e.g.\n" + "\n".join(mismatches[:8])
    assert min(checked.values()) > 1000


def test_round_trip_covers_interesting_values(samples) -> None:
    """The sample has what the round trip should see: held fates, carried fates, votes,
    wrong predictions, reveals, Chalice / Fall announcements, attachments, exiles."""
    seen = collections.Counter()
    for _, s in samples:
        seen["carried"] += bool(s.old_fate)
        seen["votes"] += bool(s.votes)
        seen["wrong"] += any(v for v in s.predictions[: len(s.predictions) - s.correct])
        seen["reveal"] += any(e[0] == "reveal" for e in s.events)
        seen["chalice"] += any(e[0] == "chalice" for e in s.events)
        seen["fall"] += s.fall_fading >= 0
        seen["attached"] += any(s.attached)
        seen["exiled"] += any(s.exiled)
        seen["bag_known"] += any(s.bag_known)
        seen["empty slot"] += -1 in s.slots
        seen["two plays"] += len(s.plays) == 2
        seen["others hold"] += (
            sum(1 for seat, h in enumerate(s.hands) if h and seat != s.active) > 0
        )
    for key in ("carried", "votes", "wrong", "reveal", "chalice", "bag_known", "others hold"):
        assert seen[key] > 0, (key, seen)


def test_encode_output_type_and_range(samples) -> None:
    for config, s in samples[::7]:
        for belief in (False, True):
            layout = ObservationLayout.for_config(config, belief)
            obs = encode(s, 0, layout)
            assert obs.dtype == np.float32 and obs.shape == (layout.size,)
            assert obs.min() >= 0.0 and obs.max() <= 100.0


def test_each_vector_is_its_own_and_outlives_later_calls(samples) -> None:
    """The encoder reuses one scratch buffer per thread: what it returns must be a new
    writable array that a later call (another state, another observer) leaves alone."""
    config, first = samples[0]
    layout = ObservationLayout.for_config(config)
    obs = encode(first, 0, layout)
    kept = obs.copy()
    later = [encode(s, 1, layout) for c, s in samples[1:40] if c == config]
    assert later and np.array_equal(obs, kept)
    assert obs.flags.writeable and obs.flags.owndata
    assert not any(np.shares_memory(obs, other) for other in later)


def test_encoding_in_threads_matches_encoding_in_one(samples) -> None:
    """Threads encoding at once (switching as often as the interpreter allows) get the
    same vectors as one thread: no thread writes into another's scratch buffer."""
    import sys
    import threading

    config = CONFIGS[0]
    states = [s for c, s in samples if c == config][:60]
    layout = ObservationLayout.for_config(config)
    expected = [[encode(s, p, layout) for p in range(config.num_players)] for s in states]
    got: dict[int, list] = {}

    def work(k: int) -> None:
        got[k] = [[encode(s, p, layout) for p in range(config.num_players)] for s in states[k::2]]

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(20):
            threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for k in range(2):
                for want, have in zip(expected[k::2], got[k], strict=True):
                    for a, b in zip(want, have, strict=True):
                        assert np.array_equal(a, b)
    finally:
        sys.setswitchinterval(interval)


# --- to_text ---------------------------------------------------------------------------------


def test_to_text_mentions_score_doom_slots_and_hand(samples) -> None:
    for config, s in samples[::5]:
        layout = ObservationLayout.for_config(config, belief=True)
        for player in range(config.num_players):
            text = to_text(encode(s, player, layout), layout)
            assert f"score {min(s.score, 7)}, doom {min(s.doom, 7)}" in text
            lines = text.splitlines()
            for slot, card in enumerate(s.slots):
                name = "empty" if card < 0 else CARDS[card].name
                assert any(line.startswith(f"slot {slot}: {name} fates") for line in lines), (
                    slot,
                    name,
                    text,
                )
            for k, seat in enumerate(range(player, len(s.hands), config.num_players)):
                assert f"my seat {k}: holds {sorted(s.hands[seat])}" in text
            assert f"phase {PHASES[s.phase]}" in text
            assert "belief:" in text


# --- belief ----------------------------------------------------------------------------------


def test_belief_block(samples) -> None:
    """With one fate in the active seat's hand: a distribution (sum 1) with no mass
    outside its number line, equal to line x unseen copies (plus the fate itself, seen
    from the active seat), normalised. Otherwise all zeros."""
    one = 0
    for config, s in samples:
        layout = ObservationLayout.for_config(config, belief=True)
        line = s.lines[s.active]
        for player in range(config.num_players):
            belief = decode(encode(s, player, layout), layout)["belief"]
            hand = s.hands[s.active]
            if len(hand) != 1:
                assert not belief.any()
                continue
            one += 1
            assert belief.sum() == pytest.approx(1.0, abs=1e-5)
            for v in range(1, 8):
                if not line >> (v - 1) & 1:
                    assert belief[v - 1] == 0.0
            assert belief[hand[0] - 1] > 0  # the real value is always possible
            weights = np.array(make_view(s, player).unseen, dtype=float) * bits(line)
            if s.owner(s.active) == player:
                weights[hand[0] - 1] += 1
            assert np.allclose(belief, weights / weights.sum(), atol=1e-6)
    assert one > 500


def test_belief_layout_only_appends() -> None:
    """The belief block is appended: the rest of the vector is the same."""
    config = GameConfig(num_players=3, card_sets="all")
    plain, with_belief = (
        ObservationLayout.for_config(config),
        ObservationLayout.for_config(config, True),
    )
    for s in random_states(config, 2, 99):
        for player in range(3):
            a, b = encode(s, player, plain), encode(s, player, with_belief)
            assert np.array_equal(a, b[: plain.size])


# --- relative order -------------------------------------------------------------------------------


def test_own_seat_first(samples) -> None:
    """Each observer's vector starts the seat and player blocks with its own: its hand,
    line and holding count at relative position 0; other observers' blocks are the same
    rotated."""
    for config, s in samples[::3]:
        layout = ObservationLayout.for_config(config)
        P, S = config.num_players, config.num_seats
        fields = [decode(encode(s, p, layout), layout) for p in range(P)]
        for p, f in enumerate(fields):
            assert np.array_equal(f["own_hand"][:7], counts(s.hands[p]))
            assert np.array_equal(f["number_lines"][:7], bits(s.lines[p]))
            assert f["holding"][0] == len(s.hands[p])
            assert f["active_seat"][(s.active - p) % S] == 1
            if s.decider >= 0:
                assert f["decider"][0] == (s.decider == p)
            for r in range(S):
                q = (p + r) % S  # the same absolute seat, seen from observer 0
                assert np.array_equal(
                    f["number_lines"][7 * r : 7 * r + 7],
                    fields[0]["number_lines"][7 * q : 7 * q + 7],
                )
                assert f["holding"][r] == fields[0]["holding"][q]


def test_unseen_counts_from_the_observer() -> None:
    """``unseen_counts``: 3 copies minus table, own hands, exiled and known-in-bag."""
    for config in CONFIGS[:5]:
        for s in random_states(config, 1, 7):
            for p in range(config.num_players):
                mine = [
                    v for seat in range(p, len(s.hands), config.num_players) for v in s.hands[seat]
                ]
                table = [v for fates in s.table for v in fates]
                want = 3 - counts(mine) - counts(table) - np.array(s.exiled) - np.array(s.bag_known)
                assert unseen_counts(s, p) == want.astype(int).tolist()


def test_hours_follow_scions_and_the_imago() -> None:
    """The hours field counts as the rules do (``fading.fates_hours``): with Scions
    attached each fate is one hour; on The Imago a 7 counts 1 hour, not 3 (docs/rules.md
    decision 20 and rulebook, "Faded Card Powers")."""
    config = GameConfig(num_players=3, card_sets="all")
    s = arrange(
        config,
        slots=["leviathan", "imago", "shore", "iron"],
        hand=[2, 3],
        table=[[1, 4], [7], [1, 4], []],
        attached={0: ["north_wind"]},
    )
    layout = ObservationLayout.for_config(config, False)
    fields = decode(encode(s, 1, layout), layout)
    assert fields["slot_hours"].tolist() == [2, 1, 3, 0]
    assert fields["slot_scions"].tolist() == [1, 0, 0, 0]
