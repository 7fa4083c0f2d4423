"""lab/bench/bench_fast_ppo.py refuses a bad config in one line before benching anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "lab" / "bench" / "bench_fast_ppo.py"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["configs/fast/imitation.yaml", "--set", "num_games=1023"], "num_games 1023"),
        (["configs/fast/imitation.yaml", "--variant", "bogus=1"], "bogus is not a known key"),
        (["missing.yaml", "--profile"], "'missing.yaml' does not exist"),
    ],
)
def test_a_refused_config_is_one_line_and_nothing_is_written(
    tmp_path: Path, args: list[str], named: str
) -> None:
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--updates", "1", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and named in done.stderr
    assert done.stderr.strip().startswith("error:") and len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()
