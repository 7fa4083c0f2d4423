"""The action scorer's trainer (training/fast/scorer.py) against the reference team that
plays its exports (agents/learned/scorer_team.py): the same logits at every decision of
random batched games, the teacher's labels, the fit and a run that goes on where it
stopped."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from shipwreck_agents.learned.action_scorer import ActionScorer, load_scorer  # noqa: E402
from shipwreck_agents.learned.scorer_team import ScorerTeamPolicy  # noqa: E402
from shipwreck_agents.registry import make_policy  # noqa: E402
from shipwreck_env.envs.policy import decide, observation_layouts  # noqa: E402
from shipwreck_env.rules.action_features import NUM_FEATURES, column  # noqa: E402
from shipwreck_env.rules.actions import NUM_ACTIONS  # noqa: E402
from shipwreck_env.rules.observation import encode  # noqa: E402
from shipwreck_training.common.games import Games  # noqa: E402
from shipwreck_training.fast import scorer  # noqa: E402
from shipwreck_training.fast.config import load_config  # noqa: E402

CONFIG = "configs/fast/scorer_imitation.yaml"


def _cfg(*overrides: str):
    return load_config(CONFIG, list(overrides))


def _saved(tmp_path, cfg, seed: int = 3, belief: str = "literal") -> str:
    """A random scorer saved as the trainer saves one (weights and ``.meta.json``)."""
    torch.manual_seed(seed)
    layout = Games(cfg.env, len(cfg.env.difficulties), 0).layout
    model = ActionScorer(
        layout.size, NUM_ACTIONS, NUM_FEATURES, (32, 32), 16, layout.offsets["belief"]
    )
    with torch.no_grad():  # livelier scores than the initial ones, so ties are rare
        model.score.weight.mul_(300.0)
        model.from_features.weight[:, -1].mul_(20.0)  # and the belief column counts
    path = tmp_path / "scorer.pth"
    scorer._save(model, cfg, path, {}, belief)
    return str(path)


def _largest_difference(cfg, policy: ScorerTeamPolicy, decisions: int, seed: int) -> tuple:
    """Random batched games: (largest |batched logit - reference logit| over legal actions,
    decisions compared, decisions whose greedy choices differ)."""
    games = Games(cfg.env, 8, seed)
    rng = np.random.default_rng(seed)
    worst, compared, other_choice = 0.0, 0, 0
    model = policy.model
    while compared < decisions:
        obs, mask, ids, rows, valid = scorer.decisions(games)
        with torch.no_grad():
            batched = model.logits_rows(
                *(torch.from_numpy(x) for x in (obs, ids, rows, valid))
            ).numpy()
            choice = model.greedy_rows(*(torch.from_numpy(x) for x in (obs, ids, rows, valid)))
        states = [s for part in games.parts for s in part.to_states(list(range(part.num_games)))]
        for i, s in enumerate(states):
            layout = observation_layouts(s.config)[True]
            ref_obs = encode(s, s.decider, layout)
            assert np.array_equal(ref_obs, obs[i]), "the engines' observations differ"
            ref = policy.logits(ref_obs, mask[i], s)
            legal = ids[i][valid[i]]
            worst = max(worst, float(np.abs(ref[legal] - batched[i][valid[i]]).max()))
            other_choice += int(np.argmax(ref) != int(choice[i]))
            compared += 1
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        games.step(actions)
    return worst, compared, other_choice


def test_the_trainer_and_the_reference_team_give_the_same_logits(tmp_path):
    cfg = _cfg()
    policy = ScorerTeamPolicy(_saved(tmp_path, cfg))
    worst, compared, other_choice = _largest_difference(cfg, policy, 1200, seed=5)
    assert compared >= 1200
    assert worst < 1e-4
    assert other_choice == 0


def test_a_planted_change_to_one_feature_fails_the_comparison(tmp_path, monkeypatch):
    from shipwreck_agents.learned import scorer_team

    real = scorer_team.action_features

    def planted(s, observer):
        block = real(s, observer)
        block[:, column("forced")] = 0.0  # the reference forgets how forced a play is
        return block

    monkeypatch.setattr(scorer_team, "action_features", planted)
    cfg = _cfg()
    policy = ScorerTeamPolicy(_saved(tmp_path, cfg))
    worst, _, _ = _largest_difference(cfg, policy, 400, seed=5)
    assert worst > 1e-3


def test_the_recording_labels_what_the_teacher_played():
    cfg = _cfg()
    settings = cfg.imitation.model_copy(update={"steps": 600})
    data = scorer.record(cfg, settings, num_games=8)
    assert len(data) == 600
    chosen = data.ids[np.arange(len(data)), data.label]
    assert np.array_equal(chosen, data.taken)  # the teacher played its own labels
    assert data.valid[np.arange(len(data)), data.label].all()
    assert (data.valid.sum(1) > 1).all()  # one-action decisions are left out
    # the same seed records the same decisions
    again = scorer.record(cfg, settings, num_games=8)
    assert np.array_equal(again.obs, data.obs) and np.array_equal(again.label, data.label)


def test_the_fit_raises_agreement_with_the_teacher():
    cfg = _cfg()
    data = scorer.record(cfg, cfg.imitation.model_copy(update={"steps": 3000}), num_games=16)
    torch.manual_seed(0)
    model = ActionScorer(data.obs.shape[1], NUM_ACTIONS, NUM_FEATURES, (64, 64), 32)
    diffs = tuple(cfg.env.difficulties)
    before = scorer.agreement(model, data, diffs)["all"][0]
    scorer.fit(model, data, 3, 256, 1e-3, torch.Generator().manual_seed(0))
    after = scorer.agreement(model, data, diffs)
    assert after["all"][0] > before + 0.15
    assert after["all"][1] == len(data)
    assert sum(v[1] for k, v in after.items() if k.startswith("phase")) == len(data)


def test_an_export_plays_through_the_registry_and_refuses_another_game(tmp_path):
    from shipwreck_env.rules.config import GameConfig
    from shipwreck_env.rules.engine import new_game, step_inplace

    cfg = _cfg()
    path = _saved(tmp_path, cfg)
    policy = make_policy(f"fast:{path}")
    assert isinstance(policy, ScorerTeamPolicy) and policy is make_policy(f"fast:{path}")
    meta = json.loads((tmp_path / "scorer.meta.json").read_text())
    assert meta["network"] == "action_scorer" and meta["num_players"] == 3
    config = GameConfig(num_players=3, difficulty="normal")
    rng = np.random.default_rng(0)
    s = new_game(config, rng)
    layouts = observation_layouts(config)
    while not s.over:
        step_inplace(s, decide(policy, s, layouts, rng).action, rng)
    s4 = new_game(GameConfig(num_players=4), rng)
    with pytest.raises(ValueError, match="num_players"):
        decide(policy, s4, observation_layouts(s4.config), rng)


def test_a_stopped_run_goes_on_from_its_last_round(tmp_path):
    args = [
        "--data", str(tmp_path / "data"), "--out", str(tmp_path / "out"),
        "--models", str(tmp_path / "models"), "--held-out", "300", "--round-steps", "300",
        "--round-epochs", "1", "imitation.steps=600", "imitation.epochs=1",
        "ppo.hidden=[32,32]",
    ]  # fmt: skip
    assert scorer.main([*args, "--rounds", "1", "--games", "0"]) == 0
    first = load_scorer(tmp_path / "models" / "round1.pth")
    assert scorer.main([*args, "--rounds", "2", "--games", "2"]) == 0
    report = json.loads((tmp_path / "out" / "scorer.json").read_text())
    assert set(report["win_rates"]) == {"normal", "hard", "doomed"}
    assert all(w["games"] == 2 for w in report["win_rates"].values())
    assert "| doomed |" in (tmp_path / "out" / "README.md").read_text()
    assert [s["stage"] for s in report["stages"]] == ["round0", "round1", "round2"]
    assert report["stages"][2]["decisions"] == 600 + 2 * 300
    again = load_scorer(tmp_path / "models" / "round1.pth")
    for a, b in zip(first.state_dict().values(), again.state_dict().values(), strict=True):
        assert torch.equal(a, b)  # round 1 was not fitted again


def _policy_lockstep(cfg, path: str, decisions: int, seed: int) -> tuple[int, int, int]:
    """The trainer's batched games with the policy-conditioned block (ScorerBelief) and
    one reference team per game deciding on the same states: (decisions compared, those
    decided otherwise, group observations whose block the trainer rewrote)."""
    model = load_scorer(path)
    games = Games(cfg.env, 8, seed)
    belief = scorer.ScorerBelief(games.num_games, games.layout.offsets["belief"])
    teams = [ScorerTeamPolicy(path) for _ in range(games.num_games)]
    rng = np.random.default_rng(seed)
    compared = other = rewritten = 0
    while compared < decisions:
        obs, _, ids, rows, valid = scorer.decisions(games)
        states = scorer._states(games)
        literal = obs.copy()
        belief.fill(obs, states)
        rewritten += int((obs != literal).any(1).sum())
        with torch.no_grad():
            actions = model.greedy_rows(
                *(torch.from_numpy(x) for x in (obs, ids, rows, valid))
            ).numpy()
        for i, s in enumerate(states):
            layouts = observation_layouts(s.config)
            other += int(decide(teams[i], s, layouts, rng).action != actions[i])
            compared += 1
        belief.record(states, actions, model)
        _, _, _, info = games.step(actions)
        for i in np.flatnonzero(info["_final"]):
            teams[i].reset()
        belief.restart(np.flatnonzero(info["_final"]))
    return compared, other, rewritten


@pytest.mark.slow
def test_with_the_policy_belief_the_trainer_and_the_team_decide_alike(tmp_path):
    cfg = _cfg()
    path = _saved(tmp_path, cfg, belief="policy")
    compared, other, rewritten = _policy_lockstep(cfg, path, 1200, seed=9)
    assert compared >= 1200 and rewritten >= 50
    assert other == 0


def test_a_trainer_that_forgets_the_policy_belief_fails_the_lockstep(tmp_path, monkeypatch):
    monkeypatch.setattr(scorer.ScorerBelief, "fill", lambda self, obs, states: None)
    cfg = _cfg()
    path = _saved(tmp_path, cfg, belief="policy")
    _, other, _ = _policy_lockstep(cfg, path, 600, seed=9)
    assert other > 0


def test_a_policy_run_needs_a_start_network(tmp_path, capsys):
    assert scorer.main(["--belief", "policy", "--data", str(tmp_path)]) == 2
    assert "--start" in capsys.readouterr().err
    missing = str(tmp_path / "missing.pth")
    assert scorer.main(["--belief", "policy", "--start", missing, "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing.pth" in err and "does not exist" in err


KEPT = {
    "literal": "results/models/scorer/round1.pth",
    "policy": "results/models/scorer_policy/round4.pth",
}
"""The kept action scorers (results/README.md, "Networks kept"): the literal-block network
the policy stage started from, and that stage's last network (docs/imitation.md)."""


@pytest.mark.slow
def test_the_kept_scorers_play_alike_on_both_engines():
    """The trained networks (few near-ties, unlike random ones): the literal scorer gives
    the same logits on the trainer's batched features as on the reference team's, and the
    policy-belief scorer's team decides as the trainer's games do."""
    from pathlib import Path

    cfg = _cfg()
    worst, compared, other_choice = _largest_difference(
        cfg, ScorerTeamPolicy(KEPT["literal"]), 300, seed=21
    )
    assert compared >= 300 and worst < 1e-4 and other_choice == 0
    assert (
        json.loads(Path(KEPT["policy"]).with_suffix(".meta.json").read_text())["belief_kind"]
        == "policy"
    )
    compared, other, rewritten = _policy_lockstep(cfg, KEPT["policy"], 300, seed=21)
    assert compared >= 300 and rewritten > 0 and other == 0


def test_an_annotate_hook_notes_each_decision_and_old_recordings_load(tmp_path):
    cfg = _cfg()
    settings = cfg.imitation.model_copy(update={"steps": 300})
    seen = []

    def hook(games, roles, active):
        seen.append(set(roles))
        return np.where(active, 1, 2)  # 1: the active player decides, 2: the group

    data = scorer.record(cfg, settings, num_games=8, annotate=hook)
    assert seen and all(keys == {True, False} for keys in seen)
    play_phase = data.phase == 0  # the active player's first plays are its own
    assert set(np.unique(data.note)) <= {1, 2} and (data.note[play_phase] == 1).all()
    fields = {k: getattr(data, k) for k in scorer._FIELDS if k != "note"}
    np.savez(tmp_path / "old.npz", **fields)  # a recording made before notes
    old = scorer.ScorerRecording.load(tmp_path / "old.npz")
    assert (old.note == -1).all() and len(old) == len(data)
