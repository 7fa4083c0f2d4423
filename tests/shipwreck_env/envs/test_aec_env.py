"""The PettingZoo AEC environment (:mod:`shipwreck_env.envs.aec_env`).

* PettingZoo's own ``api_test`` and ``seed_test`` over every configuration switch
  (player count, difficulty, group decision, challenge mode, reveal, card sets, reward,
  belief), with the fast ``ShipwreckWrapper`` and with PettingZoo's standard wrappers;
  a quick subset always runs, the whole matrix is marked ``slow``.
* ``ShipwreckWrapper`` behaves exactly like PettingZoo's stacked
  ``TerminateIllegalWrapper(-1)`` + ``AssertOutOfBoundsWrapper`` +
  ``OrderEnforcingWrapper`` (``env(standard_wrappers=True)``).
* Rewards, end infos, action masks, determinism, rendering, argument validation, the
  raw env's illegal-action error and ``view``.

Authorities: the module docstring of ``shipwreck_env/envs/aec_env.py`` (rewards, masks,
episode end, seeding, arguments) and PettingZoo's AEC API.
"""

from __future__ import annotations

import logging
import re
import warnings

import numpy as np
import pytest
from helpers import config_matrix
from pettingzoo.test import api_test, seed_test

import shipwreck_env
from shipwreck_env.envs.aec_env import ShipwreckWrapper, raw_env
from shipwreck_env.rules.actions import NUM_ACTIONS, PASS, predict_action
from shipwreck_env.rules.cards import CARDS, POWER_INDEX
from shipwreck_env.rules.engine import IllegalActionError, legal_actions
from shipwreck_env.rules.observation import decode
from shipwreck_env.rules.state import PHASES, Phase, State
from shipwreck_env.rules.view import AgentView

DIFFICULTIES = {"easy": 0, "normal": 2, "hard": 4, "doomed": 6}


def choose(e, legal, rng: np.random.Generator) -> int:
    """A random legal action; in the group's decisions it often predicts the real fate
    (peeking at the engine state -- it only picks moves) so that games last long."""
    s = e.unwrapped.game_state
    action = int(legal[rng.integers(len(legal))])
    hand = s.hands[s.active]
    if s.phase in (Phase.GROUP, Phase.VOTE) and len(hand) == 1:
        right = predict_action(hand[0])
        r = rng.random()
        if right in legal and r < 0.6:
            return right
        if PASS in legal and r < 0.9:
            return PASS
    if s.phase == Phase.REVEAL and rng.random() < 0.8:
        return PASS
    return action


@pytest.fixture(autouse=True)
def _quiet_illegal_move_warnings():
    """PettingZoo logs a warning for every illegal move; these tests make many."""
    logger = logging.getLogger("pettingzoo.utils.env_logger")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


MATRIX = config_matrix()
QUICK = [
    dict(num_players=2),
    dict(num_players=3, difficulty="easy", card_sets="all", reward="score_doom"),
    dict(num_players=4, group_decision="vote", belief=True),
    dict(num_players=5, difficulty="hard", reveal=False, card_sets="all"),
    dict(num_players=2, challenge_mode=True, group_decision="vote", card_sets="all", belief=True),
    dict(num_players=3, difficulty="doomed", reward="score_doom", reveal=False),
]


def _id(kwargs: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in kwargs.items())


def _api_and_seed(kwargs: dict, standard: bool) -> None:
    with warnings.catch_warnings():
        # What PettingZoo's checker says of every env of this shape, expected here: our
        # observation is the classic {"observation", "action_mask"} dict (not an array, nor
        # a Box space), and the checker's own reset(options={"options": 1}) probe passes a
        # key that is not a config field, which our reset reports and ignores.
        warnings.filterwarnings("ignore", "Observation is not a NumPy array")
        warnings.filterwarnings("ignore", "Observation space for each agent probably")
        warnings.filterwarnings("ignore", r"reset option keys \['options'\]")
        api_test(shipwreck_env.env(standard_wrappers=standard, **kwargs), num_cycles=300)
    seed_test(lambda: shipwreck_env.env(standard_wrappers=standard, **kwargs), num_cycles=300)


@pytest.mark.parametrize("standard", [False, True], ids=["fast", "standard"])
@pytest.mark.parametrize("kwargs", QUICK, ids=_id)
def test_api_and_seed_quick(kwargs: dict, standard: bool) -> None:
    _api_and_seed(kwargs, standard)


@pytest.mark.slow
@pytest.mark.parametrize("standard", [False, True], ids=["fast", "standard"])
@pytest.mark.parametrize("kwargs", MATRIX, ids=_id)
def test_api_and_seed_matrix(kwargs: dict, standard: bool) -> None:
    _api_and_seed(kwargs, standard)


def test_env_returns_the_documented_wrappers() -> None:
    fast = shipwreck_env.env()
    assert isinstance(fast, ShipwreckWrapper)
    assert isinstance(fast.unwrapped, raw_env)
    standard = shipwreck_env.env(standard_wrappers=True)
    from pettingzoo.utils import wrappers

    assert isinstance(standard, wrappers.OrderEnforcingWrapper)
    assert isinstance(standard.env, wrappers.AssertOutOfBoundsWrapper)
    assert isinstance(standard.env.env, wrappers.TerminateIllegalWrapper)
    assert isinstance(standard.unwrapped, raw_env)


# --- ShipwreckWrapper == the three standard wrappers ------------------------------------


def _outcome(call) -> str | None:
    try:
        call()
    except Exception as e:
        return type(e).__name__
    return None


def plain_info(info: dict) -> dict:
    """An info with its mask as a list (so that two infos compare with ``==``)."""
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items()}


def snapshot(e) -> dict:
    """Everything an agent loop can read from an AEC env now."""
    out = {
        "agents": list(e.agents),
        "agent_selection": e.agent_selection,
        "terminations": dict(e.terminations),
        "truncations": dict(e.truncations),
        "rewards": dict(e.rewards),
        "cumulative": dict(e._cumulative_rewards),
        "infos": {a: plain_info(i) for a, i in e.infos.items()},
    }
    if e.agents:
        obs, reward, term, trunc, info = e.last()
        out["last"] = (
            obs["observation"].tolist(),
            obs["action_mask"].tolist(),
            str(obs["action_mask"].dtype),
            reward,
            term,
            trunc,
            plain_info(info),
        )
        out["observe_all"] = [
            (e.observe(a)["observation"].tolist(), e.observe(a)["action_mask"].tolist())
            for a in e.agents
        ]
    return out


def drive_pair(
    kwargs: dict,
    seed: int,
    choice_seed: int,
    illegal_at: int | None = None,
    out_of_range_at: tuple[int, ...] = (),
) -> int:
    """Play the fast and the standard env side by side with the same actions; compare
    after every step. Returns the number of steps."""
    fast = shipwreck_env.env(**kwargs)
    standard = shipwreck_env.env(standard_wrappers=True, **kwargs)
    fast.reset(seed=seed)
    standard.reset(seed=seed)
    choice = np.random.default_rng(choice_seed)
    assert snapshot(fast) == snapshot(standard)
    n = 0
    while fast.agents or standard.agents:
        assert fast.agent_selection == standard.agent_selection
        obs, _, term, trunc, _ = fast.last()
        if term or trunc:
            action = None
        else:
            mask = obs["action_mask"]
            if n in out_of_range_at:
                bad = (NUM_ACTIONS, -1, NUM_ACTIONS + 40)[n % 3]
                before = snapshot(fast)
                assert _outcome(lambda bad=bad: fast.step(bad)) == "AssertionError"
                assert _outcome(lambda bad=bad: standard.step(bad)) == "AssertionError"
                assert snapshot(fast) == before, f"step {n}: out-of-range changed the env"
                assert snapshot(standard) == before, f"step {n}: after out-of-range"
            if n == illegal_at:
                action = int(np.flatnonzero(mask == 0)[choice.integers((mask == 0).sum())])
            else:
                action = choose(fast, np.flatnonzero(mask), choice)
        fast.step(action)
        standard.step(action)
        assert snapshot(fast) == snapshot(standard), f"step {n}: action {action}"
        n += 1
        assert n < 20_000
    assert fast.unwrapped.game_state == standard.unwrapped.game_state
    return n


EQUIV_CONFIGS = [
    dict(num_players=3),
    dict(num_players=2, challenge_mode=True, card_sets="all", reward="score_doom"),
    dict(num_players=5, group_decision="vote", difficulty="easy", belief=True),
    dict(num_players=4, card_sets="all", difficulty="easy", reveal=False, reward="score_doom"),
    dict(num_players=3, max_turns=3, difficulty="easy"),  # truncation
]


@pytest.mark.parametrize("kwargs", EQUIV_CONFIGS, ids=_id)
def test_fast_wrapper_equals_standard_wrappers(kwargs: dict) -> None:
    for seed in range(6):
        # a whole legal game, then games with an illegal action at some step, and
        # out-of-range actions that fail an assertion and change nothing
        drive_pair(kwargs, seed, 100 + seed)
        drive_pair(kwargs, seed, 200 + seed, illegal_at=seed % 4, out_of_range_at=(0, 1, 2))
        drive_pair(kwargs, seed, 300 + seed, illegal_at=0)
        drive_pair(kwargs, seed, 400 + seed, illegal_at=7 + seed, out_of_range_at=(3, 5))


def test_fast_wrapper_reward_of_illegal_action() -> None:
    """The agent that chose the illegal action gets -1, the others 0; all end."""
    e = shipwreck_env.env(num_players=4)
    e.reset(seed=1)
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    e.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(e.terminations.values()) and all(e.truncations.values())
    assert e.rewards == {a: (-1.0 if a == agent else 0) for a in e.agents}
    assert e._cumulative_rewards[agent] == -1.0
    for _ in e.agent_iter():
        assert e.last()[2]
        e.step(None)
    assert e.agents == []


def test_fast_wrapper_before_reset_like_standard() -> None:
    """Calls before ``reset`` fail the same way with both wrappings."""
    calls = {
        "agent_selection": lambda e: e.agent_selection,
        "agents": lambda e: e.agents,
        "rewards": lambda e: e.rewards,
        "terminations": lambda e: e.terminations,
        "truncations": lambda e: e.truncations,
        "infos": lambda e: e.infos,
        "num_agents": lambda e: e.num_agents,
        "step": lambda e: e.step(0),
        "observe": lambda e: e.observe("player_0"),
        "render": lambda e: e.render(),
        "last": lambda e: e.last(),
    }
    for name, call in calls.items():
        fast = shipwreck_env.env(render_mode="ansi")
        standard = shipwreck_env.env(standard_wrappers=True, render_mode="ansi")
        got = _outcome(lambda call=call, fast=fast: call(fast))
        want = _outcome(lambda call=call, standard=standard: call(standard))
        assert got == want, name
        assert got is not None, name
    assert (
        shipwreck_env.env().possible_agents
        == shipwreck_env.env(standard_wrappers=True).possible_agents
    )


ACTION_FORMS = {
    "python_int": lambda a: int(a),
    "np_int64": lambda a: np.int64(a),
    "np_int32": lambda a: np.int32(a),
    "np_0d_array": lambda a: np.array(a),
    "float": lambda a: float(a),
    "none": lambda a: None,
    "minus_one": lambda a: -1,
    "num_actions": lambda a: NUM_ACTIONS,
}


def _forms_outcomes(dead: bool) -> list[str]:
    mismatches = []
    for form, make in ACTION_FORMS.items():
        results = []
        for standard in (False, True):
            e = shipwreck_env.env(standard_wrappers=standard, num_players=3)
            e.reset(seed=4)
            mask = e.observe(e.agent_selection)["action_mask"]
            if dead:
                e.step(int(np.flatnonzero(mask == 0)[0]))  # illegal: everybody is done
            action = make(int(np.flatnonzero(mask)[0]))
            outcome = _outcome(lambda e=e, action=action: e.step(action))
            results.append((outcome, snapshot(e)))
        (fast_outcome, fast_snap), (std_outcome, std_snap) = results
        if fast_outcome != std_outcome or fast_snap != std_snap:
            mismatches.append(
                f"{form}: ShipwreckWrapper -> {fast_outcome or 'accepted'}, "
                f"standard wrappers -> {std_outcome or 'accepted'}"
            )
    return mismatches


def test_fast_wrapper_action_forms_like_standard_live_agent() -> None:
    """Each form of action for the agent that must decide (numpy integers, a 0-d array as
    SB3's ``model.predict`` returns, a float, None, out-of-range ints) is accepted or
    rejected -- with the same exception type -- as by the standard wrappers."""
    assert _forms_outcomes(dead=False) == []


def test_fast_wrapper_action_forms_like_standard_dead_agent() -> None:
    """The same for an agent that is already done (only ``None`` is valid)."""
    assert _forms_outcomes(dead=True) == []


def test_fast_wrapper_rejects_bool_actions_like_standard() -> None:
    """A bool is no action: both wrappings raise (the exception types may differ)."""
    for standard in (False, True):
        e = shipwreck_env.env(standard_wrappers=standard)
        e.reset(seed=0)
        before = e.unwrapped.game_state.copy()
        assert _outcome(lambda e=e: e.step(True)) is not None
        assert e.unwrapped.game_state == before


# --- rewards and end infos --------------------------------------------------------------


def play_random(e, seed: int, choice_seed: int, on_step=None) -> None:
    """Play ``e`` to the end with random legal actions; ``on_step(e, agent, action)``
    after each live step."""
    e.reset(seed=seed)
    choice = np.random.default_rng(choice_seed)
    for agent in e.agent_iter(50_000):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        action = choose(e, np.flatnonzero(obs["action_mask"]), choice)
        e.step(action)
        if on_step is not None:
            on_step(e, agent, action)
    assert e.agents == []


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(num_players=3),
        dict(num_players=5, difficulty="easy", card_sets="all"),
        dict(num_players=2, challenge_mode=True, group_decision="vote"),
        dict(num_players=4, difficulty="hard"),
    ],
    ids=_id,
)
def test_score_doom_rewards(kwargs: dict) -> None:
    """+1 per point and -1 per doom as they happen, to every agent; the sum is the final
    score minus the doom added."""
    for seed in range(8):
        e = shipwreck_env.env(reward="score_doom", **kwargs)
        totals = {}
        before = {}

        def on_step(e, agent, action, totals=totals, before=before):
            s = e.unwrapped.game_state
            delta = (s.score - before["score"]) - (s.doom - before["doom"])
            assert e.rewards == dict.fromkeys(e.possible_agents, float(delta))
            for a, r in e.rewards.items():
                totals[a] = totals.get(a, 0.0) + r
            before.update(score=s.score, doom=s.doom)

        e.reset(seed=seed)
        start = e.unwrapped.game_state
        before.update(score=start.score, doom=start.doom)
        assert start.doom == DIFFICULTIES[kwargs.get("difficulty", "normal")]
        play_random(e, seed, seed + 50, on_step)
        s = e.unwrapped.game_state
        assert s.over
        expected = s.score - (s.doom - start.doom)
        assert totals == dict.fromkeys(e.possible_agents, float(expected))


@pytest.mark.parametrize("max_turns", [200, 2])
def test_win_loss_rewards_and_end_infos(max_turns: int) -> None:
    """+1/-1 to every agent only at the end (0 when truncated); every agent's final info
    holds score, doom and won; terminations / truncations as documented."""
    results = set()
    for seed in range(30):
        e = shipwreck_env.env(num_players=3, difficulty="easy", max_turns=max_turns)
        e.reset(seed=seed)
        choice = np.random.default_rng(seed)
        cumulative = dict.fromkeys(e.possible_agents, 0.0)
        final = None
        for _ in e.agent_iter(50_000):
            obs, _, term, trunc, info = e.last()
            if term or trunc:
                if final is None:
                    final = (
                        dict(e.terminations),
                        dict(e.truncations),
                        {a: plain_info(i) for a, i in e.infos.items()},
                    )
                    final_rewards = dict(e.rewards)
                e.step(None)
                continue
            s = e.unwrapped.game_state
            assert plain_info(info) == {"score": s.score, "doom": s.doom, "won": False}
            e.step(choose(e, np.flatnonzero(obs["action_mask"]), choice))
            for a in e.possible_agents:
                cumulative[a] += e.rewards[a]
            if not e.unwrapped.game_state.over:
                assert set(e.rewards.values()) == {0.0}
        s = e.unwrapped.game_state
        terminations, truncations, infos = final
        expected = 0.0 if s.truncated else (1.0 if s.won else -1.0)
        assert final_rewards == dict.fromkeys(e.possible_agents, expected)
        assert cumulative == dict.fromkeys(e.possible_agents, expected)
        assert terminations == dict.fromkeys(e.possible_agents, not s.truncated)
        assert truncations == dict.fromkeys(e.possible_agents, s.truncated)
        for a in e.possible_agents:
            assert infos[a] == {"score": s.score, "doom": s.doom, "won": s.won}
        results.add("truncated" if s.truncated else ("won" if s.won else "lost"))
    if max_turns == 2:
        assert "truncated" in results
    else:
        assert {"won", "lost"} <= results, results


# --- masks, determinism -----------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(num_players=3, card_sets="all", difficulty="easy"),
        dict(num_players=2, challenge_mode=True, group_decision="vote", card_sets="all"),
        dict(num_players=5, group_decision="vote"),
    ],
    ids=_id,
)
def test_masks_are_the_engine_legal_set(kwargs: dict) -> None:
    """The deciding agent's mask is exactly ``engine.legal_actions``; everybody else's is
    all zeros; ``agent_selection`` is the engine's decider."""
    steps = 0
    for seed in range(6):
        e = shipwreck_env.env(**kwargs)
        e.reset(seed=seed)
        choice = np.random.default_rng(seed)
        while e.agents:
            _, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            s = e.unwrapped.game_state
            assert e.agent_selection == f"player_{s.decider}"
            legal = legal_actions(s)
            for agent in e.agents:
                mask = e.observe(agent)["action_mask"]
                assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
                expected = np.zeros(NUM_ACTIONS, np.int8)
                if agent == e.agent_selection:
                    expected[legal] = 1
                assert np.array_equal(mask, expected), (agent, PHASES[s.phase])
            e.step(choose(e, legal, choice))
            steps += 1
    assert steps > 100


def record(kwargs: dict, seed: int, choice_seed: int) -> list:
    e = shipwreck_env.env(**kwargs)
    out = []

    def on_step(e, agent, action):
        s = e.unwrapped.game_state
        out.append((agent, action, s.copy(), e.observe(e.agent_selection)["observation"].tolist()))

    play_random(e, seed, choice_seed, on_step)
    return out


def test_same_seed_same_actions_same_game() -> None:
    for kwargs in (dict(num_players=4, card_sets="all"), dict(num_players=2, challenge_mode=True)):
        for seed in range(4):
            assert record(kwargs, seed, 9) == record(kwargs, seed, 9)
        starts = set()
        for seed in range(10):
            e = shipwreck_env.env(**kwargs)
            e.reset(seed=seed)
            starts.add(str(e.observe(e.agent_selection)["observation"].tolist()))
        assert len(starts) > 5


def test_reset_restarts_the_same_game() -> None:
    e = shipwreck_env.env(num_players=3)
    e.reset(seed=5)
    first = e.unwrapped.game_state.copy()
    play_random(e, 5, 1)
    e.reset(seed=5)
    assert e.unwrapped.game_state == first
    assert e.agents == e.possible_agents
    assert not any(e.terminations.values()) and not any(e.truncations.values())


# --- rendering ----------------------------------------------------------------------------


SEAT_LINE = re.compile(r"^\s*seat (\d+) \(player (\d+)\): holds (.*); number line")


def assert_hands_hidden(text: str, s: State) -> None:
    """Every seat line shows its held fates as ``[?]`` only."""
    seen = set()
    for line in text.splitlines():
        m = SEAT_LINE.match(line)
        if not m:
            continue
        seat = int(m.group(1))
        seen.add(seat)
        held = len(s.hands[seat])
        assert m.group(3) == (" ".join(["[?]"] * held) if held else "nothing"), line
    assert seen == set(range(len(s.hands)))


@pytest.mark.parametrize(
    "kwargs",
    [dict(num_players=3, card_sets="all"), dict(num_players=2, challenge_mode=True)],
    ids=_id,
)
def test_render_ansi_hides_hands(kwargs: dict) -> None:
    e = shipwreck_env.env(render_mode="ansi", **kwargs)
    texts = []

    def on_step(e, agent, action):
        text = e.render()
        assert isinstance(text, str) and text
        assert_hands_hidden(text, e.unwrapped.game_state)
        texts.append(text)

    for seed in range(4):
        play_random(e, seed, seed, on_step)
    assert any("[?]" in t for t in texts)


def test_render_human_prints_and_hides_hands(capsys: pytest.CaptureFixture) -> None:
    e = shipwreck_env.env(render_mode="human", num_players=4)
    e.reset(seed=2)
    capsys.readouterr()
    assert e.render() is None
    text = capsys.readouterr().out
    assert text.strip()
    assert_hands_hidden(text, e.unwrapped.game_state)
    legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
    e.step(int(legal[0]))  # human mode renders after each step
    text = capsys.readouterr().out
    assert text.strip()
    assert_hands_hidden(text, e.unwrapped.game_state)


def test_render_without_mode_returns_none_and_warns() -> None:
    e = shipwreck_env.env()
    e.reset(seed=0)
    with pytest.warns(UserWarning, match="render\\(\\) called without a render_mode"):
        assert e.render() is None


# --- arguments ------------------------------------------------------------------------------


BAD_KWARGS = [
    ("num_players", 6, "6"),
    ("num_players", 1, "1"),
    ("reward", "x", "'x'"),
    ("belief", "yes", "'yes'"),
    ("difficulty", "insane", "'insane'"),
    ("group_decision", "king", "'king'"),
    ("card_sets", "promo", "'promo'"),
    ("max_turns", 0, "0"),
]


@pytest.mark.parametrize("maker", ["raw_env", "env", "env_standard"])
@pytest.mark.parametrize(
    ("name", "value", "shown"), BAD_KWARGS, ids=[b[0] + str(b[1]) for b in BAD_KWARGS]
)
def test_bad_kwargs_raise_value_error_naming_the_value(
    maker: str, name: str, value: object, shown: str
) -> None:
    make = {
        "raw_env": shipwreck_env.raw_env,
        "env": shipwreck_env.env,
        "env_standard": lambda **kw: shipwreck_env.env(standard_wrappers=True, **kw),
    }[maker]
    with pytest.raises(ValueError, match=re.escape(shown)) as info:
        make(**{name: value})
    assert name.split("_")[0] in str(info.value)


def test_challenge_mode_needs_two_players() -> None:
    with pytest.raises(ValueError, match="challenge_mode"):
        shipwreck_env.raw_env(num_players=3, challenge_mode=True)


# --- the raw env ------------------------------------------------------------------------------


def test_raw_env_illegal_action_raises_and_changes_nothing() -> None:
    for seed in range(5):
        e = shipwreck_env.raw_env(num_players=3, card_sets="all")
        twin = shipwreck_env.raw_env(num_players=3, card_sets="all")
        e.reset(seed=seed)
        twin.reset(seed=seed)
        choice = np.random.default_rng(seed)
        for _ in range(30):
            s = e.game_state
            if s.over:
                break
            before = s.copy()
            selection, rewards = e.agent_selection, dict(e.rewards)
            cumulative = dict(e._cumulative_rewards)
            legal = legal_actions(s)
            illegal = [a for a in range(NUM_ACTIONS) if a not in legal]
            for bad in (illegal[choice.integers(len(illegal))], NUM_ACTIONS, -1):
                with pytest.raises(IllegalActionError):
                    e.step(bad)
                assert e.game_state == before
                assert e.agent_selection == selection
                assert e.rewards == rewards and e._cumulative_rewards == cumulative
            # nothing random was consumed either: the game goes on like its twin
            action = int(legal[choice.integers(len(legal))])
            e.step(action)
            twin.step(action)
            assert e.game_state == twin.game_state


def test_raw_env_spaces() -> None:
    e = shipwreck_env.raw_env(num_players=4, belief=True)
    e.reset(seed=0)
    for agent in e.possible_agents:
        assert e.action_space(agent).n == NUM_ACTIONS
        space = e.observation_space(agent)
        obs = e.observe(agent)
        assert space.contains(obs)
        assert space["observation"].shape == (e.observation_layout.size,)
    assert e.possible_agents == [f"player_{i}" for i in range(4)]


def test_view_is_consistent_with_observation() -> None:
    """``view(agent)`` is an AgentView of that agent, agreeing with its observation."""
    for kwargs in (dict(num_players=3, card_sets="all"), dict(num_players=2, challenge_mode=True)):
        e = shipwreck_env.env(**kwargs)
        layout = e.unwrapped.observation_layout
        P = kwargs["num_players"]

        def on_step(e, agent, action, layout=layout, P=P):
            s = e.unwrapped.game_state
            for p, agent in enumerate(e.possible_agents):
                view = e.unwrapped.view(agent)
                assert isinstance(view, AgentView)
                obs = e.unwrapped.observe(agent)
                f = decode(obs["observation"], layout)
                assert view.player == p
                assert view.phase == PHASES[int(np.argmax(f["phase"]))]
                assert min(view.score, 7) == int(np.argmax(f["score"]))
                assert min(view.doom, 7) == int(np.argmax(f["doom"]))
                own = [
                    [v + 1 for v in range(7) for _ in range(int(f["own_hand"][7 * k + v]))]
                    for k in range(len(view.my_seats))
                ]
                assert own == [sorted(h) for h in view.my_hands]
                assert view.my_hands == tuple(tuple(s.hands[seat]) for seat in view.my_seats)
                mask = obs["action_mask"]
                assert tuple(np.flatnonzero(mask)) == view.legal
                if not s.over:
                    decider_rel = int(np.argmax(f["decider"]))
                    assert (view.decider - p) % P == decider_rel
                slots = []
                for slot in range(4):
                    hot = int(np.argmax(f["slot_card"][37 * slot : 37 * slot + 37]))
                    slots.append(CARDS[hot].id if hot < len(CARDS) else None)
                assert tuple(slots) == view.slots
                faded = np.zeros(len(POWER_INDEX))
                for power in view.faded_powers:
                    faded[POWER_INDEX[power]] += 1
                assert np.array_equal(f["faded_powers"], faded)

        for seed in range(3):
            play_random(e, seed, seed, on_step)
