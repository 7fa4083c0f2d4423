"""``lab/reports/learning_curve.py`` (once ``shipwreck-arcana learning-curve``): step ranges,
their means and the report."""

from __future__ import annotations

import json
import shlex

import pytest
from conftest import load_script


def main(argv: list[str]) -> int:
    """The lab program, run as from its command line (its first word dropped)."""
    assert argv[0] == "learning-curve"
    return curve.main(argv[1:])


curve = load_script("learning_curve")


def _line(step: int, rate: float) -> dict:
    return {"step": step, "results": {d: {"games": 200, "win_rate": rate} for d in curve.DIFFS}}


def test_ranges_average_the_evaluations_that_fall_in_them():
    rows = [_line(5, 0.5), _line(12, 0.7), _line(15, 0.9), _line(3, 0.1)]
    table = curve.binned(sorted(rows, key=lambda r: r["step"]), 10)
    assert [(t["lo"], t["hi"], t["n"]) for t in table] == [(0, 10, 2), (10, 20, 2)]
    assert table[0]["hard"] == pytest.approx(0.3) and table[1]["doomed"] == pytest.approx(0.8)
    with pytest.raises(ValueError, match="got 0"):
        curve.binned(rows, 0)


def test_the_report_and_plot_are_written_from_the_file(tmp_path, capsys):
    source = tmp_path / "eval.jsonl"
    source.write_text("\n".join(json.dumps(_line(s, s / 40)) for s in (30, 10, 20)) + "\n")
    argv = ["learning-curve", str(source), "--out", str(tmp_path / "c"), "--bin", "15"]
    assert main(argv) == 0
    text = (tmp_path / "c.md").read_text()
    assert "3 greedy evaluations" in text and "last at 0.0M steps" in text
    assert "| 0M-0M | 1 | 0.250 | 0.250 | 0.250 |" in text  # step 10 alone in [0, 15)
    assert (
        f"Written by `{shlex.join(['python', 'lab/reports/learning_curve.py', *argv[1:]])}`."
        in text
    )
    assert (tmp_path / "c.png").stat().st_size > 0
    assert text in capsys.readouterr().out
    # a dotted name keeps its whole stem: two runs told apart by a dotted value
    for name in ("run_ent0.01", "run_ent0.001"):
        assert main(["learning-curve", str(source), "--out", str(tmp_path / name)]) == 0
    assert {p.name for p in tmp_path.glob("run_ent*")} == {
        f"run_ent{v}.{ext}" for v in ("0.01", "0.001") for ext in ("md", "png")
    }


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        (["", ""], "has no evaluation lines"),
        (['{"step": 1'], "line 1 is not JSON"),
        ([json.dumps(_line(1, 0.5)), '{"win_rate": 0.5}'], "line 2 is not an evaluation"),
    ],
)
def test_a_bad_file_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys, lines, said):
    source = tmp_path / "eval.jsonl"
    source.write_text("\n".join(lines) + "\n")
    assert main(["learning-curve", str(source), "--out", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lab/reports/learning_curve.py: error: ") and said in err
    assert err.count("\n") == 1 and not list(tmp_path.glob("c.*"))


def test_a_missing_file_and_a_bad_bin_are_refused_by_name(tmp_path, capsys):
    missing = tmp_path / "missing.jsonl"
    assert main(["learning-curve", str(missing), "--out", str(tmp_path / "c")]) == 2
    assert "missing.jsonl" in capsys.readouterr().err
    source = tmp_path / "eval.jsonl"
    source.write_text(json.dumps(_line(1, 0.5)) + "\n")
    with pytest.raises(SystemExit) as stop:
        main(["learning-curve", str(source), "--out", str(tmp_path / "c"), "--bin", "0"])
    assert stop.value.code == 2
    assert "argument --bin: 0 is not allowed; allowed: an integer >= 1" in capsys.readouterr().err


def test_help_names_the_files_it_writes(capsys):
    with pytest.raises(SystemExit):
        main(["learning-curve", "--help"])
    text = capsys.readouterr().out
    assert text.startswith("usage: lab/reports/learning_curve.py")
    assert "OUT.png" in text and "OUT.md" in text and "--bin" in text
