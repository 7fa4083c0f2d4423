"""The generated parts of the README and docs/ match the code and the results files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_and_docs_are_regenerated():
    """`python lab/reports/update_readme.py --check` finds nothing stale."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "lab" / "reports" / "update_readme.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_docs_point_only_inside_the_repository():
    """README, docs/ and the package's docstrings name no file outside the repository
    (the rulebook is cited by title), and every relative Markdown link resolves."""
    import re

    texts = {p: p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]}
    texts.update({p: p.read_text() for p in sorted((ROOT / "shipwreck_env").rglob("*.py"))})
    for path, text in texts.items():
        assert "shared/rules" not in text and "rulings.md" not in text, path
        assert "cards.md" not in text, path
        if path.suffix == ".md":
            for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
                if "://" in target:
                    continue
                resolved = (path.parent / target).resolve()
                assert resolved.exists(), f"{path.name}: {target}"
                assert ROOT in resolved.parents or resolved == ROOT, f"{path.name}: {target}"


OUTSIDE = ("shared/rules", "rulings.md", "rulebook.txt", "cards.md")
"""Names of the rule files outside the repository that a citation must not come back to
(the rulebook is cited by title, our rulings by ``docs/rules.md``)."""


def test_code_and_tests_point_only_inside_the_repository():
    """Every .py of the tests, the package, agents/, training/ and lab/ cites the
    rules by the rulebook's title and ``docs/rules.md``, never by a file outside."""
    folders = ("tests", "shipwreck_env", "agents", "training", "lab")
    paths = [p for folder in folders for p in sorted((ROOT / folder).rglob("*.py"))]
    assert len(paths) > 50
    for path in paths:
        if path == Path(__file__).resolve():
            continue  # this file names them to forbid them
        text = path.read_text()
        found = [name for name in OUTSIDE if name in text]
        assert found == [], f"{path.relative_to(ROOT)} cites {found}"
