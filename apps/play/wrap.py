"""Text for a terminal: lines wrapped to its width, words never cut.

Used by terminal play and terminal replays; it holds no game knowledge.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from typing import TextIO

__all__ = ["WrappedOutput", "terminal_width"]


def terminal_width() -> int | None:
    """The terminal's width in columns (``COLUMNS`` if set), or ``None`` when the output
    is not a terminal (a pipe or a file is not wrapped)."""
    if not sys.stdout.isatty():
        return None
    return shutil.get_terminal_size((100, 24)).columns


class WrappedOutput:
    """A text stream that wraps each whole line it is given to ``width`` columns, never
    cutting a word, and keeps the first line's indent (plus two) on the next ones; a
    piece without a newline (the prompt) goes out as it is. ``width`` ``None``: no
    wrapping."""

    def __init__(self, out: TextIO, width: int | None) -> None:
        self.out = out
        self.width = None if width is None else max(20, width)
        self._column = 0  # what is already on the current line (a prompt)

    def write(self, text: str) -> int:
        """Write ``text`` wrapped; returns its length, as a stream does."""
        *lines, rest = text.split("\n")
        for line in lines:
            self.out.write(self._wrap(line) + "\n")
            self._column = 0
        if rest:
            self.out.write(rest)
            self._column += len(rest)
        return len(text)

    def _wrap(self, line: str) -> str:
        if self.width is None or self._column + len(line) <= self.width:
            return line
        indent = line[: len(line) - len(line.lstrip())]
        lead = " " * self._column  # the prompt's place on the first line
        wrapped = textwrap.fill(
            line.strip(),
            self.width,
            initial_indent=lead + indent,
            subsequent_indent=indent + "  ",
            break_long_words=False,
            break_on_hyphens=False,
        )
        return wrapped[len(lead) :]

    def flush(self) -> None:
        """Flush the stream below."""
        self.out.flush()
