"""Generated sections of the results markdown files.

Each report script owns one section of a shared file such as ``results/training/training.md``,
fenced by its own start and end markers, so several scripts can regenerate their parts
of one page without touching each other's.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["replace_section"]


def replace_section(path: Path, text: str, start: str, end: str) -> None:
    """Write ``text`` in place of the section of ``path`` from ``start`` to ``end``.

    ``text`` must itself begin with ``start`` and end with ``end``, so that the next run
    finds the section again. A file without both markers gets the section appended; a
    missing file is created.

    Raises:
        ValueError: ``text`` does not begin with ``start`` and end with ``end``.
    """
    if not (text.startswith(start) and text.endswith(end)):
        raise ValueError(
            f"a section for {path} must begin with {start!r} and end with {end!r}; "
            f"got one beginning {text[:40]!r}"
        )
    old = path.read_text() if path.exists() else ""
    if start in old and end in old[old.index(start) :]:
        head = old[: old.index(start)]
        tail = old[old.index(end, old.index(start)) + len(end) :]
        new = head + text + tail
    else:
        new = old.rstrip("\n") + "\n\n" + text + "\n" if old else text + "\n"
    path.write_text(new)
