"""The product apart from the lab (issue 48): one top-level folder holds every program
that measures, studies, benchmarks or regenerates results, in rooms by kind; its index
and its folders list the same files; no two programs share a name; the programs run by
path carry no ``sys.path`` line that does nothing; the top level holds only the
folders the project's design names; the core package holds no benchmark.

Authority: ``docs/development.md`` (project layout), ``lab/README.md`` (the index) and
``docs/benchmarks.md``.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "lab"
ROOMS = ("studies", "reports", "runs", "bench", "tools")
"""The lab's rooms, one per kind of program (``lab/README.md``)."""
TOP_LEVEL = {
    "agents",
    "apps",
    "configs",
    "docs",
    "lab",
    "results",
    "shipwreck_env",
    "tests",
    "training",
}
"""The top-level folders the project's design names (at most nine)."""
NEEDED_SYS_PATH = {
    # the tests' server and browser helpers (tests/ is not a package)
    ("lab/reports/screenshot_table.py", "str(ROOT / 'tests')"),
    # the old revision's convention, copied into a temporary folder as a package
    ("lab/studies/convention_speed.py", "str(folder)"),
}
"""The ``sys.path`` lines that are needed, as (file, the path's source text)."""


def index_rows(text: str) -> list[str]:
    """The file names in the first column of the Markdown tables of ``text``."""
    return re.findall(r"^\| `([\w.-]+)` \|", text, flags=re.MULTILINE)


def index_by_room() -> dict[str, list[str]]:
    """The files ``lab/README.md`` lists, by the room whose ``## room`` section lists them."""
    text = (LAB / "README.md").read_text()
    rooms = {}
    for section in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        name, _, body = section.partition("\n")
        rooms[name.strip()] = index_rows(body)
    return rooms


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


def test_the_lab_has_one_room_per_kind_and_nothing_loose() -> None:
    assert sorted(p.name for p in LAB.iterdir() if p.is_dir() and p.name != "__pycache__") == (
        sorted(ROOMS)
    )
    assert sorted(p.name for p in LAB.iterdir() if p.is_file()) == ["README.md"]


@pytest.mark.parametrize("room", ROOMS)
def test_every_program_in_a_room_is_in_its_section_of_the_index(room: str) -> None:
    listed = index_by_room().get(room)
    assert listed is not None, f"lab/README.md has no '## {room}' section"
    files = sorted(p.name for p in (LAB / room).iterdir() if p.is_file())
    assert len(listed) == len(set(listed)), f"listed twice: {listed}"
    assert sorted(listed) == files, f"lab/{room}/ holds {files}; its index lists {sorted(listed)}"


def test_no_two_lab_programs_share_a_name() -> None:
    """``tests/conftest.py``'s ``load_script`` finds a program by its name alone."""
    stems = [p.stem for p in LAB.glob("*/*.py")]
    assert len(stems) == len(set(stems)), sorted(stems)


@pytest.mark.parametrize("room", ROOMS)
def test_no_program_adds_a_sys_path_entry_it_does_not_need(room: str) -> None:
    """The packages are installed (``pip install -e .``) and a program's own folder is
    first on ``sys.path`` when it runs, so adding the repository root or the program's
    folder does nothing; the lines that are needed say why in ``NEEDED_SYS_PATH``."""
    found = {
        (str(path.relative_to(ROOT)), added)
        for path in sorted((LAB / room).glob("*.py"))
        for added in sys_path_lines(path)
    }
    unneeded = found - NEEDED_SYS_PATH
    assert unneeded == set(), f"sys.path lines not needed (or not yet explained): {unneeded}"


def test_the_sys_path_check_sees_a_root_insert(tmp_path: Path) -> None:
    program = tmp_path / "probe.py"
    program.write_text(
        "import sys\nfrom pathlib import Path\n"
        "ROOT = Path(__file__).resolve().parents[2]\n"
        "def main():\n    sys.path.insert(0, str(ROOT))\n"
    )
    assert sys_path_lines(program) == ["str(ROOT)"]


def test_the_top_level_holds_only_the_folders_the_design_names() -> None:
    """At most nine top-level folders, among those tracked by git (a virtualenv or a
    build folder is not part of the repository)."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    folders = {Path(f).parts[0] for f in tracked if len(Path(f).parts) > 1}
    folders -= {".ci"}  # CI's entry point, a hidden folder
    assert folders == TOP_LEVEL
    assert len(TOP_LEVEL) <= 9


def test_the_core_package_holds_no_benchmark() -> None:
    """Benchmarks live in ``apps/bench.py`` (``shipwreck-arcana bench``) and
    ``lab/bench/``; the core package is the game and its RL adapters only."""
    core = ROOT / "shipwreck_env"
    named = sorted(str(p.relative_to(ROOT)) for p in core.rglob("*bench*.py"))
    assert named == []
    assert (ROOT / "apps" / "bench.py").is_file()
    assert sorted(p.name for p in (LAB / "bench").glob("bench_*.py")) == [
        "bench_fast_partners.py",
        "bench_fast_ppo.py",
        "bench_rllib.py",
        "bench_sb3.py",
    ]


def _layout_rows() -> list[tuple[str, str]]:
    """(first column, rest) of each row of ``docs/development.md``'s Project layout table."""
    text = (ROOT / "docs" / "development.md").read_text()
    table = text.split("## Project layout", 1)[1].split("\n\n", 2)[1]
    rows = []
    for line in table.splitlines()[2:]:
        first, _, rest = line.strip("|").partition("|")
        rows.append((first, rest))
    return rows


def test_the_layout_table_names_every_top_level_folder_and_every_core_module() -> None:
    """``docs/development.md`` stays true: each folder of the top level has a row, every
    path the table names exists, and each room of ``shipwreck_env`` lists every module
    in it. A planted module the table does not name fails this."""
    rows = _layout_rows()
    paths = [p for first, _ in rows for p in re.findall(r"`([\w./]+)`", first)]
    assert {p.split("/")[0] for p in paths if "/" in p} >= TOP_LEVEL
    missing = [p for p in paths if "/" in p and not (ROOT / p).exists()]
    assert missing == []
    for room in ("rules", "vector", "envs"):
        row = next(rest for first, rest in rows if f"`shipwreck_env/{room}/`" in first)
        stems = {p.stem for p in (ROOT / "shipwreck_env" / room).glob("*.py")} - {"__init__"}
        unnamed = sorted(s for s in stems if f"`{s}`" not in row)
        assert unnamed == [], f"shipwreck_env/{room}/ modules missing from the layout table"
