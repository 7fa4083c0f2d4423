"""``VectorGame``'s API: seeding, autoreset, conversion to and from reference states,
bad input, and the fate-token invariant over many batched games."""

from __future__ import annotations

import numpy as np
import pytest

from shipwreck_env.rules.actions import PASS
from shipwreck_env.rules.cards import FATE_COPIES
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.engine import legal_actions, new_game, step
from shipwreck_env.vector import VectorGame


def _random_actions(vg: VectorGame, rng: np.random.Generator) -> np.ndarray:
    mask = vg.legal_mask()
    counts = mask.sum(axis=1)
    pick = (rng.random(len(counts)) * np.maximum(counts, 1)).astype(np.int64)
    ranks = np.cumsum(mask, axis=1) - 1
    return np.argmax((ranks == pick[:, None]) & mask, axis=1)


def _play(vg: VectorGame, steps: int, seed: int = 0) -> list[tuple]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        obs = vg.observe().copy()
        reward, terminated, truncated = vg.step(_random_actions(vg, rng))
        out.append((obs, reward, terminated, truncated))
    return out


def _same(a: list[tuple], b: list[tuple]) -> bool:
    return all(
        all(np.array_equal(x, y) for x, y in zip(r, s, strict=True))
        for r, s in zip(a, b, strict=True)
    )


@pytest.mark.parametrize(
    "config",
    [
        dict(num_players=4, group_decision="vote"),
        dict(num_players=2, challenge_mode=True, difficulty="easy"),
        dict(num_players=5, reveal=False, difficulty="hard"),
    ],
)
def test_every_fate_token_is_somewhere_in_every_game_at_every_step(config) -> None:
    vg = VectorGame(256, seed=1, **config)
    a = vg.arrays
    rng = np.random.default_rng(1)
    for _ in range(300):
        held = np.zeros((vg.num_games, 7), np.int64)
        for seat in range(a.hands.shape[1]):
            for k in range(2):
                value = a.hands[:, seat, k].astype(np.int64)
                inside = k < a.hand_len[:, seat]
                np.add.at(held, (np.flatnonzero(inside), value[inside] - 1), 1)
        total = a.bag + a.tcount.sum(axis=1) + held + a.exiled
        assert (total == FATE_COPIES).all(), "a fate token was lost or made"
        on_table = a.table_len.sum(axis=1) == a.tcount.sum(axis=(1, 2))
        assert on_table.all(), "the ordered table and its counts disagree"
        vg.step(_random_actions(vg, rng))


def test_the_same_seed_gives_the_same_games() -> None:
    first = _play(VectorGame(32, seed=5), 80)
    second = _play(VectorGame(32, seed=5), 80)
    other = _play(VectorGame(32, seed=6), 80)
    assert _same(first, second)
    assert not _same(first, other)


def test_a_game_depends_only_on_the_seed_and_its_index_not_on_the_batch_size() -> None:
    small, large = VectorGame(3, seed=9), VectorGame(40, seed=9)
    for _ in range(60):  # the same deterministic policy: the lowest legal action
        small.step(np.argmax(small.legal_mask(), axis=1))
        large.step(np.argmax(large.legal_mask(), axis=1))
    assert small.to_states() == large.to_states([0, 1, 2])


def test_reset_with_a_seed_starts_over_and_without_one_goes_on() -> None:
    vg = VectorGame(8, seed=3)
    start = vg.to_states()
    vg.reset(seed=3)
    assert vg.to_states() == start
    vg.reset()
    assert vg.to_states() != start


def test_finished_games_restart_in_the_step_that_ends_them_with_their_final_info() -> None:
    vg = VectorGame(64, seed=2, max_turns=2)
    rng = np.random.default_rng(0)
    for _ in range(40):
        before = vg.arrays.turn.copy()
        _, terminated, truncated = vg.step(_random_actions(vg, rng))
        ended = terminated | truncated
        assert (vg.final_info["_final"] == ended).all()
        if ended.any():
            assert (vg.arrays.turn[ended] == 1).all(), "an ended game did not restart"
            assert (before[ended] == 2).all()
            assert truncated[ended].all() or terminated[ended].any()
        assert not vg.arrays.over.any()
    assert vg.legal_mask().any(axis=1).all()


def test_without_autoreset_finished_games_stay_over_and_their_actions_are_ignored() -> None:
    vg = VectorGame(16, seed=4, max_turns=1, autoreset=False)
    rng = np.random.default_rng(0)
    for _ in range(30):
        vg.step(_random_actions(vg, rng))
    assert vg.arrays.over.all()
    assert not vg.legal_mask().any()
    assert (vg.decider == -1).all()
    reward, terminated, truncated = vg.step(np.full(16, 999))
    assert not reward.any() and not terminated.any() and not truncated.any()


def test_to_states_and_from_states_give_back_the_same_games_and_both_engines_continue_alike():
    vg = VectorGame(6, seed=11, num_players=3)
    _play(vg, 25)
    states = vg.to_states()
    again = VectorGame.from_states(states, seed=12)
    assert again.to_states() == states
    rngs = [again.stream(g) for g in range(6)]
    refs = [s.copy() for s in states]
    for _ in range(40):
        actions = np.array([legal_actions(s)[0] for s in refs])
        again.step(actions)
        for g in range(6):
            over = refs[g].over
            refs[g] = step(refs[g], int(actions[g]), rngs[g])
            if refs[g].over and not over:
                refs[g] = new_game(refs[g].config, rngs[g])
        assert again.to_states() == refs


def test_roles_split_live_games_by_who_decides_and_random_legal_draws_legal_actions() -> None:
    game = VectorGame(24, 5, num_players=3, card_sets="all", difficulty="doomed", autoreset=False)
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(80):
        mask = game.legal_mask()
        actions = game.random_legal(mask, rng)
        players, group = game.roles()
        states = game.to_states()
        for g, s in enumerate(states):
            role = "player" if g in players else "group" if g in group else "over"
            want = "over" if s.over else "player" if s.decider == s.active % 3 else "group"
            assert role == want, (g, role, want)
            seen.add(role)
            if not s.over:
                assert mask[g, actions[g]], (g, actions[g])
        game.step(actions)
    assert seen == {"player", "group", "over"}


@pytest.mark.parametrize(
    ("actions", "words"),
    [
        (np.zeros(3, np.int64), "shape"),
        (np.zeros((4, 1), np.int64), "shape"),
        (np.zeros(4, np.float32), "dtype"),
        (np.full(4, 259), "0..258"),
        (np.full(4, PASS), "not legal"),
    ],
)
def test_bad_actions_raise_naming_them_and_change_no_game(actions, words) -> None:
    vg = VectorGame(4, seed=0)
    before = vg.to_states()
    with pytest.raises(ValueError, match=words):
        vg.step(actions)
    assert vg.to_states() == before


def test_an_illegal_action_in_one_game_names_that_game_and_changes_none() -> None:
    vg = VectorGame(5, seed=0)
    actions = np.argmax(vg.legal_mask(), axis=1)
    actions[3] = PASS  # the active player must play: pass is not legal
    before = vg.to_states()
    with pytest.raises(ValueError, match="game 3: action 42"):
        vg.step(actions)
    assert vg.to_states() == before


def test_card_sets_the_batched_engine_does_not_cover_are_refused_by_name(monkeypatch) -> None:
    from shipwreck_env.vector import convert, game

    monkeypatch.setattr(game, "COVERED_SETS", ("base",))
    monkeypatch.setattr(convert, "COVERED_CARD_SETS", ("base",))
    with pytest.raises(ValueError, match="covered: \\['base'\\]"):
        VectorGame(2, card_sets="all")
    states = [new_game(GameConfig(card_sets="base,kickstarter"), 0)]
    with pytest.raises(ValueError, match="card_sets"):
        VectorGame.from_states(states)


@pytest.mark.parametrize(
    "card_sets", ["base,gencon", "base,kickstarter", "base,stars_below", "all"]
)
def test_every_card_set_runs(card_sets: str) -> None:
    vg = VectorGame(8, seed=1, num_players=3, card_sets=card_sets)
    for _ in range(40):
        mask = vg.legal_mask()
        vg.step(np.array([np.flatnonzero(row)[-1] for row in mask]))
    assert vg.observe().shape == (8, vg.layout.size)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (dict(num_games=0), "num_games 0"),
        (dict(num_games=2, players=3), "unknown"),
        (dict(num_games=2, num_players=6), "num_players 6"),
        (dict(num_games=2, reward="points"), "reward 'points'"),
    ],
)
def test_bad_arguments_raise_naming_them(kwargs, words) -> None:
    with pytest.raises(ValueError, match=words):
        VectorGame(**kwargs)


def test_observations_and_masks_have_the_documented_shapes() -> None:
    vg = VectorGame(7, seed=0, num_players=4, belief=True)
    assert vg.observe().shape == (7, vg.layout.size)
    assert vg.observe().dtype == np.float32
    assert vg.legal_mask().shape == (7, 259)
    assert vg.decider.shape == (7,)
    assert 0 < vg.memory_per_game() < 20_000


def test_without_numba_the_import_fails_naming_it() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['numba'] = None\n"
        "try:\n    import shipwreck_env.vector\n"
        "except ImportError as error:\n    print(error)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "needs numba" in out.stdout and "pip install numba" in out.stdout


def test_the_compiled_rules_are_cached_under_a_stamp_of_every_module_they_read() -> None:
    from shipwreck_env.vector import engine, jit

    locator = engine.step_games._cache._impl.locator
    assert type(locator).__name__.startswith("Stamped")
    assert locator.get_source_stamp() == jit._sources_stamp()
    assert any(path.endswith("vector/ops.py") for path in jit._COMPILED_FROM)


def test_a_batched_agents_kernels_are_stamped_with_the_files_they_compile_in(tmp_path) -> None:
    """The batched Bayesian group compiles in the batched heuristic and the rules: its
    cache must go stale when those change, not only when its own file does."""
    from numba.core import caching

    from shipwreck_agents.scripted import bayes
    from shipwreck_agents.scripted import bayes_batched as vector_bayes
    from shipwreck_agents.scripted import heuristic_batched as vector_heuristic
    from shipwreck_env.vector import jit

    def stamp(owner, depends) -> str:
        kept = list(caching.CacheImpl._locator_classes)
        try:
            jit.stamp_cache(str(owner), tuple(str(d) for d in depends))
            locator = caching.CacheImpl._locator_classes[1].from_function(stamp, str(owner))
            assert caching.CacheImpl._locator_classes[1].from_function(stamp, __file__) is None
            return locator.get_source_stamp()
        finally:
            caching.CacheImpl._locator_classes[:] = kept

    owner, depend = tmp_path / "kernel.py", tmp_path / "helper.py"
    owner.write_text("x = 1\n")
    depend.write_text("y = 1\n")
    first = stamp(owner, [depend])
    assert stamp(owner, [depend]) == first
    depend.write_text("y = 2\n")
    assert stamp(owner, [depend]) != first

    group = vector_bayes._predict_value._cache._impl.locator
    assert group.get_source_stamp() == stamp(
        vector_bayes.__file__, [vector_heuristic.__file__, bayes.__file__]
    )
    assert vector_heuristic._fading._cache._impl.locator.get_source_stamp() == stamp(
        vector_heuristic.__file__, []
    )
