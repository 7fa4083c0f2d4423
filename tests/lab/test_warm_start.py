"""lab/runs/warm_start_run.py: a fast run that starts from an exported network."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from shipwreck_agents.learned.actor_critic import ActorCritic, export_sb3, load_sb3, widen

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "lab" / "runs" / "warm_start_run.py"
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
    from shipwreck_env.rules.actions import NUM_ACTIONS
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


def test_widen_keeps_the_function_and_its_new_units_learn() -> None:
    torch.manual_seed(3)
    narrow = ActorCritic(40, 12, (8, 6), fate_head=True)
    obs = torch.randn(64, 40)
    mask = torch.rand(64, 12) > 0.3
    mask[:, 0] = True
    wide = widen(narrow, (16, 10))
    assert wide.hidden == (16, 10)
    before, after = narrow(obs, mask), wide(obs, mask)
    for a, b in zip(before, after, strict=True):
        assert torch.allclose(a, b, atol=1e-6)
    # the new units compute something and the weights out of them get a gradient
    assert wide.mlp_extractor.policy_net(obs)[:, 6:].abs().sum() > 0
    logits, values, _ = wide(obs, mask)
    (logits.masked_fill(~mask, 0).sum() + values.sum()).backward()
    assert wide.action_net.weight.grad[:, 6:].abs().sum() > 0
    assert wide.value_net.weight.grad[:, 6:].abs().sum() > 0


def test_widen_refuses_a_narrower_or_deeper_network() -> None:
    narrow = ActorCritic(10, 4, (8, 8))
    for hidden in [(4, 8), (8, 8, 8), (16,)]:
        with pytest.raises(ValueError, match=r"cannot widen hidden \[8, 8\]"):
            widen(narrow, hidden)


def test_widen_flag_starts_a_wider_run_from_a_narrow_model(tmp_path: Path) -> None:
    model = _model(tmp_path, (16, 16))
    run = tmp_path / "run"
    wide = [*SMALL[:-2], "ppo.hidden=[24,24]", "ppo.minibatch_size=32"]
    done = _run(str(model), str(run), "--widen", "--config", "configs/fast/imitation.yaml", *wide)
    assert done.returncode == 0, done.stderr
    start = torch.load(run / "checkpoints" / "latest.pt", weights_only=False)["model"]
    theirs = load_sb3(model).state_dict()
    first = "mlp_extractor.policy_net.0.weight"
    assert start[first].shape[0] == 24 and torch.equal(start[first][:16], theirs[first])
    assert not start["action_net.weight"][:, 16:].any()
