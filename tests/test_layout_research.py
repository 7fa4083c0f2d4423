"""Research apart from the product (issue 42): the probes in ``research/`` and its index
agree, the programs run by path carry no ``sys.path`` line that does nothing, and the
core package holds no benchmark.

Authority: ``docs/development.md`` (project layout) and ``docs/benchmarks.md``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESEARCH = ROOT / "research"
PROGRAM_FOLDERS = ("scripts", "research", "benchmarks")
"""Folders of programs run by path (``python FOLDER/NAME.py``), not imported."""
NEEDED_SYS_PATH = {
    # the tests' server and browser helpers (tests/ is not a package)
    ("scripts/screenshot_table.py", "str(ROOT / 'tests')"),
    # the old revision's convention, copied into a temporary folder as a package
    ("research/convention_speed.py", "str(folder)"),
}
"""The ``sys.path`` lines that are needed, as (file, the path's source text)."""
TO_MOVE = "## Probes whose results ship, kept in scripts/"
"""The index's heading of the probes that stay in ``scripts/`` because what they write ships."""


def index_rows(text: str) -> list[str]:
    """The file names in the first column of the Markdown tables of ``text``."""
    return re.findall(r"^\| `([\w.-]+)` \|", text, flags=re.MULTILINE)


def sys_path_lines(path: Path) -> list[str]:
    """The source text of the path each ``sys.path.insert``/``append`` call in
    ``path`` adds."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("insert", "append")
            and ast.unparse(node.func.value) == "sys.path"
        ):
            found.append(ast.unparse(node.args[-1]))
    return found


def _index() -> tuple[list[str], list[str]]:
    text = (RESEARCH / "README.md").read_text()
    moved, _, to_move = text.partition(TO_MOVE)
    return index_rows(moved), index_rows(to_move)


def test_every_probe_in_research_is_in_its_index_and_every_row_is_a_file():
    listed, _ = _index()
    files = sorted(p.name for p in RESEARCH.iterdir() if p.is_file() and p.name != "README.md")
    assert len(listed) == len(set(listed)), f"listed twice: {listed}"
    assert sorted(listed) == files, (
        f"research/ holds {files}; research/README.md lists {sorted(listed)}"
    )


def test_the_probes_whose_results_ship_are_in_scripts_and_not_in_research():
    _, to_move = _index()
    for name in to_move:
        assert (ROOT / "scripts" / name).is_file(), f"{name} is listed as in scripts/"
        assert not (RESEARCH / name).exists(), f"{name} is in research/: list it in the main table"


@pytest.mark.parametrize("folder", PROGRAM_FOLDERS)
def test_no_program_adds_a_sys_path_entry_it_does_not_need(folder):
    """The packages are installed (``pip install -e .``) and a program's own folder is
    first on ``sys.path`` when it runs, so adding the repository root or the program's
    folder does nothing; the lines that are needed say why in ``NEEDED_SYS_PATH``."""
    found = {
        (str(path.relative_to(ROOT)), added)
        for path in sorted((ROOT / folder).glob("*.py"))
        for added in sys_path_lines(path)
    }
    unneeded = found - NEEDED_SYS_PATH
    assert unneeded == set(), f"sys.path lines not needed (or not yet explained): {unneeded}"


def test_the_sys_path_check_sees_a_root_insert(tmp_path):
    program = tmp_path / "probe.py"
    program.write_text(
        "import sys\nfrom pathlib import Path\n"
        "ROOT = Path(__file__).resolve().parent.parent\n"
        "def main():\n    sys.path.insert(0, str(ROOT))\n"
    )
    assert sys_path_lines(program) == ["str(ROOT)"]


def test_the_core_package_holds_no_benchmark():
    """Benchmarks live in ``apps/bench.py`` (``shipwreck-arcana bench``) and
    ``benchmarks/``; the core package is the game and its RL adapters only."""
    core = ROOT / "shipwreck_env"
    named = sorted(str(p.relative_to(ROOT)) for p in core.rglob("*bench*.py"))
    assert named == []
    assert (ROOT / "apps" / "bench.py").is_file()
    assert sorted(p.name for p in (ROOT / "benchmarks").glob("bench_*.py")) == [
        "bench_fast_partners.py",
        "bench_fast_ppo.py",
        "bench_rllib.py",
        "bench_sb3.py",
    ]
