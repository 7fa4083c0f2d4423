"""The single-agent Gymnasium environments (:mod:`shipwreck_env.envs.gym_env`).

``ShipwreckArcana-v0`` (self-play), ``ShipwreckArcana-Play-v0`` (the learner is the
active player) and ``ShipwreckArcana-Predict-v0`` (the learner is the group): made with
``gymnasium.make``, checked with Gymnasium's ``check_env``; who the learner is asked
for; partner callables; seeding; ``action_masks``; bad and illegal actions; rewards;
and a short MaskablePPO run on each id (``slow``).

Authority: the module docstring of ``shipwreck_env/envs/gym_env.py``.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import shipwreck_env  # noqa: F401 -- registers the ids
from shipwreck_env.envs.gym_env import ENDED_ACTION, ShipwreckGymEnv
from shipwreck_env.envs.policy import Policy
from shipwreck_env.rules.actions import NUM_ACTIONS, PASS
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import IllegalActionError, legal_actions, new_game, step_inplace
from shipwreck_env.rules.observation import ObservationLayout, encode
from shipwreck_env.rules.state import Phase, State
from shipwreck_env.rules.view import AgentView, make_view

IDS = {
    "ShipwreckArcana-v0": "self",
    "ShipwreckArcana-Play-v0": "play",
    "ShipwreckArcana-Predict-v0": "predict",
}
CONFIGS = [
    dict(num_players=3),
    dict(num_players=4, card_sets="all", difficulty="easy"),
    dict(num_players=2, challenge_mode=True),
    dict(num_players=3, group_decision="vote", card_sets="all"),
    dict(num_players=5, reveal=False, reward="score_doom", belief=True),
]


def _id(kwargs: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in kwargs.items())


def make(env_id: str, **kwargs) -> ShipwreckGymEnv:
    env = gymnasium.make(env_id, **kwargs)
    assert isinstance(env.unwrapped, ShipwreckGymEnv)
    return env.unwrapped


def learner_action(env: ShipwreckGymEnv, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(env.action_masks())
    return int(legal[rng.integers(len(legal))])


def config_of(kwargs: dict) -> GameConfig:
    return GameConfig(
        **{k: v for k, v in kwargs.items() if k not in ("reward", "belief", "render_mode")}
    )


# --- make, check_env ---------------------------------------------------------------------


@pytest.mark.parametrize("env_id", list(IDS))
def test_make_with_config_kwargs(env_id: str) -> None:
    env = gymnasium.make(
        env_id, num_players=4, difficulty="easy", card_sets="all", reward="score_doom", belief=True
    )
    raw = env.unwrapped
    assert raw.role == IDS[env_id]
    assert raw.config == GameConfig(num_players=4, difficulty="easy", card_sets="all")
    assert raw.reward_kind == "score_doom"
    layout = ObservationLayout(4, belief=True)
    assert env.observation_space.shape == (layout.size,)
    assert env.action_space == gymnasium.spaces.Discrete(NUM_ACTIONS)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    assert obs.dtype == np.float32
    assert sorted(info) == ["action_mask", "doom", "score", "won"]
    assert (info["score"], info["won"]) == (0, False)
    np.testing.assert_array_equal(info["action_mask"], raw.action_masks())
    env.close()


@pytest.mark.parametrize("kwargs", CONFIGS, ids=_id)
@pytest.mark.parametrize("env_id", list(IDS))
def test_check_env(env_id: str, kwargs: dict) -> None:
    env = gymnasium.make(env_id, **kwargs)
    check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("env_id", list(IDS))
def test_check_env_with_render(env_id: str, capsys: pytest.CaptureFixture) -> None:
    check_env(gymnasium.make(env_id, render_mode="ansi").unwrapped)
    check_env(gymnasium.make(env_id, render_mode="human").unwrapped)


# --- who the learner is -------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", CONFIGS, ids=_id)
@pytest.mark.parametrize("env_id", list(IDS))
def test_learner_asked_only_for_its_role(env_id: str, kwargs: dict) -> None:
    """Play-v0 asks the learner exactly when the active player decides, Predict-v0
    exactly when somebody else does, v0 always (its partner is never called). The
    observation is the deciding player's, and partners are asked the other decisions."""
    role = IDS[env_id]
    partner_decisions = []

    def partner(obs, view, rng):
        s = env.state
        partner_decisions.append(s.decider == s.active_player)
        legal = np.flatnonzero(obs["action_mask"])
        return int(legal[rng.integers(len(legal))])

    env = make(env_id, partner=partner, **kwargs)
    rng = np.random.default_rng(0)
    learner_decisions = []
    layout = ObservationLayout.for_config(env.config, kwargs.get("belief", False))
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            s = env.state
            assert not s.over
            learner_decisions.append(s.decider == s.active_player)
            assert np.array_equal(obs, encode(s, s.decider, layout))
            assert env.view().player == s.decider
            obs, _, term, trunc, _ = env.step(learner_action(env, rng))
            done = term or trunc
    assert learner_decisions
    if role == "self":
        assert partner_decisions == []
        assert True in learner_decisions and False in learner_decisions
    elif role == "play":
        assert all(learner_decisions) and partner_decisions and not any(partner_decisions)
    else:
        assert not any(learner_decisions) and partner_decisions and all(partner_decisions)


@pytest.mark.parametrize("env_id", ["ShipwreckArcana-Play-v0", "ShipwreckArcana-Predict-v0"])
def test_custom_partner_called_with_obs_view_rng_and_obeyed(env_id: str) -> None:
    """The partner gets ({"observation", "action_mask"}, AgentView, Generator) for the
    deciding player; the game is exactly the engine game of the learner's and the
    partner's actions in turn."""
    kwargs = dict(num_players=3, card_sets="all", difficulty="easy")
    config = config_of(kwargs)
    layout = ObservationLayout.for_config(config)
    log: list[int] = []
    calls = 0

    def partner(obs, view, rng):
        nonlocal calls
        calls += 1
        s = env.state
        assert set(obs) == {"observation", "action_mask"}
        assert obs["observation"].dtype == np.float32
        assert np.array_equal(obs["observation"], encode(s, s.decider, layout))
        assert obs["action_mask"].shape == (NUM_ACTIONS,)
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal_actions(s)
        assert isinstance(view, AgentView)
        assert view == make_view(s, s.decider)
        assert isinstance(rng, np.random.Generator)
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[-1]) if s.phase != Phase.REVEAL else PASS  # a recognisable rule
        log.append(action)
        return action

    env = make(env_id, partner=partner, **kwargs)
    choice = np.random.default_rng(1)
    for seed in range(3):
        log.clear()
        env.reset(seed=seed)
        done = False
        while not done:
            action = learner_action(env, choice)
            log.append(action)
            _, _, term, trunc, _ = env.step(action)
            done = term or trunc
        rng = np.random.default_rng(seed)
        s = new_game(config, rng)
        for action in log:
            step_inplace(s, action, rng)
        assert s == env.state
    assert calls > 0


@pytest.mark.parametrize("env_id", ["ShipwreckArcana-Play-v0", "ShipwreckArcana-Predict-v0"])
@pytest.mark.parametrize("bad", ["illegal", "out_of_range"])
def test_partner_illegal_action_raises_value_error(env_id: str, bad: str) -> None:
    def partner(obs, view, rng):
        if bad == "out_of_range":
            return NUM_ACTIONS + 5
        return int(np.flatnonzero(obs["action_mask"] == 0)[0])

    env = make(env_id, partner=partner, num_players=3)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="partner"):
        env.reset(seed=0)
        for _ in range(200):
            env.step(learner_action(env, rng))


def test_partner_must_be_callable() -> None:
    with pytest.raises(ValueError, match="partner"):
        gymnasium.make("ShipwreckArcana-Play-v0", partner=3)


# --- seeding -----------------------------------------------------------------------------


def comparable(info: dict) -> dict:
    """``info`` with its mask as a list, so that two infos compare with ``==``."""
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items()}


def episode(env: ShipwreckGymEnv, seed: int | None, choice_seed: int) -> list:
    rng = np.random.default_rng(choice_seed)
    obs, info = env.reset(seed=seed)
    out = [(obs.tolist(), comparable(info))]
    done = False
    while not done:
        action = learner_action(env, rng)
        obs, reward, term, trunc, info = env.step(action)
        out.append((action, obs.tolist(), reward, term, trunc, comparable(info), env.state.copy()))
        done = term or trunc
    return out


@pytest.mark.parametrize("env_id", list(IDS))
def test_reset_seed_determinism_with_partners(env_id: str) -> None:
    """Same seed and learner actions: the same episode, partner choices included (two
    envs, and one env reset twice); unseeded resets follow the first seed."""
    kwargs = dict(num_players=4, card_sets="all", difficulty="easy")
    a, b = make(env_id, **kwargs), make(env_id, **kwargs)
    for seed in (0, 7):
        first = episode(a, seed, 3)
        assert episode(b, seed, 3) == first
        assert episode(a, seed, 3) == first
    # unseeded resets: determined by the last seeded reset
    episode(a, 11, 1)
    episode(b, 11, 1)
    assert episode(a, None, 2) == episode(b, None, 2)
    # different seeds give different games
    starts = {str(make(env_id, **kwargs).reset(seed=s)[0].tolist()) for s in range(8)}
    assert len(starts) > 3


def test_partner_randomness_follows_the_seed() -> None:
    """The default random partner draws from the seeded generator: with the same game
    seed the partners repeat their choices; over seeds they vary."""
    seen = set()
    for seed in range(6):
        choices = []

        def spy(obs, view, rng, choices=choices):
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(len(legal))])
            choices.append(action)
            return action

        env = make("ShipwreckArcana-Predict-v0", partner=spy, num_players=3)
        episode(env, seed, 0)
        again = list(choices)
        choices.clear()
        episode(env, seed, 0)
        assert choices == again
        seen.add(tuple(again))
    assert len(seen) > 1


# --- masks, bad actions, rewards -----------------------------------------------------------


@pytest.mark.parametrize("kwargs", CONFIGS, ids=_id)
@pytest.mark.parametrize("env_id", list(IDS))
def test_action_masks_are_the_legal_set(env_id: str, kwargs: dict) -> None:
    env = make(env_id, **kwargs)
    rng = np.random.default_rng(2)
    for seed in range(3):
        env.reset(seed=seed)
        done = False
        while not done:
            mask = env.action_masks()
            assert mask.dtype == bool and mask.shape == (NUM_ACTIONS,)
            assert np.flatnonzero(mask).tolist() == legal_actions(env.state)
            _, _, term, trunc, _ = env.step(learner_action(env, rng))
            done = term or trunc
        assert np.flatnonzero(env.action_masks()).tolist() == [ENDED_ACTION]


@pytest.mark.parametrize("env_id", list(IDS))
def test_out_of_space_action_raises_value_error(env_id: str) -> None:
    env = make(env_id, num_players=3)
    env.reset(seed=0)
    before = env.state.copy()
    for bad in (NUM_ACTIONS, -1, 1.5, "pass", None):
        with pytest.raises(ValueError, match="action"):
            env.step(bad)
        assert env.state == before
    env.step(np.int64(learner_action(env, np.random.default_rng(0))))  # numpy ints work


@pytest.mark.parametrize("env_id", list(IDS))
def test_illegal_action_ends_episode_with_minus_one(env_id: str) -> None:
    env = make(env_id, num_players=3)
    rng = np.random.default_rng(0)
    for seed in range(5):
        env.reset(seed=seed)
        for _ in range(seed):  # at different moments of the game
            _, _, term, trunc, _ = env.step(learner_action(env, rng))
            if term or trunc:
                env.reset(seed=100 + seed)
        illegal = int(np.flatnonzero(~env.action_masks())[0])
        obs, reward, term, trunc, info = env.step(illegal)
        assert reward == -1.0
        assert term is True and trunc is False
        assert "illegal_action" in info and str(illegal) in info["illegal_action"]
        assert env.observation_space.contains(obs)
    raising = make(env_id, num_players=3, illegal_action="raise")
    raising.reset(seed=0)
    before = raising.state.copy()
    with pytest.raises(IllegalActionError):
        raising.step(int(np.flatnonzero(~raising.action_masks())[0]))
    assert raising.state == before


def test_step_after_end_raises() -> None:
    env = make("ShipwreckArcana-v0", num_players=3)
    episode(env, 0, 0)
    with pytest.raises(RuntimeError):
        env.step(PASS)


@pytest.mark.parametrize("env_id", list(IDS))
def test_rewards(env_id: str) -> None:
    """score_doom: the episode's rewards add up to score minus added doom (partner steps
    included); win_loss: 0 until the end, then +1 / -1; end info score, doom, won."""
    for reward_kind in ("score_doom", "win_loss"):
        env = make(env_id, num_players=3, difficulty="easy", reward=reward_kind)
        for seed in range(8):
            steps = episode(env, seed, seed)
            s: State = steps[-1][-1]
            rewards = [step[2] for step in steps[1:]]
            if reward_kind == "score_doom":
                assert sum(rewards) == s.score - s.doom  # easy: doom starts at 0
            else:
                expected = 0.0 if s.truncated else (1.0 if s.won else -1.0)
                assert rewards[:-1] == [0.0] * (len(rewards) - 1)
                assert rewards[-1] == expected
            end = {
                "score": s.score,
                "doom": s.doom,
                "won": s.won,
                "action_mask": [True] + [False] * (NUM_ACTIONS - 1),
            }
            assert steps[-1][5] == end
            assert not any(step[5]["won"] for step in steps[1:-1])


BAD_GYM_KWARGS = [
    ("role", "coach", "'coach'"),
    ("reward", "x", "'x'"),
    ("render_mode", 5, "5"),
    ("illegal_action", "ignore", "'ignore'"),
    ("num_players", 6, "6"),
]


@pytest.mark.parametrize(("name", "value", "shown"), BAD_GYM_KWARGS)
def test_bad_kwargs(name: str, value: object, shown: str) -> None:
    with pytest.raises(ValueError, match=shown):
        ShipwreckGymEnv(**{name: value})


def test_render_hides_hands() -> None:
    env = make("ShipwreckArcana-v0", num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "seat 0 (player 0): holds [?] [?];" in text  # the active seat's two fates


# --- learning runs --------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", list(IDS))
def test_maskable_ppo_learns_a_little(env_id: str) -> None:
    """MaskablePPO (sb3-contrib) runs on each id, reading ``action_masks()`` (about a
    second each once torch is loaded, so not marked slow)."""
    import torch
    from sb3_contrib import MaskablePPO

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny networks: extra threads only fight over the cores
    try:
        env = gymnasium.make(env_id, num_players=3, card_sets="all")
        model = MaskablePPO(
            "MlpPolicy", env, n_steps=64, batch_size=32, seed=0, verbose=0, device="cpu"
        )
        model.learn(total_timesteps=256)
    finally:
        torch.set_num_threads(threads)
    assert model.num_timesteps >= 256
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks())
    assert env.unwrapped.action_masks()[int(action)]


# --- masks and info at every step, vector modes ----------------------------------------


@pytest.mark.parametrize("env_id", list(IDS))
def test_action_masks_before_reset_is_a_clear_error(env_id: str) -> None:
    env = make(env_id)
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        env.action_masks()
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        env.view()


@pytest.mark.parametrize("env_id", list(IDS))
def test_info_has_the_same_keys_at_every_step_and_the_mask_of_action_masks(env_id: str) -> None:
    env = make(env_id, num_players=3)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=5)
    keys = set(info)
    done = False
    while not done:
        assert info["action_mask"].dtype == np.int8  # what Discrete.sample(mask=) takes
        assert env.action_space.contains(env.action_space.sample(mask=info["action_mask"]))
        np.testing.assert_array_equal(info["action_mask"], env.action_masks())
        assert (info["score"], info["doom"]) == (env.state.score, env.state.doom)
        _, _, term, trunc, info = env.step(learner_action(env, rng))
        assert set(info) == keys
        done = term or trunc
    assert info["won"] == env.state.won


@pytest.mark.parametrize("illegal", [False, True])
def test_an_ended_episode_allows_exactly_the_ended_action(illegal: bool) -> None:
    env = make("ShipwreckArcana-Play-v0", num_players=3)
    rng = np.random.default_rng(1)
    env.reset(seed=2)
    done = False
    while not done:
        mask = env.action_masks()
        action = int(np.flatnonzero(~mask)[0]) if illegal else learner_action(env, rng)
        _, _, term, trunc, info = env.step(action)
        done = term or trunc
    mask = env.action_masks()
    assert np.flatnonzero(mask).tolist() == [ENDED_ACTION]
    np.testing.assert_array_equal(info["action_mask"], mask)
    with pytest.raises(RuntimeError, match="after the episode ended"):
        env.step(ENDED_ACTION)


def _masked_sample(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A CleanRL-style masked sampler: fails on a row with no legal action."""
    assert mask.shape[1] == NUM_ACTIONS
    empty = ~mask.any(axis=1)
    assert not empty.any(), f"empty mask in envs {np.flatnonzero(empty).tolist()}"
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask])


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_vector_modes_never_hand_a_sampler_an_empty_mask(mode: str) -> None:
    """Gymnasium's default vector envs reset an ended game on the next step: the mask
    they show for it (from ``action_masks`` or from the stacked info) is never empty."""
    envs = gymnasium.make_vec(
        "ShipwreckArcana-Play-v0", num_envs=3, vectorization_mode=mode, num_players=2
    )
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=11)
    ends = 0
    for _ in range(150):
        called = np.stack(envs.call("action_masks"))
        np.testing.assert_array_equal(info["action_mask"], called)
        _, _, term, trunc, info = envs.step(_masked_sample(called, rng))
        ends += int(np.sum(term | trunc))
    envs.close()
    assert ends >= 3  # the reset steps after game ends were exercised


def test_sync_vector_envs_do_not_share_a_partner_that_keeps_memory() -> None:
    """``make_vec(..., "sync", partner=P)`` hands one object to every env; a partner with
    memory (the Bayesian group) must play each game as if it were alone there."""
    from shipwreck_agents.registry import make_policy

    partner = make_policy("bayes")
    envs = gymnasium.make_vec(
        "ShipwreckArcana-Play-v0", num_envs=2, vectorization_mode="sync", partner=partner
    )
    alone = [make("ShipwreckArcana-Play-v0", partner=make_policy("bayes")) for _ in range(2)]
    obs, _ = envs.reset(seed=[3, 4])
    for i, env in enumerate(alone):
        np.testing.assert_array_equal(env.reset(seed=3 + i)[0], obs[i])
    rng = np.random.default_rng(0)
    for _ in range(60):
        actions = _masked_sample(np.stack(envs.call("action_masks")), rng)
        obs, _, term, trunc, _ = envs.step(actions)
        if (term | trunc).any():
            break
        for i, env in enumerate(alone):
            np.testing.assert_array_equal(env.step(int(actions[i]))[0], obs[i])
    envs.close()


def test_a_watching_partner_is_shown_every_step_it_does_not_answer() -> None:
    """A partner policy that overrides ``watch`` is handed, after each action (the
    learner's and the partners' own), the view of every player who does not decide
    next: two views an action at 3 players while the game goes on."""

    class Watching(Policy):
        def __init__(self) -> None:
            self.watched: list[AgentView] = []
            self.acts = 0

        def watch(self, view: AgentView) -> None:
            self.watched.append(view)

        def act(self, observation, mask, view, rng, state=None) -> int:
            self.acts += 1
            return view.legal[0]

    env = ShipwreckGymEnv(role="play", partner=Watching())
    _, info = env.reset(seed=3)
    partner = env._partner_policy
    for _ in range(30):
        if env.state.over:
            break
        watched, acts = len(partner.watched), partner.acts
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
        info = env._info()
        shown = partner.watched[watched:]
        if not env.state.over:
            assert len(shown) == 2 * (1 + partner.acts - acts)
        assert all(v.decider != v.player for v in shown)
