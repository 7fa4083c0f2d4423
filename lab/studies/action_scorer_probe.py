"""Do per-action features lift imitation of the convention? (issue 52, first probe)

The convention (``convention+convention``) plays 3-player base games with the leader
deciding, on the reference engine; every decision is recorded as the decider's
observation (literal belief block), its legal actions, each legal action's row of
:func:`shipwreck_env.rules.action_features.action_features`, the teacher's action, the
phase and the difficulty. Training and held-out games come from different seeds. Three
networks are fitted to the same decisions with the same budget, and their held-out
agreement with the teacher is reported overall, by phase and by difficulty:

* ``flat``: a tanh MLP on the observation with one logit per action (the network the
  trainers use today);
* ``scorer, no features``: the same observation MLP, then one shared MLP that scores each
  legal action from the state's encoding and the action's embedding (the architecture
  alone);
* ``scorer``: the same, with each action's feature row as well.

    python lab/studies/action_scorer_probe.py --train-games 2000 --held-out-games 300 \\
        --epochs 8 --jobs 2 --out results/imitation/action_features

Writes ``probe.json`` and ``probe.md`` in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from shipwreck_env.rules.state import PHASES

DIFFICULTIES = ("easy", "normal", "hard", "doomed")


def _record(args: tuple[int, int, int]) -> dict[str, np.ndarray]:
    """Games ``first .. first + count - 1`` of ``seed`` (every difficulty in turn)."""
    from shipwreck_agents.registry import make_team
    from shipwreck_env.envs.policy import decide, observation_layouts
    from shipwreck_env.rules.action_features import action_features
    from shipwreck_env.rules.config import GameConfig
    from shipwreck_env.rules.engine import legal_actions, new_game, step_inplace
    from shipwreck_env.rules.observation import ObservationLayout

    seed, first, count = args
    team = make_team("convention+convention")
    rows: dict[str, list] = {
        k: [] for k in ("obs", "legal", "feat", "action", "phase", "difficulty")
    }
    for game in range(first, first + count):
        difficulty = game % len(DIFFICULTIES)
        config = GameConfig(num_players=3, difficulty=DIFFICULTIES[difficulty])
        layouts = observation_layouts(config)
        encoder = ObservationLayout.for_config(config, belief=True).encoder
        sequence = np.random.SeedSequence(seed, spawn_key=(game,))
        game_rng, policy_rng = (np.random.default_rng(s) for s in sequence.spawn(2))
        team.reset()
        s = new_game(config, game_rng)
        while not s.over:
            legal = legal_actions(s)
            action = decide(team, s, layouts, policy_rng).action
            if len(legal) > 1:
                features = action_features(s, s.decider)
                rows["obs"].append(encoder(s, s.decider))
                rows["legal"].append(np.array(legal, np.int16))
                rows["feat"].append(features[legal])
                rows["action"].append(legal.index(action))
                rows["phase"].append(int(s.phase))
                rows["difficulty"].append(difficulty)
            step_inplace(s, action, game_rng, check=False)
    return {k: v for k, v in rows.items()}


def record(seed: int, games: int, jobs: int) -> dict[str, object]:
    """Every decision with more than one legal action in ``games`` games of ``seed``."""
    chunk = -(-games // (jobs * 4))
    tasks = [(seed, first, min(chunk, games - first)) for first in range(0, games, chunk)]
    with ProcessPoolExecutor(jobs) as pool:
        parts = list(pool.map(_record, tasks))
    merged = {k: [x for part in parts for x in part[k]] for k in parts[0]}
    lengths = np.array([len(x) for x in merged["legal"]])
    return {
        "obs": np.stack(merged["obs"]).astype(np.float32),
        "legal": merged["legal"],
        "feat": merged["feat"],
        "lengths": lengths,
        "action": np.array(merged["action"], np.int64),
        "phase": np.array(merged["phase"], np.int64),
        "difficulty": np.array(merged["difficulty"], np.int64),
    }


def _batch(data: dict, idx: np.ndarray, torch):
    """Padded tensors of the decisions ``idx``: obs, action ids, features, valid, label."""
    width = int(data["lengths"][idx].max())
    n = len(idx)
    feat_dim = data["feat"][0].shape[1]
    acts = np.zeros((n, width), np.int64)
    feats = np.zeros((n, width, feat_dim), np.float32)
    valid = np.zeros((n, width), bool)
    for row, i in enumerate(idx):
        k = data["lengths"][i]
        acts[row, :k] = data["legal"][i]
        feats[row, :k] = data["feat"][i]
        valid[row, :k] = True
    return (
        torch.from_numpy(data["obs"][idx]),
        torch.from_numpy(acts),
        torch.from_numpy(feats),
        torch.from_numpy(valid),
        torch.from_numpy(data["action"][idx]),
    )


def _model(kind: str, obs_dim: int, feat_dim: int, torch):
    from torch import nn

    class Flat(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(
                nn.Linear(obs_dim, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh()
            )
            self.head = nn.Linear(256, 259)

        def forward(self, obs, acts, feats, valid):
            logits = self.head(self.body(obs)).gather(1, acts)
            return logits.masked_fill(~valid, -1e9)

    class Scorer(nn.Module):
        def __init__(self, use_features: bool) -> None:
            super().__init__()
            self.use_features = use_features
            self.body = nn.Sequential(
                nn.Linear(obs_dim, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh()
            )
            self.embed = nn.Embedding(259, 32)
            width = 256 + 32 + (feat_dim if use_features else 0)
            self.score = nn.Sequential(nn.Linear(width, 128), nn.Tanh(), nn.Linear(128, 1))

        def forward(self, obs, acts, feats, valid):
            h = self.body(obs)[:, None, :].expand(-1, acts.shape[1], -1)
            parts = [h, self.embed(acts)]
            if self.use_features:
                parts.append(feats)
            logits = self.score(torch.cat(parts, dim=-1)).squeeze(-1)
            return logits.masked_fill(~valid, -1e9)

    if kind == "flat":
        return Flat()
    return Scorer(use_features=kind == "scorer")


def fit(kind: str, train: dict, held: dict, epochs: int, seed: int, threads: int) -> dict:
    """Fit one network; its held-out agreement overall, by phase and by difficulty."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    model = _model(kind, train["obs"].shape[1], train["feat"][0].shape[1], torch)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    n = len(train["action"])
    start = time.perf_counter()
    curve = []
    for epoch in range(epochs):
        order = rng.permutation(n)
        for lo in range(0, n, 512):
            obs, acts, feats, valid, label = _batch(train, order[lo : lo + 512], torch)
            loss = torch.nn.functional.cross_entropy(model(obs, acts, feats, valid), label)
            opt.zero_grad()
            loss.backward()
            opt.step()
        curve.append({"epoch": epoch + 1, "held_out": _agreement(model, held, torch)["overall"]})
        print(kind, curve[-1], f"{time.perf_counter() - start:.0f} s", flush=True)
    result = _agreement(model, held, torch)
    result["train"] = _agreement(model, _subset(train, 20000, seed), torch)["overall"]
    result["curve"] = curve
    result["seconds"] = time.perf_counter() - start
    return result


def _subset(data: dict, size: int, seed: int) -> dict:
    idx = np.random.default_rng(seed).permutation(len(data["action"]))[:size]
    return {k: ([v[i] for i in idx] if isinstance(v, list) else v[idx]) for k, v in data.items()}


def _agreement(model, data: dict, torch) -> dict:
    hits = []
    with torch.no_grad():
        for lo in range(0, len(data["action"]), 2048):
            idx = np.arange(lo, min(lo + 2048, len(data["action"])))
            obs, acts, feats, valid, label = _batch(data, idx, torch)
            hits.append((model(obs, acts, feats, valid).argmax(1) == label).numpy())
    hit = np.concatenate(hits)
    out = {"overall": float(hit.mean()), "n": len(hit)}
    for name, key, labels in (
        ("phase", "phase", PHASES),
        ("difficulty", "difficulty", DIFFICULTIES),
    ):
        for i, label in enumerate(labels):
            sel = data[key] == i
            if sel.any():
                out[f"{name} {label}"] = [float(hit[sel].mean()), int(sel.sum())]
    return out


def _markdown(report: dict) -> str:
    kinds = list(report["fits"])
    lines = [
        "# Per-action features and imitation of the convention",
        "",
        f"`{report['command']}`",
        "",
        f"{report['train_decisions']} training decisions ({report['train_games']} games, seed "
        f"{report['seed']}), {report['held_decisions']} held-out decisions "
        f"({report['held_games']} games, seed {report['seed'] + 1}); decisions with one "
        f"legal action are left out. {report['epochs']} epochs, Adam 1e-3, minibatch 512; "
        f"recording took {report['record_seconds']:.0f} s.",
        "",
        "| held-out agreement | " + " | ".join(kinds) + " | n |",
        "|---|" + "---:|" * (len(kinds) + 1),
    ]
    first = report["fits"][kinds[0]]
    keys = ["overall"] + [k for k in first if k.startswith(("phase", "difficulty"))]
    for key in keys:
        cells = []
        for kind in kinds:
            value = report["fits"][kind][key]
            cells.append(f"{value if isinstance(value, float) else value[0]:.4f}")
        n = first["n"] if key == "overall" else first[key][1]
        lines.append(f"| {key} | " + " | ".join(cells) + f" | {n} |")
    lines.append(
        "| train (20,000 decisions) | "
        + " | ".join(f"{report['fits'][k]['train']:.4f}" for k in kinds)
        + " | |"
    )
    lines.append(
        "| fit seconds | "
        + " | ".join(f"{report['fits'][k]['seconds']:.0f}" for k in kinds)
        + " | |"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-games", type=int, default=2000)
    parser.add_argument("--held-out-games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=52001)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--kinds", default="flat,scorer_plain,scorer")
    parser.add_argument("--out", type=Path, default=Path("results/imitation/action_features"))
    args = parser.parse_args(argv)
    import shlex
    import sys

    start = time.perf_counter()
    train = record(args.seed, args.train_games, args.jobs)
    held = record(args.seed + 1, args.held_out_games, args.jobs)
    record_seconds = time.perf_counter() - start
    print(
        f"recorded {len(train['action'])} + {len(held['action'])} decisions "
        f"in {record_seconds:.0f} s",
        flush=True,
    )
    fits = {}
    for kind in args.kinds.split(","):
        fits[kind] = fit(kind, train, held, args.epochs, args.seed, args.threads)
    report = {
        "command": shlex.join(["python", "lab/studies/action_scorer_probe.py", *sys.argv[1:]]),
        "seed": args.seed,
        "train_games": args.train_games,
        "held_games": args.held_out_games,
        "train_decisions": len(train["action"]),
        "held_decisions": len(held["action"]),
        "epochs": args.epochs,
        "record_seconds": record_seconds,
        "fits": fits,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "probe.json").write_text(json.dumps(report, indent=2))
    (args.out / "probe.md").write_text(_markdown(report))
    print(_markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
