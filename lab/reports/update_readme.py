"""Regenerate the generated parts of README.md and docs/ from code and results files.

    python lab/reports/update_readme.py          # rewrite in place
    python lab/reports/update_readme.py --check  # exit 1 if anything is out of date

Sections between ``<!-- BEGIN:name -->`` and ``<!-- END:name -->``, in README.md or any
page under docs/ (each section must appear somewhere), come from: ``observation`` (the
observation layout, 3 players), ``actions`` (the action blocks), ``bench``
(results/bench/bench.json), ``headline`` (the 3-player win rates of the scripted and the shipped
learned teams, from results/baselines/baselines.json, results/learned_eval/fast_reference_eval.json and
results/learned_eval/learned_team_eval.json),
``baselines`` (results/baselines/baselines.md), ``training`` (results/training/training.md), ``crossplay``
(results/crossplay/crossplay.md), ``adhoc`` (results/adhoc/*.json).
``docs/actions.md`` lists all 259 actions and ``docs/observation.md`` the layout for every
player count. Nothing here is typed by hand: a section whose source file is missing says so.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from shipwreck_env.rules.actions import ACTIONS, NUM_ACTIONS, action_table_markdown
from shipwreck_env.rules.observation import ObservationLayout

ROOT = Path(__file__).resolve().parents[2]


def _action_blocks() -> str:
    """One row per run of actions of the same kind (and, for powers, the same power)."""
    rows = ["| actions | kind | meaning |", "|---|---|---|"]
    start = 0
    for i in range(1, NUM_ACTIONS + 1):
        a, prev = (ACTIONS[i] if i < NUM_ACTIONS else None), ACTIONS[i - 1]
        same = (
            a is not None and a.kind == prev.kind and (a.kind != "power" or a.power == prev.power)
        )
        if same:
            continue
        first = ACTIONS[start]
        label = first.kind + (f" {first.power}" if first.kind == "power" else "")
        if i - 1 == start:
            rows.append(f"| {start} | {label} | {first.description} |")
        else:
            rows.append(
                f"| {start}-{i - 1} | {label} | {first.description} ... {prev.description} |"
            )
        start = i
    return "\n".join(rows)


def _bench() -> str:
    path = ROOT / "results" / "bench" / "bench.json"
    if not path.exists():
        return "_No benchmark results yet: run `python -m shipwreck_apps.bench`._"
    data = json.loads(path.read_text())
    load = data.get("load_average")
    busy = f"; load average {load[0]:.1f} on 2 cores when it started" if load else ""
    return (
        f"Measured with `{data['command'].strip()}` (median of {data['repeats']} runs of "
        f"{data['seconds']:g} s each, Python {data['python']}, one process on a shared "
        f"2-core machine{busy}). Ratios compare runs of one session, so they hold up better "
        f"than absolute figures on a busy machine:\n\n{data['table']}"
    )


def _file_section(name: str, how: str) -> str:
    path = ROOT / "results" / name
    if not path.exists():
        return f"_Not generated yet: run `{how}`._"
    text = path.read_text().strip()
    return text


def _headline() -> str:
    """3 players, base cards, leader mode: win rate per difficulty of the strongest teams."""
    rows = []
    base = ROOT / "results" / "baselines" / "baselines.json"
    if base.exists():
        data = json.loads(base.read_text())
        again = data.get("remeasured", {})  # cells measured again by --only
        for report in data["reports"]["3"]:
            if report["team"] in ("heuristic+bayes", "convention+convention"):
                remeasured = set(report["team"].split("+")) & set(again.get("policies", ()))
                rows.append((report, f"`{again['command'] if remeasured else data['command']}`"))
    learned = ROOT / "results" / "learned_eval" / "fast_reference_eval.json"
    if learned.exists():
        report = json.loads(learned.read_text())
        rows.append(
            (
                report,
                f"reference evaluator, seed {report['seed']} (`results/training/training.md`, fast trainer)",
            )
        )
    best = ROOT / "results" / "learned_eval" / "learned_team_eval.json"
    if best.exists():  # the strongest learned team, when it is not the one above
        report = json.loads(best.read_text())
        command = (
            f"shipwreck-arcana evaluate --play {report['play']} --group {report['group']} "
            f"--games {report['games']} --seed {report['seed']} --out results/learned_eval/learned_team_eval.json"
        )
        rows.append((report, f"`{command}`"))
    if not rows:
        return "_Not measured yet: run `python lab/reports/make_baselines.py`._"
    difficulties = ("easy", "normal", "hard", "doomed")
    lines = [
        "| team | " + " | ".join(difficulties) + " | games per cell | measured by |",
        "|---|" + "---:|" * len(difficulties) + "---:|---|",
    ]
    for report, how in rows:
        rates = [f"{report['results'][d]['win_rate']:.3f}" for d in difficulties]
        lines.append(
            f"| {report['team']} | " + " | ".join(rates) + f" | {report['games']} | {how} |"
        )
    return "\n".join(lines)


def _adhoc() -> str:
    """Each team of results/adhoc/: self-play and pooled ad-hoc win rate with the held-out
    partners at normal and hard, best ad-hoc first, with the command that measured it."""
    folder = ROOT / "results" / "adhoc"
    reports = [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
    if not reports:
        return "_Not measured yet: run `shipwreck-arcana adhoc TEAM --out-dir results`._"
    reports.sort(key=lambda r: -r["results"]["normal"]["adhoc"]["win_rate"])
    lines = [
        "| team | self-play normal | ad-hoc normal | self-play hard | ad-hoc hard | games per cell | measured by |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in reports:
        cells = [
            f"{r['results'][d][k]['win_rate']:.3f}"
            for d in ("normal", "hard")
            for k in ("self", "adhoc")
        ]
        lines.append(
            f"| {r['team']} | " + " | ".join(cells) + f" | {r['games']} | `{r['command']}` |"
        )
    return "\n".join(lines)


def sections() -> dict[str, str]:
    """Every generated README section by name."""
    return {
        "observation": ObservationLayout(3).markdown(),
        "actions": _action_blocks(),
        "bench": _bench(),
        "headline": _headline(),
        "baselines": _file_section(
            "baselines/baselines.md", "python lab/reports/make_baselines.py"
        ),
        "training": _file_section(
            "training/training.md", "python lab/reports/make_training_report.py"
        ),
        "adhoc": _adhoc(),
        "crossplay": _file_section(
            "crossplay/crossplay.md",
            "shipwreck-arcana crossplay TEAM TEAM ... --out-dir results/crossplay",
        ),
    }


def docs() -> dict[Path, str]:
    """Generated documentation files."""
    obs = [
        "# Observation layouts",
        "",
        "Generated by `lab/reports/update_readme.py` from "
        "`shipwreck_env.rules.observation.ObservationLayout`.",
        "",
    ]
    for players in (2, 3, 4, 5):
        for challenge in (False, True) if players == 2 else (False,):
            layout = ObservationLayout(players, challenge, belief=True)
            title = f"{players} players" + (", challenge mode" if challenge else "")
            obs += [
                f"## {title} (size {layout.size}; {layout.size - 7} without `belief`)",
                "",
                layout.markdown(),
                "",
            ]
    actions = [
        "# Actions",
        "",
        "Generated by `lab/reports/update_readme.py` from `shipwreck_env.rules.actions.ACTIONS`.",
        "",
        action_table_markdown(),
        "",
    ]
    return {
        ROOT / "docs" / "observation.md": "\n".join(obs),
        ROOT / "docs" / "actions.md": "\n".join(actions),
    }


def render_sections(text: str) -> tuple[str, set[str]]:
    """``text`` with every generated section it marks replaced, and the names found."""
    found = set()
    for name, body in sections().items():
        pattern = re.compile(rf"(<!-- BEGIN:{name} -->\n)(?:.*?\n)?(<!-- END:{name} -->)", re.S)
        if pattern.search(text):
            found.add(name)
            text = pattern.sub(lambda m, body=body: m.group(1) + body + "\n" + m.group(2), text)
    return text, found


def rendered_pages() -> dict[Path, str]:
    """README.md and every docs/ page with their generated sections replaced, and the
    generated docs files; every section must be marked in at least one page."""
    generated = docs()
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    out: dict[Path, str] = {}
    found: set[str] = set()
    for path in pages:
        if path in generated:
            continue
        text, names = render_sections(path.read_text())
        out[path] = text
        found |= names
    missing = sorted(set(sections()) - found)
    if missing:
        raise SystemExit(f"no page of README.md or docs/ has section markers for {missing}")
    return {**out, **generated}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args()
    targets = rendered_pages()
    stale = [p for p, text in targets.items() if not p.exists() or p.read_text() != text]
    if args.check:
        for path in stale:
            print(f"out of date: {path.relative_to(ROOT)}")
        return 1 if stale else 0
    for path in stale:
        path.write_text(text if (text := targets[path]) else "")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
