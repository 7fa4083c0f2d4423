"""scripts/plot_learning_curve.py: step ranges, their means and the report."""

from __future__ import annotations

import json

import pytest
from conftest import load_script

curve = load_script("plot_learning_curve")


def _line(step: int, rate: float) -> dict:
    return {"step": step, "results": {d: {"games": 200, "win_rate": rate} for d in curve.DIFFS}}


def test_ranges_average_the_evaluations_that_fall_in_them():
    rows = [_line(5, 0.5), _line(12, 0.7), _line(15, 0.9), _line(3, 0.1)]
    table = curve.binned(sorted(rows, key=lambda r: r["step"]), 10)
    assert [(t["lo"], t["hi"], t["n"]) for t in table] == [(0, 10, 2), (10, 20, 2)]
    assert table[0]["hard"] == pytest.approx(0.3) and table[1]["doomed"] == pytest.approx(0.8)
    with pytest.raises(ValueError, match="got 0"):
        curve.binned(rows, 0)


def test_the_report_and_plot_are_written_from_the_file(tmp_path):
    source = tmp_path / "eval.jsonl"
    source.write_text("\n".join(json.dumps(_line(s, s / 40)) for s in (30, 10, 20)) + "\n")
    assert curve.main([str(source), "--out", str(tmp_path / "c"), "--bin", "15"]) == 0
    text = (tmp_path / "c.md").read_text()
    assert "3 greedy evaluations" in text and "last at 0.0M steps" in text
    assert "| 0M-0M | 1 | 0.250 | 0.250 | 0.250 |" in text  # step 10 alone in [0, 15)
    assert (tmp_path / "c.png").stat().st_size > 0
    # a dotted name keeps its whole stem: two runs told apart by a dotted value
    for name in ("run_ent0.01", "run_ent0.001"):
        assert curve.main([str(source), "--out", str(tmp_path / name)]) == 0
    assert {p.name for p in tmp_path.glob("run_ent*")} == {
        f"run_ent{v}.{ext}" for v in ("0.01", "0.001") for ext in ("md", "png")
    }
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(ValueError, match="no evaluation lines"):
        curve.read_evals(empty)


def test_bad_input_on_the_command_line_is_one_line_and_exit_2(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    for argv, said in (
        ([str(empty), "--out", str(tmp_path / "c")], "has no evaluation lines"),
        ([str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "c")], "missing.jsonl"),
    ):
        with pytest.raises(SystemExit) as stop:
            curve.main(argv)
        assert stop.value.code == 2 and said in capsys.readouterr().err
    source = tmp_path / "eval.jsonl"
    source.write_text(json.dumps(_line(1, 0.5)) + "\n")
    with pytest.raises(SystemExit):
        curve.main([str(source), "--out", str(tmp_path / "c"), "--bin", "0"])
    assert "--bin must be a positive number of steps, got 0" in capsys.readouterr().err
