"""``tests/`` mirrors the packages (issue 48): one folder per room, each test module in
the folder of what it tests, file names unique across folders, and every folder on the
test path (``pyproject.toml``) so that a module can import another's fixtures by name.

Authority: ``docs/development.md`` (project layout; tests mirror modules).
"""

from __future__ import annotations

from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
ROOMS = {
    "shipwreck_env/rules": "shipwreck_env/rules",
    "shipwreck_env/vector": "shipwreck_env/vector",
    "shipwreck_env/envs": "shipwreck_env/envs",
    "agents": "agents",
    "training": "training",
    "apps": "apps",
    "lab": "lab",
    "project": None,  # what spans the repository: boundaries, docs, set-up, the wheel
}
"""Each test folder and the room of the repository it mirrors."""


def _folders_with_tests() -> set[str]:
    return {p.parent.relative_to(TESTS).as_posix() for p in TESTS.rglob("test_*.py")}


def test_every_test_module_sits_in_the_folder_of_a_room() -> None:
    assert _folders_with_tests() == set(ROOMS)
    for folder, room in ROOMS.items():
        if room is not None:
            assert (ROOT / room).is_dir(), f"tests/{folder} mirrors {room}/, which is gone"


def test_test_module_names_are_unique_across_the_folders() -> None:
    names = [p.name for p in TESTS.rglob("test_*.py")]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_every_test_folder_is_on_the_test_path() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    path = config["tool"]["pytest"]["ini_options"]["pythonpath"]
    assert sorted(path) == sorted(["tests", *(f"tests/{folder}" for folder in ROOMS)])
