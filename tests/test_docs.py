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


def test_every_card_id_of_the_rules_appears_in_the_card_data():
    """cards.md and the package agree on the 36 card ids."""
    from shipwreck_env.cards import CARDS

    assert len(CARDS) == 36 and len({c.id for c in CARDS}) == 36
