"""Package boundaries: the core (``shipwreck_env``) imports nothing from ``agents`` or
``training``; imports point down (training -> agents -> shipwreck_env).

Authority: ``STYLE.md`` (Where things live) and issue 13.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ABOVE = {"shipwreck_env": ("agents", "training"), "agents": ("training",)}


def imported_packages(path: Path) -> set[str]:
    """Top-level names of every module ``path`` imports, at any depth (lazy imports in
    functions included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", list(ABOVE))
def test_no_module_imports_a_package_above_it(package: str) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_packages(path) & set(ABOVE[package]))
        for path in sorted((ROOT / package).rglob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_importing_every_core_module_loads_no_agents_or_training() -> None:
    """At run time too: a fresh interpreter importing every ``shipwreck_env`` module has
    no ``agents`` or ``training`` module loaded."""
    code = (
        "import importlib, pkgutil, sys\n"
        "import shipwreck_env\n"
        "for m in pkgutil.walk_packages(shipwreck_env.__path__, 'shipwreck_env.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in ('agents', 'training'))\n"
        "print(bad)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("package", ["agents", "training"])
def test_top_level_names_resolve_to_this_repository(package: str) -> None:
    """``agents`` and ``training`` are generic top-level names: if another installed
    distribution's package of that name shadowed ours, this says so by name."""
    module = __import__(package)
    assert Path(module.__file__).resolve().parent == ROOT / package, module.__file__
