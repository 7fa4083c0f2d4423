"""What stops the imitation of the convention, and DAgger to push it further (issue 40).

    python lab/studies/imitation_diagnosis.py [--steps 300000] [--held-out 30000]
        [--hidden 512,512,512] [--epochs 15] [--minibatch 512] [--small-epochs 10]
        [--rounds 4] [--round-steps 150000] [--round-epochs 5] [--threads 1]
        [--games 300] [--eval-seed 20261201] [--deadline 01:15] [--data /tmp/imitation_data]
        [--out results/imitation] [--models results/models/imitation]

Stages, each written as soon as it is done:

1. **Recordings** (literal belief block): the convention team plays ``--steps``
   training decisions, and ``--held-out`` more on games of another seed, where each
   decision is also noted with its *ambiguity*: at the player's first play, how many of
   the hands the turn's convention lists show the same line as the player's hand; at a
   group decision, how many kept values the convention's posterior leaves. Both are kept
   in ``--data`` (reused when present).
2. **Diagnosis** (``OUT/diagnosis.json`` and ``.md``): an *information bound* (decisions
   whose exact observation appears elsewhere with another label; the best any function
   of the observation can do on the recordings), then a small network (128, 128; 10
   epochs, the old probe) and a big one (``--hidden``, ``--epochs``, the step size
   annealed): agreement on training decisions and held-out ones, split by phase and
   role, by difficulty and by ambiguity.
3. **DAgger** (``OUT/dagger.json``; a checkpoint per round in ``--models``): the big
   network plays ``--round-steps`` decisions, the convention labels them, the network is
   fitted on the union; held-out agreement and the agreement on its own states before
   each fit. Rounds stop at ``--rounds`` or when the next would end after ``--deadline``
   (UTC, HH:MM) less the evaluation's time.
4. **Win rates** (``OUT/winrate.json``): the network greedy at every seat, before DAgger
   and after, and the convention team, on the same ``--games`` deals per difficulty
   (normal, hard, doomed) of the batched engine seeded ``--eval-seed``, with the paired
   difference.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

from shipwreck_agents.evaluation.evaluate import wilson_interval
from shipwreck_agents.learned.actor_critic import ActorCritic, export_sb3
from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.state import PHASES
from shipwreck_env.rules.view import make_view
from shipwreck_training.common.games import Games, ScriptedRole
from shipwreck_training.fast.config import ImitationSettings, load_config
from shipwreck_training.fast.imitation import (
    Recording,
    dagger,
    fit_policy,
    record_games,
    same_deals,
)
from shipwreck_training.fast.run import meta, spec_of

CONFIG = "configs/fast/imitation.yaml"
EVAL_DIFFICULTIES = ("normal", "hard", "doomed")


def ambiguity(games: Games, roles: dict[bool, ScriptedRole], active: np.ndarray) -> np.ndarray:
    """int[N]: per game, how many hands share the convention's signal at this decision
    (the player's first play: hands of the turn's code showing the same line as the
    player's hand; a group decision: kept values left by the convention's posterior);
    -1 at any other decision. Called after the teacher chose, with its memory."""
    out = np.full(games.num_games, -1, np.int32)
    for k, pos, local in games.locate(np.arange(games.num_games)):
        for g, s in zip(pos, games.parts[k].to_states(local.tolist()), strict=True):
            if s.over:
                continue
            view = make_view(s, s.decider)
            policy = roles[bool(active[g])].policies[int(g)]
            if not hasattr(policy, "convention"):
                continue
            if active[g] and view.phase == "play" and not view.plays and not view.power_used:
                code = policy.convention(view)
                i = code.index(policy.hand_key(view))
                if i >= 0:
                    lines = list(zip(code.before, code.choice, code.power, code.steal, strict=True))
                    out[g] = sum(line == lines[i] for line in lines)
            elif not active[g] and view.phase in ("group", "vote"):
                out[g] = int((policy.posterior(view) > 1e-12).sum())
    return out


def information_bound(parts: list[Recording]) -> dict:
    """Decisions whose exact observation (and mask) recurs with another label, and the
    best agreement any function of the observation could reach on these recordings."""
    data = Recording.join(parts)
    keys = np.ascontiguousarray(np.concatenate([data.obs, data.masks.astype(np.float32)], 1))
    rows = keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel()
    _, group = np.unique(rows, return_inverse=True)
    pair = group.astype(np.int64) * NUM_ACTIONS + data.actions
    _, pair_id, pair_count = np.unique(pair, return_inverse=True, return_counts=True)
    group_size = np.bincount(group)
    best = np.zeros(group.max() + 1, np.int64)
    np.maximum.at(best, group, pair_count[pair_id])
    conflicted = np.zeros(group.max() + 1, bool)
    conflicted[group[pair_count[pair_id] < group_size[group]]] = True
    return {
        "decisions": len(data),
        "distinct_observations": int(group.max() + 1),
        "decisions_seen_more_than_once": int((group_size[group] > 1).sum()),
        "decisions_with_conflicting_labels": int(conflicted[group].sum()),
        "best_possible_agreement": float(best.sum() / len(data)),
    }


def split(model: ActorCritic, data: Recording, difficulties: tuple[str, ...]) -> dict:
    """Agreement and decision count by phase and role, by difficulty, by ambiguity."""
    with torch.no_grad():
        chosen = np.concatenate(
            [
                model.greedy(
                    torch.from_numpy(data.obs[i : i + 65536]),
                    torch.from_numpy(data.masks[i : i + 65536]),
                ).numpy()
                for i in range(0, len(data), 65536)
            ]
        )
    same = chosen == data.actions
    phase = data.obs[:, : len(PHASES)].argmax(1)

    def cell(rows: np.ndarray) -> list:
        return [round(float(same[rows].mean()), 4), int(rows.sum())]

    out: dict = {"all": cell(np.ones(len(data), bool)), "phase": {}, "difficulty": {}}
    for i, name in enumerate(PHASES):
        for role, rows in (("player", data.play), ("group", ~data.play)):
            if ((phase == i) & rows).any():
                out["phase"][f"{name}/{role}"] = cell((phase == i) & rows)
    for k, name in enumerate(difficulties):
        if (data.difficulty == k).any():
            out["difficulty"][name] = cell(data.difficulty == k)
    out["ambiguity"] = {}
    for role, rows in (("player first play", data.play), ("group", ~data.play)):
        for a in np.unique(data.note[rows & (data.note >= 0)]):
            label = f"{role}: {a}" if a < 6 else f"{role}: 6+"
            here = rows & ((data.note == a) if a < 6 else (data.note >= 6))
            out["ambiguity"][label] = cell(here)
    return out


def carried_split(model: ActorCritic, data: Recording, carried_at: slice) -> dict:
    """The player's first-play agreement when the active player carried a fate into the
    turn (the convention then reads its memory of the last turn's code, which the
    observation does not hold) and when it did not; the group's by ambiguity 1 (the
    convention's reading names one value) for comparison."""
    with torch.no_grad():
        chosen = model.greedy(torch.from_numpy(data.obs), torch.from_numpy(data.masks)).numpy()
    same = chosen == data.actions
    first = data.play & (data.note >= 0)
    carried = data.obs[:, carried_at].sum(1) > 0
    out = {}
    for name, rows in (("carried", first & carried), ("fresh", first & ~carried)):
        out[f"player first play, {name}"] = [round(float(same[rows].mean()), 4), int(rows.sum())]
    return out


def fit_network(
    hidden: tuple[int, ...], data: Recording, settings: ImitationSettings, anneal: bool, seed: int
) -> tuple[ActorCritic, dict, float]:
    """A fresh network of ``hidden`` widths fitted to ``data``: (model, losses, seconds)."""
    torch.manual_seed(seed)
    model = ActorCritic(data.obs.shape[1], NUM_ACTIONS, hidden)
    start = time.perf_counter()
    loss = fit_policy(model, data, settings, torch.Generator().manual_seed(seed), anneal=anneal)
    return model, loss, time.perf_counter() - start


def recordings(cfg, args) -> tuple[Recording, Recording]:
    """The training and held-out teacher recordings (from ``--data`` when present)."""
    folder = Path(args.data)
    folder.mkdir(parents=True, exist_ok=True)
    train_path = folder / f"train_{args.steps}.npz"
    held_path = folder / f"held_out_{args.held_out}.npz"
    if not train_path.exists():
        settings = cfg.imitation.model_copy(update={"steps": args.steps})
        record_games(cfg, settings).save(train_path)
    if not held_path.exists():
        settings = cfg.imitation.model_copy(update={"steps": args.held_out})
        held = record_games(cfg, settings, seed_offset=7933, annotate=ambiguity)
        held.save(held_path)
    return Recording.load(train_path), Recording.load(held_path)


def save_model(model: ActorCritic, cfg, path: Path, figures: dict) -> None:
    """Export ``model`` (``.pth`` and ``.meta.json``) for the reference evaluator."""
    path.parent.mkdir(parents=True, exist_ok=True)
    export_sb3(model, path)
    info = {**meta(cfg, spec_of(cfg, path)), "imitation": figures}
    path.with_suffix(".meta.json").write_text(json.dumps(info, indent=2, default=float))


def win_rates(cfg, args, models: dict[str, ActorCritic]) -> dict:
    """Each model and the convention on the same deals, with the paired difference."""
    out: dict = {"seed": args.eval_seed, "games": args.games}
    teacher = same_deals(cfg, args.eval_seed, args.games, EVAL_DIFFICULTIES)
    out["convention"] = {d: float(w.mean()) for d, w in teacher.items()}
    for name, model in models.items():
        won = same_deals(cfg, args.eval_seed, args.games, EVAL_DIFFICULTIES, model=model)
        out[name] = {}
        for d, w in won.items():
            diff = w.astype(float) - teacher[d].astype(float)
            half = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
            out[name][d] = {
                "win_rate": float(w.mean()),
                "ci95": list(wilson_interval(int(w.sum()), len(w))),
                "minus_convention": float(diff.mean()),
                "minus_convention_ci95": [float(diff.mean() - half), float(diff.mean() + half)],
            }
    return out


def markdown(diag: dict) -> str:
    """The diagnosis as a page."""
    lines = ["# Imitation of the convention: what stops it", "", f"`{diag['command']}`", ""]
    bound = diag["information_bound"]
    lines += [
        "## Information bound (literal block, train + held-out recordings)",
        "",
        f"{bound['decisions']} decisions, {bound['distinct_observations']} distinct "
        f"observations; {bound['decisions_with_conflicting_labels']} decisions share their "
        "exact observation with a different label; the best agreement any function of the "
        f"observation can reach on them is {bound['best_possible_agreement']:.4f}.",
        "",
    ]
    for name, fit in diag["fits"].items():
        lines += [
            f"## {name}: hidden {fit['hidden']}, {fit['epochs']} epochs, anneal {fit['anneal']}",
            "",
            f"train agreement {fit['train']['all'][0]:.4f}, held-out {fit['held_out']['all'][0]:.4f}",
            "",
            "| split | train | held-out (n) |",
            "|---|---|---|",
        ]
        for part in ("phase", "difficulty", "ambiguity"):
            for key, (rate, count) in fit["held_out"][part].items():
                seen = fit["train"][part].get(key, ["-"])[0]
                lines.append(f"| {part} {key} | {seen} | {rate:.4f} ({count}) |")
        lines.append("")
    return "\n".join(lines) + "\n"


def diagnose(cfg, args, train: Recording, held: Recording, hidden, command: str) -> ActorCritic:
    """Stage 2: the information bound and the two fits, written to ``OUT/diagnosis``;
    returns the big network."""
    out_dir, diff, start = Path(args.out), tuple(cfg.env.difficulties), time.perf_counter()
    diag: dict = {
        "command": command,
        "load_start": list(os.getloadavg()),
        "information_bound": information_bound([train, held]),
        "fits": {},
    }
    print(f"bound {diag['information_bound']} at {time.perf_counter() - start:.0f}s", flush=True)
    seen = train.take(slice(0, len(held)))
    models = {}
    for name, widths, epochs, anneal in (
        ("small", (128, 128), args.small_epochs, False),
        ("big", hidden, args.epochs, True),
    ):
        settings = cfg.imitation.model_copy(update={"epochs": epochs})
        if name == "big":
            settings = settings.model_copy(update={"minibatch_size": args.minibatch})
        model, loss, seconds = fit_network(widths, train, settings, anneal, cfg.seed)
        models[name] = model
        diag["fits"][name] = {
            "hidden": list(widths),
            "epochs": epochs,
            "anneal": anneal,
            "decisions": len(train),
            "fit_seconds": seconds,
            **loss,
            "train": split(model, seen, diff),
            "held_out": split(model, held, diff),
        }
        (out_dir / "diagnosis.json").write_text(json.dumps(diag, indent=1, default=float))
        (out_dir / "diagnosis.md").write_text(markdown(diag))
        print(name, diag["fits"][name]["held_out"]["all"], f"{seconds:.0f}s", flush=True)
    return models["big"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=300_000)
    parser.add_argument("--held-out", type=int, default=30_000)
    parser.add_argument("--hidden", default="512,512,512")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--minibatch", type=int, default=512, help="big fit and DAgger")
    parser.add_argument("--small-epochs", type=int, default=10, help="the 128x128 fit")
    parser.add_argument("--round-epochs", type=int, default=5, help="each DAgger refit")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--round-steps", type=int, default=150_000)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--eval-seed", type=int, default=20261201)
    parser.add_argument("--deadline", default="", help="UTC HH:MM: no DAgger round after")
    parser.add_argument("--eval-minutes", type=float, default=8.0)
    parser.add_argument("--data", default="/tmp/imitation_data")
    parser.add_argument("--out", default="results/imitation")
    parser.add_argument("--models", default="results/models/imitation")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (more are slower on a busy machine)"
    )
    parser.add_argument("--start", help="skip the diagnosis: DAgger from this saved network")
    parser.add_argument("--first-round", type=int, default=0, help="rounds numbered after it")
    parser.add_argument("--carried", help="only: the carried split of this saved network")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    hidden = tuple(int(h) for h in args.hidden.split(","))
    overrides = ["torch_threads=1", "num_games=256", "env.belief=literal"]
    cfg = load_config(CONFIG, [*overrides, f"ppo.hidden=[{args.hidden}]"])
    out_dir, models_dir = Path(args.out), Path(args.models)
    out_dir.mkdir(parents=True, exist_ok=True)
    command = "python lab/studies/imitation_diagnosis.py " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    diff = tuple(cfg.env.difficulties)
    start = time.perf_counter()
    train, held = recordings(cfg, args)
    if args.carried:
        from shipwreck_agents.learned.actor_critic import load_sb3

        layout = Games(cfg.env, len(cfg.env.difficulties), 0).layout
        at = slice(layout.offsets["own_carried"], layout.offsets["own_carried"] + 7)
        split_out = {"network": args.carried, "command": command}
        split_out["held_out"] = carried_split(load_sb3(args.carried), held, at)
        (out_dir / "carried.json").write_text(json.dumps(split_out, indent=1))
        print(json.dumps(split_out))
        return 0
    print(f"recorded {len(train)} + {len(held)} at {time.perf_counter() - start:.0f}s", flush=True)
    if args.start:
        from shipwreck_agents.learned.actor_critic import load_sb3

        big = load_sb3(args.start)
    else:
        big = diagnose(cfg, args, train, held, hidden, command)
        save_model(big, cfg, models_dir / "round0.pth", {"held_out": split(big, held, diff)})
    first = args.first_round
    round0 = ActorCritic(big.obs_dim, NUM_ACTIONS, big.hidden)
    round0.load_state_dict(big.state_dict())
    rounds: list[dict] = []
    report = {"command": command, "rounds": rounds}
    durations: list[float] = []

    def after(r: int, figures: dict, union: Recording) -> None:
        figures["held_out"] = split(big, held, diff)
        rounds.append(figures)
        durations.append(figures["record_seconds"] + figures["fit_seconds"])
        save_model(big, cfg, models_dir / f"round{r}.pth", {"round": figures})
        (out_dir / "dagger.json").write_text(json.dumps(report, indent=1, default=float))
        print(f"round {r}", figures["on_policy_before_fit"], figures["held_out"]["all"], flush=True)

    settings = cfg.imitation.model_copy(
        update={"epochs": args.round_epochs, "minibatch_size": args.minibatch}
    )
    data = train
    for r in range(args.rounds):
        if args.deadline and durations:
            now = dt.datetime.now(dt.UTC)
            hh, mm = (int(x) for x in args.deadline.split(":"))
            end = now.replace(hour=hh, minute=mm, second=0)
            if end < now - dt.timedelta(hours=12):
                end += dt.timedelta(days=1)
            need = dt.timedelta(seconds=1.3 * durations[-1] + 60 * args.eval_minutes)
            if now + need > end:
                report["stopped"] = f"round {r + 1} would end after {args.deadline} UTC"
                break
        data = dagger(
            big,
            cfg,
            settings,
            data,
            rounds=1,
            steps=args.round_steps,
            generator=torch.Generator().manual_seed(r),
            seed_offset=104729 + r,
            on_round=lambda _, f, u, r=r: after(first + r + 1, {**f, "round": first + r + 1}, u),
        )
    report["seconds"] = time.perf_counter() - start
    (out_dir / "dagger.json").write_text(json.dumps(report, indent=1, default=float))
    names = {f"round{first}": round0, f"round{first + len(rounds)}": big}
    rates = win_rates(cfg, args, names)
    rates["command"] = command
    rates["small_belief_note"] = "literal belief block at every seat"
    (out_dir / "winrate.json").write_text(json.dumps(rates, indent=1, default=float))
    print(json.dumps(rates, default=float), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
