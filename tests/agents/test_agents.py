"""Tests of the scripted agents: legality, hidden information, and their rules."""

from __future__ import annotations

import json

import numpy as np
import pytest
from twins import swapped

from shipwreck_agents.base import Team
from shipwreck_agents.evaluation.evaluate import evaluate
from shipwreck_agents.registry import make_policy, make_team
from shipwreck_agents.scripted.bayes import BayesGroup, RaceTable, race_value, race_win
from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_agents.scripted.simple import LiteralPolicy, OracleGroup, RandomPolicy
from shipwreck_env.rules.actions import NUM_ACTIONS, PASS, play_action, predict_action
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step, step_inplace
from shipwreck_env.rules.scenario import arrange
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.view import make_view

TEAMS = [
    ("random", "random"),
    ("literal", "literal"),
    ("heuristic", "literal:0.5"),
    ("heuristic", "bayes"),
    ("literal", "bayes"),
    ("random", "oracle"),
]
CONFIGS = [
    dict(players=2),
    dict(players=3, card_sets="all"),
    dict(players=4, group_decision="vote"),
    dict(players=5, card_sets="all", group_decision="vote"),
    dict(players=2, challenge_mode=True, card_sets="all"),
]


def _mask(s: State) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[legal_actions(s)] = 1
    return mask


@pytest.mark.parametrize(("play", "group"), TEAMS)
@pytest.mark.parametrize(
    "config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items())
)
def test_policies_only_choose_legal_actions(play, group, config):
    """evaluate() raises IllegalActionError the moment a policy picks an illegal action."""
    evaluate(
        play, group, difficulties=["easy", "doomed"], games=3, seed=1, progress=False, **config
    )


def test_registry_rejects_unknown_specs():
    for spec in ("heuristic:3", "bayes:1", "ppo", "nobody", "random:x"):
        with pytest.raises(ValueError):
            make_policy(spec)


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("convention:nan", "out of range"),
        ("convention:inf", "out of range"),
        ("convention:-1", "out of range"),
        ("convention:k99", "out of range"),
        ("convention:k1.5", "not an integer"),
        ("random:inf", "out of range"),
        ("literal:" + "9" * 5000, "too long"),
        ("convention:k" + "9" * 5000, "too long"),
        ("search:best,margin=inf", "margin=inf is not allowed"),
        ("search:best,samples=" + "9" * 5000, "has a bad value"),
        ("search:best,samples=1000001", "is not allowed"),
    ],
)
def test_spec_numbers_must_be_finite_and_in_range_and_the_refusal_is_a_short_sentence(spec, says):
    """Odd numbers in a spec (NaN, infinities, huge integers) are refused with a sentence
    naming the allowed range, never accepted or answered with a Python internal, and the
    refusal does not echo a huge spec back."""
    if spec.startswith("search:"):
        pytest.importorskip("torch")
    with pytest.raises(ValueError, match=says) as info:
        make_policy(spec)
    text = str(info.value)
    assert "allowed" in text and len(text) < 400
    assert "4300" not in text and "invalid literal" not in text


def _random_states(config: GameConfig, n: int, seed: int) -> list[State]:
    rng = np.random.default_rng(seed)
    states: list[State] = []
    while len(states) < n:
        s = new_game(config, rng)
        while not s.over and len(states) < n:
            states.append(s.copy())
            legal = legal_actions(s)
            step_inplace(s, legal[int(rng.integers(len(legal)))], rng)
    return states


@pytest.mark.parametrize(
    "team_spec",
    ["heuristic+bayes", "convention+convention", "natural+natural", "noisy:0.5:heuristic+bayes"],
)
@pytest.mark.parametrize(
    "config",
    [GameConfig(num_players=3), GameConfig(num_players=4, card_sets="all", group_decision="vote")],
)
def test_scripted_choices_do_not_depend_on_other_players_hidden_fates(config, team_spec):
    """Swap another seat's hidden fate for any value consistent with public facts: the
    deciding scripted policy (heuristic for the active player and Bayesian group, or the
    convention team) must choose the same action."""

    def new_team() -> Team:
        return make_team(team_spec)

    checked = 0
    for s in _random_states(config, 250, seed=3):
        if s.over:
            continue
        player = s.decider
        team = new_team()
        view = make_view(s, player)
        policy = team.policy_for(view)
        before = policy.act(None, _mask(s), view, np.random.default_rng(0))
        for seat, hand in enumerate(s.hands):
            if s.owner(seat) == player:
                continue
            for index in range(len(hand)):
                for w in range(1, 8):
                    t = swapped(s, seat, index, w)
                    if t is None:
                        continue
                    fresh = new_team().policy_for(view)
                    after = fresh.act(
                        None, _mask(t), make_view(t, player), np.random.default_rng(0)
                    )
                    assert after == before, (seat, index, w, s.phase)
                    checked += 1
    assert checked > 100


def test_heuristic_player_is_deterministic_given_its_view():
    for s in _random_states(GameConfig(num_players=3, card_sets="all"), 80, seed=9):
        if s.over or s.decider != s.active_player:
            continue
        view = make_view(s, s.decider)
        a = HeuristicPlayer().act(None, _mask(s), view, np.random.default_rng(1))
        b = HeuristicPlayer().act(None, _mask(s), view, np.random.default_rng(2))
        assert a == b


def test_heuristic_prefers_the_play_that_names_the_kept_fate():
    """Holding 3 and 3 with The Mirror in play: playing on The Mirror tells the group the
    kept fate exactly, so the heuristic plays there rather than on The Blind Man."""
    s = arrange(slots=["blind_man", "mirror", "judge", "deep"], hand=[3, 3])
    view = make_view(s, 0)
    assert HeuristicPlayer().act(None, _mask(s), view, np.random.default_rng(0)) == play_action(
        3, 1
    )


def test_heuristic_prefers_an_informative_card_to_the_blind_man():
    """With 1 and 6: The Blind Man (always allowed) tells nothing; The Shore tells the
    group the kept fate is at least 4 away from the played one."""
    s = arrange(slots=["beast", "shore", "blind_man", "judge"], hand=[1, 6])
    view = make_view(s, 0)
    action = HeuristicPlayer().act(None, _mask(s), view, np.random.default_rng(0))
    assert action in (play_action(1, 1), play_action(6, 1))


def test_literal_group_predicts_only_a_single_remaining_value():
    s = arrange(slots=["mirror", "blind_man", "noble", "chalice"], hand=[4, 4])
    g = np.random.default_rng(0)
    s = step(s, play_action(4, 0), g)  # The Mirror: the kept fate is a 4
    while s.phase != Phase.GROUP:
        s = step(s, PASS, g)
    view = make_view(s, s.decider)
    assert LiteralPolicy().act(None, _mask(s), view, g) == predict_action(4)
    s2 = arrange(slots=["mirror", "blind_man", "noble", "chalice"], hand=[4, 5])
    s2 = step(s2, play_action(4, 1), g)  # The Blind Man tells nothing
    while s2.phase != Phase.GROUP:
        s2 = step(s2, PASS, g)
    assert LiteralPolicy().act(None, _mask(s2), make_view(s2, s2.decider), g) == PASS


def test_random_policy_passes_with_the_set_probability():
    s = arrange(slots=["mirror", "blind_man", "noble", "chalice"], hand=[4, 5])
    g = np.random.default_rng(0)
    s = step(s, play_action(4, 1), g)
    view = make_view(s, s.decider)
    picks = [RandomPolicy(0.8).act(None, _mask(s), view, g) for _ in range(2000)]
    assert 0.75 < picks.count(PASS) / len(picks) < 0.85
    with pytest.raises(ValueError):
        RandomPolicy(1.5)


def test_oracle_cheats_and_says_so():
    oracle = OracleGroup()
    assert oracle.cheating and oracle.needs_state
    s = arrange(slots=["mirror", "blind_man", "noble", "chalice"], hand=[2, 6])
    g = np.random.default_rng(0)
    s = step(s, play_action(2, 1), g)
    view = make_view(s, s.decider)
    assert oracle.act(None, _mask(s), view, g, state=s) == predict_action(6)
    with pytest.raises(ValueError, match="cheats"):
        oracle.act(None, _mask(s), view, g)


def test_race_value_is_monotone_and_bounded():
    assert race_value(7, 3) == 1.0 and race_value(3, 7) == 0.0
    for score in range(7):
        for doom in range(7):
            v = race_value(score, doom)
            assert 0 < v < 1
            assert race_value(score + 1, doom) > v > race_value(score, doom + 1)


# --- the Bayesian group's posterior against brute-force enumeration --------------------


def _brute_force_posterior(
    start_kwargs: dict, observed: int, carried_line: int | None, epsilon: float
) -> np.ndarray:
    """Enumerate every hand the active seat could hold, score the heuristic player's
    choice on a freshly arranged table, replay the observed play, and weigh by the draw
    probabilities -- written independently of agents/scripted/bayes.py."""
    pool = [3] * 7
    for fates in start_kwargs["table"]:
        for v in fates:
            pool[v - 1] -= 1
    out = np.zeros(7)
    hands = []
    total = sum(pool)
    if carried_line is None:
        for x in range(1, 8):
            for y in range(1, 8):
                p = pool[x - 1] / total * max(0, pool[y - 1] - (x == y)) / (total - 1)
                if p > 0:
                    hands.append(([x, y], None, p))
    else:
        prior = np.array([pool[c] if carried_line >> c & 1 else 0 for c in range(7)], dtype=float)
        prior /= prior.sum()
        for c in range(1, 8):
            for d in range(1, 8):
                rest = pool[d - 1] - (c == d)
                if prior[c - 1] > 0 and rest > 0:
                    hands.append(([c, d], c, prior[c - 1] * rest / (total - 1)))
    for hand, carried, p in hands:
        kwargs = dict(start_kwargs, hand=hand, carried=carried)
        if carried is not None:
            kwargs["lines"] = {0: carried_line}
        s = arrange(**kwargs)
        legal = legal_actions(s)
        if observed not in legal:
            continue
        choice = HeuristicPlayer().act(None, _mask(s), make_view(s, 0), np.random.default_rng(0))
        weight = p * ((1 - epsilon) * (choice == observed) + epsilon / len(legal))
        t = step(s, observed, np.random.default_rng(0))
        out[t.hands[0][0] - 1] += weight
    return out


@pytest.mark.parametrize(
    ("slots", "hand", "table", "carried", "line"),
    [
        (["midnight", "deep", "mirror", "lord"], [2, 6], [(), (), (), ()], None, None),
        (["belltower", "key", "blind_man", "shore"], [3, 4], [(5,), (), (), ()], None, None),
        (["servant", "judge", "dawn", "huntress"], [1, 5], [(), (4,), (), ()], 5, 0b1110000),
    ],
)
def test_bayes_posterior_matches_brute_force(slots, hand, table, carried, line):
    """The posterior over the kept fate equals an independent enumeration of hands."""
    kwargs = dict(config=GameConfig(num_players=3), slots=slots, table=table)
    s = arrange(**kwargs, hand=hand, carried=carried, lines={0: line} if line else None)
    g = np.random.default_rng(0)
    observed = HeuristicPlayer().act(None, _mask(s), make_view(s, 0), g)
    s = step(s, observed, g)
    while s.decider == s.active_player:
        s = step(s, PASS, g)
    group = BayesGroup(epsilon=0.05)
    got = group.posterior(make_view(s, s.decider))
    expected = _brute_force_posterior(kwargs, observed, line, 0.05)
    expected = expected * np.array([s.lines[0] >> v & 1 for v in range(7)])
    expected /= expected.sum()
    np.testing.assert_allclose(got, expected, atol=1e-9)
    assert got[s.hands[0][0] - 1] > 0  # the real kept fate is possible


def test_the_bayesian_group_weighs_its_choices_by_the_race_it_is_given():
    """At every group decision of games at hard, a group given a race (accuracy 0.95, 2
    doom a failed turn) values passing and naming its likeliest value by that race
    (:func:`race_win`), the default group by the rough :func:`race_value`; the two choose
    differently somewhere."""
    from shipwreck_agents.scripted.knowledge import doom_of_fades, fading_slots

    rough, raced = BayesGroup(), BayesGroup(accuracy=0.95, fail_doom=2)
    table = _monotone_table(np.random.default_rng(8))
    tabled = BayesGroup(race_table=RaceTable({"hard": table}, players=3))
    elsewhere = BayesGroup(race_table=RaceTable({"normal": table}, players=3))
    config = GameConfig(num_players=3, difficulty="hard")
    rng = np.random.default_rng(5)
    checked = differ = differ_table = 0
    for _ in range(6):
        for group in (rough, raced, tabled, elsewhere):
            group.reset()
        s = new_game(config, rng)
        while not s.over:
            view = make_view(s, s.decider)
            if s.decider != s.active_player and view.phase == "group":
                fades = fading_slots(view)
                fade_doom = doom_of_fades(view, fades)
                for group, value in (
                    (rough, race_value),
                    (raced, lambda a, b: race_win(a, b, 0.95, 2)),
                    (tabled, lambda a, b: RaceTable.value(table, a, b)),
                    (elsewhere, race_value),  # no table for hard: the rough race
                ):
                    posterior = group.posterior(view)
                    got, guess = group._predict_value(view, posterior, 1, fades)
                    sands = any("sands" in view.attached[slot] for slot in fades)
                    p = float(posterior.max())
                    calm = value(view.score, view.doom + fade_doom) + group.info_value
                    name = p * value(view.score + 1 + sands, view.doom) + (1 - p) * value(
                        view.score, view.doom + 1 + fade_doom
                    )
                    assert got == pytest.approx(name if name > calm else calm)
                    assert (guess > 0) == (name > calm)
                checked += 1
                differ += _act_of(rough, s) != _act_of(raced, s)
                differ_table += _act_of(rough, s) != _act_of(tabled, s)
            step_inplace(s, _act_of(rough, s), rng)
    assert checked > 40 and differ > 0 and differ_table > 0


def _monotone_table(rng: np.random.Generator) -> np.ndarray:
    """A random 7 x 7 win-rate table, non-decreasing in score and non-increasing in doom."""
    steps = rng.random((7, 7))
    table = np.cumsum(steps, axis=0)[:, ::-1].cumsum(axis=1)[:, ::-1]
    return table / table.max()


def test_a_race_table_values_the_ends_of_the_game_and_refuses_bad_tables(tmp_path):
    """7 points win, 7 doom lose, whatever the table; a table is read from a file of the
    fit (its players and difficulties); a bad shape, a value outside 0..1 or a file that is
    not a fit is refused by name; a game of another size or difficulty has no table."""
    table = _monotone_table(np.random.default_rng(1))
    assert RaceTable.value(table, 7, 3) == 1.0 and RaceTable.value(table, 2, 7) == 0.0
    assert RaceTable.value(table, 2, 3) == table[2, 3]
    path = tmp_path / "race.json"
    path.write_text(json.dumps({"players": 3, "tables": {"hard": table.tolist()}}))
    loaded = RaceTable.load(path)
    assert np.array_equal(loaded.table_for(GameConfig(num_players=3, difficulty="hard")), table)
    assert loaded.table_for(GameConfig(num_players=3, difficulty="normal")) is None
    assert loaded.table_for(GameConfig(num_players=4, difficulty="hard")) is None
    with pytest.raises(ValueError, match="race table 'x' at 'hard' is not allowed; allowed: 7 x 7"):
        RaceTable({"hard": table[:6]}, 3, source="x")
    with pytest.raises(ValueError, match="win rates from 0 to 1"):
        RaceTable({"hard": table + 1}, 3, source="x")
    path.write_text("{}")
    with pytest.raises(ValueError, match=r"race table .* is not allowed .*fit_race\.py"):
        RaceTable.load(path)


def _act_of(policy, s: State) -> int:
    return policy.act(None, _mask(s), make_view(s, s.decider), np.random.default_rng(0))
