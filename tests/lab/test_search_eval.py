"""The paired report of lab/studies/search_eval.py: its figures from per-game rows."""

from __future__ import annotations

import json

import pytest
from conftest import load_script

pytest.importorskip("torch")

# registered: the worker processes find their function by the module's name
search_eval = load_script("search_eval", register=True)


def _row(blueprint: bool, search: bool, searched: int, changed: int) -> dict:
    return {
        "blueprint_won": blueprint,
        "search_won": search,
        "blueprint_s": 0.04,
        "search_s": 0.5,
        "decisions": 20,
        "searched": searched,
        "changed": changed,
        "search_seconds": 0.1 * searched,
    }


ROWS = [
    _row(True, True, 2, 0),
    _row(False, True, 4, 1),
    _row(False, True, 3, 2),
    _row(True, False, 1, 1),
    _row(False, False, 0, 0),
]


def test_summarise_counts_the_discordant_pairs_and_the_paired_difference():
    s = search_eval.summarise(ROWS)
    assert (s["games"], s["blueprint_wins"], s["search_wins"]) == (5, 2, 3)
    assert (s["search_only_won"], s["blueprint_only_won"]) == (2, 1)
    assert s["difference"] == pytest.approx(0.2)
    low, high = s["difference_ci95"]
    assert low < 0.2 < high
    assert s["searched_per_game"] == pytest.approx(2.0)
    assert s["changed_per_game"] == pytest.approx(0.8)
    assert s["ms_per_searched_decision"] == pytest.approx(100.0)


def test_the_report_names_its_command_settings_and_phases():
    report = {
        "command": "python lab/studies/search_eval.py --games 5",
        "seed": 9,
        "options": {"samples": 32, "margin": 0.1, "uncertain": 0.95, "phases": "play+steal"},
        "load_start": 1.0,
        "load_end": 2.0,
        "results": {"hard": search_eval.summarise(ROWS)},
    }
    text = search_eval.markdown(report)
    assert "`python lab/studies/search_eval.py --games 5`" in text
    assert "32 worlds" in text and "phases play+steal" in text and "seed 9" in text
    assert "| hard | 5 | 0.400 " in text and "| 2 / 1 |" in text
    assert "Partial" not in text and "Blueprint:" not in text
    kind = {**report, "model": "m.pth", "belief_kind": "policy_carry"}
    assert "Blueprint: `m.pth`, belief kind `policy_carry`." in search_eval.markdown(kind)
    assert "**Partial**: 5 of the 8 games" in search_eval.markdown({**report, "games_requested": 8})
    assert "Partial" not in search_eval.markdown({**report, "games_requested": 5})


def test_an_unknown_phase_is_refused_on_the_command_line(capsys):
    with pytest.raises(SystemExit):
        search_eval.main(["--phases", "play+reveal", "--games", "0"])
    assert "not allowed; allowed: play+group+steal+after_play" in capsys.readouterr().err


def test_jobs_below_one_is_refused_on_the_command_line(capsys):
    with pytest.raises(SystemExit):
        search_eval.main(["--jobs", "0", "--games", "0"])
    assert "--jobs must be at least 1, got 0" in capsys.readouterr().err


def test_worker_processes_give_the_same_games_as_one_process(tmp_path):
    """Each game's deal and chance stream are its own: splitting the games over two
    workers must not change a single result (only the times)."""
    common = [
        "--model", "results/models/fast_selfplay_imitation_carry.pth",
        "--difficulty", "doomed", "--games", "4", "--seed", "5", "--samples", "4",
        "--uncertain", "0.999",
    ]  # fmt: skip
    reports = []
    for jobs in (1, 2):
        out = tmp_path / f"jobs{jobs}"
        search_eval.main([*common, "--jobs", str(jobs), "--out", str(out)])
        reports.append(json.loads(out.with_suffix(".json").read_text()))
    keys = ("game", "blueprint_won", "search_won", "decisions", "searched", "changed")
    one, two = ([{k: r[k] for k in keys} for r in rep["games"]["doomed"]] for rep in reports)
    assert one == two and len(one) == 4
    assert sum(r["searched"] for r in one) > 0
    assert "2 worker processes" in search_eval.markdown(reports[1])


def test_a_missing_model_is_one_line_on_the_command_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        search_eval.main(["--model", str(tmp_path / "none.pth"), "--games", "1"])
    assert stop.value.code == 2
    assert "none.pth' does not exist" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flag, value",
    [("--samples", "0"), ("--margin", "-1"), ("--uncertain", "0"), ("--uncertain", "2")],
)
def test_a_search_setting_out_of_range_is_one_line_on_the_command_line(
    tmp_path, capsys, flag, value
):
    """Refused before any model is looked for (this one does not exist)."""
    with pytest.raises(SystemExit) as stop:
        search_eval.main(["--model", str(tmp_path / "none.pth"), flag, value, "--games", "1"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert (
        f"{flag[2:]}={float(value) if flag != '--samples' else int(value)!r} is not allowed" in err
    )
    assert err.startswith("usage:") and "Traceback" not in err
    assert ": error: search " in err.splitlines()[-1]
