"""The generated parts of the README and docs/ match the code and the results files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_and_docs_are_regenerated():
    """`python scripts/update_readme.py --check` finds nothing stale."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "update_readme.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
