"""Expert iteration: distil the test-time search's decisions into its blueprint network.

One round (issue 40, item 3):

1. **Record** (:func:`record_search`): the search team (``search:PATH``,
   :class:`~shipwreck_agents.search.sparta.SearchTeamPolicy`) plays games on the
   reference engine at every seat. At each of its decisions the network's input is kept
   exactly as the blueprint read it (the observation with the belief block it wrote for a
   group decision), with the action the team played as the label: the search's choice
   where it searched and changed the blueprint's action, the blueprint's own elsewhere.
2. **Distil** (:func:`distil`): the network is fitted by cross-entropy to those labels
   (:func:`~shipwreck_training.fast.imitation.fit_policy`), the changed decisions
   repeated ``changed_weight`` times so the few the search improves are not drowned by
   the many it agrees with. The value head is left as it was (no returns are recorded).
3. **Measure**: the new network alone and with the same search over it, on held-out deals
   (``shipwreck-arcana evaluate``), beside the round's blueprint on the same deals.

    python -m shipwreck_training.fast.expert --model results/models/X.pth \\
        --games 300 --difficulties hard,doomed --seed 40001 --out results/models/expert/r1.pth

Writes the distilled network with its ``.meta.json`` (which names the round, its
blueprint, the recording's seed and counts) and prints the round's figures as JSON.
``--uncertain`` and ``--phases`` set the search as ``search:PATH`` does (the shipped
setting is ``--samples 32 --uncertain 0.99 --phases play+group+steal+after_play``).

A large recording can be made by several processes at once, on seeds of their own, and
distilled together::

    python -m shipwreck_training.fast.expert --model M --seed 40002 ... \
        --save-recording A.npz --record-only       # and B.npz on another seed
    python -m shipwreck_training.fast.expert --model M --recordings A.npz,B.npz --out R.pth

``--record-only`` writes the decisions and, beside them, ``A.counts.json`` (the command,
the counts, the search settings); ``--recordings`` joins the recordings in the order
given (:func:`join_recordings`: same difficulties and search settings) and distils them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from shipwreck_agents.base import Team
from shipwreck_agents.evaluation.evaluate import game_seed, play_game
from shipwreck_agents.learned.actor_critic import export_sb3, load_sb3
from shipwreck_agents.learned.sb3 import read_meta
from shipwreck_agents.search.options import DEFAULT_PHASES, parse_phases
from shipwreck_agents.search.sparta import SearchTeamPolicy
from shipwreck_env.rules.config import GameConfig
from shipwreck_training.fast.imitation import Recording, fit_policy

__all__ = ["SearchRecorder", "distil", "join_recordings", "main", "record_search"]


class SearchRecorder(SearchTeamPolicy):
    """A search team that keeps each decision's network input and the action it played.

    ``rows`` holds, per decision: (observation as the blueprint read it, legal mask,
    action played, the blueprint's own action, the decider is the active player)."""

    def reset(self) -> None:
        super().reset()
        if not hasattr(self, "rows"):
            self.rows: list[tuple[np.ndarray, np.ndarray, int, int, bool]] = []
        self._read: tuple[np.ndarray, int] | None = None

    def _greedy(self, obs: np.ndarray, legal: np.ndarray) -> int:
        # the blueprint's own decision (FastTeamPolicy.act): keep the input it read, its
        # belief block written in for a group decision, and what it chose
        action = super()._greedy(obs, legal)
        if self._read is None:
            self._read = (np.array(obs[0], np.float32), action)
        return action

    def act(self, observation, mask, view, rng, state=None) -> int:
        self._read = None
        action = super().act(observation, mask, view, rng, state)
        if self._read is None:
            raise RuntimeError("the blueprint decided without its network: nothing to record")
        obs, own = self._read
        legal = np.asarray(mask, bool).copy()
        self.rows.append((obs, legal, int(action), own, view.decider == view.active_player))
        return action


def record_search(
    path: str | Path,
    configs: list[GameConfig],
    games: int,
    seed: int,
    **options,
) -> tuple[Recording, dict]:
    """Games ``0 .. games - 1`` of each config (deals from ``seed``, as the evaluator
    draws them) played by the search team over the network at ``path`` with search
    ``options``; returns the decisions as a :class:`Recording` (``actions``: the action
    played, ``taken``: the blueprint's own, ``note``: 1 where the search changed it) and
    counts (games, wins, decisions, searched, changed, seconds per difficulty)."""
    recorder = SearchRecorder(str(path), **options)
    parts, counts = [], {}
    for index, config in enumerate(configs):
        recorder.rows = []
        wins = searched = 0
        start = time.process_time()
        for i in range(games):
            record = play_game(
                config, Team(recorder, recorder), game_seed(seed, config.difficulty, i)
            )
            wins += record.won
            searched += recorder.stats.searched
        rows = recorder.rows
        obs = np.stack([r[0] for r in rows]) if rows else np.zeros((0, 0), np.float32)
        masks = np.stack([r[1] for r in rows]) if rows else np.zeros((0, 0), bool)
        actions = np.array([r[2] for r in rows], np.int64)
        own = np.array([r[3] for r in rows], np.int64)
        parts.append(
            Recording(
                obs,
                masks,
                actions,
                np.array([r[4] for r in rows], bool),
                np.full(len(rows), np.nan, np.float32),
                difficulty=np.full(len(rows), index, np.int8),
                taken=own,
                note=(actions != own).astype(np.int32),
            )
        )
        counts[config.difficulty] = {
            "games": games,
            "wins": int(wins),
            "decisions": len(rows),
            "searched": int(searched),
            "changed": int((actions != own).sum()),
            "cpu_seconds": time.process_time() - start,
        }
    return Recording.join(parts), counts


def distil(
    model,
    data: Recording,
    *,
    epochs: int,
    learning_rate: float,
    minibatch_size: int = 256,
    changed_weight: int = 1,
    seed: int = 0,
) -> dict:
    """Fit ``model``'s policy to ``data``'s labels (cross-entropy,
    :func:`~shipwreck_training.fast.imitation.fit_policy` with the step size annealed to
    zero); the decisions where the search changed the blueprint's action (``note`` 1)
    count ``changed_weight`` times. Returns the fit's losses and the agreement with the
    labels before and after, over all decisions and over the changed ones."""
    if changed_weight < 1:
        raise ValueError(f"changed_weight={changed_weight!r}: allowed a whole number >= 1")
    changed = np.flatnonzero(data.note == 1)
    rows = np.concatenate([np.arange(len(data)), np.repeat(changed, changed_weight - 1)])
    fitted = data.take(rows)

    def agree(part: Recording) -> float:
        if not len(part):
            return float("nan")
        chosen = model.greedy(torch.from_numpy(part.obs), torch.from_numpy(part.masks))
        return float((chosen.numpy() == part.actions).mean())

    before = {"all": agree(data), "changed": agree(data.take(changed))}
    settings = _FitSettings(epochs, minibatch_size, learning_rate)
    losses = fit_policy(model, fitted, settings, torch.Generator().manual_seed(seed), anneal=True)
    after = {"all": agree(data), "changed": agree(data.take(changed))}
    return {"agreement_before": before, "agreement_after": after, **losses}


class _FitSettings:
    """The three fields :func:`fit_policy` reads of a fit's settings."""

    def __init__(self, epochs: int, minibatch_size: int, learning_rate: float) -> None:
        self.epochs, self.minibatch_size, self.learning_rate = (
            epochs,
            minibatch_size,
            learning_rate,
        )


def _counts_path(recording: str | Path) -> Path:
    """Where a saved recording's counts and command are written (beside the ``.npz``)."""
    return Path(recording).with_suffix(".counts.json")


_SEARCH_KEYS = ("samples", "margin", "uncertain", "phases")


def join_recordings(paths: list[str]) -> tuple[Recording, dict, dict]:
    """The decisions of several recordings saved with ``--save-recording`` (each with its
    ``.counts.json`` beside it), joined in order; their counts summed per difficulty; and
    what made them (the search settings they share, the files and their commands).

    Raises:
        ValueError: a missing file, or recordings of other difficulties (the decisions'
            ``difficulty`` indexes each recording's own list, so they must be the same) or
            of other search settings.
    """
    parts, total, commands, order, search = [], {}, [], None, None
    for path in paths:
        counts_file = _counts_path(path)
        if not Path(path).is_file() or not counts_file.is_file():
            raise ValueError(
                f"recording {path!r}: needs the .npz and its {counts_file.name} beside it; "
                "allowed: files written by --save-recording"
            )
        info = json.loads(counts_file.read_text())
        if order is None:
            order = list(info["recording"])
        elif list(info["recording"]) != order:
            raise ValueError(
                f"recording {path!r} has difficulties {list(info['recording'])}; allowed: "
                f"the same as the first recording's, {order}"
            )
        settings = {k: info[k] for k in _SEARCH_KEYS}
        if search is None:
            search = settings
        elif settings != search:
            raise ValueError(
                f"recording {path!r} was searched with {settings}; allowed: the same search "
                f"settings as the first recording's, {search}"
            )
        parts.append(Recording.load(path))
        commands.append(info["command"])
        for difficulty, figures in info["recording"].items():
            into = total.setdefault(difficulty, dict.fromkeys(figures, 0))
            for key, value in figures.items():
                into[key] += value
    made = {**search, "recordings": list(paths), "recording_commands": commands}
    return Recording.join(parts), total, made


def main(argv: list[str] | None = None) -> int:
    """Command line: one round of expert iteration (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="the blueprint network (.pth)")
    parser.add_argument("--out", help="the distilled network (.pth)")
    parser.add_argument("--games", type=int, default=300, help="games per difficulty")
    parser.add_argument("--difficulties", default="normal,hard,doomed")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=40001, help="a training seed")
    parser.add_argument("--samples", type=int, default=16, help="worlds per search")
    parser.add_argument("--margin", type=float, default=0.1)
    parser.add_argument(
        "--uncertain",
        type=float,
        default=0.95,
        help="search only where the blueprint gives its choice less than this probability",
    )
    parser.add_argument(
        "--phases",
        type=parse_phases,
        default=DEFAULT_PHASES,
        help=f"the decisions searched, joined by '+' (default {'+'.join(DEFAULT_PHASES)})",
    )
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--learning-rate", type=float, default=1e-4)
    parser.add_argument("--changed-weight", type=int, default=8)
    parser.add_argument("--save-recording", help="also write the decisions (.npz)")
    parser.add_argument(
        "--record-only",
        action="store_true",
        help="with --save-recording: record and stop (no distillation, no --out)",
    )
    parser.add_argument(
        "--recordings",
        help="distil from these saved recordings (comma-separated .npz) instead of recording",
    )
    args = parser.parse_args(argv)
    command = "python -m shipwreck_training.fast.expert " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    if args.games < 1:
        parser.error(f"--games {args.games}: allowed a whole number >= 1")
    if args.record_only and not args.save_recording:
        parser.error("--record-only needs --save-recording FILE.npz")
    if args.record_only and args.recordings:
        parser.error("--record-only records; --recordings distils saved ones: give one of them")
    if not args.record_only and not args.out:
        parser.error("--out FILE.pth is needed unless --record-only")
    meta = read_meta(args.model)
    start = time.perf_counter()
    if args.recordings:
        try:
            data, counts, recorded = join_recordings(args.recordings.split(","))
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    else:
        configs = [
            GameConfig(
                num_players=args.players,
                difficulty=d,
                card_sets=",".join(meta.get("card_sets", ["base"])),
                group_decision=meta.get("group_decision", "leader"),
                challenge_mode=meta.get("challenge_mode", False),
            )
            for d in args.difficulties.split(",")
        ]
        data, counts = record_search(
            args.model,
            configs,
            args.games,
            args.seed,
            samples=args.samples,
            margin=args.margin,
            uncertain=args.uncertain,
            phases=args.phases,
        )
        recorded = {
            "samples": args.samples,
            "margin": args.margin,
            "uncertain": args.uncertain,
            "phases": list(args.phases),
        }
        if args.save_recording:
            data.save(args.save_recording)
            _counts_path(args.save_recording).write_text(
                json.dumps({"command": command, "recording": counts, **recorded}, indent=1)
            )
        if args.record_only:
            print(json.dumps({"recording": counts, "seconds": time.perf_counter() - start}))
            return 0
    model = load_sb3(args.model)
    fit = distil(
        model,
        data,
        epochs=args.epochs,
        learning_rate=args.learning_rate,
        changed_weight=args.changed_weight,
        seed=args.seed,
    )
    target = Path(args.out)
    target.parent.mkdir(parents=True, exist_ok=True)
    export_sb3(model, target)
    info = {
        **meta,
        "expert_iteration": {
            "blueprint": str(args.model),
            "command": command,
            "recording": counts,
            "fit": fit,
            **recorded,
            "epochs": args.epochs,
            "learning_rate": args.learning_rate,
            "changed_weight": args.changed_weight,
        },
    }
    target.with_suffix(".meta.json").write_text(json.dumps(info, indent=2, default=float))
    out = {"recording": counts, "fit": fit, "seconds": time.perf_counter() - start}
    print(json.dumps(out, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
