"""The batched engine against the reference engine: after every step of many random
games, every game's state (``to_states()``), legal mask, observation, reward and end
flags must equal the reference's, with both engines drawing from the same per-game
random streams (``vector.chance``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from shipwreck_env.rules.config import DIFFICULTIES, GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.observation import ObservationLayout, encode
from shipwreck_env.rules.rewards import team_reward
from shipwreck_env.rules.state import State
from shipwreck_env.vector import VectorGame
from shipwreck_env.vector.chance import StreamGenerator

BASE_FAMILIES = {
    "leader": [
        dict(num_players=p, difficulty=d, group_decision="leader")
        for p, d in itertools.product((2, 3, 4, 5), DIFFICULTIES)
    ],
    "vote": [
        dict(num_players=p, difficulty=d, group_decision="vote")
        for p, d in itertools.product((3, 4, 5), DIFFICULTIES)
    ],
    "no_reveal": [
        dict(num_players=p, reveal=False, group_decision=g)
        for p, g in itertools.product((2, 3, 4, 5), ("leader", "vote"))
    ],
    "challenge": [
        dict(num_players=2, challenge_mode=True, difficulty=d, group_decision=g)
        for d, g in itertools.product(DIFFICULTIES, ("leader", "vote"))
    ],
    "max_turns": [dict(num_players=p, max_turns=t) for p, t in ((2, 3), (3, 8), (5, 20))],
}


def _first_difference(a: State, b: State) -> str:
    for name in State.__slots__:
        if getattr(a, name) != getattr(b, name):
            return f"{name}: reference {getattr(a, name)!r}, batched {getattr(b, name)!r}"
    return ""


def run_differential(
    config: dict,
    num_games: int,
    steps: int,
    seed: int,
    *,
    reward: str = "win_loss",
    belief: bool = False,
) -> tuple[str, int]:
    """Step ``num_games`` batched games and their reference twins ``steps`` times with
    random legal actions; return (the first disagreement or "", games finished)."""
    vg = VectorGame(num_games, seed, reward=reward, belief=belief, **config)
    cfg = GameConfig(**config)
    layout = ObservationLayout.for_config(cfg, belief=belief)
    rngs = [StreamGenerator(int(k)) for k in vg.arrays.key]
    refs = [new_game(cfg, rng) for rng in rngs]
    policy = np.random.default_rng(seed)
    finished = 0
    for t in range(steps):
        mask = vg.legal_mask()
        obs = vg.observe()
        actions = np.zeros(num_games, np.int64)
        for g, s in enumerate(refs):
            legal = legal_actions(s)
            if np.flatnonzero(mask[g]).tolist() != legal:
                return f"step {t} game {g}: mask {np.flatnonzero(mask[g]).tolist()} != {legal}", 0
            expected = encode(s, s.decider, layout)
            if not np.array_equal(obs[g], expected):
                field = next(
                    f.name
                    for f in layout.fields
                    if not np.array_equal(obs[g][f.slice], expected[f.slice])
                )
                return f"step {t} game {g}: observation field {field!r} differs", 0
            actions[g] = legal[int(policy.random() * len(legal))]
        reward, terminated, truncated = vg.step(actions)
        for g, s in enumerate(refs):
            score, doom = s.score, s.doom
            step_inplace(s, int(actions[g]), rngs[g])
            expected = team_reward(vg.reward_kind, s, score, doom)
            if reward[g] != expected:
                return f"step {t} game {g}: reward {reward[g]} != {expected}", 0
            if terminated[g] != (s.over and not s.truncated) or truncated[g] != s.truncated:
                return f"step {t} game {g}: end flags {terminated[g]}/{truncated[g]}", 0
            if s.over:
                info = vg.final_info
                if (info["score"][g], info["doom"][g], info["won"][g]) != (s.score, s.doom, s.won):
                    return f"step {t} game {g}: final info differs", 0
                finished += 1
                refs[g] = new_game(cfg, rngs[g])  # the batched game restarted the same way
        for g, (got, ref) in enumerate(zip(vg.to_states(), refs, strict=True)):
            if got != ref:
                return f"step {t} game {g}: state differs: {_first_difference(ref, got)}", 0
    return "", finished


@pytest.mark.parametrize("family", sorted(BASE_FAMILIES))
def test_batched_engine_agrees_with_the_reference_on_every_step(family: str) -> None:
    for i, config in enumerate(BASE_FAMILIES[family]):
        problem, finished = run_differential(config, 12, 120, seed=100 + i)
        assert not problem, f"{config}: {problem}"
        assert finished > 0, f"{config}: no game finished; the check saw no game end"


def test_batched_engine_agrees_with_score_doom_rewards_and_belief_observations() -> None:
    problem, _ = run_differential(
        dict(num_players=3, difficulty="hard"), 16, 150, seed=7, reward="score_doom", belief=True
    )
    assert not problem, problem


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(BASE_FAMILIES))
def test_batched_engine_agrees_over_hundreds_of_games(family: str) -> None:
    """Random play over many more games than the quick check. Long games, strong teams and
    crafted edge states have their own families (test_vector_whole_game.py,
    test_vector_sets.py), so this one stays at a few hundred random games per family."""
    configs = BASE_FAMILIES[family]
    games = 0
    for i, config in enumerate(configs):
        per = max(720 // len(configs), 40)
        problem, finished = run_differential(config, per, 200, seed=1000 + i)
        assert not problem, f"{config}: {problem}"
        games += finished
    assert games >= 400, f"only {games} games finished in family {family}"


def test_the_differential_check_catches_a_planted_rule_change(monkeypatch) -> None:
    """A one-line change of the batched rules' tables (The Beast fading at 2 moons
    instead of 1) must be reported: the check above can fail."""
    from shipwreck_env.vector import tables

    moons = tables.CARD_MOONS.copy()
    moons[0] += 1  # card 0 is The Beast
    monkeypatch.setattr(tables, "CARD_MOONS", moons)  # read when a batch is made
    problem, _ = run_differential(dict(num_players=3), 16, 120, seed=3)
    assert problem, "a planted rules change went unnoticed"
