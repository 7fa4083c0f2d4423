"""Every code block of the README and of the documentation pages (docs/) runs as written.

Each Python block runs alone in a fresh interpreter from the repository root (so a
block that forgets an import fails); blocks that train a model are ``slow``. Each shell
block's commands name programs, modules and files that exist, and their ``--help`` works
(running them for real takes hours: the full test suite, training runs).

Authority: README.md and issues 13 and 23.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCKS = [
    (f"{page.stem}-{i}", lang, code)
    for page in PAGES
    for i, (lang, code) in enumerate(
        re.findall(r"^```(\w+)\n(.*?)^```", page.read_text(), re.MULTILINE | re.DOTALL)
    )
]
PYTHON = [(name, code) for name, lang, code in BLOCKS if lang == "python"]
SHELL = [(name, code) for name, lang, code in BLOCKS if lang in ("bash", "sh")]


def _first_line(code: str) -> str:
    return next(line for line in code.splitlines() if line.strip())[:60]


def test_the_readme_stays_short() -> None:
    """What a newcomer reads first (issue 23): the rest lives on the documentation site."""
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250


def test_the_readme_has_code_blocks() -> None:
    assert len(PYTHON) >= 5 and len(SHELL) >= 2


@pytest.mark.parametrize(
    "code",
    [
        pytest.param(code, id=name, marks=[pytest.mark.slow] if ".learn(" in code else [])
        for name, code in PYTHON
    ],
)
def test_python_block_runs_alone(code: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, f"{_first_line(code)}\n{result.stderr[-3000:]}"


def _commands(code: str) -> list[list[str]]:
    out = []
    for line in code.replace("\\\n", " ").splitlines():
        line = line.split("#")[0].strip()
        if line:
            out.append(shlex.split(line))
    return out


def _help_argv(argv: list[str]) -> list[str] | None:
    """The ``--help`` call that checks a README command without running it (None for the
    set-up scripts, which run the main job or the whole suite)."""
    if argv[0].endswith(".sh"):
        return None
    if argv[1] == "-m" and argv[2] in ("shipwreck_training.sb3", "shipwreck_training.fast"):
        for flag, value in itertools.pairwise(argv):
            if flag == "--config":
                assert (ROOT / value).exists(), value
        return [*argv[:3], "--help"]
    if Path(argv[0]).name == "shipwreck-arcana":
        return [argv[0], argv[1], "--help"]  # the subcommand's own help
    return [argv[0], "--help"]


@pytest.mark.parametrize("code", [code for _, code in SHELL], ids=[name for name, _ in SHELL])
def test_shell_block_names_what_exists(code: str) -> None:
    for argv in _commands(code):
        if argv[0].startswith(".venv-rllib/") and os.environ.get("SKIP_RLLIB") == "1":
            continue  # ``SKIP_RLLIB=1 ./test.sh`` does not build RLlib's environment
        assert (ROOT / argv[0]).exists(), argv[0]
        help_argv = _help_argv(argv)
        if help_argv is None:
            continue
        help_argv[0] = str(ROOT / help_argv[0])
        result = subprocess.run(help_argv, cwd=ROOT, capture_output=True, text=True, check=False)
        assert result.returncode == 0, f"{' '.join(argv)}: {result.stderr[-2000:]}"
