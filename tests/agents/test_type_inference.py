"""Tests of the type-inference group and player (agents/search/type_inference.py)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from twins import decider_twins

from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.evaluation.crossplay import MixedTable
from shipwreck_agents.scripted.bayes import BayesGroup
from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_agents.scripted.simple import RandomPolicy
from shipwreck_agents.search.type_inference import (
    SCRIPTED_TYPES,
    TypeGroup,
    make_reader,
)
from shipwreck_env.envs.policy import Team, let_watch
from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS, play_action
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.view import make_view


def _mask(s: State) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[legal_actions(s)] = 1
    return mask


def _act(policy, s: State, state: State | None = None) -> int:
    """``policy``'s decision at ``s`` (``state`` handed over too, to catch a peek)."""
    view = make_view(s, s.decider)
    return policy.act(None, _mask(s), view, np.random.default_rng(0), state=state)


def _partner(type_name: str) -> Team:
    """A team whose player plays like ``type_name``."""
    if type_name == "convention":
        policy = ConventionPolicy()
        return Team(policy, policy)
    player = RandomPolicy() if type_name == "uniform" else HeuristicPlayer()
    return Team(player, BayesGroup())


def _decisions(
    config: GameConfig, table: Callable[[int], Team], games: int, seed: int
) -> Iterator[tuple[int, State, Team]]:
    """(game number, state, table) at every decision of ``games`` games, the table of game
    ``i`` being ``table(i)`` (reset before the game)."""
    rng = np.random.default_rng(seed)
    for i in range(games):
        team = table(i)
        team.reset()
        s = new_game(config, rng)
        while not s.over:
            yield i, s, team
            step_inplace(s, _act(team.policy_for(make_view(s, s.decider)), s), rng)


# --- the type posterior ------------------------------------------------------------------


@pytest.mark.parametrize("true_type", SCRIPTED_TYPES)
def test_type_posterior_concentrates_on_the_partner_s_true_type(true_type):
    """A TypeGroup at seat 0 of a 3-player leader game watches seat 2 (it decides for the
    group on seat 2's turns), whose player plays like ``true_type``; over a few games
    (the turns it watched, each game's evidence pooled) the posterior puts nearly all its
    mass on that type, and in most single games it is already the most likely one."""
    config = GameConfig(num_players=3, difficulty="normal")
    types = TypeGroup(types=SCRIPTED_TYPES)
    partner = _partner(true_type)
    games, right = 6, 0
    evidence = np.zeros(len(SCRIPTED_TYPES))
    rng = np.random.default_rng(4)
    for _ in range(games):
        table = MixedTable([Team(types, types), partner, partner])
        table.reset()
        s = new_game(config, rng)
        while not s.over:
            step_inplace(s, _act(table.policy_for(make_view(s, s.decider)), s), rng)
        posterior = types.type_posterior(0, 2)
        right += int(np.argmax(posterior)) == SCRIPTED_TYPES.index(true_type)
        evidence += types.log_evidence(0, 2)
    pooled = np.exp(evidence - evidence.max())
    pooled /= pooled.sum()
    assert pooled[SCRIPTED_TYPES.index(true_type)] > 0.99, pooled
    assert right >= games // 2 + 1, right


def test_posterior_is_the_prior_before_any_turn_was_watched():
    types = TypeGroup(types=SCRIPTED_TYPES, prior=(1, 2, 1))
    assert np.allclose(types.type_posterior(0, 2), [0.25, 0.5, 0.25])


def test_a_type_the_prior_rules_out_stays_out_and_the_rest_stay_numbers():
    """A prior of zero on a type keeps it at zero after watched turns, as the player's
    pooled weights do, and nothing turns into NaN."""
    config = GameConfig(num_players=3, difficulty="normal")
    types = TypeGroup(types=SCRIPTED_TYPES, prior=(0, 1, 1))
    table = MixedTable([Team(types, types), _partner("heuristic"), _partner("heuristic")])
    checked = 0
    for _, s, _ in _decisions(config, lambda i: table, games=1, seed=1):
        if s.decider == 0 and s.active_player == 0 and s.phase == Phase.PLAY and s.turn > 3:
            weights = types.reader_weights(make_view(s, 0))
            assert weights[0] == 0 and np.isfinite(weights).all(), weights
            checked += 1
    assert checked > 0
    posterior = types.type_posterior(0, 2)
    assert posterior[0] == 0 and np.isclose(posterior.sum(), 1), posterior


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        (dict(types=("heuristic", "psychic")), "type 'psychic' is not known"),
        (dict(types=()), "distinct names"),
        (dict(types=("heuristic", "heuristic")), "distinct names"),
        (dict(prior=(1.0, 1.0)), "4 non-negative weights"),
        (dict(prior=(1.0, -1.0, 1.0, 1.0)), "4 non-negative weights"),
        (dict(prior=(0, 0, 0, 0)), "not all zero"),
        (dict(epsilon=1.5), "epsilon 1.5"),
        (dict(margin=-0.1), "margin -0.1"),
        (dict(quiet=("psychic",)), "quiet types \\['psychic'\\]"),
        (dict(accuracy=1.5), "accuracy 1.5 is not allowed; allowed: 0 to 1"),
        (dict(fail_doom=-1), "fail_doom -1 is not allowed; allowed: a whole number >= 0"),
        (dict(fail_doom=True), "fail_doom True is not allowed"),
    ],
)
def test_bad_options_are_refused_by_name(kwargs, says):
    with pytest.raises(ValueError, match=says):
        TypeGroup(**kwargs)


def _tabled_race() -> tuple[dict, Callable[[int, int], float]]:
    """A measured-race group option (:class:`RaceTable`, hard, 3 players) and its values:
    the table of the race that scores a later turn with chance 0.9 and costs 2 doom else."""
    from shipwreck_agents.scripted.bayes import RaceTable, race_win

    table = np.array([[race_win(s, d, 0.9, 2) for d in range(7)] for s in range(7)])
    return (
        dict(race_table=RaceTable({"hard": table}, players=3)),
        lambda score, doom: RaceTable.value(table, score, doom),
    )


def _modelled_race() -> tuple[dict, Callable[[int, int], float]]:
    from shipwreck_agents.scripted.bayes import race_win

    return dict(accuracy=0.95, fail_doom=2), lambda score, doom: race_win(score, doom, 0.95, 2)


# --- one type: exactly the Bayesian group --------------------------------------------------


@pytest.mark.parametrize(
    ("type_name", "bayes", "race"),
    [
        ("heuristic", lambda: BayesGroup(), {}),
        ("uniform", lambda: BayesGroup(model=RandomPolicy(), epsilon=1.0), {}),
        (
            "heuristic",
            lambda: BayesGroup(accuracy=0.95, fail_doom=2),
            dict(accuracy=0.95, fail_doom=2),
        ),
        ("heuristic", lambda: BayesGroup(**_tabled_race()[0]), _tabled_race()[0]),
    ],
    ids=["heuristic", "uniform", "heuristic-race", "heuristic-table"],
)
@pytest.mark.parametrize(
    "config",
    [
        GameConfig(num_players=3, difficulty="normal"),
        GameConfig(num_players=3, difficulty="hard", card_sets="all"),
        GameConfig(num_players=4, card_sets="all", group_decision="vote"),
    ],
    ids=["3p-normal", "3p-hard-all", "4p-all-vote"],
)
def test_one_type_library_decides_exactly_like_bayes_group_with_that_model(
    type_name, bayes, race, config
):
    """At every group decision of games between varied partners, a TypeGroup whose library
    is one type gives the same posterior (to the bit) and the same decision as the
    BayesGroup modelling that type, both having watched the same decisions before."""
    kinds = ("heuristic", "uniform", "convention")
    checked, game = 0, -1
    for i, s, _ in _decisions(config, lambda i: _partner(kinds[i % 3]), games=8, seed=11):
        if i != game:  # a new game: both start afresh
            game, one, reference = i, TypeGroup(types=(type_name,), **race), bayes()
        if s.decider == s.active_player:
            continue
        view = make_view(s, s.decider)
        if len(s.hands[s.active]) == 1:
            assert np.array_equal(one.posterior(view), reference.posterior(view))
        assert _act(one, s) == _act(reference, s), (s.turn, view.phase)
        checked += 1
    assert checked > 80


def test_the_reader_s_joint_sums_to_the_likelihood_of_a_sure_observation():
    """Under the uniform type every legal action is alike, so the evidence of a first play
    is the probability of the hand that allows it times 1/(number of legal actions):
    a turn's evidence is a probability (never above 1)."""
    config = GameConfig(num_players=3)
    reader = make_reader("uniform")
    for _, s, _ in _decisions(config, lambda i: _partner("heuristic"), games=2, seed=3):
        if s.decider != s.active_player and len(s.hands[s.active]) == 1:
            joint = reader.joint(make_view(s, s.decider))
            assert 0.0 < joint.sum() <= 1.0 + 1e-12


@pytest.mark.parametrize("base", ["heuristic", "convention"])
def test_a_careless_type_reads_as_its_base_type_with_its_own_noise(base):
    """``T@E`` is type ``T`` mixed with ``E`` of uniform play whatever the library's
    epsilon: its joint equals a plain ``T`` reader's made with epsilon ``E``, at every
    decision of games between varied partners (and differs from the careful ``T``'s
    somewhere, so the noise is used)."""
    config = GameConfig(num_players=3, difficulty="hard")
    careless = make_reader(f"{base}@0.3", epsilon=0.05)
    plain = make_reader(base, epsilon=0.3)
    careful = make_reader(base, epsilon=0.05)
    assert careless.type_name == f"{base}@0.3" and careless.epsilon == 0.3
    checked, differs, game = 0, 0, -1
    for i, s, _ in _decisions(config, lambda i: _partner(("heuristic", "uniform")[i % 2]), 4, 9):
        if i != game:
            game = i
            for reader in (careless, plain, careful):
                reader.reset()
        if s.decider == s.active_player or len(s.hands[s.active]) != 1:
            continue
        view = make_view(s, s.decider)
        joint = careless.joint(view)
        assert np.allclose(joint, plain.joint(view))
        differs += not np.allclose(joint, careful.joint(view))
        checked += 1
    assert checked > 20 and differs > 0


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("convention@1.5", r"type 'convention@1\.5': '1\.5' is out of range; allowed: a number"),
        ("convention@x", "type 'convention@x': 'x' is not a number; allowed: a number from 0 to 1"),
        ("convention@" + "9" * 40, "is too long; allowed: a number from 0 to 1"),
        ("uniform@0.3", "careless version of heuristic, convention or fast"),
        ("psychic@0.3", "type 'psychic' is not known"),
    ],
)
def test_a_bad_careless_type_is_refused_by_name(name, says):
    with pytest.raises(ValueError, match=says):
        make_reader(name)


def test_the_spec_takes_a_careless_type_beside_the_careful_one():
    from shipwreck_agents.registry import make_policy
    from shipwreck_agents.search.type_inference import make_leader

    group = make_policy("types:uniform,heuristic,convention,convention@0.3")
    assert [(r.type_name, r.epsilon) for r in group.readers][2:] == [
        ("convention", 0.05),
        ("convention@0.3", 0.3),
    ]
    assert isinstance(make_leader("convention@0.3"), ConventionPolicy)


# --- hidden facts --------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["heuristic", "convention"])
def test_decisions_do_not_depend_on_hidden_fates_of_others(host):
    """Twin states that differ only in a fate the decider cannot see (another player's
    fate, the active seat's kept fate included), the TypeGroup's memory copied: the same
    decision, as player and as group (the full state is handed over too, which a fair
    policy ignores, so that a peek at it would show here)."""
    config = GameConfig(num_players=3, difficulty="normal")
    types = TypeGroup(types=SCRIPTED_TYPES)
    partner = _partner(host)

    def table(i: int) -> Team:
        return MixedTable([Team(types, types) if p == i % 3 else partner for p in range(3)])

    checked = 0
    for _, s, mixed in _decisions(config, table, games=8, seed=6):
        view = make_view(s, s.decider)
        if mixed.teams[s.decider].play is not types:
            continue
        before = _act(copy.deepcopy(types), s, state=s)
        for t in decider_twins(s):
            assert _act(copy.deepcopy(types), t, state=t) == before, (s.turn, view.phase)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("difficulty", ["normal", "hard"])
def test_convention_reader_without_noise_keeps_the_fate_the_convention_group_keeps(difficulty):
    """With no uniform play mixed in, the convention type's reader keeps only hands whose
    replay under the convention reproduces the turn. Beside a table of convention
    players, wherever the convention's own group gives the real kept fate some mass, so
    does the reader (on carried turns too, which needs the code's memory of the seat's
    last turn, looked up under the reading player)."""
    config = GameConfig(num_players=3, difficulty=difficulty)
    reader = make_reader("convention", epsilon=0.0)
    checked, game = 0, -1
    for i, s, table in _decisions(config, lambda i: _partner("convention"), games=8, seed=2):
        if i != game:
            game = i
            reader.reset()
        if s.decider == s.active_player or len(s.hands[s.active]) != 1:
            continue
        view = make_view(s, s.decider)
        kept = s.hands[s.active][0]
        joint = reader.joint(view)
        if table.group.posterior(view)[kept - 1] > 0:
            assert joint[kept - 1] > 0, (i, s.turn)
            checked += 1
    assert checked > 60


# --- the player --------------------------------------------------------------------------


def test_a_play_that_names_the_kept_fate_is_read_for_sure_by_every_type():
    """Holding 3 and 3 with The Mirror in play, playing on The Mirror tells every reader
    the kept fate (value 1, nothing fades); on The Blind Man no type can be sure."""
    s = arrange(slots=["blind_man", "mirror", "judge", "deep"], hand=[3, 3])
    values = TypeGroup().play_values(make_view(s, 0))
    assert values[play_action(3, 1)] == pytest.approx(1.0)
    assert values[play_action(3, 0)] < 0.9
    assert _act(TypeGroup(), s) == play_action(3, 1)


@pytest.mark.parametrize(
    ("believed", "margin"),
    [("uniform", 0.0), ("heuristic", 0.0), ("convention", 0.0), ("convention", 0.1)],
)
def test_the_player_takes_the_best_valued_play_and_keeps_the_heuristic_s_on_ties(believed, margin):
    """At first plays of many games, with the prior all on one type: the play chosen has
    the highest value of :meth:`TypeGroup.play_values` (or is the heuristic's, when the
    heuristic's is as good within ``margin`` or cannot be valued); and the signalling
    changes some plays."""
    config = GameConfig(num_players=3, difficulty="normal")
    prior = [float(t == believed) for t in SCRIPTED_TYPES]
    changed = checked = 0
    for _, s, _ in _decisions(config, lambda i: _partner("heuristic"), games=6, seed=9):
        if s.decider != s.active_player or s.phase != Phase.PLAY or s.turn_actions:
            continue
        view = make_view(s, s.decider)
        player = TypeGroup(types=SCRIPTED_TYPES, prior=prior, margin=margin)
        chosen, heuristic = _act(player, s), _act(HeuristicPlayer(), s)
        values = player.play_values(view)
        if heuristic in values:
            assert values[chosen] >= max(values.values()) - margin - 1e-9
            assert chosen == heuristic or values[chosen] > values[heuristic] + margin + 1e-9
        else:
            assert chosen == heuristic
        changed += chosen != heuristic
        checked += 1
    assert checked > 30 and changed > 0, (checked, changed)


@pytest.mark.parametrize(
    ("believed", "race_of"),
    [("heuristic", _modelled_race), ("convention", _modelled_race), ("heuristic", _tabled_race)],
    ids=["heuristic", "convention", "heuristic-table"],
)
def test_a_play_valued_by_the_race_is_the_race_after_the_reader_s_reply(believed, race_of):
    """With ``play_value="race"`` and the prior all on one type, each first play's value
    is the race after the reply that type's reader would make, worked out here from the
    reader's own posterior on the turn as the leader would see it: the right guess's
    race when it would name the kept fate, the wrong guess's when it would name another,
    the race after the fades (plus the information's value) when it would pass, in units
    of the turn's stake (a right guess's race less a wrong one's with no fade); and the
    three occur; for a race modelled (:func:`race_win`) or measured (a race table)."""
    from shipwreck_agents.scripted.knowledge import doom_of_fades, fading_slots
    from shipwreck_agents.search.type_inference import _view_after

    config = GameConfig(num_players=3, difficulty="hard")
    prior = [float(t == believed) for t in SCRIPTED_TYPES]
    reader = make_reader(believed)
    race, race_value = race_of()
    seen: set[str] = set()
    checked = 0
    for _, s, _ in _decisions(config, lambda i: _partner("heuristic"), games=6, seed=9):
        if s.decider != s.active_player or s.phase != Phase.PLAY or s.turn_actions:
            continue
        view = make_view(s, s.decider)
        player = TypeGroup(types=SCRIPTED_TYPES, prior=prior, **race, play_value="race")
        hand = view.my_hands[view.my_seats.index(view.active_seat)]
        leader = view.leader % config.num_players
        for action, value in player.play_values(view).items():
            after = _view_after(view, hand, action, leader)
            doom = doom_of_fades(after, fading_slots(after))
            reader.reset()
            belief = reader.posterior(after)
            kept = hand[1] if hand[0] == ACTIONS[action].value else hand[0]
            right = race_value(view.score + 1, view.doom)
            wrong = race_value(view.score, view.doom + 1 + doom)
            calm = race_value(view.score, view.doom + doom) + player.info_value
            guess = int(np.argmax(belief)) + 1
            sure = belief.max() / belief.sum()
            if sure * right + (1 - sure) * wrong <= calm:
                expected, seen_as = calm, "pass"
            elif guess == kept:
                expected, seen_as = right, "right"
            else:
                expected, seen_as = wrong, "wrong"
            floor = race_value(view.score, view.doom + 1)
            stake = right - floor if right > floor else 1.0
            assert value == pytest.approx((expected - floor) / stake), (s.turn, action, seen_as)
            seen.add(seen_as)
            checked += 1
    assert checked > 50 and seen == {"pass", "right", "wrong"}, (checked, seen)


def test_a_bad_play_value_is_refused_by_name():
    with pytest.raises(ValueError, match="play_value 'vibes' is not allowed; allowed: mass, race"):
        TypeGroup(play_value="vibes")
    from shipwreck_agents.registry import make_policy

    assert make_policy("types:playrace").play_value == "race"
    assert make_policy("types").play_value == "mass"


# --- watching the turns it does not decide on ----------------------------------------------


def test_watching_gives_a_player_evidence_on_its_own_reader():
    """One type-inference player among convention players (3 players, leader mode): it
    decides only on its predecessor's turns, so without watching it has no evidence on
    its reader (the next seat) and signals to the pooled posterior; watching the
    reader's turns (:func:`let_watch`, as the evaluator does) gives it that seat's own
    evidence, and the reader's type posterior moves to the convention."""
    config = GameConfig(num_players=3, difficulty="normal")
    convention = _partner("convention")
    for watch in (True, False):
        group = TypeGroup(types=SCRIPTED_TYPES, watch=watch)
        table = MixedTable([Team(group, group), convention, convention])
        rng = np.random.default_rng(21)
        table.reset()
        s = new_game(config, rng)
        calls = []
        original = group.posterior

        def counted(view, original=original, calls=calls):
            calls.append((view.player, view.turn, view.decider == view.player, view))
            return original(view)

        group.posterior = counted
        while not s.over and s.turn < 8:
            step_inplace(s, _act(table.policy_for(make_view(s, s.decider)), s), rng)
            let_watch(table, s)
        watched = [c for c in calls if not c[2]]
        if watch:
            assert watched and len(watched) == len({c[:2] for c in watched})  # once a turn
            group.watch(watched[-1][3])  # shown the same turn again: nothing new
            assert len(calls) == len(watched) + len([c for c in calls if c[2]])
            posterior = group.type_posterior(0, 1)
            assert np.argmax(posterior) == SCRIPTED_TYPES.index("convention")
            assert posterior.max() > 0.5
        else:
            assert not watched
            assert np.allclose(group.type_posterior(0, 1), 1 / len(SCRIPTED_TYPES))


def test_the_spec_gives_a_prior_per_type_and_refuses_bad_ones():
    from shipwreck_agents.registry import make_policy

    group = make_policy("types:prior=1/1/1/0.25")
    assert np.allclose(np.exp(group.log_prior), np.array([1, 1, 1, 0.25]) / 3.25)
    with pytest.raises(ValueError, match="4 non-negative weights"):
        make_policy("types:prior=1/1")
    with pytest.raises(ValueError, match="allowed: a number from 0"):
        make_policy("types:prior=1/x/1/1")


def test_the_spec_sets_the_race_value_and_refuses_bad_ones():
    from shipwreck_agents.registry import make_policy

    group = make_policy("types:race=0.95/2")
    assert (group.accuracy, group.fail_doom) == (0.95, 2)
    assert make_policy("types:race=0.8").fail_doom == 1
    assert make_policy("types").accuracy == 0.0
    with pytest.raises(ValueError, match=r"'1\.5' is out of range; allowed: a number from 0 to 1"):
        make_policy("types:race=1.5/2")
    with pytest.raises(
        ValueError, match=r"'2\.5' is not an integer; allowed: an integer from 0 to 7"
    ):
        make_policy("types:race=0.9/2.5")
    assert make_policy("types").race_table is None


def test_the_spec_reads_a_race_table_from_a_file_of_the_fit(tmp_path):
    from shipwreck_agents.registry import make_policy

    path = tmp_path / "race.json"
    table = [[round(0.9 * (1 - d / 7) + s / 100, 4) for d in range(7)] for s in range(7)]
    path.write_text(json.dumps({"players": 3, "tables": {"hard": table}}))
    group = make_policy(f"types:racetable={path},playrace")
    assert group.race_table.tables["hard"].tolist() == table and group.play_value == "race"
    with pytest.raises(ValueError, match=r"race table '/no/such\.json' is not allowed"):
        make_policy("types:racetable=/no/such.json")
    shipped = make_policy("types:racetable").race_table  # the package's own table
    assert shipped.players == 3 and set(shipped.tables) == {"normal", "hard"}
    for table in shipped.tables.values():
        assert np.all(np.diff(table, axis=0) >= 0) and np.all(np.diff(table, axis=1) <= 0)


def test_quiet_types_are_left_out_of_the_weights_the_player_signals_to(monkeypatch):
    """With ``quiet``, the play values are those of the same library with the quiet
    types' weights set to 0 (the rest renormalised); and they differ from the values with
    every type counted at some first play, so the option does something."""
    from shipwreck_agents.registry import make_policy

    config = GameConfig(num_players=3, difficulty="normal")
    weights = np.array([0.1, 0.2, 0.3, 0.4])
    without = np.array([0.1, 0.2, 0.0, 0.4]) / 0.7
    quiet, loud = TypeGroup(quiet=("convention",)), TypeGroup()
    assert make_policy("types:quiet=convention").loud.tolist() == [True, True, False, True]
    differ = checked = 0
    for _, s, _ in _decisions(config, lambda i: _partner("heuristic"), games=4, seed=3):
        if s.decider != s.active_player or s.phase != Phase.PLAY or s.turn_actions:
            continue
        view = make_view(s, s.decider)
        monkeypatch.setattr(TypeGroup, "reader_weights", lambda self, view: weights)
        got, every = quiet.play_values(view), loud.play_values(view)
        monkeypatch.setattr(TypeGroup, "reader_weights", lambda self, view: without)
        want = loud.play_values(view)
        assert got.keys() == want.keys()
        assert all(got[a] == pytest.approx(want[a], abs=1e-12) for a in got)
        differ += any(abs(got[a] - every[a]) > 1e-6 for a in got)
        checked += 1
    assert checked > 10 and differ > 0, (checked, differ)
