"""Population training in the fast trainer (shipwreck_training.fast.population): each
partner's batched twin against its per-game policy, the seating, the hook, checkpoints."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from test_fast_ppo import _config  # noqa: E402
from test_fast_zsc import resumes_exactly_and_learns_fewer_steps  # noqa: E402

from shipwreck_agents.learned.fast_team import FastTeamPolicy  # noqa: E402
from shipwreck_agents.registry import make_team  # noqa: E402
from shipwreck_env.envs.policy import Team, decide, observation_layouts  # noqa: E402
from shipwreck_env.rules.actions import ACTIONS, PASS  # noqa: E402
from shipwreck_env.rules.state import PHASES  # noqa: E402
from shipwreck_training.common.config import GameSettings  # noqa: E402
from shipwreck_training.common.games import Games  # noqa: E402
from shipwreck_training.fast.population import (  # noqa: E402
    DRAWS,
    Population,
    check_partner_spec,
    make_twin,
)
from shipwreck_training.fast.ppo import Trainer  # noqa: E402

NET = "results/models/fast_selfplay.pth"
"""A training partner's network (belief kind ``policy``)."""


class Draws:
    """Stands for a per-game policy's generator: serves the twin's uniforms of one
    decision (``integers(n)`` is ``floor(u * n)``, as the twins read them)."""

    def __init__(self, row: np.ndarray, choice: int) -> None:
        self.row, self.choice = row, choice

    def random(self) -> float:
        return float(self.row[1])

    def integers(self, n: int) -> int:
        return int(self.row[self.choice] * n)


def _noisy_team(inner: Team, epsilon: float) -> Team:
    from shipwreck_agents.scripted.noisy import NoisyPolicy

    play = NoisyPolicy(inner.play, epsilon)
    return Team(play, play if inner.group is inner.play else NoisyPolicy(inner.group, epsilon))


def compare(spec: str, team_of, choice: int, games: int, steps: int, seed: int) -> Counter:
    """Step ``games`` games for ``steps`` steps; each game seats the twin of ``spec`` in
    random seats (drawn anew with each game); at every decision of those seats assert the
    twin's action equals ``decide`` with the game place's own per-game team
    (``team_of()``) on the reference state, both given the same uniforms. Other seats
    play at random; the twin's action is taken 80% of the time. Returns what was met."""
    env = GameSettings(num_players=3, difficulties=("normal", "hard"), belief="literal")
    g = Games(env, games, seed)
    twin = make_twin(spec, games)
    teams = [team_of() for _ in range(games)]
    rng = np.random.default_rng(seed)
    seats = rng.random((games, 3)) < 0.6
    layouts = observation_layouts(g.parts[0].config)
    seen: Counter = Counter()
    for _ in range(steps):
        mask = g.legal_mask()
        decider = g.decider.astype(np.int64)
        actions = np.concatenate([p.random_legal(p.legal_mask(), rng) for p in g.parts])
        which = np.flatnonzero((decider >= 0) & seats[np.arange(games), decider.clip(0)])
        if len(which):
            draws = rng.random((len(which), DRAWS))
            fast = twin.act(g, which, mask, draws)
            for k, pos, local in g.locate(which):
                for i, s in zip(pos, g.parts[k].to_states(local.tolist()), strict=True):
                    team = teams[int(which[i])]
                    expected = decide(team, s, layouts, Draws(draws[i], choice)).action
                    assert fast[i] == expected, (
                        f"{spec}, game {int(which[i])}, phase {PHASES[s.phase]}: batched "
                        f"{ACTIONS[fast[i]]}, per-game {ACTIONS[expected]}; state {s!r}"
                    )
                    role = "play" if s.decider == s.active % 3 else "group"
                    seen[f"{role}:{PHASES[s.phase]}"] += 1
                    belief = getattr(team.group, "last_belief", None)
                    inner = getattr(getattr(team.group, "inner", None), "last_belief", None)
                    if role == "group" and (belief is not None or inner is not None):
                        seen["policy_belief"] += 1
            keep = rng.random(len(which)) < 0.8
            actions[which[keep]] = fast[keep]
        _, _, _, info = g.step(actions)
        ended = np.flatnonzero(info["_final"])
        if len(ended):
            twin.restart(ended)
            for e in ended:
                teams[e].reset()
            seats[ended] = rng.random((len(ended), 3)) < 0.6
            seen["ended"] += len(ended)
    return seen


def test_the_heuristic_bayes_twin_takes_the_per_game_teams_actions():
    seen = compare("heuristic+bayes", lambda: make_team("heuristic+bayes"), 0, 24, 160, 3)
    assert seen["play:play"] > 100 and seen["group:group"] > 100 and seen["ended"] > 5


def test_the_literal_twin_takes_the_per_game_policys_actions_with_the_same_draws():
    seen = compare("literal", lambda: make_team("literal"), 0, 32, 200, 4)
    assert seen["play:play"] > 100 and seen["group:group"] > 100 and seen["ended"] > 10


@pytest.mark.slow
def test_the_network_twin_plays_and_reads_its_own_plays_as_its_per_game_team():
    def team() -> Team:
        policy = FastTeamPolicy(NET)  # one per game place: its memory is per game
        return Team(policy, policy)

    seen = compare(f"fast:{NET}", team, 0, 10, 120, 5)
    assert seen["play:play"] > 100 and seen["group:group"] > 100
    assert seen["policy_belief"] > 20  # its group read its own plays' posterior


def test_the_noisy_twin_is_the_noisy_wrapper_with_the_same_draws():
    def team() -> Team:
        return _noisy_team(make_team("heuristic+bayes"), 0.3)

    seen = compare("noisy:0.3:heuristic+bayes", team, 2, 24, 140, 6)
    assert seen["play:play"] > 100 and seen["group:group"] > 100


@pytest.mark.slow
def test_the_noisy_network_twin_keeps_recording_its_greedy_plays():
    def team() -> Team:
        policy = FastTeamPolicy(NET)
        return _noisy_team(Team(policy, policy), 0.3)

    seen = compare(f"noisy:0.3:fast:{NET}", team, 2, 8, 100, 7)
    assert seen["policy_belief"] > 10


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("convention", "no batched twin"),
        ("natural", "no batched twin"),
        ("literal:0.8", "no batched twin"),
        ("noisy:0.1:literal", "noise is allowed"),
        ("noisy:2:heuristic+bayes", "out of range"),
        ("fast:results/models/missing.pth", "does not exist"),
    ],
)
def test_a_partner_without_a_batched_twin_is_refused(spec, match):
    with pytest.raises(ValueError, match=match):
        check_partner_spec(spec)


def test_seating_follows_the_chances_and_restart_redraws_only_those_games():
    pop = Population(("literal", "heuristic+bayes"), (3.0, 1.0), 0.2, 0.5, 20_000, 3, seed=1)
    partnered = pop.partner >= 0
    assert abs(1 - partnered.mean() - 0.2) < 0.02
    assert abs((pop.partner[partnered] == 0).mean() - 0.75) < 0.02
    count = pop.seat.sum(1)
    assert (count[~partnered] == 0).all() and set(count[partnered]) == {1, 2}
    assert abs((count[partnered] == 1).mean() - 0.5) < 0.02  # the partner as newcomer
    assert abs(pop.seat[partnered].mean(0) - 0.5).max() < 0.03  # no seat favoured
    before = (pop.partner.copy(), pop.seat.copy())
    pop.restart(np.arange(10_000))
    assert (pop.partner[10_000:] == before[0][10_000:]).all()
    assert (pop.seat[10_000:] == before[1][10_000:]).all()
    assert (pop.seat[:10_000] != before[1][:10_000]).any()


def test_the_hook_replaces_exactly_the_partners_decisions_and_does_not_learn_them():
    trainer = Trainer(_config(num_games=64))
    g = trainer.games
    pop = Population(("heuristic+bayes", "literal"), (), 0.25, 0.5, 64, 3, seed=2)
    partner_steps = 0
    for _ in range(60):
        obs, mask = trainer._observe()
        chosen = trainer.model.greedy(torch.from_numpy(obs), torch.from_numpy(mask)).numpy()
        learn = np.ones(64, bool)
        who = pop.deciding(g)
        actions, learn_after = pop.apply(g, chosen, mask, learn)
        decider = g.field("decider").astype(np.int64)
        expected = (decider >= 0) & pop.seat[np.arange(64), decider.clip(0)]
        assert ((who >= 0) == expected).all()
        assert (learn_after == ~expected).all()
        assert (actions[~expected] == chosen[~expected]).all()
        assert mask[np.arange(64), actions][decider >= 0].all()
        partner_steps += int(expected.sum())
        _, _, _, info = g.step(actions)
        pop.restart(np.flatnonzero(info["_final"]))
    assert partner_steps > 100


POP = {
    "method": "population",
    "partners": ["heuristic+bayes", "literal", f"noisy:0.1:fast:{NET}"],
    "weights": [1.0, 1.0, 2.0],
    "selfplay": 0.2,
}


def test_a_population_run_resumes_exactly_and_learns_only_its_own_steps(tmp_path):
    resumes_exactly_and_learns_fewer_steps(POP, tmp_path)


@pytest.mark.parametrize(
    ("zsc", "match"),
    [
        ({"method": "population"}, "one partner or more"),
        ({"method": "population", "partners": ["literal"], "weights": [1.0, 2.0]}, "weights"),
        ({"method": "population", "partners": ["convention"]}, "no batched twin"),
        ({"method": "random_partner", "partners": ["literal"]}, "method population"),
        ({"method": "population", "partners": ["literal"], "selfplay": 1.0}, "selfplay"),
    ],
)
def test_a_bad_population_setting_is_refused(zsc, match):
    with pytest.raises(ValueError, match=match):
        _config(zsc=zsc)


def test_partners_read_nothing_their_seat_cannot_see():
    """Twin games that differ only in the active seat's kept fate, the bag and the deck
    below its top, each with its own copy of the same seating and partner memories: the
    partners' group decisions are the same."""
    from twins import shuffle_deck_below_top, swap_held_fate

    env = GameSettings(num_players=3, difficulties=("normal",), belief="literal")
    real, twin = Games(env, 32, 8), Games(env, 32, 8)
    specs = ("heuristic+bayes", "literal", f"fast:{NET}")
    seen, other = (Population(specs, (), 0.0, 0.5, 32, 3, seed=3) for _ in range(2))
    rng = np.random.default_rng(8)
    learn = np.ones(32, bool)
    checked = 0
    for _ in range(150):
        mask = real.legal_mask()
        chosen = real.parts[0].random_legal(mask, rng)
        active = real.field("active").astype(np.int64) % 3
        group = np.flatnonzero((seen.deciding(real) >= 0) & (real.decider != active))
        twin.load_state_dict(real.state_dict())
        other.load_state_dict(seen.state_dict())
        arrays = twin.parts[0].arrays
        for g in group:
            seat = int(arrays.active[g])
            if arrays.hand_len[g, seat] == 1:
                checked += swap_held_fate(arrays, g, seat, rng)
            shuffle_deck_below_top(arrays, g, rng)
        actions, _ = seen.apply(real, chosen, mask, learn)
        hidden, _ = other.apply(twin, chosen, mask, learn)
        assert np.array_equal(actions[group], hidden[group])
        _, _, _, info = real.step(actions)
        seen.restart(np.flatnonzero(info["_final"]))
    assert checked > 100  # the twins did differ


def test_belief_actions_leave_only_the_learners_own_plays():
    pop = Population(("literal",), (), 0.0, 0.5, 4, 3, seed=0)
    chosen = np.array([3, 5, 7, 9])
    learn = np.array([True, False, True, False])
    out = pop.belief_actions(chosen, learn)
    assert out[learn].tolist() == [3, 7]
    assert not any(ACTIONS[a].kind == "play" for a in out[~learn])


def test_the_trainer_records_the_population_s_belief_actions():
    """``Trainer.collect`` hands the learner's belief the population's
    ``belief_actions`` (partners' plays read as passes), not the actions stepped."""
    trainer = Trainer(_config(num_games=64, env={"belief": "policy"}, zsc=POP))
    handed, recorded = [], []
    real_actions, real_record = trainer.zsc.belief_actions, trainer.belief.record

    def spy_actions(chosen, learn):
        out = real_actions(chosen, learn)
        handed.append(out.copy())
        return out

    def spy_record(g, obs, mask, actions, model):
        recorded.append(np.asarray(actions).copy())
        return real_record(g, obs, mask, actions, model)

    trainer.zsc.belief_actions, trainer.belief.record = spy_actions, spy_record
    trainer.collect()
    assert len(recorded) == len(handed) == trainer.cfg.rollout_steps
    for a, b in zip(handed, recorded, strict=True):
        assert (a == b).all()
    assert any((a == PASS).any() for a in handed)
