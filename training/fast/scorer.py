"""Imitation of the convention by an action scorer, with DAgger (issue 52, stage 1).

    python -m shipwreck_training.fast.scorer [--config configs/fast/scorer_imitation.yaml]
        [--held-out 20000] [--rounds 4] [--round-steps 50000] [--round-epochs 4]
        [--games 300] [--eval-seed 20261201] [--deadline HH:MM] [--threads 1]
        [--data DIR] [--out results/imitation/scorer] [--models results/models/scorer]

The network is :class:`~shipwreck_agents.learned.action_scorer.ActionScorer`: each legal
action scored from the state's encoding and the action's row of per-action features,
which the batched engine computes for every decision
(:func:`shipwreck_env.vector.action_features.action_features`). Stages, each written
as soon as it is done (``OUT/scorer.json``, ``OUT/README.md``):

1. **Recordings** on the batched engine: the teacher (the config's ``imitation.play`` and
   ``imitation.group``) plays ``imitation.steps`` decisions (seed ``cfg.seed + 7919``)
   and ``--held-out`` more on games of another seed (``cfg.seed + 7933``); decisions with
   one legal action are dropped (they teach nothing). Kept in ``--data`` and reused.
2. **Cloning**: ``imitation.epochs`` passes of cross-entropy over the legal actions
   (Adam at ``imitation.learning_rate``, minibatch ``imitation.minibatch_size``, the step
   size annealed to 0), then held-out agreement by phase and difficulty.
3. **DAgger**: each round the network plays ``--round-steps`` decisions greedily while
   the teacher, kept in step, labels them; the network is fitted again on the union
   (``--round-epochs``). Rounds stop at ``--rounds`` or when one more would end after
   ``--deadline`` (UTC). Each round's network is saved (``--models/roundN.pth`` and its
   ``.meta.json``; ``fast:`` plays it), and a run started again goes on from the last
   saved round.
4. **Win rates**: the network greedy at every seat and the teacher team on the same
   ``--games`` deals per difficulty (normal, hard, doomed) of the batched engine seeded
   ``--eval-seed``, paired by deal.

With ``--belief literal`` the group reads the literal belief block. With ``--belief
policy --start PATH`` (a scorer fitted with the literal block) the group's block is the
belief under the network's own play policy, as the team that plays the export computes
it (:func:`shipwreck_agents.learned.scorer_team.play_likelihood`, on the reference
states of the batched games, :class:`ScorerBelief`): every recording's group decisions
carry the block of the network as it stands when the recording is made (the start
network for the first recordings, the fitted one in each DAgger round), and the
network starts from the start network's weights.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from shipwreck_agents.learned.action_scorer import (
    NETWORK_KIND,
    ActionScorer,
    compact,
    load_scorer,
    save_scorer,
)
from shipwreck_agents.learned.policy_belief import group_belief
from shipwreck_agents.learned.scorer_team import (
    is_first_play,
    play_likelihood,
    reads_own_play,
)
from shipwreck_env.rules.action_features import NUM_FEATURES
from shipwreck_env.rules.actions import NUM_ACTIONS
from shipwreck_env.rules.observation import ObservationLayout
from shipwreck_env.rules.state import PHASES, State
from shipwreck_env.vector.action_features import action_features
from shipwreck_training.common.games import Games, ScriptedRole
from shipwreck_training.common.run import fail
from shipwreck_training.fast.config import FastConfig, ImitationSettings, load_config
from shipwreck_training.fast.imitation import Annotate, teacher_labels

__all__ = [
    "ScorerBelief",
    "ScorerRecording",
    "agreement",
    "decisions",
    "fit",
    "record",
    "same_deals",
]


EVAL_DIFFICULTIES = ("normal", "hard", "doomed")
_RECORD_GAMES = 256
_FIELDS = ("obs", "ids", "rows", "valid", "label", "taken", "phase", "difficulty", "note")


class ScorerRecording:
    """Decisions with their legal actions' feature rows: ``obs`` float32[n, D], ``ids``
    int16[n, L] (the legal actions first, 0 where padded), ``rows`` float16[n, L, F]
    (their features), ``valid`` bool[n, L], ``label`` int8[n] (the teacher's action's
    place in ``ids``), ``taken`` int16[n] (the action played: the teacher's, or the
    network's under DAgger), ``phase`` int8[n] (index into ``PHASES``), ``difficulty``
    int8[n] and ``note`` int32[n] (what an ``annotate`` hook said of the decision; -1 if
    none)."""

    def __init__(self, **fields: np.ndarray) -> None:
        for name in _FIELDS:
            setattr(self, name, fields[name])

    def __len__(self) -> int:
        return len(self.label)

    def take(self, rows: np.ndarray | slice) -> ScorerRecording:
        """The decisions ``rows``."""
        return ScorerRecording(**{k: getattr(self, k)[rows] for k in _FIELDS})

    @staticmethod
    def join(parts: list[ScorerRecording]) -> ScorerRecording:
        """The decisions of every part, in order (the legal actions padded to the widest
        part's width)."""
        width = max(p.ids.shape[1] for p in parts)

        def widened(p: ScorerRecording, name: str) -> np.ndarray:
            value = getattr(p, name)
            if name not in ("ids", "rows", "valid") or value.shape[1] == width:
                return value
            pad = [(0, 0), (0, width - value.shape[1])] + [(0, 0)] * (value.ndim - 2)
            return np.pad(value, pad)

        return ScorerRecording(
            **{k: np.concatenate([widened(p, k) for p in parts]) for k in _FIELDS}
        )

    def save(self, path: str | Path) -> None:
        """Write every field to an ``.npz`` file (:meth:`load` reads it back)."""
        np.savez(path, **{k: getattr(self, k) for k in _FIELDS})

    @staticmethod
    def load(path: str | Path) -> ScorerRecording:
        """A recording written by :meth:`save`."""
        with np.load(path) as data:
            fields = {k: data[k] for k in _FIELDS if k in data.files}
        fields.setdefault("note", np.full(len(fields["label"]), -1, np.int32))
        return ScorerRecording(**fields)

    def tensors(self, rows: np.ndarray | slice) -> tuple[torch.Tensor, ...]:
        """(obs, ids, rows, valid, label) of the decisions ``rows`` as the network takes
        them, cut to the most legal actions among them (the legal ones come first)."""
        valid = self.valid[rows]
        width = max(int(valid.sum(1).max()), 1) if len(valid) else 1
        return (
            torch.from_numpy(self.obs[rows]),
            torch.from_numpy(self.ids[rows][:, :width].astype(np.int64)),
            torch.from_numpy(self.rows[rows][:, :width].astype(np.float32)),
            torch.from_numpy(valid[:, :width]),
            torch.from_numpy(self.label[rows].astype(np.int64)),
        )


class ScorerBelief:
    """Per game of a batched run: the likelihood of its turn's first play under a
    scorer's play policy, written into the group's belief block at that turn's group
    decisions (the same rule and code as the team that plays the export,
    ``agents/learned/scorer_team.py``, on the games' reference states)."""

    def __init__(self, num_games: int, belief_at: int) -> None:
        self.turn = np.full(num_games, -1, np.int64)
        self.likelihood = np.zeros((num_games, 7))
        self.belief_at = belief_at
        self._layouts: dict[object, ObservationLayout] = {}

    def fill(self, obs: np.ndarray, states: list[State]) -> None:
        """Write the block into ``obs[i]`` where game ``i`` reads its first play now."""
        at = self.belief_at
        for i, s in enumerate(states):
            if reads_own_play(s, int(self.turn[i])):
                belief = group_belief(self.likelihood[i], s.lines[s.active])
                if belief is not None:
                    obs[i, at : at + 7] = belief

    def record(self, states: list[State], actions: np.ndarray, model: ActionScorer) -> None:
        """Keep the likelihood of each first play ``actions[i]`` made in ``states[i]``."""
        for i, s in enumerate(states):
            if is_first_play(s, int(actions[i])):
                layout = self._layouts.get(s.config)
                if layout is None:
                    layout = self._layouts[s.config] = ObservationLayout.for_config(
                        s.config, belief=True
                    )
                self.likelihood[i] = play_likelihood(model, s, int(actions[i]), layout)
                self.turn[i] = s.turn

    def restart(self, games: np.ndarray) -> None:
        """The games in places ``games`` restarted: no first play is kept for them."""
        self.turn[games] = -1


def _states(games: Games) -> list[State]:
    """Every game's reference state, in the games' order."""
    return [s for part in games.parts for s in part.to_states(list(range(part.num_games)))]


def decisions(games: Games) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every game's decision now: (obs float32[N, D], mask bool[N, A], ids, rows, valid)
    with the legal actions compact (:func:`compact`, as wide as the most legal actions)."""
    obs, mask = games.observe(), games.legal_mask()
    block = np.concatenate([action_features(part) for part in games.parts])
    ids, rows, valid = compact(mask, block)
    return obs, mask, ids, rows, valid


def record(
    cfg: FastConfig,
    settings: ImitationSettings,
    *,
    actor: ActionScorer | None = None,
    num_games: int = _RECORD_GAMES,
    seed_offset: int = 7919,
    belief_model: ActionScorer | None = None,
    annotate: Annotate | None = None,
) -> ScorerRecording:
    """``settings.steps`` decisions with more than one legal action, labelled by the
    teacher (``settings.play`` for the active player, ``settings.group`` for the rest),
    on ``num_games`` games seeded ``cfg.seed + seed_offset``.

    Args:
        actor: the network that plays the games (its greedy action is stepped) while the
            teacher, kept in step, only labels (DAgger); ``None``: the teacher plays.
        belief_model: if given, the group's observations carry the belief under this
            network's play policy (:class:`ScorerBelief`); else the literal block.
        annotate: an optional hook noting each decision
            (:data:`shipwreck_training.fast.imitation.Annotate`).
    """
    n = num_games - num_games % len(cfg.env.difficulties)
    games = Games(cfg.env, n, cfg.seed + seed_offset)
    play = ScriptedRole(settings.play, n, cfg.seed + 1)
    group = ScriptedRole(settings.group, n, cfg.seed + 2)
    difficulty = (np.arange(n) // games.per_part).astype(np.int8)
    belief = None
    if belief_model is not None:
        belief = ScorerBelief(n, games.layout.offsets["belief"])
    parts: list[ScorerRecording] = []
    kept = 0
    while kept < settings.steps:
        obs, _, ids, rows, valid = decisions(games)
        states = _states(games) if belief is not None else []
        if belief is not None:
            belief.fill(obs, states)
        _, label, note = teacher_labels(games, play, group, annotate)
        taken = label
        if actor is not None:
            taken = actor.greedy_rows(
                *(torch.from_numpy(x) for x in (obs, ids, rows, valid))
            ).numpy()
        choice = valid.sum(1) > 1
        place = np.argmax((ids == label[:, None]) & valid, axis=1)
        parts.append(
            ScorerRecording(
                obs=obs[choice],
                ids=ids[choice].astype(np.int16),
                rows=rows[choice].astype(np.float16),
                valid=valid[choice],
                label=place[choice].astype(np.int8),
                taken=taken[choice].astype(np.int16),
                phase=games.field("phase")[choice].astype(np.int8),
                difficulty=difficulty[choice],
                note=note[choice],
            )
        )
        kept += int(choice.sum())
        if belief is not None:
            belief.record(states, taken, belief_model)
        _, _, _, info = games.step(taken)
        ended = np.flatnonzero(info["_final"])
        play.restart(ended)
        group.restart(ended)
        if belief is not None:
            belief.restart(ended)
    return ScorerRecording.join(parts).take(slice(0, settings.steps))


def fit(
    model: ActionScorer,
    data: ScorerRecording,
    epochs: int,
    minibatch: int,
    learning_rate: float,
    generator: torch.Generator,
) -> float:
    """Cross-entropy over each decision's legal actions, ``epochs`` passes, Adam with the
    step size annealed linearly to 0; returns the mean loss of the last pass."""
    optimizer = torch.optim.Adam(model.parameters(), learning_rate)
    total = max(1, epochs * -(-len(data) // minibatch))
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda k: max(0.0, 1.0 - k / total))
    losses: list[float] = []
    model.train()
    for _ in range(epochs):
        order = torch.randperm(len(data), generator=generator).numpy()
        losses = []
        for i in range(0, len(data), minibatch):
            obs, ids, rows, valid, label = data.tensors(order[i : i + minibatch])
            logits = model.logits_rows(obs, ids, rows, valid)
            loss = torch.nn.functional.cross_entropy(logits, label)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            schedule.step()
            losses.append(float(loss.detach()))
    model.eval()
    return float(np.mean(losses)) if losses else 0.0


@torch.no_grad()
def agreement(model: ActionScorer, data: ScorerRecording, difficulties: tuple[str, ...]) -> dict:
    """Share of ``data``'s decisions where the network's choice is the teacher's: all of
    them, by phase and by difficulty (each with its count)."""
    same = np.zeros(len(data), bool)
    for i in range(0, len(data), 16384):
        rows = slice(i, i + 16384)
        obs, ids, feats, valid, label = data.tensors(rows)
        same[rows] = (model.logits_rows(obs, ids, feats, valid).argmax(-1) == label).numpy()
    out: dict = {"all": [float(same.mean()), len(same)]}
    for key, names, values in (
        ("phase", PHASES, data.phase),
        ("difficulty", difficulties, data.difficulty),
    ):
        for k, name in enumerate(names):
            sel = values == k
            if sel.any():
                out[f"{key} {name}"] = [float(same[sel].mean()), int(sel.sum())]
    return out


@torch.no_grad()
def same_deals(
    cfg: FastConfig,
    model: ActionScorer,
    seed: int,
    games: int,
    difficulties: tuple[str, ...],
    policy: bool = False,
) -> dict[str, np.ndarray]:
    """bool[games] per difficulty: which games ``model`` won, greedy at every seat and
    decision, on the batched engine seeded ``seed`` (the deals of
    :func:`shipwreck_training.fast.imitation.same_deals` with the same arguments); with
    ``policy`` the group reads the belief under the model's own play policy."""
    g = Games(cfg.env, games * len(difficulties), seed, autoreset=False, difficulties=difficulties)
    belief = ScorerBelief(g.num_games, g.layout.offsets["belief"]) if policy else None
    while not (over := g.field("over").astype(bool)).all():
        obs, _, ids, rows, valid = decisions(g)
        states = _states(g) if belief is not None else []
        if belief is not None:
            belief.fill(obs, states)
        actions = np.zeros(g.num_games, np.int64)
        live = np.flatnonzero(~over)
        actions[live] = model.greedy_rows(
            *(torch.from_numpy(x[live]) for x in (obs, ids, rows, valid))
        ).numpy()
        if belief is not None:
            belief.record(states, actions, model)
        g.step(actions)
    won = g.field("won").astype(bool)
    return {d: won[k * games : (k + 1) * games] for k, d in enumerate(difficulties)}


def _win_rates(cfg: FastConfig, model: ActionScorer, args) -> dict:
    """Per difficulty: the teacher team (A) and the scorer (B) on the same deals,
    :func:`~shipwreck_agents.evaluation.paired.paired_difference`."""
    from shipwreck_agents.evaluation.paired import paired_difference
    from shipwreck_training.fast.imitation import same_deals as teacher_deals

    teacher = teacher_deals(cfg, args.eval_seed, args.games, EVAL_DIFFICULTIES)
    policy = args.belief == "policy"
    mine = same_deals(cfg, model, args.eval_seed, args.games, EVAL_DIFFICULTIES, policy)
    return {d: paired_difference(teacher[d].tolist(), mine[d].tolist()) for d in EVAL_DIFFICULTIES}


def _save(
    model: ActionScorer, cfg: FastConfig, path: Path, figures: dict, belief: str = "literal"
) -> None:
    from shipwreck_training.common.run import model_meta

    path.parent.mkdir(parents=True, exist_ok=True)
    save_scorer(model, path)
    info = model_meta(
        cfg.env,
        belief_kind=belief,
        network=NETWORK_KIND,
        trainer="shipwreck_training.fast.scorer",
        teacher=f"{cfg.imitation.play}+{cfg.imitation.group}",
        spec=f"fast:{path}",
        **figures,
    )
    path.with_suffix(".meta.json").write_text(json.dumps(info, indent=2))


def _markdown(report: dict) -> str:
    lines = [
        "# Imitation of the convention by an action scorer",
        "",
        f"`{report['command']}`",
        "",
        "Held-out agreement with the teacher (decisions with more than one legal action):",
        "",
        "| stage | decisions fitted | on its own states, before the fit | held-out | "
        "play | after play | group | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for stage in report["stages"]:
        held = stage["held_out"]

        def cell(key: str, held: dict = held) -> str:
            return f"{held[key][0]:.3f}" if key in held else "-"

        own = stage.get("on_policy_before_fit")
        lines.append(
            f"| {stage['stage']} | {stage['decisions']:,} | "
            f"{'-' if own is None else f'{own:.3f}'} | {cell('all')} | {cell('phase play')} | "
            f"{cell('phase after_play')} | {cell('phase group')} | {stage['seconds']:.0f} |"
        )
    if "win_rates" in report:
        lines += [
            "",
            f"Win rates on the same {report['games']} deals per difficulty (seed "
            f"{report['eval_seed']}), greedy at every seat, against the teacher team:",
            "",
            "| difficulty | scorer | teacher | scorer - teacher [95%] | deals won by one only "
            "(teacher / scorer) |",
            "|---|---:|---:|---:|---:|",
        ]
        for d, w in report["win_rates"].items():
            lo, hi = w["ci95"]
            lines.append(
                f"| {d} | {w['b']:.3f} | {w['a']:.3f} | {w['b_minus_a']:+.3f} "
                f"[{lo:+.3f}, {hi:+.3f}] | {w['only_a']} / {w['only_b']} |"
            )
    return "\n".join(lines) + "\n"


def _write(report: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "scorer.json").write_text(json.dumps(report, indent=2))
    (out / "README.md").write_text(_markdown(report))


def _deadline(text: str | None) -> float | None:
    """Seconds from now to the UTC time ``HH:MM`` (today, or tomorrow if past)."""
    if not text:
        return None
    now = dt.datetime.now(dt.timezone.utc)
    hour, minute = (int(x) for x in text.split(":"))
    at = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if at <= now:
        at += dt.timedelta(days=1)
    return (at - now).total_seconds()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", default="configs/fast/scorer_imitation.yaml")
    parser.add_argument("--held-out", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--round-steps", type=int, default=50_000)
    parser.add_argument("--round-epochs", type=int, default=4)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--eval-seed", type=int, default=20261201)
    parser.add_argument("--deadline", help="UTC HH:MM: no round that would end after it")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--data", default="/tmp/scorer_data")
    parser.add_argument("--out", default="results/imitation/scorer")
    parser.add_argument("--models", default="results/models/scorer")
    parser.add_argument("--belief", choices=("literal", "policy"), default="literal")
    parser.add_argument("--start", help="a saved scorer to start from (needed with policy)")
    parser.add_argument("overrides", nargs="*", help="config overrides, key=value")
    args = parser.parse_args(argv)
    if args.belief == "policy" and not args.start:
        return fail(
            "--belief policy needs --start PATH: a scorer fitted with the literal block, "
            "whose play policy the first recordings' group reads"
        )
    torch.set_num_threads(args.threads)
    cfg = load_config(args.config, args.overrides)
    policy = args.belief == "policy"
    try:
        first = load_scorer(args.start) if args.start else None
    except ValueError as exc:  # a missing file, or one that holds no scorer
        return fail(f"--start: {exc}")
    diffs = tuple(cfg.env.difficulties)
    out, models, data_dir = Path(args.out), Path(args.models), Path(args.data)
    data_dir.mkdir(parents=True, exist_ok=True)
    command = "python -m shipwreck_training.fast.scorer " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    start = time.perf_counter()
    stop_in = _deadline(args.deadline)
    report_path = out / "scorer.json"
    report = (
        json.loads(report_path.read_text())
        if report_path.exists()
        else {"command": command, "stages": []}
    )
    report.update(command=command, games=args.games, eval_seed=args.eval_seed)
    paths = {"train": data_dir / "train.npz", "held": data_dir / "held.npz"}
    for name, steps, offset in (
        ("train", cfg.imitation.steps, 7919),
        ("held", args.held_out, 7933),
    ):
        if not paths[name].exists():
            settings = cfg.imitation.model_copy(update={"steps": steps})
            belief_model = first if policy else None
            record(cfg, settings, seed_offset=offset, belief_model=belief_model).save(paths[name])
    train, held = ScorerRecording.load(paths["train"]), ScorerRecording.load(paths["held"])
    for k in range(1, args.rounds + 1):
        extra = data_dir / f"round{k}.npz"
        if extra.exists() and (models / f"round{k}.pth").exists():
            train = ScorerRecording.join([train, ScorerRecording.load(extra)])
    generator = torch.Generator().manual_seed(cfg.seed)
    done = [s["stage"] for s in report["stages"]]
    last = max((int(s[5:]) for s in done if s.startswith("round")), default=-1)
    if last >= 0 and (models / f"round{last}.pth").exists():
        model = load_scorer(models / f"round{last}.pth")
        print(f"going on from round {last}", flush=True)
    else:
        torch.manual_seed(cfg.seed)
        at = ObservationLayout.for_config(cfg.env.game_config(), belief=True).offsets["belief"]
        model = first or ActionScorer(
            train.obs.shape[1], NUM_ACTIONS, NUM_FEATURES, tuple(cfg.ppo.hidden), belief_at=at
        )
        began = time.perf_counter()
        loss = fit(
            model,
            train,
            cfg.imitation.epochs,
            cfg.imitation.minibatch_size,
            cfg.imitation.learning_rate,
            generator,
        )
        stage = {
            "stage": "round0",
            "decisions": len(train),
            "loss": loss,
            "held_out": agreement(model, held, diffs),
            "seconds": time.perf_counter() - began,
        }
        report["stages"] = [stage]
        _save(model, cfg, models / "round0.pth", {"held_out": stage["held_out"]}, args.belief)
        _write(report, out)
        print(stage, flush=True)
        last = 0
    per_round = None
    for r in range(last + 1, args.rounds + 1):
        elapsed = time.perf_counter() - start
        if stop_in is not None and per_round is not None and elapsed + per_round > stop_in:
            print(f"round {r} would end after the deadline: stopping", flush=True)
            break
        began = time.perf_counter()
        fresh = record(
            cfg,
            cfg.imitation.model_copy(update={"steps": args.round_steps}),
            actor=model,
            seed_offset=104729 + r,
            belief_model=model if policy else None,
        )
        fresh.save(data_dir / f"round{r}.npz")
        own = float((fresh.ids[np.arange(len(fresh)), fresh.label] == fresh.taken).mean())
        train = ScorerRecording.join([train, fresh])
        loss = fit(
            model,
            train,
            args.round_epochs,
            cfg.imitation.minibatch_size,
            cfg.imitation.learning_rate,
            generator,
        )
        stage = {
            "stage": f"round{r}",
            "decisions": len(train),
            "on_policy_before_fit": own,
            "loss": loss,
            "held_out": agreement(model, held, diffs),
            "seconds": time.perf_counter() - began,
        }
        report["stages"].append(stage)
        _save(model, cfg, models / f"round{r}.pth", {"held_out": stage["held_out"]}, args.belief)
        _write(report, out)
        print(stage, flush=True)
        per_round = time.perf_counter() - began
    if args.games:
        report["win_rates"] = _win_rates(cfg, model, args)
        report["win_rates_model"] = report["stages"][-1]["stage"]
        _write(report, out)
    print(_markdown(report), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
