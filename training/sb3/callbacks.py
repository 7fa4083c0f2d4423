"""Callbacks: periodic win-rate evaluation, checkpoints with metadata, a progress bar."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from stable_baselines3.common.callbacks import BaseCallback

__all__ = ["CheckpointWithMeta", "ProgressBar", "WinRateEval", "save_with_meta"]


def save_with_meta(model, path: Path, meta: dict) -> Path:
    """Save ``model`` to ``path`` (.zip) and its observation options beside it."""
    path = Path(path)
    model.save(str(path))
    zip_path = path if path.suffix == ".zip" else path.with_suffix(".zip")
    Path(str(zip_path)[:-4] + ".meta.json").write_text(json.dumps(meta, indent=2))
    return zip_path


class CheckpointWithMeta(BaseCallback):
    """Every ``every`` training steps, save ``<dir>/model_<steps>_steps.zip`` (+ meta)."""

    def __init__(self, directory: Path, every: int, meta: dict) -> None:
        super().__init__()
        self.directory = Path(directory)
        self.every = every
        self.meta = meta
        self._next = None

    def _on_training_start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._next = (self.num_timesteps // self.every + 1) * self.every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            save_with_meta(
                self.model, self.directory / f"model_{self.num_timesteps}_steps.zip", self.meta
            )
            self._next += self.every
        return True


class WinRateEval(BaseCallback):
    """Every ``every`` steps, measure the win rate on every difficulty.

    ``evaluate_model(model_path, steps)`` saves nothing itself: this callback saves the
    current model to ``<run>/eval_model.zip`` and hands the path over; it returns an
    ``shipwreck_agents.evaluation.evaluate`` report. Each report is appended to ``<run>/eval.jsonl`` and
    logged to TensorBoard as ``eval/win_rate_<difficulty>``.
    """

    def __init__(
        self,
        run_dir: Path,
        every: int,
        meta: dict,
        evaluate_model: Callable[[Path, int], dict],
        label: str = "",
    ) -> None:
        super().__init__()
        self.run_dir = Path(run_dir)
        self.every = every
        self.meta = meta
        self.evaluate_model = evaluate_model
        self.label = label
        self.latest: dict | None = None
        self._next = None
        self._start = time.time()

    def _on_training_start(self) -> None:
        self._next = (self.num_timesteps // self.every + 1) * self.every if self.every else None

    def _on_step(self) -> bool:
        if self._next is not None and self.num_timesteps >= self._next:
            self.run_eval()
            self._next += self.every
        return True

    def run_eval(self) -> dict:
        """Evaluate now; record and return the report."""
        path = save_with_meta(self.model, self.run_dir / "eval_model.zip", self.meta)
        start = time.perf_counter()
        report = self.evaluate_model(path, self.num_timesteps)
        record = {
            "label": self.label,
            "steps": int(self.num_timesteps),
            "wall_seconds": time.time() - self._start,
            "eval_seconds": time.perf_counter() - start,
            "win_rate": {d: r["win_rate"] for d, r in report["results"].items()},
            "report": report,
        }
        with open(self.run_dir / "eval.jsonl", "a") as fh:
            fh.write(json.dumps(record) + "\n")
        if getattr(self.model, "_logger", None) is not None:  # not before learn() starts
            for difficulty, rate in record["win_rate"].items():
                self.logger.record(f"eval/win_rate_{difficulty}", rate)
        self.latest = record
        return record


class ProgressBar(BaseCallback):
    """tqdm bar: steps, steps per second and the latest evaluated win rates."""

    def __init__(self, total: int, evaluator: WinRateEval | None = None, label: str = "") -> None:
        super().__init__()
        self.total = total
        self.evaluator = evaluator
        self.label = label
        self.bar = None
        self._shown = None

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        self.bar = tqdm(
            total=self.total,
            initial=self.num_timesteps,
            desc=self.label or "train",
            unit="step",
            dynamic_ncols=True,
        )

    def _on_step(self) -> bool:
        self.bar.update(self.num_timesteps - self.bar.n)
        latest = self.evaluator.latest if self.evaluator else None
        if latest is not None and latest is not self._shown:
            self.bar.set_postfix({f"win_{d}": f"{r:.2f}" for d, r in latest["win_rate"].items()})
            self._shown = latest
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()
