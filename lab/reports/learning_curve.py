"""One fast-trainer run's learning curve as a plot and a table by step ranges.

    python lab/reports/learning_curve.py results/imitation_warm/fast_imitation_warm_eval.jsonl \
        --out results/imitation_warm/fast_imitation_warm_curve [--bin 10000000]

Reads the run's ``eval.jsonl`` (one line per greedy evaluation on the batched engine:
``step`` and, per difficulty, ``win_rate`` over the same evaluation deals every time) and
writes ``OUT.png`` (win rate against learner steps, each evaluation as a faint point and
the mean of each step range as a line) and ``OUT.md`` (that mean per step range and
difficulty, with the number of evaluations in it). The evaluations of one run replay the
same deals, so a range's mean smooths the policy's drift, not the deals' luck: read
differences between ranges as the run's trend, not as independent samples. The plot
needs matplotlib (the ``train`` extra).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from shipwreck_apps.arguments import at_least

__all__ = ["binned", "main", "markdown", "read_evals"]

DIFFS = ("normal", "hard", "doomed")


def read_evals(path: Path) -> list[dict]:
    """The evaluation lines of ``path``, in step order.

    Raises:
        ValueError: ``path`` has no evaluation lines, or a line that is not one (not
            JSON, or without ``step`` and ``results``).
    """
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            raise ValueError(f"{path} line {number} is not JSON") from None
        if not (isinstance(row, dict) and "step" in row and "results" in row):
            raise ValueError(
                f"{path} line {number} is not an evaluation; allowed: an object with "
                "step and results (a fast-trainer run's eval.jsonl)"
            )
        rows.append(row)
    if not rows:
        raise ValueError(f"{path} has no evaluation lines")
    return sorted(rows, key=lambda r: r["step"])


def binned(rows: list[dict], width: int) -> list[dict]:
    """Mean win rate per difficulty over each ``width``-step range that has evaluations."""
    if width <= 0:
        raise ValueError(f"--bin must be a positive number of steps, got {width}")
    groups: dict[int, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["step"] // width, []).append(row)
    out = []
    for key in sorted(groups):
        members = groups[key]
        means = {
            d: sum(r["results"][d]["win_rate"] for r in members) / len(members)
            for d in DIFFS
            if all(d in r["results"] for r in members)
        }
        games = members[0]["results"][DIFFS[0]]["games"]
        out.append(
            {"lo": key * width, "hi": (key + 1) * width, "n": len(members), "games": games, **means}
        )
    return out


def markdown(rows: list[dict], table: list[dict], source: Path, command: str) -> str:
    """The report: what was read, the command, and the table of step ranges."""
    last = rows[-1]
    lines = [
        f"# Learning curve of `{source}`",
        "",
        f"Written by `{command}`.",
        "",
        f"{len(rows)} greedy evaluations on the batched engine, {table[0]['games']} games per "
        f"difficulty each, the same deals every time; last at {last['step'] / 1e6:.1f}M steps.",
        "Each row is the mean over the evaluations whose step falls in the range.",
        "",
        "| steps | evaluations | " + " | ".join(DIFFS) + " |",
        "|---|---|" + "---|" * len(DIFFS),
    ]
    for row in table:
        cells = " | ".join(f"{row[d]:.3f}" if d in row else "" for d in DIFFS)
        lines.append(f"| {row['lo'] / 1e6:.0f}M-{row['hi'] / 1e6:.0f}M | {row['n']} | {cells} |")
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], table: list[dict], path: Path) -> None:
    """Win rate against steps: each evaluation faint, each range's mean as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, d in enumerate(DIFFS):
        colour = f"C{i}"
        xs = [r["step"] / 1e6 for r in rows if d in r["results"]]
        ys = [r["results"][d]["win_rate"] for r in rows if d in r["results"]]
        ax.scatter(xs, ys, s=6, alpha=0.25, color=colour)
        mids = [(t["lo"] + t["hi"]) / 2e6 for t in table if d in t]
        ax.plot(mids, [t[d] for t in table if d in t], color=colour, marker="o", label=d)
    ax.set_xlabel("learner steps (millions)")
    ax.set_ylabel("greedy win rate")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


PROGRAM = "lab/reports/learning_curve.py"


def build_parser() -> argparse.ArgumentParser:
    """The program's options."""
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="A fast-trainer run's greedy win rates (its eval.jsonl) against learner "
        "steps: OUT.png (each evaluation, and each step range's mean) and OUT.md (the "
        "means per step range and difficulty). Needs matplotlib (the train extra).",
    )
    parser.add_argument("evals", type=Path, help="a run's eval.jsonl")
    parser.add_argument(
        "--out", type=Path, required=True, help="path without suffix: writes OUT.md and OUT.png"
    )
    parser.add_argument("--bin", type=at_least(1), default=10_000_000, help="steps per range")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Write the curve and its table; 2 (one line) on a missing or empty file."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    try:
        rows = read_evals(args.evals)
        table = binned(rows, args.bin)
    except (OSError, ValueError) as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 2
    command = shlex.join(["python", PROGRAM, *argv])
    # OUT gets the suffixes appended: a name with a dot (run_lr0.001) keeps it whole
    md, png = (args.out.with_name(args.out.name + suffix) for suffix in (".md", ".png"))
    try:
        import matplotlib  # noqa: F401 -- before anything is written
    except ModuleNotFoundError:
        print(
            f"{PROGRAM}: error: the plot needs matplotlib; install "
            'the train extra (pip install -e ".[train]")',
            file=sys.stderr,
        )
        return 2
    md.write_text(markdown(rows, table, args.evals, command))
    plot(rows, table, png)
    print(md.read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
