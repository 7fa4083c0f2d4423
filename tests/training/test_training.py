"""Training: config validation, and a short smoke run of every regime with resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from shipwreck_agents.evaluation.evaluate import evaluate
from shipwreck_agents.registry import make_policy
from shipwreck_training.common.config import apply_overrides
from shipwreck_training.sb3.config import from_dict, load_config
from shipwreck_training.sb3.train import main as train_main

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "sb3"
SMOKE = [
    "engine=reference",
    "total_timesteps=256",
    "n_envs=2",
    "vec_env=dummy",
    "checkpoint_every=64",
    "ppo.n_steps=64",
    "ppo.batch_size=32",
    "ppo.n_epochs=1",
    "ppo.net_arch=[32]",
    "eval.every=128",
    "eval.games=2",
    "eval.final_games=3",
    "eval.difficulties=[normal]",
]


SB3_CONFIGS = sorted(CONFIGS.glob("*.yaml"))
"""The configs of ``shipwreck_training.sb3`` (configs/fast/ and configs/rllib/ are tested in
tests/training/test_fast_ppo.py and tests/training/test_rllib_policy.py)."""


@pytest.mark.parametrize("path", SB3_CONFIGS, ids=lambda p: p.stem)
def test_shipped_configs_are_valid(path):
    cfg = load_config(path)
    assert cfg.name == path.stem
    assert path.stem.startswith(cfg.regime)
    assert cfg.env.num_players == 3


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("colour=blue", "colour"),
        ("ppo.lerning_rate=0.1", "lerning_rate"),
        ("ppo.learning_rate=-1", "ppo.learning_rate"),
        ("env.num_players=9", "num_players 9"),
        ("env.difficulties=[medium]", "'medium'"),
        ("regime=solo", "'solo'"),
        ("partner=nobody", "nobody"),
        ("n_envs=0", "n_envs 0"),
        ("eval.games=0", "eval.games 0"),
        ("env.reward=points", "'points'"),
        ("ppo.net_arch=[0]", "ppo.net_arch"),
        ("vec_env=threads", "'threads'"),
        ("imitation.team=heuristic+bayes", "imitation: 'team' is an old key name; allowed: 'play'"),
        ("imitation.batch_size=64", "'batch_size' is an old key name; allowed: 'minibatch_size'"),
        ("imitation.group=nobody", "nobody"),
        ("imitation.games=-1", "imitation.games -1"),
        ("env.belief=1", "env.belief 1"),
        ("env.belief=policy", "env.belief 'policy' is not allowed for the SB3 trainer with engine"),
        ("ppo.gamma=true", "ppo.gamma True"),
        ("ppo.gamma=1.5", "ppo.gamma 1.5"),
        ("eval.difficulties=[easy, brutal]", r"eval\.difficulties\.1 'brutal'"),
        ("ppo=[1]", "ppo"),
        ("name=a/b", "name 'a/b'"),
    ],
)
def test_bad_config_values_name_the_key(override, message):
    with pytest.raises(ValueError, match=message):
        load_config(CONFIGS / "play.yaml", [override])


def test_imitation_is_refused_for_the_alternating_regime():
    with pytest.raises(
        ValueError, match=r"imitation\.games 5 is not allowed with regime alternating"
    ):
        load_config(CONFIGS / "alternating.yaml", ["imitation.games=5"])


def test_imitation_warm_start_records_its_fit_and_a_first_evaluation(tmp_path):
    """selfplay_bc: the policy is fitted to scripted choices before PPO; the fit and a
    step-0 evaluation are recorded."""
    runs = tmp_path / "runs"
    args = [
        "--config",
        str(CONFIGS / "selfplay_bc.yaml"),
        "--runs-dir",
        str(runs),
        *SMOKE,
        "imitation.games=4",
        "imitation.epochs=2",
    ]
    assert train_main(args) == 0
    run = _run_dir(runs)
    fit = json.loads((run / "imitation.json").read_text())
    assert fit["games"] == 4 and fit["decisions"] > 0 and len(fit["losses"]) == 2
    first = json.loads((run / "eval.jsonl").read_text().splitlines()[0])
    assert first["steps"] == 0


def test_overrides_parse_values_as_yaml():
    data = apply_overrides({"ppo": {"learning_rate": 1.0}}, ["ppo.learning_rate=1e-4", "seed=3"])
    assert data == {"ppo": {"learning_rate": 1e-4}, "seed": 3}
    with pytest.raises(ValueError, match="key=value"):
        apply_overrides({}, ["seed"])


def test_config_round_trips_through_yaml():
    cfg = load_config(CONFIGS / "alternating.yaml")
    again = from_dict(yaml.safe_load(yaml.safe_dump(cfg.to_dict())))
    assert again == cfg


def test_train_command_reports_a_bad_config(tmp_path, capsys):
    code = train_main(
        ["--config", str(CONFIGS / "play.yaml"), "--runs-dir", str(tmp_path), "n_envs=-2"]
    )
    assert code == 2
    assert "n_envs -2" in capsys.readouterr().err


def test_train_console_script_points_at_the_entry_point():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    pyproject = tomllib.loads((CONFIGS.parent.parent / "pyproject.toml").read_text())
    target = pyproject["project"]["scripts"]["shipwreck-arcana-train"]
    module, _, name = target.partition(":")
    assert __import__(module, fromlist=[name]).__dict__[name] is train_main


def _run_dir(runs: Path) -> Path:
    (run,) = list(runs.iterdir())
    return run


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("play", ["partner=literal:0.5"]),
        ("predict", ["partner=heuristic"]),
        ("selfplay", []),
        ("alternating", ["alternating.rounds=1", "alternating.first_partner_group=literal:0.5"]),
    ],
)
def test_regime_trains_resumes_and_loads_into_the_evaluator(tmp_path, name, extra):
    """A few hundred steps; a second run with a larger budget resumes from the last
    checkpoint; the final model plays in the evaluator."""
    runs = tmp_path / "runs"
    assert (
        train_main(
            ["--config", str(CONFIGS / f"{name}.yaml"), "--runs-dir", str(runs), *SMOKE, *extra]
        )
        == 0
    )
    run = _run_dir(runs)
    for item in ("config.yaml", "command.txt", "summary.json", "tb"):
        assert (run / item).exists(), item
    summary = json.loads((run / "summary.json").read_text())
    assert summary["steps"] >= 256
    if name == "alternating":
        models = [run / summary["models"]["play_model"], run / summary["models"]["predict_model"]]
    else:
        models = [run / "final_model.zip"]
        assert (run / "eval.jsonl").read_text().count("\n") >= 1
        assert list((run / "checkpoints").glob("model_*_steps.zip"))
    for model in models:
        assert model.exists() and Path(str(model)[:-4] + ".meta.json").exists()
        meta = json.loads(Path(str(model)[:-4] + ".meta.json").read_text())
        for key in ("card_sets", "group_decision", "observation_layout", "package_version"):
            assert key in meta, key  # what the model was trained on (shipwreck_agents.learned.sb3)
    # resume with a larger budget: continues from the last checkpoint, keeps the clock
    clock = json.loads((run / "clock.json").read_text())["wall_seconds"]
    if name != "alternating":
        # a run written before the engine key existed resumes on the reference engine
        saved = run / "config.yaml"
        saved.write_text(
            "".join(x for x in saved.read_text().splitlines(True) if "engine" not in x)
        )
        assert train_main(["--resume", str(run), "total_timesteps=384"]) == 0
        assert yaml.safe_load(saved.read_text())["engine"] == "reference"
        resumed = json.loads((run / "summary.json").read_text())
        assert resumed["steps"] >= 384
        assert resumed["wall_seconds"] >= clock
        assert (run / "command.txt").read_text().count("\n") == 2
    # the trained model loads as an agent
    spec = f"ppo:{models[0]}"
    policy = make_policy(spec)
    assert policy.needs_observation
    report = evaluate(
        spec, "literal", players=3, difficulties=["easy"], games=2, seed=0, progress=False
    )
    assert report["results"]["easy"]["games"] == 2


@pytest.mark.slow
def test_alternating_resume_retrains_only_the_missing_phase_and_logs_each_round_once(tmp_path):
    runs = tmp_path / "runs"
    args = [*SMOKE, "total_timesteps=512", "alternating.rounds=2"]
    args += ["alternating.first_partner_group=literal:0.5"]
    config = str(CONFIGS / "alternating.yaml")
    assert train_main(["--config", config, "--runs-dir", str(runs), *args]) == 0
    run = _run_dir(runs)
    log = (run / "eval.jsonl").read_text().splitlines()
    assert [json.loads(line)["label"] for line in log] == ["round 0", "round 1"]
    # simulate an interruption during the last phase: its final model and round never landed
    (run / "predict_1.zip").unlink()
    (run / "summary.json").unlink()
    (run / "eval.jsonl").write_text(log[0] + "\n")
    play_1 = (run / "play_1.zip").read_bytes()
    assert train_main(["--resume", str(run)]) == 0
    assert (run / "play_1.zip").read_bytes() == play_1  # finished phases are not retrained
    resumed = [json.loads(line) for line in (run / "eval.jsonl").read_text().splitlines()]
    assert [entry["label"] for entry in resumed] == ["round 0", "round 1"]
    assert resumed[0] == json.loads(log[0])
    assert resumed[1]["steps"] == json.loads((run / "summary.json").read_text())["steps"]


def test_bad_yaml_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nregime: [selfplay\n")
    assert train_main(["--config", str(bad), "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith(f"error: config file {str(bad)!r} is not YAML at line")
        and err.count("\n") == 1
    )


BATCHED = ["engine=batched", "num_games=8", "ppo.n_steps=16"]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "extra"), [("selfplay", []), ("play", ["partner=literal:0.5"])])
def test_batched_engine_trains_resumes_and_loads_into_the_evaluator(tmp_path, name, extra):
    runs = tmp_path / "runs"
    config = str(CONFIGS / f"{name}.yaml")
    args = ["--config", config, "--runs-dir", str(runs), *SMOKE, *BATCHED, *extra]
    assert train_main(args) == 0
    run = _run_dir(runs)
    assert yaml.safe_load((run / "config.yaml").read_text())["engine"] == "batched"
    summary = json.loads((run / "summary.json").read_text())
    assert summary["steps"] >= 256
    training = summary["wall_seconds"] - summary["eval_seconds"]  # evaluations not counted
    assert summary["steps_per_second"] == pytest.approx(summary["steps"] / training)
    assert train_main(["--resume", str(run), "total_timesteps=384"]) == 0
    assert json.loads((run / "summary.json").read_text())["steps"] >= 384
    report = evaluate(
        f"ppo:{run / 'final_model.zip'}", "literal", difficulties=["easy"], games=2, progress=False
    )
    assert report["results"]["easy"]["games"] == 2


def test_a_budget_below_one_rollout_warns(tmp_path, capsys, monkeypatch):
    import shipwreck_training.sb3.train as sb3_train

    monkeypatch.setattr(sb3_train, "_train_single", lambda cfg, run_dir, resume: {})
    cfg = load_config(CONFIGS / "selfplay.yaml", ["total_timesteps=1000"])
    sb3_train.train(cfg, tmp_path)
    err = capsys.readouterr().err
    assert err.startswith("warning: total_timesteps 1000 is smaller than one rollout (8192 steps")


def test_batched_engine_takes_every_card_set_and_refuses_an_unplayable_one():
    cfg = load_config(CONFIGS / "selfplay.yaml", ["env.card_sets=all"])
    assert cfg.engine == "batched"
    with pytest.raises(ValueError, match=r"card_sets"):
        load_config(CONFIGS / "selfplay.yaml", ["env.card_sets=[gencon]"])
