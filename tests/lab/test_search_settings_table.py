"""lab/studies/search_settings_table.py: search_eval runs compared deal by deal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import load_script


def _script():
    return load_script("search_settings_table")


def _run(
    path: Path, search_won: list[bool], samples: int, model: str = "m.pth", confirm: int = 0
) -> Path:
    games = [
        {
            "game": i,
            "blueprint_won": False,
            "search_won": won,
            "search_s": 1.0,
            "searched": 2,
            "search_seconds": 0.5,
        }
        for i, won in enumerate(search_won)
    ]
    run = {
        "command": f"python lab/studies/search_eval.py --samples {samples}",
        "model": model,
        "seed": 7,
        "options": {
            "samples": samples,
            "margin": 0.1,
            "uncertain": 0.99,
            "phases": "play+group",
            **({"confirm": confirm} if confirm else {}),
        },
        "jobs": 2,
        "load_start": 4.0,
        "load_end": 4.5,
        "games": {"hard": games},
    }
    path.write_text(json.dumps(run))
    return path


def test_the_sign_test_is_exact():
    script = _script()
    assert script.sign_test(0, 0) == 1.0
    assert script.sign_test(5, 0) == pytest.approx(2 / 32)
    assert script.sign_test(1, 6) == pytest.approx(2 * 8 / 128)


def test_runs_are_compared_on_the_deals_they_share(tmp_path):
    script = _script()
    base = _run(tmp_path / "base.json", [True, False, True, False], 32)
    other = _run(tmp_path / "other.json", [True, True, False], 64, confirm=16)  # stopped at 3
    rows = script.rows(json.loads(base.read_text()), json.loads(other.read_text()), "hard")
    assert rows["games"] == 3 and (rows["only"], rows["base_only"]) == (1, 1)
    assert rows["search"] == pytest.approx(2 / 3) and rows["ms_searched"] == pytest.approx(250)
    text = script.table([base, other])
    assert "| hard | `other` | samples 64, margin 0.1, uncertain 0.99, confirm 16, phases" in text
    assert "| hard | `base` | samples 32, margin 0.1, uncertain 0.99, phases" in text
    assert "1 / 1 (1.00)" in text and "(2 processes; load 4.0 → 4.5)" in text
    assert "won the same deals" in text


def test_runs_of_another_model_are_refused(tmp_path):
    script = _script()
    base = _run(tmp_path / "base.json", [True], 32)
    other = _run(tmp_path / "other.json", [True], 32, model="n.pth")
    with pytest.raises(ValueError, match=r"model 'n\.pth'"):
        script.table([base, other])


@pytest.mark.parametrize("case", ["other_model", "missing", "not_search_eval", "not_json"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, case):
    script = _script()
    base = _run(tmp_path / "base.json", [True], 32)
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"results": {}}))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    other = {
        "other_model": _run(tmp_path / "other.json", [True], 32, model="n.pth"),
        "missing": tmp_path / "none.json",
        "not_search_eval": bare,
        "not_json": broken,
    }[case]
    assert script.main([str(base), str(other)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "allowed:" in err
    assert str(other) in err
