"""The fast PPO trainer (shipwreck_training.fast): learning, resume, masks, seats, export."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import merged

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from shipwreck_agents.learned.actor_critic import ActorCritic, export_sb3  # noqa: E402
from shipwreck_env.rules.actions import NUM_ACTIONS  # noqa: E402
from shipwreck_training.fast.config import from_dict, load_config  # noqa: E402
from shipwreck_training.fast.ppo import Rollout, Trainer, advantages  # noqa: E402
from shipwreck_training.fast.run import train  # noqa: E402


def _config(**extra):
    data = {
        "name": "test",
        "num_games": 32,
        "rollout_steps": 8,
        "total_steps": 768,
        "checkpoint_every": 256,
        "torch_threads": 1,
        "env": {"belief": "literal"},
        "ppo": {"minibatch_size": 64, "hidden": [32, 32], "epochs": 2},
        "eval": {"every": 0, "games": 4},
    }
    return from_dict(merged(data, extra))


def _params(model) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


def _loss_on(trainer: Trainer, rollout: Rollout) -> tuple[float, float]:
    """(PPO surrogate gain, value loss) of the current network on ``rollout``."""
    adv, target = advantages(rollout, 0.99, 0.95)
    with torch.no_grad():
        obs, mask = rollout.obs.flatten(0, 1), rollout.mask.flatten(0, 1)
        logits, values, _ = trainer.model(obs, mask)
        logp = torch.log_softmax(logits, -1).gather(-1, rollout.actions.flatten()[:, None])
        ratio = (logp.squeeze(-1) - rollout.logp.flatten()).exp()
        gain = float((ratio * adv.flatten()).mean() - adv.flatten().mean())
        return gain, float(((values - target.flatten()) ** 2).mean())


def test_update_fits_its_own_rollout():
    trainer = Trainer(_config(ppo={"epochs": 8}))
    rollout = trainer.collect()
    gain0, value0 = _loss_on(trainer, rollout)
    trainer.update(rollout)
    gain1, value1 = _loss_on(trainer, rollout)
    assert abs(gain0) < 1e-6
    assert gain1 > 0.01  # actions with positive advantage became more likely
    assert value1 < 0.8 * value0


def test_resumed_run_has_the_same_parameters_as_an_uninterrupted_one(tmp_path):
    cfg = _config(env={"belief": "policy"})
    straight = train(cfg, tmp_path / "a")
    train(cfg, tmp_path / "b", stop_after=256)
    resumed = train(cfg, tmp_path / "b", resume=True)
    assert resumed.global_step == straight.global_step == 768
    for p, q in zip(_params(straight.model), _params(resumed.model), strict=True):
        assert torch.equal(p, q)
    assert (tmp_path / "a" / "model.pth").exists() and (tmp_path / "a" / "eval.jsonl").exists()


def test_overlapped_resumed_run_has_the_same_parameters_as_an_uninterrupted_one(tmp_path):
    cfg = _config(overlap=True, env={"belief": "policy"}, ppo={"shared_first_layer": True})
    straight = train(cfg, tmp_path / "a")
    train(cfg, tmp_path / "b", stop_after=256)  # stops with a rollout in flight
    resumed = train(cfg, tmp_path / "b", resume=True)
    assert resumed.global_step == straight.global_step == 768
    assert resumed.update_index == straight.update_index == 3  # the last rollout learned too
    for p, q in zip(_params(straight.model), _params(resumed.model), strict=True):
        assert torch.equal(p, q)


def test_collector_process_gives_the_parameters_of_the_collecting_thread(tmp_path):
    def run(overlap: str, folder: str) -> Trainer:
        return train(_config(overlap=overlap, env={"belief": "policy"}), tmp_path / folder)

    thread, process = run("thread", "thread"), run("process", "process")
    assert process.global_step == thread.global_step == 768
    assert process.update_index == thread.update_index == 3
    for p, q in zip(_params(thread.model), _params(process.model), strict=True):
        assert torch.equal(p, q)


@pytest.mark.slow  # three runs, two collector processes: about 40 s on a loaded machine
def test_resumed_run_with_a_collector_process_has_the_same_parameters(tmp_path):
    cfg = _config(overlap="process", env={"belief": "policy"})
    # the thread form gives the process form's parameters (test above), in less time
    straight = train(_config(overlap="thread", env={"belief": "policy"}), tmp_path / "a")
    train(cfg, tmp_path / "b", stop_after=256)  # stops with a rollout in flight
    resumed = train(cfg, tmp_path / "b", resume=True)
    assert resumed.global_step == straight.global_step == 768
    for p, q in zip(_params(straight.model), _params(resumed.model), strict=True):
        assert torch.equal(p, q)


def test_overlap_true_and_false_still_read_as_thread_and_off():
    assert (_config(overlap=True).overlap, _config(overlap=False).overlap) == ("thread", "off")


def test_overlapped_rollout_stores_the_collecting_networks_log_probabilities():
    trainer = Trainer(_config(overlap=True))
    trainer.train_step()  # learns from the first rollout while collecting the second
    r = trainer.pending
    obs, mask = r.obs.flatten(0, 1), r.mask.flatten(0, 1)
    actions = r.actions.flatten()[:, None]

    def logp(model) -> torch.Tensor:
        with torch.no_grad():
            return torch.log_softmax(model.logits(obs, mask), -1).gather(-1, actions).squeeze(-1)

    assert torch.allclose(logp(trainer.behaviour), r.logp.flatten(), atol=1e-5)
    assert not torch.allclose(logp(trainer.model), r.logp.flatten(), atol=1e-5)  # one behind
    trainer.close()


def test_shared_first_layer_is_one_parameter_and_exports_as_two_equal_layers(tmp_path):
    from shipwreck_agents.learned.actor_critic import load_sb3

    torch.manual_seed(0)
    model = ActorCritic(40, NUM_ACTIONS, (16, 8), shared_first_layer=True)
    assert (
        len(list(model.parameters()))
        == len(list(ActorCritic(40, NUM_ACTIONS, (16, 8)).parameters())) - 2
    )
    export_sb3(model, tmp_path / "m.pth")
    loaded = load_sb3(tmp_path / "m.pth")
    obs, mask = torch.randn(64, 40), torch.rand(64, NUM_ACTIONS) < 0.5
    logits, values, _ = model(obs, mask)
    assert torch.allclose(loaded.logits(obs, mask), logits, atol=1e-6)
    assert torch.allclose(loaded.value(obs), values, atol=1e-6)


def test_masked_sampling_never_picks_an_illegal_action():
    torch.manual_seed(0)
    model = ActorCritic(20, NUM_ACTIONS, (16,))
    with torch.no_grad():
        model.action_net.bias[:] = torch.linspace(-50, 50, NUM_ACTIONS)  # push to illegal ones
    gen = torch.Generator().manual_seed(0)
    obs = torch.randn(4096, 20)
    mask = torch.rand(4096, NUM_ACTIONS) < 0.02
    mask[torch.arange(4096), torch.randint(0, NUM_ACTIONS, (4096,))] = True
    for _ in range(5):
        actions, logp, _ = model.act(obs, mask, gen)
        assert mask[torch.arange(4096), actions].all()
        assert torch.isfinite(logp).all()
    assert mask[torch.arange(4096), model.greedy(obs, mask)].all()


def test_selfplay_learns_every_seat_and_role_with_one_network():
    trainer = Trainer(_config())
    rollout = trainer.collect()
    assert rollout.learn.all()
    deciders = {int(o[:].nonzero()[0]) for o in rollout.obs.flatten(0, 1)[:, 9:12]}
    assert deciders == {0}  # seat-relative: the decider always sees itself as player 0
    phases = rollout.obs.flatten(0, 1)[:, :9].argmax(-1).unique().tolist()
    assert {0, 4} <= set(phases)  # plays and group decisions in the same batch


@pytest.mark.parametrize("regime", ["play", "predict"])
def test_scripted_partner_takes_exactly_the_other_role(regime):
    trainer = Trainer(_config(regime=regime, partner="random"))
    g = trainer.games
    active = g.field("active") % g.num_players
    before_active = g.field("decider") == active
    rollout = trainer.collect()
    learn0 = rollout.learn[0].numpy()
    assert (learn0 == (before_active if regime == "play" else ~before_active)).all()
    assert rollout.learn.any() and not rollout.learn.all()


def test_advantages_do_not_cross_a_finished_game():
    T, N = 4, 1
    r = Rollout(
        obs=torch.zeros(T, N, 1),
        mask=torch.ones(T, N, 1, dtype=torch.bool),
        actions=torch.zeros(T, N, dtype=torch.long),
        logp=torch.zeros(T, N),
        values=torch.tensor([[0.5], [0.5], [9.0], [9.0]]),
        rewards=torch.tensor([[0.0], [1.0], [0.0], [0.0]]),
        dones=torch.tensor([[False], [True], [False], [False]]),
        learn=torch.ones(T, N, dtype=torch.bool),
        fate=torch.full((T, N), -1),
        last_value=torch.tensor([9.0]),
    )
    adv, target = advantages(r, gamma=1.0, lam=1.0)
    assert torch.allclose(target[:2, 0], torch.tensor([1.0, 1.0]))
    assert torch.allclose(adv[:2, 0], torch.tensor([0.5, 0.5]))


def test_exported_model_plays_as_the_network_in_the_ppo_loader(tmp_path):
    from shipwreck_agents.learned.sb3 import load_policy

    trainer = Trainer(_config())
    export_sb3(trainer.model, tmp_path / "m.pth")
    policy = load_policy(str(tmp_path / "m.pth"))
    obs, mask = trainer.games.observe(), trainer.games.legal_mask()
    greedy = trainer.model.greedy(torch.from_numpy(obs), torch.from_numpy(mask)).numpy()
    for i in range(8):
        action, _ = policy.policy.predict(obs[i], action_masks=mask[i], deterministic=True)
        assert int(action) == greedy[i]


def test_shipped_configs_load():
    from pathlib import Path

    paths = sorted(Path(__file__).resolve().parents[2].glob("configs/fast/*.yaml"))
    assert paths
    for path in paths:
        load_config(path)


@pytest.mark.parametrize(
    "bad",
    [
        {"regime": "nope"},
        {"regime": "play"},
        {"num_games": 30},
        {"ppo": {"hidden": []}},
        {"env": {"belief": "magic"}},
        {"unknown": 1},
        {"partner_workers": 2},
        {"overlap": "processes"},
        {"regime": "play", "partner": "bayes", "partner_workers": -1},
    ],
)
def test_bad_config_values_are_refused(bad):
    with pytest.raises(ValueError):
        _config(**bad)


def test_imitation_copies_a_scripted_teacher():
    from shipwreck_training.fast.config import ImitationSettings
    from shipwreck_training.fast.imitation import imitate

    trainer = Trainer(_config())
    figures = imitate(
        trainer, ImitationSettings(play="random:0.9", group="random:0.9", steps=512, epochs=30)
    )
    assert figures["decisions"] == 512
    # random:0.9 passes whenever it may: the copy learns to pass there too
    assert figures["agreement"] > 0.6


def test_a_checkpoint_exports_as_a_policy_with_its_role(tmp_path):
    import json

    from shipwreck_agents.learned.sb3 import load_policy
    from shipwreck_training.fast.run import evaluate_checkpoint, export_checkpoint

    train(_config(total_steps=256), tmp_path / "run")
    info = export_checkpoint(tmp_path / "run", tmp_path / "team.pth")
    assert info["role"] == "self" and info["spec"] == f"ppo:{tmp_path / 'team.pth'}"
    assert json.loads((tmp_path / "team.meta.json").read_text())["steps"] == 256
    assert load_policy(str(tmp_path / "team.pth")).belief
    record = evaluate_checkpoint(tmp_path / "run", games=3)
    assert record["step"] == 256 and record["results"]["doomed"]["games"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ppo.learnig_rate=1e-4"], "ppo.learnig_rate is not a known key; allowed: ["),
        (["ppo.epochs=0"], "ppo.epochs 0 is not allowed; allowed: input should be greater than 0"),
        (
            ["regime=play", "partner=fast:missing.pth"],
            "partner: model file 'missing.pth' does not exist",
        ),
        (["env.belief=magic"], "env.belief 'magic' is not allowed"),
    ],
)
def test_command_reports_bad_input_in_one_line_and_writes_nothing(tmp_path, capsys, args, message):
    from shipwreck_training.fast.run import main

    runs = tmp_path / "runs"
    config = str(Path(__file__).resolve().parents[2] / "configs" / "fast" / "selfplay.yaml")
    assert main(["--config", config, "--runs", str(runs), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and err.count("\n") == 1
    assert not runs.exists()


def test_command_refuses_a_missing_config_file(tmp_path, capsys):
    from shipwreck_training.fast.run import main

    assert main(["--config", str(tmp_path / "nope.yaml"), "--runs", str(tmp_path)]) == 2
    assert "nope.yaml' does not exist" in capsys.readouterr().err


def test_overrides_are_yaml_scalars():
    path = Path(__file__).resolve().parents[2] / "configs" / "fast" / "selfplay.yaml"
    cfg = load_config(
        path, ["ppo.learning_rate=1e-4", "ppo.anneal_lr=false", "env.difficulties=[easy]"]
    )
    assert (cfg.ppo.learning_rate, cfg.ppo.anneal_lr, cfg.env.difficulties) == (
        1e-4,
        False,
        ("easy",),
    )


def test_a_finished_run_announces_its_final_evaluation_and_prints_a_summary(tmp_path, capsys):
    train(_config(total_steps=256), tmp_path / "run")
    out = capsys.readouterr().out
    assert "final evaluation: 4 greedy games per difficulty" in out
    assert "test: 256 learner steps in" in out and "evaluations not counted" in out
    assert "  doomed: win rate" in out and "model: " in out


def test_a_run_stopped_early_says_how_to_continue(tmp_path, capsys):
    train(_config(total_steps=512), tmp_path / "run", stop_after=256)
    assert "continue with: python -m shipwreck_training.fast --resume" in capsys.readouterr().out


@pytest.mark.parametrize("flag", ["--resume", "--export", "--evaluate"])
def test_a_folder_that_is_not_a_run_is_refused_in_one_line(tmp_path, capsys, flag):
    from shipwreck_training.fast.run import main

    args = [flag, str(tmp_path)] + (["--to", str(tmp_path / "x.pth")] if flag == "--export" else [])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and str(tmp_path) in err


@pytest.mark.slow  # a subprocess and a collector process: about 30 s on a loaded machine
def test_ctrl_c_prints_one_line_and_exits_130_with_the_checkpoint_intact(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    import yaml

    cfg = _config(total_steps=10_000_000, overlap="process", env={"belief": "policy"})
    (tmp_path / "run.yaml").write_text(yaml.safe_dump(cfg.to_dict()))
    runs = tmp_path / "runs"
    command = [sys.executable, "-m", "shipwreck_training.fast", "--config", "run.yaml"]
    job = subprocess.Popen(
        [*command, "--runs", str(runs)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        # a terminal's Ctrl-C reaches a run whose SIGINT is the default: a child started
        # with SIGINT ignored keeps ignoring it (Python then installs no handler), and in
        # a fresh clone's CI something earlier in the same xdist worker left it ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    inherited = signal.getsignal(signal.SIGINT)
    deadline = time.monotonic() + 300
    while not list(runs.glob("*/checkpoints/latest.pt")) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)  # well inside the updates after the first checkpoint
    job.send_signal(signal.SIGINT)
    try:  # a hang guard, not a speed check: a fresh clone's CI ran at a few hundred steps/s
        _, err = job.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        job.kill()
        _, err = job.communicate()
        steps = list(runs.glob("*/checkpoints/latest.pt"))
        pytest.fail(
            f"no exit 300 s after SIGINT (this test's SIGINT handler: {inherited!r}); "
            f"checkpoints {steps}; stderr ends {err[-2000:]!r}"
        )
    assert job.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    (run,) = runs.iterdir()
    last = err.strip().splitlines()[-1]
    assert last.startswith("interrupted at ") and last.endswith(f"--resume {run}"), err
    assert f"last checkpoint {run / 'checkpoints' / 'latest.pt'}" in last
    state = torch.load(run / "checkpoints" / "latest.pt", weights_only=False)
    assert state["global_step"] >= 256 and f"({state['global_step']:,} steps)" in last
