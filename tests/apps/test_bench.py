"""The benchmark command runs and records what it measured (never a timing assertion)."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from shipwreck_apps import bench
from shipwreck_apps.bench import compile_seconds, format_compile, format_table, main, sample_legal


def test_bench_writes_medians_runs_command_and_load(tmp_path, capsys):
    out = tmp_path / "bench.json"
    args = ["--seconds", "0.05", "--repeats", "2", "--only", "shipwreck", "--json", str(out)]
    args += ["--compile-repeats", "0"]
    assert main(args) == 0
    data = json.loads(out.read_text())
    assert data["command"] == "python -m shipwreck_apps.bench " + " ".join(args)
    assert len(data["load_average"]) == 3
    names = [name for name in data["results"] if name.startswith("shipwreck")]
    assert len(names) == 16 and set(data["results"]) == set(names)
    for name in names:  # the batched engine covers every card set
        entry = data["results"][name]
        assert len(entry["runs"]) == 2 and entry["median"] > 0
        assert name in data["table"]
        assert ("bytes_per_game" in entry) == ("batched" in name)
        assert entry["cpu"] == data["cpu"]["model"]  # beside every figure
    assert sum("batched engine, N=" in name for name in names) == 10
    assert data["table"].startswith(f"CPU: {data['cpu']['model']} (")
    assert data["compile_seconds"] is None
    assert data["table"] in capsys.readouterr().out
    assert "the vector entry point runs **" in data["table"]  # the Play-v0 rows' ratio


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
    assert "| a | 20 | 2 | 0.50x | - | - |" in table
    assert "| PettingZoo hanabi_v5 | not installed | - | - | - | - |" in table


def test_bench_table_gives_the_ratio_to_our_aec_env_and_memory_per_game():
    results = {
        "shipwreck AEC env (3 players, base)": {"available": True, "runs": [10.0], "median": 10.0},
        "b": {"available": True, "runs": [250.0], "median": 250.0, "bytes_per_game": 2048.0},
    }
    assert "| b | 250 | 1 | - | 25.00x | 2.0 KiB |" in format_table(results)


def test_sample_legal_picks_every_legal_action_and_nothing_else():
    mask = np.zeros((3, 259), bool)
    mask[0, [1, 5, 200]] = True
    mask[1, 42] = True
    mask[2, [7, 8]] = True
    rng = np.random.default_rng(0)
    picks = np.array([sample_legal(mask, rng) for _ in range(300)])
    assert set(picks[:, 0]) == {1, 5, 200}
    assert set(picks[:, 1]) == {42}
    assert set(picks[:, 2]) == {7, 8}


def test_bench_memory_option_reports_the_largest_batch_in_one_gib(capsys):
    assert main(["--memory-games", "64", "--json", ""]) == 0
    out = capsys.readouterr().out
    assert "N=64: peak" in out and "largest N in 1 GiB" in out


def test_bench_split_option_reports_each_part_of_a_batched_step(capsys):
    assert main(["--split", "8", "--seconds", "0.05", "--json", ""]) == 0
    out = capsys.readouterr().out
    for part in ("observe", "legal_mask", "policy", "step", "agent steps/s"):
        assert part in out


def test_compile_table_gives_the_cold_and_warm_medians_and_the_lines_printed():
    runs = {"cold": [30.0, 20.0, 25.0], "warm": [2.0, 1.0, 3.0], "cold_lines": [1, 0, 1]}
    runs |= {"cold_cpu": [9.0, 8.0, 7.0], "warm_cpu": [1.5, 1.0, 0.5]}
    table = format_compile({"aec": runs})
    assert "| 25.0 s (8.0 s) | 1 | 2.0 s (1.0 s) | 3 |" in table
    assert "one whole random game" in table


def test_cpu_info_names_the_model_and_only_known_vector_extensions():
    cpu = bench.cpu_info()
    assert cpu["model"] and cpu["cores"] >= 1
    assert set(cpu["vector_extensions"]) <= set(bench.VECTOR_FLAGS)
    with open("/proc/cpuinfo") as fh:
        flags = next(line for line in fh if line.startswith("flags")).split()
    assert ("avx2" in cpu["vector_extensions"]) == ("avx2" in flags)
    assert bench.format_cpu(cpu).startswith(f"CPU: {cpu['model']} (")


@pytest.mark.slow
def test_compile_seconds_times_a_cold_then_a_warm_first_call(monkeypatch):
    monkeypatch.setattr(bench, "FIRST_CALLS", {"aec": bench.FIRST_CALLS["aec"]})
    runs = compile_seconds(1)["aec"]
    assert all(len(values) == 1 for values in runs.values()) and len(runs) == 5
    assert runs["cold_lines"] == [1]  # the background compile's one line
    assert runs["cold_cpu"][0] > 0 and runs["warm_cpu"][0] > 0


def test_bench_repeats_go_round_robin_over_the_benchmarks(monkeypatch):
    """A ratio between two rows is fair only if their runs shared the machine's load:
    run k of every benchmark comes before run k + 1 of any."""
    import shipwreck_apps.bench as bench

    calls: list[str] = []

    def fake(name: str):
        def factory():
            def run(seconds: float) -> float:
                calls.append(name)
                return float(len(calls))

            return run

        return factory

    monkeypatch.setattr(bench, "BENCHMARKS", {"a": fake("a"), "b": fake("b")})
    results = bench.run_benchmarks(0.01, 3)
    assert calls == ["a", "b", "a", "b", "a", "b", "a", "b"]  # one warm-up each, then rounds
    assert results["a"]["runs"] == [3.0, 5.0, 7.0] and results["a"]["median"] == 5.0
    assert results["b"]["runs"] == [4.0, 6.0, 8.0] and results["b"]["median"] == 6.0


def test_play_ratio_line_divides_the_vector_entry_point_by_sync_of_the_same_run():
    results = {
        bench.PLAY_VECTOR: {"available": True, "runs": [9000.0, 11000.0], "median": 10000.0},
        bench.PLAY_SYNC: {"available": True, "runs": [400.0, 500.0], "median": 450.0},
    }
    line = bench.format_play_ratio(results)
    assert "runs **22.2x** the sync mode's learner steps/s (10,000 against 450" in line
    results[bench.PLAY_SYNC] = {"available": False, "why": "not installed (shipwreck_agents)"}
    assert bench.format_play_ratio(results) is None


def test_play_rows_say_why_without_the_agents(monkeypatch):
    """The bench lives in the core: without ``shipwreck_agents`` the Play-v0 rows are
    skipped with the reason, and nothing else fails."""
    monkeypatch.setitem(sys.modules, "shipwreck_agents.registry", None)  # import fails
    for mode in ("vector_entry_point", "sync"):
        assert bench._play_vec(mode, 2) == "not installed (shipwreck_agents.registry)"
