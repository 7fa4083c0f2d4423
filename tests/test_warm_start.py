"""scripts/warm_start_run.py: a fast run that starts from an exported network."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import torch

from shipwreck_agents.actor_critic import ActorCritic, export_sb3, load_sb3

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "warm_start_run.py"
SMALL = [
    "num_games=16",
    "rollout_steps=4",
    "total_steps=128",
    "torch_threads=1",
    "eval.every=0",
    "checkpoint_every=64",
    "ppo.hidden=[16,16]",
    "ppo.minibatch_size=32",
]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT
    )


def _model(tmp_path: Path, hidden: tuple[int, ...]) -> Path:
    from shipwreck_env.actions import NUM_ACTIONS
    from shipwreck_training.fast.config import load_config
    from shipwreck_training.fast.ppo import Trainer

    cfg = load_config(ROOT / "configs/fast/imitation.yaml", ["imitation.steps=0", *SMALL])
    obs_dim = Trainer(cfg, None).obs_dim
    torch.manual_seed(7)
    model = ActorCritic(obs_dim, NUM_ACTIONS, hidden)
    path = tmp_path / f"model_{len(hidden)}_{hidden[0]}.pth"
    export_sb3(model, path)
    return path


def test_the_run_starts_from_the_model_and_trains_on(tmp_path: Path) -> None:
    model = _model(tmp_path, (16, 16))
    run = tmp_path / "run"
    done = _run(str(model), str(run), "--config", "configs/fast/imitation.yaml", *SMALL)
    assert done.returncode == 0, done.stderr
    start = torch.load(run / "checkpoints" / "latest.pt", weights_only=False)
    theirs = load_sb3(model).state_dict()
    ours = {k: v for k, v in start["model"].items() if k in theirs}
    assert ours and all(torch.equal(ours[k], theirs[k]) for k in theirs)
    trained = subprocess.run(
        [sys.executable, "-m", "shipwreck_training.fast", "--resume", str(run)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert trained.returncode == 0, trained.stderr[-2000:]
    after = torch.load(run / "checkpoints" / "latest.pt", weights_only=False)
    assert after["global_step"] >= 128
    assert any(not torch.equal(after["model"][k], theirs[k]) for k in theirs)


def test_a_model_of_another_width_is_refused_and_nothing_written(tmp_path: Path) -> None:
    model = _model(tmp_path, (32, 32))
    run = tmp_path / "run"
    done = _run(str(model), str(run), "--config", "configs/fast/imitation.yaml", *SMALL)
    assert done.returncode == 2
    assert "does not fit the config's network" in done.stderr and "[16, 16]" in done.stderr
    assert "Traceback" not in done.stderr
    assert not run.exists()


def test_an_existing_run_folder_or_a_bad_key_is_refused(tmp_path: Path) -> None:
    model = _model(tmp_path, (16, 16))
    (tmp_path / "taken").mkdir()
    taken = _run(str(model), str(tmp_path / "taken"))
    assert taken.returncode == 2 and "exists" in taken.stderr
    bad = _run(str(model), str(tmp_path / "new"), "bogus=1")
    assert bad.returncode == 2 and "bogus" in bad.stderr and "Traceback" not in bad.stderr
    assert not (tmp_path / "new").exists()
