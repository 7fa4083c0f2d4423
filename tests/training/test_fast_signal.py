"""The signalling loss of the fast trainer (training/common/signal.py): its inputs against
the engine's own rules, its value against a hand-by-hand computation, and the trainer."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import merged

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from shipwreck_agents.learned.policy_belief import (  # noqa: E402
    hand_play_logits,
    hypothetical_observations,
    prior_weights,
)
from shipwreck_env.vector.public_record import hand_play_masks  # noqa: E402
from shipwreck_training.common.signal import (  # noqa: E402
    HANDS_X,
    HANDS_Y,
    NUM_PLAYS,
    PAIRS,
    first_play_rows,
    signal_inputs,
    signal_loss,
)
from shipwreck_training.fast.config import from_dict  # noqa: E402
from shipwreck_training.fast.ppo import Trainer  # noqa: E402
from shipwreck_training.fast.run import train  # noqa: E402


def _config(**extra):
    data = {
        "name": "test",
        "num_games": 48,
        "rollout_steps": 8,
        "total_steps": 1152,
        "checkpoint_every": 384,
        "torch_threads": 1,
        "policy_belief": "carry",
        "env": {"belief": "policy", "difficulties": ["normal", "hard", "doomed"]},
        "ppo": {"minibatch_size": 96, "hidden": [32, 32], "epochs": 2, "signal_coef": 0.5},
        "eval": {"every": 0, "games": 4},
    }
    return from_dict(merged(data, extra))


def _decisions(trainer: Trainer, steps: int = 40):
    """Step the trainer's games with its network and yield, at every step with first-play
    decisions, (rows, observations, masks, carried memory) before the step."""
    g = trainer.games
    for _ in range(steps):
        obs, mask = trainer._observe()
        rows = first_play_rows(g, np.arange(g.num_games))
        rows = rows[mask[rows, :NUM_PLAYS].any(1)]
        if len(rows):
            yield rows, obs, mask, trainer.belief.carry_of(g, rows)
        actions, _, _ = trainer.model.act(torch.from_numpy(obs), torch.from_numpy(mask), None)
        trainer.belief.record(g, obs, mask, actions.numpy(), trainer.model)
        g.step(actions.numpy())


def test_signal_inputs_are_the_engines_plays_and_the_beliefs_prior_for_every_hand():
    trainer = Trainer(_config())
    g, seen, carried = trainer.games, 0, 0
    for rows, obs, _, carry in _decisions(trainer):
        weights, masks = signal_inputs(g, rows, obs[rows], carry)
        for i, game in enumerate(rows):
            k, _, local = g.locate(np.array([game]))[0]
            a = g.parts[k].arrays
            for h, (x, y) in enumerate(zip(HANDS_X, HANDS_Y, strict=True)):
                legal = hand_play_masks(
                    a.slots[local],
                    a.tcount[local],
                    a.shadows[local],
                    a.feast_done[local],
                    np.array([x]),
                    np.array([y]),
                )[0, :NUM_PLAYS]
                pair = PAIRS.index((min(x, y), max(x, y)))
                assert (masks[i, pair] == legal).all()
                w = prior_weights(
                    obs[[game]],
                    g.layout,
                    np.array([x]),
                    np.array([y]),
                    None if carry is None else carry[[i]],
                )
                assert weights[i, h] == pytest.approx(float(w[0]), rel=1e-6)
            carried += int(carry is not None and (carry[i] != 1).any())
            seen += 1
    assert seen >= 100 and carried >= 5


def test_hand_play_logits_are_the_networks_on_each_hypothetical_observation():
    trainer = Trainer(_config())
    model, layout = trainer.model, trainer.games.layout
    checked = carried = 0
    for rows, obs, _, _ in _decisions(trainer, 60):
        o = torch.from_numpy(obs[rows])
        got = hand_play_logits(model, o, layout, HANDS_X, HANDS_Y, NUM_PLAYS)
        for h, (x, y) in enumerate(zip(HANDS_X, HANDS_Y, strict=True)):
            n = len(rows)
            hyp = hypothetical_observations(obs[rows], layout, np.full(n, x), np.full(n, y))
            full = model.action_net(model.mlp_extractor.policy_net(torch.from_numpy(hyp)))
            assert torch.allclose(got[:, h], full[:, :NUM_PLAYS], atol=1e-5)
        checked += len(rows)
        carried += int(obs[rows][:, layout.by_name["own_carried"].slice].any(1).sum())
    assert checked >= 50 and carried >= 2  # rows whose own carried fate is rewritten too


def _loss_by_hand(model, obs, layout, mask, weights, masks) -> float:
    """The loss of one decision, summed hand by hand and play by play."""

    def plays(o: np.ndarray, legal: np.ndarray) -> np.ndarray:
        full = np.zeros((1, mask.shape[0]), bool)
        full[0, :NUM_PLAYS] = legal
        with torch.no_grad():
            logits = model.logits(torch.from_numpy(o[None]), torch.from_numpy(full))
        return torch.softmax(logits, -1)[0, :NUM_PLAYS].double().numpy() * legal

    from shipwreck_agents.learned.policy_belief import PLAY_VALUE

    own = obs[layout.by_name["own_hand"].slice]
    hand = [v for v in range(1, 8) for _ in range(round(own[v - 1]))]
    real = plays(obs, mask[:NUM_PLAYS])
    per_hand = []
    for h, (x, y) in enumerate(zip(HANDS_X, HANDS_Y, strict=True)):
        legal = masks[PAIRS.index((min(x, y), max(x, y)))]
        o = hypothetical_observations(obs[None], layout, np.array([x]), np.array([y]))[0]
        per_hand.append((x, y, weights[h], plays(o, legal)))
    loss = 0.0
    for a in np.flatnonzero(real > 0):
        v = PLAY_VALUE[a]
        kept_real = hand[1] if hand[0] == v else hand[0]
        right = total = 0.0
        for x, y, w, p in per_hand:
            if p[a] == 0:
                continue
            kept = y if x == v else x
            total += w * p[a]
            right += w * p[a] * (kept == kept_real)
        loss -= real[a] * np.log(right / total)
    return loss


def test_signal_loss_is_the_expected_surprise_of_the_kept_fate_hand_by_hand():
    trainer = Trainer(_config())
    model, layout, g = trainer.model, trainer.games.layout, trainer.games
    with torch.no_grad():  # a network whose plays differ by hand: an untrained one hardly does
        for p in model.parameters():
            p.mul_(6.0)
    checked = []
    for rows, obs, mask, carry in _decisions(trainer, 24):
        weights, masks = signal_inputs(g, rows, obs[rows], carry)
        for i in range(min(len(rows), 4)):
            o = torch.from_numpy(obs[rows[i : i + 1]])
            m = torch.from_numpy(mask[rows[i : i + 1]])
            with torch.no_grad():
                got = signal_loss(
                    model,
                    o,
                    layout,
                    model.logits(o, m)[:, :NUM_PLAYS],
                    m[:, :NUM_PLAYS],
                    torch.from_numpy(weights[i : i + 1]),
                    torch.from_numpy(masks[i : i + 1]),
                )
            want = _loss_by_hand(model, obs[rows[i]], layout, mask[rows[i]], weights[i], masks[i])
            assert float(got) == pytest.approx(want, rel=1e-4, abs=1e-6)
            checked.append(want)
    assert len(checked) >= 20 and max(checked) > 0.05  # some decisions leave doubt


def _signal_of(trainer: Trainer, rollout) -> float:
    """The signalling loss of the trainer's network on every recorded decision."""
    batch = trainer._signal_batches(rollout, 1, torch.Generator().manual_seed(0))[0]
    model = trainer.model
    with torch.no_grad():
        real = model.logits(batch["obs"], batch["mask"])[:, :NUM_PLAYS]
        return float(
            signal_loss(
                model,
                batch["obs"],
                trainer.games.layout,
                real,
                batch["mask"][:, :NUM_PLAYS],
                batch["w"],
                batch["masks"],
            )
        )


def test_the_signalling_loss_falls_when_it_is_learned_and_not_when_it_is_not():
    def trained(coef: float) -> tuple[float, float]:
        trainer = Trainer(_config(ppo={"signal_coef": coef, "learning_rate": 0.003}))
        rollout = trainer.collect()
        start = _signal_of(trainer, rollout)
        for _ in range(12):
            trainer.update(rollout)
        return start, _signal_of(trainer, rollout)

    start, learned = trained(1.0)
    same_start, ignored = trained(1e-9)  # the same games and network; the loss recorded only
    assert start == same_start > 0.1
    assert learned < start - 0.2 and learned < ignored - 0.2


def test_a_run_with_the_signalling_loss_resumes_exactly(tmp_path):
    cfg = _config()
    straight = train(cfg, tmp_path / "a")
    train(cfg, tmp_path / "b", stop_after=384)
    resumed = train(cfg, tmp_path / "b", resume=True)
    assert resumed.global_step == straight.global_step == 1152
    for p, q in zip(straight.model.parameters(), resumed.model.parameters(), strict=True):
        assert torch.equal(p, q)
    off = train(_config(ppo={"signal_coef": 0.0}), tmp_path / "c")
    assert any(
        not torch.equal(p, q)
        for p, q in zip(straight.model.parameters(), off.model.parameters(), strict=True)
    )


def test_the_signalling_loss_is_refused_without_the_policy_belief():
    with pytest.raises(ValueError, match=r"signal_coef 0\.5 is not allowed with env\.belief"):
        _config(env={"belief": "literal"}, policy_belief="first_play")


@pytest.mark.slow  # two runs and a collector process
def test_the_collector_process_records_the_signalling_decisions_as_the_thread_does(tmp_path):
    thread = train(_config(overlap="thread"), tmp_path / "thread")
    process = train(_config(overlap="process"), tmp_path / "process")
    assert process.global_step == thread.global_step == 1152
    for p, q in zip(thread.model.parameters(), process.model.parameters(), strict=True):
        assert torch.equal(p, q)
