"""Tests of the convention team (agents/convention/team.py): exact reading, determinism, only
the decider's view, legal play in every mode."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
from twins import swapped

from shipwreck_agents.base import Team
from shipwreck_agents.convention import codebook as convention_module
from shipwreck_agents.convention import lines as lines_module
from shipwreck_agents.convention import outcomes
from shipwreck_agents.convention.rescue import way_out
from shipwreck_agents.convention.settings import ConventionSettings
from shipwreck_agents.convention.team import ConventionPolicy, compute_convention
from shipwreck_agents.evaluation.evaluate import evaluate, play_game
from shipwreck_agents.registry import make_policy
from shipwreck_agents.scripted.knowledge import doom_of_fades, fading_slots
from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS, PASS
from shipwreck_env.rules.cards import CARD_INDEX
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step, step_inplace
from shipwreck_env.rules.powers import sinners_actions
from shipwreck_env.rules.public_record import fade_doom, fading_after, hand_plays, play_outcome
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.view import make_view

BARE = ConventionSettings(restarts=0, restart_doom=0, pre_play=False, pre_play_forced=False)
"""The codebook alone: no restarts, no lines with a power before the play."""


def _mask(s: State) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[legal_actions(s)] = 1
    return mask


def _act(policy: ConventionPolicy, s: State) -> int:
    return policy.act(None, _mask(s), make_view(s, s.decider), np.random.default_rng(0))


def _group_phase(s: State, policy: ConventionPolicy) -> tuple[State, tuple[int, ...]]:
    """Let the active player (the convention player) finish its part of the turn: the
    state then and the player's actions."""
    actions = []
    while s.decider == s.active_player:
        actions.append(_act(policy, s))
        s = step(s, actions[-1], np.random.default_rng(0))
    return s, tuple(actions)


# --- the group's reading is exact ---------------------------------------------------------


def _brute_force(
    kwargs: dict, observed: tuple[int, ...], line: int | None, options: dict | None = None
) -> np.ndarray:
    """For every hand the active seat could hold, let a fresh convention player play its
    part of the turn on a freshly arranged table; weigh the hands whose actions are
    ``observed`` by their draw probability -- written independently of the group's code."""
    pool = [3] * 7
    for fates in kwargs["table"]:
        for v in fates:
            pool[v - 1] -= 1
    total = sum(pool)
    hands = []
    if line is None:
        for x in range(1, 8):
            for y in range(1, 8):
                p = pool[x - 1] / total * max(0, pool[y - 1] - (x == y)) / (total - 1)
                if p > 0:
                    hands.append(([x, y], None, p))
    else:
        prior = np.array([pool[c] if line >> c & 1 else 0 for c in range(7)], dtype=float)
        prior /= prior.sum()
        for c in range(1, 8):
            for d in range(1, 8):
                rest = pool[d - 1] - (c == d)
                if prior[c - 1] > 0 and rest > 0:
                    hands.append(([c, d], c, prior[c - 1] * rest / (total - 1)))
    out = np.zeros(7)
    for hand, carried, p in hands:
        extra = {"lines": {0: line}} if carried is not None else {}
        s = arrange(**kwargs, hand=hand, carried=carried, **extra)
        t, actions = _group_phase(s, ConventionPolicy(**(options or {})))
        if actions == observed:
            out[t.hands[0][0] - 1] += p
    return out


CASES = [
    (["midnight", "deep", "mirror", "lord"], [2, 6], [(), (), (), ()], None, None, ()),
    (["belltower", "key", "blind_man", "shore"], [3, 4], [(5,), (), (), ()], None, None, ()),
    (["chalice", "judge", "dawn", "huntress"], [1, 5], [(), (4,), (), ()], None, None, ()),
    (["servant", "judge", "dawn", "huntress"], [1, 5], [(), (4,), (), ()], 5, 0b1110000, ()),
    (["beast", "noble", "stranger", "engine"], [6, 3], [(), (2,), (7,), ()], 3, 0b0001110, ()),
    # the player's own powers (Shells, Sinners) and the group's (Secrets, Sorrows)
    (
        ["servant", "deep", "dawn", "lord"],
        [2, 5],
        [(1,), (3,), (), (6,)],
        2,
        0b0000111,
        ("key", "belltower", "stranger", "beast"),
    ),
    (
        ["judge", "rider", "midnight", "noble"],
        [4, 6],
        [(2, 3), (), (1,), ()],
        None,
        None,
        ("shore", "engine"),
    ),
]


@pytest.mark.parametrize(("slots", "hand", "table", "carried", "line", "faded"), CASES)
def test_group_posterior_is_exact_for_the_convention(slots, hand, table, carried, line, faded):
    kwargs = dict(config=GameConfig(num_players=3), slots=slots, table=table, faded=faded)
    s = arrange(**kwargs, hand=hand, carried=carried, lines={0: line} if line else None)
    s, observed = _group_phase(s, ConventionPolicy())
    got = ConventionPolicy().posterior(make_view(s, s.decider))
    expected = _brute_force(kwargs, observed, line)
    expected = expected * np.array([s.lines[0] >> v & 1 for v in range(7)])
    expected /= expected.sum()
    np.testing.assert_allclose(got, expected, atol=1e-9)
    assert got[s.hands[0][0] - 1] > 0


def _games(config: GameConfig, n: int, seed: int, **options):
    """Yield (state, team) at every decision of ``n`` convention games (``options`` go to
    both policies)."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        team = Team(ConventionPolicy(**options), ConventionPolicy(**options))
        s = new_game(config, rng)
        while not s.over:
            yield s, team
            view = make_view(s, s.decider)
            action = team.policy_for(view).act(None, _mask(s), view, rng)
            step_inplace(s, action, rng)


@pytest.mark.parametrize(
    "config",
    [
        GameConfig(num_players=3, difficulty="hard"),
        GameConfig(num_players=3, card_sets="all"),
        GameConfig(num_players=4, card_sets="all", group_decision="vote"),
        GameConfig(num_players=2, challenge_mode=True, card_sets="all"),
    ],
    ids=["3p-base", "3p-all", "4p-all-vote", "2p-challenge-all"],
)
def test_group_never_rules_out_the_real_fate(config):
    """At every group decision (many games: a Feast turn followed by a carried fate is
    rare and once broke the player's and the group's agreement)."""
    checked = 0
    for s, team in _games(config, 150 if config.card_sets != ("base",) else 40, seed=5):
        if s.phase in (Phase.GROUP, Phase.VOTE) and len(s.hands[s.active]) == 1:
            posterior = team.group.posterior(make_view(s, s.decider))
            assert posterior[s.hands[s.active][0] - 1] > 0, (s.turn, posterior)
            checked += 1
    assert checked > 200


def test_convention_gives_every_hand_a_legal_first_play():
    config = GameConfig(num_players=3, card_sets="all")
    checked = 0
    for s, team in _games(config, 10, seed=6):
        if s.phase == Phase.PLAY and not s.turn_actions:
            view = make_view(s, s.decider)
            conv = team.play.convention(view)
            assert conv.hands and abs(sum(conv.weights) - 1) < 1e-9
            tables = dict(convention_module.pre_play_tables(view.turn_start))
            for hand, before, choice in zip(conv.hands, conv.before, conv.choice, strict=True):
                # after a power before the play, the play is legal on the table it left
                assert choice in hand_plays(tables[before] if before else view.turn_start, hand)
            checked += 1
    assert checked > 50


# --- determinism ----------------------------------------------------------------------------


def test_convention_is_a_deterministic_function_of_public_facts():
    config = GameConfig(num_players=3, card_sets="all")
    for s, team in _games(config, 5, seed=7):
        if s.phase == Phase.PLAY and not s.turn_actions:
            view = make_view(s, s.decider)
            first = team.play.convention(view)
            convention_module._CACHE.clear()
            assert team.play.convention(view) == first


def test_the_convention_never_draws_at_random():
    """Every decision is the same whatever generator the policy is handed (its one random
    draw, the codebook's restarts, has a fixed seed of its own): so an imitator's misses
    are never turns where the teacher itself drew at random (docs/imitation.md)."""
    decisions = 0
    for difficulty in ("normal", "hard"):
        config = GameConfig(num_players=3, difficulty=difficulty)
        for s, team in _games(config, 3, seed=21):
            view = make_view(s, s.decider)
            policy = team.policy_for(view)
            twin = copy.deepcopy(policy)  # the same memory, asked with another generator
            want = policy.act(None, _mask(s), view, np.random.default_rng(decisions))
            got = twin.act(None, _mask(s), view, np.random.default_rng(10_000 + decisions))
            assert got == want, (difficulty, s.turn, view.phase)
            decisions += 1
    assert decisions > 100


def test_same_seed_same_game():
    config = GameConfig(num_players=3, difficulty="hard")
    records = []
    for _ in range(2):
        convention_module._CACHE.clear()
        seq = np.random.SeedSequence(11)  # spawning changes a SeedSequence: a fresh one
        records.append(play_game(config, Team(ConventionPolicy(), ConventionPolicy()), seq))
    assert records[0] == records[1]


# --- each decision depends only on the decider's view -----------------------------------------


@pytest.mark.parametrize(
    "config, games, options",
    [
        (GameConfig(num_players=3), 16, {}),
        (GameConfig(num_players=4, card_sets="all", group_decision="vote"), 16, {}),
        (GameConfig(num_players=3, difficulty="hard"), 4, {"lookahead": 0.95, "read_ahead": 0.3}),
        # doomed: the restarts of the codebook run on every turn (doom 6)
        (GameConfig(num_players=3, difficulty="doomed", card_sets="all"), 12, {}),
        # lines that start with Sparrows, Skies or Shadows
        (
            GameConfig(num_players=3, difficulty="doomed", card_sets="all"),
            12,
            {"pre_play": True, "pre_play_shadows": True},
        ),
        # the tie-break reads the public table each line leaves
        (GameConfig(num_players=3, difficulty="doomed"), 12, {"tie_ahead": 0.001}),
        # the code leans toward lines a reader without the code reads right
        (GameConfig(num_players=3, difficulty="hard"), 6, {"legible": 0.05}),
    ],
    ids=[
        "3p-base",
        "4p-all-vote",
        "3p-hard-lookahead",
        "3p-doomed-all-restarts",
        "3p-doomed-all-pre-play",
        "3p-doomed-tie-ahead",
        "3p-hard-legible",
    ],
)
def test_decisions_do_not_depend_on_hidden_fates_of_others(config, games, options):
    """Twin states that differ only in a fate the decider cannot see (any seat of another
    player, including the active seat's kept fate), with the same public history and the
    decider's memory copied: the same decision (also with the look-ahead, which reads
    the public table the line leaves, and with the codebook's restarts)."""
    checked = 0
    for s, team in _games(config, games, seed=8, **options):
        player = s.decider
        policy = team.policy_for(make_view(s, player))
        before = _act(copy.deepcopy(policy), s)
        for seat, hand in enumerate(s.hands):
            if s.owner(seat) == player:
                continue
            for index in range(len(hand)):
                for w in range(1, 8):
                    t = swapped(s, seat, index, w)
                    if t is None:
                        continue
                    assert _act(copy.deepcopy(policy), t) == before, (seat, index, w, s.phase)
                    checked += 1
    assert checked > 200


# --- plays every mode -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        dict(players=2),
        dict(players=3, card_sets="all"),
        dict(players=4, group_decision="vote"),
        dict(players=5, card_sets="all", group_decision="vote"),
        dict(players=2, challenge_mode=True, card_sets="all"),
    ],
    ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()),
)
def test_convention_team_only_chooses_legal_actions(config):
    evaluate(
        "convention",
        "convention",
        difficulties=["easy", "doomed"],
        games=5,
        seed=1,
        progress=False,
        **config,
    )


def test_registry_builds_the_convention_team():
    assert make_policy("convention").name == "convention"
    assert compute_convention is convention_module.compute_convention
    assert PASS >= 0


def test_race_win_is_a_bounded_race_monotone_in_score_and_doom():
    from shipwreck_agents.scripted.bayes import race_value, race_win

    for score in range(8):
        for doom in range(8):
            v = race_win(score, doom, 0.95, 2)
            assert 0.0 <= v <= 1.0
            assert race_win(score, doom, 0.0) == race_value(score, doom)
            if score < 7 and doom < 7:
                assert race_win(score + 1, doom, 0.95, 2) >= v >= race_win(score, doom + 1, 0.95, 2)
    assert race_win(7, 3, 0.95, 2) == 1.0 and race_win(3, 7, 0.95, 2) == 0.0
    # failed turns that cost no doom leave only the score to make (it once recursed forever)
    assert race_win(3, 4, 0.9, 0) == 1.0 and race_win(3, 7, 0.9, 0) == 0.0
    assert race_win(3, 4, 1.0, 2) == 1.0


def test_the_convention_group_values_the_race_by_its_settings():
    group = ConventionPolicy(accuracy=0.8, fail_doom=3)
    assert (group.accuracy, group.fail_doom) == (0.8, 3)
    assert (ConventionPolicy().accuracy, ConventionPolicy().fail_doom) == (0.95, 2)


# --- The Thief's steal is part of the line --------------------------------------------------

THIEF = CARD_INDEX["thief"]

THIEF_CASES = [
    (["thief", "deep", "mirror", "lord"], [2, 4], [(), (5,), (6,), ()]),
    (["deep", "thief", "noble", "beast"], [1, 3], [(7,), (), (2, 5), (6,)]),
]


@pytest.mark.parametrize(("slots", "hand", "table"), THIEF_CASES)
def test_group_reading_is_exact_when_the_thief_steals(slots, hand, table):
    """The steal the player chooses is read by the convention like its play."""
    config = GameConfig(num_players=3, card_sets="all")
    kwargs = dict(config=config, slots=slots, table=table, faded=())
    s = arrange(**kwargs, hand=hand)
    s, observed = _group_phase(s, ConventionPolicy())
    assert any(ACTIONS[a].kind == "steal" for a in observed)
    got = ConventionPolicy().posterior(make_view(s, s.decider))
    expected = _brute_force(kwargs, observed, None)
    expected = expected * np.array([s.lines[0] >> v & 1 for v in range(7)])
    expected /= expected.sum()
    np.testing.assert_allclose(got, expected, atol=1e-9)


def test_convention_steals_legally_and_uses_the_choice_as_a_signal():
    """Every hand's steal takes a fate higher than its kept one from a card other than The
    Thief (none only when there is none), and some table gives one first play several
    steals: the choice tells the group about the kept fate."""
    config = GameConfig(num_players=3, card_sets="all")
    checked = signals = 0
    for s, team in _games(config, 40, seed=9):
        if s.phase != Phase.PLAY or s.turn_actions or THIEF not in s.slots:
            continue
        view = make_view(s, s.decider)
        conv = team.play.convention(view)
        tables = dict(convention_module.pre_play_tables(view.turn_start))
        steals_by_play: dict[tuple[int, int], set[int]] = {}
        lines = zip(conv.before, conv.choice, conv.steal, conv.kept, strict=True)
        for before, choice, steal, kept in lines:
            # a power before the play (Sparrows, Skies) leaves its own table
            start = tables[before] if before else view.turn_start
            play, slots = ACTIONS[choice], start.slots
            thief = slots.index(THIEF) if THIEF in slots else -1
            table = [list(f) for f in start.table]
            landed = play.slot if play.slot < 4 else next(i for i in range(4) if slots[i] >= 0)
            table[landed].append(play.value)
            higher = {
                (i, v) for i in range(4) if thief >= 0 and i != thief for v in table[i] if v > kept
            }
            if steal:
                assert (ACTIONS[steal].slot, ACTIONS[steal].value) in higher
            else:
                assert not higher
            steals_by_play.setdefault((before, choice), set()).add(steal)
            checked += 1
        signals += any(len(taken - {0}) > 1 for taken in steals_by_play.values())
    assert checked > 100 and signals > 0


# --- The Feast's second play has its own convention -----------------------------------------


class _Draw:
    """Stands in for the random generator of a Feast draw: the bag gives ``value``."""

    def __init__(self, s: State, value: int) -> None:
        self.s, self.value = s, value

    def random(self) -> float:
        bag = self.s.bag
        return (sum(bag[: self.value - 1]) + 0.5) / sum(bag)


def _feast_turn(kwargs: dict, hand: list[int], drawn: int) -> tuple[State, tuple[int, ...]]:
    """A fresh convention player plays its part of a turn, The Feast drawing ``drawn``."""
    policy = ConventionPolicy()
    s = arrange(**kwargs, hand=hand)
    actions = []
    while s.decider == s.active_player:
        actions.append(_act(policy, s))
        step_inplace(s, actions[-1], _Draw(s, drawn))
    return s, tuple(actions)


FEAST_CASES = [
    (["feast", "deep", "leviathan", "servant"], [4, 6], [(), (1, 4), (), ()], 2),
    (["feast", "leviathan", "huntress", "shore"], [4, 5], [(), (2, 3), (5,), ()], 7),
    (["feast", "belltower", "leviathan", "mirror"], [3, 4], [(), (), (4,), ()], 3),
]


@pytest.mark.parametrize(("slots", "hand", "table", "drawn"), FEAST_CASES)
def test_group_reading_is_exact_after_the_feasts_second_play(slots, hand, table, drawn):
    """Every (hand, Feast draw) the active seat may have had, played by a fresh
    convention player, weighed by its chance: the group's reading is that, exactly."""
    kwargs = dict(config=GameConfig(num_players=3, card_sets="all"), slots=slots, table=table)
    s, observed = _feast_turn(kwargs, hand, drawn)
    assert s.feast_done and sum(ACTIONS[a].kind == "play" for a in observed) == 2
    got = ConventionPolicy().posterior(make_view(s, s.decider))
    pool = [3] * 7
    for fates in table:
        for v in fates:
            pool[v - 1] -= 1
    expected = np.zeros(7)
    for x, y, z in itertools.product(range(1, 8), repeat=3):
        left = pool[:]
        p = 1.0
        for v in (x, y):
            p *= left[v - 1] / sum(left)
            left[v - 1] -= 1
        t, first = _feast_turn(kwargs, [x, y], 1) if p > 0 else (None, ())
        if not first or first[0] != observed[0]:
            continue
        p *= left[z - 1] / sum(left)
        if p <= 0:
            continue
        t, actions = _feast_turn(kwargs, [x, y], z)
        if actions == observed:
            expected[t.hands[0][0] - 1] += p
    expected = expected * np.array([s.lines[0] >> v & 1 for v in range(7)])
    expected /= expected.sum()
    np.testing.assert_allclose(got, expected, atol=1e-9)
    assert got[s.hands[0][0] - 1] > 0


# --- a power before the play saves a fade ---------------------------------------------------

RESCUE_TABLE = dict(
    config=GameConfig(num_players=3, difficulty="doomed"),
    slots=["leviathan", "deep", "dawn", "mirror"],
    table=[(), (), (), ()],
    faded=("prophet",),
    deck=("rider",),
    score=3,
)


def _doom_of_fades_now(s: State) -> int:
    view = make_view(s, s.active_player)
    return doom_of_fades(view, fading_slots(view))


def test_player_cycles_a_card_with_sparrows_when_every_play_would_fade():
    """Hand 3+7 can only play on The Mirror (one moon): at doomed its line fades a card
    the group might not cover, so the player cycles The Leviathan into The Rider first
    and plays where nothing fades; the group then passes at no doom."""
    s = arrange(**RESCUE_TABLE, hand=[3, 7])
    plain, _ = _group_phase(s, ConventionPolicy(rescue=False, pre_play=False))
    assert _doom_of_fades_now(plain) > 0
    policy = ConventionPolicy()
    t, actions = _group_phase(s, policy)
    assert ACTIONS[actions[0]].power == "sparrows" and ACTIONS[actions[1]].kind == "play"
    assert _doom_of_fades_now(t) == 0
    group = ConventionPolicy()
    while not t.over and t.turn == s.turn:
        step_inplace(t, _act(group, t), np.random.default_rng(0))
    assert t.doom == s.doom


def test_player_uses_a_power_before_the_play_only_when_its_line_would_fade():
    checked = 0
    for x, y in itertools.combinations_with_replacement(range(1, 8), 2):
        s = arrange(**RESCUE_TABLE, hand=[x, y])
        _, actions = _group_phase(s, ConventionPolicy())
        if ACTIONS[actions[0]].kind == "power":
            plain, _ = _group_phase(s, ConventionPolicy(rescue=False, pre_play=False))
            assert _doom_of_fades_now(plain) > 0, (x, y)
            checked += 1
    assert checked >= 1


def test_way_out_needs_a_power_before_the_play():
    s = arrange(**{**RESCUE_TABLE, "faded": ()}, hand=[3, 7])
    assert way_out(make_view(s, s.decider), (3, 7), False) is None
    s = arrange(**RESCUE_TABLE, hand=[3, 7])
    power, play = way_out(make_view(s, s.decider), (3, 7), False)
    assert ACTIONS[power].power == "sparrows" and ACTIONS[play].kind == "play"


@pytest.mark.parametrize(
    ("slots", "table"),
    [
        (["feast", "mirror", "deep", "lord"], [(), (), (), ()]),
        (["feast", "pallbearers", "deep", "lord"], [(), (2,), (), (5,)]),
    ],
)
def test_a_hand_plays_on_the_feast_only_when_every_other_play_fades(slots, table):
    """The Feast's second play is another chance, taken when every play elsewhere would
    fade a card at a doom cost (or there is none)."""
    s = arrange(GameConfig(num_players=3, card_sets="all"), slots=slots, table=table, hand=[1, 2])
    start = make_view(s, s.decider).turn_start
    conv = compute_convention(s.config, start, 0, False, None, BARE)
    chose_the_feast = 0  # hands on The Feast that could have played elsewhere
    for hand, choice in zip(conv.hands, conv.choice, strict=True):
        if ACTIONS[choice].slot != 0:
            continue
        others = [a for a in hand_plays(start, hand) if ACTIONS[a].slot != 0]
        chose_the_feast += bool(others)
        for other in others:
            spec = ACTIONS[other]
            kept = hand[1] if hand[0] == spec.value else hand[0]
            out = play_outcome(start, spec.value, spec.slot, kept)
            assert fade_doom(start, fading_after(start, out))[0] > 0, (hand, spec.description)
    assert chose_the_feast > 0


def test_way_out_prefers_a_play_the_number_line_reads():
    """Hand 1+2 on the rescue table: Sparrows, then 2 on Dawn leaves the number line on 1
    alone, which the group names for sure; without ``certain`` the first play that fades
    nothing is taken instead."""
    s = arrange(**RESCUE_TABLE, hand=[1, 2])
    view = make_view(s, s.decider)
    sure = way_out(view, (1, 2), False, certain=True)
    quiet = way_out(view, (1, 2), False)
    assert sure is not None and quiet is not None and sure != quiet
    t = step(step(s, sure[0], np.random.default_rng(0)), sure[1], np.random.default_rng(0))
    assert t.lines[0] == 1 << (t.hands[0][0] - 1) == 0b1


def test_a_sure_way_out_always_names_the_real_kept_fate():
    found = 0
    for x, y in itertools.combinations_with_replacement(range(1, 8), 2):
        s = arrange(**RESCUE_TABLE, hand=[x, y])
        out = way_out(make_view(s, s.decider), (x, y), False, certain=True, calm=False)
        if out is None:
            continue
        t = step(step(s, out[0], np.random.default_rng(0)), out[1], np.random.default_rng(0))
        assert t.lines[0] == 1 << (t.hands[0][0] - 1), (x, y)
        found += 1
    assert found >= 3


SURE_TABLE = dict(
    RESCUE_TABLE,
    slots=["stranger", "key", "noble", "belltower"],
    table=[(7,), (), (), (2,)],
)


def test_group_scores_a_turn_the_player_made_sure_with_a_power():
    """Every hand that the convention player opens with a power and that leaves a number
    line of one value: the convention group names it, the score rises, the doom does not."""
    checked = 0
    for x, y in itertools.combinations_with_replacement(range(1, 8), 2):
        s = arrange(**SURE_TABLE, hand=[x, y])
        t, actions = _group_phase(s, ConventionPolicy())
        if ACTIONS[actions[0]].kind != "power" or t.lines[0].bit_count() != 1:
            continue
        group = ConventionPolicy()
        while not t.over and t.turn == s.turn:
            step_inplace(t, _act(group, t), np.random.default_rng(0))
        assert (t.score, t.doom) == (s.score + 1, s.doom), (x, y)
        checked += 1
    assert checked >= 1


# --- restarts of the codebook ------------------------------------------------------------


def _turn_starts(config: GameConfig, n: int, seed: int):
    """(view, convention player) at the first play of every turn of ``n`` games."""
    for s, team in _games(config, n, seed=seed):
        if s.phase == Phase.PLAY and not s.turn_actions:
            yield make_view(s, s.decider), team.play


def test_restarts_never_lower_the_codes_value_and_stay_deterministic():
    config = GameConfig(num_players=3, difficulty="doomed", card_sets="all")
    checked = 0
    for view, player in _turn_starts(config, 6, seed=5):
        like = player._memory(view) if view.carried_into_turn else None
        args = (config, view.turn_start, view.active_seat, view.carried_into_turn, like)
        plain = compute_convention(*args, BARE)
        better = compute_convention(*args, BARE.but(restarts=3))
        convention_module._CACHE.clear()
        assert compute_convention(*args, BARE.but(restarts=3)) == better
        assert better.value >= plain.value - 1e-12
        checked += 1
    assert checked >= 10


def test_restarts_run_only_from_their_doom_on():
    config = GameConfig(num_players=3, difficulty="hard")
    for view, _ in _turn_starts(config, 2, seed=3):
        low = ConventionPolicy(restarts=3, restart_doom=view.doom + 1)
        assert low.convention(view) == ConventionPolicy(restarts=0).convention(view)
        high = ConventionPolicy(restarts=3, restart_doom=view.doom)
        always = ConventionPolicy(restarts=3, restart_doom=0)
        assert high.convention(view) == always.convention(view)


# --- legibility: a code a reader without it reads ---------------------------------------


def _problems(config: GameConfig, games: int, seed: int):
    """The code's problem (:func:`code_problem`) at the first play of every turn."""
    for view, player in _turn_starts(config, games, seed=seed):
        like = player._memory(view) if view.carried_into_turn else None
        args = (config, view.turn_start, view.active_seat, view.carried_into_turn, like)
        yield args, convention_module.code_problem(*args, BARE)


def test_legibility_is_the_chance_a_reader_without_the_code_names_the_kept_value():
    """``bonus[i][j]`` against a brute force: a reader who knows only which hands could
    show an observation (not which line each would choose) weighs them by their prior;
    the bonus is ``legible`` times its probability of the value line ``j`` keeps."""
    checked = 0
    for _, (_, weights, options, outs, _) in _problems(GameConfig(num_players=3), 3, 4):
        book = convention_module._Codebook(weights, options, outs, legible=0.3)
        for i, opts in enumerate(options):
            for j, (_, o, kept) in enumerate(opts):
                reading = np.zeros(7)
                for w, hand_lines in zip(weights, options, strict=True):
                    shown = [k for _, o2, k in hand_lines if o2 == o]
                    if shown:
                        reading[shown[0] - 1] += w
                assert book.bonus[i][j] == pytest.approx(0.3 * reading[kept - 1] / reading.sum())
                checked += 1
        assert convention_module._Codebook(weights, options, outs).bonus == [
            [0.0] * len(opts) for opts in options
        ]
    assert checked > 200


def _code_value(pick: list[int], weights, options, outs, bonus) -> float:
    """The summed group value of the code ``pick`` plus each hand's weight times its
    line's bonus, from the observations' masses."""
    mass = [[0.0] * 7 for _ in outs]
    for w, opts, j in zip(weights, options, pick, strict=True):
        mass[opts[j][1]][opts[j][2] - 1] += w
    groups = sum(out.group(m) for out, m in zip(outs, mass, strict=True))
    return groups + sum(w * b[j] for w, b, j in zip(weights, bonus, pick, strict=True))


def test_the_legible_code_is_a_local_optimum_of_its_value_with_the_bonus():
    """No hand gains by moving to another line when the code's value is the summed group
    value plus each hand's weight times its line's legibility bonus, computed here from
    the observations' masses (a move that raises it by more than 1e-9 fails)."""
    checked = 0
    for args, (_, weights, options, outs, _) in _problems(
        GameConfig(num_players=3, difficulty="hard"), 3, 8
    ):
        code = compute_convention(*args, BARE.but(legible=0.2))
        book = convention_module._Codebook(weights, options, outs, legible=0.2)
        pick = []
        for i, opts in enumerate(options):
            chosen = (code.before[i], code.choice[i], code.power[i], code.steal[i])
            pick.append(next(j for j, (line, _, _) in enumerate(opts) if tuple(line[:4]) == chosen))

        problem = (weights, options, outs, book.bonus)
        base = _code_value(pick, *problem)
        assert code.value == pytest.approx(base)
        for i, opts in enumerate(options):
            for j in range(len(opts)):
                assert _code_value([*pick[:i], j, *pick[i + 1 :]], *problem) <= base + 1e-9, (i, j)
                checked += 1
    assert checked > 100


def test_legible_is_a_setting_and_a_spec_option_refused_out_of_range():
    assert make_policy("convention:legible=0.05").settings.legible == 0.05
    with pytest.raises(ValueError, match=r"legible=-0\.1"):
        ConventionSettings(legible=-0.1)
    with pytest.raises(ValueError, match="out of range"):
        make_policy("convention:legible=2")


# --- lines that start with a power before the play -------------------------------------------

PRE_PLAY_CASES = [
    # Sparrows can cycle The Leviathan, The Deep, Dawn or The Mirror into The Rider
    RESCUE_TABLE,
    # Skies can move any of the four visible fates to another card
    dict(
        config=GameConfig(num_players=3, difficulty="doomed", card_sets="all"),
        slots=["huntress", "noble", "beast", "dawn"],
        table=[(), (3, 4), (6,), (1,)],
        faded=("lantern",),
        score=3,
    ),
    # Shadows lifts the kept fate's reading by one (The Mirror: 4 + 5 plays as 5 + 5)
    {**RESCUE_TABLE, "faded": ("ghost",), "config": GameConfig(num_players=3, card_sets="all")},
]
PRE_PLAY_IDS = ["sparrows", "skies", "shadows"]


@pytest.mark.parametrize("kwargs", PRE_PLAY_CASES, ids=PRE_PLAY_IDS)
def test_pre_play_tables_are_the_tables_the_engine_leaves(kwargs):
    """Every Sparrows, Skies or Shadows the engine allows, stepped on the engine, leaves
    the cards, fates, attachments and faded powers :func:`pre_play_tables` says."""
    s = arrange(**kwargs, hand=[2, 5])
    start = make_view(s, s.decider).turn_start
    tables = dict(convention_module.pre_play_tables(start, shadows=True))
    used = [a for a in legal_actions(s) if ACTIONS[a].power in ("sparrows", "skies", "shadows")]
    assert used and sorted(tables) == used
    for action in used:
        t = step(s, action, np.random.default_rng(0))
        table = tables[action]
        assert table.slots == tuple(t.slots)
        assert table.table == tuple(map(tuple, t.table))
        assert table.attached == tuple(map(tuple, t.attached))
        assert table.faded == tuple(t.faded)


@pytest.mark.parametrize("kwargs", PRE_PLAY_CASES, ids=PRE_PLAY_IDS)
def test_group_reading_is_exact_after_a_coded_power_before_the_play(kwargs):
    """Hands whose code line starts with Sparrows, Skies or Shadows use it, then play
    legally, and the group's reading is the brute-force posterior of the code."""
    options = {"pre_play_doom": 0, "pre_play_shadows": True, "rescue": False}
    checked = 0
    for x, y in itertools.combinations_with_replacement(range(1, 8), 2):
        s = arrange(**kwargs, hand=[x, y])
        t, actions = _group_phase(s, ConventionPolicy(**options))
        if ACTIONS[actions[0]].kind != "power":
            continue
        assert ACTIONS[actions[0]].power in ("sparrows", "skies", "shadows")
        assert ACTIONS[actions[1]].kind == "play"
        got = ConventionPolicy(**options).posterior(make_view(t, t.decider))
        expected = _brute_force(kwargs, actions, None, options)
        expected = expected * np.array([t.lines[0] >> v & 1 for v in range(7)])
        np.testing.assert_allclose(got, expected / expected.sum(), atol=1e-9)
        checked += 1
    assert checked >= 1


def test_pre_play_lines_run_from_their_doom_on():
    s = arrange(**RESCUE_TABLE, hand=[3, 7])
    view = make_view(s, s.decider)
    plain = ConventionPolicy(pre_play=False).convention(view)
    assert not any(plain.before)
    assert ConventionPolicy(pre_play_doom=view.doom + 1).convention(view) == plain
    assert any(ConventionPolicy().convention(view).before)


def test_pre_play_lines_go_only_to_hands_whose_every_other_line_fades():
    """The default (``pre_play_forced``): a hand with a line that fades nothing at a doom
    cost gets no line with a power before the play."""
    s = arrange(**RESCUE_TABLE, hand=[3, 7])
    start = make_view(s, s.decider).turn_start
    plain = ConventionPolicy(pre_play=False).convention(make_view(s, s.decider))
    code = ConventionPolicy().convention(make_view(s, s.decider))
    checked = 0
    for hand, before in zip(code.hands, code.before, strict=True):
        if before:
            for action in hand_plays(start, hand):
                value, target = ACTIONS[action].value, ACTIONS[action].slot
                kept = hand[1] if hand[0] == value else hand[0]
                out = play_outcome(start, value, target, kept)
                assert fade_doom(start, fading_after(start, out))[0] > 0, hand
            checked += 1
    assert checked >= 1 and plain.hands == code.hands


def test_tie_ahead_takes_its_price_off_the_team_value_not_off_the_groups_reply():
    """A line's tie-break price (``tie``: per unit of mass) lowers the summed value and
    every hand's value by the same amount; the group's reply and this turn's values
    (``now``) stay as without it."""
    args = (2, 6, 0, False, 0.01, (0.95, 2), [], 0.005)
    plain = outcomes.Outcomes(*args)
    priced = outcomes.Outcomes(*args, tie=0.002)
    for m in ([0.1, 0.0, 0.3, 0.0, 0.0, 0.2, 0.0], [0.0, 0.0, 0.05, 0.0, 0.0, 0.0, 0.0]):
        assert priced.best(m) == plain.best(m)
        assert priced.group(m) == pytest.approx(plain.group(m) - 0.002 * sum(m))
        assert priced.payoffs(m) == pytest.approx([v - 0.002 for v in plain.payoffs(m)])
        assert priced.payoffs(m, now=True) == plain.payoffs(m, now=True)


def test_the_sinners_lines_are_the_rules_removals_never_on_the_fall():
    """Every line of play that uses Sinners removes a fate the rule
    (``powers.sinners_actions`` on the table the play leaves) allows, every such removal
    is a line, and none is taken from The Fall (the convention leaves it alone)."""
    s = arrange(
        GameConfig(num_players=3, card_sets="all"),
        slots=["fall", "deep", "mirror", "lord"],
        table=[(1, 2), (3,), (), (2, 5)],
        faded=("belltower",),
        hand=[1, 2],
    )
    start = make_view(s, s.decider).turn_start
    lines = lines_module.Lines(start, 0.01, (0.95, 2), 0.005, True, True)
    on_the_fall = 0
    for low, high in itertools.combinations_with_replacement(range(1, 8), 2):
        coded: dict[int, set[int]] = {}
        for (_, action, power, _), _, _ in lines.options((low, high), carried=False):
            if power and ACTIONS[power].power == "sinners":
                coded.setdefault(action, set()).add(power)
        for action in hand_plays(start, (low, high)):
            spec = ACTIONS[action]
            kept = high if spec.value == low else low
            out = play_outcome(start, spec.value, spec.slot, kept)
            after = [f + [spec.value] * (out.landed == i) for i, f in enumerate(s.table)]
            allowed = set(sinners_actions(after, kept))
            on_the_fall += sum(ACTIONS[a].slot == 0 for a in allowed)
            assert coded.get(action, set()) == {a for a in allowed if ACTIONS[a].slot != 0}
    assert on_the_fall > 0


def test_lines_after_shadows_play_what_the_engine_allows_once_shadows_is_used():
    """A code line after Shadows reads the cards' conditions with the kept fate 1 higher,
    as the engine does: hand by hand, its plays are the engine's legal plays once Shadows
    is used (and on this table Shadows changes some hand's plays)."""
    kwargs = PRE_PLAY_CASES[PRE_PLAY_IDS.index("shadows")]
    shadows = lines_module.SHADOWS
    changed = 0
    for hand in itertools.combinations_with_replacement(range(1, 8), 2):
        s = arrange(**kwargs, hand=list(hand))
        start = make_view(s, s.decider).turn_start
        lines = lines_module.Lines(start, 0.01, (0.95, 2), 0.005, True, False, before=shadows)
        coded = sorted({action for (_, action, _, _), _, _ in lines.options(hand, carried=False)})
        plays = [a for a in legal_actions(s) if ACTIONS[a].kind == "play"]
        t = step(s, shadows, np.random.default_rng(0))
        lifted = [a for a in legal_actions(t) if ACTIONS[a].kind == "play"]
        assert coded == lifted, hand
        changed += lifted != plays
    assert changed > 0
