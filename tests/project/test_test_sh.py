"""./test.sh runs every part even when an earlier one fails, names each part's result
and exits nonzero if any failed: checked on a copy of the script in a folder whose
set-up and interpreters are stubs (each records its call and ends as told)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUB = """#!/usr/bin/env bash
echo "$0 $*" >> "$(dirname "$0")/../../calls.txt"
case "$*" in *pytest*) exit "${CODE:-0}";; esac
exit 0
"""


def _tree(tmp_path: Path, codes: dict[str, int]) -> Path:
    tmp_path.mkdir(exist_ok=True)
    shutil.copy(ROOT / "test.sh", tmp_path / "test.sh")
    (tmp_path / "lab" / "tools").mkdir(parents=True)
    (tmp_path / "lab" / "tools" / "setup.sh").write_text("#!/usr/bin/env bash\nexit 0\n")
    (tmp_path / "lab" / "tools" / "setup.sh").chmod(0o755)
    for venv, code in codes.items():
        python = tmp_path / venv / "bin" / "python"
        python.parent.mkdir(parents=True)
        python.write_text(STUB.replace("${CODE:-0}", str(code)))
        python.chmod(0o755)
    return tmp_path


def _run(tree: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    env = {k: v for k, v in os.environ.items() if k not in ("SKIP_RLLIB", "SKIP_AGILERL")}
    job = subprocess.run(
        ["bash", str(tree / "test.sh")], capture_output=True, text=True, env=env, timeout=60
    )
    calls = (tree / "calls.txt").read_text().splitlines()
    return job, [line.split("/bin/python")[0].rsplit("/", 1)[-1] for line in calls]


@pytest.mark.skipif(shutil.which("bash") is None, reason="test.sh is a bash script")
def test_a_failing_main_suite_still_runs_the_rllib_and_agilerl_parts(tmp_path):
    job, venvs = _run(_tree(tmp_path, {".venv": 1, ".venv-rllib": 0, ".venv-agilerl": 0}))
    assert job.returncode != 0, job.stdout
    # warm kernels, the main suite, then both other parts
    assert venvs == [".venv", ".venv", ".venv-rllib", ".venv-agilerl"], venvs
    assert "main suite (.venv): FAILED (exit 1)" in job.stdout
    assert "RLlib (.venv-rllib): passed" in job.stdout
    assert "AgileRL (.venv-agilerl): passed" in job.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="test.sh is a bash script")
def test_a_failing_later_part_fails_the_script_and_every_part_passing_passes_it(tmp_path):
    job, _ = _run(_tree(tmp_path / "a", {".venv": 0, ".venv-rllib": 3, ".venv-agilerl": 0}))
    assert job.returncode != 0 and "RLlib (.venv-rllib): FAILED (exit 3)" in job.stdout
    job, _ = _run(_tree(tmp_path / "b", {".venv": 0, ".venv-rllib": 0, ".venv-agilerl": 0}))
    assert job.returncode == 0 and job.stdout.count(": passed") == 3, job.stdout
