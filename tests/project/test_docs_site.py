"""The documentation site builds strictly: every page in the navigation, no broken link,
every API reference target found (``mkdocs build --strict``, mkdocs.yml)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _build(tmp_path: Path, docs_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    config = ROOT / "mkdocs.yml"
    if docs_dir is not None:  # a copy of the site's config pointing at other pages
        text = config.read_text().replace("docs_dir: docs", f"docs_dir: {docs_dir}")
        text = text.replace(
            "lab/tools/mkdocs_hooks.py", str(ROOT / "lab" / "tools" / "mkdocs_hooks.py")
        )
        config = tmp_path / "mkdocs.yml"
        config.write_text(text)
    site = tmp_path / "site"
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
        check=False,
    )


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    result = _build(tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert (tmp_path / "site" / "rules" / "index.html").exists()
    api = (tmp_path / "site" / "api" / "vector" / "index.html").read_text()
    assert "VectorGame" in api and "legal_mask" in api
    # the pictures of results/ are copied into the site and shown by the results page
    assert (tmp_path / "site" / "results" / "crossplay" / "crossplay.png").exists()
    assert (
        'src="crossplay/crossplay.png"'
        in (tmp_path / "site" / "results" / "index.html").read_text()
    )


@pytest.mark.parametrize(
    ("link", "named"),
    [
        ("[fine](rules.md)", None),  # the control: a copy with a good link builds
        ("[gone](missing-page.md)", "missing-page.md"),
        ("[gone](../no_such_file.py)", "no_such_file.py"),
        ("[gone](rules.md#no-such-part)", "no-such-part"),
        ("![gone](../results/no_such_plot.png)", "no_such_plot.png"),
    ],
)
def test_a_broken_link_fails_the_build(tmp_path: Path, link: str, named: str | None) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    (docs / "development.md").write_text((docs / "development.md").read_text() + f"\n{link}\n")
    result = _build(tmp_path, docs)
    if named is None:
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    else:
        assert result.returncode != 0
        assert named in result.stdout + result.stderr
