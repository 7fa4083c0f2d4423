"""Trained-policy loading (agents/learned/sb3.py): saved models, exported networks, shipped
models in results/models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shipwreck_agents.evaluation.evaluate import evaluate
from shipwreck_agents.registry import make_policy

MODELS = Path(__file__).resolve().parents[2] / "results" / "models"
SHIPPED = sorted(MODELS.glob("*.pth"))


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    """A small MaskablePPO play model saved by the training code, and its exported
    policy network (what lab/runs/export_models.py writes)."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    import shipwreck_env  # noqa: F401  (registers the ids)
    from shipwreck_training.sb3.callbacks import save_with_meta

    folder = tmp_path_factory.mktemp("model")
    env = gymnasium.make("ShipwreckArcana-Play-v0", num_players=3, belief=True)
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [16]}, seed=0)
    meta = {"belief": True, "role": "play", "num_players": 3, "challenge_mode": False}
    zip_path = save_with_meta(model, folder / "play.zip", meta)
    pth_path = folder / "play.pth"
    MaskablePPO.load(str(zip_path), device="cpu").policy.save(str(pth_path))
    (folder / "play.meta.json").write_text(json.dumps(meta))
    return zip_path, pth_path


def test_exported_network_plays_exactly_like_its_saved_model(saved_model):
    zip_path, pth_path = saved_model
    kwargs = dict(players=3, difficulties=["normal"], games=6, seed=2, progress=False)
    from_zip = evaluate(f"ppo:{zip_path}", "bayes", **kwargs)["results"]
    from_pth = evaluate(f"ppo:{pth_path}", "bayes", **kwargs)["results"]
    assert from_zip == from_pth


def test_missing_model_file_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        make_policy(f"ppo:{tmp_path / 'nothing.zip'}")


def _text_of(*folders: str) -> str:
    root = MODELS.parent.parent
    paths = [root / "README.md"]
    for folder in folders:
        paths += sorted(p for p in (root / folder).rglob("*") if p.suffix in {".py", ".yaml"})
    return "\n".join(p.read_text() for p in paths if p.resolve() != Path(__file__).resolve())


def test_every_kept_network_is_loaded_by_a_team_a_config_a_test_or_a_shipped_table():
    """``results/models/`` keeps a network only where something loads it (results/README.md,
    "Networks kept"): a team or the web table (agents/, apps/), a training config
    (configs/), a test, or a command of a table the README shows. A planted unused
    network fails this."""
    text = _text_of("agents", "apps", "configs", "tests")
    unused = [
        str(path.relative_to(MODELS))
        for path in sorted(MODELS.rglob("*.pth"))
        if f"models/{path.relative_to(MODELS).as_posix()}" not in text
        and f'"{path.name}"' not in text
        and f"'{path.name}'" not in text
    ]
    assert unused == []


def test_no_network_is_kept_twice():
    """Each network file once, in ``results/models/`` or in the package
    (``agents/models/``, the shipped team): no byte-identical copy."""
    import hashlib

    paths = sorted(MODELS.rglob("*.pth")) + sorted(
        (MODELS.parent.parent / "agents" / "models").glob("*.pth")
    )
    seen: dict[str, list[str]] = {}
    for path in paths:
        seen.setdefault(hashlib.sha256(path.read_bytes()).hexdigest(), []).append(path.name)
    twins = [names for names in seen.values() if len(names) > 1]
    # the same weights read with two belief kinds are two teams, each with its own meta
    assert twins in ([], [["fast_selfplay_imitation.pth", "fast_selfplay_imitation_carry.pth"]])


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_model_loads_and_plays_its_role(path):
    meta = json.loads(path.with_suffix(".meta.json").read_text())
    assert meta["num_players"] == 3 and meta["role"] in ("play", "predict", "self")
    spec = f"ppo:{path}"
    play = spec if meta["role"] in ("play", "self") else "heuristic"
    group = spec if meta["role"] in ("predict", "self") else "bayes"
    report = evaluate(play, group, players=3, difficulties=["normal"], games=2, progress=False)
    assert report["results"]["normal"]["games"] == 2


# --- metadata: what a model was trained on, and refusal of another game --------------------


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_metadata_is_complete(path: Path) -> None:
    from shipwreck_agents.learned.sb3 import GAME_KEYS

    meta = json.loads(path.with_suffix(".meta.json").read_text())
    for key in (*GAME_KEYS, "belief", "observation_layout", "package_version", "commit"):
        assert key in meta, key


@pytest.mark.parametrize(
    ("option", "value"),
    [("card_sets", "all"), ("group_decision", "vote"), ("reveal", False), ("num_players", 4)],
)
def test_a_model_refuses_a_game_it_was_not_trained_for(option: str, value: object) -> None:
    """A model trained on the base cards (leader, reveals, 3 players) refuses to play
    another game, naming the option, instead of playing it silently."""
    with pytest.raises(ValueError, match=f"trained with {option}="):
        evaluate(
            "heuristic",
            f"ppo:{MODELS / 'predict.pth'}",
            difficulties=["easy"],
            games=1,
            progress=False,
            **({"players": value} if option == "num_players" else {option: value}),
        )


def test_check_game_accepts_the_training_game_and_other_difficulties() -> None:
    from shipwreck_agents.learned.sb3 import check_game, game_meta
    from shipwreck_env.rules.config import GameConfig

    meta = game_meta(GameConfig(num_players=3, card_sets="base"), belief=True)
    check_game(meta, GameConfig(num_players=3, difficulty="doomed", max_turns=50))
    check_game({"belief": True}, GameConfig(num_players=3, card_sets="all"))  # old files


def test_check_game_refuses_another_observation_layout() -> None:
    from shipwreck_agents.learned.sb3 import check_game, game_meta
    from shipwreck_env.rules.config import GameConfig

    meta = {**game_meta(GameConfig(num_players=3), belief=True), "observation_layout": "0" * 16}
    with pytest.raises(ValueError, match="observation layout 0000000000000000"):
        check_game(meta, GameConfig(num_players=3))


def _game_inputs(belief: bool, seed: int = 0) -> tuple:
    """Observations and legal masks of 64 games after a few random decisions each."""
    import numpy as np

    from shipwreck_env.vector import VectorGame

    games = VectorGame(64, seed, belief=belief, num_players=3)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    for _ in range(6):
        mask = games.legal_mask()
        obs.append(games.observe().copy())
        masks.append(mask.copy())
        games.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_model_acts_the_same_through_the_shared_network(path):
    """The shared network (shipwreck_agents.learned.actor_critic) rebuilt from a shipped file picks
    exactly the action SB3's own policy picks, on real game states."""
    import torch

    from shipwreck_agents.learned.actor_critic import load_sb3
    from shipwreck_agents.learned.sb3 import load_policy

    sb3 = load_policy(str(path))
    net = load_sb3(path)
    obs, masks = _game_inputs(sb3.belief)
    expected, _ = sb3.policy.predict(obs, action_masks=masks, deterministic=True)
    got = net.greedy(torch.from_numpy(obs), torch.from_numpy(masks)).numpy()
    assert (got == expected).all()
    assert masks[range(len(got)), got].all()
