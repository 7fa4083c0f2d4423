"""The table as an image (:mod:`shipwreck_env.envs.render_image`) and the render modes of both
environments (:mod:`shipwreck_env.envs.render`): one fixed ``uint8`` shape, every public fact
drawn, no hidden fact drawn for anyone but its holder, ``"rgb_array"`` reachable the
ways Gymnasium, PettingZoo and Stable-Baselines3 ask for it, and an unsupported mode a
warning, as in Gymnasium.

Authority: the module docstrings of ``shipwreck_env/envs/render_image.py`` and
``shipwreck_env/envs/render.py``; ``shipwreck_env/rules/state.py`` (``hands`` are the only hidden
data); issue 38 (SB3's ``make_vec_env`` asks for ``render_mode="rgb_array"``).
"""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest
from test_leaks import arranged_start, choose, sweep_configs
from twins import swapped, twin

import shipwreck_env
from shipwreck_env.envs import render as render_module
from shipwreck_env.envs import render_image as image_module
from shipwreck_env.envs.render import RENDER_MODES, check_render_mode
from shipwreck_env.envs.render_image import IMAGE_HEIGHT, IMAGE_WIDTH, render_image
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
from shipwreck_env.rules.state import Phase, State

SHAPE = (IMAGE_HEIGHT, IMAGE_WIDTH, 3)


def game_states(config: GameConfig, seed: int, arranged: bool = False) -> list[State]:
    """Every state of one game of random play (``test_leaks.choose``), end included."""
    rng = np.random.default_rng(seed)
    choice = np.random.default_rng([seed, 1])
    s = arranged_start(config, rng) if arranged else new_game(config, rng)
    states = [s.copy()]
    while not s.over:
        step_inplace(s, choose(s, legal_actions(s), choice), rng)
        states.append(s.copy())
    return states


def viewers(config: GameConfig) -> list[int | None]:
    return [None, *range(config.num_players)]


# --- shape and determinism ----------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        GameConfig(num_players=2, challenge_mode=True, card_sets="all", difficulty="easy"),
        GameConfig(num_players=5, card_sets="all", group_decision="vote"),
        GameConfig(num_players=3, difficulty="hard"),
    ],
    ids=["challenge", "five-vote", "three-hard"],
)
def test_image_has_one_shape_and_dtype_over_whole_games(config: GameConfig) -> None:
    """Every moment of whole games, for the public view and every player: the same
    ``uint8`` shape (a video recorder needs frames of one size)."""
    for seed in range(3):
        for s in game_states(config, seed, arranged=seed == 2):
            for viewer in viewers(config):
                img = render_image(s, viewer)
                assert img.shape == SHAPE and img.dtype == np.uint8, (seed, s.turn, viewer)


def test_same_state_same_pixels() -> None:
    """The picture is a function of the state: a copy drawn later, after other states
    were drawn, gives the same pixels."""
    config = GameConfig(num_players=4, card_sets="all")
    states = game_states(config, 7)
    first = [render_image(s.copy(), 1) for s in states]
    for s in states[::-1]:
        render_image(s, None)
    assert all(np.array_equal(a, render_image(s, 1)) for a, s in zip(first, states, strict=True))


def test_image_is_a_fresh_array_the_caller_may_draw_on() -> None:
    s = new_game(GameConfig(), np.random.default_rng(0))
    img = render_image(s)
    img[:] = 0  # an overlay drawn by the caller must not reach the next picture
    assert render_image(s).any()


@pytest.mark.parametrize("viewer", [-1, 3, "player_0", 1.0, True])
def test_bad_viewer_is_refused_naming_it(viewer: object) -> None:
    s = new_game(GameConfig(num_players=3), np.random.default_rng(0))
    with pytest.raises(ValueError, match=rf"viewer {viewer!r}.*0\.\.2"):
        render_image(s, viewer)  # type: ignore[arg-type]


# --- what the picture shows -----------------------------------------------------------------


def public_changes(s: State) -> dict[str, State]:
    """``s`` with one public fact changed at a time (the states need not be reachable:
    the picture only has to show the fact)."""
    changes = {}

    def change(name: str, edit) -> None:
        t = s.copy()
        edit(t)
        changes[name] = t

    change("score", lambda t: setattr(t, "score", t.score + 1))
    change("doom", lambda t: setattr(t, "doom", t.doom + 1))
    change("deck size", lambda t: t.deck.pop())
    change("deck top", lambda t: t.deck.insert(0, t.deck.pop()))
    change("fates on a slot", lambda t: t.table[2].append(5))
    change("number line", lambda t: setattr(t, "lines", [t.lines[0] & 0b0111110, *t.lines[1:]]))
    change("faded power", lambda t: t.faded.append(t.deck.pop()))
    change("attached power", lambda t: t.attached[1].append(t.deck.pop()))
    change("bag", lambda t: t.bag.__setitem__(0, t.bag[0] - 1))
    change("exiled", lambda t: t.exiled.__setitem__(3, t.exiled[3] + 1))
    change("held count", lambda t: t.hands[1].append(2))
    change("event", lambda t: t.events.append(("fall", 1)))
    change("turn", lambda t: setattr(t, "turn", t.turn + 1))
    change("game over", lambda t: setattr(t, "over", True))
    return changes


def test_every_public_fact_changes_the_picture() -> None:
    """Score, doom, deck size and top, a slot's fates, number lines, faded and attached
    powers, the bag, exiled fates, how many fates a seat holds, this turn's events and
    whose turn it is: changing any one of them changes the public picture."""
    s = new_game(GameConfig(num_players=3, card_sets="all"), np.random.default_rng(4))
    base = render_image(s)
    same = [name for name, t in public_changes(s).items() if np.array_equal(render_image(t), base)]
    assert not same


def test_viewer_sees_own_held_fates_and_public_sees_none() -> None:
    """Changing a held fate changes its holder's picture only."""
    s = new_game(GameConfig(num_players=3), np.random.default_rng(2))
    seat = s.active
    value = s.hands[seat][0]
    t = s.copy()
    t.hands[seat][0] = value % 7 + 1
    owner = s.owner(seat)
    for viewer in viewers(s.config):
        differs = not np.array_equal(render_image(s, viewer), render_image(t, viewer))
        assert differs == (viewer == owner), viewer


# --- no hidden fact leaks -------------------------------------------------------------------


def leak_problems(states: list[State], draw=render_image) -> tuple[list[str], int, int]:
    """For each state and each alternative that changes one held fate without changing
    a public fact (``test_leaks.swapped``), the players whose pictures differ though they
    do not hold that fate (the public picture counts as player ``None``), and the owners
    whose pictures do not differ. Also returns the swaps checked and how many were of
    the active seat's kept fate (after its play)."""
    problems = []
    swaps = kept = 0
    rng = np.random.default_rng(0)
    for s in states:
        seen = {v: draw(s, v) for v in viewers(s.config)}
        for seat, hand in enumerate(s.hands):
            for index in range(len(hand)):
                options = [t for w in range(1, 8) if (t := swapped(s, seat, index, w))]
                if not options:
                    continue
                t = options[int(rng.integers(len(options)))]
                swaps += 1
                kept += seat == s.active and not s.over and s.phase != Phase.PLAY
                owner = s.owner(seat)
                for viewer, img in seen.items():
                    differs = not np.array_equal(img, draw(t, viewer))
                    if differs != (viewer == owner):
                        problems.append(f"turn {s.turn} seat {seat}: viewer {viewer}")
    return problems, swaps, kept


def sample_states(per_config: int) -> list[State]:
    """Mid-game states of every configuration of the leak sweep, from new and from
    arranged tables (faded powers, The Thief, Chalice, Fall, Feast: the rare phases)."""
    out = []
    for n, config in enumerate(sweep_configs()):
        states = game_states(config, n, arranged=n % 2 == 1)
        step = max(1, len(states) // per_config)
        out += states[::step][:per_config]
    return out


def test_hidden_fates_leave_the_picture_unchanged_for_all_but_their_holder() -> None:
    """Twin states that differ only in one seat's held fate -- another seat's or the
    kept fate -- give the same pixels to the public view and to every other player;
    the holder's own picture changes."""
    problems, swaps, kept = leak_problems(sample_states(per_config=4))
    assert not problems, problems[:5]
    assert swaps > 100 and kept > 10, (swaps, kept)


@pytest.mark.slow
def test_hidden_fates_leave_the_picture_unchanged_long() -> None:
    problems, swaps, _ = leak_problems(sample_states(per_config=40))
    assert not problems, problems[:5]
    assert swaps > 1000, swaps


def test_deck_order_below_the_top_leaves_the_picture_unchanged() -> None:
    """A twin whose face-down deck (below the face-up top card) is reshuffled looks the
    same to everyone."""
    rng = np.random.default_rng(3)
    checked = 0
    for n, config in enumerate(sweep_configs()[::2]):
        for s in game_states(config, 100 + n)[::8]:
            t = twin(s, rng)
            for viewer in viewers(config):
                assert np.array_equal(render_image(s, viewer), render_image(t, viewer))
            checked += t.deck != s.deck
    assert checked > 20, checked


def test_leak_check_catches_a_picture_showing_every_held_fate() -> None:
    """The check above fails on a picture that shows the active player's fates to
    everyone (the planted leak it exists to find)."""

    def leaky(s: State, viewer: int | None = None) -> np.ndarray:
        return render_image(s, s.active_player if viewer is None else viewer)

    problems, _, _ = leak_problems(sample_states(per_config=2), draw=leaky)
    assert problems


# --- render modes ---------------------------------------------------------------------------


def test_rgb_array_is_a_render_mode_of_both_envs() -> None:
    import gymnasium

    assert "rgb_array" in RENDER_MODES
    aec = shipwreck_env.raw_env(render_mode="rgb_array")
    play = gymnasium.make("ShipwreckArcana-Play-v0", render_mode="rgb_array")
    assert "rgb_array" in aec.metadata["render_modes"]
    assert "rgb_array" in play.metadata["render_modes"]
    assert play.metadata["render_fps"] > 0


def test_gymnasium_make_rgb_array_renders_images() -> None:
    """Through ``gymnasium.make`` (its passive checker inspects the first frame)."""
    import gymnasium

    env = gymnasium.make("ShipwreckArcana-Play-v0", num_players=3, render_mode="rgb_array")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20):
        frame = env.render()
        assert frame.shape == SHAPE and frame.dtype == np.uint8
        legal = np.flatnonzero(env.unwrapped.action_masks())
        _, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            env.reset()
    assert env.unwrapped.render(viewer=1).shape == SHAPE


def test_pettingzoo_env_rgb_array_renders_images() -> None:
    e = shipwreck_env.env(render_mode="rgb_array", num_players=4)
    e.reset(seed=1)
    public = e.render()
    own = e.render(viewer=e.agent_selection)
    assert public.shape == own.shape == SHAPE
    assert not np.array_equal(public, own)  # the player to act holds fates and sees them


@pytest.mark.parametrize("standard_wrappers", [False, True])
def test_pettingzoo_render_test_passes_in_every_mode(
    standard_wrappers: bool, capsys: pytest.CaptureFixture
) -> None:
    """PettingZoo's own ``render_test`` tries each mode of ``metadata["render_modes"]``
    (for ``"rgb_array"`` it wants a 3-dimensional array)."""
    from pettingzoo.test import render_test

    render_test(
        lambda render_mode=None: shipwreck_env.env(
            render_mode=render_mode, standard_wrappers=standard_wrappers
        )
    )
    capsys.readouterr()  # "human" printed the table


def test_sb3_make_vec_env_with_an_id_constructs_and_steps() -> None:
    """SB3's ``make_vec_env(id)`` asks for ``render_mode="rgb_array"`` (issue 38,
    problem 1); the envs it builds step, and ``get_images`` gives their frames."""
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("ShipwreckArcana-Play-v0", n_envs=2, seed=0)
    vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        masks = vec.env_method("action_masks")
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    assert vec.render_mode == "rgb_array"
    assert [img.shape for img in vec.get_images()] == [SHAPE, SHAPE]
    vec.close()


# --- unsupported modes ----------------------------------------------------------------------


def test_unsupported_mode_warns_naming_it_and_the_allowed_ones() -> None:
    with pytest.warns(UserWarning, match=r"render_mode 'rgb' is not supported.*'rgb_array'"):
        assert check_render_mode("rgb") == "rgb"


@pytest.mark.parametrize("maker", ["aec", "gym"])
def test_env_with_unsupported_mode_runs_and_render_returns_none(maker: str) -> None:
    """As in Gymnasium: a warning at construction, the game plays, ``render()`` warns
    again and returns ``None``."""
    import gymnasium

    with pytest.warns(UserWarning, match="'rgb'"):
        if maker == "aec":
            env = shipwreck_env.env(render_mode="rgb")
        else:
            env = gymnasium.make("ShipwreckArcana-Play-v0", render_mode="rgb").unwrapped
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render\\(\\) called with render_mode 'rgb'"):
        assert env.render() is None


@pytest.mark.parametrize("mode", [5, b"ansi", ["ansi"]])
def test_mode_that_is_not_a_string_is_refused(mode: object) -> None:
    with pytest.raises(ValueError, match=re.escape(f"render_mode {mode!r}") + ".*'rgb_array'"):
        shipwreck_env.raw_env(render_mode=mode)


def test_warning_without_gymnasium_goes_through_warnings(monkeypatch) -> None:
    """The core does not need Gymnasium: without it the warning still comes."""
    monkeypatch.setitem(sys.modules, "gymnasium", None)  # import gymnasium fails
    with pytest.warns(UserWarning, match="'rgb'"):
        render_module.check_render_mode("rgb")


def test_image_module_needs_only_numpy_and_the_core() -> None:
    """No imaging library: the module's imports are numpy, the standard library and the
    core (the core must load with numpy, numba, gymnasium and pettingzoo alone)."""
    import ast

    with open(image_module.__file__, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    roots = {
        (node.module if isinstance(node, ast.ImportFrom) else alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert roots <= {"__future__", "functools", "numpy", "shipwreck_env"}, roots
