"""A newcomer's first command, as the README gives it: a fresh clone of the repository,
``./run.sh`` (which builds ``.venv`` on first use) and the main job's table, so a missing
install step fails here rather than on a user's machine. Slow: it builds a virtualenv
(about two minutes with pip's cache warm, as it is after the suite's own set-up).

pip is told not to byte-compile what it installs (``PIP_COMPILE=0``): compiling the
~12,500 modules of the new ``.venv`` was about 60% of the set-up's CPU time (51 of 82
user seconds, measured with ``compileall`` on such a ``.venv``), and it changes neither
which packages are installed nor whether the main job runs (Python compiles what it
imports)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_fresh_clone_runs_the_main_job(tmp_path: Path) -> None:
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("needs the repository's git history to clone")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=300)
    result = subprocess.run(
        ["./run.sh", "--games", "2", "--jobs", "1"],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        # ``PIP_NO_COMPILE=1`` would mean the opposite (pip reads a ``no-`` variable as
        # the option's value), so the positive option is turned off
        env={**os.environ, "PIP_COMPILE": "0"},
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    for difficulty in ("easy", "normal", "hard", "doomed"):
        assert f"| {difficulty} |" in result.stdout
    # the main job needs .venv only: not RLlib's environment
    assert (clone / ".venv" / "bin" / "shipwreck-arcana").exists()
    assert not (clone / ".venv-rllib").exists()
