"""The ally (agents/search/ally.py): the convention with partners who play it, type
inference with the rest."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator

import numpy as np
import pytest
from helpers import act_at, decision_states, legal_mask
from twins import decider_twins, swapped

from shipwreck_agents.convention.team import ConventionPolicy
from shipwreck_agents.evaluation.crossplay import MixedTable
from shipwreck_agents.registry import make_policy, make_team
from shipwreck_agents.search.ally import AllyTeam
from shipwreck_env.envs.policy import Team
from shipwreck_env.rules.actions import ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.state import State
from shipwreck_env.rules.view import make_view


def _one_stranger(stranger: Team, ally: AllyTeam, game: int) -> MixedTable:
    """A table of allies with ``stranger`` in seat ``game % 3``."""
    return MixedTable([stranger if p == game % 3 else Team(ally, ally) for p in range(3)])


def _games(config: GameConfig, table: Team, games: int, seed: int) -> Iterator[State]:
    """Every decision state of ``games`` games of ``table`` (reset before each game),
    its players let watch as the evaluator does."""
    return decision_states(config, table, games, seed)


@pytest.mark.parametrize(
    ("difficulty", "hedge", "legible"),
    [
        ("normal", 0.0, 0.0),
        ("hard", 0.0, 0.0),
        ("doomed", 0.0, 0.0),
        ("hard", 0.9, 0.0),
        ("hard", 0.0, 0.2),
    ],
)
def test_a_table_of_allies_decides_exactly_as_the_convention(difficulty, hedge, legible):
    """Self-play: every decision of a table of allies is the convention's (with the same
    ``legible`` setting) at the same state, and no ally refutes another (the exact tests
    never fire on the convention; hedging waits for a stranger, so it never starts)."""
    config = GameConfig(num_players=3, difficulty=difficulty)
    ally = AllyTeam(hedge=hedge, legible=legible)
    shadow = ConventionPolicy(legible=legible)
    table = Team(ally, ally)
    decisions = 0
    for s in _games(config, table, games=6, seed=11):
        if s.turn == 0 and not s.turn_actions and s.decider == s.active_player:
            shadow.reset()
        view = make_view(s, s.decider)
        expected = shadow.act(None, legal_mask(s), view, np.random.default_rng(0))
        assert act_at(ally, s) == expected, (s.turn, view.phase)
        decisions += 1
    assert decisions > 100
    assert all(not ally.refuted(p) for p in range(3))


def test_a_natural_partner_is_refuted_and_then_read_by_type_inference():
    """With a natural player at the table, the allies who watch it find it out within the
    game (over a few games), and decide for its turns as type inference would."""
    config = GameConfig(num_players=3, difficulty="normal")
    ally = AllyTeam()
    natural = make_team("natural")
    refuted_in = 0
    for game in range(6):
        table = _one_stranger(natural, ally, game)
        for _ in _games(config, table, games=1, seed=100 + game):
            pass
        stranger = game % 3
        refuted_in += any(stranger in ally.refuted(p) for p in range(3) if p != stranger)
    assert refuted_in >= 3


def test_a_play_no_hand_of_the_code_shows_is_refuted_on_the_spot():
    """The proof from a play: a partner that plays what the convention's code gives no
    hand its line allows is refuted at the group decision that sees it, and the decision
    then is type inference's."""
    config = GameConfig(num_players=3, difficulty="normal")
    ally = AllyTeam(doubt=0.0)
    rng = np.random.default_rng(5)
    found = 0
    for _ in range(30):
        ally.reset()
        s = new_game(config, rng)
        while not s.over and found < 3:
            view = make_view(s, s.decider)
            if (
                s.decider != s.active_player
                and view.phase == "group"
                and view.active_player not in ally.refuted(view.player)
            ):
                probe = copy.deepcopy(ally)
                reading = probe.convention.reading(view)
                covered = probe.convention._covered(view)
                action = act_at(probe, s)
                refuted = view.active_player in probe.refuted(view.player)
                assert refuted == (covered and reading.sum() <= 0)
                if refuted:
                    types = copy.deepcopy(ally.types)
                    assert action == act_at(types, s)
                    found += 1
            # the active player plays at random: often a line the code does not give
            legal = legal_actions(s)
            action = act_at(ally, s) if s.decider != s.active_player else int(rng.choice(legal))
            step_inplace(s, action, rng)
    assert found == 3


def test_a_reader_is_refuted_when_it_ends_our_turn_as_no_convention_leader_could():
    """The proof from a reading: at the active player's next decision, the way the leader
    ended its turn (passed: the fate still held; missed: the fate gone, no point since;
    scored) is checked against every ending a convention leader's replay gives; the
    leader is refuted exactly when it is none of them."""
    config = GameConfig(num_players=3, difficulty="normal")
    rng = np.random.default_rng(3)
    refutations = checked = 0
    for _ in range(12):
        ally = AllyTeam()
        s = new_game(config, rng)
        view = make_view(s, s.decider)
        act_at(ally, s)  # the active player's first play (the convention's)
        played = ally._played[view.player]
        expected = ally._convention_outcomes(played)
        if expected is None:
            continue
        assert expected and expected <= {"pass", "right", "wrong"}
        for seen, held, scored in (("pass", 1, 0), ("wrong", 0, 0), ("right", 0, 1)):
            probe = copy.deepcopy(ally)
            holding = list(view.holding)
            holding[view.active_seat] = held
            later = dataclasses.replace(
                view,
                turn=view.turn + 1,
                active_seat=(view.active_seat + 1) % 3,
                holding=tuple(holding),
                score=view.score + scored,
            )
            probe._settle(later)
            refuted = view.leader in probe.refuted(view.player)
            assert refuted == (seen not in expected), (seen, expected)
            refutations += refuted
            checked += 1
    assert checked >= 15 and refutations >= 10


def test_decisions_do_not_depend_on_hidden_fates_of_others():
    """Twin states that differ only in a fate the decider cannot see, the ally's memory
    copied: the same decision (the full state is handed over too, which a fair policy
    ignores, so a peek would show)."""
    config = GameConfig(num_players=3, difficulty="normal")
    ally = AllyTeam()
    natural = make_team("natural")

    checked = 0
    for game in range(4):
        table = _one_stranger(natural, ally, game)
        for s in _games(config, table, games=1, seed=40 + game):
            if table.teams[s.decider] is natural:
                continue
            before = act_at(copy.deepcopy(ally), s, state=s)
            for t in decider_twins(s):
                probe = copy.deepcopy(ally)
                assert act_at(probe, t, state=t) == before, (s.turn, s.phase)
                checked += 1
    assert checked > 100


def test_reset_forgets_the_partners_it_refuted():
    ally = AllyTeam()
    ally._refute(0, 2, "test")
    assert ally.refuted(0) == {2}
    ally.reset()
    assert ally.refuted(0) == frozenset()


@pytest.mark.parametrize(
    ("spec", "says"),
    [("ally:loud", "'loud' is not known"), ("ally:doubt=2", "doubt=2"), ("ally:doubt=x", "x")],
)
def test_the_registry_refuses_unknown_options_by_name(spec, says):
    with pytest.raises(ValueError, match=says):
        make_policy(spec)


def test_the_registry_builds_the_ally_with_its_options():
    ally = make_team("ally:pool,nolisten,doubt=0.1,hedge=0.5,lib=heuristic/convention").play
    assert isinstance(ally, AllyTeam)
    assert ally.pooled and not ally.listen and ally.doubt == 0.1 and ally.hedge == 0.5
    assert ally.types.types == ("heuristic", "convention")
    default = make_team("ally").play
    assert not default.pooled and default.listen and default.doubt == 0.0 and not default.hedge
    assert default.convention.settings.legible == 0.0
    legible = make_team("ally:legible=0.2").play
    for convention in (legible.convention, legible._watcher, legible._leader_model):
        assert convention.settings.legible == 0.2


@pytest.mark.parametrize(
    ("reading", "values", "scored", "turns_later", "refuted"),
    [
        ((0, 0, 1, 0, 0, 0, 0), (3,), False, 1, True),  # every hand the code allows: missed
        ((0, 0, 1, 2, 0, 0, 0), (3,), False, 1, False),  # a 4 was possible
        ((0, 0, 1, 2, 0, 0, 0), (3, 4), False, 1, True),  # Sorrows: both missed
        ((0, 0, 1, 0, 0, 0, 0), (3,), True, 1, False),  # it scored
        ((0, 0, 1, 0, 0, 0, 0), (3,), False, 2, False),  # another turn came between
    ],
)
def test_a_guess_that_missed_every_value_the_code_allowed_refutes_the_player(
    reading, values, scored, turns_later, refuted
):
    """The proof from an outcome: the decider predicted every value the convention's
    reading allowed and the score did not move by its next decision (the very next turn):
    the partner's fate was none of them, which the convention never plays."""
    config = GameConfig(num_players=3, difficulty="normal")
    s = new_game(config, np.random.default_rng(0))
    view = make_view(s, 1)
    ally = AllyTeam()
    ally._guess[1] = (view.turn, 0, np.array(reading, dtype=float), view.score, values)
    later = dataclasses.replace(view, turn=view.turn + turns_later, score=view.score + scored)
    ally._settle(later)
    assert (0 in ally.refuted(1)) == refuted
    assert 1 not in ally._guess  # settled either way


@pytest.mark.parametrize(("doubt", "refuted"), [(0.0, False), (0.49, False), (0.51, True)])
def test_type_evidence_refutes_a_partner_below_the_doubt(doubt, refuted):
    """The judgement from type evidence: at the first group decision no turn of the
    partner has been folded in, so it is one of the ally's own kind at even odds; a
    doubt above one half refutes it, one below (or none) does not."""
    config = GameConfig(num_players=3, difficulty="normal")
    ally = AllyTeam(doubt=doubt)
    for s in _games(config, Team(ally, ally), games=1, seed=2):
        view = make_view(s, s.decider)
        if s.decider != s.active_player and view.phase == "group":
            act_at(ally, s)
            assert (view.active_player in ally.refuted(view.player)) == refuted
            return
        act_at(ally, s)
    raise AssertionError("no group decision")


def test_the_odds_of_an_ally_are_the_convention_type_against_the_others_mean():
    """``ally_odds`` is log P(plays | convention) - log mean P(plays | other types), from
    type inference's evidence (by hand, on made-up evidence); no evidence is even odds
    and evidence the convention type cannot give is -inf."""
    ally = AllyTeam()
    names = ally.types.types
    conv = names.index("convention")
    evidence = np.log([0.02, 0.3, 0.5][: len(names)])
    ally.types._evidence[(0, 1)] = evidence
    likelihood = np.exp(evidence)
    others = np.delete(likelihood, conv)
    assert ally.ally_odds(0, 1) == pytest.approx(np.log(likelihood[conv] / others.mean()))
    assert ally.ally_odds(0, 2) == 0.0
    impossible = evidence.copy()
    impossible[conv] = -np.inf
    ally.types._evidence[(0, 2)] = impossible
    assert ally.ally_odds(0, 2) == -np.inf
    assert AllyTeam(types=("uniform", "heuristic")).ally_odds(0, 1) == 0.0


def test_hedging_weighs_the_reader_by_its_agreed_endings_once_a_stranger_is_seen():
    """With ``hedge=q`` the reader is an ally at even odds once a stranger is seen, the
    odds times 1/q for each ending of the reader's that a convention leader could give;
    a play leaves the convention's line only when, so weighed, it reads better by more
    than the margin, and without a stranger seen the line is always kept."""
    config = GameConfig(num_players=3, difficulty="normal")
    s = new_game(config, np.random.default_rng(9))
    view = make_view(s, s.decider)
    reader = view.leader % 3
    ally = AllyTeam(hedge=0.5)
    assert ally.reader_is_ally(view) == pytest.approx(0.5)
    ally._agreed[(view.player, reader)] = 2
    assert ally.reader_is_ally(view) == pytest.approx(0.8)  # odds 4:1
    assert ally.plays_convention(view)  # no stranger seen: the line, whatever it reads
    stranger = next(p for p in range(3) if p not in (view.player, reader))
    left = 0
    for seed in range(40):
        s = new_game(config, np.random.default_rng(seed))
        view = make_view(s, s.decider)
        for agreed in (0, 50):
            ally = AllyTeam(hedge=0.5)
            ally._refute(view.player, (view.player + 2) % 3, "test")
            ally._agreed[(view.player, view.leader % 3)] = agreed
            keeps = ally.plays_convention(view)
            if agreed == 50:
                assert keeps  # a reader all but sure to be an ally reads the line
            left += not keeps
            wide = AllyTeam(hedge=0.5, margin=1.0)  # no play reads better by a whole fate
            wide._refute(view.player, (view.player + 2) % 3, "test")
            assert wide.plays_convention(view)
    assert left > 0  # some first plays leave the line for a reader at even odds
    assert stranger != reader


def _watch_points(seed: int, games: int) -> Iterator[tuple[AllyTeam, State, int]]:
    """(ally, state, watcher) at every view of every player after each action (the
    ally is shown those of the players who do not decide next, as by ``let_watch``), the
    active players playing at random (often a line the code does not give), the ally
    deciding for the group; the ally's memory is as it was before the view is shown."""
    config = GameConfig(num_players=3, difficulty="normal")
    rng = np.random.default_rng(seed)
    for _ in range(games):
        ally = AllyTeam()
        s = new_game(config, rng)
        while not s.over:
            legal = legal_actions(s)
            action = act_at(ally, s) if s.decider != s.active_player else int(rng.choice(legal))
            step_inplace(s, action, rng)
            for watcher in range(3):
                yield ally, s, watcher  # the decider too: a driver may show it the table
                if watcher != s.decider:
                    ally.watch(make_view(s, watcher))


def test_a_watched_play_no_hand_of_the_code_shows_refutes_the_player():
    """The proof from a watched play: a player who neither plays nor leads the turn, at
    the turn's first group decision the code covers, refutes the active partner exactly
    when the leader's own test would (the turn opened with a play and no hand of the
    code shows it), and checks each turn once; every other view -- the leader's own
    included -- leaves it as it was."""
    found = checked = 0
    for ally, s, watcher in _watch_points(seed=7, games=25):
        view = make_view(s, watcher)
        probe = copy.deepcopy(ally)
        before = probe.refuted(watcher)
        probe.watch(view)
        after = probe.refuted(watcher)
        shadow = copy.deepcopy(ally._watcher)
        due = (
            view.phase == "group"
            and view.active_player != watcher
            and view.leader != watcher
            and (watcher, view.turn) not in ally._watched
            and view.holding[view.active_seat] == 1
            and view.active_player not in before
            and shadow._covered(view)
        )
        if not due:
            assert after == before and probe._watched == ally._watched
            continue
        checked += 1
        wrong = ACTIONS[view.turn_actions[0]].kind == "play" and shadow.reading(view).sum() <= 0
        assert (view.active_player in after) == wrong
        if wrong:
            assert probe.evidence(watcher)[view.active_player] == "watched"
            found += 1
    assert checked >= 40 and found >= 5


def test_a_natural_reader_is_found_out_from_its_own_plays():
    """One ally among natural players: it never decides on its reader's turns, yet it
    refutes its reader from the plays it watches; without watching (``nowatch``) it only
    can from how the reader ends its turns, so it finds the reader out in fewer games."""
    config = GameConfig(num_players=3, difficulty="normal")
    natural = make_team("natural")
    found, watched = {}, {}
    for watch in (True, False):
        ally = AllyTeam(watch=watch)
        found[watch] = watched[watch] = 0
        for game in range(12):
            seat = game % 3
            table = MixedTable([Team(ally, ally) if p == seat else natural for p in range(3)])
            for _ in _games(config, table, games=1, seed=300 + game):
                pass
            why = ally.evidence(seat).get((seat + 1) % 3)
            found[watch] += why is not None
            watched[watch] += why == "watched"
    assert watched[True] >= 3 and watched[False] == 0
    assert found[True] > found[False]


def test_what_a_watcher_concludes_does_not_depend_on_fates_it_cannot_see():
    """Twin states that differ only in a fate the watcher cannot see, the ally's memory
    copied: the same refutations and the same type evidence after the view is shown."""
    checked = 0
    for ally, s, watcher in _watch_points(seed=9, games=6):
        view = make_view(s, watcher)
        if view.phase != "group" or watcher in (view.active_player, view.leader):
            continue
        expected = copy.deepcopy(ally)
        expected.watch(view)
        hidden = [
            (seat, i)
            for seat in range(3)
            if s.owner(seat) != watcher
            for i in range(len(s.hands[seat]))
        ]
        for seat, i in hidden:
            for w in range(1, 8):
                t = swapped(s, seat, i, w)
                if t is None:
                    continue
                probe = copy.deepcopy(ally)
                probe.watch(make_view(t, watcher))
                assert probe.refuted(watcher) == expected.refuted(watcher)
                assert probe.types._pending.keys() == expected.types._pending.keys()
                for key, (turn, evidence) in expected.types._pending.items():
                    assert probe.types._pending[key][0] == turn
                    np.testing.assert_allclose(probe.types._pending[key][1], evidence)
                checked += 1
    assert checked > 50


@pytest.mark.parametrize(
    ("read", "odds", "by_types"),
    [(0.0, -5.0, False), (0.5, -5.0, True), (0.5, 5.0, False), (0.9, 1.0, True)],
)
def test_read_decides_as_type_inference_for_a_doubtful_partner_and_refutes_no_one(
    monkeypatch, read, odds, by_types
):
    """With ``read=R`` a group decision on a standing partner's turn is type inference's
    when the partner's chance of being an ally (even odds times the likelihood ratio, here
    set by hand) is below R, the convention's otherwise. Above R (or with ``read`` off)
    a table of allies plays as the convention: every play the convention's, no one
    refuted."""
    config = GameConfig(num_players=3, difficulty="normal")
    ally = AllyTeam(read=read)
    monkeypatch.setattr(AllyTeam, "ally_odds", lambda self, player, partner: odds)
    asked: list[str] = []
    for who in ("types", "convention"):
        inner = getattr(ally, who)
        monkeypatch.setattr(
            inner,
            "act",
            lambda *a, _act=inner.act, _who=who, **k: asked.append(_who) or _act(*a, **k),
        )
    groups = plays = 0
    kinds = []  # what each decision the games made was, in order
    for s in _games(config, Team(ally, ally), games=2, seed=5):
        view = make_view(s, s.decider)
        kinds.append(
            "group"
            if s.decider != s.active_player and view.phase == "group"
            else "play"
            if s.decider == s.active_player and view.phase == "play" and not s.turn_actions
            else None
        )
        if len(kinds) > 1:  # the last decision has been made by now: judge it
            if kinds[-2] == "group":
                assert asked == (["types"] if by_types else ["convention"]), asked
                groups += 1
            elif kinds[-2] == "play":
                plays += asked == ["convention"]
        asked.clear()
    assert groups > 5
    if not by_types:
        assert plays > 5 and all(not ally.refuted(p) for p in range(3))
