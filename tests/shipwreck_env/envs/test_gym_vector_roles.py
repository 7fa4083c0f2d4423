"""The batched ``Play`` / ``Predict`` vector envs (:mod:`shipwreck_env.envs.gym_roles`).

``gymnasium.make_vec`` gives them for both ids; spaces as the single env's; game for
game equal to the per-game env on the same deals with a deterministic partner (the
heuristic player, the Bayesian group; through their batched twins and through the
per-game fallback), observations, masks, rewards, ends and final infos compared at
every step of many random trajectories; the reference loop used for that is itself
checked against :class:`~shipwreck_env.envs.gym_env.ShipwreckGymEnv`; masks never empty;
seeding; bad arguments and actions; the docstring example.

Authority: the module docstring of ``shipwreck_env/envs/gym_roles.py``.
"""

from __future__ import annotations

import re

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import SyncVectorEnv
from test_gym_vector import twin_envs_and_actions

import shipwreck_env  # noqa: F401 -- registers the ids
from shipwreck_agents.registry import make_policy
from shipwreck_agents.scripted.bayes import BayesGroup
from shipwreck_agents.scripted.heuristic import HeuristicPlayer
from shipwreck_agents.scripted.twins import check_decisions, twin_of
from shipwreck_env.envs.gym_env import ShipwreckGymEnv
from shipwreck_env.envs.gym_roles import ShipwreckRoleVectorEnv
from shipwreck_env.envs.policy import Policy, decide, observation_layouts
from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.observation import ObservationLayout, encode
from shipwreck_env.rules.rewards import team_reward
from shipwreck_env.vector import gym_roles
from shipwreck_env.vector.chance import StreamGenerator, game_keys

N = 6
IDS = {"play": "ShipwreckArcana-Play-v0", "predict": "ShipwreckArcana-Predict-v0"}
CONFIGS = [
    dict(max_turns=4),
    dict(num_players=2, challenge_mode=True, reward="score_doom", max_turns=5),
    dict(num_players=5, group_decision="vote", belief=True, difficulty="doomed", max_turns=4),
    dict(num_players=4, reveal=False, difficulty="hard", card_sets="all"),
]


def _id(kwargs: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in kwargs.items())


def make(role: str, num_envs: int = N, **kwargs) -> ShipwreckRoleVectorEnv:
    env = gymnasium.make_vec(
        IDS[role], num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs
    )
    assert isinstance(env, ShipwreckRoleVectorEnv)
    return env


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    assert mask.dtype == bool and mask.any(axis=1).all(), "every game has a legal action"
    return (rng.random(mask.shape) * mask).argmax(axis=1)


class NoTwin(Policy):
    """``policy`` without its batched twin: the env must ask it game by game."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.name = f"no twin {policy.name}"
        self.needs_observation = policy.needs_observation

    def reset(self) -> None:
        self.policy.reset()

    def act(self, observation, mask, view, rng, state=None) -> int:
        return self.policy.act(observation, mask, view, rng, state)


class ReferenceGame:
    """One game as :class:`ShipwreckGymEnv` plays it (its ``_advance`` / ``step``,
    restated with public functions): the partner decides until the learner must, the
    team reward is summed over the learner's decision and the partner's after it. A
    dealt game that ends before the learner decides is dealt again (as the vector env
    documents; the single env cannot deal again)."""

    def __init__(self, config: GameConfig, rng, role: str, partner: Policy, reward: str):
        self.config, self.rng, self.role, self.partner = config, rng, role, partner
        self.reward_kind = reward
        self.layouts = observation_layouts(config)
        self.partner_rng = np.random.default_rng(0)  # the partners compared are deterministic
        self.deal()

    def deal(self) -> None:
        while True:
            self.state = new_game(self.config, self.rng)
            self.partner.reset()
            self.advance()
            if not self.state.over:
                return

    def learner_decides(self) -> bool:
        s = self.state
        return (s.decider == s.active_player) == (self.role == "play")

    def advance(self) -> None:
        s = self.state
        while not s.over and not self.learner_decides():
            step_inplace(
                s, decide(self.partner, s, self.layouts, self.partner_rng).action, self.rng
            )
        if not s.over:
            self.player = s.decider

    def mask(self) -> np.ndarray:
        out = np.zeros(NUM_ACTIONS, bool)
        out[legal_actions(self.state)] = True
        return out

    def step(self, action: int) -> float:
        s = self.state
        score, doom = s.score, s.doom
        step_inplace(s, action, self.rng)
        self.advance()
        return team_reward(self.reward_kind, s, score, doom)


def compare(role: str, partner, make_partner, steps: int, seed: int = 3, **kwargs) -> int:
    """Run the vector env and one :class:`ReferenceGame` per game on the same deals for
    ``steps`` random learner steps; assert every output equal. Returns the games ended."""
    env = make(role, partner=partner, **kwargs)
    obs, infos = env.reset(seed=seed)
    assert sorted(k for k in infos if not k.startswith("_")) == [
        "action_mask",
        "doom",
        "score",
        "won",
    ]
    config = env.config
    layout = ObservationLayout.for_config(config, kwargs.get("belief", False))
    reward = kwargs.get("reward", "win_loss")
    refs = [
        ReferenceGame(config, StreamGenerator(int(k)), role, make_partner(), reward)
        for k in game_keys(seed, N)
    ]
    rng = np.random.default_rng(seed)
    ended_total = 0
    for step in range(steps):
        mask = env.action_masks()
        np.testing.assert_array_equal(infos["action_mask"], mask)
        for g, ref in enumerate(refs):
            where = f"step {step} game {g}"
            np.testing.assert_array_equal(mask[g], ref.mask(), err_msg=where)
            np.testing.assert_array_equal(obs[g], encode(ref.state, ref.player, layout), where)
            assert env.decider[g] == ref.player, where
        actions = random_actions(mask, rng)
        obs, rewards, terms, truncs, infos = env.step(actions)
        for g, ref in enumerate(refs):
            where = f"step {step} game {g}"
            player = ref.player
            assert rewards[g] == ref.step(int(actions[g])), where
            s = ref.state
            assert terms[g] == (s.over and not s.truncated), where
            assert truncs[g] == (s.over and s.truncated), where
            if not s.over:
                assert "final_info" not in infos or not infos["_final_info"][g], where
                assert (infos["score"][g], infos["doom"][g]) == (s.score, s.doom), where
                continue
            np.testing.assert_array_equal(infos["final_obs"][g], encode(s, player, layout), where)
            final = infos["final_info"]
            assert (final["score"][g], final["doom"][g], final["won"][g]) == (
                s.score,
                s.doom,
                s.won,
            ), where
            ref.deal()
            ended_total += 1
    return ended_total


# --- the reference loop is the single env ----------------------------------------------


@pytest.mark.parametrize("role", ["play", "predict"])
def test_the_reference_loop_plays_as_the_single_env(role):
    """:class:`ReferenceGame` on the single env's own deal (its generator seeded as
    ``reset(seed=s)`` seeds it) gives the single env's observations, masks, rewards and
    ends: the differential tests below compare the vector env with the single env."""
    for seed in range(3):
        single = ShipwreckGymEnv(role=role, partner=BayesGroup(), num_players=3, max_turns=6)
        obs, _ = single.reset(seed=seed)
        ref = ReferenceGame(
            single.config, np.random.default_rng(seed), role, BayesGroup(), "win_loss"
        )
        rng = np.random.default_rng(seed)
        layout = single.layout
        while True:
            np.testing.assert_array_equal(obs, encode(ref.state, ref.player, layout))
            np.testing.assert_array_equal(single.action_masks(), ref.mask())
            action = int(random_actions(single.action_masks()[None], rng)[0])
            obs, reward, terminated, truncated, info = single.step(action)
            assert reward == ref.step(action)
            assert (terminated, truncated) == (
                ref.state.over and not ref.state.truncated,
                ref.state.truncated,
            )
            if terminated or truncated:
                assert (info["score"], info["won"]) == (ref.state.score, ref.state.won)
                break


# --- game for game equal to the per-game env -------------------------------------------


@pytest.mark.parametrize("kwargs", CONFIGS, ids=_id)
@pytest.mark.parametrize("role", ["play", "predict"])
def test_equals_the_per_game_env_with_the_heuristic_partner(role, kwargs):
    ended = compare(role, HeuristicPlayer(), HeuristicPlayer, steps=120, **kwargs)
    assert ended > 0


@pytest.mark.parametrize("kwargs", CONFIGS[:3], ids=_id)
def test_play_equals_the_per_game_env_with_the_bayesian_group(kwargs):
    """The batched Bayesian group, memory across turns and games included."""
    ended = compare("play", make_policy("bayes"), BayesGroup, steps=100, **kwargs)
    assert ended > 0


def test_predict_equals_the_per_game_env_with_the_bayesian_group_playing():
    assert compare("predict", BayesGroup(), BayesGroup, steps=100, max_turns=4) > 0


@pytest.mark.slow
@pytest.mark.parametrize("kwargs", CONFIGS, ids=_id)
def test_play_with_the_bayesian_group_over_long_games(kwargs):
    long = {**kwargs, "max_turns": 200}
    assert compare("play", BayesGroup(), BayesGroup, steps=300, seed=9, **long) > 0


@pytest.mark.parametrize("role", ["play", "predict"])
def test_the_per_game_fallback_equals_the_per_game_env(role):
    """A partner without a batched twin is asked game by game; one copy per game place
    because it keeps memory (``NoTwin`` of the Bayesian group)."""
    ended = compare(role, NoTwin(BayesGroup()), lambda: NoTwin(BayesGroup()), steps=60, max_turns=4)
    assert ended > 0


def test_a_plain_callable_partner_runs_game_by_game_as_the_single_env_asks_it():
    heuristic = HeuristicPlayer()
    ended = compare("play", heuristic.__call__, HeuristicPlayer, steps=60, max_turns=3)
    assert ended > 0


# --- partners ----------------------------------------------------------------------------


def test_twins_are_offered_for_the_heuristic_and_the_bayesian_group_only():
    config = GameConfig()
    for policy in (HeuristicPlayer(), BayesGroup()):
        for decisions in ("play", "group"):
            assert policy.batched(4, config, decisions) is not None
    for spec in ("random", "literal", "convention"):
        for decisions in ("play", "group"):
            assert make_policy(spec).batched(4, config, decisions) is None
    assert BayesGroup(model=make_policy("random")).batched(4, config, "group") is None
    assert twin_of(NoTwin(HeuristicPlayer()), 4, config, "play") is None
    with pytest.raises(ValueError, match=r"decisions 'both' are not allowed; allowed: \['play'"):
        check_decisions("both")


def test_the_default_random_partner_never_leaves_an_empty_mask_and_follows_the_seed():
    def trajectory(role: str, seed: int) -> list[np.ndarray]:
        env = make(role, max_turns=3, num_players=4)
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = [obs]
        for _ in range(80):
            step = env.step(random_actions(env.action_masks(), rng))
            out += list(step[:4])
        return out

    for role in ("play", "predict"):
        a, b = trajectory(role, 5), trajectory(role, 5)
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
        assert not np.array_equal(a[0], trajectory(role, 6)[0])


def test_record_episode_statistics_adds_up_the_learner_steps_and_rewards():
    """Gymnasium's vector wrapper reads the SAME_STEP metadata: an episode's length is
    the learner's steps in it and its return the rewards the learner got."""
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        make("predict", partner=HeuristicPlayer(), reward="score_doom", max_turns=3)
    )
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    returns, lengths, episodes = np.zeros(N), np.zeros(N, int), 0
    for _ in range(100):
        _, rewards, terms, truncs, infos = env.step(
            random_actions(env.unwrapped.action_masks(), rng)
        )
        returns += rewards
        lengths += 1
        ended = terms | truncs
        if ended.any():
            np.testing.assert_allclose(infos["episode"]["r"][ended], returns[ended])
            np.testing.assert_array_equal(infos["episode"]["l"][ended], lengths[ended])
            returns[ended], lengths[ended] = 0, 0
            episodes += int(ended.sum())
    assert episodes > 0


# --- making it, arguments, errors ----------------------------------------------------------


@pytest.mark.parametrize("role", ["play", "predict"])
def test_make_vec_gives_the_batched_env_with_the_single_envs_spaces(role):
    env = make(role, num_players=4, belief=True)
    single = ShipwreckGymEnv(role=role, num_players=4, belief=True)
    assert env.role == role and env.spec.id == IDS[role]
    assert env.single_observation_space == single.observation_space
    assert env.single_action_space == single.action_space
    assert env.action_space == gymnasium.spaces.MultiDiscrete([NUM_ACTIONS] * N)
    default = gymnasium.make_vec(IDS[role], num_envs=2)
    assert isinstance(default, ShipwreckRoleVectorEnv)
    sync = gymnasium.make_vec(IDS[role], num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, SyncVectorEnv)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(partner=3), r"partner 3 is not allowed; allowed: None, a shipwreck_env"),
        (dict(illegal_action="terminate"), "unknown"),
        (dict(render_mode="human"), "render_mode"),
        (dict(reward="points"), "reward"),
        (dict(num_players=9), "num_players"),
    ],
    ids=lambda v: v if isinstance(v, str) else _id(v),
)
def test_bad_arguments_raise_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make("play", **kwargs)


def test_the_self_play_role_is_not_taken():
    with pytest.raises(ValueError, match=r"role 'self' is not allowed; allowed: \['play', 'pre"):
        ShipwreckRoleVectorEnv(2, role="self")


def test_bad_actions_raise_and_change_nothing():
    with pytest.raises(RuntimeError, match="reset"):
        make("play").step(np.zeros(N, np.int64))
    env, twin, legal, illegal = twin_envs_and_actions(
        lambda: make("play", partner=HeuristicPlayer())
    )
    before = env.game.to_states()
    for bad, match in (
        (legal[:-1], "shape"),
        (legal.astype(np.float64), "dtype"),
        (np.where(np.arange(N) == 2, NUM_ACTIONS, legal), "game 2 is not legal"),
        (np.where(np.arange(N) == 1, -1, legal), "game 1 is not legal"),
        (illegal, "in game 3 is not legal, no game changed; legal: "),
    ):
        with pytest.raises(ValueError, match=match):
            env.step(bad)
    assert env.game.to_states() == before
    for x, y in zip(env.step(legal)[:4], twin.step(legal)[:4], strict=True):
        np.testing.assert_array_equal(x, y)


def test_a_partner_choosing_an_illegal_action_is_named():
    from shipwreck_env.rules.engine import IllegalActionError

    env = make("play", partner=lambda observation, view, rng: 258)
    with pytest.raises(IllegalActionError, match="partner"):
        env.reset(seed=0)
        env.step(random_actions(env.action_masks(), np.random.default_rng(0)))


def test_docstring_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", gym_roles.__doc__, flags=re.DOTALL)
    assert len(blocks) == 1
    namespace: dict = {}
    exec(compile(blocks[0], "gym_roles docstring", "exec"), namespace)
    assert namespace["envs"].closed and namespace["games"] > 0
