"""The generated sections of results markdown files (training/common/report.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shipwreck_training.common.report import replace_section

START, END = "<!-- a:start -->", "<!-- a:end -->"


def test_a_section_is_replaced_in_place_and_the_rest_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_text(f"# head\n\n{START}\nold\n{END}\n\n<!-- b:start -->\nb\n<!-- b:end -->\n")
    replace_section(path, f"{START}\nnew\n{END}", START, END)
    assert path.read_text() == (
        f"# head\n\n{START}\nnew\n{END}\n\n<!-- b:start -->\nb\n<!-- b:end -->\n"
    )


def test_a_missing_section_is_appended_and_found_again(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_text("# head\n")
    replace_section(path, f"{START}\none\n{END}", START, END)
    replace_section(path, f"{START}\ntwo\n{END}", START, END)
    assert path.read_text() == f"# head\n\n{START}\ntwo\n{END}\n"


def test_a_missing_file_is_created(tmp_path: Path) -> None:
    path = tmp_path / "new.md"
    replace_section(path, f"{START}\nx\n{END}", START, END)
    assert path.read_text() == f"{START}\nx\n{END}\n"


def test_a_text_without_its_markers_is_refused_and_nothing_written(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_text("kept\n")
    with pytest.raises(ValueError, match="must begin with"):
        replace_section(path, "no markers", START, END)
    assert path.read_text() == "kept\n"
