"""The benchmark command runs and records what it measured (never a timing assertion)."""

from __future__ import annotations

import json

from shipwreck_env.bench import format_table, main


def test_bench_writes_medians_runs_command_and_load(tmp_path, capsys):
    out = tmp_path / "bench.json"
    args = ["--seconds", "0.05", "--repeats", "2", "--only", "shipwreck", "--json", str(out)]
    assert main(args) == 0
    data = json.loads(out.read_text())
    assert data["command"] == "python -m shipwreck_env.bench " + " ".join(args)
    assert len(data["load_average"]) == 3
    names = [name for name in data["results"] if name.startswith("shipwreck")]
    assert len(names) == 4 and set(data["results"]) == set(names)
    for name in names:
        entry = data["results"][name]
        assert len(entry["runs"]) == 2 and entry["median"] > 0
        assert name in data["table"]
    assert data["table"] in capsys.readouterr().out


def test_bench_table_marks_missing_peers_and_ratios():
    results = {
        "a": {"available": True, "runs": [10.0, 30.0], "median": 20.0},
        "PettingZoo hanabi_v5": {"available": False},
        "OpenSpiel hanabi (C++, observation_tensor)": {
            "available": True,
            "runs": [40.0],
            "median": 40.0,
        },
    }
    table = format_table(results)
    assert "| a | 20 | 2 | 0.50x |" in table
    assert "| PettingZoo hanabi_v5 | not installed | - | - |" in table
